#include "units/parse.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "units/units.h"

namespace dcplan::units {
namespace {

// The value of a parse that must succeed (a failed parse fails the test and yields NaN).
template <typename Q>
double ValueOf(const absl::StatusOr<Q>& q) {
  EXPECT_TRUE(q.ok()) << q.status();
  return q.ok() ? q->value() : std::nan("");
}
double ValueOf(const absl::StatusOr<double>& q) {
  EXPECT_TRUE(q.ok()) << q.status();
  return q.ok() ? *q : std::nan("");
}

// ---------------------------------------------------------------------------------------------------
// Power
// ---------------------------------------------------------------------------------------------------

TEST(ParsePower, AcceptsMegawattsWithAndWithoutSpace) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("50MW")), 50e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("50 MW")), 50e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("50\tMW")), 50e6);
}

TEST(ParsePower, AcceptsEveryPrefixFromWattToTerawatt) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("1.4 kW")), 1400.0);  // 1.4 x 1e3
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("700 W")), 700.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("2GW")), 2e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("0.5 TW")), 5e11);
}

TEST(ParsePower, TellsMegawattFromMilliwatt) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("500 mW")), 0.5);  // 500 x 1e-3
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("500 MW")), 5e8);  // 500 x 1e6
}

TEST(ParsePower, IgnoresSurroundingWhitespace) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("  700W \n")), 700.0);
}

TEST(ParsePower, AcceptsScientificFractionalAndSignedNumbers) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("2.5e3kW")), 2.5e6);  // 2500 kW
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("2.5E-3 MW")), 2500.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower(".5MW")), 5e5);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("1. kW")), 1e3);
  // The sign is the caller's to check.
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("-1MW")), -1e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("+3 GW")), 3e9);
}

TEST(ParsePower, ReadsAnEAfterTheNumberAsExaNotAnExponent) {
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("2EW")), 2e18);
  EXPECT_DOUBLE_EQ(ValueOf(ParsePower("2E1W")), 20.0);
}

// ---------------------------------------------------------------------------------------------------
// Energy and time
// ---------------------------------------------------------------------------------------------------

TEST(ParseEnergy, AcceptsWattHoursAndJoules) {
  // 1 Wh = 3,600 J.
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("100MWh")), 100.0 * 3.6e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("1 kWh")), 3.6e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("8.8 GWh")), 8.8e9 * 3600.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("2 Wh")), 7200.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("3.6 MJ")), 3.6e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("5 J")), 5.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseEnergy("1TWh")), 3.6e15);
}

TEST(ParseTime, AcceptsSecondsToYears) {
  // A year is 8,760 h = 31,536,000 s.
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("4y")), 4.0 * 31536000.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("1 year")), 31536000.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("2 yr")), 2.0 * 31536000.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("3 years")), 3.0 * 31536000.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("36 days")), 36.0 * 86400.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("1 day")), 86400.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("2d")), 172800.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("2 h")), 7200.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("2hr")), 7200.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("90 min")), 5400.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("30 s")), 30.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("250ms")), 0.25);
}

TEST(ParseTime, AgreesWithTheYearOfUnitsH) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("1y")), InSeconds(Years(1.0)));
  EXPECT_DOUBLE_EQ(ValueOf(ParseTime("8760 h")), InSeconds(Years(1.0)));
}

// ---------------------------------------------------------------------------------------------------
// Money
// ---------------------------------------------------------------------------------------------------

TEST(ParseMoney, AcceptsDollarSignWithMultipliers) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$2.5B")), 2.5e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$750M")), 7.5e8);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$1.2k")), 1200.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$1.2K")), 1200.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$3T")), 3e12);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$12.50")), 12.5);
}

TEST(ParseMoney, AcceptsUsdSuffix) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("750M USD")), 7.5e8);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("2.5e9 USD")), 2.5e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("2.5B USD")), 2.5e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("40USD")), 40.0);
}

TEST(ParseMoney, TakesABareNumberAsDollars) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("2.5e9")), 2.5e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("2.5B")), 2.5e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("0")), 0.0);
}

TEST(ParseMoney, AcceptsTheSignOnEitherSideOfTheDollar) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("-$1.23B")), -1.23e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoney("$-1.23B")), -1.23e9);
}

TEST(ParseMoneyPerEnergy, AcceptsUsdAndDollarPerKilowattHour) {
  const double expected = InUsdPerJoule(UsdPerKilowattHour(0.08));  // 0.08 / 3.6e6 USD/J
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("0.08 USD/kWh")), expected);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("$0.08/kWh")), expected);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("0.08 $/kWh")), expected);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("0.08 USD / kWh")), expected);
  // 80 USD/MWh is the same price: 80 / 1000 kWh.
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("80 USD/MWh")), expected);
}

TEST(ParseMoneyPerEnergy, AcceptsJoulesAndWattHours) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("2 USD/J")), 2.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("$36/Wh")), 36.0 / 3600.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerEnergy("$5/GJ")), 5e-9);
}

TEST(ParseMoneyPerPower, AcceptsMoneyPerMegawattKilowattAndWatt) {
  // $10M per MW is $10 per W.
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerPower("10M USD/MW")), InUsdPerWatt(UsdPerMegawatt(10e6)));
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerPower("$10M/MW")), 10.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerPower("10 USD/W")), 10.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerPower("$12/W")), 12.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseMoneyPerPower("120 USD/kW")), 0.12);
}

// ---------------------------------------------------------------------------------------------------
// Compute and data
// ---------------------------------------------------------------------------------------------------

TEST(ParseCompute, AcceptsFlopWithPrefixesAndPlural) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseCompute("1e24 FLOP")), 1e24);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCompute("3.8 EFLOPs")), 3.8e18);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCompute("5kFLOP")), 5e3);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCompute("2 PFLOP")), 2e15);
}

TEST(ParseComputeRate, AcceptsFlopPerSecondAndCapitalS) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseComputeRate("989.4 TFLOP/s")), 989.4e12);
  EXPECT_DOUBLE_EQ(ValueOf(ParseComputeRate("1.5 EFLOP/s")), 1.5e18);
  EXPECT_DOUBLE_EQ(ValueOf(ParseComputeRate("2 PFLOPS")), 2e15);
  EXPECT_DOUBLE_EQ(ValueOf(ParseComputeRate("10 FLOPs/s")), 10.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseComputeRate("312TFLOPS")), 312e12);
}

TEST(ParseDataRate, ReadsLowercaseBAsBitsAndUppercaseAsBytes) {
  // 400 Gb/s = 400e9 / 8 B/s = 50e9 B/s.
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("400Gb/s")), 50e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("400 Gbps")), 50e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("50 GB/s")), 50e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("800 Mb/s")), 1e8);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("3.2 Tb/s")), 4e11);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("8 b/s")), 1.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseDataRate("1 kB/s")), 1e3);
}

// ---------------------------------------------------------------------------------------------------
// Count
// ---------------------------------------------------------------------------------------------------

TEST(ParseCount, AcceptsPlainAndScientificNumbers) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("1024")), 1024.0);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("405e9")), 405e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount(" 0 ")), 0.0);
}

TEST(ParseCount, AcceptsSiAndBillionSuffixes) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("16M")), 16e6);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("15T")), 15e12);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("70B")), 70e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("70G")), 70e9);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("2k")), 2e3);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("2K")), 2e3);
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("16 M")), 16e6);
}

TEST(ParseCount, AcceptsBinarySuffixes) {
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("4Ki")), 4096.0);  // 4 x 1024
  EXPECT_DOUBLE_EQ(ValueOf(ParseCount("1Mi")), 1048576.0);
}

TEST(ParseCount, LeavesTheSignToTheCaller) { EXPECT_DOUBLE_EQ(ValueOf(ParseCount("-3")), -3.0); }

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

struct BadInput {
  std::function<absl::Status(absl::string_view)> parse;
  std::string text;
  std::string message;
};

template <typename Q>
std::function<absl::Status(absl::string_view)> StatusOf(
    absl::StatusOr<Q> (*parse)(absl::string_view)) {
  return [parse](absl::string_view text) { return parse(text).status(); };
}

TEST(ParseErrors, NameTheKindAnExampleAndTheTextExactly) {
  const auto power = StatusOf(&ParsePower);
  const std::vector<BadInput> cases = {
      // Wrong dimension.
      {power, "50MWh", R"(expected a power such as 50MW, got "50MWh")"},
      {StatusOf(&ParseEnergy), "50MW", R"(expected an energy such as 100MWh, got "50MW")"},
      {StatusOf(&ParseCompute), "1 PFLOPS",
       R"(expected an amount of compute such as 1e24 FLOP, got "1 PFLOPS")"},
      {StatusOf(&ParseComputeRate), "989.4 TFLOP",
       R"(expected a compute rate such as 989.4 TFLOP/s, got "989.4 TFLOP")"},
      {StatusOf(&ParseDataRate), "400 Gb", R"(expected a data rate such as 400Gb/s, got "400 Gb")"},
      {StatusOf(&ParseMoneyPerEnergy), "$0.08/kW",
       R"(expected a price per energy such as 0.08 USD/kWh, got "$0.08/kW")"},
      {StatusOf(&ParseMoneyPerPower), "10M USD/MWh",
       R"(expected a price per power such as 10M USD/MW, got "10M USD/MWh")"},
      {StatusOf(&ParseMoney), "$10M/MW",
       R"(expected an amount of money such as $2.5B, got "$10M/MW")"},
      // Volt-amperes are apparent power, not power.
      {power, "50 kVA", R"(expected a power such as 50MW, got "50 kVA")"},
      // Missing unit where one is required.
      {power, "50", R"(expected a power such as 50MW, got "50")"},
      {StatusOf(&ParseTime), "4", R"(expected a time such as 4y, got "4")"},
      {StatusOf(&ParseCompute), "1e24",
       R"(expected an amount of compute such as 1e24 FLOP, got "1e24")"},
      {StatusOf(&ParseMoneyPerEnergy), "0.08",
       R"(expected a price per energy such as 0.08 USD/kWh, got "0.08")"},
      // A price needs its currency.
      {StatusOf(&ParseMoneyPerEnergy), "0.08/kWh",
       R"(expected a price per energy such as 0.08 USD/kWh, got "0.08/kWh")"},
      // Unknown units and wrong case.
      {StatusOf(&ParseTime), "4 weeks", R"(expected a time such as 4y, got "4 weeks")"},
      {power, "5 mw", R"(expected a power such as 50MW, got "5 mw")"},
      {power, "5 Mw", R"(expected a power such as 50MW, got "5 Mw")"},
      // Money takes B for billion, never G; and one currency only.
      {StatusOf(&ParseMoney), "$2.5G", R"(expected an amount of money such as $2.5B, got "$2.5G")"},
      {StatusOf(&ParseMoney), "$5 USD",
       R"(expected an amount of money such as $2.5B, got "$5 USD")"},
      {StatusOf(&ParseMoney), "5 EUR", R"(expected an amount of money such as $2.5B, got "5 EUR")"},
      // Empty, blank, garbage, trailing junk.
      {power, "", R"(expected a power such as 50MW, got "")"},
      {power, "   ", R"(expected a power such as 50MW, got "   ")"},
      {power, "abc", R"(expected a power such as 50MW, got "abc")"},
      {power, "MW", R"(expected a power such as 50MW, got "MW")"},
      {power, "50MW x", R"(expected a power such as 50MW, got "50MW x")"},
      {power, "50MW50MW", R"(expected a power such as 50MW, got "50MW50MW")"},
      {power, "5..0 W", R"(expected a power such as 50MW, got "5..0 W")"},
      {power, "--5 W", R"(expected a power such as 50MW, got "--5 W")"},
      {power, "- 5 W", R"(expected a power such as 50MW, got "- 5 W")"},
      {power, "0x10 W", R"(expected a power such as 50MW, got "0x10 W")"},
      {power, "$5 W", R"(expected a power such as 50MW, got "$5 W")"},
      // Not-a-number, infinity, and values that overflow a double.
      {power, "nan MW", R"(expected a power such as 50MW, got "nan MW")"},
      {power, "inf W", R"(expected a power such as 50MW, got "inf W")"},
      {power, "1e400 W", R"(expected a power such as 50MW, got "1e400 W")"},
      {power, "1e308 EW", R"(expected a power such as 50MW, got "1e308 EW")"},
      {StatusOf(&ParseMoney), "1e308T",
       R"(expected an amount of money such as $2.5B, got "1e308T")"},
      // Counts take no thousands separators and no units.
      {StatusOf(&ParseCount), "1,024", R"(expected a count such as 16M, got "1,024")"},
      {StatusOf(&ParseCount), "16 MW", R"(expected a count such as 16M, got "16 MW")"},
      {StatusOf(&ParseCount), "16m", R"(expected a count such as 16M, got "16m")"},
      {StatusOf(&ParseCount), "inf", R"(expected a count such as 16M, got "inf")"},
      // Control bytes and quotes are escaped in the message.
      {power, "5\x01W", R"(expected a power such as 50MW, got "5\x01W")"},
      {power, "5\"W", R"(expected a power such as 50MW, got "5\"W")"},
  };
  for (const BadInput& c : cases) {
    absl::Status status = c.parse(c.text);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(status.message(), c.message);
  }
}

TEST(ParseErrors, QuoteAtMostSixtyFourCharactersOfALongInput) {
  const std::string text(100, '9');
  absl::Status status = ParsePower(text).status();
  EXPECT_EQ(status.message(),
            "expected a power such as 50MW, got \"" + std::string(64, '9') + "...\"");
}

// Checks one parse of a random string; counts the successes.
template <typename Q>
void ExpectFiniteOrInvalid(const absl::StatusOr<Q>& q, const std::string& text, int* accepted) {
  if (!q.ok()) {
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument) << text;
    return;
  }
  ++*accepted;
  if constexpr (std::is_same_v<Q, double>) {
    EXPECT_TRUE(std::isfinite(*q)) << text;
  } else {
    EXPECT_TRUE(std::isfinite(q->value())) << text;
  }
}

// Deterministic random strings over the characters the grammar cares about: every parser returns a
// finite value or InvalidArgument, and (under ASan/UBSan) reads nothing out of bounds.
TEST(ParseErrors, NoInputCrashesOrYieldsANonFiniteValue) {
  const std::string alphabet = "0123456789.eE+-$ /kKMGTPEmWhJsdyBbUSDFLOPpi,x\t\x01";
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = next() % 16;
    for (int j = 0; j < length; ++j) text.push_back(alphabet[next() % alphabet.size()]);
    ExpectFiniteOrInvalid(ParsePower(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseEnergy(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseTime(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseMoney(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseCompute(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseComputeRate(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseDataRate(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseMoneyPerEnergy(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseMoneyPerPower(text), text, &accepted);
    ExpectFiniteOrInvalid(ParseCount(text), text, &accepted);
  }
  // The alphabet is rich enough that some random strings parse (so the finiteness check ran).
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace dcplan::units

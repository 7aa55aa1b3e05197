#include "units/format.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "units/parse.h"
#include "units/units.h"

namespace dcplan::units {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatPower, PicksThePrefixThatKeepsTheMantissaUnderAThousand) {
  // 32,768 x 1.4 kW = 45,875,200 W = 45.8752 MW.
  EXPECT_EQ(FormatPower(32768.0 * Kilowatts(1.4)), "45.9 MW");
  EXPECT_EQ(FormatPower(Kilowatts(10.2)), "10.2 kW");
  EXPECT_EQ(FormatPower(Watts(700.0)), "700.0 W");
  EXPECT_EQ(FormatPower(Megawatts(2500.0)), "2.5 GW");
  EXPECT_EQ(FormatPower(Megawatts(45.8752), 3), "45.875 MW");
  EXPECT_EQ(FormatPower(Megawatts(45.8752), 0), "46 MW");
}

TEST(FormatPower, MovesUpAPrefixWhenRoundingReachesAThousand) {
  // 999.96 kW prints as 1000.0 kW at one decimal, so it is 1.0 MW.
  EXPECT_EQ(FormatPower(Kilowatts(999.96)), "1.0 MW");
  EXPECT_EQ(FormatPower(Kilowatts(999.94)), "999.9 kW");
}

TEST(FormatPower, PrintsZeroSmallAndNegativeValues) {
  EXPECT_EQ(FormatPower(Watts(0.0)), "0.0 W");
  EXPECT_EQ(FormatPower(Watts(0.5)), "0.5 W");
  EXPECT_EQ(FormatPower(Megawatts(-2.5)), "-2.5 MW");
  // Rounds to zero: no minus sign.
  EXPECT_EQ(FormatPower(Watts(-0.01)), "0.0 W");
  EXPECT_EQ(FormatPower(Watts(-0.0)), "0.0 W");
}

TEST(FormatPower, PrintsNonFiniteValuesWithTheBaseUnit) {
  EXPECT_EQ(FormatPower(Watts(kNan)), "nan W");
  EXPECT_EQ(FormatPower(Watts(kInf)), "inf W");
  EXPECT_EQ(FormatPower(Watts(-kInf)), "-inf W");
}

TEST(FormatPower, StaysAtTheLargestPrefixPastIt) {
  // 2e21 W = 2000 EW; there is no larger prefix.
  EXPECT_EQ(FormatPower(Watts(2e21)), "2000.0 EW");
}

TEST(FormatEnergy, UsesTheWattHourFamily) {
  // 1 MW for a year = 8,760 MWh = 8.76 GWh.
  EXPECT_EQ(FormatEnergy(Megawatts(1.0) * Years(1.0)), "8.8 GWh");
  EXPECT_EQ(FormatEnergy(KilowattHours(1.0)), "1.0 kWh");
  EXPECT_EQ(FormatEnergy(Joules(7200.0)), "2.0 Wh");
  EXPECT_EQ(FormatEnergy(Joules(0.0)), "0.0 Wh");
  EXPECT_EQ(FormatEnergy(Joules(kNan)), "nan Wh");
}

TEST(FormatComputeRate, UsesFlopPerSecondPrefixes) {
  // 10.486e18 FLOP/s = 10.486 EFLOP/s, rounded to two decimals.
  EXPECT_EQ(FormatComputeRate(FlopsPerSecond(10.486e18), 2), "10.49 EFLOP/s");
  EXPECT_EQ(FormatComputeRate(TeraflopsPerSecond(989.4)), "989.4 TFLOP/s");
  EXPECT_EQ(FormatComputeRate(PetaflopsPerSecond(2.0)), "2.0 PFLOP/s");
  EXPECT_EQ(FormatComputeRate(FlopsPerSecond(0.0)), "0.0 FLOP/s");
}

TEST(FormatCompute, UsesPrefixesUpToExaThenScientific) {
  EXPECT_EQ(FormatCompute(Flops(3.8e18)), "3.8 EFLOP");
  EXPECT_EQ(FormatCompute(Flops(5e12)), "5.0 TFLOP");
  EXPECT_EQ(FormatCompute(Flops(1e24)), "1.0e24 FLOP");
  EXPECT_EQ(FormatCompute(Flops(3.15e25), 2), "3.15e25 FLOP");
  // 999.99 EFLOP rounds to 1000.0 EFLOP, past the last prefix.
  EXPECT_EQ(FormatCompute(Flops(999.99e18)), "1.0e21 FLOP");
  EXPECT_EQ(FormatCompute(Flops(-2e24)), "-2.0e24 FLOP");
  EXPECT_EQ(FormatCompute(Flops(kInf)), "inf FLOP");
}

TEST(FormatMoney, UsesDollarSignAndThousandMillionBillionTrillion) {
  EXPECT_EQ(FormatMoney(Usd(1.234e9)), "$1.23B");
  EXPECT_EQ(FormatMoney(Usd(750e6)), "$750.00M");
  EXPECT_EQ(FormatMoney(Usd(25e3)), "$25.00k");
  EXPECT_EQ(FormatMoney(Usd(12.5)), "$12.50");
  EXPECT_EQ(FormatMoney(Usd(3e12)), "$3.00T");
  EXPECT_EQ(FormatMoney(Usd(1.234e9), 1), "$1.2B");
}

TEST(FormatMoney, PrintsSignZeroRoundingAndNonFinite) {
  EXPECT_EQ(FormatMoney(Usd(-1.234e9)), "-$1.23B");
  EXPECT_EQ(FormatMoney(Usd(0.0)), "$0.00");
  EXPECT_EQ(FormatMoney(Usd(0.5)), "$0.50");
  // $999,999 is $1000.00k at two decimals, so $1.00M.
  EXPECT_EQ(FormatMoney(Usd(999999.0)), "$1.00M");
  EXPECT_EQ(FormatMoney(Usd(5e15)), "$5000.00T");
  EXPECT_EQ(FormatMoney(Usd(kNan)), "nan USD");
}

TEST(FormatMoneyPerEnergy, PrintsUsdPerKilowattHour) {
  EXPECT_EQ(FormatMoneyPerEnergy(UsdPerKilowattHour(0.08)), "0.080 USD/kWh");
  EXPECT_EQ(FormatMoneyPerEnergy(UsdPerKilowattHour(0.0456), 2), "0.05 USD/kWh");
  EXPECT_EQ(FormatMoneyPerEnergy(UsdPerKilowattHour(-0.0001)), "0.000 USD/kWh");
  EXPECT_EQ(FormatMoneyPerEnergy(UsdPerJoule(kNan)), "nan USD/kWh");
}

TEST(FormatMoneyPerPower, PrintsMoneyPerMegawatt) {
  EXPECT_EQ(FormatMoneyPerPower(UsdPerMegawatt(10e6)), "$10.00M/MW");
  // $12 per W = $12M per MW.
  EXPECT_EQ(FormatMoneyPerPower(UsdPerWatt(12.0)), "$12.00M/MW");
  EXPECT_EQ(FormatMoneyPerPower(UsdPerWatt(kInf)), "inf USD/MW");
}

TEST(FormatTime, PicksSecondsMinutesHoursDaysOrYears) {
  EXPECT_EQ(FormatTime(Years(4.0)), "4.0 years");
  EXPECT_EQ(FormatTime(Hours(36.2 * 24.0)), "36.2 days");
  EXPECT_EQ(FormatTime(Hours(5.0)), "5.0 h");
  EXPECT_EQ(FormatTime(Seconds(90.0)), "1.5 min");
  EXPECT_EQ(FormatTime(Seconds(30.0)), "30.0 s");
  EXPECT_EQ(FormatTime(Seconds(0.25)), "250.0 ms");
  EXPECT_EQ(FormatTime(Seconds(0.0)), "0.0 s");
  EXPECT_EQ(FormatTime(Seconds(kNan)), "nan s");
}

TEST(FormatTime, MovesUpAUnitWhenRoundingReachesIt) {
  // 59.97 s prints as 60.0 s, which is 1.0 min; 23.99 h as 24.0 h, which is 1.0 days.
  EXPECT_EQ(FormatTime(Seconds(59.97)), "1.0 min");
  EXPECT_EQ(FormatTime(Hours(23.99)), "1.0 days");
  // 364.99 days prints as 365.0 days, a year.
  EXPECT_EQ(FormatTime(Hours(364.99 * 24.0)), "1.0 years");
}

TEST(FormatDataRate, PrintsBitsPerSecondWithoutTrailingZeros) {
  EXPECT_EQ(FormatDataRate(GigabitsPerSecond(400.0)), "400 Gb/s");
  EXPECT_EQ(FormatDataRate(GigabitsPerSecond(3200.0)), "3.2 Tb/s");
  EXPECT_EQ(FormatDataRate(GigabitsPerSecond(12.5)), "12.5 Gb/s");
  // 50 GB/s is 400 Gb/s.
  EXPECT_EQ(FormatDataRate(BytesPerSecond(50e9)), "400 Gb/s");
  EXPECT_EQ(FormatDataRate(GigabitsPerSecond(12.345), 2), "12.35 Gb/s");
  EXPECT_EQ(FormatDataRate(BytesPerSecond(0.0)), "0 b/s");
  EXPECT_EQ(FormatDataRate(BytesPerSecond(kNan)), "nan b/s");
}

TEST(FormatPercent, MultipliesByAHundred) {
  EXPECT_EQ(FormatPercent(Fraction(0.32)), "32.0%");
  EXPECT_EQ(FormatPercent(Fraction(1.0)), "100.0%");
  EXPECT_EQ(FormatPercent(Fraction(0.12345), 2), "12.35%");
  EXPECT_EQ(FormatPercent(Fraction(kNan)), "nan%");
}

TEST(FormatCount, GroupsThousandsWithCommas) {
  EXPECT_EQ(FormatCount(32784), "32,784");
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(FormatDecimals, AreClampedSoNoneCrash) {
  EXPECT_EQ(FormatPower(Watts(700.0), -3), "700 W");
  EXPECT_EQ(FormatPower(Watts(1.0), 1000).size(), std::string("1.").size() + 20 + 2);
}

// ---------------------------------------------------------------------------------------------------
// Round trip: what a formatter prints, the matching parser reads back, within the printed
// precision.
// ---------------------------------------------------------------------------------------------------

// Values from 1 to 1e(decades) coherent units, at several mantissas, with both signs.
template <typename Check>
void ForEachValue(int decades, Check check) {
  for (int exponent = 0; exponent <= decades; ++exponent) {
    for (double mantissa : {1.0, 1.234, 2.5, 4.56789, 9.99951}) {
      const double v = mantissa * std::pow(10.0, exponent);
      check(v);
      check(-v);
    }
  }
}

// The printed mantissa has `decimals` decimals in a unit at most |v| / 0.97 (a value rounded up
// into the next unit has a mantissa of at least 0.975, e.g. 23.5 h -> "1 days"), so the parsed
// value is within half a last digit of that unit.
double Tolerance(double v, int decimals) {
  return 0.5 * std::pow(10.0, -decimals) * std::fabs(v) / 0.97 + 1e-12 * std::fabs(v);
}

template <typename Q, typename Format, typename Parse>
void ExpectRoundTrip(double scale, int decades, Format format, Parse parse) {
  for (int decimals = 0; decimals <= 3; ++decimals) {
    ForEachValue(decades, [&](double v) {
      const Q q = Q::from_value(v * scale);
      const std::string text = format(q, decimals);
      absl::StatusOr<Q> back = parse(text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.status();
      EXPECT_NEAR(back->value(), q.value(), Tolerance(q.value(), decimals)) << text;
    });
  }
}

TEST(FormatRoundTrip, PowerParsesBack) { ExpectRoundTrip<Power>(1.0, 20, FormatPower, ParsePower); }

TEST(FormatRoundTrip, EnergyParsesBack) {
  ExpectRoundTrip<Energy>(3600.0, 20, FormatEnergy, ParseEnergy);  // from 1 Wh
}

TEST(FormatRoundTrip, TimeParsesBack) {
  ExpectRoundTrip<Time>(1e-3, 14, FormatTime, ParseTime);  // from 1 ms
}

TEST(FormatRoundTrip, MoneyParsesBack) { ExpectRoundTrip<Money>(1.0, 16, FormatMoney, ParseMoney); }

TEST(FormatRoundTrip, ComputeParsesBack) {
  ExpectRoundTrip<Compute>(1.0, 27, FormatCompute, ParseCompute);  // into the scientific range
}

TEST(FormatRoundTrip, ComputeRateParsesBack) {
  ExpectRoundTrip<ComputeRate>(1.0, 20, FormatComputeRate, ParseComputeRate);
}

TEST(FormatRoundTrip, DataRateParsesBack) {
  ExpectRoundTrip<DataRate>(1.0 / 8.0, 17, FormatDataRate, ParseDataRate);  // from 1 b/s
}

TEST(FormatRoundTrip, MoneyPerPowerParsesBack) {
  ExpectRoundTrip<MoneyPerPower>(1e-6, 12, FormatMoneyPerPower, ParseMoneyPerPower);  // from $1/MW
}

TEST(FormatRoundTrip, MoneyPerEnergyParsesBackWithinTheLastPrintedDigit) {
  // Printed in fixed point, so the error is absolute: half a unit in the last decimal, in USD/kWh.
  for (int decimals = 0; decimals <= 4; ++decimals) {
    for (double usd_per_kwh : {0.0, 0.0123, 0.08, 0.5, 1.25, 42.0, -0.07}) {
      const std::string text = FormatMoneyPerEnergy(UsdPerKilowattHour(usd_per_kwh), decimals);
      absl::StatusOr<MoneyPerEnergy> back = ParseMoneyPerEnergy(text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.status();
      EXPECT_NEAR(InUsdPerKilowattHour(*back), usd_per_kwh, 0.5 * std::pow(10.0, -decimals) + 1e-12)
          << text;
    }
  }
}

}  // namespace
}  // namespace dcplan::units

// File: tests/fuzz/units_fuzzer.cc
//
// libFuzzer harness for units/parse.h: the same bytes go to every quantity parser (power, energy,
// time, money, compute, compute rate, data rate, price per energy, price per power, count). Each
// either gives a finite value or the one documented error form (`expected a power such as 50MW,
// got "..."`, one line, the text quoted at most 64 characters). A value that parses is printed
// with units/format.h and must parse back within the printed precision, as format.h promises.
//
// Example:
//   tests/fuzz/run_fuzzers.sh 600 units_fuzzer
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tests/fuzz/fuzz_require.h"
#include "units/format.h"
#include "units/parse.h"
#include "units/units.h"

namespace dcplan::fuzz {
namespace {

// The error form every parser documents, short whatever the input's length.
void RequireParseError(const absl::Status& status, absl::string_view kind,
                       absl::string_view input) {
  Require(status.code() == absl::StatusCode::kInvalidArgument,
          absl::StrCat(kind, ": not InvalidArgument: ", status.ToString()), input);
  Require(absl::StartsWith(status.message(), "expected ") &&
              absl::StrContains(status.message(), ", got \"") &&
              absl::EndsWith(status.message(), "\""),
          absl::StrCat(kind, ": not the documented error form: ", status.message()), input);
  Require(status.message().size() <= 400 && status.message().find('\n') == absl::string_view::npos,
          absl::StrCat(kind, ": an error longer than one short line"), input);
}

// Parses `input` as a quantity of kind Q; when it parses, the value is finite and its formatted
// text (with `decimals` decimals) parses back to it within the printed precision: half a unit of
// the last decimal of the printed unit, which is at most 10^-decimals of the value, or of `base`
// (the smallest unit the formatter prints, in coherent units) for values below it.
template <typename Q>
void CheckKind(absl::string_view input, absl::string_view kind,
               absl::StatusOr<Q> (*parse)(absl::string_view), std::string (*format)(Q, int),
               double (*read)(Q), double base) {
  const absl::StatusOr<Q> parsed = parse(input);
  if (!parsed.ok()) {
    RequireParseError(parsed.status(), kind, input);
    return;
  }
  const double value = read(*parsed);
  Require(std::isfinite(value), absl::StrCat(kind, ": a non-finite value ", value), input);
  constexpr int kDecimals = 3;
  const std::string text = format(*parsed, kDecimals);
  const absl::StatusOr<Q> back = parse(text);
  Require(back.ok(),
          absl::StrCat(kind, ": the formatted \"", text, "\" of ", value,
                       " does not parse back: ", back.status().ToString()),
          input);
  const double tolerance = 1e-3 * std::max(std::fabs(value), base);
  Require(std::fabs(read(*back) - value) <= tolerance,
          absl::StrCat(kind, ": ", value, " prints as \"", text, "\", which parses back to ",
                       read(*back)),
          input);
}

void CheckCount(absl::string_view input) {
  const absl::StatusOr<double> count = units::ParseCount(input);
  if (!count.ok()) {
    RequireParseError(count.status(), "count", input);
    return;
  }
  Require(std::isfinite(*count), absl::StrCat("count: a non-finite value ", *count), input);
}

}  // namespace
}  // namespace dcplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dcplan::units;  // NOLINT: the harness names every parser and formatter
  using dcplan::fuzz::CheckKind;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  CheckKind<Power>(input, "power", ParsePower, FormatPower, InWatts, 1.0);
  CheckKind<Energy>(input, "energy", ParseEnergy, FormatEnergy, InJoules,
                    kJoulesPerKilowattHour / 1e3);
  CheckKind<Time>(input, "time", ParseTime, FormatTime, InSeconds, 1e-3);
  CheckKind<Money>(input, "money", ParseMoney, FormatMoney, InUsd, 1.0);
  CheckKind<Compute>(input, "compute", ParseCompute, FormatCompute, InFlops, 1.0);
  CheckKind<ComputeRate>(input, "compute rate", ParseComputeRate, FormatComputeRate,
                         InFlopsPerSecond, 1.0);
  CheckKind<DataRate>(input, "data rate", ParseDataRate, FormatDataRate, InBytesPerSecond, 1.0 / 8);
  CheckKind<MoneyPerEnergy>(input, "price per energy", ParseMoneyPerEnergy, FormatMoneyPerEnergy,
                            InUsdPerJoule, 1.0 / kJoulesPerKilowattHour);
  CheckKind<MoneyPerPower>(input, "price per power", ParseMoneyPerPower, FormatMoneyPerPower,
                           InUsdPerWatt, 1e-6);
  dcplan::fuzz::CheckCount(input);
  return 0;
}

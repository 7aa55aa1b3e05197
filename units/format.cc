// File: units/format.cc
//
// One routine does the work: pick the largest unit step the magnitude reaches, print the mantissa
// with printf rounding, and move up a step when the printed mantissa reached the next one.
#include "units/format.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dcplan::units {
namespace {

// A unit a quantity may be printed in: `scale` coherent units make one of it.
struct Step {
  double scale;
  const char* symbol;
};

constexpr double kSecondsPerDay = 24.0 * kSecondsPerHour;
constexpr double kJoulesPerWattHour = kSecondsPerHour;

constexpr Step kPowerSteps[] = {{1.0, "W"},   {1e3, "kW"},  {1e6, "MW"}, {1e9, "GW"},
                                {1e12, "TW"}, {1e15, "PW"}, {1e18, "EW"}};
constexpr Step kEnergySteps[] = {
    {kJoulesPerWattHour, "Wh"},         {kJoulesPerWattHour * 1e3, "kWh"},
    {kJoulesPerWattHour * 1e6, "MWh"},  {kJoulesPerWattHour * 1e9, "GWh"},
    {kJoulesPerWattHour * 1e12, "TWh"}, {kJoulesPerWattHour * 1e15, "PWh"},
    {kJoulesPerWattHour * 1e18, "EWh"}};
constexpr Step kTimeSteps[] = {{1e-3, "ms"},
                               {1.0, "s"},
                               {60.0, "min"},
                               {kSecondsPerHour, "h"},
                               {kSecondsPerDay, "days"},
                               {kSecondsPerYear, "years"}};
constexpr size_t kTimeBase = 1;  // zero prints as "0.0 s"
constexpr Step kMoneySteps[] = {{1.0, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}};
constexpr Step kComputeSteps[] = {{1.0, "FLOP"},   {1e3, "kFLOP"},  {1e6, "MFLOP"}, {1e9, "GFLOP"},
                                  {1e12, "TFLOP"}, {1e15, "PFLOP"}, {1e18, "EFLOP"}};
constexpr Step kComputeRateSteps[] = {{1.0, "FLOP/s"},  {1e3, "kFLOP/s"},  {1e6, "MFLOP/s"},
                                      {1e9, "GFLOP/s"}, {1e12, "TFLOP/s"}, {1e15, "PFLOP/s"},
                                      {1e18, "EFLOP/s"}};
// Bit rates, scaled in the coherent unit (bytes per second: 1 b/s = 0.125 B/s), so a rate is
// never multiplied by 8 first: above ~2.2e307 B/s that product overflows to infinity, which would
// print "inf b/s" for a finite rate. (x / 1.25e8 and x * 8 / 1e9 round to the same double.)
constexpr Step kBitRateSteps[] = {{1.0 / 8, "b/s"},  {1e3 / 8, "kb/s"},  {1e6 / 8, "Mb/s"},
                                  {1e9 / 8, "Gb/s"}, {1e12 / 8, "Tb/s"}, {1e15 / 8, "Pb/s"}};

int ClampDecimals(int decimals) { return std::clamp(decimals, 0, 20); }

// "nan", "inf" or "-inf".
std::string NonFinite(double v) {
  if (std::isnan(v)) return "nan";
  return v < 0 ? "-inf" : "inf";
}

// A printed magnitude that is all zeros ("0.00") gets no minus sign.
bool IsPrintedZero(const std::string& digits) {
  return digits.find_first_not_of("0.") == std::string::npos;
}

// A magnitude printed in one of `steps`.
struct Printed {
  std::string digits;  // the mantissa of |v|, no sign
  size_t step;         // index into steps
};

template <size_t N>
Printed PrintScaled(double magnitude, int decimals, const Step (&steps)[N], size_t base = 0) {
  size_t step = base;
  if (magnitude != 0.0) {
    step = 0;
    for (size_t i = 0; i < N; ++i) {
      if (magnitude >= steps[i].scale) step = i;
    }
  }
  std::string digits = absl::StrFormat("%.*f", decimals, magnitude / steps[step].scale);
  // Rounding may have carried the mantissa to the next step ("1000.0 kW"): print it there instead.
  while (step + 1 < N) {
    double printed = 0.0;
    if (!absl::SimpleAtod(digits, &printed)) break;
    const double ratio = steps[step + 1].scale / steps[step].scale;
    if (printed < ratio * (1.0 - 1e-12)) break;
    ++step;
    digits = absl::StrFormat("%.*f", decimals, magnitude / steps[step].scale);
  }
  return {std::move(digits), step};
}

// "<sign><mantissa> <unit>", e.g. "45.9 MW".
template <size_t N>
std::string FormatWithSteps(double v, int decimals, const Step (&steps)[N], size_t base = 0) {
  if (!std::isfinite(v)) return absl::StrCat(NonFinite(v), " ", steps[base].symbol);
  Printed p = PrintScaled(std::fabs(v), ClampDecimals(decimals), steps, base);
  const bool negative = v < 0 && !IsPrintedZero(p.digits);
  return absl::StrCat(negative ? "-" : "", p.digits, " ", steps[p.step].symbol);
}

// A fixed-point number with its sign, "-0.0" printed as "0.0".
std::string FormatFixed(double v, int decimals) {
  std::string digits = absl::StrFormat("%.*f", ClampDecimals(decimals), std::fabs(v));
  const bool negative = v < 0 && !IsPrintedZero(digits);
  return absl::StrCat(negative ? "-" : "", digits);
}

// "$1.23B"; the caller handles non-finite values.
std::string FormatDollars(double usd, int decimals) {
  Printed p = PrintScaled(std::fabs(usd), ClampDecimals(decimals), kMoneySteps);
  const bool negative = usd < 0 && !IsPrintedZero(p.digits);
  return absl::StrCat(negative ? "-" : "", "$", p.digits, kMoneySteps[p.step].symbol);
}

// Drops trailing zeros after a decimal point, and the point if nothing follows it: "400.0" ->
// "400".
void TrimFraction(std::string* digits) {
  if (digits->find('.') == std::string::npos) return;
  while (!digits->empty() && digits->back() == '0') digits->pop_back();
  if (!digits->empty() && digits->back() == '.') digits->pop_back();
}

}  // namespace

std::string FormatPower(Power p, int decimals) {
  return FormatWithSteps(InWatts(p), decimals, kPowerSteps);
}

std::string FormatEnergy(Energy e, int decimals) {
  return FormatWithSteps(InJoules(e), decimals, kEnergySteps);
}

std::string FormatTime(Time t, int decimals) {
  return FormatWithSteps(InSeconds(t), decimals, kTimeSteps, kTimeBase);
}

std::string FormatMoney(Money m, int decimals) {
  const double usd = InUsd(m);
  if (!std::isfinite(usd)) return absl::StrCat(NonFinite(usd), " USD");
  return FormatDollars(usd, decimals);
}

std::string FormatCompute(Compute c, int decimals) {
  const double flop = InFlops(c);
  if (!std::isfinite(flop)) return FormatWithSteps(flop, decimals, kComputeSteps);
  Printed p = PrintScaled(std::fabs(flop), ClampDecimals(decimals), kComputeSteps);
  double mantissa = 0.0;
  if (absl::SimpleAtod(p.digits, &mantissa) && mantissa >= 1e3) {
    // Past the last prefix (>= 1000 EFLOP): "1.0e24 FLOP", the way training budgets are quoted.
    // printf writes "1.0e+24"; drop the '+' and the exponent's leading zeros.
    std::string sci = absl::StrFormat("%.*e", ClampDecimals(decimals), std::fabs(flop));
    const size_t e = sci.find("e+");
    if (e != std::string::npos) {
      size_t digit = e + 2;
      while (digit + 1 < sci.size() && sci[digit] == '0') ++digit;
      sci = absl::StrCat(sci.substr(0, e), "e", sci.substr(digit));
    }
    return absl::StrCat(flop < 0 ? "-" : "", sci, " FLOP");
  }
  const bool negative = flop < 0 && !IsPrintedZero(p.digits);
  return absl::StrCat(negative ? "-" : "", p.digits, " ", kComputeSteps[p.step].symbol);
}

std::string FormatComputeRate(ComputeRate r, int decimals) {
  return FormatWithSteps(InFlopsPerSecond(r), decimals, kComputeRateSteps);
}

std::string FormatDataRate(DataRate r, int decimals) {
  const double bytes_per_second = InBytesPerSecond(r);
  if (!std::isfinite(bytes_per_second)) return absl::StrCat(NonFinite(bytes_per_second), " b/s");
  Printed p = PrintScaled(std::fabs(bytes_per_second), ClampDecimals(decimals), kBitRateSteps);
  TrimFraction(&p.digits);
  const bool negative = bytes_per_second < 0 && !IsPrintedZero(p.digits);
  return absl::StrCat(negative ? "-" : "", p.digits, " ", kBitRateSteps[p.step].symbol);
}

std::string FormatMoneyPerEnergy(MoneyPerEnergy p, int decimals) {
  const double usd_per_kwh = InUsdPerKilowattHour(p);
  if (!std::isfinite(usd_per_kwh)) {
    // Finite per joule but beyond a double per kWh (above ~5e301 USD/J): printed per joule.
    const double usd_per_joule = InUsdPerJoule(p);
    if (std::isfinite(usd_per_joule)) {
      return absl::StrCat(FormatFixed(usd_per_joule, decimals), " USD/J");
    }
    return absl::StrCat(NonFinite(usd_per_kwh), " USD/kWh");
  }
  return absl::StrCat(FormatFixed(usd_per_kwh, decimals), " USD/kWh");
}

std::string FormatMoneyPerPower(MoneyPerPower p, int decimals) {
  const double usd_per_mw = InUsdPerMegawatt(p);
  if (!std::isfinite(usd_per_mw)) {
    // Finite per watt but beyond a double per MW (above ~1.8e302 USD/W): printed per watt.
    const double usd_per_watt = InUsdPerWatt(p);
    if (std::isfinite(usd_per_watt)) {
      return absl::StrCat(FormatDollars(usd_per_watt, decimals), "/W");
    }
    return absl::StrCat(NonFinite(usd_per_mw), " USD/MW");
  }
  return absl::StrCat(FormatDollars(usd_per_mw, decimals), "/MW");
}

std::string FormatPercent(Ratio r, int decimals) {
  const double percent = InFraction(r) * 100.0;
  if (!std::isfinite(percent)) return absl::StrCat(NonFinite(percent), "%");
  return absl::StrCat(FormatFixed(percent, decimals), "%");
}

std::string FormatCount(uint64_t n) {
  const std::string digits = absl::StrCat(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace dcplan::units

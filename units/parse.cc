// File: units/parse.cc
//
// A small hand-written scanner: [sign] ['$'] [sign] number, then a unit matched against the symbols
// a kind accepts. No exceptions, no locale, no allocation on the success path.
#include "units/parse.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "units/si_prefix.h"

namespace dcplan::units {
namespace {

// What each parser expects, for its error message.
struct Kind {
  const char* what;     // "a power"
  const char* example;  // "50MW"
};
constexpr Kind kPower{"a power", "50MW"};
constexpr Kind kEnergy{"an energy", "100MWh"};
constexpr Kind kTime{"a time", "4y"};
constexpr Kind kMoney{"an amount of money", "$2.5B"};
constexpr Kind kCompute{"an amount of compute", "1e24 FLOP"};
constexpr Kind kComputeRate{"a compute rate", "989.4 TFLOP/s"};
constexpr Kind kDataRate{"a data rate", "400Gb/s"};
constexpr Kind kMoneyPerEnergy{"a price per energy", "0.08 USD/kWh"};
constexpr Kind kMoneyPerPower{"a price per power", "10M USD/MW"};
constexpr Kind kCount{"a count", "16M"};

// The longest text quoted back in an error; fuzzers send megabytes.
constexpr size_t kMaxQuoted = 64;

absl::Status Expected(const Kind& kind, absl::string_view text) {
  std::string quoted = absl::CHexEscape(text.substr(0, kMaxQuoted));
  if (text.size() > kMaxQuoted) absl::StrAppend(&quoted, "...");
  return absl::InvalidArgumentError(
      absl::StrCat("expected ", kind.what, " such as ", kind.example, ", got \"", quoted, "\""));
}

// The leading number of a text, and what follows it.
struct Scanned {
  double value = 0.0;
  bool dollar = false;     // a '$' stood before the number
  absl::string_view rest;  // after the number, leading whitespace removed
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Scans [sign] ['$' if allow_dollar] [sign, if none before '$'] number from already-stripped text.
// The number is digits with an optional fraction ("1", "1.5", "1.", ".5") and an optional exponent
// ("e9", "E-3"); an 'e'/'E' not followed by digits is left to the unit ("5EFLOP").
std::optional<Scanned> ScanNumber(absl::string_view text, bool allow_dollar) {
  Scanned out;
  const size_t n = text.size();
  size_t i = 0;
  bool negative = false;
  bool signed_already = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    signed_already = true;
    ++i;
  }
  if (allow_dollar && i < n && text[i] == '$') {
    out.dollar = true;
    ++i;
    if (!signed_already && i < n && (text[i] == '+' || text[i] == '-')) {
      negative = text[i] == '-';
      ++i;
    }
  }
  const size_t start = i;
  size_t mantissa_digits = 0;
  while (i < n && IsDigit(text[i])) ++i, ++mantissa_digits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && IsDigit(text[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < n && IsDigit(text[j])) {
      while (j < n && IsDigit(text[j])) ++j;
      i = j;
    }
  }
  double value = 0.0;
  const char* first = text.data() + start;
  const char* last = text.data() + i;
  std::from_chars_result r = std::from_chars(first, last, value, std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != last || !std::isfinite(value)) return std::nullopt;
  out.value = negative ? -value : value;
  out.rest = absl::StripLeadingAsciiWhitespace(text.substr(i));
  return out;
}

// The factor of an SI prefix letter, if it is one of `allowed`.
std::optional<double> SiPrefix(char c, absl::string_view allowed) {
  if (allowed.find(c) == absl::string_view::npos) return std::nullopt;
  return SiPrefixFactor(c);
}

// `unit` is `symbol` or one allowed prefix letter followed by `symbol`: returns the prefix factor.
std::optional<double> MatchPrefixed(absl::string_view unit, absl::string_view symbol,
                                    absl::string_view prefixes) {
  if (unit == symbol) return 1.0;
  if (unit.size() == symbol.size() + 1 && absl::EndsWith(unit, symbol)) {
    return SiPrefix(unit[0], prefixes);
  }
  return std::nullopt;
}

// A finite value times its unit factor, or nothing if the product overflows.
std::optional<double> Scale(double value, double factor) {
  const double v = value * factor;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

// Parses "number unit" where `unit_factor` maps the unit text to its factor to the coherent unit.
template <typename UnitFactor>
std::optional<double> ParseWithUnit(absl::string_view text, UnitFactor unit_factor) {
  std::optional<Scanned> s = ScanNumber(absl::StripAsciiWhitespace(text), false);
  if (!s || s->rest.empty()) return std::nullopt;
  std::optional<double> factor = unit_factor(s->rest);
  if (!factor) return std::nullopt;
  return Scale(s->value, *factor);
}

// Money, optionally per something: [sign] ['$'] number [k|K|M|B|T] [USD | $] [/ denominator].
struct MoneyText {
  double usd = 0.0;                      // in dollars, multiplier applied
  bool has_currency = false;             // a '$' or "USD" was written
  std::optional<absl::string_view> per;  // the text after '/', whitespace removed
};

std::optional<MoneyText> ScanMoney(absl::string_view text) {
  std::optional<Scanned> s = ScanNumber(absl::StripAsciiWhitespace(text), true);
  if (!s) return std::nullopt;
  MoneyText out;
  out.has_currency = s->dollar;
  absl::string_view rest = s->rest;
  double multiplier = 1.0;
  if (!rest.empty()) {
    switch (rest[0]) {
      case 'k':
      case 'K':
        multiplier = 1e3;
        break;
      case 'M':
        multiplier = 1e6;
        break;
      case 'B':
        multiplier = 1e9;
        break;
      case 'T':
        multiplier = 1e12;
        break;
      default:
        break;
    }
    if (multiplier != 1.0) rest = absl::StripLeadingAsciiWhitespace(rest.substr(1));
  }
  if (absl::ConsumePrefix(&rest, "USD") || (!s->dollar && absl::ConsumePrefix(&rest, "$"))) {
    if (out.has_currency) return std::nullopt;  // "$5 USD"
    out.has_currency = true;
    rest = absl::StripLeadingAsciiWhitespace(rest);
  }
  if (absl::ConsumePrefix(&rest, "/")) {
    out.per = absl::StripLeadingAsciiWhitespace(rest);
  } else if (!rest.empty()) {
    return std::nullopt;
  }
  std::optional<double> usd = Scale(s->value, multiplier);
  if (!usd) return std::nullopt;
  out.usd = *usd;
  return out;
}

// Parses a price: money with a currency, '/', and a denominator whose factor `per_factor` gives.
template <typename PerFactor>
std::optional<double> ParsePrice(absl::string_view text, PerFactor per_factor) {
  std::optional<MoneyText> m = ScanMoney(text);
  if (!m || !m->has_currency || !m->per) return std::nullopt;
  std::optional<double> factor = per_factor(*m->per);
  if (!factor) return std::nullopt;
  const double usd_per_unit = m->usd / *factor;
  if (!std::isfinite(usd_per_unit)) return std::nullopt;
  return usd_per_unit;
}

std::optional<double> EnergyFactor(absl::string_view unit, absl::string_view prefixes) {
  if (std::optional<double> f = MatchPrefixed(unit, "J", prefixes)) return f;
  if (std::optional<double> f = MatchPrefixed(unit, "Wh", prefixes)) return *f * kSecondsPerHour;
  return std::nullopt;
}

std::optional<double> TimeFactor(absl::string_view unit) {
  struct Named {
    const char* symbol;
    double seconds;
  };
  static constexpr Named kTimeUnits[] = {
      {"s", 1.0},
      {"sec", 1.0},
      {"second", 1.0},
      {"seconds", 1.0},
      {"ms", 1e-3},
      {"min", 60.0},
      {"mins", 60.0},
      {"minute", 60.0},
      {"minutes", 60.0},
      {"h", kSecondsPerHour},
      {"hr", kSecondsPerHour},
      {"hrs", kSecondsPerHour},
      {"hour", kSecondsPerHour},
      {"hours", kSecondsPerHour},
      {"d", 24.0 * kSecondsPerHour},
      {"day", 24.0 * kSecondsPerHour},
      {"days", 24.0 * kSecondsPerHour},
      {"y", kSecondsPerYear},
      {"yr", kSecondsPerYear},
      {"yrs", kSecondsPerYear},
      {"year", kSecondsPerYear},
      {"years", kSecondsPerYear},
  };
  for (const Named& u : kTimeUnits) {
    if (unit == u.symbol) return u.seconds;
  }
  return std::nullopt;
}

std::optional<double> CountFactor(absl::string_view suffix) {
  if (suffix.empty()) return 1.0;
  if (suffix == "K" || suffix == "B") return suffix == "K" ? 1e3 : 1e9;
  if (suffix.size() == 1) return SiPrefix(suffix[0], "kMGTPE");
  if (suffix == "Ki") return 1024.0;
  if (suffix == "Mi") return 1024.0 * 1024.0;
  if (suffix == "Gi") return 1024.0 * 1024.0 * 1024.0;
  if (suffix == "Ti") return 1024.0 * 1024.0 * 1024.0 * 1024.0;
  return std::nullopt;
}

// Wraps a parsed coherent value as a quantity, or the kind's error.
template <typename Q>
absl::StatusOr<Q> Result(std::optional<double> value, const Kind& kind, absl::string_view text) {
  if (!value) return Expected(kind, text);
  return Q::from_value(*value);
}

}  // namespace

absl::StatusOr<Power> ParsePower(absl::string_view text) {
  return Result<Power>(
      ParseWithUnit(text,
                    [](absl::string_view unit) { return MatchPrefixed(unit, "W", "mkMGTPE"); }),
      kPower, text);
}

absl::StatusOr<Energy> ParseEnergy(absl::string_view text) {
  return Result<Energy>(
      ParseWithUnit(text, [](absl::string_view unit) { return EnergyFactor(unit, "mkMGTPE"); }),
      kEnergy, text);
}

absl::StatusOr<Time> ParseTime(absl::string_view text) {
  return Result<Time>(ParseWithUnit(text, TimeFactor), kTime, text);
}

absl::StatusOr<Money> ParseMoney(absl::string_view text) {
  std::optional<MoneyText> m = ScanMoney(text);
  if (!m || m->per) return Expected(kMoney, text);
  return Usd(m->usd);
}

absl::StatusOr<Compute> ParseCompute(absl::string_view text) {
  return Result<Compute>(ParseWithUnit(text,
                                       [](absl::string_view unit) -> std::optional<double> {
                                         if (auto f = MatchPrefixed(unit, "FLOP", "kMGTPE")) {
                                           return f;
                                         }
                                         return MatchPrefixed(unit, "FLOPs", "kMGTPE");
                                       }),
                         kCompute, text);
}

absl::StatusOr<ComputeRate> ParseComputeRate(absl::string_view text) {
  return Result<ComputeRate>(
      ParseWithUnit(text,
                    [](absl::string_view unit) -> std::optional<double> {
                      for (absl::string_view symbol : {"FLOP/s", "FLOPs/s", "FLOPS"}) {
                        if (auto f = MatchPrefixed(unit, symbol, "kMGTPE")) return f;
                      }
                      return std::nullopt;
                    }),
      kComputeRate, text);
}

absl::StatusOr<DataRate> ParseDataRate(absl::string_view text) {
  return Result<DataRate>(ParseWithUnit(text,
                                        [](absl::string_view unit) -> std::optional<double> {
                                          if (auto f = MatchPrefixed(unit, "B/s", "kMGTP")) {
                                            return f;
                                          }
                                          for (absl::string_view bits : {"b/s", "bps"}) {
                                            if (auto f = MatchPrefixed(unit, bits, "kMGTP")) {
                                              return *f / 8.0;
                                            }
                                          }
                                          return std::nullopt;
                                        }),
                          kDataRate, text);
}

absl::StatusOr<MoneyPerEnergy> ParseMoneyPerEnergy(absl::string_view text) {
  return Result<MoneyPerEnergy>(
      ParsePrice(text, [](absl::string_view unit) { return EnergyFactor(unit, "kMGT"); }),
      kMoneyPerEnergy, text);
}

absl::StatusOr<MoneyPerPower> ParseMoneyPerPower(absl::string_view text) {
  return Result<MoneyPerPower>(
      ParsePrice(text, [](absl::string_view unit) { return MatchPrefixed(unit, "W", "kMGT"); }),
      kMoneyPerPower, text);
}

absl::StatusOr<double> ParseCount(absl::string_view text) {
  std::optional<Scanned> s = ScanNumber(absl::StripAsciiWhitespace(text), false);
  if (!s) return Expected(kCount, text);
  std::optional<double> factor = CountFactor(s->rest);
  if (!factor) return Expected(kCount, text);
  std::optional<double> value = Scale(s->value, *factor);
  if (!value) return Expected(kCount, text);
  return *value;
}

}  // namespace dcplan::units

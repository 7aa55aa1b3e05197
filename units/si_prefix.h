// File: units/si_prefix.h
//
// The one table of SI prefixes dcplan reads and writes, milli to exa: parsing "50MW" looks the
// letter up here, and charts pick the prefix that keeps an axis's numbers under a thousand.
//
// Example:
//   SiPrefixFactor('M')        // 1e6
//   LargestSiPrefixUpTo(4.5e7) // {'M', 1e6}: 45 M...
#pragma once

#include <optional>

namespace dcplan::units {

struct SiPrefix {
  char letter;
  double factor;
};

// Ascending by factor.
inline constexpr SiPrefix kSiPrefixes[] = {{'m', 1e-3}, {'k', 1e3},  {'M', 1e6}, {'G', 1e9},
                                           {'T', 1e12}, {'P', 1e15}, {'E', 1e18}};

// The factor of the prefix `letter` ('k' -> 1e3), if it is one.
constexpr std::optional<double> SiPrefixFactor(char letter) {
  for (const SiPrefix& p : kSiPrefixes) {
    if (p.letter == letter) return p.factor;
  }
  return std::nullopt;
}

// The largest prefix from k to E whose factor is at most `value`; none below 1000.
constexpr std::optional<SiPrefix> LargestSiPrefixUpTo(double value) {
  std::optional<SiPrefix> best;
  for (const SiPrefix& p : kSiPrefixes) {
    if (p.factor >= 1e3 && value >= p.factor) best = p;
  }
  return best;
}

}  // namespace dcplan::units

// File: base/numbers.h
//
// Small arithmetic and number-text helpers every package may use: CeilDiv for counts (servers for
// GPUs, racks for servers, micro-batches for a batch), and the shortest decimal text of a double
// that reads back to the same double (std::to_chars' shortest form: 0.1 is "0.1", 5e7 is "5e+07",
// 1234567 is "1234567").
//
// Example:
//   const int64_t racks = CeilDiv(gpus, gpus_per_rack);   // 1025 GPUs, 32 a rack: 33 racks
//   AppendShortestDouble(0.1, &csv);                      // "0.1"
#pragma once

#include <cstdint>
#include <string>

#include "base/shortest_double.h"

namespace dcplan {

// ceil(a / b) for a count `a` and a divisor b > 0; 0 when a <= 0. Never overflows. Counts that fit
// in 32 bits (nearly all) divide in 32 bits: the same quotient, at a fraction of a 64-bit
// division's latency on x86 (the step model and the solver divide counts many times per call).
constexpr int64_t CeilDiv(int64_t a, int64_t b) {
  if (a <= 0) return 0;
  if ((static_cast<uint64_t>(a - 1) | static_cast<uint64_t>(b)) >> 32 == 0) {
    return static_cast<int64_t>(static_cast<uint32_t>(a - 1) / static_cast<uint32_t>(b)) + 1;
  }
  return (a - 1) / b + 1;
}

// A divisor d >= 1 that is divided by many times (a fabric's radix and downlinks per tier):
// it carries c = ceil(2^64 / d), with which a count below 2^32 divides by a multiply, floor(n c /
// 2^64) = floor(n / d) for every 32-bit n and 1 < d < 2^32 (Lemire, Kaser and Kurz, "Faster
// remainder by direct computation", Software: Practice and Experience 49(6), 2019, section 3):
// ~4 cycles where a division takes 10-15 and a chain of them (a fabric's tiers) adds up. Reads as
// its value wherever an int64_t is wanted; assigning a value recomputes c, so the two never part.
//
// Example:
//   const Divisor per_rack(4);
//   CeilDiv(4098, per_rack);   // 1025, as CeilDiv(4098, 4)
class Divisor {
 public:
  // 0 by default, as an int64_t{} is (a divisor to be set).
  constexpr Divisor(int64_t d = 0) : d_(d), c_(CFor(d)) {}  // NOLINT(google-explicit-constructor)
  constexpr operator int64_t() const { return d_; }         // NOLINT(google-explicit-constructor)
  constexpr int64_t value() const { return d_; }

  // floor(n / d) for 0 <= n < 2^32, by a multiply (falls back to dividing when d has no c).
  constexpr uint64_t DivideSmall(uint64_t n) const {
#if defined(__SIZEOF_INT128__)
    if (c_ != 0) return static_cast<uint64_t>((static_cast<unsigned __int128>(c_) * n) >> 64);
#endif
    return n / static_cast<uint64_t>(d_);
  }
  // Whether DivideSmall applies to numerators below 2^32 (d in [2, 2^32)).
  constexpr bool has_multiplier() const { return c_ != 0; }

 private:
  // ceil(2^64 / d) as floor((2^64 - 1) / d) + 1, for 1 < d < 2^32; 0 (divide) otherwise.
  static constexpr uint64_t CFor(int64_t d) {
    return d > 1 && (static_cast<uint64_t>(d) >> 32) == 0
               ? UINT64_C(0xFFFFFFFFFFFFFFFF) / static_cast<uint64_t>(d) + 1
               : 0;
  }

  int64_t d_;
  uint64_t c_;
};

// CeilDiv by a Divisor: the same quotient, by a multiply when a - 1 is below 2^32.
constexpr int64_t CeilDiv(int64_t a, const Divisor& b) {
  if (a <= 0) return 0;
  const uint64_t n = static_cast<uint64_t>(a - 1);
  if (b.has_multiplier() && (n >> 32) == 0) return static_cast<int64_t>(b.DivideSmall(n)) + 1;
  return CeilDiv(a, b.value());
}

// Appends the shortest text that reads back (strtod, std::from_chars) as exactly `v`. NaN and
// infinities are "nan", "inf" and "-inf".
inline void AppendShortestDouble(double v, std::string* out) {
  char buf[kShortestDoubleRoom];  // std::to_chars' text (base/shortest_double.h)
  out->append(buf, WriteShortestDouble(v, buf));
}

// AppendShortestDouble into a new string.
inline std::string ShortestDouble(double v) {
  std::string out;
  AppendShortestDouble(v, &out);
  return out;
}

}  // namespace dcplan

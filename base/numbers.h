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

#include <charconv>
#include <cstdint>
#include <string>

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

// Appends the shortest text that reads back (strtod, std::from_chars) as exactly `v`. NaN and
// infinities are "nan", "inf" and "-inf".
inline void AppendShortestDouble(double v, std::string* out) {
  char buf[32];  // the longest shortest double, "-2.2250738585072014e-308", has 24 characters
  const std::to_chars_result printed = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, printed.ptr);
}

// AppendShortestDouble into a new string.
inline std::string ShortestDouble(double v) {
  std::string out;
  AppendShortestDouble(v, &out);
  return out;
}

}  // namespace dcplan

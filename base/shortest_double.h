// File: base/shortest_double.h
//
// The shortest decimal text of a double that reads back as the same double, byte for byte what
// libstdc++'s std::to_chars(first, last, double) writes (its "plain" shortest form: fixed or
// scientific, whichever is shorter, "0.1", "5e+07", "1234567", "3067852939771705344"), at about a
// third of its cost.
//
// std::to_chars finds the digits with Ryu; here they come from Dragonbox (Junekey Jeon,
// "Dragonbox: A New Floating-Point Binary-to-Decimal Conversion Algorithm", 2020-2024): the upper
// bound of the double's rounding interval is scaled by one 128-bit power of ten, and its integer
// part divided by 1000 gives the shortest digits in most cases, a second product settling the
// rest. The digits are the same as Ryu's (the shortest that read back, of those the closest, a
// tie to the even digit), and the layout follows libstdc++'s rules (floating_to_chars.cc) exactly,
// down to printing a large whole number's exact value where the shortest digits would pad with
// zeros. //base:shortest_double_test holds the two together on tens of millions of doubles, every
// binade and the edges.
//
// A sweep's CSV formats ~6 new doubles a row and a plan's JSON ~200 numbers: std::to_chars' ~40 ns
// each were a quarter of writing a million rows.
//
// Example:
//   char buf[kShortestDoubleRoom];
//   char* end = WriteShortestDouble(0.1 + 0.2, buf);   // "0.30000000000000004"
//   ShortestDecimal d = ShortestDecimalOf(1234.5);      // {12345, -1}
#pragma once

#include <cstdint>

namespace dcplan {

// Room WriteShortestDouble may write into: the longest text, "-2.2250738585072014e-308", has 24
// characters, and the digits are stored 8 and 16 bytes at a time, past the text's end but within
// this room (the bytes past the end are left undefined).
inline constexpr int kShortestDoubleRoom = 48;

// A finite, nonzero |v| as digits x 10^exponent, the digits without trailing zeros.
struct ShortestDecimal {
  uint64_t digits;
  int exponent;
};

// The shortest digits of |v| that read back as |v| (the closest of them, ties to even); `v` must
// be finite and nonzero.
ShortestDecimal ShortestDecimalOf(double v);

// Writes std::to_chars(p, p + kShortestDoubleRoom, v)'s text at `p` (which has
// kShortestDoubleRoom bytes of room) and returns its end. NaN and infinities as to_chars writes
// them.
char* WriteShortestDouble(double v, char* p);

// Writes std::to_chars(p, p + 24, v)'s text (24 bytes of room; stores may pass the text's end
// within it) and returns its end.
char* WriteInteger(int64_t v, char* p);

// How many decimal digits `n` has (1 for 0).
int DecimalDigits(uint64_t n);

// Writes the `digits` decimal digits of `n` at `p` (`digits` == DecimalDigits(n)), which has 24
// bytes of room; returns the end.
char* WriteDecimalDigits(uint64_t n, int digits, char* p);

}  // namespace dcplan

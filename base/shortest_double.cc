#include "base/shortest_double.h"

#include <charconv>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dcplan {
namespace {

using uint128 = unsigned __int128;

// 10^k for k in [kMinPow10, kMaxPow10] as g = ceil(10^k x 2^(127 - floor(log2 10^k))), a 128-bit
// number in [2^127, 2^128): exact for k in [0, 55] (5^k below 2^128), rounded up elsewhere.
// Rounded up, as Dragonbox's cache is (Jeon, "the cache"), because its error analysis assumes the
// scaled values err upwards only, by less than one unit of the 64 fraction bits read: an integer
// part read from a product is then the true one, and a true integer reads as one with a zero
// fraction (the parity and integer checks below). Dragonbox scales by 10^k for
// k = 2 - floor(e log10 2) (normal interval) or -floor(e log10 2 - log10(4/3)) (shorter interval)
// over a double's binary exponents e in [-1074, 971]: k in [-292, 326].
constexpr int kMinPow10 = -292;
constexpr int kMaxPow10 = 326;

struct Pow10Table {
  uint64_t hi[kMaxPow10 - kMinPow10 + 1];
  uint64_t lo[kMaxPow10 - kMinPow10 + 1];
};

// A nonnegative big integer, 32-bit limbs, least significant first: enough to make the table once.
class BigInt {
 public:
  explicit BigInt(std::vector<uint32_t> limbs) : limbs_(std::move(limbs)) { Trim(); }
  void MultiplyBy10() {
    uint64_t carry = 0;
    for (uint32_t& l : limbs_) {
      const uint64_t x = uint64_t{l} * 10 + carry;
      l = static_cast<uint32_t>(x);
      carry = x >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  void DivideBy10() {
    uint64_t rest = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t x = (rest << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(x / 10);
      rest = x % 10;
    }
    Trim();
  }
  int BitLength() const {
    if (limbs_.empty()) return 0;
    return static_cast<int>(32 * (limbs_.size() - 1)) + 32 - __builtin_clz(limbs_.back());
  }
  bool Bit(int i) const {
    return i >= 0 && static_cast<size_t>(i / 32) < limbs_.size() &&
           ((limbs_[i / 32] >> (i % 32)) & 1);
  }
  // floor(x / 2^(bits - 128)) (x shifted up when shorter): the leading 128 bits.
  uint128 Top128() const {
    const int shift = BitLength() - 128;
    uint128 top = 0;
    for (int i = 127; i >= 0; --i) top = (top << 1) | (Bit(i + shift) ? 1 : 0);
    return top;
  }
  // Whether Top128 dropped any set bit.
  bool Inexact128() const {
    for (int i = 0; i < BitLength() - 128; ++i) {
      if (Bit(i)) return true;
    }
    return false;
  }

 private:
  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;
};

// Out of line, so that Pow10s' guarded call stays small enough to inline.
__attribute__((noinline)) Pow10Table MakePow10Table() {
  Pow10Table t{};
  auto set = [&t](int k, uint128 g) {
    t.hi[k - kMinPow10] = static_cast<uint64_t>(g >> 64);
    t.lo[k - kMinPow10] = static_cast<uint64_t>(g);
  };
  // k >= 0: the leading 128 bits of 10^k, one more when bits below them were dropped.
  BigInt n({1});
  for (int k = 0; k <= kMaxPow10; ++k) {
    set(k, n.Top128() + (n.Inexact128() ? 1 : 0));
    n.MultiplyBy10();
  }
  // k < 0: one more than the leading 128 bits of floor(2^1280 / 10^-k), which are
  // floor(2^(127 + b) / 10^-k) for 10^-k of b bits (floor(floor(x) / m) = floor(x / m) for whole
  // m); 10^-k divides no power of two, so that is the ceiling.
  std::vector<uint32_t> limbs(1280 / 32 + 1, 0);
  limbs.back() = 1;
  BigInt d(std::move(limbs));
  for (int k = -1; k >= kMinPow10; --k) {
    d.DivideBy10();
    set(k, d.Top128() + 1);
  }
  return t;
}

// Made on first use; inline, so that each use costs a load and a test of the guard.
__attribute__((always_inline)) inline const Pow10Table& Pow10s() {
  static const Pow10Table table = MakePow10Table();
  return table;
}

// floor(k log2 10) and floor(e log10 2) (less log10(4/3) when asked) by multiplies, exact over the
// exponents a double has (Giulietti, section 9; Dragonbox chooses k and beta with the same,
// Jeon, "the normal interval case").
inline int FloorLog2Pow10(int k) { return (k * 1741647) >> 19; }
inline int FloorLog10Pow2(int e, bool lower_closer) {
  return (e * 1262611 - (lower_closer ? 524031 : 0)) >> 22;
}

// The digits (below 10^17, so at most 16 trailing zeros) without their trailing zeros: a binary
// search of five divisibility tests, independent of each other when there are none (most values).
inline ShortestDecimal StripZeros(uint64_t digits, int exponent) {
  if (digits % 100000000 == 0) {
    digits /= 100000000;
    exponent += 8;
    if (digits % 100000000 == 0) {
      digits /= 100000000;
      exponent += 8;
    }
  }
  if (digits % 10000 == 0) {
    digits /= 10000;
    exponent += 4;
  }
  if (digits % 100 == 0) {
    digits /= 100;
    exponent += 2;
  }
  if (digits % 10 == 0) {
    digits /= 10;
    exponent += 1;
  }
  return {digits, exponent};
}

constexpr uint64_t kPow10[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};

// The 8 digits of v < 10^8 as ASCII, leading zeros included, the first in the lowest byte: two
// halves of four digits, four pairs, eight digits, each step on every lane of one register at once
// (floor(x 10486 / 2^20) = floor(x / 100) for x < 10^4 and floor(x 103 / 2^10) = floor(x / 10)
// for x < 100; no lane carries into the next). Built in a register, the text is stored whole:
// bytes stored one or two at a time and then read back wider stall the load (store forwarding).
inline uint64_t EightDigits(uint32_t v) {
  const uint64_t halves = (v / 10000) | (uint64_t{v % 10000} << 32);
  const uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007Full;
  const uint64_t pairs = hundreds | ((halves - hundreds * 100) << 16);
  const uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000Full;
  const uint64_t digits = tens | ((pairs - tens * 10) << 8);
  return digits + 0x3030303030303030ull;
}

// The 16 digits of v < 10^16 the same way, the first in the lowest byte.
inline uint128 SixteenDigits(uint64_t v) {
  return EightDigits(static_cast<uint32_t>(v / 100000000)) |
         (static_cast<uint128>(EightDigits(static_cast<uint32_t>(v % 100000000))) << 64);
}

// Eight '0' bytes.
constexpr uint64_t kZeros = 0x3030303030303030ull;

inline void Put8(char* p, uint64_t x) { std::memcpy(p, &x, 8); }
inline void Put16(char* p, uint128 x) { std::memcpy(p, &x, 16); }

// The `n` (1 to 16) digits of v < 10^n, the first in the lowest byte, zero bytes above.
inline uint128 LowDigits(uint64_t v, int n) { return SixteenDigits(v) >> (8 * (16 - n)); }

// The 16 digits of high x 10^8 + low (both below 10^8) as SixteenDigits writes them, and how many
// of the last are '0' (16 when all are). The writer strips the shortest digits' trailing zeros with
// this count, for less than StripZeros' divisibility tests, which most values (16 or 17 digits, no
// trailing zero) would pay in full.
struct DigitText {
  uint128 text;
  int trailing_zeros;
};

inline DigitText SixteenDigitText(uint32_t high, uint32_t low) {
#if defined(__SSE2__)
  // EightDigits on both halves at once, a half in each 64-bit lane, the first in the low lane, in
  // half the instructions of the halves one at a time in general registers. Each step splits its
  // lanes into a quotient and remainder by a power of ten in the lanes half as wide. The products
  // by constants are chosen so that the compiler keeps each a single multiply (it would spell
  // x 100 and x 10 out in shifts and adds).
  const __m128i x = _mm_set_epi64x(low, high);
  // x / 10^4 as x 109951163 / 2^40 (exact below 10^8), and the remainder.
  const __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi64x(109951163)), 40);
  const __m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi64x(10000)));
  const __m128i halves = _mm_or_si128(q, _mm_slli_epi64(r, 32));
  // x / 100 as x 10486 / 2^20 in the 16-bit lanes, then x - 100 (x / 100) as one multiply-add of
  // the pair (x / 100, x) by (-100, 1).
  const __m128i hundreds = _mm_srli_epi16(_mm_mulhi_epu16(halves, _mm_set1_epi16(10486)), 4);
  const __m128i rest = _mm_madd_epi16(_mm_or_si128(hundreds, _mm_slli_epi32(halves, 16)),
                                      _mm_set1_epi32(0x0001FF9C));  // (-100, 1)
  const __m128i pairs = _mm_or_si128(hundreds, _mm_slli_epi32(rest, 16));
  // x / 10 as x 6554 / 2^16, and x % 10 from the product's low 16 bits times 10 / 2^16: as
  // 6554 = (2^16 + 4) / 10, those bits are (x % 10) 2^16 / 10 + 4x / 10, exact below 100 (the
  // excess stays under 2^16 / 10, one unit of the result).
  const __m128i tens = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
  const __m128i ones =
      _mm_mulhi_epu16(_mm_mullo_epi16(pairs, _mm_set1_epi16(6554)), _mm_set1_epi16(10));
  const __m128i digits = _mm_or_si128(tens, _mm_slli_epi16(ones, 8));
  const __m128i text = _mm_add_epi8(digits, _mm_set1_epi8('0'));
  // A bit per zero digit, the last digit's highest. Shifted to the top half of a 32-bit word and
  // inverted, the trailing zeros are its leading zero bits, and the lower half (all ones) stops
  // the count at 16.
  const unsigned zero_digits =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(digits, _mm_setzero_si128())));
  const uint64_t text_low = static_cast<uint64_t>(_mm_cvtsi128_si64(text));
  const uint64_t text_high =
      static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(text, text)));
  return {(static_cast<uint128>(text_high) << 64) | text_low, __builtin_clz(~(zero_digits << 16))};
#else
  const uint64_t text_low = EightDigits(high);
  const uint64_t text_high = EightDigits(low);
  // The zero digits are the zero bytes once '0' is taken off; the last digit is the highest byte.
  const uint64_t marks_low = text_low ^ kZeros, marks_high = text_high ^ kZeros;
  const int trailing_zeros = marks_high != 0  ? __builtin_clzll(marks_high) / 8
                             : marks_low != 0 ? 8 + __builtin_clzll(marks_low) / 8
                                              : 16;
  return {(static_cast<uint128>(text_high) << 64) | text_low, trailing_zeros};
#endif
}

// The parity of floor(v) and whether v is whole, for v = f 2^(beta - 128) g the scaled bound or
// value (f = 2c - 1 or 2c): the integer part's lowest bit is bit 128 - beta of f g, and the
// fraction bits that g's error leaves exact are the 64 below it, all in the product's low 128 bits
// (compute_mul_parity, Jeon, "the big divisor case"). Out of line: about one value in a hundred
// needs it, and the core keeps fewer values live without it.
struct Parity {
  bool odd;
  bool whole;
};

__attribute__((noinline)) Parity MulParity(uint64_t f, int k, int beta) {
  const Pow10Table& table = Pow10s();
  const uint128 low = static_cast<uint128>(f) * table.lo[k - kMinPow10];
  const uint64_t mid = f * table.hi[k - kMinPow10] + static_cast<uint64_t>(low >> 64);
  return {((mid >> (64 - beta)) & 1) != 0,
          ((mid << beta) | (static_cast<uint64_t>(low) >> (64 - beta))) == 0};
}

// The shortest digits of a power of two 2^e x 2^52 (a normal double with a zero significand field,
// past the lowest binade), whose interval is shorter below than above: Dragonbox's shorter-interval
// case (Jeon, "the shorter interval case"). Out of line: a rare value, and the writer's inlined
// core stays smaller without it.
__attribute__((noinline)) ShortestDecimal ShorterInterval(int e) {
  // 10^k with k = -floor(e log10 2 - log10(4/3)) puts the interval's length, 3/4 2^e 10^k, in
  // [1, 10): at most one multiple of 10 lies in it, and at least one whole number. Then
  // 10^k = g 2^(floor(k log2 10) - 127) and 2^e 10^k = g_hi 2^(beta - 63), beta in [0, 3].
  const int k = -FloorLog10Pow2(e, true);
  const int beta = e + FloorLog2Pow10(k);
  const uint64_t g_hi = Pow10s().hi[k - kMinPow10];
  // The bounds, (2^52 - 1/4) 2^e 10^k and (2^52 + 1/2) 2^e 10^k, rounded down from g's upper half
  // alone (which the paper shows exact for every such e). The lower bound is a whole number only
  // for e in [2, 3] (10^k = 1 and 2^(e-2) whole); elsewhere the least whole number in the interval
  // is one above its floor. Both bounds belong to the interval: 2^52 is even.
  uint64_t lower = (g_hi - (g_hi >> 54)) >> (11 - beta);
  const uint64_t upper = (g_hi + (g_hi >> 53)) >> (11 - beta);
  if (e < 2 || e > 3) ++lower;
  // One digit fewer: the multiple of 10 in the interval, if any.
  const uint64_t tens = upper / 10;
  if (tens * 10 >= lower) return {tens, 1 - k};
  // Otherwise the value 2^52 2^e 10^k rounded half up, from g's upper half with one bit more; a
  // half (a tie, to the even neighbour) arises only at e = -77, where 2^(52 + e) 10^k is
  // 2^-1 5^24. Rounded, it may fall below the interval (which reaches only 1/4 2^e 10^k below it):
  // then the least whole number inside is the closest.
  uint64_t digits = ((g_hi >> (10 - beta)) + 1) / 2;
  if (e == -77 && (digits & 1) != 0) {
    --digits;
  } else if (digits < lower) {
    ++digits;
  }
  return {digits, -k};
}

// The shortest digits of a finite, nonzero double as Dragonbox finds them (Junekey Jeon,
// "Dragonbox: A New Floating-Point Binary-to-Decimal Conversion Algorithm", 2020-2024), trailing
// zeros left on (a whole number below 2^53 as itself): ShortestDecimalOf strips them, and
// WriteShortestDouble finds them in the digits' text for less. Where Schubfach scales the
// interval's two bounds and the value with three products, Dragonbox scales only the upper bound
// and reads the answer off its integer part in most cases, with a second product only when that
// part lands on a boundary. Inlined into the writer, which would otherwise pay a call for what is
// mostly register work.
__attribute__((always_inline)) inline ShortestDecimal ShortestWithZeros(uint64_t bits) {
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  uint64_t c;
  int e;
  if (biased != 0) {
    c = fraction | (uint64_t{1} << 52);
    e = biased - 1075;
    // A whole number below 2^53: its digits are its own.
    // (Its bits below the point, c's lowest -e, are what c shifted 64 + e places up keeps.)
    if (static_cast<unsigned>(e + 52) <= 52 && ((c << 11) << (e + 53)) == 0) return {c >> -e, 0};
    if (fraction == 0 && biased > 1) return ShorterInterval(e);
  } else {
    c = fraction;
    e = -1074;
  }
  // The value is c 2^e, and its interval ((2c - 1) 2^(e-1), (2c + 1) 2^(e-1)): nearest, ties to
  // even, so the bounds read back as the value (belong to the interval) when c is even.
  const bool even = (c & 1) == 0;
  // Scaled by 10^k, k = kappa - floor(e log10 2) with kappa = 2, the interval's length
  // delta = 2^e 10^k lies in [10^kappa, 10^(kappa+1)) = [100, 1000) (Jeon, "the normal interval
  // case"): it holds at most one multiple of 1000 (the shortest digits, if there is one) and at
  // least one of 100. With 10^k = g 2^(floor(k log2 10) - 127) and beta = e + floor(k log2 10)
  // (in [6, 9]), the upper bound is z = ((2c + 1) 2^beta) g / 2^128 and delta = g 2^(beta - 127).
  const int k = 2 - FloorLog10Pow2(e, false);
  const int beta = e + FloorLog2Pow10(k);
  const Pow10Table& table = Pow10s();
  const uint64_t g_hi = table.hi[k - kMinPow10], g_lo = table.lo[k - kMinPow10];
  // z's integer part and whether it is whole: the upper 128 of the product's 192 bits, the integer
  // part above and 64 fraction bits below (the lowest 64 only carry into them). As g errs upwards
  // by less than the paper's bound, z's integer part is exact, and the fraction bits are all zero
  // exactly when z is whole (Jeon, "computing z").
  const uint128 z_low = static_cast<uint128>((((c * 2) | 1) << beta)) * g_lo;
  const uint128 z_wide =
      static_cast<uint128>((((c * 2) | 1) << beta)) * g_hi + static_cast<uint64_t>(z_low >> 64);
  const uint64_t z = static_cast<uint64_t>(z_wide >> 64);
  const bool z_whole = static_cast<uint64_t>(z_wide) == 0;
  // floor(delta), from g's upper half alone (exact, as the paper shows).
  const uint64_t delta = g_hi >> (63 - beta);
  // The big divisor, 10^(kappa+1) (Jeon, "the big divisor case"): the only multiple of 1000 that
  // can lie in the interval is 1000 s, s = floor(z / 1000), inside when z's remainder z - 1000 s
  // is at most delta (a bound itself only when it belongs). r is the remainder's integer part and
  // delta here floor(delta): r < delta settles it, and r = delta needs the fractions.
  uint64_t s = z / 1000;
  uint64_t r = z - s * 1000;
  if (r < delta) {
    // Inside, unless it is z itself (r = 0, z whole) and z does not belong.
    if (r != 0 || !z_whole || even) return {s, 3 - k};
    // z excluded: the multiple below it, z - 1000, is below the interval (1000 > delta), so the
    // answer is a multiple of 100, found below as if z were 1000 above 1000 (s - 1).
    --s;
    r = 1000;
  } else if (r == delta) {
    // r = floor(delta): 1000 s lies at or above the lower bound x = z - delta exactly when
    // floor(x) is 1000 s - 1 (an odd number) or x is whole and 1000 s itself, belonging when c is
    // even (floor(x) is one of the two: x is within 1 of 1000 s). A second product, of the lower
    // bound, tells which (compute_mul_parity, Jeon, "the big divisor case").
    const Parity x = MulParity(c * 2 - 1, k, beta);
    if (x.odd || (x.whole && even)) return {s, 3 - k};
  }
  // The small divisor, 10^kappa (Jeon, "the small divisor case"): no multiple of 1000 in the
  // interval, so the answer is the multiple of 100 closest to the value y = z - delta / 2 (ties to
  // even), which is inside (it is within 50 of y, and delta / 2 >= 50). With the real remainder
  // rz = z - 1000 s, y / 100 = 10 s + (rz - delta / 2) / 100, rounded half up as floor(t / 100),
  // t = rz - delta / 2 + 50. The integers give dist = r - floor(delta) / 2 + 50, within one of t,
  // so floor(dist / 100) is floor(t / 100) unless dist is a multiple of 100, where t may be just
  // below it.
  uint32_t dist = static_cast<uint32_t>(r - (delta >> 1) + 50);  // in [50, 1000]
  // floor(dist / 100) as dist 656 / 2^16, and dist divisible by 100 read from the low 16 bits of
  // the product: for dist = 100 a + b (a <= 10, b < 100, dist <= 1050), they hold 64 a + 656 b,
  // below 656 exactly when b = 0.
  const uint32_t scaled = dist * 656;
  const bool divisible = (scaled & 0xFFFF) < 656;
  const bool approx_y_odd = (dist & 1) != 0;
  dist = scaled >> 16;
  uint64_t digits = s * 10 + dist;
  if (divisible) {
    // t >= dist exactly when floor(y) = 1000 s + dist - 50, whose parity is dist's, else floor(y)
    // is one less: y's parity, from a product of the value as for x above, decides. y whole there
    // makes t = dist, a tie, which goes to the even digits (compute_mul_parity, Jeon, "the small
    // divisor case").
    const Parity y = MulParity(c * 2, k, beta);
    if (y.odd != approx_y_odd || (y.whole && (digits & 1) != 0)) --digits;
  }
  return {digits, 2 - k};
}

// ShortestDecimalOf, DecimalDigits and WriteDecimalDigits, inline for the writers below.
inline ShortestDecimal Shortest(uint64_t bits) {
  const ShortestDecimal d = ShortestWithZeros(bits);
  return StripZeros(d.digits, d.exponent);
}

inline int Digits(uint64_t n) {
  const int bits = 64 - __builtin_clzll(n | 1);
  const int t = (bits * 1233) >> 12;             // floor(log10 2^bits), at most one too many
  return t - ((n | 1) < kPow10[t] ? 1 : 0) + 1;  // n | 1 has n's digits, and 0 one
}

inline char* WriteDigits(uint64_t n, int digits, char* p) {
  if (digits <= 8) {  // counts, mostly: one register of digits
    Put8(p, EightDigits(static_cast<uint32_t>(n)) >> (8 * (8 - digits)));
  } else if (digits <= 16) {
    Put16(p, LowDigits(n, digits));
  } else {
    const uint64_t top = n / kPow10[16];  // below 1845
    const int t = digits - 16;
    Put8(p, EightDigits(static_cast<uint32_t>(top)) >> (8 * (8 - t)));
    Put16(p + t, SixteenDigits(n % kPow10[16]));
  }
  return p + digits;
}

}  // namespace

ShortestDecimal ShortestDecimalOf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return Shortest(bits);
}

int DecimalDigits(uint64_t n) { return Digits(n); }

char* WriteDecimalDigits(uint64_t n, int digits, char* p) { return WriteDigits(n, digits, p); }

char* WriteInteger(int64_t v, char* p) {
  uint64_t n = static_cast<uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    n = uint64_t{0} - n;  // |INT64_MIN| too
  }
  return WriteDigits(n, Digits(n), p);
}

char* WriteShortestDouble(double v, char* p) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint64_t magnitude = bits & ~(uint64_t{1} << 63);
  if (magnitude >= (uint64_t{0x7FF} << 52)) {  // NaN and the infinities: rare, as to_chars does
    return std::to_chars(p, p + kShortestDoubleRoom, v).ptr;
  }
  char* o = p;
  if ((bits >> 63) != 0) *o++ = '-';
  if (magnitude == 0) {
    *o++ = '0';
    return o;
  }
  ShortestDecimal d = ShortestWithZeros(bits);
  // Fewer than 16 digits (whole numbers, subnormals, values one digit shorter than most) made 16
  // with zeros, stripped again below with the rest, so that the text always starts at its first
  // byte.
  if (d.digits < kPow10[15]) {
    const int zeros = 16 - Digits(d.digits);
    d.digits *= kPow10[zeros];
    d.exponent -= zeros;
  }
  // The 16 or 17 digits (below 10^17): a 17th (first) digit apart, and 16 as text in a register.
  const uint64_t high = d.digits / 100000000;  // below 10^9
  const uint32_t top = static_cast<uint32_t>(high) / 100000000;
  const DigitText t = SixteenDigitText(static_cast<uint32_t>(high) - top * 100000000,
                                       static_cast<uint32_t>(d.digits - high * 100000000));
  const int trailing = t.trailing_zeros;
  const int length = (top != 0 ? 17 : 16) - trailing;
  const int exponent = d.exponent + trailing;
  // libstdc++'s choice (floating_to_chars.cc, __floating_to_chars_shortest): fixed when it is no
  // longer than scientific, which is when the exponent lies in these bounds.
  int lower_bound = -(length + 3);
  int upper_bound = 5;
  if (length == 1) ++lower_bound, --upper_bound;
  if (exponent >= 0 && exponent <= upper_bound) {
    // A whole number, printed as its exact value "as if by printf" (which the shortest digits
    // and zeros are, unless those would round it: 3067852939771705344, not ...5300). Below 2^53 the
    // digits are the number itself, and the text holds its zeros.
    if (magnitude < (uint64_t{1023 + 53} << 52)) {
      Put16(o, t.text);
      return o + length + exponent;
    }
    const uint64_t c = (magnitude & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
    const int q = static_cast<int>(magnitude >> 52) - 1075;
    const uint128 whole = q >= 0 ? static_cast<uint128>(c) << q : static_cast<uint128>(c >> -q);
    if (whole < kPow10[16]) {
      const int n = Digits(static_cast<uint64_t>(whole));
      Put16(o, LowDigits(static_cast<uint64_t>(whole), n));
      return o + n;
    }
    // Below 10^22 (the exponent is at most 5): the digits past 16, below 10^6, then 16.
    uint64_t high, low;
    if ((whole >> 64) == 0) {  // a 64-bit division, not a 128-bit one
      high = static_cast<uint64_t>(whole) / kPow10[16];
      low = static_cast<uint64_t>(whole) % kPow10[16];
    } else {
      high = static_cast<uint64_t>(whole / kPow10[16]);
      low = static_cast<uint64_t>(whole % kPow10[16]);
    }
    const int t = Digits(high);
    Put8(o, EightDigits(static_cast<uint32_t>(high)) >> (8 * (8 - t)));
    Put16(o + t, SixteenDigits(low));
    return o + t + 16;
  }
  // The digits: a 17th (first) digit apart, the rest as text in a register (trailing zeros past
  // the text's end are left on, as the stores may write past it).
  const char lead = static_cast<char>('0' + top);
  const uint128 text = t.text;
  const int rest = top != 0 ? length - 1 : length;  // the text's digits
  if (exponent > upper_bound || exponent < lower_bound) {
    // Scientific: d[.ddd]e+XX, at least two exponent digits.
    if (top != 0) {
      o[0] = lead;
      o[1] = '.';
      Put16(o + 2, text);
    } else {
      o[0] = static_cast<char>(text);
      o[1] = '.';
      Put16(o + 2, text >> 8);
    }
    o += length == 1 ? 1 : length + 1;
    int e = exponent + length - 1;
    *o++ = 'e';
    *o++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {
      *o++ = static_cast<char>('0' + e / 100);
      e %= 100;
    }
    o[0] = static_cast<char>('0' + e / 10);
    o[1] = static_cast<char>('0' + e % 10);
    return o + 2;
  }
  int point = length + exponent;  // digits before the point
  if (point <= 0) {
    // 0.000ddd, at most three zeros after the point (the bounds above).
    std::memcpy(o, "0.000", 5);
    o += 2 - point;
    if (top != 0) *o++ = lead;
    Put16(o, text);
    return o + rest;
  }
  if (top != 0) {
    *o++ = lead;
    --point;
  }
  // The digits, then those after the point again one place on, then the point between.
  Put16(o, text);
  Put16(o + point + 1, text >> (8 * point));
  o[point] = '.';
  return o + rest + 1;
}

}  // namespace dcplan

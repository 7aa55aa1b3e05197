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

// 10^e for e in [kMinPow10, kMaxPow10] as g = floor(10^e x 2^(127 - floor(log2 10^e))) + 1, a
// 128-bit number in [2^127, 2^128): the powers a double's scaling needs (e = -k for the k below).
constexpr int kMinPow10 = -292;
constexpr int kMaxPow10 = 324;

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

 private:
  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;
};

// Out of line, so that Pow10s' guarded call stays small enough to inline.
__attribute__((noinline)) Pow10Table MakePow10Table() {
  Pow10Table t{};
  auto set = [&t](int e, uint128 top) {
    const uint128 g = top + 1;
    t.hi[e - kMinPow10] = static_cast<uint64_t>(g >> 64);
    t.lo[e - kMinPow10] = static_cast<uint64_t>(g);
  };
  // e >= 0: the leading 128 bits of 10^e.
  BigInt n({1});
  for (int e = 0; e <= kMaxPow10; ++e) {
    set(e, n.Top128());
    n.MultiplyBy10();
  }
  // e < 0: the leading 128 bits of floor(2^1280 / 10^-e), which are floor(2^(127 + b) / 10^-e)
  // for 10^-e of b bits (floor(floor(x) / m) = floor(x / m) for whole m).
  std::vector<uint32_t> limbs(1280 / 32 + 1, 0);
  limbs.back() = 1;
  BigInt d(std::move(limbs));
  for (int e = -1; e >= kMinPow10; --e) {
    d.DivideBy10();
    set(e, d.Top128());
  }
  return t;
}

// Made on first use; inline, so that each use costs a load and a test of the guard.
__attribute__((always_inline)) inline const Pow10Table& Pow10s() {
  static const Pow10Table table = MakePow10Table();
  return table;
}

// floor(e log2 10) and floor(q log10 2) (less log10(4/3) when asked) by multiplies, exact over the
// exponents a double has (Giulietti, section 9).
inline int FloorLog2Pow10(int e) { return (e * 1741647) >> 19; }
inline int FloorLog10Pow2(int q, bool lower_closer) {
  return (q * 1262611 - (lower_closer ? 524031 : 0)) >> 22;
}

// floor(g x cp / 2^128) rounded to odd (its lowest bit set when anything below was dropped): the
// top 64 of the product's 192 bits, the lowest 64 left out and the middle 64 read as "> 1", which
// absorbs g's excess of one unit over 10^-k's significand (Giulietti, section 9).
inline uint64_t RoundToOdd(uint64_t g_hi, uint64_t g_lo, uint64_t cp) {
  const uint128 x = static_cast<uint128>(g_lo) * cp;
  const uint128 y = static_cast<uint128>(g_hi) * cp + static_cast<uint64_t>(x >> 64);
  const uint64_t y1 = static_cast<uint64_t>(y >> 64);
  const uint64_t y0 = static_cast<uint64_t>(y);
  return y1 | (y0 > 1 ? 1 : 0);
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

// The shortest digits of a finite, nonzero double as Schubfach finds them, trailing zeros left on
// (a whole number below 2^53 as itself): ShortestDecimalOf strips them, and WriteShortestDouble
// finds them in the digits' text for less. Inlined into the writer, which would otherwise pay a
// call for what is mostly register work.
__attribute__((always_inline)) inline ShortestDecimal ShortestWithZeros(uint64_t bits) {
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  uint64_t c;
  int q;
  if (biased != 0) {
    c = fraction | (uint64_t{1} << 52);
    q = biased - 1075;
    // A whole number below 2^53: its digits are its own.
    // (Its bits below the point, c's lowest -q, are what c shifted 64 + q places up keeps.)
    if (static_cast<unsigned>(q + 52) <= 52 && ((c << 11) << (q + 53)) == 0) return {c >> -q, 0};
  } else {
    c = fraction;
    q = -1074;
  }
  const bool even = (c & 1) == 0;
  const bool lower_closer = fraction == 0 && biased > 1;
  // The interval's bounds and the value in quarter units of 2^q.
  const uint64_t cbl = 4 * c - 2 + (lower_closer ? 1 : 0);
  const uint64_t cb = 4 * c;
  const uint64_t cbr = 4 * c + 2;
  // 10^k <= 2^q (3/4 2^q when the lower bound is closer) < 10^(k+1), and the value scaled by
  // 10^-k: vb / 4 ~= v / 10^k, with 10^-k = g 2^(floor(log2 10^-k) - 127).
  const int k = FloorLog10Pow2(q, lower_closer);
  const int h = q + FloorLog2Pow10(-k) + 1;
  const Pow10Table& table = Pow10s();
  const uint64_t g_hi = table.hi[-k - kMinPow10], g_lo = table.lo[-k - kMinPow10];
  const uint64_t vbl = RoundToOdd(g_hi, g_lo, cbl << h);
  const uint64_t vb = RoundToOdd(g_hi, g_lo, cb << h);
  const uint64_t vbr = RoundToOdd(g_hi, g_lo, cbr << h);
  const uint64_t lower = vbl + (even ? 0 : 1);
  const uint64_t upper = vbr - (even ? 0 : 1);
  const uint64_t s = vb >> 2;
  if (s >= 10) {
    // One digit fewer: at most one multiple of 10^(k+1) lies in the interval.
    const uint64_t sp = s / 10;
    const bool up_inside = lower <= 40 * sp;
    const bool wp_inside = 40 * sp + 40 <= upper;
    if (up_inside != wp_inside) return {sp + (wp_inside ? 1 : 0), k + 1};
  }
  const bool u_inside = lower <= 4 * s;
  const bool w_inside = 4 * s + 4 <= upper;
  if (u_inside != w_inside) return {s + (w_inside ? 1 : 0), k};
  // Both in: the closer, a tie to the even one.
  const uint64_t mid = 4 * s + 2;
  const bool round_up = vb > mid || (vb == mid && (s & 1) != 0);
  return {s + (round_up ? 1 : 0), k};
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

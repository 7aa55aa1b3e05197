#include "base/json.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/shortest_double.h"

namespace dcplan {

void AppendJsonString(absl::string_view text, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      absl::StrAppendFormat(out, "\\u%04x", c);
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else {
      // A whole, valid UTF-8 sequence is kept; anything else becomes U+FFFD.
      const int n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
      bool valid = n > 0 && i + n <= text.size();
      for (int k = 1; valid && k < n; ++k) {
        valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
      }
      if (valid) {
        out->append(text.data() + i, static_cast<size_t>(n));
        i += n - 1;
      } else {
        out->append("\xef\xbf\xbd");
      }
    }
  }
  out->push_back('"');
}

std::string JsonQuote(absl::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  AppendJsonString(text, &out);
  return out;
}

namespace {

char* WriteDoubleSlow(double v, char* out) {
  auto printed = std::to_chars(out, out + kMaxJsonDoubleBytes, v, std::chars_format::general, 15);
  double back = 0;
  std::from_chars(out, printed.ptr, back);
  if (back != v) {
    printed = std::to_chars(out, out + kMaxJsonDoubleBytes, v, std::chars_format::general, 17);
  }
  return printed.ptr;
}

// %.{precision}g of a value whose significant digits (`n` of them, no trailing zeros) are
// `digits` and whose decimal exponent is `exponent`: fixed notation for exponents in
// [-4, precision), else d.ddde+XX. Returns the end of the text written at `t`.
char* FormatG(bool negative, const char* digits, int n, int exponent, int precision, char* t) {
  if (negative) *t++ = '-';
  if (exponent >= -4 && exponent < precision) {
    if (exponent < 0) {
      *t++ = '0';
      *t++ = '.';
      for (int i = -1; i > exponent; --i) *t++ = '0';
      for (int i = 0; i < n; ++i) *t++ = digits[i];
    } else {
      for (int i = 0; i <= exponent; ++i) *t++ = i < n ? digits[i] : '0';
      if (n > exponent + 1) {
        *t++ = '.';
        for (int i = exponent + 1; i < n; ++i) *t++ = digits[i];
      }
    }
  } else {
    *t++ = digits[0];
    if (n > 1) {
      *t++ = '.';
      for (int i = 1; i < n; ++i) *t++ = digits[i];
    }
    *t++ = 'e';
    *t++ = exponent < 0 ? '-' : '+';
    const int e = exponent < 0 ? -exponent : exponent;
    if (e >= 100) *t++ = static_cast<char>('0' + e / 100);
    *t++ = static_cast<char>('0' + e / 10 % 10);
    *t++ = static_cast<char>('0' + e % 10);
  }
  return t;
}

// %.17g of a normal, finite v in [10^exponent, 10^(exponent + 1)), computed exactly in 128-bit
// integers: v = m 2^q, and its 17 significant digits are v 10^(16 - exponent) rounded to an
// integer, ties to even, as printf rounds (v's exact value is what is rounded). Covers
// 10^-6 <= |v| < 2^127; returns null outside (or on anything unexpected), for the slow path.
char* Precision17(double v, int exponent, char* t) {
  using u128 = unsigned __int128;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0 || biased == 0x7ff) return nullptr;
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int q = biased - 1075;
  const int k = 16 - exponent;  // the power of ten that brings the 17th digit to the units
  u128 pow10 = 1;
  for (int i = 0; i < (k < 0 ? -k : k); ++i) pow10 *= 10;
  u128 r;
  if (q >= 0) {
    if (q > 74) return nullptr;  // beyond 2^127
    const u128 whole = static_cast<u128>(m) << q;
    if (k >= 0) {
      r = whole * pow10;  // below 10^17: exact
    } else {
      if (-k > 38) return nullptr;
      r = whole / pow10;
      const u128 rem = whole - r * pow10;
      if (2 * rem > pow10 || (2 * rem == pow10 && (r & 1) != 0)) ++r;
    }
  } else {
    const int shift = -q;
    if (k > 22 || k < 0 || shift > 127) return nullptr;  // m 10^k must fit in 128 bits
    const u128 n = static_cast<u128>(m) * pow10;
    r = n >> shift;
    const u128 rem = n - (r << shift);
    const u128 half = static_cast<u128>(1) << (shift - 1);
    if (rem > half || (rem == half && (r & 1) != 0)) ++r;
  }
  constexpr uint64_t kLow = 10000000000000000ULL;  // 10^16
  if (r == static_cast<u128>(kLow) * 10) {         // rounded up to 10^17: one more digit place
    r = kLow;
    ++exponent;
  }
  if (r < kLow || r >= static_cast<u128>(kLow) * 10) return nullptr;
  char digits[17];
  uint64_t d = static_cast<uint64_t>(r);
  for (int i = 16; i >= 0; --i, d /= 10) digits[i] = static_cast<char>('0' + d % 10);
  int n = 17;
  while (n > 1 && digits[n - 1] == '0') --n;  // %g drops trailing zeros
  return FormatG(v < 0, digits, n, exponent, 17, t);
}

}  // namespace

// protobuf's SimpleDtoa: the shortest of %.15g and %.17g that reads back exactly. Without printing
// twice and reading back: the shortest digits that read back (ShortestDecimalOf) have 15 or fewer
// exactly when %.15g reads back, and then %.15g prints those very digits (a normal double's
// half-ulp is under half a unit of the 15th digit, so rounding its exact value to 15 digits lands
// on them). Otherwise %.17g, rounded exactly in 128-bit integers where they reach (Precision17).
// Subnormals, where that argument fails, take the slow way.
char* WriteProtobufJsonDouble(double v, char* out) {
  auto put = [out](const char* text, size_t n) {
    std::memcpy(out, text, n);
    return out + n;
  };
  if (std::isnan(v)) return put("\"NaN\"", 5);
  if (std::isinf(v)) return v > 0 ? put("\"Infinity\"", 10) : put("\"-Infinity\"", 11);
  // Whole numbers below 10^15 print as integers under %.15g: the common case (watts, counts).
  if (v == std::trunc(v) && std::abs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
    return WriteInteger(static_cast<int64_t>(v), out);
  }
  if (std::abs(v) < std::numeric_limits<double>::min()) return WriteDoubleSlow(v, out);
  // The shortest digits (base/shortest_double.h: the digits std::to_chars' Ryu finds).
  const ShortestDecimal shortest = ShortestDecimalOf(v);
  const bool negative = v < 0;
  const int n = DecimalDigits(shortest.digits);
  char digits[24];
  WriteDecimalDigits(shortest.digits, n, digits);
  const int exponent = shortest.exponent + n - 1;  // of the first digit
  if (n > 15) {
    // 16 or 17 shortest digits: 10^exponent <= |v| < 10^(exponent + 1) (a value nearer a power of
    // ten would have a shorter form), which Precision17 needs.
    if (char* end = Precision17(v, exponent, out)) return end;
    return std::to_chars(out, out + kMaxJsonDoubleBytes, v, std::chars_format::general, 17).ptr;
  }
  // %.15g of those digits; trailing zeros dropped (the shortest digits have none).
  return FormatG(negative, digits, n, exponent, 15, out);
}

void AppendProtobufJsonDouble(double v, std::string* out) {
  char text[kMaxJsonDoubleBytes];
  out->append(text, static_cast<size_t>(WriteProtobufJsonDouble(v, text) - text));
}

char* WriteProtobufJsonString(absl::string_view text, char* out) {
  // Plain characters are copied in runs; the rest escaped as protobuf's printer does.
  *out++ = '"';
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* run = p;
    p = SkipPlainJson</*kProtobufEscapes=*/true>(p, end);
    std::memcpy(out, run, static_cast<size_t>(p - run));
    out += p - run;
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p++);
    if (c >= 0x80) return nullptr;
    const char* escape = nullptr;
    switch (c) {
      case '"':
        escape = "\\\"";
        break;
      case '\\':
        escape = "\\\\";
        break;
      case '\b':
        escape = "\\b";
        break;
      case '\f':
        escape = "\\f";
        break;
      case '\n':
        escape = "\\n";
        break;
      case '\r':
        escape = "\\r";
        break;
      case '\t':
        escape = "\\t";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        std::memcpy(out, u, sizeof(u));
        out += sizeof(u);
        continue;
      }
    }
    *out++ = escape[0];
    *out++ = escape[1];
  }
  *out++ = '"';
  return out;
}

bool AppendProtobufJsonString(absl::string_view text, std::string* out) {
  const size_t size = out->size();
  out->resize(size + MaxProtobufJsonStringBytes(text.size()));
  char* end = WriteProtobufJsonString(text, out->data() + size);
  out->resize(end == nullptr ? size : static_cast<size_t>(end - out->data()));
  return end != nullptr;
}

}  // namespace dcplan

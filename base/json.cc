#include "base/json.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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

void AppendDoubleSlow(double v, std::string* out) {
  char buffer[40];
  auto printed = std::to_chars(buffer, buffer + sizeof(buffer), v, std::chars_format::general, 15);
  double back = 0;
  std::from_chars(buffer, printed.ptr, back);
  if (back != v) {
    printed = std::to_chars(buffer, buffer + sizeof(buffer), v, std::chars_format::general, 17);
  }
  out->append(buffer, static_cast<size_t>(printed.ptr - buffer));
}

}  // namespace

// protobuf's SimpleDtoa: the shortest of %.15g and %.17g that reads back exactly. Without printing
// twice and reading back: the shortest digits that read back (std::to_chars, Ryu) have 15 or fewer
// exactly when %.15g reads back, and then %.15g prints those very digits (a normal double's
// half-ulp is under half a unit of the 15th digit, so rounding its exact value to 15 digits lands
// on them). Subnormals, where that argument fails, take the slow way.
void AppendProtobufJsonDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  // Whole numbers below 10^15 print as integers under %.15g: the common case (watts, counts).
  if (v == std::trunc(v) && std::abs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
    absl::StrAppend(out, static_cast<int64_t>(v));
    return;
  }
  if (std::abs(v) < std::numeric_limits<double>::min()) return AppendDoubleSlow(v, out);
  // The shortest digits, as d.ddde+XX.
  char sci[40];
  const auto printed = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  const char* p = sci;
  const bool negative = *p == '-';
  if (negative) ++p;
  char digits[20];
  int n = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits[n++] = *p;
  }
  int exponent = 0;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), printed.ptr, exponent);
  if (n > 15) {
    char buffer[40];
    const auto wide =
        std::to_chars(buffer, buffer + sizeof(buffer), v, std::chars_format::general, 17);
    out->append(buffer, static_cast<size_t>(wide.ptr - buffer));
    return;
  }
  // %.15g of those digits: fixed notation for exponents in [-4, 15), else d.ddde+XX; trailing
  // zeros dropped (the shortest digits have none).
  char text[48];
  char* t = text;
  if (negative) *t++ = '-';
  if (exponent >= -4 && exponent < 15) {
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
  out->append(text, static_cast<size_t>(t - text));
}

bool AppendProtobufJsonString(absl::string_view text, std::string* out) {
  // Plain characters are copied in runs; the rest escaped as protobuf's printer does.
  out->push_back('"');
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* run = p;
    p = SkipPlainJson</*kProtobufEscapes=*/true>(p, end);
    out->append(run, static_cast<size_t>(p - run));
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p++);
    if (c >= 0x80) return false;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default: {
        char u[8];
        std::snprintf(u, sizeof(u), "\\u%04x", c);
        out->append(u);
      }
    }
  }
  out->push_back('"');
  return true;
}

}  // namespace dcplan

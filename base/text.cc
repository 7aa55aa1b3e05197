// File: base/text.cc
#include "base/text.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dcplan {
namespace {

// The length of the UTF-8 character that starts at text[i]: its lead byte and the continuation
// bytes (10xxxxxx) that follow, as many as the lead announces. A stray or truncated byte is one,
// so a control character right after a bad lead byte is still seen as one.
size_t CharLength(absl::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const size_t want = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  size_t n = 1;
  while (n < want && i + n < text.size() &&
         (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) {
    ++n;
  }
  return n == want ? n : 1;
}

}  // namespace

std::string Clip(absl::string_view text, size_t max) {
  if (text.size() <= max) return Printable(text);
  // The start and the end, cut on UTF-8 character boundaries.
  size_t head = max / 2, tail = text.size() - max / 2;
  while (head > 0 && (static_cast<unsigned char>(text[head]) & 0xC0) == 0x80) --head;
  while (tail < text.size() && (static_cast<unsigned char>(text[tail]) & 0xC0) == 0x80) ++tail;
  return Printable(
      absl::StrCat(text.substr(0, head), "[... ", text.size(), " bytes ...]", text.substr(tail)));
}

std::string Printable(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t n = CharLength(text, i);
    // C0 controls and DEL, and the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F): a terminal
    // acts on them (ESC, CSI), so they are shown escaped.
    const bool c1 = c == 0xC2 && n == 2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    // (n == 2 means text[i + 1] is a continuation byte, 0x80..0xBF.)
    if (c < 0x20 || c == 0x7F || c1) {
      const unsigned code = c1 ? static_cast<unsigned char>(text[i + 1]) : c;
      switch (code) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          // Two calls: clang refuses a format string chosen at run time.
          if (c1) {
            absl::StrAppendFormat(&out, "\\u%04x", code);
          } else {
            absl::StrAppendFormat(&out, "\\x%02x", code);
          }
      }
    } else {
      out.append(text.data() + i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace dcplan

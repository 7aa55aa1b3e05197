#include "base/json.h"

#include <cstddef>
#include <cstdio>
#include <string>

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

bool AppendProtobufJsonString(absl::string_view text, std::string* out) {
  // Plain characters are copied in runs; the rest escaped as protobuf's printer does.
  static constexpr struct PlainTable {
    constexpr PlainTable() : is{} {
      for (int c = 0x20; c < 0x7f; ++c) is[c] = c != '"' && c != '\\' && c != '<' && c != '>';
    }
    bool is[256];
  } kPlain;
  const auto plain = [](unsigned char c) { return kPlain.is[c]; };
  out->push_back('"');
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* run = p;
    while (p < end && plain(static_cast<unsigned char>(*p))) ++p;
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

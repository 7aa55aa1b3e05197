// File: base/json.h
//
// The one JSON string quoter, in its two dialects: plain JSON (what our own JSON writers emit: the
// CLI's JSON lines, the serve API's error bodies) and protobuf's (what proto/json_fast.cc must
// match byte for byte, so that its output equals protobuf's JSON printer's).
//
// Example:
//   std::string body = "{\"error\": ";
//   AppendJsonString(status.message(), &body);   // "must be >= 1.0" stays as written
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/string_view.h"

namespace dcplan {

// Appends `text` as a JSON string, escaping only what JSON requires: `"` and `\` with a backslash,
// the C0 controls and DEL as \u00XX. A whole valid UTF-8 sequence is kept; any other byte >= 0x80
// becomes U+FFFD, so the result is always valid JSON.
void AppendJsonString(absl::string_view text, std::string* out);

// AppendJsonString into a new string.
std::string JsonQuote(absl::string_view text);

// Appends `text` as a JSON string escaped as protobuf's JSON printer escapes it (\b \f \n \r \t
// short forms; other controls, DEL, '<' and '>' as \u00xx). Returns false, having appended part of
// it, when `text` is not ASCII: the caller then falls back to protobuf itself.
bool AppendProtobufJsonString(absl::string_view text, std::string* out);

// The same written at `out`, which has room for MaxProtobufJsonStringBytes(text.size()) bytes:
// returns the end of what was written, or null when `text` is not ASCII.
char* WriteProtobufJsonString(absl::string_view text, char* out);
// Every byte escaped as \u00xx, and the quotes.
constexpr size_t MaxProtobufJsonStringBytes(size_t text_bytes) { return 6 * text_bytes + 2; }

// The first byte in [p, end) that a JSON string cannot hold as it is, or `end`: '"', '\\', a
// control byte or a non-ASCII byte; with kProtobufEscapes also '<', '>' and DEL, which protobuf's
// printer escapes. Sixteen bytes a step with SSE2, else eight (a word with none of them is skipped
// whole); the JSON readers and writers copy the plain runs between such bytes in one go.
template <bool kProtobufEscapes>
inline const char* SkipPlainJson(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  // Non-zero when some byte of x is below n (n <= 0x80); exact for the word as a whole.
  const auto below = [](uint64_t x, uint64_t n) { return (x - kOnes * n) & ~x & kHigh; };
  const auto plain = [](unsigned char c) {
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    return !kProtobufEscapes || (c != '<' && c != '>' && c != 0x7f);
  };
#if defined(__SSE2__)
  // Sixteen bytes a step: a signed compare below 0x20 also catches the bytes >= 0x80.
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i stop =
        _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    stop = _mm_or_si128(stop, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    if (kProtobufEscapes) {
      stop = _mm_or_si128(stop, _mm_cmpeq_epi8(v, _mm_set1_epi8('<')));
      stop = _mm_or_si128(stop, _mm_cmpeq_epi8(v, _mm_set1_epi8('>')));
      stop = _mm_or_si128(stop, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
    }
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (true) {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, sizeof(w));
      uint64_t stop =
          below(w, 0x20) | (w & kHigh) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1);
      if (kProtobufEscapes) {
        stop |= below(w ^ (kOnes * '<'), 1) | below(w ^ (kOnes * '>'), 1) |
                below(w ^ (kOnes * 0x7f), 1);
      }
      if (stop != 0) break;
      p += 8;
    }
    // A word that holds a stop (or may: the test can flag a byte after a real one), or the tail.
    const char* const limit = std::min<const char*>(p + 8, end);
    while (p < limit && plain(static_cast<unsigned char>(*p))) ++p;
    if (p < limit || p == end) return p;
  }
}

// Appends `v` as protobuf's JSON printer writes a double: the shortest of %.15g and %.17g that
// reads back exactly (SimpleDtoa), NaN and +-Infinity quoted.
void AppendProtobufJsonDouble(double v, std::string* out);

// The same written at `out`, which has room for kMaxJsonDoubleBytes: returns the end of the text.
inline constexpr size_t kMaxJsonDoubleBytes = 32;
char* WriteProtobufJsonDouble(double v, char* out);

}  // namespace dcplan

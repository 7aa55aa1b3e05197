// File: proto/json_reader.h
//
// The tokens of proto3 JSON as the fast path reads them (proto/json_fast.cc's reflection parser
// and the PlanRequest parser generated from request.proto, proto/gen_json_parser.cc): each reader
// takes one value the way protobuf's parser would, or returns false for anything it would rather
// leave to protobuf (escapes, non-ASCII, "-0", integers past 15 digits as doubles, quoted numbers
// other than NaN and the infinities, null). A false leaves the reader anywhere: the caller
// declines the whole text and protobuf parses it.
//
// Example:
//   JsonReader in(text);
//   double v;
//   if (!in.Consume('{') || !in.ReadDouble(&v)) return false;   // declined
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>
#include <type_traits>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "base/json.h"

namespace dcplan {

class JsonReader {
 public:
  // How deep objects may nest before the text is declined.
  static constexpr int kMaxDepth = 64;

  explicit JsonReader(absl::string_view json) : p_(json.data()), end_(json.data() + json.size()) {}

  // Whether only white space is left.
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }

  // JSON's white space: ' ', '\n', '\r' and '\t' (one test of a bit each, not four compares).
  void SkipSpace() {
    constexpr uint64_t kSpace = (uint64_t{1} << ' ') | (uint64_t{1} << '\n') |
                                (uint64_t{1} << '\r') | (uint64_t{1} << '\t');
    while (p_ < end_ && static_cast<unsigned char>(*p_) <= ' ' &&
           ((kSpace >> static_cast<unsigned char>(*p_)) & 1) != 0) {
      ++p_;
    }
  }

  // The next token is `c`: consumed.
  bool Consume(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // The next token is `quoted`, a string with its quotes ("\"name\""), byte for byte: consumed.
  // The generated parsers try the key they expect this way before reading whatever key is there.
  bool ConsumeQuoted(absl::string_view quoted) {
    SkipSpace();
    if (static_cast<size_t>(end_ - p_) < quoted.size() ||
        !SameBytes(p_, quoted.data(), quoted.size())) {
      return false;
    }
    p_ += quoted.size();
    return true;
  }

  // A string without escapes or non-ASCII bytes (anything else: decline).
  bool ReadPlainString(absl::string_view* s) {
    SkipSpace();
    if (p_ >= end_ || *p_ != '"') return false;
    const char* start = ++p_;
    p_ = SkipPlainJson</*kProtobufEscapes=*/false>(p_, end_);
    if (p_ >= end_ || *p_ != '"') return false;
    *s = absl::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // A JSON number token, as text; `integer` when it has no fraction or exponent.
  bool ReadNumberToken(absl::string_view* token, bool* integer) {
    SkipSpace();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    *integer = true;
    if (p_ < end_ && *p_ == '.') {
      *integer = false;
      ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      *integer = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    *token = absl::string_view(start, static_cast<size_t>(p_ - start));
    return true;
  }

  bool ReadLiteral(absl::string_view word) {
    SkipSpace();
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        absl::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // A double: a number, or "NaN", "Infinity", "-Infinity".
  bool ReadDouble(double* out) {
    SkipSpace();
    double v;
    if (p_ < end_ && *p_ == '"') {
      absl::string_view s;
      if (!ReadPlainString(&s)) return false;
      if (s == "NaN") {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (s == "Infinity") {
        v = std::numeric_limits<double>::infinity();
      } else if (s == "-Infinity") {
        v = -std::numeric_limits<double>::infinity();
      } else {
        return false;
      }
    } else {
      absl::string_view token;
      bool integer;
      if (!ReadNumberToken(&token, &integer)) return false;
      // Correctly rounded, as strtod; out of range (either way) is declined.
      const auto read = std::from_chars(token.data(), token.data() + token.size(), v);
      if (read.ec != std::errc() || read.ptr != token.data() + token.size() || std::isinf(v)) {
        return false;
      }
      // protobuf reads "-0" as +0 and long integers its own way: its call.
      if ((v == 0 && std::signbit(v)) || (integer && token.size() > 15)) return false;
    }
    *out = v;
    return true;
  }

  // An integer field's value: a number without fraction or exponent, or the same quoted in its
  // plain form ("12", "-3"); unsigned types decline a sign.
  template <typename Int>
  bool ReadInteger(Int* out) {
    absl::string_view token;
    SkipSpace();
    if (p_ < end_ && *p_ == '"') {
      if (!ReadPlainString(&token)) return false;
      const char* t = token.data();
      const char* e = t + token.size();
      if (t < e && *t == '-') ++t;
      if (t == e || (*t == '0' && e - t > 1)) return false;
      for (; t < e; ++t) {
        if (*t < '0' || *t > '9') return false;
      }
    } else {
      bool integer;
      if (!ReadNumberToken(&token, &integer) || !integer) return false;
    }
    if (std::is_unsigned<Int>::value && (token.empty() || token[0] == '-')) return false;
    return absl::SimpleAtoi(token, out);
  }

  bool ReadBool(bool* out) {
    if (ReadLiteral("true")) {
      *out = true;
    } else if (ReadLiteral("false")) {
      *out = false;
    } else {
      return false;
    }
    return true;
  }

 private:
  // Whether the n bytes at a and b are the same: a key's 4 to 16 bytes as two overlapping words
  // each (no call to memcmp for the keys the generated parsers expect).
  static bool SameBytes(const char* a, const char* b, size_t n) {
    if (n >= 8 && n <= 16) return SameEnds<uint64_t>(a, b, n);
    if (n >= 4 && n < 8) return SameEnds<uint32_t>(a, b, n);
    return std::memcmp(a, b, n) == 0;
  }
  // The first and the last sizeof(Word) <= n bytes of a and b compared: all n of them when
  // n <= 2 * sizeof(Word).
  template <typename Word>
  static bool SameEnds(const char* a, const char* b, size_t n) {
    Word a0, a1, b0, b1;
    std::memcpy(&a0, a, sizeof(Word));
    std::memcpy(&b0, b, sizeof(Word));
    std::memcpy(&a1, a + n - sizeof(Word), sizeof(Word));
    std::memcpy(&b1, b + n - sizeof(Word), sizeof(Word));
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }

  const char* p_;
  const char* const end_;
};

}  // namespace dcplan

#include "base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ios>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(JsonQuote, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(JsonQuote("must be >= 1.0"), "\"must be >= 1.0\"");
  EXPECT_EQ(JsonQuote("a \"b\" \\c"), "\"a \\\"b\\\" \\\\c\"");
  // Controls and DEL as \u00XX (newline is 0x0a, tab 0x09, DEL 0x7f).
  EXPECT_EQ(JsonQuote("x\ny\tz\x7f"), "\"x\\u000ay\\u0009z\\u007f\"");
}

TEST(JsonQuote, KeepsValidUtf8AndReplacesTheRest) {
  EXPECT_EQ(JsonQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");            // U+00E9, two bytes
  EXPECT_EQ(JsonQuote("\xe2\x82\xac"), "\"\xe2\x82\xac\"");          // U+20AC, three bytes
  EXPECT_EQ(JsonQuote("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // U+1F600, four bytes
  EXPECT_EQ(JsonQuote("a\xff"
                      "b"),
            "\"a\xef\xbf\xbd"
            "b\"");                                                  // 0xff is never UTF-8
  EXPECT_EQ(JsonQuote("\xc3"), "\"\xef\xbf\xbd\"");                  // a cut-off sequence
  EXPECT_EQ(JsonQuote("\xc0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\"");  // overlong: both bytes go
}

TEST(AppendJsonString, AppendsToWhatIsThere) {
  std::string out = "{\"error\": ";
  AppendJsonString("no", &out);
  EXPECT_EQ(out, "{\"error\": \"no\"");
}

TEST(AppendProtobufJsonString, EscapesAsProtobufsJsonPrinter) {
  std::string out;
  ASSERT_TRUE(AppendProtobufJsonString("<a>\"\\\b\f\n\r\t\x01\x7f", &out));
  EXPECT_EQ(out, "\"\\u003ca\\u003e\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u007f\"");
}

TEST(AppendProtobufJsonString, DeclinesTextThatIsNotAscii) {
  std::string out;
  EXPECT_FALSE(AppendProtobufJsonString("caf\xc3\xa9", &out));
}

// SkipPlainJson against the byte-at-a-time definition: every byte value at every position of
// strings of 0 to 40 plain bytes (so a stop falls at each place in and across 8-byte words), in
// both dialects.
TEST(SkipPlainJson, StopsAtTheFirstByteThatNeedsEscapingOrIsNotAscii) {
  const auto plain = [](unsigned char c, bool protobuf) {
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    return !protobuf || (c != '<' && c != '>' && c != 0x7f);
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> printable(0x20, 0x7e);
  for (size_t n = 0; n <= 40; ++n) {
    std::string text(n, ' ');
    for (char& c : text) {
      do {
        c = static_cast<char>(printable(rng));
      } while (!plain(static_cast<unsigned char>(c), true));
    }
    const char* b = text.data();
    EXPECT_EQ(SkipPlainJson<false>(b, b + n), b + n) << text;
    EXPECT_EQ(SkipPlainJson<true>(b, b + n), b + n) << text;
    for (size_t at = 0; at < n; ++at) {
      for (int v = 0; v < 256; ++v) {
        std::string t = text;
        t[at] = static_cast<char>(v);
        const char* p = t.data();
        for (const bool protobuf : {false, true}) {
          const size_t want = plain(static_cast<unsigned char>(v), protobuf) ? n : at;
          const char* got =
              protobuf ? SkipPlainJson<true>(p, p + n) : SkipPlainJson<false>(p, p + n);
          ASSERT_EQ(static_cast<size_t>(got - p), want)
              << "byte " << v << " at " << at << " of " << n;
        }
      }
    }
  }
}

// protobuf's SimpleDtoa, as it is written: %.15g if that reads back exactly, else %.17g (glibc's
// printf, which rounds the exact value, ties to even).
std::string SimpleDtoa(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.15g", v);
  if (std::strtod(buffer, nullptr) != v) std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

std::string Printed(double v) {
  std::string out;
  AppendProtobufJsonDouble(v, &out);
  return out;
}

// The 16- and 17-digit values AppendProtobufJsonDouble rounds to 17 digits itself (Precision17, in
// 128-bit integers) against printf, which rounds the exact value: random values at every scale it
// covers and beyond (10^-8 .. 10^40, both signs), whole numbers up to 2^130, and the ties: a value
// m / 2^(k+1) with m odd has 17 digits and a half exactly, which must round to the even digit
// (1000000000000000.25 prints 1000000000000000.2).
TEST(AppendProtobufJsonDouble, RoundsSeventeenDigitsAsPrintfDoes) {
  EXPECT_EQ(Printed(1000000000000000.25), "1000000000000000.2");
  EXPECT_EQ(Printed(1000000000000000.75), "1000000000000000.8");
  EXPECT_EQ(Printed(1.0 / 3.0), "0.33333333333333331");
  EXPECT_EQ(Printed(-2.0 / 3.0), "-0.66666666666666663");
  std::mt19937_64 rng(17);
  int compared = 0;
  for (int i = 0; i < 600000; ++i) {
    double v;
    switch (i % 3) {
      case 0: {  // uniform in log scale over 10^-8 .. 10^40
        const double e = -8.0 + 48.0 * static_cast<double>(rng() >> 11) * 0x1p-53;
        v = std::pow(10.0, e) * (1.0 + static_cast<double>(rng() >> 11) * 0x1p-53);
        break;
      }
      case 1: {  // a tie: m odd over 2^(k+1), in [10^(16-k), 10^(17-k))
        const int k = 1 + static_cast<int>(rng() % 22);
        const double lo = std::ldexp(std::pow(10.0, 16 - k), k + 1);
        const double hi = std::min(std::ldexp(std::pow(10.0, 17 - k), k + 1), 0x1p53);
        double m = std::floor(lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1p-53);
        if (std::fmod(m, 2.0) == 0) m += 1;
        v = std::ldexp(m, -(k + 1));
        break;
      }
      default:  // whole numbers m 2^q, up to 2^130
        v = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 78));
        break;
    }
    if (rng() & 1) v = -v;
    ASSERT_EQ(Printed(v), SimpleDtoa(v)) << std::hexfloat << v;
    ++compared;
  }
  EXPECT_EQ(compared, 600000);
}

}  // namespace
}  // namespace dcplan

#include "base/json.h"

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

}  // namespace
}  // namespace dcplan

#include "proto/json_reader.h"

#include <string>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

// White space is exactly JSON's four bytes (RFC 8259: space, tab, line feed, carriage return):
// every other byte before a token is the token's first byte, so "<byte>{" opens an object only
// after one of the four.
TEST(JsonReader, SkipsExactlyJsonsFourWhiteSpaceBytes) {
  for (int b = 0; b < 256; ++b) {
    const std::string text = std::string(1, static_cast<char>(b)) + "{";
    JsonReader in(text);
    const bool space = b == ' ' || b == '\t' || b == '\n' || b == '\r';
    EXPECT_EQ(in.Consume('{'), space || b == '{') << "byte " << b;
  }
  JsonReader runs(" \t\r\n \n\n   [ \t]");
  EXPECT_TRUE(runs.Consume('['));
  EXPECT_TRUE(runs.Consume(']'));
  EXPECT_TRUE(runs.AtEnd());
}

// A key is consumed only when every byte matches, at every length (the short and long forms of
// the comparison), also when it ends the text; a mismatch consumes nothing.
TEST(JsonReader, ConsumesAQuotedKeyOnlyWhenEveryByteMatches) {
  for (size_t n = 1; n <= 24; ++n) {
    std::string key = "\"";
    for (size_t i = 0; i < n; ++i) key.push_back(static_cast<char>('a' + (i * 7) % 26));
    key.push_back('"');
    for (const std::string& after : {std::string(), std::string(": 1")}) {
      // The reader keeps pointers into its text: each text is a named string.
      const std::string text = " " + key + after;
      JsonReader same(text);
      EXPECT_TRUE(same.ConsumeQuoted(key)) << key;
      EXPECT_EQ(same.AtEnd(), after.empty()) << key;
      for (size_t at = 0; at < key.size(); ++at) {
        std::string other = key;
        other[at] = static_cast<char>(other[at] ^ 0x20);
        const std::string other_text = other + after;
        JsonReader in(other_text);
        EXPECT_FALSE(in.ConsumeQuoted(key)) << key << " against " << other;
        // Nothing was consumed: the text still starts with the other key's first byte (not white
        // space: the flipped quote is 0x02).
        EXPECT_TRUE(in.Consume(other[0])) << other;
      }
      // A text shorter than the key is never read past its end.
      const std::string cut = key.substr(0, key.size() - 1);
      JsonReader shorter(cut);
      EXPECT_FALSE(shorter.ConsumeQuoted(key)) << key;
    }
  }
}

}  // namespace
}  // namespace dcplan

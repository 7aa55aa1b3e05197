// File: base/text_test.cc
#include "base/text.h"

#include <string>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(Clip, KeepsShortTextAndTheStartAndEndOfLongText) {
  EXPECT_EQ(Clip("50MW"), "50MW");
  EXPECT_EQ(Clip(std::string(80, 'a')), std::string(80, 'a'));
  // 81 bytes: 40 + marker + 40 (the 81st... byte in the middle is dropped).
  const std::string long_text = std::string(40, 'a') + "M" + std::string(40, 'z');
  EXPECT_EQ(Clip(long_text), std::string(40, 'a') + "[... 81 bytes ...]" + std::string(40, 'z'));
  EXPECT_EQ(Clip("abcdefghij", 4), "ab[... 10 bytes ...]ij");
}

// A value quoted in an error stays on one line: the fuzzer found a source path with a newline in
// it echoed raw ("hardware.accelerator.h\0\n_bytes").
TEST(Clip, EscapesControlCharacters) {
  EXPECT_EQ(Clip(absl::string_view("h\0\n_bytes", 9)), "h\\x00\\n_bytes");
  EXPECT_EQ(Clip(std::string(50, 'a') + "\n" + std::string(50, 'b'), 10),
            "aaaaa[... 101 bytes ...]bbbbb");
  EXPECT_EQ(Clip("\x1b[2J" + std::string(100, 'x'), 10), "\\x1b[2Jx[... 104 bytes ...]xxxxx");
}

TEST(Clip, NeverCutsAUtf8Character) {
  // "é" is 2 bytes (C3 A9): 10 of them are 20 bytes; max 5 would cut one at byte 2 and 18.
  std::string e;
  for (int i = 0; i < 10; ++i) e += "\xC3\xA9";
  EXPECT_EQ(Clip(e, 5), "\xC3\xA9[... 20 bytes ...]\xC3\xA9");
}

TEST(Printable, EscapesControlCharactersAndKeepsTheRest) {
  EXPECT_EQ(Printable("H100 café — 50 MW"), "H100 café — 50 MW");
  EXPECT_EQ(Printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(Printable("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  // U+009B (CSI) is C2 9B in UTF-8: a terminal acts on it like ESC [.
  EXPECT_EQ(Printable("x\xC2\x9B"
                      "31m"),
            "x\\u009b31m");
  // U+00A0 (C2 A0) is a printable no-break space: kept.
  EXPECT_EQ(Printable("1\xC2\xA0MW"), "1\xC2\xA0MW");
  // A lead byte announcing 3 bytes followed by ESC: the ESC is still escaped.
  EXPECT_EQ(Printable("\xE0\x1b[2J"), "\xE0\\x1b[2J");
}

}  // namespace
}  // namespace dcplan

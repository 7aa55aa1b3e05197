#include "base/string_table.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(StringTable, FindsWhatWasInsertedAndNothingElse) {
  StringTable t;
  EXPECT_EQ(t.Find("site.pue"), -1);  // empty
  t.Insert("site.pue", 7);
  t.Insert("site.annual_pue", 8);
  t.Insert("", 9);
  t.Insert("a", 10);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.Find("site.pue"), 7);
  EXPECT_EQ(t.Find("site.annual_pue"), 8);
  EXPECT_EQ(t.Find(""), 9);
  EXPECT_EQ(t.Find("a"), 10);
  // One byte more, one less, one changed, another case: absent.
  EXPECT_EQ(t.Find("site.pues"), -1);
  EXPECT_EQ(t.Find("site.pu"), -1);
  EXPECT_EQ(t.Find("site.pud"), -1);
  EXPECT_EQ(t.Find("Site.pue"), -1);
  EXPECT_EQ(t.Find("b"), -1);
}

TEST(StringTable, AKeyInsertedTwiceKeepsItsFirstValue) {
  StringTable t;
  t.Insert("hardware.accelerator.tdp_watts", 1);
  t.Insert("hardware.accelerator.tdp_watts", 2);
  EXPECT_EQ(t.Find("hardware.accelerator.tdp_watts"), 1);
  EXPECT_EQ(t.size(), 1u);
}

// Keys the hash sees alike where it samples them (the same length, first, middle and last eight
// bytes) differ elsewhere: they collide, and each is still found by its whole text.
TEST(StringTable, KeysThatDifferOnlyWhereTheHashDoesNotLookAreStillTellApart) {
  // 40 bytes: the hash reads bytes 0-7, 16-23 and 32-39; these differ at byte 10.
  const std::string a = "hardware.Xccelerator.peak_flops_per_sec_";
  std::string b = a;
  b[10] = 'Y';
  ASSERT_EQ(a.size(), 40u);
  EXPECT_EQ(StringTable::Hash(a), StringTable::Hash(b));
  StringTable t;
  t.Insert(a, 1);
  EXPECT_EQ(t.Find(b), -1);
  t.Insert(b, 2);
  EXPECT_EQ(t.Find(a), 1);
  EXPECT_EQ(t.Find(b), 2);
}

// Thousands of paths that share prefixes and suffixes, as the schema's do, through several
// growths of the table: each is found with its own value, and a near miss of each is not.
TEST(StringTable, ManyKeysThroughGrowth) {
  StringTable t;
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) {
    keys.push_back("hardware.section" + std::to_string(i % 37) + ".field_" + std::to_string(i) +
                   "_watts");
  }
  for (size_t i = 0; i < keys.size(); ++i) t.Insert(keys[i], static_cast<int>(i));
  EXPECT_EQ(t.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(t.Find(keys[i]), static_cast<int>(i)) << keys[i];
    EXPECT_EQ(t.Find(keys[i] + "x"), -1) << keys[i];
    EXPECT_EQ(t.Find(keys[i].substr(1)), -1) << keys[i];
  }
  // The hash spreads them: nearly every key has a hash of its own.
  std::set<uint64_t> hashes;
  for (const std::string& k : keys) hashes.insert(StringTable::Hash(k));
  EXPECT_GE(hashes.size(), keys.size() - 5);
}

}  // namespace
}  // namespace dcplan

#include "units/si_prefix.h"

#include "gtest/gtest.h"

namespace dcplan::units {
namespace {

TEST(SiPrefixFactor, KnowsMilliToExa) {
  EXPECT_EQ(SiPrefixFactor('m'), 1e-3);
  EXPECT_EQ(SiPrefixFactor('k'), 1e3);
  EXPECT_EQ(SiPrefixFactor('M'), 1e6);
  EXPECT_EQ(SiPrefixFactor('E'), 1e18);
  EXPECT_FALSE(SiPrefixFactor('K').has_value());  // kilo is lower-case
  EXPECT_FALSE(SiPrefixFactor('Z').has_value());
}

TEST(LargestSiPrefixUpTo, KeepsTheMantissaUnderAThousand) {
  EXPECT_FALSE(LargestSiPrefixUpTo(999).has_value());
  EXPECT_EQ(LargestSiPrefixUpTo(1000)->letter, 'k');
  EXPECT_EQ(LargestSiPrefixUpTo(45.9e6)->letter, 'M');  // 45.9 MW
  EXPECT_EQ(LargestSiPrefixUpTo(3.2768e19)->letter, 'E');
  EXPECT_EQ(LargestSiPrefixUpTo(1e30)->letter, 'E');  // E is the largest
}

}  // namespace
}  // namespace dcplan::units

#include "base/numbers.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(CeilDiv, RoundsUpToWholeGroups) {
  EXPECT_EQ(CeilDiv(1024, 8), 128);  // exactly 128 servers of 8
  EXPECT_EQ(CeilDiv(1025, 8), 129);  // one GPU more needs one server more
  EXPECT_EQ(CeilDiv(1, 32), 1);
  EXPECT_EQ(CeilDiv(0, 32), 0);
  EXPECT_EQ(CeilDiv(-5, 2), 0);  // no GPUs, no racks
}

TEST(CeilDiv, NeverOverflows) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(CeilDiv(kMax, 1), kMax);
  EXPECT_EQ(CeilDiv(kMax, 2), kMax / 2 + 1);  // kMax is odd
}

// The multiply against the division it replaces, (a - 1) / d + 1 in 64 bits, on the numerators
// where a multiplier's error would show first: around every multiple of d, at the top of the 32-bit
// range, and 4,000 random ones each (1.5 million in all), for divisors from 1 to past 2^32.
TEST(Divisor, CeilDivIsTheDivisionsQuotient) {
  const auto reference = [](int64_t a, int64_t d) { return a <= 0 ? 0 : (a - 1) / d + 1; };
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= 300; ++d) divisors.push_back(d);
  for (int shift = 9; shift <= 33; ++shift) {
    for (int64_t delta : {-1, 0, 1}) divisors.push_back((int64_t{1} << shift) + delta);
  }
  for (int64_t d :
       std::vector<int64_t>{641, 6700417, 1000003, 2147483647, 4294967291, 4294967295}) {
    divisors.push_back(d);
  }
  std::mt19937_64 random(20261207);
  for (int64_t d : divisors) {
    const Divisor divisor(d);
    EXPECT_EQ(divisor.value(), d);
    EXPECT_EQ(divisor.has_multiplier(), d > 1 && d < (int64_t{1} << 32)) << d;
    std::vector<int64_t> numerators = {-3,
                                       0,
                                       1,
                                       2,
                                       3,
                                       int64_t{1} << 32,
                                       (int64_t{1} << 32) + 1,
                                       (int64_t{1} << 32) - 1,
                                       std::numeric_limits<int64_t>::max()};
    for (int64_t k : {1, 2, 3, 1000, 65535, 1 << 20}) {
      for (int64_t delta : {-1, 0, 1, 2}) numerators.push_back(k * d + delta);
    }
    const int64_t top = int64_t{1} << 32;  // a - 1 < 2^32: the multiply's range
    for (int64_t q = top / d - 2; q <= top / d + 2; ++q) {
      for (int64_t delta : {-1, 0, 1, 2}) numerators.push_back(q * d + delta);
    }
    for (int i = 0; i < 4000; ++i) numerators.push_back(static_cast<int64_t>(random() >> 31));
    for (int64_t a : numerators) {
      ASSERT_EQ(CeilDiv(a, divisor), reference(a, d)) << a << " / " << d;
      ASSERT_EQ(CeilDiv(a, divisor), CeilDiv(a, d)) << a << " / " << d;
    }
  }
}

TEST(Divisor, ReadsAndAssignsAsItsValue) {
  Divisor d = 8;
  const int64_t plain = d;  // reads as its value
  EXPECT_EQ(plain, 8);
  EXPECT_EQ(CeilDiv(1025, d), 129);
  d = 3;  // a new value brings its own multiplier
  EXPECT_EQ(CeilDiv(1025, d), 342);
  EXPECT_EQ(CeilDiv(int64_t{5} << 32, Divisor(1)), int64_t{5} << 32);
}

TEST(ShortestDouble, IsTheShortestTextThatReadsBack) {
  EXPECT_EQ(ShortestDouble(0.1), "0.1");
  EXPECT_EQ(ShortestDouble(50e6), "5e+07");  // shorter than "50000000"
  EXPECT_EQ(ShortestDouble(1234567.0), "1234567");
  EXPECT_EQ(ShortestDouble(1e21), "1e+21");
  EXPECT_EQ(ShortestDouble(0.1 + 0.2), "0.30000000000000004");  // 0.3 would read back as 0.3
  EXPECT_EQ(ShortestDouble(-0.0), "-0");
  EXPECT_EQ(ShortestDouble(std::numeric_limits<double>::infinity()), "inf");
}

TEST(AppendShortestDouble, AppendsToWhatIsThere) {
  std::string out = "x=";
  AppendShortestDouble(2.5, &out);
  EXPECT_EQ(out, "x=2.5");
}

}  // namespace
}  // namespace dcplan

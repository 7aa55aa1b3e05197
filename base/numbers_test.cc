#include "base/numbers.h"

#include <cstdint>
#include <limits>
#include <string>

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

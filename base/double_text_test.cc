// Tests of DoubleTextCache: its text is std::to_chars' shortest form for every value, however the
// values collide in its slots and in whatever order they come.
#include "base/double_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(DoubleTextCache, WritesTheShortestText) {
  DoubleTextCache cache;
  std::string out;
  // By hand: the shortest text that reads back, fixed or scientific, whichever is shorter.
  for (double v : {0.1, 50e6, 1234567.0, 9085491.840000002, 3067852939771705344.0}) {
    cache.Append(v, &out);
    out.push_back(',');
  }
  EXPECT_EQ(out, "0.1,5e+07,1234567,9085491.840000002,3067852939771705344,");
}

TEST(DoubleTextCache, TellsValuesApartByTheirBits) {
  DoubleTextCache cache;
  std::string out;
  for (double v :
       {0.0, -0.0, 0.0, std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), -0.0}) {
    cache.Append(v, &out);
    out.push_back(' ');
  }
  EXPECT_EQ(out, "0 -0 0 inf -inf nan -0 ");
}

// Half a million values, many repeated (a sweep's columns) and many not, more distinct values
// than slots, so that slots are overwritten and reread; both entry points against to_chars.
TEST(DoubleTextCache, AgreesWithToCharsWhateverCollides) {
  DoubleTextCache cache;
  std::mt19937_64 rng(22);
  std::vector<double> pool;
  for (int i = 0; i < 40000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof(v));
    pool.push_back(i % 2 ? v : std::ldexp(static_cast<double>(rng() % 100000), i % 40 - 10));
  }
  std::string got, want;
  char buf[64];
  for (int i = 0; i < 500000; ++i) {
    const double v = pool[rng() % (i % 3 ? 64 : pool.size())];  // a hot few, and the rest
    got.clear();
    want.clear();
    AppendShortestDouble(v, &want);
    if (i % 2) {
      cache.Append(v, &got);
    } else {
      got.assign(buf, cache.Write(v, buf));
    }
    ASSERT_EQ(got, want) << i;
  }
}

}  // namespace
}  // namespace dcplan

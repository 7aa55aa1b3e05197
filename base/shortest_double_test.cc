// WriteShortestDouble against the implementation it replaces: libstdc++'s std::to_chars (Ryu), byte
// for byte, on every kind of double - random bit patterns over the whole range (subnormals
// included), every binade's edges, whole numbers around 2^53 and 2^64, short decimals at every
// exponent (where the choice between fixed and scientific and the one-digit-shorter candidate are
// decided), the values a plan prints, and NaN, the infinities and the zeros.
#include "base/shortest_double.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

std::string Expected(double v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

std::string Written(double v) {
  char buf[kShortestDoubleRoom + 8];
  std::memset(buf, 'x', sizeof(buf));
  char* end = WriteShortestDouble(v, buf);
  // Nothing past the room.
  for (size_t i = kShortestDoubleRoom; i < sizeof(buf); ++i) EXPECT_EQ(buf[i], 'x');
  return std::string(buf, end);
}

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

// Counts mismatches (and reports the first few) so that a broken build fails with examples, not
// with millions of lines.
class Checker {
 public:
  void Check(double v) {
    const std::string want = Expected(v);
    const std::string got = Written(v);
    if (got != want && ++failures_ <= 20) {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof(bits));
      ADD_FAILURE() << "bits 0x" << std::hex << bits << ": to_chars \"" << want << "\", got \""
                    << got << "\"";
    }
    ++checked_;
  }
  ~Checker() { EXPECT_EQ(failures_, 0) << "of " << checked_ << " values"; }

 private:
  int64_t failures_ = 0;
  int64_t checked_ = 0;
};

TEST(WriteShortestDouble, KnownTexts) {
  // Worked out from the rules: the shortest digits that read back, fixed unless scientific is
  // shorter, a whole number past 2^53 as its exact value.
  EXPECT_EQ(Written(0.1), "0.1");
  EXPECT_EQ(Written(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Written(50e6), "5e+07");         // "50000000" is longer
  EXPECT_EQ(Written(1234567.0), "1234567");  // "1.234567e+06" is longer
  EXPECT_EQ(Written(0.001), "0.001");        // as long as "1e-03": fixed
  EXPECT_EQ(Written(0.0001), "1e-04");
  EXPECT_EQ(Written(1e21), "1e+21");
  EXPECT_EQ(Written(1e100), "1e+100");
  EXPECT_EQ(Written(-0.0), "-0");
  EXPECT_EQ(Written(0.0), "0");
  EXPECT_EQ(Written(3067852939771705344.0), "3067852939771705344");  // 2^9 x 5991900272991612
  EXPECT_EQ(Written(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(Written(std::numeric_limits<double>::min()), "2.2250738585072014e-308");
  EXPECT_EQ(Written(-std::numeric_limits<double>::min()), "-2.2250738585072014e-308");
  EXPECT_EQ(Written(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(Written(9085491.840000002), "9085491.840000002");
}

TEST(WriteShortestDouble, DecimalsAndDigits) {
  EXPECT_EQ(DecimalDigits(0), 1);
  EXPECT_EQ(DecimalDigits(9), 1);
  EXPECT_EQ(DecimalDigits(10), 2);
  EXPECT_EQ(DecimalDigits(UINT64_MAX), 20);
  for (int i = 1; i < 20; ++i) {
    uint64_t p = 1;
    for (int j = 0; j < i; ++j) p *= 10;
    EXPECT_EQ(DecimalDigits(p - 1), i);
    EXPECT_EQ(DecimalDigits(p), i + 1);
  }
  char buf[32];
  EXPECT_EQ(std::string(buf, WriteDecimalDigits(1234567890123ull, 13, buf)), "1234567890123");
  EXPECT_EQ(std::string(buf, WriteDecimalDigits(UINT64_MAX, 20, buf)), "18446744073709551615");
  const ShortestDecimal d = ShortestDecimalOf(1234.5);
  EXPECT_EQ(d.digits, 12345u);
  EXPECT_EQ(d.exponent, -1);
  const ShortestDecimal e = ShortestDecimalOf(-5e-324);
  EXPECT_EQ(e.digits, 5u);
  EXPECT_EQ(e.exponent, -324);
}

TEST(WriteInteger, IsToCharsText) {
  std::mt19937_64 rng(3);
  int failures = 0;
  auto check = [&](int64_t v) {
    char want[32], got[32];
    const std::string a(want, std::to_chars(want, want + sizeof(want), v).ptr);
    const std::string b(got, WriteInteger(v, got));
    if (a != b && ++failures < 10) ADD_FAILURE() << v << ": " << a << " vs " << b;
  };
  for (int64_t v = -100000; v <= 100000; ++v) check(v);
  for (int i = 0; i < 19; ++i) {  // 10^0 .. 10^18, each +-2
    int64_t p = 1;
    for (int j = 0; j < i; ++j) p *= 10;
    for (int64_t d = -2; d <= 2; ++d) {
      check(p + d);
      check(-p + d);
    }
  }
  check(std::numeric_limits<int64_t>::max());
  check(std::numeric_limits<int64_t>::min());
  for (int i = 0; i < 1'000'000; ++i) {
    check(static_cast<int64_t>(rng() >> (rng() % 64)));
    check(-static_cast<int64_t>(rng() >> (1 + rng() % 63)));
  }
  EXPECT_EQ(failures, 0);
}

TEST(WriteShortestDouble, SpecialValues) {
  Checker c;
  c.Check(std::numeric_limits<double>::infinity());
  c.Check(-std::numeric_limits<double>::infinity());
  c.Check(std::numeric_limits<double>::quiet_NaN());
  c.Check(-std::numeric_limits<double>::quiet_NaN());
  c.Check(0.0);
  c.Check(-0.0);
}

TEST(WriteShortestDouble, RandomBitPatterns) {
  Checker c;
  std::mt19937_64 rng(20261207);
  for (int i = 0; i < 2'000'000; ++i) {
    const uint64_t bits = rng();
    c.Check(FromBits(bits));
  }
}

TEST(WriteShortestDouble, EveryBinadesEdges) {
  Checker c;
  // Both ends of every binade (the lower bound closer at a power of two), both signs, and the
  // subnormals' edges.
  for (uint64_t exponent = 0; exponent < 0x7FF; ++exponent) {
    for (uint64_t fraction :
         {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, (uint64_t{1} << 52) - 1,
          (uint64_t{1} << 52) - 2, uint64_t{1} << 51, (uint64_t{1} << 51) + 1}) {
      const uint64_t bits = (exponent << 52) | fraction;
      c.Check(FromBits(bits));
      c.Check(FromBits(bits | (uint64_t{1} << 63)));
    }
  }
}

TEST(WriteShortestDouble, WholeNumbers) {
  Checker c;
  for (int64_t i = 0; i < 200'000; ++i) c.Check(static_cast<double>(i));
  // Around 2^53 (where whole numbers stop being every integer), 2^63, 2^64 and 10^15 .. 10^23,
  // where fixed prints a whole number's exact value.
  for (double center : {9007199254740992.0, 9223372036854775808.0, 18446744073709551616.0}) {
    double v = center;
    for (int i = 0; i < 5000; ++i) v = std::nextafter(v, 0.0);
    for (int i = 0; i < 10000; ++i) {
      c.Check(v);
      v = std::nextafter(v, 1e300);
    }
  }
  for (int e = 15; e <= 23; ++e) {
    const double p = std::pow(10.0, e);
    double v = p;
    for (int i = 0; i < 1000; ++i) v = std::nextafter(v, 0.0);
    for (int i = 0; i < 2000; ++i) {
      c.Check(v);
      v = std::nextafter(v, 1e300);
    }
  }
  std::mt19937_64 rng(53);
  for (int i = 0; i < 300'000; ++i) {
    c.Check(static_cast<double>(rng() >> (rng() % 64)));
  }
}

TEST(WriteShortestDouble, ShortDecimalsAtEveryExponent) {
  Checker c;
  std::mt19937_64 rng(7);
  // m x 10^e for m of 1 to 17 digits, read as a double: the shortest digits are often m itself,
  // and the choice of layout turns on its length and exponent.
  for (int e = -330; e <= 310; ++e) {
    for (int digits = 1; digits <= 17; ++digits) {
      uint64_t limit = 1;
      for (int j = 0; j < digits; ++j) limit *= 10;
      for (int i = 0; i < 40; ++i) {
        const uint64_t m = rng() % limit;
        const std::string text = std::to_string(m) + "e" + std::to_string(e);
        double v = 0;
        std::from_chars(text.data(), text.data() + text.size(), v);
        c.Check(v);
        c.Check(std::nextafter(v, 0.0));
        c.Check(std::nextafter(v, 1e308));
      }
    }
  }
}

TEST(WriteShortestDouble, PlanLikeValues) {
  Checker c;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // Powers, prices, fractions and rates of the sizes a plan prints: products and quotients that
  // use all 17 digits.
  for (int i = 0; i < 1'000'000; ++i) {
    const double scale = std::pow(10.0, static_cast<int>(rng() % 40) - 20);
    c.Check(unit(rng) * scale);
    c.Check(1.1 + (i % 1000) * 0.0005);
    c.Check(static_cast<double>(i) * 1.4e3 * (1.0 + unit(rng)));
  }
}

}  // namespace
}  // namespace dcplan

#include "planner/mfu_model.h"

#include <cmath>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

using units::InFraction;

EfficiencyModel Parse(const std::string& text) {
  EfficiencyModel m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  return m;
}

TEST(LogLinearMfu, ReproducesTheSeedCurve) {
  // MFU(G) = 0.62 - 0.02 log2 G: G = 1, 8, 512, 8192, 32768 give 0.62, 0.56, 0.44, 0.36, 0.32.
  auto mfu = MakeMfuModel(EfficiencyModel()).value();  // empty = the seed's defaults
  EXPECT_NEAR(InFraction(mfu->MfuAt(1)), 0.62, 1e-12);
  EXPECT_NEAR(InFraction(mfu->MfuAt(8)), 0.56, 1e-12);
  EXPECT_NEAR(InFraction(mfu->MfuAt(512)), 0.44, 1e-12);
  EXPECT_NEAR(InFraction(mfu->MfuAt(8192)), 0.36, 1e-12);
  EXPECT_NEAR(InFraction(mfu->MfuAt(32768)), 0.32, 1e-12);
  EXPECT_EQ(InFraction(mfu->MfuAt(0)), 0.0);
}

TEST(LogLinearMfu, NeverFallsBelowItsFloor) {
  // 0.62 - 0.02 x 40 = -0.18 at 2^40 GPUs; the default floor 0.01 holds instead.
  auto mfu = MakeMfuModel(EfficiencyModel()).value();
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(int64_t{1} << 40)), 0.01);
  auto custom =
      MakeMfuModel(Parse("log_linear { intercept: 0.5 slope_per_doubling: 0.1 floor: 0.2 }"))
          .value();
  // 0.5 - 0.1 x 4 = 0.1 < 0.2 at 16 GPUs.
  EXPECT_DOUBLE_EQ(InFraction(custom->MfuAt(16)), 0.2);
  EXPECT_NEAR(InFraction(custom->MfuAt(2)), 0.4, 1e-12);
}

TEST(TableMfu, InterpolatesInLog2AndHoldsBeyondTheEnds) {
  auto mfu = MakeMfuModel(Parse(R"pb(table {
                                       points { gpus: 1024 mfu: 0.5 }
                                       points { gpus: 4096 mfu: 0.4 }
                                       points { gpus: 16384 mfu: 0.38 }
                                     })pb"))
                 .value();
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(100)), 0.5);
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(1024)), 0.5);
  // 2048 is halfway between 1024 and 4096 in log2: (0.5 + 0.4) / 2.
  EXPECT_NEAR(InFraction(mfu->MfuAt(2048)), 0.45, 1e-12);
  EXPECT_NEAR(InFraction(mfu->MfuAt(4096)), 0.4, 1e-12);
  // 8192 is halfway between 4096 and 16384 in log2: (0.4 + 0.38) / 2.
  EXPECT_NEAR(InFraction(mfu->MfuAt(8192)), 0.39, 1e-12);
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(1 << 20)), 0.38);
}

TEST(TableMfu, NamesTheStationaryPointOfRealizedCompute) {
  // Between (1000, 0.5) and (4000, 0.1): MFU = c + s log2 G with s = -0.4 / 2 = -0.2 per doubling,
  // so G x MFU peaks at log2 G = -c/s - 1/ln 2 with c = 0.5 + 0.2 log2(1000).
  auto mfu = MakeMfuModel(Parse(R"pb(table {
                                       points { gpus: 1000 mfu: 0.5 }
                                       points { gpus: 4000 mfu: 0.1 }
                                     })pb"))
                 .value();
  const double c = 0.5 + 0.2 * std::log2(1000.0);
  const double expected = std::exp2(c / 0.2 - 1.0 / std::log(2.0));
  std::vector<double> cands = mfu->RealizedComputeCandidates();
  ASSERT_EQ(cands.size(), 3u);
  EXPECT_NEAR(cands[1], expected, 1e-6);
  EXPECT_NEAR(expected, 2081.0, 1.0);
}

TEST(ConstantMfu, IsTheSameAtEverySize) {
  auto mfu = MakeMfuModel(Parse("constant { mfu: 0.4 }")).value();
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(1)), 0.4);
  EXPECT_DOUBLE_EQ(InFraction(mfu->MfuAt(1000000)), 0.4);
  EXPECT_EQ(mfu->Describe(), "constant: 0.4");
}

}  // namespace
}  // namespace dcplan

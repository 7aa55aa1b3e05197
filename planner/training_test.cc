// Goodput: the failure model, checkpoint write, restart and the Young/Daly interval, against
// figures worked out by hand (derivations in the comments).
#include "planner/training.h"

#include <cmath>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/workload/workload_model.h"
#include "units/units.h"

namespace dcplan {
namespace {

using units::InFraction;
using units::InSeconds;

ReliabilityModel Defaults() {
  Workload w;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "layers: 1 hidden: 64 heads: 1 vocab: 1 seq_len: 1 global_batch_sequences: 1", &w));
  return BuildWorkloadModel(w).value().reliability;
}

TEST(EstimateGoodput, Llama3ScaleWithTheDefaults) {
  // 405e9 parameters on 16,384 GPUs in 2,048 servers, the defaults (GPU MTBI 86,000 h, server
  // 15,300 h, 2 TB/s, 14 bytes a parameter, 600 s restart):
  //   rate = 16,384 / 86,000 + 2,048 / 15,300 = 0.190512 + 0.133856 = 0.324368 per hour
  //   mtbi = 3,600 / 0.324368 = 11,098.5 s (3.08 h; Llama 3 saw 419 unexpected interruptions in
  //          54 days = one every 3.09 h, the figure the defaults come from)
  //   write = 405e9 x 14 / 2e12 = 2.835 s; restart = 600 + 2.835 s
  //   interval = sqrt(2 x 2.835 x 11,098.5) = 250.86 s
  //   goodput = 1 - 2.835 / 253.69 - (602.835 + 253.69 / 2) / 11,098.5 = 0.92308
  // (Llama 3 reports more than 90% effective training time.)
  const Goodput g = EstimateGoodput(Defaults(), 16384, 8, 405e9);
  EXPECT_NEAR(InSeconds(g.mtbi), 11098.51, 0.01);
  EXPECT_NEAR(InSeconds(g.checkpoint_write), 2.835, 1e-9);
  EXPECT_NEAR(InSeconds(g.checkpoint_interval), 250.856, 0.001);
  EXPECT_NEAR(InSeconds(g.restart), 602.835, 1e-9);
  EXPECT_NEAR(InFraction(g.goodput), 0.92308, 0.00001);
}

TEST(EstimateGoodput, AGivenIntervalIsKept) {
  // 1e9 parameters on one 8-GPU server, checkpoints every hour: mtbi = 3,600 / (8 / 86,000 +
  // 1 / 15,300) = 22,729,750 s; write = 1e9 x 14 / 2e12 = 0.007 s; goodput = 1 - 0.007 / 3,600.007
  // - (600.007 + 1,800.0035) / 22,729,750 = 0.999892.
  ReliabilityModel r = Defaults();
  r.checkpoint_interval = units::Seconds(3600);
  const Goodput g = EstimateGoodput(r, 8, 8, 1e9);
  EXPECT_DOUBLE_EQ(InSeconds(g.checkpoint_interval), 3600);
  EXPECT_NEAR(InFraction(g.goodput), 0.9998925, 1e-7);
}

TEST(EstimateGoodput, NeverBelowZero) {
  // An interruption every second with a 600 s restart: no progress, goodput 0 (not negative).
  ReliabilityModel r = Defaults();
  r.gpu_mtbi = units::Seconds(8.0);
  const Goodput g = EstimateGoodput(r, 8, 8, 1e9);
  EXPECT_EQ(InFraction(g.goodput), 0.0);
}

TEST(EstimateGoodput, FallsWithClusterSize) {
  // More GPUs, more interruptions: goodput falls monotonically from 1,024 to 131,072 GPUs.
  double last = 1.0;
  for (int64_t gpus = 1024; gpus <= 131072; gpus *= 2) {
    const double g = InFraction(EstimateGoodput(Defaults(), gpus, 8, 405e9).goodput);
    EXPECT_LT(g, last) << gpus;
    last = g;
  }
}

}  // namespace
}  // namespace dcplan

#include "planner/sweep/compare_monte_carlo.h"

#include <string>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/test_requests.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

// The seed preset at 14 MW named `name` with site.pue = `pue` and 100,000 samples.
PlanRequest Seed(const std::string& name, const std::string& pue, uint64_t samples = 100000) {
  PlanRequest r = testing::SeedUncertain("constraints { power_cap_watts: 14e6 }",
                                         absl::StrCat("pue=", pue), samples);
  r.set_name(name);
  return r;
}

TEST(CompareMonteCarlo, ProbabilityOfBestOnCommonRandomNumbers) {
  // Seed: GPUs = 8 x floor(14 MW / (1.4 kW x PUE x 8)) = 8 x floor(1250 / PUE).
  // "fixed" has PUE 1.4 always: 8 x 892 = 7,136 GPUs. "open" has PUE uniform(1.0, 2.0): more GPUs
  // than "fixed" when floor(1250 / PUE) >= 893, i.e. PUE <= 1250 / 893 = 1.39978; the same count
  // (a tie, to the higher rank) up to PUE 1250 / 892 = 1.40135. At the medians "open" (PUE 1.5,
  // 6,664 GPUs) ranks below "fixed", so it is best in P(PUE < 1.39978) = 0.39978 of the samples.
  // Realized compute is G x 1 PFLOP/s x (0.62 - 0.02 log2 G) x the model's error factor: it rises
  // with G here and both options share the factor in each sample (common random numbers, the same
  // log-linear spread), so the factor never changes which one wins. Within 0.005 on 100,000
  // samples (sd 0.0015).
  auto c =
      CompareUncertain({Seed("open", "uniform(1.0, 2.0)"), Seed("fixed", "uniform(1.4, 1.4)")}, {});
  ASSERT_THAT(c.status(), IsOk());
  ASSERT_EQ(c->plans_size(), 2);
  EXPECT_EQ(c->plans(0).name(), "fixed");
  EXPECT_EQ(c->plans(0).counts().gpu_count(), 7136u);
  EXPECT_EQ(c->plans(1).name(), "open");
  EXPECT_EQ(c->plans(1).counts().gpu_count(), 6664u);
  ASSERT_EQ(c->p_best_size(), 2);
  EXPECT_NEAR(c->p_best(1), 0.39978, 0.005);
  EXPECT_DOUBLE_EQ(c->p_best(0) + c->p_best(1), 1.0);
  // Each plan carries its own distribution: "open"'s P10 of GPUs is at PUE 1.9 (5,256).
  EXPECT_NEAR(c->plans(1).distribution().gpu_count().p10(), 5256, 53);
  EXPECT_EQ(c->plans(0).distribution().gpu_count().p10(), 7136);
  EXPECT_GT(c->plans(0).distribution().realized_flops_per_second().p90(),
            c->plans(0).distribution().realized_flops_per_second().p10());
}

TEST(CompareMonteCarlo, TheSameOnAnyThreadCount) {
  std::string one, two;
  MonteCarloOptions o;
  o.threads = 1;
  o.block_samples = 999;
  ASSERT_TRUE(CompareUncertain(
                  {Seed("a", "uniform(1.0, 2.0)", 5000), Seed("b", "uniform(1.2, 1.6)", 5000)}, o)
                  ->SerializeToString(&one));
  o.threads = 3;
  o.block_samples = 1 << 15;
  ASSERT_TRUE(CompareUncertain(
                  {Seed("a", "uniform(1.0, 2.0)", 5000), Seed("b", "uniform(1.2, 1.6)", 5000)}, o)
                  ->SerializeToString(&two));
  EXPECT_EQ(one, two);
}

TEST(CompareMonteCarlo, BadMixesAreRefusedNamingTheOption) {
  PlanRequest plain = SeedWith("constraints { power_cap_watts: 14e6 }");
  plain.set_name("plain");
  EXPECT_THAT(CompareUncertain({Seed("a", "uniform(1.0, 2.0)"), plain}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("plain: uncertain: no uncertain input, while other options have "
                                 "some")));
  EXPECT_THAT(
      CompareUncertain({Seed("a", "uniform(1.0, 2.0)"), Seed("b", "uniform(1.0, 2.0)", 10)}, {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("b: monte_carlo.samples must be the same for every option (common random "
                         "numbers), got 10 and 100000 for a")));
  PlanRequest other = Seed("c", "uniform(1.0, 2.0)");
  other.mutable_monte_carlo()->set_seed(5);
  EXPECT_THAT(CompareUncertain({Seed("a", "uniform(1.0, 2.0)"), other}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("c: monte_carlo.seed must be the same for every option")));
}

}  // namespace
}  // namespace dcplan

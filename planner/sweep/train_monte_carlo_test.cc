#include "planner/sweep/train_monte_carlo.h"

#include <cmath>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/mfu_error.h"
#include "planner/mfu_error_data.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::testing::HasSubstr;

constexpr int64_t kGpus = 64;

// Llama 3 8B on h100-dgx, with the uncertain inputs `specs`.
PlanRequest Job(std::vector<const char*> specs, uint64_t samples, bool model_error) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  *r.mutable_workload() = LoadModel("llama3-8b").value();
  for (const char* s : specs) *r.add_uncertain() = ParseUncertain(s).value();
  r.mutable_monte_carlo()->set_samples(samples);
  r.mutable_monte_carlo()->set_model_mfu_error(model_error);
  return r;
}

TEST(TrainMonteCarlo, TheFixedSplitGivesWhatASearchGives) {
  auto run = MonteCarloRun::Create(Job({"workload.train_tokens=uniform(1e12, 3e12)",
                                        "workload.reliability.gpu_mtbi_hours=uniform(2e4, 8e4)"},
                                       10, true));
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_TRUE(TrainingSplitFixed(*run));
  auto split = TrainingAtSample(*run, 0, kGpus, nullptr);
  ASSERT_THAT(split.status(), IsOk());
  for (int i = 0; i < 10; ++i) {
    auto fixed = TrainingAtSample(*run, i, kGpus, &*split);
    auto searched = TrainingAtSample(*run, i, kGpus, nullptr);
    ASSERT_THAT(fixed.status(), IsOk());
    ASSERT_THAT(searched.status(), IsOk());
    EXPECT_DOUBLE_EQ(fixed->mfu(), searched->mfu()) << i;
    EXPECT_DOUBLE_EQ(fixed->time_to_train_seconds(), searched->time_to_train_seconds()) << i;
    EXPECT_DOUBLE_EQ(fixed->goodput(), searched->goodput()) << i;
  }
  // A hardware input changes the step, so the split is searched per sample.
  auto hw = MonteCarloRun::Create(
      Job({"hardware.calibration.kernel_efficiency=uniform(0.6, 0.7)"}, 10, true));
  ASSERT_THAT(hw.status(), IsOk());
  EXPECT_FALSE(TrainingSplitFixed(*hw));
}

TEST(TrainMonteCarlo, TimeToTrainFollowsTheTokensAndTheModelError) {
  // Tokens uniform(1T, 3T): P10 1.2T, P50 2T, P90 2.8T; the time to train is proportional to the
  // tokens (the split and the goodput do not depend on them), so its P10 and P90 are 0.6x and 1.4x
  // the P50's, within 2% with 2,000 samples. Without the model's error MFU never moves.
  auto plain = SolveUncertainTraining(
      Job({"workload.train_tokens=uniform(1e12, 3e12)"}, 2000, false), kGpus, {});
  ASSERT_THAT(plain.status(), IsOk());
  const Distributions& d = plain->distribution();
  const double t50 = plain->time_to_train_seconds();
  EXPECT_NEAR(d.time_to_train_seconds().p50(), t50, 0.02 * t50);
  EXPECT_NEAR(d.time_to_train_seconds().p10(), 0.6 * t50, 0.02 * t50);
  EXPECT_NEAR(d.time_to_train_seconds().p90(), 1.4 * t50, 0.02 * t50);
  EXPECT_EQ(d.mfu().min(), d.mfu().max());
  EXPECT_EQ(d.mfu_error_sigma(), 0.0);
  EXPECT_FALSE(d.has_gpu_count());
  // With it (H100: its own runs), MFU's P10 and P90 are the plan's times exp(-+1.2816 sigma), the
  // plan's own mfu_interval, within 2%.
  auto honest = SolveUncertainTraining(
      Job({"workload.train_tokens=uniform(1e12, 3e12)"}, 2000, true), kGpus, {});
  ASSERT_THAT(honest.status(), IsOk());
  const double m = honest->mfu();
  EXPECT_NEAR(honest->distribution().mfu().p10(), m * std::exp(-kZ90 * kMfuErrorSigmaH100),
              0.02 * m);
  EXPECT_NEAR(honest->distribution().mfu().p90(), m * std::exp(kZ90 * kMfuErrorSigmaH100),
              0.02 * m);
  EXPECT_NEAR(honest->mfu_interval().p10(), m * std::exp(-kZ90 * kMfuErrorSigmaH100), 1e-12);
  EXPECT_THAT(honest->distribution().mfu_error_basis(), HasSubstr("H100"));
  // The time to train spreads wider than the tokens alone make it.
  EXPECT_GT(honest->distribution().time_to_train_seconds().p90() -
                honest->distribution().time_to_train_seconds().p10(),
            d.time_to_train_seconds().p90() - d.time_to_train_seconds().p10());
}

TEST(TrainMonteCarlo, TheSameOnAnyThreadCount) {
  const PlanRequest r = Job({"workload.train_tokens=uniform(1e12, 3e12)"}, 300, true);
  auto run = MonteCarloRun::Create(r);
  ASSERT_THAT(run.status(), IsOk());
  MonteCarloOptions one, two;
  one.threads = 1;
  two.threads = 2;
  auto a = SummarizeTraining(*run, kGpus, one);
  auto b = SummarizeTraining(*run, kGpus, two);
  ASSERT_THAT(a.status(), IsOk());
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_EQ(a->SerializeAsString(), b->SerializeAsString());
}

}  // namespace
}  // namespace dcplan

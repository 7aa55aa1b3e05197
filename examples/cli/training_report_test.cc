// TrainingTable on a training plan written by hand (until now only tests/train_cli_test.sh saw it).
#include "examples/cli/training_report.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/training.pb.h"

namespace dcplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 16,384 GPUs as tp 8 x pp 16 x dp 128 (8 x 16 x 128 = 16,384). A 10 s step: compute 6 s (60%),
// bubble 2.5 s (25%), tensor parallel 1 s (10%), optimizer 0.5 s (5%). Realized compute
// 16,384 x 989 TFLOP/s x MFU 0.4 = 6.4815e18 FLOP/s = 6.48 EFLOP/s.
TrainingPlan Plan405b() {
  TrainingPlan t;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        workload: "llama3-405b"
        gpu_count: 16384
        tp: 8
        cp: 1
        pp: 16
        dp: 128
        micro_batch: 1
        virtual_stages: 1
        recompute: RECOMPUTE_NONE
        searched: true
        configurations_evaluated: 27227
        mfu: 0.4
        hfu: 0.45
        realized_flops_per_second: 6.48151e18
        step_time_seconds: 10
        global_batch_sequences: 2048
        micro_batches: 16
        goodput: 0.9
        effective_mfu: 0.36
        breakdown {
          compute_seconds: 6
          pipeline_bubble_seconds: 2.5
          tensor_parallel_seconds: 1
          optimizer_seconds: 0.5
        }
        memory { total_bytes: 60e9 usable_bytes: 76e9 weights_bytes: 12e9 }
        tokens_per_second: 1677721.6
      )pb",
      &t));
  return t;
}

TEST(TrainingTable, ShowsTheSplitTheEfficiencyAndWhereTheStepGoes) {
  const std::string s = TrainingTable(Plan405b());
  EXPECT_THAT(s, HasSubstr("training: llama3-405b on 16,384 GPUs\n"));
  EXPECT_THAT(s, HasSubstr("tp 8 x cp 1 x pp 16 x dp 128, micro-batch 1, 1 virtual stage(s), "
                           "recompute none (best of 27,227 searched)\n"));
  EXPECT_THAT(s, HasSubstr("  MFU           40.0% (HFU 45.0%), 6.48 EFLOP/s realized\n"));
  EXPECT_THAT(s, HasSubstr("goodput       90.0% of wall time (effective MFU 36.0%)"));
  EXPECT_THAT(s, HasSubstr("    compute          6.00 s (60.0%)\n"));
  EXPECT_THAT(s, HasSubstr("    pipeline bubble  2.50 s (25.0%)\n"));
  EXPECT_THAT(s, HasSubstr("    tensor parallel  1.00 s (10.0%)\n"));
  EXPECT_THAT(s, HasSubstr("    optimizer        500.00 ms (5.0%)\n"));
  EXPECT_THAT(s, HasSubstr("  memory/GPU    60.0 GB of 76.0 GB usable (weights 12.0 GB"));
  // 2,048 sequences of 8,192 tokens in 10 s: 1,677,721.6 tokens/s, rounded.
  EXPECT_THAT(s, HasSubstr("  throughput    1,677,722 tokens/s\n"));
}

TEST(TrainingTable, LeavesOutWhatThePlanDoesNotHave) {
  const std::string s = TrainingTable(Plan405b());
  EXPECT_THAT(s, Not(HasSubstr("context parallel")));  // cp 1
  EXPECT_THAT(s, Not(HasSubstr("time to train")));     // no train_tokens
  EXPECT_THAT(s, Not(HasSubstr("too large")));
  EXPECT_THAT(s, Not(HasSubstr("idle")));
}

TEST(TrainingTable, SaysWhenTheClusterIsLargerThanTheJobCanUse) {
  TrainingPlan t = Plan405b();
  t.set_largest_useful_gpus(8192);
  t.set_largest_useful_reason("dp is at most the global batch");
  EXPECT_THAT(TrainingTable(t),
              HasSubstr("  too large     the job can use at most 8,192 GPUs: dp is at most the "
                        "global batch\n"));
}

TEST(TrainingTable, NamesPartialRecomputeAndFixedSplits) {
  TrainingPlan t = Plan405b();
  t.set_recompute(RECOMPUTE_PARTIAL);
  t.set_recomputed_layers(3);
  t.set_searched(false);
  EXPECT_THAT(TrainingTable(t), HasSubstr("recompute partial (3 layers per stage) (as given)\n"));
}

}  // namespace
}  // namespace dcplan::cli

// Tests of the measured-run reader, the FLOP-convention conversion and the fit.
#include "planner/workload/calibration.h"

#include <cmath>
#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

Workload Gpt(int layers, int hidden, int heads, int seq, int vocab) {
  Workload w;
  w.set_layers(layers);
  w.set_hidden(hidden);
  w.set_heads(heads);
  w.set_seq_len(seq);
  w.set_vocab(vocab);
  w.set_global_batch_sequences(1);
  return w;
}

TEST(ModelOverMegatronRecomputeFlops, MatchesTheHandRatio) {
  // 1T (l 128, h 25600, s 2048, V 51200): 72 (1 + 0.0133333 + 0.0013021) / (96 (1 + 0.0133333 +
  // 0.0009766)) = 73.0537 / 97.3738 = 0.75024.
  EXPECT_NEAR(ModelOverMegatronRecomputeFlops(Gpt(128, 25600, 160, 2048, 51200)), 0.75024, 1e-5);
  // 1.7B (l 24, h 2304): 72 (1 + 0.148148 + 0.077160) / (96 (1 + 0.148148 + 0.057870)) = 0.76200.
  EXPECT_NEAR(ModelOverMegatronRecomputeFlops(Gpt(24, 2304, 24, 2048, 51200)), 0.76200, 1e-5);
}

TEST(PublishedMfu, ConvertsTheRecomputeConvention) {
  // "163 TF/GPU = 52%" of the 312 TF/s peak for the 1T model is 163 x 0.75024 / 312 = 39.20% MFU.
  const auto mfu =
      PublishedMfu(163e12, "megatron_recompute", Gpt(128, 25600, 160, 2048, 51200), 312e12);
  ASSERT_THAT(mfu.status(), IsOk());
  EXPECT_NEAR(*mfu, 0.39196, 1e-5);
  EXPECT_DOUBLE_EQ(PublishedMfu(156e12, "model", Gpt(1, 64, 1, 64, 1), 312e12).value(), 0.5);
  EXPECT_THAT(PublishedMfu(1, "hardware", Gpt(1, 64, 1, 64, 1), 1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("flops_convention")));
}

constexpr char kRunsCsv[] =
    "# a comment\n"
    "source,gpu,peak_tflops,gpus,params_b,layers,hidden,heads,seq_len,vocab,global_batch,tp,pp,dp,"
    "interconnect,tflops_per_gpu,flops_convention\n"
    "paper,A100,312,64,3.6,30,3072,32,2048,51200,512,2,1,32,8x200Gb/s; NVLink,138,"
    "megatron_recompute\n";
constexpr char kSetupCsv[] =
    "source,gpus,micro_batch,virtual_stages,recompute,flash_attention,sequence_parallel,"
    "distributed_optimizer,overlap_gradient_sync,pipeline_scatter_gather,balance_pipeline_stages,"
    "precision_bytes,gradient_bytes,hbm_bytes,hbm_bytes_per_second,scale_up_gpus,"
    "scale_up_bytes_per_second,scale_out_bits_per_second_per_gpu,software,kv_heads,ffn_hidden,"
    "gated_mlp,cp,compute_units\n"
    "paper,64,16,1,full,false,false,false,true,true,false,2,2,80e9,2.0e12,8,300e9,200e9,"
    "megatron_2021,0,0,false,1,108\n";

TEST(ParseMeasuredRuns, JoinsTheRunAndItsSetup) {
  const auto runs = ParseMeasuredRuns(kRunsCsv, kSetupCsv);
  ASSERT_THAT(runs.status(), IsOk());
  ASSERT_EQ(runs->size(), 1u);
  const MeasuredRun& r = (*runs)[0];
  EXPECT_EQ(r.source, "paper");
  EXPECT_EQ(r.gpus, 64);
  EXPECT_EQ(r.interconnect, "8x200Gb/s; NVLink");
  EXPECT_EQ(r.workload.layers(), 30u);
  EXPECT_EQ(r.workload.parallelism().tp(), 2u);
  EXPECT_EQ(r.workload.parallelism().dp(), 32u);
  EXPECT_EQ(r.workload.parallelism().micro_batch(), 16u);
  EXPECT_EQ(r.workload.parallelism().recompute(), RECOMPUTE_FULL);
  EXPECT_EQ(r.workload.parallelism().cp(), 1u);
  EXPECT_EQ(r.workload.framework().generation(), SOFTWARE_MEGATRON_2021);
  EXPECT_EQ(r.compute_units, 108u);
  EXPECT_FALSE(r.workload.framework().flash_attention());
  EXPECT_DOUBLE_EQ(r.hardware.accelerator().peak_flops_per_second(), 312e12);
  EXPECT_DOUBLE_EQ(r.hardware.network().port_bits_per_second(), 200e9);
  EXPECT_NEAR(r.published_mfu, 138e12 * ModelOverMegatronRecomputeFlops(r.workload) / 312e12,
              1e-12);
  // And the model can predict it.
  EXPECT_THAT(PredictRun(r, EfficiencyCalibration()).status(), IsOk());
}

TEST(ParseMeasuredRuns, ExplainsBadInput) {
  EXPECT_THAT(ParseMeasuredRuns(kRunsCsv, "source,gpus\n").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no setup row for paper")));
  std::string bad = kRunsCsv;
  bad.replace(bad.find(",138,"), 5, ",lots,");
  EXPECT_THAT(ParseMeasuredRuns(bad, kSetupCsv).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 3, column tflops_per_gpu: expected a number")));
  EXPECT_THAT(
      ParseMeasuredRuns("source,gpus\npaper\n", kSetupCsv).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 fields, the header has 2")));
  EXPECT_THAT(ReadMeasuredRuns("/nonexistent/runs.csv", "/nonexistent/setup.csv").status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot read")));
}

TEST(MinimizeInBox, FindsTheMinimumAndKeepsToTheBox) {
  // (x - 0.3)^2 + (y - 2)^2 over [-1, 1]^2: the minimum is at x = 0.3 and the bound y = 1.
  const auto f = [](const std::vector<double>& v) {
    return (v[0] - 0.3) * (v[0] - 0.3) + (v[1] - 2) * (v[1] - 2);
  };
  const std::vector<double> x = MinimizeInBox(f, {0, 0}, {0.1, 0.1}, {-1, -1}, {1, 1}, 500);
  EXPECT_NEAR(x[0], 0.3, 1e-4);
  EXPECT_DOUBLE_EQ(x[1], 1.0);
}

TEST(FitCalibration, RecoversRunsMadeWithAKnownCalibration) {
  // Four runs whose "published" MFU is the model's own under a known calibration: the fit must find
  // constants that reproduce them (to well under 0.1 points).
  EfficiencyCalibration truth;
  truth.set_kernel_efficiency(0.7);
  truth.set_scale_up_bandwidth_efficiency(0.8);
  truth.set_scale_out_bandwidth_efficiency(0.7);
  truth.set_memory_bound_factor(1.2);
  std::vector<MeasuredRun> runs = ParseMeasuredRuns(kRunsCsv, kSetupCsv).value();
  const MeasuredRun base = runs[0];
  runs.clear();
  for (const char* change :
       {"parallelism { tp: 1 dp: 64 micro_batch: 2 }", "parallelism { tp: 2 dp: 32 }",
        "parallelism { tp: 8 dp: 8 micro_batch: 4 }",
        "parallelism { tp: 4 pp: 2 dp: 8 micro_batch: 2 }"}) {
    MeasuredRun r = base;
    ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(change, &r.workload));
    r.published_mfu = units::InFraction(PredictRun(r, truth).value().mfu);
    runs.push_back(r);
  }
  const auto fit = FitCalibration(runs, EfficiencyCalibration());
  ASSERT_THAT(fit.status(), IsOk());
  EXPECT_LT(fit->rms_points, 0.1);
  EXPECT_EQ(fit->error_points.size(), 4u);
  // Left out one at a time, each run is still predicted by the fit to the other three (the model
  // made them), and every fold's constants are recorded.
  const auto loo = LeaveOneOut(runs, EfficiencyCalibration());
  ASSERT_THAT(loo.status(), IsOk());
  EXPECT_EQ(loo->folds.size(), 4u);
  EXPECT_LT(loo->max_abs_points, 0.5);
  // Held constants stay where the bounds hold them.
  const auto held = FitCalibration(runs, EfficiencyCalibration(), BoundsForGpu("H100-SXM5"));
  ASSERT_THAT(held.status(), IsOk());
  EXPECT_DOUBLE_EQ(held->calibration.scale_up_bandwidth_efficiency(), 0.8);
  EXPECT_DOUBLE_EQ(held->calibration.scale_out_bandwidth_efficiency(), 0.8);
  // The knee never passes the HBM ridge point: 312e12 / 2e12 = 156 FLOP/B here.
  EXPECT_LE(fit->calibration.gemm_knee_flops_per_byte(), 156.0);
}

}  // namespace
}  // namespace dcplan

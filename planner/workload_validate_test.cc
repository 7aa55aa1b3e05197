// Tests of the Workload and EfficiencyCalibration validator: each requirement in
// proto/workload.proto gives an error naming the field and the value; a request with a workload is
// checked through ValidateRequest.
#include "planner/workload/workload_validate.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/test_requests.h"
#include "planner/validate.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kValid[] = R"pb(
  layers: 126
  hidden: 16384
  heads: 128
  vocab: 128256
  seq_len: 8192
  global_batch_tokens: 16000000
)pb";

Workload With(const std::string& extra) {
  Workload w;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kValid, &w));
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(extra, &w)) << extra;
  return w;
}

absl::Status Check(const std::string& extra) { return ValidateWorkload(With(extra), "workload"); }

TEST(ValidateWorkload, AcceptsAValidWorkload) {
  EXPECT_THAT(Check(""), IsOk());
  EXPECT_THAT(
      Check("kv_heads: 8 ffn_hidden: 53248 gated_mlp: true params: 405e9 train_tokens: 15e12 "
            "parallelism { tp: 8 pp: 16 dp: 64 micro_batch: 1 virtual_stages: 7 "
            "recompute: RECOMPUTE_FULL }"),
      IsOk());
}

TEST(ValidateWorkload, NamesTheFieldAndValue) {
  EXPECT_THAT(Check("hidden: 16385"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.hidden 16385 must be divisible by workload.heads (128)"));
  EXPECT_THAT(Check("layers: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, "workload is missing layers"));
  EXPECT_THAT(Check("heads: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, "workload is missing heads"));
  EXPECT_THAT(Check("kv_heads: 3"), StatusIs(absl::StatusCode::kFailedPrecondition,
                                             HasSubstr("workload.kv_heads 3 must divide")));
  EXPECT_THAT(Check("vocab: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, "workload is missing vocab"));
  EXPECT_THAT(Check("seq_len: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, "workload is missing seq_len"));
  EXPECT_THAT(Check("layers: 100001"), StatusIs(absl::StatusCode::kOutOfRange,
                                                "workload.layers must be <= 100000, got 100001"));
}

TEST(ValidateWorkload, ListsEveryMissingRequiredFieldAtOnce) {
  // An empty workload lacks all six, listed in field order in one error.
  EXPECT_THAT(ValidateWorkload(Workload(), "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload is missing layers, hidden, heads, vocab, seq_len and a global "
                       "batch (global_batch_tokens or global_batch_sequences)"));
  // Two missing: joined with "and"; the path prefixes the message.
  Workload w = With("");
  w.clear_hidden();
  w.clear_global_batch_tokens();
  EXPECT_THAT(ValidateWorkload(w, "request.workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "request.workload is missing hidden and a global batch "
                       "(global_batch_tokens or global_batch_sequences)"));
  // Either batch field is enough.
  w = With("");
  w.clear_global_batch_tokens();
  w.set_global_batch_sequences(2048);
  EXPECT_THAT(ValidateWorkload(w, "workload"), IsOk());
}

TEST(ValidateWorkload, AcceptsAMixtureOfExperts) {
  // Mixtral 8x22B's routing: 8 experts, 2 per token; DeepSeek-V3's: 256 routed, 8 per token, 1
  // shared, 3 dense layers; with expert parallelism 8 dividing the experts.
  EXPECT_THAT(Check("name: \"mixtral-8x22b\" moe { experts: 8 experts_per_token: 2 }"), IsOk());
  EXPECT_THAT(Check("moe { experts: 256 experts_per_token: 8 shared_experts: 1 dense_layers: 3 } "
                    "parallelism { ep: 8 }"),
              IsOk());
}

TEST(ValidateWorkload, ChecksTheMixtureOfExpertsModellingFields) {
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 load_imbalance: 0.9 }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.moe.load_imbalance must be in [1, 100], got 0.9"));
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 active_params: nan }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.moe.active_params must be finite, got nan"));
  EXPECT_THAT(Check("params: 141e9 moe { experts: 8 experts_per_token: 2 active_params: 200e9 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.moe.active_params 2e+11 must be <= workload.params (1.41e+11): "
                       "the active parameters are part of the total"));
  // The fixture's output layer: 128,256 x 16,384 = 2,101,346,304.
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 active_params: 1e9 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("workload.moe.active_params 1e+09 must be more than the output "
                                 "layer alone")));
  EXPECT_THAT(Check("parallelism { ep: 2 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.parallelism.ep 2 needs a mixture of experts (workload.moe): a "
                       "dense model has no experts to split"));
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 } parallelism { ep: 3 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.parallelism.ep 3 must divide workload.moe.experts (8)"));
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 } parallelism { ep: 2000000 }"),
              StatusIs(absl::StatusCode::kOutOfRange,
                       "workload.parallelism.ep must be <= 1000000, got 2000000"));
}

TEST(ValidateWorkload, ChecksTheMixtureOfExpertsFields) {
  // An empty moe message counts as set and lacks its experts.
  EXPECT_THAT(Check("moe {}"), StatusIs(absl::StatusCode::kInvalidArgument,
                                        "workload.moe.experts must be >= 2, got 0"));
  EXPECT_THAT(Check("moe { experts: 8 }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.moe.experts_per_token must be >= 1, got 0"));
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 9 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.moe.experts_per_token 9 must be <= workload.moe.experts (8)"));
  // The fixture has 126 layers: 126 dense layers would leave no MoE layer.
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2 dense_layers: 126 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.moe.dense_layers 126 must be < workload.layers (126)"));
  // Each field's own limit first, naming it.
  EXPECT_THAT(Check("moe { experts: 8 experts_per_token: 2000000 }"),
              StatusIs(absl::StatusCode::kOutOfRange,
                       "workload.moe.experts_per_token must be <= 1000000, got 2000000"));
}

TEST(ValidateWorkload, ChecksParams) {
  EXPECT_THAT(Check("params: -1"), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("workload.params must be in")));
  EXPECT_THAT(Check("params: nan"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "workload.params must be finite, got nan"));
  // The output layer alone is 128256 x 16384 = 2.1e9 parameters.
  EXPECT_THAT(Check("params: 1e9"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("must be more than the output layer alone")));
}

TEST(ValidateWorkload, NeedsExactlyOneBatchSize) {
  EXPECT_THAT(Check("global_batch_sequences: 2048"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got both")));
  Workload w = With("");
  w.clear_global_batch_tokens();
  EXPECT_THAT(ValidateWorkload(w, "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload is missing a global batch (global_batch_tokens or "
                       "global_batch_sequences)"));
  EXPECT_THAT(Check("global_batch_tokens: 1000000000001"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("global_batch_tokens")));
}

TEST(ValidateWorkload, ChecksPrecisionAndTrainTokens) {
  EXPECT_THAT(
      Check("precision_bytes: 0"),
      StatusIs(absl::StatusCode::kInvalidArgument, "workload.precision_bytes must be >= 1, got 0"));
  EXPECT_THAT(Check("gradient_bytes: 9"), StatusIs(absl::StatusCode::kOutOfRange,
                                                   "workload.gradient_bytes must be <= 8, got 9"));
  EXPECT_THAT(Check("train_tokens: -1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("workload.train_tokens must be in [0, 1e+18]")));
}

TEST(ValidateWorkload, ChecksTheReliabilityAndGeneration) {
  EXPECT_THAT(Check("reliability { gpu_mtbi_hours: 0 }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.reliability.gpu_mtbi_hours must be in (0, 1e+09], got 0"));
  EXPECT_THAT(Check("reliability { server_mtbi_hours: -5 }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.reliability.server_mtbi_hours must be in (0, 1e+09], got -5"));
  EXPECT_THAT(
      Check("reliability { checkpoint_write_bytes_per_second: 0 }"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "workload.reliability.checkpoint_write_bytes_per_second must be in (0, 1e+15], got 0"));
  EXPECT_THAT(
      Check("reliability { checkpoint_bytes_per_param: 65 }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "workload.reliability.checkpoint_bytes_per_param must be in (0, 64], got 65"));
  EXPECT_THAT(Check("reliability { restart_seconds: -1 }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.reliability.restart_seconds must be in [0, 1e+06], got -1"));
  EXPECT_THAT(
      Check("reliability { checkpoint_interval_seconds: 1e9 }"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "workload.reliability.checkpoint_interval_seconds must be in [0, 1e+08], got 1e+09"));
  EXPECT_THAT(Check("reliability { gpu_mtbi_hours: 50000 restart_seconds: 0 }"), IsOk());
  Workload w = With("");
  w.mutable_framework()->set_generation(static_cast<SoftwareGeneration>(9));
  EXPECT_THAT(
      ValidateWorkload(w, "workload"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "workload.framework.generation must be a known SoftwareGeneration value, got 9"));
}

TEST(ValidateWorkload, ChecksTheParallelism) {
  EXPECT_THAT(Check("parallelism { tp: 3 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("workload.parallelism.tp 3 must divide workload.heads (128)")));
  EXPECT_THAT(Check("parallelism { pp: 127 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.parallelism.pp 127 must be <= workload.layers (126)"));
  // Llama 3's split: 16 x 8 = 128 chunks for 126 layers (the first and last one short) is allowed;
  // one more chunk per stage is not.
  EXPECT_THAT(Check("parallelism { pp: 16 virtual_stages: 8 }"), IsOk());
  EXPECT_THAT(Check("parallelism { pp: 16 virtual_stages: 9 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("workload.parallelism.virtual_stages 9 x pp 16 must be <= "
                                 "workload.layers (126) + 2")));
  EXPECT_THAT(Check("parallelism { pp: 2 virtual_stages: 64 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("virtual_stages 64 x pp 2 must be <= workload.layers (126):")));
  EXPECT_THAT(Check("parallelism { cp: 3 }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.parallelism.cp 3 must divide workload.seq_len (8192)"));
  EXPECT_THAT(
      Check("parallelism { cp: 2048 }"),
      StatusIs(absl::StatusCode::kOutOfRange, "workload.parallelism.cp must be <= 1024, got 2048"));
  EXPECT_THAT(Check("framework { generation: SOFTWARE_MEGATRON_2021 } "
                    "parallelism { recompute: RECOMPUTE_SELECTIVE }"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("workload.parallelism.recompute RECOMPUTE_SELECTIVE needs "
                                 "workload.framework.generation SOFTWARE_MEGATRON_2022 or later")));
  Workload w = With("");
  w.mutable_parallelism()->set_recompute(static_cast<Recompute>(7));
  EXPECT_THAT(ValidateWorkload(w, "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.parallelism.recompute must be a known Recompute value, got 7"));
}

TEST(ValidateCalibration, ChecksEveryField) {
  auto check = [](const std::string& text) {
    EfficiencyCalibration c;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &c)) << text;
    return ValidateCalibration(c, "hardware.calibration");
  };
  EXPECT_THAT(check(""), IsOk());
  EXPECT_THAT(check("gemm_knee_flops_per_byte: -1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "hardware.calibration.gemm_knee_flops_per_byte must be in [0, 100000], "
                       "got -1"));
  EXPECT_THAT(check("compute_units: 100001"),
              StatusIs(absl::StatusCode::kOutOfRange,
                       "hardware.calibration.compute_units must be <= 100000, got 100001"));
  EXPECT_THAT(check("kernel_overhead_seconds: 2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "hardware.calibration.kernel_overhead_seconds must be in [0, 1], got 2"));
  EXPECT_THAT(check("attention_efficiency: 1.5"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "hardware.calibration.attention_efficiency must be in [0, 1], got 1.5"));
  EXPECT_THAT(check("attention_efficiency: 0"), IsOk());  // 0 = the multiplies' curve
  EXPECT_THAT(check("kernel_efficiency: 1.2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "hardware.calibration.kernel_efficiency must be in (0, 1], got 1.2"));
  EXPECT_THAT(check("kernel_efficiency: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be in (0, 1]")));
  EXPECT_THAT(check("scale_out_bandwidth_efficiency: inf"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be finite, got inf")));
  EXPECT_THAT(check("memory_bound_factor: 101"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("memory_bound_factor")));
  EXPECT_THAT(check("gradient_sync_overlap: 0"), IsOk());  // [0, 1]: no overlap is fine
  EXPECT_THAT(check("scale_up_latency_seconds: -1e-6"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("scale_up_latency_seconds")));
  EXPECT_THAT(check("hbm_usable_fraction: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hbm_usable_fraction")));
}

TEST(ValidateRequest, ChecksTheWorkloadAndTheHardwareItNeeds) {
  // The seed's toy hardware says nothing about HBM: a workload cannot be planned on it.
  PlanRequest seed = testing::SeedWith(absl::StrCat("workload {", kValid, "}"));
  EXPECT_THAT(ValidateRequest(seed),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("a workload needs hardware.accelerator.hbm_bytes")));
  PlanRequest h100 = testing::H100With(absl::StrCat(
      "hardware { accelerator { hbm_bytes: 80e9 hbm_bandwidth_bytes_per_second: 3.35e12 } "
      "network { scale_up_bandwidth_bytes_per_second: 450e9 } } workload {",
      kValid, "}"));
  EXPECT_THAT(ValidateRequest(h100), IsOk());
  h100.mutable_workload()->set_hidden(100);
  EXPECT_THAT(ValidateRequest(h100), StatusIs(absl::StatusCode::kFailedPrecondition,
                                              HasSubstr("workload.hidden 100 must be divisible")));
  h100.mutable_workload()->set_hidden(16384);
  h100.mutable_hardware()->mutable_calibration()->set_kernel_efficiency(2);
  EXPECT_THAT(ValidateRequest(h100),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hardware.calibration.kernel_efficiency must be in (0, 1]")));
}

TEST(ValidateWorkload, ChecksBlockAndPrecisionEnumsAndTheFp8Peak) {
  EXPECT_THAT(Check("block { style: BLOCK_STYLE_LLAMA norm: NORM_LAYER_NORM rotary: false } "
                    "precision: TRAINING_PRECISION_FP8 fp8 { current_scaling: true }"),
              IsOk());
  Workload w = With("");
  w.mutable_block()->set_style(static_cast<BlockStyle>(9));
  EXPECT_THAT(ValidateWorkload(w, "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.block.style must be a known BlockStyle value, got 9"));
  w = With("");
  w.set_precision(static_cast<TrainingPrecision>(7));
  EXPECT_THAT(ValidateWorkload(w, "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload.precision must be a known TrainingPrecision value, got 7"));
  // FP8 multiplies need the accelerator's FP8 peak.
  Hardware h;
  EXPECT_THAT(ValidatePrecisionOnHardware(With("precision: TRAINING_PRECISION_FP8"), h, "workload",
                                          "hardware"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "workload.precision FP8 needs "
                       "hardware.accelerator.peak_fp8_flops_per_second > 0, got 0 (unknown)"));
  h.mutable_accelerator()->set_peak_fp8_flops_per_second(1979e12);
  EXPECT_THAT(ValidatePrecisionOnHardware(With("precision: TRAINING_PRECISION_FP8"), h, "workload",
                                          "hardware"),
              IsOk());
  EXPECT_THAT(ValidatePrecisionOnHardware(With(""), Hardware(), "workload", "hardware"), IsOk());
  // The FP8 multiplies' speedup over BF16: [1, 4], finite, named by path.
  EXPECT_THAT(Check("fp8 { gemm_speedup_over_bf16: 1.75 }"), IsOk());
  EXPECT_THAT(
      Check("fp8 { gemm_speedup_over_bf16: 0.5 }"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("workload.fp8.gemm_speedup_over_bf16 must be in [1, 4], got 0.5")));
  EXPECT_THAT(Check("fp8 { gemm_speedup_over_bf16: inf }"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("workload.fp8.gemm_speedup_over_bf16")));
}

}  // namespace
}  // namespace dcplan

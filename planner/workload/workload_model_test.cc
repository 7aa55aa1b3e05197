// Tests of the step-time model against figures worked out by hand (derivations in the comments) and
// published parameter counts.
#include "planner/workload/workload_model.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {
namespace {

using units::InBytes;
using units::InFraction;
using units::InSeconds;

template <typename T>
T Parse(const std::string& text) {
  T message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

// A toy workload with round numbers: one layer, h = 1000 (10 heads), f = 4000, V = 1000, s = 1000,
// one sequence per step. P_L = 4 h^2 + 2 h f = 4e6 + 8e6 = 12e6; N = P_L + V h = 13e6.
constexpr char kToy[] = R"pb(
  name: "toy"
  layers: 1
  hidden: 1000
  heads: 10
  vocab: 1000
  seq_len: 1000
  global_batch_sequences: 1
  gradient_bytes: 4
  framework { overlap_tensor_parallel: false overlap_pipeline_sends: false }
)pb";

// Round hardware: 1 PFLOP/s at 50% kernel efficiency for every multiply (knee 0, no wave
// quantization, no per-kernel overhead), 1 TB/s HBM at factor 1, 100 GB/s links with
// no latency, 80 GB HBM, all usable.
constexpr char kToyHardware[] = R"pb(
  accelerator { peak_flops_per_second: 1e15 hbm_bytes: 80e9 hbm_bandwidth_bytes_per_second: 1e12 }
  server { gpus_per_server: 8 }
  network {
    scale_up_domain_gpus: 8
    scale_up_bandwidth_bytes_per_second: 100e9
    nics_per_gpu: 1
    port_bits_per_second: 800e9
    switch_radix: 64
  }
  calibration {
    kernel_efficiency: 0.5
    scale_up_bandwidth_efficiency: 1
    scale_out_bandwidth_efficiency: 1
    memory_bound_factor: 1
    gradient_sync_overlap: 0
    scale_up_latency_seconds: 0
    scale_out_latency_seconds: 0
    hbm_usable_fraction: 1
    gemm_knee_flops_per_byte: 0
    kernel_overhead_seconds: 0
  }
)pb";

// kToy with `extra` merged over it (its fields replace kToy's).
WorkloadModel Toy(const std::string& extra = "") {
  Workload w = Parse<Workload>(kToy);
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(extra, &w)) << extra;
  return BuildWorkloadModel(w).value();
}

TrainingHardware ToyHardware() { return BuildTrainingHardware(Parse<Hardware>(kToyHardware)); }

ParallelConfig Config(int64_t tp, int64_t pp, int64_t dp, int64_t b = 1, int64_t v = 1,
                      Recompute r = RECOMPUTE_NONE) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.micro_batch = b;
  c.virtual_stages = v;
  c.recompute = r;
  return c;
}

TEST(ParamsFromShape, ReproducesGpt3Count) {
  // GPT-3 175B: 96 layers, h = 12288, 96 heads, V = 50257: 12 l h^2 + V h = 173.95e9 + 0.62e9 =
  // 174.6e9, the "175B" of Brown et al. 2020.
  const Workload w = Parse<Workload>(
      "layers: 96 hidden: 12288 heads: 96 vocab: 50257 seq_len: 2048 global_batch_sequences: 1");
  EXPECT_NEAR(ParamsFromShape(w), 174.57e9, 0.01e9);
}

TEST(ParamsFromShape, CountsGroupedQueryAttentionAndGatedMlp) {
  // Llama 3 405B: 126 layers, h = 16384, 128 heads of which 8 key/value, SwiGLU f = 53248, V =
  // 128256. Per layer: 2 h^2 (q, o) + 2 h (h 8/128) (k, v) + 3 h f = 536.9e6 + 33.6e6 + 2617.2e6 =
  // 3187.7e6; x 126 = 401.65e9, + V h = 2.10e9: 403.75e9. Meta's 405B also counts the input
  // embedding (2.1e9).
  const Workload w = Parse<Workload>(
      "layers: 126 hidden: 16384 heads: 128 kv_heads: 8 ffn_hidden: 53248 gated_mlp: true "
      "vocab: 128256 seq_len: 8192 global_batch_sequences: 1");
  EXPECT_NEAR(LayerParamsFromShape(w), 3187.67e6, 0.01e6);
  EXPECT_NEAR(ParamsFromShape(w), 403.75e9, 0.01e9);
}

TEST(WorkloadModel, ModelFlopsFollowThePalmConvention) {
  // 6 N + 12 l s h per token. For a GPT shape (N = 12 l h^2 + V h) that is Megatron's model-FLOP
  // formula 72 l h^2 (1 + s/(6h) + V/(12 l h)); for the 1T model of Narayanan et al. (l 128, h
  // 25600, s 2048, V 51200): 72 x 128 x 25600^2 = 6.0398e12, x (1 + 0.013333 + 0.0013021)
  // = 6.1282e12 per token.
  const WorkloadModel w =
      BuildWorkloadModel(
          Parse<Workload>("layers: 128 hidden: 25600 heads: 160 vocab: 51200 seq_len: 2048 "
                          "global_batch_sequences: 3072"))
          .value();
  EXPECT_NEAR(units::InFlops(w.model_flops_per_token), 6.1282e12, 0.0001e12);
}

TEST(WorkloadModel, GivenParamsSetTheFlopsAndTheLayerSize) {
  // params 20e6 with V h = 1e6: each of the 1 layer's matrices hold 19e6; FLOPs 6 x 20e6 + 12 x 1 x
  // 1000 x 1000 = 132e6 per token.
  const WorkloadModel w = Toy("params: 20e6");
  EXPECT_DOUBLE_EQ(w.layer_params, 19e6);
  EXPECT_DOUBLE_EQ(units::InFlops(w.model_flops_per_token), 132e6);
}

TEST(WorkloadModel, BatchInTokensRoundsUpToWholeSequences) {
  // 16M tokens of 8192: 1953.125 sequences -> 1954.
  const WorkloadModel w =
      BuildWorkloadModel(
          Parse<Workload>(
              "layers: 1 hidden: 64 heads: 1 vocab: 1 seq_len: 8192 global_batch_tokens: 16000000"))
          .value();
  EXPECT_EQ(w.global_batch, 1954);
}

TEST(EstimateStep, OneGpuStepIsComputePlusMemoryPlusOptimizer) {
  const StepEstimate e = EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 1);
  ASSERT_TRUE(e.Feasible());
  // Compute: per token forward 2 P_L = 24e6 plus attention 4 s h = 4e6, of which FlashAttention
  // runs the causal half (2e6), x 3 passes, x 1000 tokens = 7.8e10; the output layer 3 x 2 V h x
  // 1000 = 6e9. 8.4e10 FLOP at 0.5 x 1e15 = 1.68e-4 s.
  EXPECT_NEAR(InSeconds(e.compute), 1.68e-4, 1e-12);
  // Memory-bound: (10 h + 2 f + 6 h) = 24,000 elements a token forward, x 3 passes, x 1000 tokens x
  // 2 bytes = 1.44e8 bytes; the logits 16 V = 16,000 bytes a token = 1.6e7. 1.6e8 bytes at 1 TB/s.
  EXPECT_NEAR(InSeconds(e.memory_bound), 1.6e-4, 1e-12);
  // Adam: 13e6 parameters x (4 gradient + 24 + 2) bytes = 3.9e8 bytes at 1 TB/s.
  EXPECT_NEAR(InSeconds(e.optimizer), 3.9e-4, 1e-12);
  EXPECT_EQ(InSeconds(e.tensor_parallel), 0.0);
  EXPECT_EQ(InSeconds(e.pipeline_bubble), 0.0);
  EXPECT_EQ(InSeconds(e.data_parallel), 0.0);
  EXPECT_NEAR(InSeconds(e.step), 7.18e-4, 1e-12);
  // MFU: 1000 tokens x (6 x 13e6 + 12 x 1000 x 1000) = 9e10 FLOP (the PaLM count: attention
  // non-causal) in 7.18e-4 s on 1 PFLOP/s.
  EXPECT_NEAR(InFraction(e.mfu), 9e10 / 7.18e-4 / 1e15, 1e-12);
  EXPECT_NEAR(InFraction(e.hfu), InFraction(e.mfu), 1e-15);  // nothing recomputed
}

TEST(EstimateStep, MemoryCountsWeightsGradientsOptimizerAndActivations) {
  const StepEstimate e = EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 1);
  // 13e6 parameters: weights x 2 bytes, gradients x 4, fp32 master + Adam m, v x 12.
  EXPECT_DOUBLE_EQ(InBytes(e.weights), 26e6);
  EXPECT_DOUBLE_EQ(InBytes(e.gradients), 52e6);
  EXPECT_DOUBLE_EQ(InBytes(e.optimizer_state), 156e6);
  // Activations (Korthikanti et al.): 1000 tokens x (10 h + 8 h + 4 f + 16, the two LayerNorms'
  // fp32 mean and inverse deviation) = 3.4016e7 bytes for the layer, plus the fp32 logits and their
  // gradient, 8 V = 8,000 bytes a token = 8e6.
  EXPECT_DOUBLE_EQ(InBytes(e.activations), 4.2016e7);
  EXPECT_DOUBLE_EQ(InBytes(e.memory), 276.016e6);
}

TEST(EstimateStep, FullRecomputationCostsAForwardPassAndSavesActivations) {
  const WorkloadModel w = Toy();
  const StepEstimate none = EstimateStep(w, ToyHardware(), Config(1, 1, 1), 1);
  const StepEstimate full =
      EstimateStep(w, ToyHardware(), Config(1, 1, 1, 1, 1, RECOMPUTE_FULL), 1);
  // One more forward of the layer: 2.4e10 + the causal half of 4e9 = 2.6e10 FLOP = 5.2e-5 s more
  // compute.
  EXPECT_NEAR(InSeconds(full.compute - none.compute), 5.2e-5, 1e-12);
  // HFU counts it: (9e10 + 1000 x (2 P_L + 4 s h) = 2.8e10) / 9e10 of MFU.
  EXPECT_NEAR(InFraction(full.hfu) / InFraction(full.mfu), 11.8 / 9.0, 1e-12);
  // Stored: the layer input 2 h bytes a token = 2e6, plus the one layer recomputed (3.4016e7), plus
  // logits 8e6, instead of 3.4016e7 + 8e6.
  EXPECT_DOUBLE_EQ(InBytes(full.activations), 2e6 + 3.4016e7 + 8e6);
}

TEST(EstimateStep, TensorParallelAllReducesUseTheScaleUpLink) {
  // tp 2 without sequence parallelism: four all-reduces a layer (two forward, two backward) of 1000
  // tokens x h x 2 bytes = 2e6 bytes; a ring all-reduce over 2 ranks moves 2 (2-1)/2 x 2e6 = 2e6
  // bytes at 100 GB/s = 2e-5 s, all on the stream.
  const WorkloadModel plain = Toy("framework { sequence_parallel: false }");
  const StepEstimate e = EstimateStep(plain, ToyHardware(), Config(2, 1, 1), 2);
  EXPECT_NEAR(InSeconds(e.tensor_parallel), 4 * 2e-5, 1e-12);
  // With full recomputation the forward's two all-reduces run again: six.
  const StepEstimate full =
      EstimateStep(plain, ToyHardware(), Config(2, 1, 1, 1, 1, RECOMPUTE_FULL), 2);
  EXPECT_NEAR(InSeconds(full.tensor_parallel), 6 * 2e-5, 1e-12);
}

TEST(EstimateStep, SequenceParallelHidesTheBackwardCollectivesBehindItsMultiplies) {
  // Sequence parallel, no userbuffers overlap (Megatron's linears): the forward's all-gathers and
  // reduce-scatters (two all-reduces' worth, 2 x 2e-5 s) and the backward all-gather of the output
  // gradient (one more, 2e-5 s) wait; the backward re-gather and reduce-scatter (two all-reduces'
  // worth, 4e-5 s) run behind the backward multiplies: the layer's 12 h^2 = 1.2e7 weights over tp 2
  // take 2 x 2 x 1000 x 6e6 = 2.4e10 FLOP backward at 5e14 FLOP/s = 4.8e-5 s > 4e-5 s, so they
  // hide entirely: 3 x 2e-5 s.
  const StepEstimate e = EstimateStep(Toy(), ToyHardware(), Config(2, 1, 1), 2);
  EXPECT_NEAR(InSeconds(e.tensor_parallel), 3 * 2e-5, 1e-12);
  // Full recomputation reruns the forward's two: 5 x 2e-5 s.
  const StepEstimate full =
      EstimateStep(Toy(), ToyHardware(), Config(2, 1, 1, 1, 1, RECOMPUTE_FULL), 2);
  EXPECT_NEAR(InSeconds(full.tensor_parallel), 5 * 2e-5, 1e-12);
  // At 100 x the HBM-free link time (1 GB/s links) the hidden two no longer fit: 2 x 2e-3 - 4.8e-5
  // of them shows on top of the 3 x 2e-3 s.
  Hardware slow = Parse<Hardware>(kToyHardware);
  slow.mutable_network()->set_scale_up_bandwidth_bytes_per_second(1e9);
  const StepEstimate s = EstimateStep(Toy(), BuildTrainingHardware(slow), Config(2, 1, 1), 2);
  EXPECT_NEAR(InSeconds(s.tensor_parallel), 3 * 2e-3 + (2 * 2e-3 - 4.8e-5), 1e-12);
}

TEST(EstimateStep, RingCollectivesPayALatencyStepPerDomainPerBucket) {
  // dp 64 with tp 8 (one GPU per 8-GPU domain): 64 domains. The distributed optimizer's
  // reduce-scatter and all-gather are rings: 63 steps of 10 us each, per gradient bucket. The layer
  // holds 1.2e7 / 8 = 1.5e6 weights and the embedding 1e6 / 8: 1.625e6 a GPU, so a 100,000-weight
  // bucket makes ceil(16.25) = 17 buckets: 2 x 17 x 63 x 1e-5 = 0.02142 s of latency on top of the
  // bandwidth term ((63/64) x 1.625e6 x (4 + 2) bytes at 100 GB/s = 9.5977e-5 s).
  Hardware hw = Parse<Hardware>(kToyHardware);
  hw.mutable_calibration()->set_scale_out_latency_seconds(1e-5);
  const TrainingHardware h = BuildTrainingHardware(hw);
  const WorkloadModel small =
      Toy("global_batch_sequences: 64 framework { gradient_bucket_params: 100000 }");
  const StepEstimate e = EstimateStep(small, h, Config(8, 1, 64), 512);
  const double bandwidth = (63.0 / 64.0) * 1.625e6 * 6.0 / 100e9;
  EXPECT_NEAR(InSeconds(e.data_parallel_scale_out), bandwidth + 2 * 17 * 63 * 1e-5, 1e-12);
  // The current default bucket, max(40M, 1M x 64 ranks) = 64M weights, is one bucket: 2 x 63 steps.
  const StepEstimate one =
      EstimateStep(Toy("global_batch_sequences: 64"), h, Config(8, 1, 64), 512);
  EXPECT_NEAR(InSeconds(one.data_parallel_scale_out), bandwidth + 2 * 63 * 1e-5, 1e-12);
}

TEST(EstimateStep, DataParallelSyncIsHierarchical) {
  // dp 16 with tp 1 and 8-GPU domains: 8 replicas a domain, 2 domains. The distributed optimizer
  // reduce-scatters 13e6 x 4 = 52e6 bytes of gradients and all-gathers 13e6 x 2 = 26e6 bytes of
  // weights. In the domain: (7/8) x (52e6 + 26e6) at 100 GB/s = 6.825e-4 s. Across: each GPU
  // carries 1/8, (1/2) x (78e6 / 8) at 800 Gb/s = 100 GB/s: 4.875e-5 s.
  const WorkloadModel w = Toy("global_batch_sequences: 16");
  const StepEstimate e = EstimateStep(w, ToyHardware(), Config(1, 1, 16), 16);
  EXPECT_NEAR(InSeconds(e.data_parallel_scale_up), 6.825e-4, 1e-12);
  EXPECT_NEAR(InSeconds(e.data_parallel_scale_out), 4.875e-5, 1e-12);
  // No overlap in this calibration: all of it is exposed.
  EXPECT_NEAR(InSeconds(e.data_parallel_exposed), 6.825e-4 + 4.875e-5, 1e-12);
  // A plain all-reduce (no distributed optimizer) moves the gradients twice instead: 2 x 52e6.
  const StepEstimate ar =
      EstimateStep(Toy("global_batch_sequences: 16 framework { distributed_optimizer: false }"),
                   ToyHardware(), Config(1, 1, 16), 16);
  EXPECT_NEAR(InSeconds(ar.data_parallel_scale_up), 2 * (7.0 / 8) * 52e6 / 100e9, 1e-12);
}

TEST(EstimateStep, OversubscribedTiersAboveTheLeafSlowGroupsThatCrossThem) {
  // Radix 8, one NIC a GPU: a leaf serves 4 GPUs at full bisection; spines at 3:1 have
  // floor(8 x 3/4) = 6 downlinks, so a spine block (pod) holds 4 x 6 = 24 GPUs. A data-parallel
  // group of 16 stays in a pod: its scale-out time is that of a full fabric. A group of 32 crosses
  // the pods' uplinks, which carry a third of what the GPUs send: three times the time (no latency
  // in this calibration).
  Hardware full = Parse<Hardware>(kToyHardware);
  full.mutable_network()->set_switch_radix(8);
  Hardware over = full;
  over.mutable_network()->add_upper_tier_oversubscription(3);
  const TrainingHardware hw_full = BuildTrainingHardware(full);
  const TrainingHardware hw_over = BuildTrainingHardware(over);
  EXPECT_EQ(hw_over.upper_block_gpus[0], 24);
  for (int dp : {16, 32}) {
    const WorkloadModel w = Toy(absl::StrCat("global_batch_sequences: ", dp));
    const double a =
        InSeconds(EstimateStep(w, hw_full, Config(1, 1, dp), dp).data_parallel_scale_out);
    const double b =
        InSeconds(EstimateStep(w, hw_over, Config(1, 1, dp), dp).data_parallel_scale_out);
    EXPECT_GT(a, 0);
    EXPECT_NEAR(b / a, dp > 24 ? 3.0 : 1.0, 1e-12) << "dp " << dp;
  }
}

TEST(EstimateStep, GradientReductionHidesInTheBackwardPassAndTheGatherInTheForward) {
  // dp 16 as above, one micro-batch, overlap 1, pipeline sends overlapped (so the parameter
  // all-gather runs apart from the reduce-scatter). The reduce-scatter (52e6 bytes) hides behind
  // the micro-batch's backward pass (2/3 of its time S), the all-gather (26e6 bytes) behind the
  // next forward (1/3 of S); what exceeds its own window shows. At link bandwidth B per GPU (both
  // levels): reduce-scatter (7/8) 52e6 / B + (1/2) (52e6 / 8) / B, all-gather half of that.
  for (double bandwidth : {100e9, 400e9, 4000e9}) {
    Hardware hw = Parse<Hardware>(kToyHardware);
    hw.mutable_network()->set_scale_up_bandwidth_bytes_per_second(bandwidth);
    hw.mutable_network()->set_port_bits_per_second(8 * bandwidth);
    hw.mutable_calibration()->set_gradient_sync_overlap(1);
    const WorkloadModel w =
        Toy("global_batch_sequences: 16 framework { overlap_pipeline_sends: true }");
    const StepEstimate e = EstimateStep(w, BuildTrainingHardware(hw), Config(1, 1, 16), 16);
    ASSERT_EQ(e.micro_batches, 1);
    const double stage = InSeconds(e.step - e.data_parallel_exposed - e.optimizer);
    const double reduce = (7.0 / 8) * 52e6 / bandwidth + 0.5 * (52e6 / 8) / bandwidth;
    const double gather = reduce / 2;
    EXPECT_NEAR(InSeconds(e.data_parallel), reduce + gather, 1e-15) << bandwidth;
    EXPECT_NEAR(InSeconds(e.data_parallel_exposed),
                std::max(0.0, reduce - 2 * stage / 3) + std::max(0.0, gather - stage / 3), 1e-12)
        << bandwidth;
  }
}

TEST(EstimateStep, UntiedEmbeddingsAddTheOutputLayerWhereOneGpuHoldsBoth) {
  // Without pipeline parallelism one GPU holds the input embedding and the output layer: separate
  // matrices add V h = 1000 x 1000 = 1e6 weights (2e6 bytes of bf16, 4e6 of fp32 gradients) to its
  // 1.2e7 + 1e6.
  const StepEstimate tied = EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 1);
  const StepEstimate untied =
      EstimateStep(Toy("untied_embeddings: true"), ToyHardware(), Config(1, 1, 1), 1);
  EXPECT_DOUBLE_EQ(InBytes(untied.weights - tied.weights), 2e6);
  EXPECT_DOUBLE_EQ(InBytes(untied.gradients - tied.gradients), 4e6);
  // Model FLOPs do not change (the embedding is a lookup; PaLM counts the output layer once).
  EXPECT_DOUBLE_EQ(InFraction(untied.mfu * untied.step / tied.step), InFraction(tied.mfu));
  // On two stages each holds one of them either way.
  const StepEstimate tied2 = EstimateStep(Toy("layers: 2"), ToyHardware(), Config(1, 2, 1), 2);
  const StepEstimate untied2 =
      EstimateStep(Toy("layers: 2 untied_embeddings: true"), ToyHardware(), Config(1, 2, 1), 2);
  EXPECT_DOUBLE_EQ(InBytes(untied2.weights), InBytes(tied2.weights));
}

TEST(EstimateStep, PipelineBubbleShrinksWithMicroBatchesAndVirtualStages) {
  // 8 layers over 4 stages, 16 micro-batches: the bubble is (p - 1) / v micro-batch times, i.e.
  // (p - 1) / (v m) of the pipelined time.
  const WorkloadModel w =
      Toy("layers: 8 global_batch_sequences: 16 framework { "
          "balance_pipeline_stages: false }");
  for (int64_t v : {1, 2}) {
    const StepEstimate e = EstimateStep(w, ToyHardware(), Config(1, 4, 1, 1, v), 4);
    ASSERT_EQ(e.micro_batches, 16);
    const double pipelined =
        InSeconds(e.compute + e.memory_bound + e.tensor_parallel + e.pipeline_p2p);
    EXPECT_NEAR(InSeconds(e.pipeline_bubble) / pipelined, 3.0 / (v * 16.0), 1e-12) << v;
  }
}

TEST(EstimateStep, BalancedStagesMoveLayersOffTheOutputStage) {
  // 8 layers over 2 stages with a large vocabulary (V = 50,000), 4 micro-batches. One layer takes
  // 7.8e10 / 5e14 = 1.56e-4 s of compute (attention's causal half) and 1.44e-4 s of memory-bound
  // work: 3.0e-4 s. The output layer takes 3 x 2 V h x 1000 = 3e11 FLOP = 6e-4 s and 16 V x 1000 =
  // 8e8 bytes = 8e-4 s: 1.4e-3 s, about 4.7 layers. Uniform: the last stage holds 4 layers and the
  // output layer: compute 4 x (4 x 1.56e-4 + 6e-4). Balanced: the crossing k* = (8 x 3.0e-4 +
  // 1.4e-3) / (2 x 3.0e-4) = 6.33; k = 6 leaves the last stage 2 layers + output (2.0e-3 s) against
  // 6 layers (1.8e-3 s), k = 7 gives 7 layers (2.1e-3 s): the slowest stage is 2 layers + output:
  // compute 4 x (2 x 1.56e-4 + 6e-4).
  const std::string shape = "layers: 8 vocab: 50000 global_batch_sequences: 4 ";
  const WorkloadModel uniform = Toy(shape + "framework { balance_pipeline_stages: false }");
  const WorkloadModel balanced = Toy(shape);
  const StepEstimate u = EstimateStep(uniform, ToyHardware(), Config(1, 2, 1), 2);
  const StepEstimate b = EstimateStep(balanced, ToyHardware(), Config(1, 2, 1), 2);
  EXPECT_NEAR(InSeconds(u.compute), 4 * (4 * 1.56e-4 + 6e-4), 1e-12);
  EXPECT_NEAR(InSeconds(b.compute), 4 * (2 * 1.56e-4 + 6e-4), 1e-12);
  EXPECT_LT(InSeconds(b.step), InSeconds(u.step));
}

TEST(EstimateStep, IdleGpusCountInMfu) {
  // The same step on 1 GPU of a 2-GPU cluster: half the MFU.
  const StepEstimate one = EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 1);
  const StepEstimate two = EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 2);
  EXPECT_NEAR(InFraction(two.mfu), InFraction(one.mfu) / 2, 1e-15);
}

TEST(EstimateStep, FlagsWhatDoesNotFit) {
  // 80 GB cannot hold a 1e12-parameter model on one GPU (16 bytes a parameter).
  const StepEstimate e = EstimateStep(Toy("params: 1e12"), ToyHardware(), Config(1, 1, 1), 1);
  EXPECT_EQ(e.infeasible, Infeasible::kMemory);
  // 16 GPUs span two 8-GPU domains: without a scale-out network that cannot run.
  Hardware no_fabric = Parse<Hardware>(kToyHardware);
  no_fabric.mutable_network()->set_nics_per_gpu(0);
  const StepEstimate f = EstimateStep(Toy("global_batch_sequences: 16"),
                                      BuildTrainingHardware(no_fabric), Config(1, 1, 16), 16);
  EXPECT_EQ(f.infeasible, Infeasible::kNoScaleOut);
}

TEST(EstimateStep, NeverAllocatesOrThrowsOnLargeClusters) {
  // A million GPUs of a small model: all figures finite.
  const WorkloadModel w = Toy("global_batch_sequences: 1000000");
  const StepEstimate e = EstimateStep(w, ToyHardware(), Config(1, 1, 1000000), 1000000);
  EXPECT_TRUE(std::isfinite(InSeconds(e.step)));
  EXPECT_GT(InFraction(e.mfu), 0);
}

TEST(DescribeConfig, NamesEveryField) {
  EXPECT_EQ(DescribeConfig(Config(8, 16, 64, 1, 2, RECOMPUTE_FULL)),
            "tp=8 cp=1 pp=16 dp=64 micro_batch=1 virtual_stages=2 recompute=full");
}

TEST(EstimateStep, SmallMultipliesRunBelowTheCeiling) {
  // Knee 100 FLOP/B: each multiply takes FLOPs / (0.5 x 1e15) x (1 + 100 / intensity), intensity =
  // m n k / (m k + k n + m n) for 2-byte operands. Toy (1,000 tokens), over 3 passes:
  //   q, k, v: 1000 x 3000 x 1000: 6e9 FLOP a pass, intensity 3e9 / 7e6 = 428.57
  //   attention output: 1000 x 1000 x 1000: 2e9, 333.33; MLP up and down: 8e9 each, 444.44;
  //   FlashAttention: 4e9 FLOP a pass (half run: causal) over Q, K, V, O = 8e6 bytes: 500;
  //   output layer: 1000 x 1000 x 1000: 2e9, 333.33.
  TrainingHardware hw = ToyHardware();
  hw.calibration.gemm_knee = units::FlopsPerByteOf(100);
  const StepEstimate e = EstimateStep(Toy(), hw, Config(1, 1, 1), 1);
  const double flops = 18e9 * (1 + 100 / 428.5714285714286) + 6e9 * (1 + 100 / 333.3333333333333) +
                       48e9 * (1 + 100 / 444.4444444444444) + 6e9 * (1 + 100 / 500.0) +
                       6e9 * (1 + 100 / 333.3333333333333);
  EXPECT_NEAR(InSeconds(e.compute), flops / 5e14, 1e-12);
}

TEST(EstimateStep, TilesThatOverhangLoseTheirShare) {
  // One compute unit (every tile its own wave), 128 x 128 tiles: an output of 1000 x 3000 covers
  // 8 x 24 tiles of which (1000/1024) x (3000/3072) = 0.953674 is used; every weight multiply of
  // the toy has dimensions in thousands, so all run at 0.953674. FlashAttention's outputs are 1000
  // x 100 per head (10 heads): 8 x 1 tiles each, (1000/1024) x (100/128) = 0.762939 used.
  // Compute: 1.56e-4 s of multiplies / 0.953674 + 1.2e-5 s of attention / 0.762939.
  TrainingHardware hw = ToyHardware();
  hw.calibration.compute_units = 1;
  const StepEstimate e = EstimateStep(Toy(), hw, Config(1, 1, 1), 1);
  EXPECT_NEAR(InSeconds(e.compute), 1.56e-4 / 0.95367431640625 + 1.2e-5 / 0.762939453125, 1e-12);
}

TEST(EstimateStep, ContextParallelSplitsTheSequenceAndPassesKeysAround) {
  // cp 2 on 2 GPUs: each holds 500 of the 1,000 tokens, so every multiply (and the attention core,
  // whose keys span the whole sequence) does half the work: compute 1.68e-4 / 2. The ring passes
  // each rank's keys and values, 2 x 500 x 1000 x 2 bytes = 2e6 bytes at 100 GB/s = 2e-5 s, once
  // forward and twice the bytes backward; they hide behind the attention core, 1e9 FLOP = 2e-6 s
  // forward and 4e-6 s backward: exposed (2e-5 - 2e-6) + (4e-5 - 4e-6) = 5.4e-5 s.
  ParallelConfig c = Config(1, 1, 1);
  c.cp = 2;
  EXPECT_EQ(c.Gpus(), 2);
  const StepEstimate e = EstimateStep(Toy(), ToyHardware(), c, 2);
  ASSERT_TRUE(e.Feasible());
  EXPECT_NEAR(InSeconds(e.compute), 1.68e-4 / 2, 1e-12);
  EXPECT_NEAR(InSeconds(e.context_parallel), 5.4e-5, 1e-12);
  // The two cp ranks hold the same weights: their gradients are synchronized, which one GPU's are
  // not.
  EXPECT_GT(InSeconds(e.data_parallel), 0.0);
  EXPECT_EQ(InSeconds(EstimateStep(Toy(), ToyHardware(), Config(1, 1, 1), 1).data_parallel), 0.0);
}

TEST(EstimateStep, UnevenStagesHoldFewerLayersFirstAndLast) {
  // 14 layers on 4 stages x 4 chunks (16 slots, 14 + 2 as Llama 3's 126 on 16 x 8): the middle
  // stages hold 4 chunks of one layer, the first and last 3 each (the last also the output layer).
  // A layer takes 3.0e-4 s (1.56e-4 compute + 1.44e-4 memory-bound), the output layer 2.8e-5 s:
  // the slowest stage is a middle one, 4 layers: compute 4 micro-batches x 4 x 1.56e-4. The first
  // stage holds 4 x (1 + 3 / 16) = 4.75 micro-batches in flight of its 3 layers, 3.4016e7 bytes
  // each.
  EXPECT_EQ(MaxVirtualStages(14, 4), 4);
  EXPECT_EQ(MaxVirtualStages(126, 16), 8);
  EXPECT_EQ(MaxVirtualStages(126, 2), 63);  // two stages: every chunk needs a layer
  const WorkloadModel w = Toy("layers: 14 global_batch_sequences: 4");
  const StepEstimate e = EstimateStep(w, ToyHardware(), Config(1, 4, 1, 1, 4), 4);
  ASSERT_TRUE(e.Feasible());
  EXPECT_NEAR(InSeconds(e.compute), 4 * 4 * 1.56e-4, 1e-12);
  EXPECT_NEAR(InBytes(e.activations), 3 * 4.75 * 3.4016e7, 1e-3);
}

TEST(EstimateStep, PartialRecomputationRecomputesTheFewestLayersThatFit) {
  // 8 layers on one GPU with 1.96e9 bytes of HBM. States: 97e6 parameters x 18 bytes = 1.746e9.
  // Activations: 8 x 3.4016e7 + the logits 8e6 = 2.80128e8: 2.026e9 does not fit. Partial
  // recomputation keeps one layer's working set (3.4016e7), so 3.14144e8, 1.00144e8 over; each
  // recomputed layer keeps only its input (2e6 of 3.4016e7), saving 3.2016e7: ceil(1.00144e8 /
  // 3.2016e7) = 4 layers, 1.93208e9 bytes. Each
  // reruns its forward: 2.6e10 FLOP = 5.2e-5 s and 1/3 of its memory-bound 1.44e-4 s: 4 x 1.0e-4 s
  // more per step.
  TrainingHardware hw = ToyHardware();
  hw.hbm = units::Bytes(1.96e9);
  const WorkloadModel w = Toy("layers: 8");
  const StepEstimate none = EstimateStep(w, hw, Config(1, 1, 1), 1);
  EXPECT_EQ(none.infeasible, Infeasible::kMemory);
  const StepEstimate partial = EstimateStep(w, hw, Config(1, 1, 1, 1, 1, RECOMPUTE_PARTIAL), 1);
  ASSERT_TRUE(partial.Feasible());
  EXPECT_EQ(partial.recomputed_layers, 4);
  EXPECT_NEAR(InBytes(partial.memory), 1.93208e9, 1e-3);
  EXPECT_NEAR(InSeconds(partial.step - none.step), 4 * 1.0e-4, 1e-12);
  // HFU counts the rerun half of the layers: model FLOPs 1000 x (6 x 97e6 + 12 x 8 x 1e6) =
  // 6.78e11, recomputed 1000 x 8 x 4/8 x (2 x 12e6 + 4e6) = 1.12e11.
  EXPECT_NEAR(InFraction(partial.hfu) / InFraction(partial.mfu), 7.9 / 6.78, 1e-12);
}

TEST(BuildWorkloadModel, SoftwareGenerationSetsTheFrameworkDefaults) {
  const WorkloadModel old = Toy("framework { generation: SOFTWARE_MEGATRON_2021 }");
  EXPECT_FALSE(old.flash_attention);
  EXPECT_FALSE(old.sequence_parallel);
  EXPECT_FALSE(old.distributed_optimizer);
  EXPECT_FALSE(old.selective_recompute_available);
  const WorkloadModel y2022 = Toy("framework { generation: SOFTWARE_MEGATRON_2022 }");
  EXPECT_FALSE(y2022.flash_attention);
  EXPECT_TRUE(y2022.sequence_parallel);
  EXPECT_TRUE(y2022.selective_recompute_available);
  EXPECT_FALSE(y2022.overlap_tensor_parallel);
  const WorkloadModel now = BuildWorkloadModel(Parse<Workload>(kToy)).value();
  EXPECT_TRUE(now.flash_attention);
  EXPECT_TRUE(now.distributed_optimizer);
  // Current software overlaps tensor-parallel communication and reduces gradients in BF16; the
  // 2023-24 generation did neither (FP32 gradients, 4 bytes).
  const WorkloadModel bare =
      BuildWorkloadModel(Parse<Workload>("layers: 1 hidden: 1000 heads: 10 vocab: 1000 "
                                         "seq_len: 1000 global_batch_sequences: 1"))
          .value();
  EXPECT_TRUE(bare.overlap_tensor_parallel);
  EXPECT_EQ(InBytes(bare.gradient_element), 2.0);
  const WorkloadModel y2024 =
      BuildWorkloadModel(Parse<Workload>("layers: 1 hidden: 1000 heads: 10 vocab: 1000 "
                                         "seq_len: 1000 global_batch_sequences: 1 "
                                         "framework { generation: SOFTWARE_MEGATRON_2024 }"))
          .value();
  EXPECT_FALSE(y2024.overlap_tensor_parallel);
  EXPECT_EQ(InBytes(y2024.gradient_element), 4.0);
  EXPECT_TRUE(y2024.flash_attention);
  EXPECT_TRUE(y2024.distributed_optimizer);
  EXPECT_EQ(y2024.gradient_bucket_params, 0);
  EXPECT_TRUE(Toy("framework { overlap_tensor_parallel: true }").overlap_tensor_parallel);
  // Current software's gradient bucket follows the data-parallel size (0 = max(40M, 1M x ranks));
  // older generations keep Megatron's fixed 40M.
  EXPECT_EQ(Toy("framework { generation: SOFTWARE_CURRENT }").gradient_bucket_params, 0);
  EXPECT_EQ(old.gradient_bucket_params, 4e7);
  EXPECT_EQ(Toy("framework { gradient_bucket_params: 1000 }").gradient_bucket_params, 1000);
  // An explicit field wins over its generation's default.
  EXPECT_TRUE(Toy("framework { generation: SOFTWARE_MEGATRON_2021 flash_attention: true }")
                  .flash_attention);
}

TEST(Block, LlamaStyleMovesAndKeepsWhatItsKernelsDo) {
  // A Llama-style block (RMSNorm, SwiGLU, rotary, no biases or dropout) with grouped-query
  // attention: h = 1000, 10 heads, 2 KV heads (kv = 200), f = 4000 gated, 1000 tokens, tp 1.
  const WorkloadModel llama = Toy("kv_heads: 2 gated_mlp: true block { style: BLOCK_STYLE_LLAMA }");
  EXPECT_TRUE(llama.rms_norm && llama.rotary && !llama.biases && !llama.dropout);
  // Memory-bound traffic of one forward pass, elements per token: the two norms and residual adds
  // 10 h = 10,000; SwiGLU reads 2 f and writes f = 12,000; rotary reads and writes queries and keys
  // 2 (h + kv) = 2,400; no bias adds: 24,400. The GPT block of the same shape (ungated, kv = h)
  // moves 10 h + 2 f + 6 h = 24,000.
  const LayerKernels k = EstimateLayerKernels(llama, ToyHardware(), 1, 1, 1);
  EXPECT_DOUBLE_EQ(k.memory_elements_per_token, 24400.0);
  EXPECT_DOUBLE_EQ(EstimateLayerKernels(Toy(), ToyHardware(), 1, 1, 1).memory_elements_per_token,
                   24000.0);
  // Activations, bytes per token at 2 bytes an element: the norms' inputs and the QKV and MLP-up
  // inputs 4 h x 2 = 8,000 plus RMSNorm's fp32 inverse RMS 2 x 4 = 8; queries, keys and values and
  // the attention output (2 h + 2 kv) x 2 = 4,800; gate and up outputs and the down input 3 f x 2
  // = 24,000; no dropout masks: 36,808 x 1000 tokens = 3.6808e7, plus the logits 8e6.
  const StepEstimate e = EstimateStep(llama, ToyHardware(), Config(1, 1, 1), 1);
  EXPECT_DOUBLE_EQ(InBytes(e.activations), 3.6808e7 + 8e6);
  // Grouped-query attention in a GPT block keeps keys and values at kv width: (2 h + 2 kv) x 2 =
  // 4,800 bytes a token, not 8 h = 8,000: 3.4016e7 - 3.2e6 for the layer.
  const StepEstimate gqa = EstimateStep(Toy("kv_heads: 2"), ToyHardware(), Config(1, 1, 1), 1);
  EXPECT_DOUBLE_EQ(InBytes(gqa.activations), 3.4016e7 - 3.2e6 + 8e6);
}

TEST(Fp8, GemmBoundLayersSpeedUpByTheDocumentedRatio) {
  // With FP8 the four weight multiplies run at 1.75 x the BF16 multiplies' rate (NVIDIA's cuBLAS
  // 12.9 figure for large FP8 matmuls over BF16 on Hopper, Transformer Engine's MXFP8 on B300),
  // below the FP8 peak's 2 x (2e15 over the BF16 1e15, as H100's 1,979 / 989 TFLOP/s): FP8
  // tensor cores reach 0.875 of BF16's fraction of peak. With the knee at 0 and no wave
  // quantization a multiply is compute-bound, so they take 1 / 1.75 of the time. The attention
  // core and the output layer stay BF16 (the recipe's default).
  TrainingHardware hw = ToyHardware();
  hw.peak_fp8 = units::FlopsPerSecond(2e15);
  const WorkloadModel bf16 = Toy();
  const WorkloadModel fp8 = Toy("precision: TRAINING_PRECISION_FP8");
  const LayerKernels kb = EstimateLayerKernels(bf16, hw, 1, 1, 1);
  const LayerKernels k8 = EstimateLayerKernels(fp8, hw, 1, 1, 1);
  EXPECT_DOUBLE_EQ(InSeconds(kb.dense_forward) / InSeconds(k8.dense_forward), 1.75);
  EXPECT_DOUBLE_EQ(InSeconds(kb.dense_backward) / InSeconds(k8.dense_backward), 1.75);
  // The ratio is the recipe's, capped by the peaks': 3 asks more than the FP8 peak gives (2).
  const LayerKernels k3 = EstimateLayerKernels(
      Toy("precision: TRAINING_PRECISION_FP8 fp8 { gemm_speedup_over_bf16: 3 }"), hw, 1, 1, 1);
  EXPECT_DOUBLE_EQ(InSeconds(kb.dense_forward) / InSeconds(k3.dense_forward), 2.0);
  const LayerKernels k125 = EstimateLayerKernels(
      Toy("precision: TRAINING_PRECISION_FP8 fp8 { gemm_speedup_over_bf16: 1.25 }"), hw, 1, 1, 1);
  EXPECT_DOUBLE_EQ(InSeconds(kb.dense_forward) / InSeconds(k125.dense_forward), 1.25);
  EXPECT_DOUBLE_EQ(InSeconds(kb.attention_forward), InSeconds(k8.attention_forward));
  EXPECT_DOUBLE_EQ(InSeconds(kb.output_forward), InSeconds(k8.output_forward));
  // The casts (cast_transpose: read 2 bytes, write 1 + 1, 2 elements of traffic per element):
  // inputs 2 h + h + f = 7,000 a token forward, output gradients (h + 2 kv + f) + 2 h = 9,000
  // backward; current scaling reads each once more (3 per element).
  EXPECT_DOUBLE_EQ(k8.fp8_forward_elements_per_token, 14000.0);
  EXPECT_DOUBLE_EQ(k8.fp8_backward_elements_per_token, 18000.0);
  EXPECT_DOUBLE_EQ(
      EstimateLayerKernels(Toy("precision: TRAINING_PRECISION_FP8 fp8 { current_scaling: true }"),
                           hw, 1, 1, 1)
          .fp8_forward_elements_per_token,
      21000.0);
  EXPECT_EQ(kb.fp8_forward_elements_per_token, 0.0);
}

TEST(Fp8, MfuAgainstBothPeaksAndMemoryAsTheRecipeKeepsIt) {
  TrainingHardware hw = ToyHardware();
  hw.peak_fp8 = units::FlopsPerSecond(2e15);
  const StepEstimate b = EstimateStep(Toy(), hw, Config(1, 1, 1), 1);
  const StepEstimate e =
      EstimateStep(Toy("precision: TRAINING_PRECISION_FP8"), hw, Config(1, 1, 1), 1);
  // The step: the multiplies' 7.2e10 FLOP at 5e14 (1.44e-4 s) run 1.75 x faster, 1.44e-4 (1 /
  // 1.75 - 1) = -6.171e-5 s; the casts add (14,000 + 18,000) x 1000 tokens x 2 bytes = 6.4e7 bytes
  // at 1 TB/s, 6.4e-5 s; the weights' cast once a step (12e6 x 4 bytes) 4.8e-5 s. On this narrow
  // toy (h = 1000 at 1,000 FLOP per HBM byte) FP8 loses time: the casts scale with h, the
  // multiplies with h^2.
  EXPECT_NEAR(InSeconds(e.step - b.step), 1.44e-4 * (1.0 / 1.75 - 1.0) + 6.4e-5 + 4.8e-5, 1e-12);
  // MFU is against the BF16 peak; against FP8's peak, half of it.
  EXPECT_DOUBLE_EQ(InFraction(e.mfu) / InFraction(b.mfu), InSeconds(b.step) / InSeconds(e.step));
  EXPECT_DOUBLE_EQ(InFraction(e.mfu_at_precision_peak), InFraction(e.mfu) / 2.0);
  EXPECT_DOUBLE_EQ(InFraction(b.mfu_at_precision_peak), InFraction(b.mfu));
  // Weights: the 12e6 layer parameters' FP8 copy and its transpose, 2 bytes each, beside the 13e6
  // BF16 weights: 26e6 + 24e6.
  EXPECT_DOUBLE_EQ(InBytes(e.weights), 50e6);
  // Activations: the QKV and MLP-up inputs kept in FP8 (h less each), the MLP-down input too (f
  // less), an FP8 copy of the attention output (h more): h + f = 5,000 bytes a token less,
  // 3.4016e7 - 5e6 for the layer, plus the logits 8e6.
  EXPECT_DOUBLE_EQ(InBytes(e.activations), 3.4016e7 - 5e6 + 8e6);
  EXPECT_DOUBLE_EQ(InBytes(b.activations), 3.4016e7 + 8e6);
  // activations_in_fp8 false keeps them as BF16.
  const StepEstimate kept =
      EstimateStep(Toy("precision: TRAINING_PRECISION_FP8 fp8 { activations_in_fp8: false }"), hw,
                   Config(1, 1, 1), 1);
  EXPECT_DOUBLE_EQ(InBytes(kept.activations), InBytes(b.activations));
}

// ZeRO stages on four toy layers (P_L = 12e6, N = 4 x 12e6 + 1e6 = 49e6 on one GPU of tp 1, pp 1),
// dp 8 inside one 8-GPU domain at 100 GB/s with no latency and no overlap, 16 sequences: 2
// micro-batches of 1 per replica. Weights 2 bytes, gradients 4 (kToy), shards 8.
TEST(EstimateStep, ZeroStagesShardMemoryAndMoveTheirBytes) {
  const WorkloadModel w = Toy("layers: 4 global_batch_sequences: 16");
  const TrainingHardware hw = ToyHardware();
  auto at = [&](int64_t zero) {
    ParallelConfig c = Config(1, 1, 8);
    c.zero = zero;
    return EstimateStep(w, hw, c, 8);
  };
  const StepEstimate z0 = at(0), z1 = at(1), z2 = at(2), z3 = at(3);
  ASSERT_TRUE(z3.Feasible());
  // Memory. Optimizer state (12 bytes a parameter): 49e6 x 12 = 588e6 unsharded, / 8 = 73.5e6.
  EXPECT_DOUBLE_EQ(InBytes(z0.optimizer_state), 588e6);
  EXPECT_DOUBLE_EQ(InBytes(z1.optimizer_state), 73.5e6);
  EXPECT_DOUBLE_EQ(InBytes(z3.optimizer_state), 73.5e6);
  // Gradients: 49e6 x 4 = 196e6 through ZeRO-1; ZeRO-2 keeps its shard (6.125e6) and one 40e6
  // bucket whole (Megatron's bucket: max(40e6, 1e6 x 8 ranks)): 46.125e6 x 4; ZeRO-3 its shard
  // and one layer (12e6): 18.125e6 x 4.
  EXPECT_DOUBLE_EQ(InBytes(z1.gradients), 196e6);
  EXPECT_DOUBLE_EQ(InBytes(z2.gradients), 184.5e6);
  EXPECT_DOUBLE_EQ(InBytes(z3.gradients), 72.5e6);
  // Weights: 49e6 x 2 = 98e6; ZeRO-3 its shard and two layers (the running and the prefetched):
  // (6.125e6 + 24e6) x 2.
  EXPECT_DOUBLE_EQ(InBytes(z2.weights), 98e6);
  EXPECT_DOUBLE_EQ(InBytes(z3.weights), 60.25e6);
  // Bytes a step over the group. A ring of 8 moves 7/8 of a buffer through each GPU's link:
  // weights 98e6 -> 0.8575 ms, gradients 196e6 -> 1.715 ms at 100 GB/s.
  const double gather = 7.0 / 8.0 * 98e6 / 100e9, reduce = 7.0 / 8.0 * 196e6 / 100e9;
  // ZeRO-0: an all-reduce of the gradients (reduce-scatter + all-gather of 196e6).
  EXPECT_NEAR(InSeconds(z0.data_parallel), 2 * reduce, 1e-15);
  // ZeRO-1: one reduce-scatter of the gradients and one all-gather of the weights a step.
  EXPECT_NEAR(InSeconds(z1.data_parallel), reduce + gather, 1e-15);
  // ZeRO-2: the reduce-scatter every micro-batch (2), the all-gather once.
  EXPECT_NEAR(InSeconds(z2.data_parallel), 2 * reduce + gather, 1e-15);
  // ZeRO-3: per micro-batch two all-gathers (forward, backward) and a reduce-scatter.
  EXPECT_NEAR(InSeconds(z3.data_parallel), 2 * (2 * gather + reduce), 1e-15);
  EXPECT_DOUBLE_EQ(InSeconds(z3.data_parallel_scale_out), 0.0);  // all inside the domain
  // No overlap (gradient_sync_overlap 0): all of it shows, and only it moves the step (the
  // optimizer's traffic is the same from ZeRO-1 on).
  EXPECT_DOUBLE_EQ(InSeconds(z3.data_parallel_exposed), InSeconds(z3.data_parallel));
  EXPECT_NEAR(InSeconds(z3.step - z1.step), 2 * (2 * gather + reduce) - (reduce + gather), 1e-15);
}

// With the overlap on, FSDP's prefetch hides what the passes cover: per micro-batch the forward
// gathers behind the forward pass (1/3 of the micro-batch's stage time), the backward gathers and
// the reduce-scatters behind the backward (2/3). On the toy the stage is far shorter than the
// traffic, so exactly 2 micro-batches x the stage time is hidden.
TEST(EstimateStep, FsdpHidesItsTrafficBehindThePasses) {
  const WorkloadModel w = Toy("layers: 4 global_batch_sequences: 16");
  Hardware proto = Parse<Hardware>(kToyHardware);
  proto.mutable_calibration()->set_gradient_sync_overlap(1.0);
  const TrainingHardware hw = BuildTrainingHardware(proto);
  ParallelConfig c = Config(1, 1, 8);
  c.zero = 3;
  const StepEstimate e = EstimateStep(w, hw, c, 8);
  // pp 1: the step is m stages + the exposed sync + the optimizer; the stage is (step - exposed -
  // optimizer) / m, and the hidden part is m x stage when the traffic outlasts both windows.
  const double m = 2;
  const double stage =
      (InSeconds(e.step) - InSeconds(e.data_parallel_exposed) - InSeconds(e.optimizer)) / m;
  ASSERT_GT(InSeconds(e.data_parallel) / m, 1.5 * stage);  // the traffic outlasts the passes
  EXPECT_NEAR(InSeconds(e.data_parallel) - InSeconds(e.data_parallel_exposed), m * stage, 1e-12);
}

// The attention kernel follows the software generation: SOFTWARE_CURRENT at attention_efficiency
// (FlashAttention-3 / cuDNN on Hopper and later), older software at flash_attention_2_efficiency.
// One forward pass of the toy's attention core is 4 tok s h / 2 (causal half) = 2e9 FLOP: at 50%
// of 1 PFLOP/s 4e-6 s, at 25% 8e-6 s.
TEST(EstimateLayerKernels, AttentionRunsAtTheSoftwaresKernel) {
  Hardware proto = Parse<Hardware>(kToyHardware);
  proto.mutable_calibration()->set_attention_efficiency(0.5);
  proto.mutable_calibration()->set_flash_attention_2_efficiency(0.25);
  const TrainingHardware hw = BuildTrainingHardware(proto);
  const LayerKernels current = EstimateLayerKernels(Toy(), hw, 1, 1, 1);
  const LayerKernels older =
      EstimateLayerKernels(Toy("framework { generation: SOFTWARE_MEGATRON_2024 }"), hw, 1, 1, 1);
  EXPECT_NEAR(InSeconds(current.attention_forward), 4e-6, 1e-18);
  EXPECT_NEAR(InSeconds(older.attention_forward), 8e-6, 1e-18);
  // Absent, every generation runs attention_efficiency.
  proto.mutable_calibration()->clear_flash_attention_2_efficiency();
  const LayerKernels unset =
      EstimateLayerKernels(Toy("framework { generation: SOFTWARE_MEGATRON_2024 }"),
                           BuildTrainingHardware(proto), 1, 1, 1);
  EXPECT_NEAR(InSeconds(unset.attention_forward), 4e-6, 1e-18);
}

}  // namespace
}  // namespace dcplan

// Tests of the mixture-of-experts model (moe.h) and its place in the step model and the search,
// against figures worked out by hand (derivations in the comments).
#include "planner/workload/moe.h"

#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {
namespace {

using units::InBytes;
using units::InFlops;
using units::InSeconds;

template <typename T>
T Parse(const std::string& text) {
  T message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

// Mixtral 8x22B's shape (planner/presets/models/mixtral-8x22b.textproto) with sequences of 4,096
// and 256 per step (the Megatron-Core benchmark's setting), no params given, even routing. Written
// out here: the workload layer may not read the model catalog (tests/layering_test); the tests and
// benchmarks above it load the same workload from it (planner/presets/test_workloads.h).
constexpr char kMixtral[] = R"pb(
  name: "mixtral"
  layers: 56
  hidden: 6144
  heads: 48
  kv_heads: 8
  ffn_hidden: 16384
  gated_mlp: true
  vocab: 32000
  seq_len: 4096
  global_batch_sequences: 256
  untied_embeddings: true
  moe { experts: 8 experts_per_token: 2 expert_ffn_hidden: 16384 load_imbalance: 1 }
  # 2023-24 software: fp32 gradient reduction (4 bytes, as the hand counts below take them) and no
  # tensor-parallel overlap, as the Megatron-Core benchmark ran.
  framework { generation: SOFTWARE_MEGATRON_2024 }
)pb";

// Round hardware: 1 PFLOP/s at 50% for every multiply, 1 TB/s HBM, a 72-GPU NVLink domain of
// 900 GB/s per direction, one 400 Gb/s (50 GB/s) NIC per GPU, radix-64 leaves at full bisection,
// every efficiency 1 and every latency 0.
std::string HardwareText(int domain) {
  return R"pb(
           accelerator {
             peak_flops_per_second: 1e15
             hbm_bytes: 80e9
             hbm_bandwidth_bytes_per_second: 1e12
           }
           server { gpus_per_server: 4 }
           network { scale_up_domain_gpus:)pb" +
         std::to_string(domain) + R"pb(
      scale_up_bandwidth_bytes_per_second: 900e9
      nics_per_gpu: 1
      port_bits_per_second: 400e9
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
}
TrainingHardware Hw(int domain) {
  return BuildTrainingHardware(Parse<Hardware>(HardwareText(domain)));
}

WorkloadModel Model(const std::string& text) {
  return BuildWorkloadModel(Parse<Workload>(text)).value();
}

ParallelConfig Config(int64_t tp, int64_t pp, int64_t dp, int64_t ep, int64_t b = 1) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.ep = ep;
  c.micro_batch = b;
  return c;
}

TEST(Moe, MixtralFlopsPerTokenCountActiveParameters) {
  // By hand, h = 6,144, 48 heads, 8 KV heads, SwiGLU experts of f_e = 16,384:
  //   attention q, o 2 h^2 + k, v 2 h (h 8/48)  = 75,497,472 + 12,582,912 = 88,080,384
  //   one expert 3 h f_e                         = 301,989,888
  //   router h x 8                               = 49,152
  //   total layer  88,080,384 + 49,152 + 8 x 301,989,888 = 2,504,048,640
  //   active layer 88,080,384 + 49,152 + 2 x 301,989,888 =   692,109,312
  //   output layer V h = 32,000 x 6,144 = 196,608,000 (the untied input embedding costs no FLOPs)
  //   total  56 x 2,504,048,640 + 196,608,000 = 140,423,331,840 (~141B published)
  //   active 56 x   692,109,312 + 196,608,000 =  38,954,729,472 (~39B published)
  //   model FLOPs per token 6 x 38,954,729,472 + 12 x 56 x 4,096 x 6,144 = 250,639,810,560
  const Workload p = Parse<Workload>(kMixtral);
  const MoeShapeParams shape = MoeParamsFromShape(p);
  EXPECT_DOUBLE_EQ(shape.moe_layer_total, 2504048640.0);
  EXPECT_DOUBLE_EQ(shape.moe_layer_active, 692109312.0);
  EXPECT_DOUBLE_EQ(shape.total, 140423331840.0);
  EXPECT_DOUBLE_EQ(shape.active, 38954729472.0);
  const WorkloadModel w = Model(kMixtral);
  EXPECT_DOUBLE_EQ(w.params, 140423331840.0);  // memory and checkpoints: the total
  EXPECT_DOUBLE_EQ(InFlops(w.model_flops_per_token), 250639810560.0);
  // A step's model FLOPs: 256 x 4,096 tokens at that rate, whatever the split.
  const StepEstimate e = EstimateStep(w, Hw(72), Config(1, 1, 8, 8), 8);
  EXPECT_DOUBLE_EQ(InFlops(e.model_flops_per_step), 256.0 * 4096.0 * 250639810560.0);
  // moe.active_params (the published 39B) replaces the shape's count in the FLOPs.
  Workload given = p;
  given.mutable_moe()->set_active_params(39e9);
  EXPECT_DOUBLE_EQ(InFlops(BuildWorkloadModel(given)->model_flops_per_token),
                   6.0 * 39e9 + 12.0 * 56 * 4096 * 6144);
}

TEST(Moe, AllToAllVolumePerLayerByHand) {
  // One all-to-all of a micro-batch of 4,096 tokens at tp 1: each token's 2 copies of h = 6,144
  // bf16 elements: 4,096 x 2 x 6,144 x 2 B = 100,663,296 B, of which (ep - 1) / ep = 7/8 leave the
  // GPU: 88,080,384 B.
  const WorkloadModel w = Model(kMixtral);
  EXPECT_DOUBLE_EQ(InBytes(AllToAllBytes(w.moe, 4096, 6144, units::Bytes(2.0))), 100663296.0);
  // ep 8 inside the 72-GPU domain: 88,080,384 B / 900 GB/s = 97.867 us per all-to-all; 4 per
  // layer (dispatch and combine, forward and backward), 56 layers, 256 / 8 = 32 micro-batches:
  // 32 x 56 x 4 x 97.867 us = 0.70151 s.
  const StepEstimate e = EstimateStep(w, Hw(72), Config(1, 1, 8, 8), 8);
  EXPECT_NEAR(InSeconds(e.expert_parallel), 32.0 * 56 * 4 * 88080384.0 / 900e9, 1e-9);
  // Micro-batches of 2: half as many all-to-alls of twice the bytes, the same total.
  const StepEstimate e2 = EstimateStep(w, Hw(72), Config(1, 1, 8, 8, 2), 8);
  EXPECT_NEAR(InSeconds(e2.expert_parallel), InSeconds(e.expert_parallel), 1e-9);
  // Load imbalance 1.25: the busiest rank receives 25% more.
  Workload p = Parse<Workload>(kMixtral);
  p.mutable_moe()->set_load_imbalance(1.25);
  const StepEstimate e3 =
      EstimateStep(BuildWorkloadModel(p).value(), Hw(72), Config(1, 1, 8, 8), 8);
  EXPECT_NEAR(InSeconds(e3.expert_parallel), 1.25 * InSeconds(e.expert_parallel), 1e-9);
  // No expert parallelism: no all-to-all; and a dense model has none either.
  EXPECT_EQ(InSeconds(EstimateStep(w, Hw(72), Config(1, 1, 8, 1), 8).expert_parallel), 0.0);
}

// 64 experts, 8 per token, h = 7,168 (DeepSeek-V3's routing width), 4 layers, at ep 64.
constexpr char kWide[] = R"pb(
  name: "wide"
  layers: 4
  hidden: 7168
  heads: 56
  ffn_hidden: 18432
  gated_mlp: true
  vocab: 1000
  seq_len: 4096
  global_batch_sequences: 64
  moe { experts: 64 experts_per_token: 8 expert_ffn_hidden: 2048 load_imbalance: 1 }
  framework { generation: SOFTWARE_MEGATRON_2024 }  # as kMixtral
)pb";

TEST(Moe, ExpertParallelInsideAnNvl72DomainBeatsCrossingNodes) {
  // B = 4,096 tokens x 8 copies x 7,168 x 2 B = 469,762,048 B per all-to-all.
  // NVL72 (one 72-GPU NVLink domain): all 63 peers are on NVLink: 63/64 B / 900 GB/s = 513.80 us.
  // Four-GPU nodes joined by the fabric: 3 peers on NVLink (3/64 B / 900 GB/s = 24.5 us) while 60
  // are behind the NIC: 60/64 B / 50 GB/s = 8,808.0 us; the NIC sets the time. 4 all-to-alls per
  // layer, 4 layers, 1 micro-batch. The NVL72 case is 60 x 900 / (63 x 50) = 17.1x faster: the
  // per-GPU NVLink bandwidth is 18x the NIC's, and ep 64 fits in the domain.
  const WorkloadModel w = Model(kWide);
  const StepEstimate rack = EstimateStep(w, Hw(72), Config(1, 1, 64, 64), 64);
  const StepEstimate nodes = EstimateStep(w, Hw(4), Config(1, 1, 64, 64), 64);
  const double b = 469762048.0;
  EXPECT_NEAR(InSeconds(rack.expert_parallel), 16.0 * (63.0 / 64.0) * b / 900e9, 1e-9);
  EXPECT_NEAR(InSeconds(nodes.expert_parallel), 16.0 * (60.0 / 64.0) * b / 50e9, 1e-9);
  EXPECT_NEAR(InSeconds(nodes.expert_parallel) / InSeconds(rack.expert_parallel),
              60.0 * 900.0 / (63.0 * 50.0), 1e-9);
  EXPECT_LT(rack.step, nodes.step);
  // Without a scale-out fabric the four-GPU case cannot run at all.
  TrainingHardware isolated = Hw(4);
  isolated.scale_out_bandwidth = units::BytesPerSecond(0.0);
  EXPECT_EQ(EstimateStep(w, isolated, Config(1, 1, 64, 64), 64).infeasible,
            Infeasible::kNoScaleOut);
}

TEST(Moe, MemoryHoldsTheExpertsEachRankKeeps) {
  // Mixtral at tp 1, pp 1 (both embeddings on the GPU: 2 x 196,608,000), dp 8.
  // ep 1: every GPU holds all 8 experts: 56 x 2,504,048,640 + 393,216,000 = 140,619,939,840
  //   parameters: 281.24 GB bf16 weights, 562.48 GB fp32 gradients; the optimizer state (12 B)
  //   sharded 8 ways: 140,619,939,840 / 8 x 12 = 210.93 GB.
  // ep 8: one expert each: 56 x (88,129,536 + 301,989,888) + 393,216,000 = 22,239,903,744:
  //   44.48 GB weights, 88.96 GB gradients; the replicated part's optimizer state sharded over 8
  //   and the expert's over dp / ep = 1: (5,328,470,016 / 8 + 16,911,433,728) x 12 = 210.93 GB,
  //   the same total optimizer state per GPU, differently split.
  const WorkloadModel w = Model(kMixtral);
  const StepEstimate one = EstimateStep(w, Hw(72), Config(1, 1, 8, 1), 8);
  const StepEstimate eight = EstimateStep(w, Hw(72), Config(1, 1, 8, 8), 8);
  EXPECT_NEAR(InBytes(one.weights), 281239879680.0, 1.0);
  EXPECT_NEAR(InBytes(one.gradients), 562479759360.0, 1.0);
  EXPECT_NEAR(InBytes(one.optimizer_state), 210929909760.0, 1.0);
  EXPECT_NEAR(InBytes(eight.weights), 44479807488.0, 1.0);
  EXPECT_NEAR(InBytes(eight.gradients), 88959614976.0, 1.0);
  EXPECT_NEAR(InBytes(eight.optimizer_state), 210929909760.0, 1.0);
  // The given total (params) scales the parameters held: 141e9 over the shape's 140.42B.
  Workload p = Parse<Workload>(kMixtral);
  p.set_params(141e9);
  const StepEstimate scaled =
      EstimateStep(BuildWorkloadModel(p).value(), Hw(72), Config(1, 1, 8, 1), 8);
  const double scale = (141e9 - 196608000.0) / (140423331840.0 - 196608000.0);
  EXPECT_NEAR(InBytes(scaled.weights), 2.0 * (scale * 56 * 2504048640.0 + 393216000.0), 1e3);
}

TEST(Moe, ExpertGradientsAreReducedOverDataParallelOverEp) {
  // Mixtral at tp 1, dp 16 on 8-GPU domains: at ep 8 the expert-data-parallel group is 16 / 8 = 2
  // ranks, 8 GPUs apart, so each domain holds one of them: the experts' gradient all-reduce goes
  // over the NICs between 2 domains only. The expert share of the sync: reduce-scatter then
  // all-gather (distributed optimizer) of the expert gradients (16,911,433,728 x 4 B) and weights
  // (x 2 B), each (n-1)/n = 1/2 of the buffer over 50 GB/s.
  const WorkloadModel w = Model(kMixtral);
  const StepEstimate ep1 = EstimateStep(w, Hw(8), Config(1, 1, 16, 1), 16);
  const StepEstimate ep8 = EstimateStep(w, Hw(8), Config(1, 1, 16, 8), 16);
  // The replicated part (5,328,470,016 parameters) over 16 ranks in 2 domains of 8: in-domain
  // 7/8 of the buffer at 900 GB/s, across 1/2 of 1/8 of it at 50 GB/s.
  const double shared = 5328470016.0, expert = 16911433728.0;
  const double shared_sync = (7.0 / 8.0) * shared * 6.0 / 900e9 + 0.5 * (shared * 6.0 / 8.0) / 50e9;
  const double expert_sync = 0.5 * expert * 6.0 / 50e9;
  EXPECT_NEAR(InSeconds(ep8.data_parallel), shared_sync + expert_sync, 1e-6);
  // ep 1: all 8 experts in the dp sync of 16 ranks, as a dense model's.
  const double all = shared + 8.0 * expert;
  EXPECT_NEAR(InSeconds(ep1.data_parallel),
              (7.0 / 8.0) * all * 6.0 / 900e9 + 0.5 * (all * 6.0 / 8.0) / 50e9, 1e-6);
}

TEST(Moe, SearchCoversExpertParallelism) {
  // Mixtral on 64 GPUs in 72-GPU domains with 186 GB each (so that ep 1 can fit too).
  TrainingHardware hw = Hw(72);
  hw.hbm = units::Bytes(186e9);
  const WorkloadModel w = Model(kMixtral);
  auto best = SearchParallelism(w, hw, 64);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_GT(best->config.ep, 1);
  EXPECT_EQ(best->config.dp % best->config.ep, 0);
  EXPECT_EQ(8 % best->config.ep, 0);
  // Fixing ep at 1 can only do worse (the search's choice is among ep 1's configurations too).
  WorkloadModel no_ep = w;
  no_ep.fixed_ep = 1;
  auto without = SearchParallelism(no_ep, hw, 64);
  if (without.ok()) {
    EXPECT_LT(best->estimate.step, without->estimate.step);
    EXPECT_GT(best->evaluated, without->evaluated);
  }
  // A fixed ep must divide a fixed dp.
  WorkloadModel fixed = w;
  fixed.fixed_ep = 8;
  fixed.fixed_dp = 4;
  EXPECT_EQ(SearchParallelism(fixed, hw, 64).status().message(),
            "workload.parallelism.ep 8 must divide workload.parallelism.dp (4): the "
            "expert-parallel ranks are data-parallel replicas");
}

TEST(Moe, DenseModelIsUnchanged) {
  // Without moe nothing of this file applies: ep stays 1 and no all-to-all is counted.
  const WorkloadModel w =
      Model(R"pb(
        layers: 2 hidden: 1024 heads: 8 vocab: 1000 seq_len: 1024 global_batch_sequences: 8)pb");
  EXPECT_FALSE(w.moe.enabled);
  auto best = SearchParallelism(w, Hw(8), 8);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->config.ep, 1);
  EXPECT_EQ(InSeconds(best->estimate.expert_parallel), 0.0);
}

}  // namespace
}  // namespace dcplan

// The step model after the speed work of issue 22 gives the same estimate, bit for bit, as the
// model before it (planner/workload/workload_model_reference.cc, a copy of commit 435d80b's
// EstimateStep): on every preset's hardware, for workloads that take every branch of the model
// (FlashAttention or not, each software generation, gated or not, tied or untied embeddings,
// `params` overriding the shape, the attention kernel's own efficiency, sequences long enough for
// context parallelism), over random configurations (fixed seed, 250 per pair) of every
// recomputation mode. Every entry point is held to it: the plain EstimateStep, the one with
// EstimateLayerKernels, the one with EstimateGroupFigures too, and EstimateStepIfItFits (the
// search's: its memory figures when the configuration does not fit, all of it when it does); and
// the search's answer is the reference's estimate of the configuration it picked.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "planner/presets/test_workloads.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "planner/workload/workload_model_reference.h"

namespace dcplan {
namespace {

// The same bits (0.0 and -0.0 apart, a NaN equal to itself).
bool Same(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

// Every field of two estimates, bit for bit; the differences as text.
std::string Differences(const StepEstimate& a, const StepEstimate& b) {
  std::string out;
  auto check = [&](const char* name, double x, double y) {
    if (!Same(x, y)) {
      out += std::string(name) + ": " + std::to_string(x) + " vs " + std::to_string(y) + "; ";
    }
  };
  check("infeasible", static_cast<double>(a.infeasible), static_cast<double>(b.infeasible));
  check("micro_batches", static_cast<double>(a.micro_batches),
        static_cast<double>(b.micro_batches));
  check("recomputed_layers", static_cast<double>(a.recomputed_layers),
        static_cast<double>(b.recomputed_layers));
  check("step", units::InSeconds(a.step), units::InSeconds(b.step));
  check("compute", units::InSeconds(a.compute), units::InSeconds(b.compute));
  check("memory_bound", units::InSeconds(a.memory_bound), units::InSeconds(b.memory_bound));
  check("tensor_parallel", units::InSeconds(a.tensor_parallel),
        units::InSeconds(b.tensor_parallel));
  check("pipeline_p2p", units::InSeconds(a.pipeline_p2p), units::InSeconds(b.pipeline_p2p));
  check("pipeline_bubble", units::InSeconds(a.pipeline_bubble),
        units::InSeconds(b.pipeline_bubble));
  check("data_parallel_exposed", units::InSeconds(a.data_parallel_exposed),
        units::InSeconds(b.data_parallel_exposed));
  check("optimizer", units::InSeconds(a.optimizer), units::InSeconds(b.optimizer));
  check("context_parallel", units::InSeconds(a.context_parallel),
        units::InSeconds(b.context_parallel));
  check("data_parallel", units::InSeconds(a.data_parallel), units::InSeconds(b.data_parallel));
  check("data_parallel_scale_up", units::InSeconds(a.data_parallel_scale_up),
        units::InSeconds(b.data_parallel_scale_up));
  check("data_parallel_scale_out", units::InSeconds(a.data_parallel_scale_out),
        units::InSeconds(b.data_parallel_scale_out));
  check("weights", units::InBytes(a.weights), units::InBytes(b.weights));
  check("gradients", units::InBytes(a.gradients), units::InBytes(b.gradients));
  check("optimizer_state", units::InBytes(a.optimizer_state), units::InBytes(b.optimizer_state));
  check("activations", units::InBytes(a.activations), units::InBytes(b.activations));
  check("memory", units::InBytes(a.memory), units::InBytes(b.memory));
  check("memory_usable", units::InBytes(a.memory_usable), units::InBytes(b.memory_usable));
  check("mfu", units::InFraction(a.mfu), units::InFraction(b.mfu));
  check("hfu", units::InFraction(a.hfu), units::InFraction(b.hfu));
  check("model_flops_per_step", units::InFlops(a.model_flops_per_step),
        units::InFlops(b.model_flops_per_step));
  return out;
}

Workload WorkloadFrom(const std::string& text) {
  Workload w;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &w)) << text;
  return w;
}

// Workloads that between them take every branch of the step model.
std::vector<Workload> Workloads() {
  return {
      // Llama 3 405B: gated, grouped-query attention, FlashAttention, current software.
      WorkloadFrom(R"pb(name: "llama3-405b"
                        layers: 126
                        hidden: 16384
                        heads: 128
                        kv_heads: 8
                        ffn_hidden: 53248
                        gated_mlp: true
                        vocab: 128256
                        seq_len: 8192
                        global_batch_sequences: 2048)pb"),
      // GPT-3 175B on 2021 software: no FlashAttention, no sequence parallelism, fixed buckets.
      WorkloadFrom(R"pb(name: "gpt3-2021"
                        layers: 96
                        hidden: 12288
                        heads: 96
                        vocab: 50257
                        seq_len: 2048
                        global_batch_sequences: 1536
                        framework { generation: SOFTWARE_MEGATRON_2021 })pb"),
      // 2022 software (selective recomputation, no FlashAttention), untied embeddings, params
      // given.
      WorkloadFrom(R"pb(name: "mt-2022"
                        layers: 40
                        hidden: 6144
                        heads: 48
                        vocab: 51200
                        seq_len: 2048
                        global_batch_sequences: 512
                        untied_embeddings: true
                        params: 2.0e10
                        framework { generation: SOFTWARE_MEGATRON_2022 })pb"),
      // Long sequences (context parallelism searched), every overlap switched the other way.
      WorkloadFrom(R"pb(name: "long"
                        layers: 32
                        hidden: 4096
                        heads: 32
                        kv_heads: 8
                        ffn_hidden: 14336
                        gated_mlp: true
                        vocab: 128256
                        seq_len: 131072
                        global_batch_sequences: 64
                        framework {
                          overlap_tensor_parallel: true
                          overlap_pipeline_sends: false
                          overlap_gradient_sync: false
                          distributed_optimizer: false
                          pipeline_scatter_gather: false
                          balance_pipeline_stages: false
                          gradient_bucket_params: 1000000
                        })pb"),
      // Small and odd: 1-byte precision, 3 heads, a layer count no pipeline divides evenly.
      WorkloadFrom(R"pb(name: "odd"
                        layers: 7
                        hidden: 768
                        heads: 3
                        vocab: 32000
                        seq_len: 1000
                        global_batch_sequences: 96
                        precision_bytes: 1
                        framework { sequence_parallel: false })pb"),
      // FP8 with every recipe switch the other way from its default: attention and the output
      // layer in FP8, current scaling, BF16 activations, its own GEMM speedup.
      WorkloadFrom(R"pb(name: "fp8"
                        layers: 80
                        hidden: 8192
                        heads: 64
                        kv_heads: 8
                        ffn_hidden: 28672
                        gated_mlp: true
                        vocab: 128256
                        seq_len: 8192
                        global_batch_sequences: 1024
                        precision: TRAINING_PRECISION_FP8
                        fp8 {
                          attention_in_fp8: true
                          output_layer_in_fp8: true
                          current_scaling: true
                          activations_in_fp8: false
                          gemm_speedup_over_bf16: 1.6
                        })pb"),
      // FP8 with its recipe's defaults on 2024 software (FlashAttention-2, no tensor-parallel
      // overlap).
      WorkloadFrom(R"pb(name: "fp8-2024"
                        layers: 61
                        hidden: 7168
                        heads: 56
                        vocab: 100000
                        seq_len: 4096
                        global_batch_sequences: 768
                        block { style: BLOCK_STYLE_LLAMA }
                        precision: TRAINING_PRECISION_FP8
                        framework { generation: SOFTWARE_MEGATRON_2024 })pb"),
  };
}

// Mixtures of experts (the reference predates them: held to the plain EstimateStep).
std::vector<Workload> MoeWorkloads() {
  return {
      MixtralAsBenchmarked(),
      WorkloadFrom(R"pb(name: "deepseek-v3-fp8"
                        layers: 61
                        hidden: 7168
                        heads: 128
                        ffn_hidden: 18432
                        gated_mlp: true
                        vocab: 129280
                        seq_len: 4096
                        global_batch_sequences: 15360
                        untied_embeddings: true
                        precision: TRAINING_PRECISION_FP8
                        moe {
                          experts: 256
                          experts_per_token: 8
                          expert_ffn_hidden: 2048
                          shared_experts: 1
                          dense_layers: 3
                        })pb"),
  };
}

// The hardware of every preset, and h100-dgx with each calibration branch switched.
std::vector<TrainingHardware> Hardwares() {
  std::vector<TrainingHardware> out;
  for (const std::string& name : PresetNames()) {
    const PlanRequest r = LoadPreset(name).value();
    out.push_back(BuildTrainingHardware(r.hardware()));
  }
  PlanRequest h100 = LoadPreset("h100-dgx").value();
  EfficiencyCalibration& cal = *h100.mutable_hardware()->mutable_calibration();
  cal.set_attention_efficiency(0.35);
  cal.set_compute_units(132);
  out.push_back(BuildTrainingHardware(h100.hardware()));
  cal.set_gemm_knee_flops_per_byte(0);
  cal.clear_compute_units();
  h100.mutable_hardware()->mutable_network()->set_nics_per_gpu(0);  // no scale-out fabric
  out.push_back(BuildTrainingHardware(h100.hardware()));
  return out;
}

// Random configurations per (hardware, workload).
constexpr int kConfigurations = 250;

constexpr Recompute kRecomputeModes[] = {RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_PARTIAL,
                                         RECOMPUTE_FULL};

// What a random configuration is drawn from: a tensor-parallel degree from `tps`, dp, micro-batch
// and cp powers of two below 2^dp_doublings, 2^micro_batch_doublings and 2^cp_doublings.
struct ConfigRanges {
  const int64_t* tps;
  size_t tp_count;
  int dp_doublings, micro_batch_doublings, cp_doublings;
};
constexpr int64_t kDenseTps[] = {1, 2, 4, 8, 3, 72};
constexpr ConfigRanges kDenseRanges = {kDenseTps, 6, 12, 5, 4};
constexpr int64_t kMoeTps[] = {1, 2, 4, 8};
constexpr ConfigRanges kMoeRanges = {kMoeTps, 4, 10, 4, 2};

// A random configuration of `w` (ep left at 1): any pp up to the layers, any virtual stages that
// divide them, any recompute mode, ZeRO stage -1 (the framework's) .. 3.
ParallelConfig RandomConfig(std::mt19937_64& rng, const WorkloadModel& w, const ConfigRanges& r) {
  ParallelConfig c;
  c.tp = r.tps[rng() % r.tp_count];
  c.pp = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.layers));
  c.dp = int64_t{1} << (rng() % static_cast<uint64_t>(r.dp_doublings));
  c.micro_batch = int64_t{1} << (rng() % static_cast<uint64_t>(r.micro_batch_doublings));
  c.virtual_stages =
      1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(MaxVirtualStages(w.layers, c.pp)));
  c.recompute = kRecomputeModes[rng() % 4];
  c.cp = int64_t{1} << (rng() % static_cast<uint64_t>(r.cp_doublings));
  c.zero = static_cast<int64_t>(rng() % 5) - 1;
  return c;
}

TEST(StepModelEquivalence, EveryFieldMatchesTheModelBeforeTheSpeedWork) {
  std::mt19937_64 rng(22);
  int compared = 0;
  int memory_stops = 0;
  for (const TrainingHardware& hw : Hardwares()) {
    for (const Workload& proto : Workloads()) {
      const WorkloadModel w = BuildWorkloadModel(proto).value();
      // One held model across the configurations (as the search holds one).
      StepModel model = MakeStepModel(w, hw);
      for (int i = 0; i < kConfigurations; ++i) {
        const ParallelConfig c = RandomConfig(rng, w, kDenseRanges);
        const int64_t cluster = c.Gpus() + static_cast<int64_t>(rng() % 1000);
        const StepEstimate want = reference::ReferenceEstimateStep(w, hw, c, cluster);
        const StepEstimate plain = EstimateStep(w, hw, c, cluster);
        const StepEstimate reused =
            EstimateStep(w, hw, c, cluster, EstimateLayerKernels(w, hw, c.tp, c.cp, c.micro_batch));
        ASSERT_EQ(Differences(plain, want), "") << w.name << " " << DescribeConfig(c);
        ASSERT_EQ(Differences(reused, want), "") << w.name << " " << DescribeConfig(c);
        // The held model: its kernels and group figures worked out (a new configuration), then
        // reused (another recomputation mode, pipeline split and ZeRO stage of the same tp, cp,
        // micro-batch and dp).
        ASSERT_EQ(Differences(EstimateStep(model, c, cluster), want), "")
            << w.name << " " << DescribeConfig(c);
        ParallelConfig again = c;
        again.recompute = kRecomputeModes[rng() % 4];
        again.pp = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(w.layers));
        again.virtual_stages =
            1 + static_cast<int64_t>(rng() %
                                     static_cast<uint64_t>(MaxVirtualStages(w.layers, again.pp)));
        again.zero = static_cast<int64_t>(rng() % 5) - 1;
        const int64_t again_cluster = again.Gpus() + static_cast<int64_t>(rng() % 1000);
        ASSERT_EQ(Differences(EstimateStep(model, again, again_cluster),
                              reference::ReferenceEstimateStep(w, hw, again, again_cluster)),
                  "")
            << w.name << " " << DescribeConfig(again);
        // The search's entry points: with the group's figures worked out once, and the one that
        // stops at the memory when the configuration does not fit (then only the memory figures
        // and why are the reference's; otherwise all of it).
        const LayerKernels k = EstimateLayerKernels(w, hw, c.tp, c.cp, c.micro_batch);
        const GroupFigures g = EstimateGroupFigures(w, hw, c.tp, c.cp, c.dp);
        ASSERT_EQ(Differences(EstimateStep(w, hw, c, cluster, k, g), want), "")
            << w.name << " " << DescribeConfig(c);
        const StepEstimate fits = EstimateStepIfItFits(w, hw, c, cluster, k, g);
        // The search's: the same with the held model's constants.
        const StepEstimate model_fits = EstimateStepIfItFits(model, c, cluster, k, g);
        ASSERT_EQ(Differences(model_fits, fits), "") << w.name << " " << DescribeConfig(c);
        if (want.infeasible == Infeasible::kMemory) {
          ++memory_stops;
          EXPECT_EQ(fits.infeasible, Infeasible::kMemory);
          EXPECT_EQ(fits.micro_batches, want.micro_batches);
          EXPECT_EQ(fits.recomputed_layers, want.recomputed_layers);
          for (const auto& [x, y] :
               {std::pair{fits.weights, want.weights}, std::pair{fits.gradients, want.gradients},
                std::pair{fits.optimizer_state, want.optimizer_state},
                std::pair{fits.activations, want.activations}, std::pair{fits.memory, want.memory},
                std::pair{fits.memory_usable, want.memory_usable}}) {
            ASSERT_TRUE(Same(units::InBytes(x), units::InBytes(y)))
                << w.name << " " << DescribeConfig(c);
          }
        } else {
          ASSERT_EQ(Differences(fits, want), "") << w.name << " " << DescribeConfig(c);
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, kConfigurations * static_cast<int>(Workloads().size() * Hardwares().size()));
  // Both branches of EstimateStepIfItFits were taken many times.
  EXPECT_GT(memory_stops, 100);
  EXPECT_LT(memory_stops, compared - 100);
}

// A mixture of experts: the held model, the search's entry point and kernels carrying the experts'
// multiplies (AddExpertKernels) against the plain EstimateStep, over random configurations with
// expert parallelism (ep dividing dp and the experts), both branches of EstimateStepIfItFits.
TEST(StepModelEquivalence, MixturesOfExpertsMatchThePlainEstimate) {
  std::mt19937_64 rng(2222);
  int compared = 0;
  int memory_stops = 0;
  for (const TrainingHardware& hw : Hardwares()) {
    for (const Workload& proto : MoeWorkloads()) {
      const WorkloadModel w = BuildWorkloadModel(proto).value();
      StepModel model = MakeStepModel(w, hw);
      for (int i = 0; i < kConfigurations; ++i) {
        ParallelConfig c = RandomConfig(rng, w, kMoeRanges);
        do {
          c.ep = int64_t{1} << (rng() % 9);
        } while (c.dp % c.ep != 0 || w.moe.experts % c.ep != 0);
        const int64_t cluster = c.Gpus() + static_cast<int64_t>(rng() % 1000);
        const StepEstimate want = EstimateStep(w, hw, c, cluster);
        ASSERT_EQ(Differences(EstimateStep(model, c, cluster), want), "")
            << w.name << " " << DescribeConfig(c);
        ParallelConfig again = c;
        again.recompute = kRecomputeModes[rng() % 4];
        do {
          again.ep = int64_t{1} << (rng() % 9);
        } while (again.dp % again.ep != 0 || w.moe.experts % again.ep != 0);
        ASSERT_EQ(
            Differences(EstimateStep(model, again, cluster), EstimateStep(w, hw, again, cluster)),
            "")
            << w.name << " " << DescribeConfig(again);
        const LayerKernels k = EstimateLayerKernels(w, hw, c.tp, c.cp, c.micro_batch);
        const GroupFigures g = EstimateGroupFigures(w, hw, c.tp, c.cp, c.dp);
        ASSERT_EQ(Differences(EstimateStep(w, hw, c, cluster, k, g), want), "")
            << w.name << " " << DescribeConfig(c);
        const StepEstimate fits = EstimateStepIfItFits(model, c, cluster, k, g);
        ASSERT_EQ(Differences(fits, EstimateStepIfItFits(w, hw, c, cluster, k, g)), "")
            << w.name << " " << DescribeConfig(c);
        // The experts' multiplies in the kernels (as the search keeps them): this ep's, and
        // another ep's (then worked out again).
        LayerKernels with_experts = k;
        AddExpertKernels(w, hw, c.tp, c.ep, with_experts);
        ASSERT_EQ(with_experts.experts_ep, c.ep);
        ASSERT_EQ(Differences(EstimateStepIfItFits(model, c, cluster, with_experts, g), fits), "")
            << w.name << " " << DescribeConfig(c);
        ASSERT_EQ(Differences(EstimateStep(w, hw, c, cluster, with_experts, g), want), "")
            << w.name << " " << DescribeConfig(c);
        AddExpertKernels(w, hw, c.tp, c.ep == 1 ? 2 : 1, with_experts);
        ASSERT_EQ(Differences(EstimateStepIfItFits(model, c, cluster, with_experts, g), fits), "")
            << w.name << " " << DescribeConfig(c);
        if (want.infeasible == Infeasible::kMemory) {
          ++memory_stops;
          EXPECT_EQ(fits.infeasible, Infeasible::kMemory);
          ASSERT_TRUE(Same(units::InBytes(fits.memory), units::InBytes(want.memory)))
              << w.name << " " << DescribeConfig(c);
          ASSERT_TRUE(Same(units::InBytes(fits.activations), units::InBytes(want.activations)))
              << w.name << " " << DescribeConfig(c);
        } else {
          ASSERT_EQ(Differences(fits, want), "") << w.name << " " << DescribeConfig(c);
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(memory_stops, 50);
  EXPECT_LT(memory_stops, compared - 50);
}

TEST(StepModelEquivalence, TheSearchPicksWhatTheReferenceEstimates) {
  for (const TrainingHardware& hw : Hardwares()) {
    for (const Workload& proto : Workloads()) {
      const WorkloadModel w = BuildWorkloadModel(proto).value();
      for (int64_t gpus : {8, 1000, 8192}) {
        auto r = SearchParallelism(w, hw, gpus);
        if (!r.ok()) continue;
        const StepEstimate want = reference::ReferenceEstimateStep(w, hw, r->config, gpus);
        EXPECT_EQ(Differences(r->estimate, want), "") << w.name << " " << DescribeConfig(r->config);
      }
    }
    // Mixtures of experts: the plain EstimateStep of the configuration the search picked.
    for (const Workload& proto : MoeWorkloads()) {
      const WorkloadModel w = BuildWorkloadModel(proto).value();
      for (int64_t gpus : {64, 1024}) {
        auto r = SearchParallelism(w, hw, gpus);
        if (!r.ok()) continue;
        EXPECT_EQ(Differences(r->estimate, EstimateStep(w, hw, r->config, gpus)), "")
            << w.name << " " << DescribeConfig(r->config);
      }
    }
  }
}

// SearchMode::kBestOnly (the reference table's search) skips a (tp, cp, pp, dp), and inside it a
// (recomputation, virtual stages), whose step has a lower bound no shorter than the best found;
// the answer must be the exhaustive search's, bit for bit, and so must every error. Every preset's
// hardware and every dense workload above, from one GPU to 30,000, at the workload's batch and at
// four times it (the table grows the batch with the cluster), and with the micro-batch or the
// virtual stages fixed (the bound's other branches). A mixture of experts is searched in full in
// both modes. The bound must also skip something, or the mode is for nothing: it evaluated 14% of
// the full search's configurations here (a bound that broke the interleaving rule for every v once
// pruned the best split: this test caught it).
TEST(StepModelEquivalence, TheBestOnlySearchFindsTheExhaustiveAnswer) {
  int64_t every = 0, best_only = 0;
  int compared = 0, errors = 0;
  const auto compare = [&](const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus) {
    const auto full = SearchParallelism(w, hw, gpus, SearchMode::kEveryConfiguration);
    const auto fast = SearchParallelism(w, hw, gpus, SearchMode::kBestOnly);
    const std::string what =
        w.name + " on " + std::to_string(gpus) + " GPUs, batch " + std::to_string(w.global_batch);
    ASSERT_EQ(full.status(), fast.status()) << what;
    ++compared;
    if (!full.ok()) {
      ++errors;
      return;
    }
    EXPECT_EQ(DescribeConfig(fast->config), DescribeConfig(full->config)) << what;
    EXPECT_EQ(fast->config.zero, full->config.zero) << what;
    EXPECT_EQ(Differences(fast->estimate, full->estimate), "") << what;
    EXPECT_LE(fast->evaluated, full->evaluated) << what;
    every += full->evaluated;
    best_only += fast->evaluated;
  };
  for (const TrainingHardware& hw : Hardwares()) {
    for (const Workload& proto : Workloads()) {
      WorkloadModel w = BuildWorkloadModel(proto).value();
      for (int64_t gpus : {1, 8, 100, 1000, 8192, 30000}) compare(w, hw, gpus);
      w.global_batch *= 4;
      for (int64_t gpus : {1000, 30000}) compare(w, hw, gpus);
    }
  }
  const TrainingHardware hw = Hardwares().front();
  for (const Workload& proto : Workloads()) {
    for (const char* fixed :
         {"parallelism { micro_batch: 2 }", "parallelism { virtual_stages: 2 }"}) {
      Workload with = proto;
      ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(fixed, &with));
      const WorkloadModel w = BuildWorkloadModel(with).value();
      for (int64_t gpus : {64, 4096}) compare(w, hw, gpus);
    }
  }
  // The catalog's dense models (the reference workload among them) as the reference table
  // searches them: the batch grows by 1,024 tokens a GPU beyond the published one.
  for (const std::string& name : ModelNames()) {
    const WorkloadModel base = BuildWorkloadModel(LoadModel(name).value()).value();
    if (base.moe.enabled) continue;
    for (const TrainingHardware& h : Hardwares()) {
      for (int64_t gpus : {512, 16384, 65536}) {
        WorkloadModel w = base;
        w.global_batch = std::max(w.global_batch, gpus * 1024 / w.seq_len);
        compare(w, h, gpus);
      }
    }
  }
  for (const Workload& proto : MoeWorkloads()) {
    const WorkloadModel w = BuildWorkloadModel(proto).value();
    const auto full = SearchParallelism(w, hw, 1024, SearchMode::kEveryConfiguration);
    const auto fast = SearchParallelism(w, hw, 1024, SearchMode::kBestOnly);
    ASSERT_EQ(full.status(), fast.status()) << w.name;
    if (full.ok()) EXPECT_EQ(fast->evaluated, full->evaluated) << w.name << ": searched in full";
  }
  EXPECT_GT(compared - errors, 100);
  EXPECT_GT(errors, 0);  // some sizes fit no configuration: the errors were compared too
  EXPECT_LT(best_only, every / 4) << best_only << " of " << every;
}

// The reference table searches each size with the best (tp, cp, pp) of a neighbouring size searched
// first (SearchParallelism's first_shape), so that the bound rules out more from the start. The
// fastest step, and so the MFU the table keeps, must be the best-only search's without it, bit for
// bit, whatever the shape lent: a neighbour's best (an eighth larger, as the table's entries are),
// the worst split there is (tp = cp = pp = 1), one the search never tries (tp = 3) and one larger
// than the cluster; errors stay the same. The catalog's dense models on every preset's hardware,
// as the table grows their batch. A neighbour's shape must also save evaluations, or it is for
// nothing (it evaluated 74% of the unseeded best-only search's configurations here; the H100
// preset's 405B table was searched in about half the time).
TEST(StepModelEquivalence, ASearchStartedAtANeighboursShapeFindsTheSameStep) {
  int64_t plain = 0, seeded = 0;
  int compared = 0;
  for (const std::string& name : ModelNames()) {
    const WorkloadModel base = BuildWorkloadModel(LoadModel(name).value()).value();
    if (base.moe.enabled) continue;
    for (const TrainingHardware& hw : Hardwares()) {
      for (int64_t gpus : {64, 1024, 9216, 36864}) {
        const auto at = [&](int64_t g) {
          WorkloadModel w = base;
          w.global_batch = std::max(w.global_batch, g * 1024 / w.seq_len);
          return w;
        };
        const WorkloadModel w = at(gpus);
        const auto alone = SearchParallelism(w, hw, gpus, SearchMode::kBestOnly);
        const auto neighbour =
            SearchParallelism(at(gpus * 9 / 8), hw, gpus * 9 / 8, SearchMode::kBestOnly);
        std::vector<ParallelConfig> shapes(3);
        shapes[1].tp = 3;
        shapes[2].tp = 8;
        shapes[2].pp = 4 * gpus;
        if (neighbour.ok()) shapes.push_back(neighbour->config);
        for (size_t i = 0; i < shapes.size(); ++i) {
          const auto from = SearchParallelism(w, hw, gpus, SearchMode::kBestOnly, &shapes[i]);
          const std::string what = name + " on " + std::to_string(gpus) + " GPUs, first shape " +
                                   DescribeConfig(shapes[i]);
          ASSERT_EQ(alone.status(), from.status()) << what;
          ++compared;
          if (!alone.ok()) continue;
          EXPECT_EQ(units::InSeconds(from->estimate.step), units::InSeconds(alone->estimate.step))
              << what;
          EXPECT_EQ(units::InFraction(from->estimate.mfu), units::InFraction(alone->estimate.mfu))
              << what;
          if (i == 3) {
            plain += alone->evaluated;
            seeded += from->evaluated;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_LT(seeded, plain * 4 / 5) << seeded << " of " << plain;
}

}  // namespace
}  // namespace dcplan

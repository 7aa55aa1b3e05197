// Google Benchmark: configurations per second of the parallelism search (each configuration is one
// EstimateStep: step time, memory and MFU in closed form).
//   ./bazelw run -c opt //planner:parallelism_search_benchmark
// The items_per_second counter is configurations evaluated per second (the issue asks for >= 1e6 on
// a 2-core machine); one thread, so it is per core.
#include <string>

#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "planner/presets/presets.h"
#include "planner/presets/test_workloads.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"

namespace dcplan {
namespace {

Workload WorkloadFrom(const std::string& text) {
  Workload w;
  google::protobuf::TextFormat::ParseFromString(text, &w);
  return w;
}

// Llama 3 405B-like (126 layers: up to 126 pipeline depths) and GPT-3 175B, on h100-dgx.
const char kLlama405b[] = R"pb(
  name: "llama3-405b"
  layers: 126
  hidden: 16384
  heads: 128
  kv_heads: 8
  ffn_hidden: 53248
  gated_mlp: true
  vocab: 128256
  seq_len: 8192
  global_batch_sequences: 2048)pb";
const char kGpt3[] = R"pb(
  name: "gpt3-175b"
  layers: 96
  hidden: 12288
  heads: 96
  vocab: 50257
  seq_len: 2048
  global_batch_sequences: 1536)pb";

void Search(benchmark::State& state, const Workload& workload) {
  const WorkloadModel w = BuildWorkloadModel(workload).value();
  const TrainingHardware hw = BuildTrainingHardware(LoadPreset("h100-dgx").value().hardware());
  const int64_t gpus = state.range(0);
  int64_t configurations = 0;
  for (auto _ : state) {
    auto r = SearchParallelism(w, hw, gpus);
    benchmark::DoNotOptimize(r);
    configurations += r.ok() ? r->evaluated : 0;
  }
  state.SetItemsProcessed(configurations);
  state.counters["configs_per_search"] =
      benchmark::Counter(static_cast<double>(configurations) / state.iterations());
}

void Search(benchmark::State& state, const char* workload) {
  Search(state, WorkloadFrom(workload));
}

void BM_SearchLlama405b(benchmark::State& state) { Search(state, kLlama405b); }
void BM_SearchGpt3(benchmark::State& state) { Search(state, kGpt3); }

BENCHMARK(BM_SearchLlama405b)->Arg(8192)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchGpt3)->Arg(1024)->Arg(8192)->Unit(benchmark::kMillisecond);

// Mixtures of experts: the search also covers expert parallelism (every ep dividing dp and the
// experts). Mixtral 8x22B from the catalog as the Megatron-Core benchmark ran it (sequences of
// 4,096, 256 per step; planner/presets/test_workloads.h) and DeepSeek-V3 (its preset), on h100-dgx.
const char kDeepSeekV3[] = R"pb(
  name: "deepseek-v3"
  layers: 61
  hidden: 7168
  heads: 128
  ffn_hidden: 18432
  gated_mlp: true
  vocab: 129280
  seq_len: 4096
  global_batch_sequences: 15360
  untied_embeddings: true
  moe {
    experts: 256
    experts_per_token: 8
    expert_ffn_hidden: 2048
    shared_experts: 1
    dense_layers: 3
  })pb";
void BM_SearchMixtral(benchmark::State& state) { Search(state, MixtralAsBenchmarked()); }
void BM_SearchDeepSeekV3(benchmark::State& state) { Search(state, kDeepSeekV3); }
BENCHMARK(BM_SearchMixtral)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SearchDeepSeekV3)->Arg(2048)->Unit(benchmark::kMillisecond);

// One configuration alone: the cost of one estimate as the search sees it, with a held StepModel
// (the workload's and hardware's constants, the configuration's kernels and group figures reused).
ParallelConfig EstimateConfig() {
  ParallelConfig c;
  c.tp = 8;
  c.pp = 16;
  c.dp = 64;
  c.virtual_stages = 4;
  c.recompute = RECOMPUTE_FULL;
  return c;
}
void BM_EstimateStep(benchmark::State& state) {
  const WorkloadModel w = BuildWorkloadModel(WorkloadFrom(kLlama405b)).value();
  const TrainingHardware hw = BuildTrainingHardware(LoadPreset("h100-dgx").value().hardware());
  const ParallelConfig c = EstimateConfig();
  StepModel model = MakeStepModel(w, hw);
  for (auto _ : state) {
    benchmark::DoNotOptimize(EstimateStep(model, c, 8192));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateStep);

// The same configuration through EstimateStep(workload, hardware, ...), which works everything out
// again each call.
void BM_EstimateStepUncached(benchmark::State& state) {
  const WorkloadModel w = BuildWorkloadModel(WorkloadFrom(kLlama405b)).value();
  const TrainingHardware hw = BuildTrainingHardware(LoadPreset("h100-dgx").value().hardware());
  const ParallelConfig c = EstimateConfig();
  for (auto _ : state) {
    benchmark::DoNotOptimize(EstimateStep(w, hw, c, 8192));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateStepUncached);

}  // namespace
}  // namespace dcplan

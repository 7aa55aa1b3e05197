// Google Benchmark: Monte Carlo samples per second (solving only).
//   ./bazelw run -c opt //planner/sweep:monte_carlo_benchmark
//
// - BM_FitSamples: h100-dgx under a 50 MW power cap with three uncertain inputs (PUE, electricity
//   price, GPU price), one thread: a sample patches the model and solves (the target is >= 10^6
//   samples/s on one core).
// - BM_FitSamplesRun: the same through Run on 1 and 2 threads (percentile reduction excluded).
// - BM_HardwareSamples: 200 samples with an uncertain HBM size, each a new reference-MFU table.
// - BM_Workload405B: 10,000 samples of h100-dgx under 100 MW training Llama 3 405B (126 layers,
//   hidden 16,384, 15T tokens) with three uncertain prices (electricity, GPU price, WACC), through
//   Create and Summarize on 2 threads (target: under 2 s), the model built afresh each iteration so
//   no cache carries over. The prices leave the cluster's size alone, so the whole run costs one
//   parallelism search. An input that moves the size (the PUE under a power cap) costs one search
//   per distinct size instead (~850 sizes for PUE 1.15-1.45 at 100 MW): 0.1-0.3 s each in full, a
//   few milliseconds with SearchMode::kBestOnly, which the samples use (`fit --power=100MW
//   --model=llama3-405b` with that PUE, 2,000 samples: 2.1 s -> 0.14 s).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/sweep/monte_carlo.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

PlanRequest H100Uncertain(double power_watts, uint64_t samples) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  r.mutable_constraints()->set_power_cap_watts(power_watts);
  for (const char* u :
       {"pue=triangular(1.15, 1.25, 1.45)", "electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)",
        "gpu_price=normal($27.5K, $3K)"}) {
    *r.add_uncertain() = ParseUncertain(u).value();
  }
  r.mutable_monte_carlo()->set_samples(samples);
  return r;
}

// A run made from `r` and summarized: what a request with uncertain inputs costs from scratch.
absl::StatusOr<Distributions> CreateAndSummarize(const PlanRequest& r,
                                                 const MonteCarloOptions& options) {
  absl::StatusOr<MonteCarloRun> mc = MonteCarloRun::Create(r);
  if (!mc.ok()) return mc.status();
  return mc->Summarize(options);
}

void BM_FitSamples(benchmark::State& state) {
  static const MonteCarloRun* mc =
      new MonteCarloRun(MonteCarloRun::Create(H100Uncertain(50e6, 1 << 19)).value());
  std::vector<SampleResult> out(4096);
  int64_t first = 0;
  double gpus = 0;
  for (auto _ : state) {
    mc->SolveSamples(first, absl::MakeSpan(out));
    first = (first + 4096) % (1 << 19);
    gpus += out[0].outputs[kOutGpuCount];
  }
  benchmark::DoNotOptimize(gpus);
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_FitSamples)->Unit(benchmark::kMicrosecond);

void BM_FitSamplesRun(benchmark::State& state) {
  static const MonteCarloRun* mc =
      new MonteCarloRun(MonteCarloRun::Create(H100Uncertain(50e6, 1000000)).value());
  MonteCarloOptions options;
  options.threads = static_cast<int>(state.range(0));
  double gpus = 0;
  for (auto _ : state) {
    absl::Status s = mc->Run(options, [&](int64_t, absl::Span<const SampleResult> rows) {
      for (const SampleResult& r : rows) gpus += r.outputs[kOutGpuCount];
      return absl::OkStatus();
    });
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  benchmark::DoNotOptimize(gpus);
  state.SetItemsProcessed(state.iterations() * mc->samples());
}
BENCHMARK(BM_FitSamplesRun)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// 200 samples of h100-dgx under 50 MW with an uncertain HBM size, through Create and Summarize on
// one thread, a new seed each iteration: every sample's hardware is new to the reference workload's
// table (its key holds what the step model reads), so each costs the searches of the table entries
// around its cluster size. What SearchMode::kBestOnly is for (`dcplan fit --samples=2000` of this:
// 17.8 s before it, 0.9 s after).
void BM_HardwareSamples(benchmark::State& state) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  r.mutable_constraints()->set_power_cap_watts(50e6);
  *r.add_uncertain() = ParseUncertain("hardware.accelerator.hbm_bytes=uniform(70e9, 90e9)").value();
  r.mutable_monte_carlo()->set_samples(200);
  MonteCarloOptions options;
  options.threads = 1;
  static uint64_t seed = 1;  // across repetitions too: every sample a new table
  for (auto _ : state) {
    r.mutable_monte_carlo()->set_seed(seed++);
    auto d = CreateAndSummarize(r, options);
    if (!d.ok()) return state.SkipWithError(d.status().ToString().c_str());
    benchmark::DoNotOptimize(d->gpu_count().p50());
  }
  state.SetItemsProcessed(state.iterations() * 200);
}
BENCHMARK(BM_HardwareSamples)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Workload405B(benchmark::State& state) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  r.mutable_constraints()->set_power_cap_watts(100e6);
  for (const char* u : {"electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)",
                        "gpu_price=normal($27.5K, $3K)", "wacc=triangular(6%, 8%, 12%)"}) {
    *r.add_uncertain() = ParseUncertain(u).value();
  }
  r.mutable_monte_carlo()->set_samples(10000);
  for (const char* a : {"layers=126", "hidden=16384", "heads=128", "kv_heads=8", "ffn_hidden=53248",
                        "gated_mlp=true", "vocab=128256", "seq_len=8192",
                        "global_batch_tokens=16Mi", "train_tokens=15T"}) {
    absl::Status s = ApplyAssignment(a, "benchmark", &r);
    if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  }
  MonteCarloOptions options;
  options.threads = 2;
  for (auto _ : state) {
    auto d = CreateAndSummarize(r, options);
    if (!d.ok()) return state.SkipWithError(d.status().ToString().c_str());
    benchmark::DoNotOptimize(d->time_to_train_seconds().p50());
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_Workload405B)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
}  // namespace dcplan

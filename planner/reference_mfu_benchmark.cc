// Google Benchmark: what the reference workload (planner/reference_mfu.h) costs a plan.
//   ./bazelw run -c opt //planner:reference_mfu_benchmark
//
// - BM_FitH100Reference: SolvePlan for h100-dgx at 50 MW (the preset's reference workload, no
//   ledger), with the process's table already holding the sizes it needs: what every fit after the
//   first costs, and what the page pays per slider event.
// - BM_FitH100ReferenceCold: the same with a table of its own each iteration (the HBM size moves by
//   one byte, which enters the table's key): the first fit of a process, two searches of the
//   405B job.
// - BM_ReferenceMfuAt: one table read at a size drawn from 1,000 to 1,000,000 GPUs (warm).
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "planner/reference_mfu.h"

namespace dcplan {
namespace {

PlanRequest H100At50MW() {
  PlanRequest request = LoadPreset("h100-dgx").value();
  request.mutable_constraints()->set_power_cap_watts(50e6);
  return request;
}

ExplainOptions NoLedger() {
  ExplainOptions explain;
  explain.assumptions = false;
  explain.influence = false;
  explain.marginal = false;
  explain.next_step = false;
  return explain;
}

void BM_FitH100Reference(benchmark::State& state) {
  const PlanRequest request = H100At50MW();
  const ExplainOptions explain = NoLedger();
  benchmark::DoNotOptimize(SolvePlan(request, explain));  // fills the table's entries
  for (auto _ : state) benchmark::DoNotOptimize(SolvePlan(request, explain));
}
BENCHMARK(BM_FitH100Reference)->Unit(benchmark::kMicrosecond);

void BM_FitH100ReferenceCold(benchmark::State& state) {
  PlanRequest request = H100At50MW();
  const ExplainOptions explain = NoLedger();
  // Across repetitions too (a repetition that met the same sizes again would time the cache).
  static double bump = 0;
  const double hbm_base = request.hardware().accelerator().hbm_bytes();
  for (auto _ : state) {
    const double hbm = hbm_base + ++bump;
    request.mutable_hardware()->mutable_accelerator()->set_hbm_bytes(hbm);
    benchmark::DoNotOptimize(SolvePlan(request, explain));
  }
}
BENCHMARK(BM_FitH100ReferenceCold)->Unit(benchmark::kMillisecond);

void BM_ReferenceMfuAt(benchmark::State& state) {
  const PlanRequest request = H100At50MW();
  auto model = ReferenceMfu(request.efficiency().reference_workload(), request.hardware()).value();
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int64_t> size(125, 125000);
  std::vector<int64_t> sizes(4096);
  for (int64_t& g : sizes) g = 8 * size(rng);
  for (int64_t g : sizes) model->MfuAt(g);  // warm
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->MfuAt(sizes[i++ & 4095]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReferenceMfuAt);

}  // namespace
}  // namespace dcplan

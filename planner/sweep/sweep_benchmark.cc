// Google Benchmark: points per second of `dcplan sweep` (solving only, no output) over the power
// cap for the seed and h100-dgx presets, on 1 and 2 threads. items_per_second is the sweep rate.
//   ./bazelw run -c opt //planner/sweep:sweep_benchmark
//
// Each iteration solves a whole grid of 1,000,000 points:
//   - "power":     power=1MW:1000MW:... one axis of 1,000,000 distinct caps (each value validated
//   once);
//   - "power_pue": power x pue, 1,000 caps x 1,000 PUEs (what a planner's 2-D sweep looks like);
//   the PUE moving fastest in BM_SweepH100PueInner.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "planner/presets/presets.h"
#include "planner/sweep/sweep.h"

namespace dcplan {
namespace {

Sweep MakeSweep(const std::string& preset, const std::vector<std::string>& specs) {
  std::vector<SweepAxis> axes;
  for (const std::string& spec : specs) axes.push_back(ParseSweepAxis(spec).value());
  return Sweep::Create(LoadPreset(preset).value(), axes).value();
}

void RunSweep(benchmark::State& state, const Sweep& sweep) {
  SweepOptions options;
  options.threads = static_cast<int>(state.range(0));
  int64_t gpus = 0;
  for (auto _ : state) {
    absl::Status status = sweep.Run(options, [&](int64_t, absl::Span<const SweepRow> rows) {
      for (const SweepRow& row : rows) gpus += row.gpus;
      return absl::OkStatus();
    });
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  benchmark::DoNotOptimize(gpus);
  state.SetItemsProcessed(state.iterations() * sweep.size());
}

// 1 MW to 1,000 MW in 999 W steps: 1,000,000 caps.
const std::vector<std::string> kPower = {"power=1MW:1000MW:999W"};
// 1,000 PUEs from 1.1 to 1.5995 x 1,000 caps from 1 MW to 1,000 MW.
const std::vector<std::string> kPowerPue = {"pue=1.1:1.5995:0.0005", "power=1MW:1000MW:log1000"};
// The same plane the other way round, as README's `dcplan sweep` example and tests/bench_compare.sh
// write it: 1,000 caps from 10 MW to 500 MW x 1,000 PUEs from 1.1 to 1.6, the PUE moving fastest.
const std::vector<std::string> kPowerThenPue = {"power=10MW:500MW:log1000", "pue=1.1:1.6:log1000"};

void BM_SweepSeedPower(benchmark::State& state) {
  static const Sweep* sweep = new Sweep(MakeSweep("seed", kPower));
  RunSweep(state, *sweep);
}
BENCHMARK(BM_SweepSeedPower)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Solving only: the reference workload's MFU table (planner/reference_mfu.h) is filled by a first
// run outside the timing, as it is for every sweep after a process's first on that hardware.
void BM_SweepH100Power(benchmark::State& state) {
  static const Sweep* sweep = [] {
    auto* s = new Sweep(MakeSweep("h100-dgx", kPower));
    (void)s->Run({}, [](int64_t, absl::Span<const SweepRow>) { return absl::OkStatus(); });
    return s;
  }();
  RunSweep(state, *sweep);
}
BENCHMARK(BM_SweepH100Power)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same sweep with the MFU table cold: each iteration's hardware differs by one byte of HBM (a
// new table, searched entry by entry as the sweep reaches each size), as in a process's first
// sweep.
void BM_SweepH100PowerColdTable(benchmark::State& state) {
  PlanRequest base = LoadPreset("h100-dgx").value();
  std::vector<SweepAxis> axes = {ParseSweepAxis(kPower[0]).value()};
  SweepOptions options;
  options.threads = static_cast<int>(state.range(0));
  int64_t gpus = 0, points = 0;
  static double extra_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    PlanRequest r = base;
    extra_bytes += 1;
    r.mutable_hardware()->mutable_accelerator()->set_hbm_bytes(
        base.hardware().accelerator().hbm_bytes() + extra_bytes);
    Sweep sweep = Sweep::Create(r, axes).value();
    state.ResumeTiming();
    absl::Status status = sweep.Run(options, [&](int64_t, absl::Span<const SweepRow> rows) {
      for (const SweepRow& row : rows) gpus += row.gpus;
      return absl::OkStatus();
    });
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    points += sweep.size();
  }
  benchmark::DoNotOptimize(gpus);
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_SweepH100PowerColdTable)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SweepSeedPowerPue(benchmark::State& state) {
  static const Sweep* sweep = new Sweep(MakeSweep("seed", kPowerPue));
  RunSweep(state, *sweep);
}
BENCHMARK(BM_SweepSeedPowerPue)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SweepH100PowerPue(benchmark::State& state) {
  static const Sweep* sweep = new Sweep(MakeSweep("h100-dgx", kPowerPue));
  RunSweep(state, *sweep);
}
BENCHMARK(BM_SweepH100PowerPue)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SweepH100PueInner(benchmark::State& state) {
  static const Sweep* sweep = new Sweep(MakeSweep("h100-dgx", kPowerThenPue));
  RunSweep(state, *sweep);
}
BENCHMARK(BM_SweepH100PueInner)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace dcplan

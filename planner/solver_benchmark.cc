// Google Benchmark: how long one solve and one evaluation take.
//   ./bazelw run -c opt //planner:solver_benchmark
#include <string>

#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "planner/cluster.h"
#include "planner/model.h"
#include "planner/solver.h"

namespace dcplan {
namespace {

Model ModelFrom(const std::string& text) {
  PlanRequest request;
  google::protobuf::TextFormat::ParseFromString(text, &request);
  return BuildModel(request).value();
}

const char kSeed[] = R"pb(
  hardware {
    accelerator { peak_flops_per_second: 1e15 tdp_watts: 1400 }
    server { gpus_per_server: 8 }
    rack { max_servers_per_rack: 4 }
  }
  site { pue: 1.0 }
  constraints { power_cap_watts: 45.9e6 })pb";

const char kH100[] = R"pb(
  hardware {
    accelerator { peak_flops_per_second: 989.4e12 tdp_watts: 700 price_usd: 25000 }
    server { gpus_per_server: 8 overhead_watts: 4600 non_gpu_price_usd: 100000 }
    rack { max_servers_per_rack: 4 power_limit_watts: 41000 price_usd: 50000 }
    pod { racks_per_pod: 8 }
    network {
      nics_per_gpu: 1
      port_bits_per_second: 4e11
      switch_radix: 64
      switch_power_watts: 1500
      switch_price_usd: 30000
      optic_power_watts: 15
      optic_price_usd: 1000
    }
  }
  site {
    pue: 1.3
    building { critical_it_power_watts: 50e6 }
    max_buildings: 4
    substation { transformer_rating_va: 150e6 transformer_count: 3 redundancy: REDUNDANCY_N_PLUS_1 }
  }
  costs { facility_usd_per_it_watt: 11 electricity_usd_per_kwh: 0.08 }
  constraints { power_cap_watts: 100e6 budget_usd: 5e9 budget_on: BUDGET_ON_TCO })pb";

void BM_SolveSeed(benchmark::State& state) {
  Model m = ModelFrom(kSeed);
  for (auto _ : state) benchmark::DoNotOptimize(Solve(m));
}
BENCHMARK(BM_SolveSeed);

// The same written into one reused Solution (SolveInto, as a sweep solves): the solver's own work
// without building and zeroing the returned StatusOr<Solution>.
void BM_SolveSeedInto(benchmark::State& state) {
  Model m = ModelFrom(kSeed);
  Solution s;
  for (auto _ : state) {
    benchmark::DoNotOptimize(SolveInto(m, -1, &s));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_SolveSeedInto);

void BM_SolveH100AllCaps(benchmark::State& state) {
  Model m = ModelFrom(kH100);
  for (auto _ : state) benchmark::DoNotOptimize(Solve(m));
}
BENCHMARK(BM_SolveH100AllCaps);

// The h100-dgx preset's hardware under a power cap only (what `dcplan sweep --vary=power=...`
// solves).
void BM_SolveH100PowerCap(benchmark::State& state) {
  Model m = ModelFrom(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 989.4e12 tdp_watts: 700 price_usd: 27500 }
      server { gpus_per_server: 8 overhead_watts: 4600 non_gpu_price_usd: 75000 }
      rack { max_servers_per_rack: 4 power_limit_watts: 41000 overhead_watts: 150 price_usd: 15000 }
      pod { racks_per_pod: 8 }
      network {
        nics_per_gpu: 1
        port_bits_per_second: 4e11
        switch_radix: 64
        switch_power_watts: 750
        switch_price_usd: 30000
        optic_power_watts: 8.5
        optic_price_usd: 750
      }
    }
    site { pue: 1.44 }
    constraints { power_cap_watts: 50e6 })pb");
  for (auto _ : state) benchmark::DoNotOptimize(Solve(m));
}
BENCHMARK(BM_SolveH100PowerCap);

// The same with the answer's neighbour as the guess, as a sweep over the power cap gives it.
void BM_SolveH100PowerCapWithGuess(benchmark::State& state) {
  Model m = ModelFrom(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 989.4e12 tdp_watts: 700 price_usd: 27500 }
      server { gpus_per_server: 8 overhead_watts: 4600 non_gpu_price_usd: 75000 }
      rack { max_servers_per_rack: 4 power_limit_watts: 41000 overhead_watts: 150 price_usd: 15000 }
      pod { racks_per_pod: 8 }
      network {
        nics_per_gpu: 1
        port_bits_per_second: 4e11
        switch_radix: 64
        switch_power_watts: 750
        switch_price_usd: 30000
        optic_power_watts: 8.5
        optic_price_usd: 750
      }
    }
    site { pue: 1.44 }
    constraints { power_cap_watts: 50e6 })pb");
  const int64_t answer = Solve(m).value().servers;
  for (auto _ : state) benchmark::DoNotOptimize(Solve(m, answer - 1));
}
BENCHMARK(BM_SolveH100PowerCapWithGuess);

void BM_EvaluateH100Cluster(benchmark::State& state) {
  Model m = ModelFrom(kH100);
  int64_t g = 8;
  for (auto _ : state) {
    benchmark::DoNotOptimize(EvaluateCluster(m, g));
    g = g < 1000000 ? g + 8 : 8;
  }
}
BENCHMARK(BM_EvaluateH100Cluster);

}  // namespace
}  // namespace dcplan

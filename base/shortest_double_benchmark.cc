// WriteShortestDouble against std::to_chars on the values a sweep's CSV row formats: 17-digit
// powers and prices, and short axis values.
#include <charconv>
#include <cstdint>
#include <random>
#include <vector>

#include "base/shortest_double.h"
#include "benchmark/benchmark.h"

namespace dcplan {
namespace {

std::vector<double> Values(bool long_digits) {
  std::mt19937_64 rng(1);
  std::vector<double> v;
  for (int i = 0; i < 4096; ++i) {
    v.push_back(long_digits ? 21806553.077452447 * (1 + static_cast<double>(rng() % 100000) * 1e-7)
                            : 1.1 + static_cast<double>(i % 1000) * 0.0005);
  }
  return v;
}

void BM_ToChars(benchmark::State& state) {
  const std::vector<double> v = Values(state.range(0) != 0);
  char buf[64];
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::to_chars(buf, buf + sizeof(buf), v[i++ & 4095]).ptr);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ToChars)->ArgName("long")->Arg(0)->Arg(1);

void BM_WriteShortestDouble(benchmark::State& state) {
  const std::vector<double> v = Values(state.range(0) != 0);
  char buf[kShortestDoubleRoom];
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(WriteShortestDouble(v[i++ & 4095], buf));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_WriteShortestDouble)->ArgName("long")->Arg(0)->Arg(1);

}  // namespace
}  // namespace dcplan

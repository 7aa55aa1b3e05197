// File: planner/workload_mfu.cc
#include "planner/workload_mfu.h"

#include "absl/strings/str_format.h"
#include "planner/workload/parallelism_search.h"

namespace dcplan {
namespace {
// Sizes remembered before the cache starts over (a `scale` sweep may ask for many).
constexpr size_t kCacheLimit = 4096;
}  // namespace

WorkloadMfuModel::WorkloadMfuModel(const WorkloadModel& workload, const TrainingHardware& hardware)
    : workload_(workload), hardware_(hardware) {
  workload_.fixed_dp = 0;
}

units::Ratio WorkloadMfuModel::MfuAt(int64_t gpus) const {
  if (gpus <= 0) return units::Fraction(0.0);
  {
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(gpus);
    if (it != cache_.end()) return units::Fraction(it->second);
  }
  // Only the MFU is read: the search may skip what cannot be the best (the same answer).
  absl::StatusOr<SearchResult> best =
      SearchParallelism(workload_, hardware_, gpus, SearchMode::kBestOnly);
  const double mfu = best.ok() ? units::InFraction(best->estimate.mfu) : 0.0;
  absl::MutexLock lock(&mu_);
  if (cache_.size() >= kCacheLimit) cache_.clear();
  cache_[gpus] = mfu;
  return units::Fraction(mfu);
}

std::string WorkloadMfuModel::Describe() const {
  return absl::StrFormat(
      "workload %s: best parallel split per cluster size (%.3g params, %d layers, hidden %d, "
      "seq %d, batch %d sequences; PaLM MFU)",
      workload_.name.empty() ? "(unnamed)" : workload_.name, workload_.params, workload_.layers,
      workload_.hidden, workload_.seq_len, workload_.global_batch);
}

std::vector<double> WorkloadMfuModel::RealizedComputeCandidates() const {
  // Beyond the largest useful size realized compute is flat: the solver's compute objective then
  // prefers that size to any larger one.
  return {static_cast<double>(LargestUsefulGpus(workload_, hardware_, nullptr))};
}

}  // namespace dcplan

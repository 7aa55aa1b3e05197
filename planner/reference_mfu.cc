// File: planner/reference_mfu.cc
#include "planner/reference_mfu.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "planner/presets/models.h"
#include "units/format.h"

namespace dcplan {
namespace {

// Distinct (hardware, job) tables kept before the cache starts over (live models keep theirs).
constexpr size_t kCacheLimit = 64;

double Nan() { return std::numeric_limits<double>::quiet_NaN(); }

// What the step model reads of a request's hardware (BuildTrainingHardware), as bytes: the
// accelerator, the network and the calibration without prices and power figures, and the GPUs per
// server, serialized deterministically. A field added to those messages enters the key by default.
std::string HardwareKey(const Hardware& hardware) {
  Hardware h;
  *h.mutable_accelerator() = hardware.accelerator();
  h.mutable_accelerator()->clear_name();
  h.mutable_accelerator()->clear_price_usd();
  h.mutable_accelerator()->clear_measured_power_watts();
  h.mutable_server()->set_gpus_per_server(hardware.server().gpus_per_server());
  *h.mutable_network() = hardware.network();
  h.mutable_network()->clear_switch_price_usd();
  h.mutable_network()->clear_optic_price_usd();
  h.mutable_network()->clear_copper_cable_end_price_usd();
  h.mutable_network()->clear_switch_power_watts();
  h.mutable_network()->clear_switch_measured_power_watts();
  h.mutable_network()->clear_optic_power_watts();
  *h.mutable_calibration() = hardware.calibration();
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  h.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

}  // namespace

std::string ReferenceModelName(const ReferenceWorkload& reference) {
  return reference.model().empty() ? std::string(defaults::kReferenceModel) : reference.model();
}

ReferenceMfuModel::ReferenceMfuModel(const WorkloadModel& workload,
                                     const TrainingHardware& hardware, double tokens_per_gpu)
    : workload_(workload), hardware_(hardware), tokens_per_gpu_(tokens_per_gpu) {
  workload_.fixed_dp = 0;
  for (int k = 0; k < kEntries; ++k) {
    // 1 .. 7, then m x 2^e for m = 8 .. 15: eight a doubling, each a multiple of a high power of
    // two, as clusters are built (an awkward size leaves GPUs idle in every split).
    sizes_[k] = k < 7 ? k + 1 : static_cast<int64_t>(8 + (k - 7) % 8) << ((k - 7) / 8);
    log2_sizes_[k] = std::log2(static_cast<double>(sizes_[k]));
    mfu_[k].store(Nan(), std::memory_order_relaxed);
    shape_[k].store(0, std::memory_order_relaxed);
  }
}

int64_t ReferenceMfuModel::BatchAt(int64_t gpus) const {
  if (tokens_per_gpu_ <= 0) return workload_.global_batch;
  const double grown = std::ceil(static_cast<double>(gpus) * tokens_per_gpu_ /
                                 static_cast<double>(workload_.seq_len));
  if (!(grown > static_cast<double>(workload_.global_batch))) return workload_.global_batch;
  return grown >= 9.0e18 ? std::numeric_limits<int64_t>::max() / 2 : static_cast<int64_t>(grown);
}

absl::StatusOr<SearchResult> ReferenceMfuModel::SearchAt(int64_t gpus) const {
  {
    absl::MutexLock lock(&search_mu_);
    auto it = searches_.find(gpus);
    if (it != searches_.end()) return it->second;
  }
  // Two threads may search the same size at once; both find the same result.
  WorkloadModel w = workload_;
  w.global_batch = BatchAt(gpus);
  absl::StatusOr<SearchResult> result =
      SearchParallelism(w, hardware_, gpus, SearchMode::kBestOnly);
  absl::MutexLock lock(&search_mu_);
  if (searches_.size() >= 4096) searches_.clear();
  searches_.emplace(gpus, result);
  return result;
}

double ReferenceMfuModel::ExactMfu(int64_t gpus) const {
  if (gpus <= 0) return 0.0;
  absl::StatusOr<SearchResult> best = SearchAt(gpus);
  return best.ok() ? units::InFraction(best->estimate.mfu) : 0.0;
}

double ReferenceMfuModel::Entry(int k) const {
  double v = mfu_[k].load(std::memory_order_acquire);
  if (std::isnan(v)) {
    // Searched once whatever the threads asking: the others wait for the first's answer (a sweep's
    // threads reach the same sizes at once; searching each twice doubled a cold table's cost).
    std::call_once(entry_once_[k],
                   [&] { mfu_[k].store(SearchEntry(k), std::memory_order_release); });
    v = mfu_[k].load(std::memory_order_acquire);
  }
  return v;
}

double ReferenceMfuModel::SearchEntry(int k) const {
  constexpr int64_t kField = int64_t{1} << 21;
  ParallelConfig first;
  bool have_first = false;
  for (int d = 1; d <= 2 && !have_first; ++d) {
    for (const int j : {k + d, k - d}) {
      if (j < 0 || j >= kEntries) continue;
      const int64_t packed = shape_[static_cast<size_t>(j)].load(std::memory_order_acquire);
      if (packed == 0) continue;
      first.tp = packed % kField;
      first.cp = packed / kField % kField;
      first.pp = packed / kField / kField;
      have_first = true;
      break;
    }
  }
  const int64_t gpus = sizes_[static_cast<size_t>(k)];
  WorkloadModel w = workload_;
  w.global_batch = BatchAt(gpus);
  absl::StatusOr<SearchResult> best =
      SearchParallelism(w, hardware_, gpus, SearchMode::kBestOnly, have_first ? &first : nullptr);
  if (!best.ok()) return 0.0;
  const ParallelConfig& c = best->config;
  if (c.tp > 0 && c.tp < kField && c.cp > 0 && c.cp < kField && c.pp > 0 && c.pp < kField) {
    shape_[static_cast<size_t>(k)].store(c.tp + kField * (c.cp + kField * c.pp),
                                         std::memory_order_release);
  }
  return units::InFraction(best->estimate.mfu);
}

int ReferenceMfuModel::EntryBelow(int64_t gpus) {
  // G = m x 2^e + r with m in [8, 16).
  int k;
  if (gpus < 8) {
    k = static_cast<int>(gpus) - 1;
  } else {
    const int e = 63 - __builtin_clzll(static_cast<uint64_t>(gpus)) - 3;
    k = 7 + 8 * e + static_cast<int>((gpus >> e) - 8);
  }
  return std::min(k, kEntries - 2);  // beyond the table: searched exactly below
}

int ReferenceMfuModel::Prefill(absl::Span<const int64_t> gpu_counts, ThreadPool& pool) const {
  std::vector<int> entries;
  for (const int64_t g : gpu_counts) {
    if (g <= 0) continue;
    const int k = EntryBelow(g);
    entries.push_back(k);
    if (sizes_[k] != g) entries.push_back(k + 1);  // MfuAt interpolates to the next
  }
  // Largest first (the longest searches), each once, only those not searched yet.
  std::sort(entries.begin(), entries.end(), std::greater<int>());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [&](int k) { return !std::isnan(mfu_[k].load(std::memory_order_acquire)); }),
      entries.end());
  pool.ParallelFor(static_cast<int64_t>(entries.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) (void)Entry(entries[static_cast<size_t>(i)]);
  });
  return static_cast<int>(entries.size());
}

units::Ratio ReferenceMfuModel::MfuAt(int64_t gpus) const {
  if (gpus <= 0) return units::Fraction(0.0);
  const int k = EntryBelow(gpus);
  if (sizes_[k] == gpus) return units::Fraction(Entry(k));
  const double lo = Entry(k);
  const double hi = Entry(k + 1);
  if (lo > 0 && hi > 0 && gpus < sizes_[k + 1]) {
    const double x = std::log2(static_cast<double>(gpus));
    const double t = (x - log2_sizes_[k]) / (log2_sizes_[k + 1] - log2_sizes_[k]);
    return units::Fraction(lo + t * (hi - lo));
  }
  // At the edge of what fits (or beyond the table): the size's own search, remembered.
  {
    absl::MutexLock lock(&mu_);
    auto it = exact_.find(gpus);
    if (it != exact_.end()) return units::Fraction(it->second);
  }
  const double mfu = ExactMfu(gpus);
  absl::MutexLock lock(&mu_);
  if (exact_.size() >= 4096) exact_.clear();
  exact_[gpus] = mfu;
  return units::Fraction(mfu);
}

std::string ReferenceMfuModel::Describe() const {
  const auto count = [](double n) { return units::FormatCount(static_cast<uint64_t>(n)); };
  const std::string batch =
      absl::StrFormat("batch %s x %s tokens", count(static_cast<double>(workload_.global_batch)),
                      count(static_cast<double>(workload_.seq_len)));
  const std::string growth =
      fixed_batch()
          ? " at every size"
          : absl::StrFormat(", +%s tokens a GPU beyond %s GPUs", count(tokens_per_gpu_),
                            count(static_cast<double>(workload_.global_batch) *
                                  static_cast<double>(workload_.seq_len) / tokens_per_gpu_));
  return absl::StrFormat("reference workload %s, step model; %s%s", workload_.name, batch, growth);
}

std::vector<double> ReferenceMfuModel::RealizedComputeCandidates() const {
  // A fixed batch stops paying beyond the largest useful size; a growing one keeps paying.
  std::call_once(candidates_once_, [this] {
    if (fixed_batch()) {
      candidates_ = {static_cast<double>(LargestUsefulGpus(workload_, hardware_, nullptr))};
    }
  });
  return candidates_;
}

absl::StatusOr<std::shared_ptr<const ReferenceMfuModel>> ReferenceMfu(
    const ReferenceWorkload& reference, const Hardware& hardware) {
  const std::string name = ReferenceModelName(reference);
  const double tokens = reference.fixed_batch()                ? 0.0
                        : reference.batch_tokens_per_gpu() > 0 ? reference.batch_tokens_per_gpu()
                                                               : defaults::kBatchTokensPerGpu;
  std::string key = absl::StrCat(name, "|", tokens, "|", HardwareKey(hardware));

  static absl::Mutex mu(absl::kConstInit);
  static auto* cache =
      new std::unordered_map<std::string, std::shared_ptr<const ReferenceMfuModel>>();
  {
    absl::MutexLock lock(&mu);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  absl::StatusOr<Workload> proto = LoadModel(name);
  if (!proto.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("efficiency.reference_workload.model: ", proto.status().message()));
  }
  DCPLAN_ASSIGN_OR_RETURN(WorkloadModel workload, BuildWorkloadModel(*proto));
  auto model =
      std::make_shared<const ReferenceMfuModel>(workload, BuildTrainingHardware(hardware), tokens);
  absl::MutexLock lock(&mu);
  if (cache->size() >= kCacheLimit) cache->clear();
  auto [it, inserted] = cache->emplace(std::move(key), model);
  return it->second;
}

}  // namespace dcplan

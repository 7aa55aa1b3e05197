// File: planner/reference_mfu.h
//
// MFU from the training-step model on a reference job (proto ReferenceWorkload): at each cluster
// size, the MFU of the best parallel split (workload/parallelism_search.h) of a named model preset
// on the request's hardware. Every real preset plans with it, so realized compute reflects the
// GPU's memory, bandwidth, scale-up domain and fabric, not the seed's teaching curve.
//
// Speed. Its searches are SearchMode::kBestOnly: the exhaustive search's answer, bit for bit, with
// the (tp, cp, pp, dp) that a lower bound on their step rules out skipped (about a seventh of the
// configurations evaluated; a fit's two cold searches of the 405B job 12 ms -> 0.8 ms), and a table
// entry's search starts with the (tp, cp, pp) of the nearest entry searched already, which rules
// out more from the start (the same MFU; the H100 preset's table in about half the time; SearchAt,
// whose split a plan reports, searches without it). A search still costs about a millisecond and
// the solver, sweeps, Monte Carlo and the page ask for MFU at many sizes, so the model is a table:
// the searched MFU at sizes m x 2^e, m = 8 .. 15 (eight a doubling, each a multiple of a high power
// of two as real clusters are; up to ~10^12 GPUs), each entry searched the first time a size near
// it is asked for and kept, interpolated linearly in log2(G) between the two entries around G (a
// size that is an entry gets its own search). A size whose every split leaves GPUs idle (976 =
// 61 x 16) realizes less in the full search than the curve through well-divisible sizes:
// reference_mfu_test measures that too. Reading it is two atomic loads and a log2: no lock, no
// allocation. Where either entry around G does not fit the job at all (MFU 0, too few GPUs for its
// memory) the size is searched exactly. reference_mfu_test bounds the interpolation against the
// full search.
//
// Models are shared process-wide: ReferenceMfu() returns the same table for requests whose
// hardware and reference job agree in everything the step model reads (prices aside), so fits,
// sweep points, Monte Carlo samples, the ledger's re-solves and the server's requests reuse it.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::shared_ptr<const ReferenceMfuModel> mfu,
//                           ReferenceMfu(request.efficiency().reference_workload(),
//                                        request.hardware()));
//   units::Ratio m = mfu->MfuAt(16384);
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "base/thread_pool.h"
#include "planner/defaults.h"
#include "planner/mfu_model.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

class ReferenceMfuModel final : public MfuModel {
 public:
  // 1 .. 7 GPUs, then eight sizes a doubling up to 16 x 2^36 (about 1.1 x 10^12 GPUs).
  static constexpr int kEntries = 7 + 8 * 37 + 1;

  // `workload` is the model preset built (its dp is cleared); `tokens_per_gpu` > 0 grows the batch
  // beyond the published one, 0 keeps it fixed.
  ReferenceMfuModel(const WorkloadModel& workload, const TrainingHardware& hardware,
                    double tokens_per_gpu);

  units::Ratio MfuAt(int64_t gpus) const override;
  std::string Describe() const override;
  std::vector<double> RealizedComputeCandidates() const override;

  // The job's global batch on `gpus` GPUs, in sequences.
  int64_t BatchAt(int64_t gpus) const;
  // The search on `gpus` GPUs (the job with BatchAt(gpus)): the split a plan of that size
  // reports, or why nothing fits (SearchMode::kBestOnly: its `evaluated` and `feasible` count only
  // the configurations the bound left). Remembered per size (a plan's note asks for it on every
  // solve; the search costs about a millisecond), thread-safe.
  absl::StatusOr<SearchResult> SearchAt(int64_t gpus) const;
  // The searched MFU at `gpus` without the table (for tests and the plan's exact figure).
  double ExactMfu(int64_t gpus) const;

  // Searches, spread over `pool`'s threads (largest sizes first), the table entries MfuAt reads
  // for each of `gpu_counts` that are not searched yet. The table fills as MfuAt meets its sizes,
  // one entry at a time, and a thread that needs an entry being searched waits for it: a sweep
  // whose points land on many sizes at once fills the entries up front on every thread instead.
  // The table is the same either way. Returns how many entries it searched.
  int Prefill(absl::Span<const int64_t> gpu_counts, ThreadPool& pool) const;

  const WorkloadModel& workload() const { return workload_; }
  const std::string& name() const { return workload_.name; }
  bool fixed_batch() const { return tokens_per_gpu_ <= 0; }
  double tokens_per_gpu() const { return tokens_per_gpu_; }

 private:
  double Entry(int k) const;
  // Entry k's search (its MFU, or 0 when the job fits in no split): the nearest entry searched
  // already lends its best split's (tp, cp, pp), searched first, which lets the bound rule out
  // more of the rest (SearchParallelism's first_shape: the same MFU).
  double SearchEntry(int k) const;
  // The entry at or below `gpus` (> 0), at most kEntries - 2 (beyond the table: the last pair).
  static int EntryBelow(int64_t gpus);

  WorkloadModel workload_;  // dp cleared; global_batch = the published batch
  TrainingHardware hardware_;
  double tokens_per_gpu_;
  std::array<int64_t, kEntries> sizes_{};
  std::array<double, kEntries> log2_sizes_{};
  mutable std::array<std::atomic<double>, kEntries> mfu_;  // NaN until searched
  // Each searched entry's best (tp, cp, pp), packed as tp | cp << 21 | pp << 42; 0 until searched.
  mutable std::array<std::atomic<int64_t>, kEntries> shape_;
  // Each entry is searched once: a thread that needs one being searched waits for it.
  mutable std::array<std::once_flag, kEntries> entry_once_;
  mutable absl::Mutex mu_;
  mutable std::unordered_map<int64_t, double> exact_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex search_mu_;
  mutable std::unordered_map<int64_t, absl::StatusOr<SearchResult>> searches_
      ABSL_GUARDED_BY(search_mu_);
  mutable std::once_flag candidates_once_;
  mutable std::vector<double> candidates_;
};

// The shared model for a request's reference job on its hardware (validated request fields).
// Unknown model names and jobs the validator refuses are errors naming
// efficiency.reference_workload.model.
absl::StatusOr<std::shared_ptr<const ReferenceMfuModel>> ReferenceMfu(
    const ReferenceWorkload& reference, const Hardware& hardware);

// The reference job's model preset name with the default applied.
std::string ReferenceModelName(const ReferenceWorkload& reference);

}  // namespace dcplan

// File: planner/workload_mfu.h
//
// The workload efficiency model behind the MfuModel interface (planner/mfu_model.h), so `fit`,
// `scale` and `compare` use it like the seed's curve: MFU(G) is the MFU of the best parallel
// configuration of the workload on G GPUs (workload/parallelism_search.h), in the PaLM convention,
// over all G GPUs (a split that leaves GPUs idle pays for them). A cluster the workload fits on in
// no configuration has MFU 0: it cannot train the job at all.
//
// The workload's fixed tp, pp, micro-batch, virtual stages and recomputation are kept; its dp is
// not, since the cluster size sets it. Results are cached per size (the solver and `scale` ask for
// a few sizes, each costing one search of ~10^4 to 10^5 configurations), behind a mutex, so the
// model stays thread-safe.
//
// Example:
//   TrainingHardware hw = BuildTrainingHardware(request.hardware());
//   auto mfu = std::make_shared<WorkloadMfuModel>(workload, hw);
//   units::Ratio m = mfu->MfuAt(8192);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "planner/mfu_model.h"
#include "planner/workload/workload_model.h"
#include "units/units.h"

namespace dcplan {

class WorkloadMfuModel final : public MfuModel {
 public:
  WorkloadMfuModel(const WorkloadModel& workload, const TrainingHardware& hardware);
  // MFU of the best configuration on `gpus` GPUs; 0 for no GPUs or when nothing fits.
  units::Ratio MfuAt(int64_t gpus) const override;
  std::string Describe() const override;
  // The largest useful size (LargestUsefulGpus): realized compute is flat beyond it, so the compute
  // objective stops there (DIMINISHING_RETURNS) instead of proposing a mostly idle cluster.
  std::vector<double> RealizedComputeCandidates() const override;

 private:
  WorkloadModel workload_;  // dp cleared
  TrainingHardware hardware_;
  mutable absl::Mutex mu_;
  mutable std::unordered_map<int64_t, double> cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dcplan

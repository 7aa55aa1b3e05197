#include "planner/presets/test_workloads.h"

#include "planner/presets/models.h"

namespace dcplan {

Workload MixtralAsBenchmarked() {
  Workload w = LoadModel("mixtral-8x22b").value();
  w.set_seq_len(4096);
  w.set_global_batch_sequences(256);
  w.clear_params();
  w.mutable_moe()->clear_active_params();
  w.clear_sources();
  return w;
}

}  // namespace dcplan

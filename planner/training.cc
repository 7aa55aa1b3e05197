// File: planner/training.cc
#include "planner/training.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "base/status_macros.h"

namespace dcplan {

absl::StatusOr<TrainingPlan> PlanTraining(const Model& model, int64_t gpus, bool cluster_sets_dp,
                                          SearchMode mode) {
  if (model.workload == nullptr) {
    return absl::FailedPreconditionError("no workload: set PlanRequest.workload (or --workload)");
  }
  WorkloadModel workload = *model.workload;
  if (cluster_sets_dp) workload.fixed_dp = 0;
  DCPLAN_ASSIGN_OR_RETURN(SearchResult best,
                          SearchParallelism(workload, model.training_hardware, gpus, mode));
  return ToTrainingPlan(workload, model.training_hardware, best, gpus);
}

Goodput EstimateGoodput(const ReliabilityModel& r, int64_t busy_gpus, int64_t gpus_per_server,
                        double params) {
  Goodput g;
  const double gpus = static_cast<double>(std::max<int64_t>(busy_gpus, 1));
  const double servers =
      std::ceil(gpus / static_cast<double>(std::max<int64_t>(gpus_per_server, 1)));
  const auto rate = gpus / r.gpu_mtbi + servers / r.server_mtbi;  // interruptions per second
  g.mtbi = 1.0 / rate;
  g.checkpoint_write = params * r.checkpoint_per_param / r.checkpoint_write;
  g.restart = r.restart + g.checkpoint_write;
  g.checkpoint_interval =
      r.checkpoint_interval > units::Seconds(0.0)
          ? r.checkpoint_interval
          : units::Seconds(
                std::sqrt(2.0 * units::InSeconds(g.checkpoint_write) * units::InSeconds(g.mtbi)));
  const units::Time period = g.checkpoint_interval + g.checkpoint_write;
  const double lost = units::InFraction(g.checkpoint_write / period) +
                      units::InFraction((g.restart + 0.5 * period) / g.mtbi);
  g.goodput = units::Fraction(std::max(0.0, 1.0 - lost));
  return g;
}

TrainingPlan ToTrainingPlan(const WorkloadModel& w, const TrainingHardware& hw,
                            const SearchResult& r, int64_t gpus) {
  using units::InBytes;
  using units::InSeconds;
  const StepEstimate& e = r.estimate;
  const ParallelConfig& c = r.config;
  TrainingPlan t;
  t.set_workload(w.name);
  t.set_gpu_count(static_cast<uint64_t>(gpus));
  t.set_idle_gpus(static_cast<uint64_t>(gpus - c.Gpus()));
  t.set_tp(static_cast<uint32_t>(c.tp));
  t.set_cp(static_cast<uint32_t>(c.cp));
  t.set_ep(static_cast<uint32_t>(c.ep));
  t.set_zero_stage(static_cast<uint32_t>(c.zero >= 0 ? c.zero : w.framework_zero));
  t.set_total_params(w.params);
  t.set_active_params(w.moe.enabled ? w.moe.active_params : w.params);
  t.set_pp(static_cast<uint32_t>(c.pp));
  t.set_dp(static_cast<uint32_t>(c.dp));
  t.set_micro_batch(static_cast<uint32_t>(c.micro_batch));
  t.set_virtual_stages(static_cast<uint32_t>(c.virtual_stages));
  t.set_recompute(c.recompute);
  t.set_micro_batches(static_cast<uint64_t>(e.micro_batches));
  t.set_recomputed_layers(static_cast<uint32_t>(e.recomputed_layers));
  t.set_global_batch_sequences(static_cast<uint64_t>(w.global_batch));
  t.set_searched(r.searched);
  t.set_configurations_evaluated(static_cast<uint64_t>(r.evaluated));
  t.set_mfu(units::InFraction(e.mfu));
  t.set_hfu(units::InFraction(e.hfu));
  t.set_mfu_at_precision_peak(units::InFraction(e.mfu_at_precision_peak));
  t.set_step_time_seconds(InSeconds(e.step));
  const double tokens_per_step =
      static_cast<double>(w.global_batch) * static_cast<double>(w.seq_len);
  const double tokens_per_second = tokens_per_step / InSeconds(e.step);
  t.set_tokens_per_second(tokens_per_second);
  t.set_realized_flops_per_second(
      units::InFlopsPerSecond(static_cast<double>(gpus) * hw.peak * e.mfu));
  t.set_model_flops_per_token(units::InFlops(w.model_flops_per_token));
  StepBreakdown* b = t.mutable_breakdown();
  b->set_compute_seconds(InSeconds(e.compute));
  b->set_memory_bound_seconds(InSeconds(e.memory_bound));
  b->set_tensor_parallel_seconds(InSeconds(e.tensor_parallel));
  b->set_pipeline_p2p_seconds(InSeconds(e.pipeline_p2p));
  b->set_pipeline_bubble_seconds(InSeconds(e.pipeline_bubble));
  b->set_data_parallel_exposed_seconds(InSeconds(e.data_parallel_exposed));
  b->set_optimizer_seconds(InSeconds(e.optimizer));
  b->set_context_parallel_seconds(InSeconds(e.context_parallel));
  b->set_expert_parallel_seconds(InSeconds(e.expert_parallel));
  b->set_data_parallel_seconds(InSeconds(e.data_parallel));
  b->set_data_parallel_scale_up_seconds(InSeconds(e.data_parallel_scale_up));
  b->set_data_parallel_scale_out_seconds(InSeconds(e.data_parallel_scale_out));
  MemoryBreakdown* m = t.mutable_memory();
  m->set_weights_bytes(InBytes(e.weights));
  m->set_gradients_bytes(InBytes(e.gradients));
  m->set_optimizer_bytes(InBytes(e.optimizer_state));
  m->set_activations_bytes(InBytes(e.activations));
  m->set_total_bytes(InBytes(e.memory));
  m->set_usable_bytes(InBytes(e.memory_usable));
  std::string why;
  t.set_largest_useful_gpus(static_cast<uint64_t>(LargestUsefulGpus(w, hw, &why)));
  t.set_largest_useful_reason(why);
  const Goodput g = EstimateGoodput(w.reliability, c.Gpus(), hw.gpus_per_server, w.params);
  const double goodput = units::InFraction(g.goodput);
  t.set_goodput(goodput);
  t.set_effective_mfu(units::InFraction(e.mfu) * goodput);
  t.set_mtbi_seconds(InSeconds(g.mtbi));
  t.set_checkpoint_write_seconds(InSeconds(g.checkpoint_write));
  t.set_checkpoint_interval_seconds(InSeconds(g.checkpoint_interval));
  t.set_restart_seconds(InSeconds(g.restart));
  if (w.has_train_tokens) {
    t.set_train_tokens(w.train_tokens);
    // With no progress at all (goodput 0) the job never finishes: time_to_train is left absent.
    if (goodput > 0) t.set_time_to_train_seconds(w.train_tokens / (tokens_per_second * goodput));
  }
  return t;
}

}  // namespace dcplan

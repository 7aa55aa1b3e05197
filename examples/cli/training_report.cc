// File: examples/cli/training_report.cc
#include "examples/cli/training_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/cli/flags.h"
#include "examples/cli/report.h"
#include "units/format.h"
#include "units/units.h"

namespace dcplan::cli {
namespace {

std::string Pct(double f) { return units::FormatPercent(units::Fraction(f), 1); }
std::string Sec(double s) { return units::FormatTime(units::Seconds(s), 2); }
std::string Gb(double bytes) { return absl::StrFormat("%.1f GB", bytes / 1e9); }

const char* RecomputeName(Recompute r) {
  switch (r) {
    case RECOMPUTE_NONE:
      return "none";
    case RECOMPUTE_SELECTIVE:
      return "selective";
    case RECOMPUTE_FULL:
      return "full";
    case RECOMPUTE_PARTIAL:
      return "partial";
    default:
      return "unspecified";
  }
}

}  // namespace

std::string TrainingTable(const TrainingPlan& t) {
  const StepBreakdown& b = t.breakdown();
  const MemoryBreakdown& m = t.memory();
  const double step = t.step_time_seconds();
  auto term = [&](double seconds) {
    return absl::StrFormat("%s (%s)", Sec(seconds), Pct(step > 0 ? seconds / step : 0));
  };
  std::string s;
  absl::StrAppend(
      &s, "training: ", t.workload().empty() ? "(unnamed)" : Printable(t.workload()), " on ",
      units::FormatCount(t.gpu_count()), " GPUs",
      t.idle_gpus() ? absl::StrCat(" (", units::FormatCount(t.idle_gpus()), " idle)") : "", "\n");
  if (t.largest_useful_gpus() > 0 && t.gpu_count() > t.largest_useful_gpus()) {
    absl::StrAppend(&s, "  too large     the job can use at most ",
                    units::FormatCount(t.largest_useful_gpus()),
                    " GPUs: ", t.largest_useful_reason(), "\n");
  }
  absl::StrAppendFormat(
      &s,
      "  parallelism   tp %d x cp %d x pp %d x dp %d%s, micro-batch %d, %d virtual "
      "stage(s), recompute %s%s%s (%s)\n",
      t.tp(), std::max<uint32_t>(t.cp(), 1), t.pp(), t.dp(),
      t.ep() > 1 ? absl::StrCat(" (ep ", t.ep(), ")") : "", t.micro_batch(), t.virtual_stages(),
      RecomputeName(t.recompute()),
      t.recompute() == RECOMPUTE_PARTIAL
          ? absl::StrCat(" (", t.recomputed_layers(), " layers per stage)")
          : "",
      t.zero_stage() >= 2
          ? absl::StrCat(", ZeRO-", t.zero_stage(), t.zero_stage() == 3 ? " (FSDP)" : "")
          : "",
      t.searched()
          ? absl::StrCat("best of ", units::FormatCount(t.configurations_evaluated()), " searched")
          : "as given");
  absl::StrAppendFormat(
      &s, "  MFU           %s%s (HFU %s), %s realized%s\n", Pct(t.mfu()),
      MfuIntervalNote(t.mfu_interval()), Pct(t.hfu()),
      units::FormatComputeRate(units::FlopsPerSecond(t.realized_flops_per_second()), 2),
      t.mfu_at_precision_peak() > 0 && t.mfu_at_precision_peak() != t.mfu()
          ? absl::StrCat("; ", Pct(t.mfu_at_precision_peak()), " of the FP8 peak")
          : "");
  if (t.active_params() > 0 && t.active_params() < t.total_params()) {
    absl::StrAppendFormat(&s,
                          "  experts       %.1fB active of %.1fB parameters (MFU counts the active "
                          "ones)\n",
                          t.active_params() / 1e9, t.total_params() / 1e9);
  }
  absl::StrAppendFormat(
      &s,
      "  goodput       %s of wall time (effective MFU %s): an interruption every %s, checkpoint "
      "%s every %s, restart %s\n",
      Pct(t.goodput()), Pct(t.effective_mfu()), Sec(t.mtbi_seconds()),
      Sec(t.checkpoint_write_seconds()), Sec(t.checkpoint_interval_seconds()),
      Sec(t.restart_seconds()));
  absl::StrAppendFormat(&s, "  step          %s for %s sequences (%s micro-batches per pipeline)\n",
                        Sec(step), units::FormatCount(t.global_batch_sequences()),
                        units::FormatCount(t.micro_batches()));
  absl::StrAppendFormat(&s, "    compute          %s\n", term(b.compute_seconds()));
  absl::StrAppendFormat(&s, "    memory-bound     %s\n", term(b.memory_bound_seconds()));
  absl::StrAppendFormat(&s, "    tensor parallel  %s\n", term(b.tensor_parallel_seconds()));
  if (t.cp() > 1) {
    absl::StrAppendFormat(&s, "    context parallel %s\n", term(b.context_parallel_seconds()));
  }
  if (t.ep() > 1 || b.expert_parallel_seconds() > 0) {
    absl::StrAppendFormat(&s, "    all-to-all       %s\n", term(b.expert_parallel_seconds()));
  }
  absl::StrAppendFormat(&s, "    pipeline sends   %s\n", term(b.pipeline_p2p_seconds()));
  absl::StrAppendFormat(&s, "    pipeline bubble  %s\n", term(b.pipeline_bubble_seconds()));
  absl::StrAppendFormat(&s, "    data parallel    %s exposed of %s (%s in domain, %s across)\n",
                        term(b.data_parallel_exposed_seconds()), Sec(b.data_parallel_seconds()),
                        Sec(b.data_parallel_scale_up_seconds()),
                        Sec(b.data_parallel_scale_out_seconds()));
  absl::StrAppendFormat(&s, "    optimizer        %s\n", term(b.optimizer_seconds()));
  absl::StrAppendFormat(&s,
                        "  memory/GPU    %s of %s usable (weights %s, gradients %s, optimizer %s, "
                        "activations %s)\n",
                        Gb(m.total_bytes()), Gb(m.usable_bytes()), Gb(m.weights_bytes()),
                        Gb(m.gradients_bytes()), Gb(m.optimizer_bytes()),
                        Gb(m.activations_bytes()));
  absl::StrAppendFormat(&s, "  throughput    %s tokens/s\n",
                        units::FormatCount(static_cast<uint64_t>(t.tokens_per_second() + 0.5)));
  if (t.has_time_to_train_seconds()) {
    absl::StrAppendFormat(&s, "  time to train %s for %.3g tokens (wall time, goodput included)\n",
                          units::FormatTime(units::Seconds(t.time_to_train_seconds()), 1),
                          t.train_tokens());
  }
  return s;
}

}  // namespace dcplan::cli

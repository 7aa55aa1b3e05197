// dcplan train: what a cluster of --gpus GPUs realizes for one training job: the parallel split
// (given or searched), MFU and HFU, step time and its breakdown, memory per GPU, time to train.
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/training_report.h"
#include "examples/cli/uncertainty.h"
#include "planner/mfu_error.h"
#include "planner/model.h"
#include "planner/training.h"

namespace dcplan::cli {

absl::Status RunTrain() {
  auto format = FormatFlag({"table", "json", "textproto", "text", "binary"});
  if (!format.ok()) return format.status();
  const absl::CommandLineFlag* gpus_flag = absl::FindCommandLineFlag("gpus");
  // The flag's default is scale's list of sizes: train wants one size, given explicitly.
  if (gpus_flag == nullptr || gpus_flag->CurrentValue() == gpus_flag->DefaultValue()) {
    return absl::InvalidArgumentError("train needs the cluster size: --gpus=N");
  }
  auto gpus = ParseGpuList(absl::GetFlag(FLAGS_gpus));
  if (!gpus.ok()) return gpus.status();
  if (gpus->size() != 1) {
    return absl::InvalidArgumentError("--gpus: train takes one cluster size, e.g. --gpus=8192");
  }
  auto request = RequestFromFlags();
  if (!request.ok()) return request.status();
  if (!request->has_workload()) {
    return absl::InvalidArgumentError(
        "train needs a workload: --workload=FILE or the shape flags (--layers, --hidden, --heads, "
        "--vocab, --seq_len, --global_batch_tokens)");
  }
  if (HasUncertainty(*request)) {  // uncertainty.h: the training plan at the medians, its spread
    return WriteUncertainTraining(*request, (*gpus)[0], *format);
  }
  std::optional<SetupNotice> notice(std::in_place, "dcplan train: searching the parallelism");
  auto model = BuildModel(*request);
  if (!model.ok()) return model.status();
  auto plan = PlanTraining(*model, (*gpus)[0]);
  notice.reset();
  if (!plan.ok()) return plan.status();
  *plan->mutable_mfu_interval() = MfuIntervalOf(plan->mfu(), MfuErrorFor(*request));
  absl::Status written = *format == OutputFormat::kTable ? WriteOutput(TrainingTable(*plan))
                                                         : WriteMessage(*plan, *format);
  return written;
}

}  // namespace dcplan::cli

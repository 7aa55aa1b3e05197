// File: examples/cli/workload_flags.h
//
// The command line's training-job flags: a workload file (--workload=FILE, a text-format, JSON or
// binary dcplan.Workload) and flags that set or override its fields (--layers, --hidden, --heads,
// --vocab, --seq_len, --global_batch_tokens, --params, --tp, --pp, --dp, --train_tokens, ...), plus
// the network overrides every command takes (--scale_out_gbps per GPU, --scale_up_gpus). Counts
// parse with units::ParseCount, so `--global_batch_tokens=16M`, `--train_tokens=15T` and
// `--params=405e9` work; errors name the flag.
//
// ApplyOverrides (flags.h) applies them, so `fit`, `scale` and `compare` take a
// workload too; `train` requires one.
//
// Example:
//   dcplan train --gpus=8192 --layers=126 --hidden=16384 --heads=128 --vocab=128256 \
//       --seq_len=8192 --global_batch_tokens=16M --tp=8 --pp=16 --dp=64
#pragma once

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "proto/request.pb.h"

ABSL_DECLARE_FLAG(std::string, workload);
ABSL_DECLARE_FLAG(std::string, model);

namespace dcplan::cli {

// The training-job flags that are plain aliases of workload (and calibration) fields, in the
// order ApplyOverrides applies them.
const std::vector<std::string>& WorkloadFlagNames();

// Reads --model (a compiled-in model preset) or --workload (a file), if given, into
// request->workload.
absl::Status ApplyWorkloadFile(PlanRequest* request);

// The flags that are more than an alias: --checkpoint_write_gbps (a bare number is GB/s) and
// --scale_out_gbps (per GPU: the NIC count kept, the port speed adjusted).
absl::Status ApplySpecialWorkloadFlags(PlanRequest* request);

}  // namespace dcplan::cli

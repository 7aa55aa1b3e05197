// File: examples/cli/workload_flags.h
//
// The command line's training-job flags: a workload file (--workload=FILE, a text-format, JSON or
// binary dcplan.Workload) and flags that set or override its fields (--layers, --hidden, --heads,
// --vocab, --seq_len, --global_batch_tokens, --params, --tp, --pp, --dp, --train_tokens, ...), plus
// the network overrides every command takes (--scale_out_gbps per GPU, --scale_up_gpus). Counts
// parse with units::ParseCount, so `--global_batch_tokens=16M`, `--train_tokens=15T` and
// `--params=405e9` work; errors name the flag.
//
// ApplyOverrides (flags.h) calls ApplyWorkloadFlags, so `fit`, `scale` and `compare` take a
// workload too; `train` requires one.
//
// Example:
//   dcplan train --gpus=8192 --layers=126 --hidden=16384 --heads=128 --vocab=128256 \
//       --seq_len=8192 --global_batch_tokens=16M --tp=8 --pp=16 --dp=64
#pragma once

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "proto/request.pb.h"

ABSL_DECLARE_FLAG(std::string, workload);

namespace dcplan::cli {

// Reads --workload (if given) into request->workload, then applies every workload flag given, and
// the network overrides --scale_out_gbps and --scale_up_gpus.
absl::Status ApplyWorkloadFlags(PlanRequest* request);

}  // namespace dcplan::cli

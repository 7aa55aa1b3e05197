// File: examples/cli/commands.h
//
// The `dcplan` subcommands, one small file each, over the shared layer in flags.h. Each returns
// absl::OkStatus() or the error, which main reports once (Fail: one line on stderr, exit code 1).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace dcplan::cli {

absl::Status RunFit();       // fit.cc: the largest cluster under the caps
absl::Status RunScale();     // scale.cc: figures for given cluster sizes
absl::Status RunValidate();  // validate.cc: check a request file
absl::Status RunConvert();   // convert.cc: between text format, JSON and binary
absl::Status RunCompare();   // compare.cc: the same caps for several presets, ranked
absl::Status RunPresets();   // presets.cc: list the compiled-in presets or show one
absl::Status RunTrain();     // train.cc: what a cluster realizes for one training job
absl::Status RunSweep();     // sweep.cc: one request over a grid of values (CSV, JSON lines, SVG)
absl::Status RunSensitivity();  // sensitivity.cc: the tornado of the uncertain inputs
absl::Status RunServe();        // serve.cc: the page and the HTTP API (examples/serve/)

// Prints `status` as a one-line error on stderr and returns 1 (main's exit code for a failed
// command); used by main only.
int Fail(const absl::Status& status);

}  // namespace dcplan::cli

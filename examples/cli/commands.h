// File: examples/cli/commands.h
//
// The `dcplan` subcommands, one small file each, over the shared layer in flags.h. Each returns the
// process exit code: 0 on success, 1 when the input is bad (the error is on stderr).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace dcplan::cli {

int RunFit();       // fit.cc: the largest cluster under the caps
int RunScale();     // scale.cc: figures for given cluster sizes
int RunValidate();  // validate.cc: check a request file
int RunConvert();   // convert.cc: between text format, JSON and binary
int RunCompare();   // compare.cc: the same caps for several presets, ranked
int RunPresets();   // presets.cc: list the compiled-in presets or show one
int RunTrain();     // train.cc: what a cluster realizes for one training job
int RunSweep();     // sweep.cc: one request over a grid of field values (CSV, JSON lines, SVG)
int RunServe();     // serve.cc: the page and the HTTP API (examples/serve/)

// Prints `status` as a one-line error on stderr and returns 1.
int Fail(const absl::Status& status);

}  // namespace dcplan::cli

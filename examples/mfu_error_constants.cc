// Regenerates planner/mfu_error_data.h (the MFU error spreads of planner/mfu_error.h) from the
// published runs in tests/data, by leave-one-source-out cross-validation (planner/mfu_error_fit.h):
//   ./bazelw run //examples:mfu_error_constants
// writes the header into the workspace (under `bazel run`) and prints it; --out=FILE writes it
// elsewhere, --out=- only prints it. Takes ~10 s.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "base/file_io.h"
#include "planner/mfu_error_fit.h"
#include "planner/workload/calibration.h"

ABSL_FLAG(std::string, csv, "tests/data/measured_training_runs.csv", "the published runs");
ABSL_FLAG(std::string, setup, "tests/data/measured_training_runs_setup.csv",
          "the runs' setup facts");
ABSL_FLAG(std::string, out, "",
          "where to write the header; default planner/mfu_error_data.h in the workspace that "
          "`bazel run` was called from; - = print only");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto runs = dcplan::ReadMeasuredRuns(absl::GetFlag(FLAGS_csv), absl::GetFlag(FLAGS_setup));
  if (!runs.ok()) {
    std::fprintf(stderr, "mfu_error_constants: %s\n", std::string(runs.status().message()).c_str());
    return 1;
  }
  auto data = dcplan::ComputeMfuErrorData(*runs);
  if (!data.ok()) {
    std::fprintf(stderr, "mfu_error_constants: %s\n", std::string(data.status().message()).c_str());
    return 1;
  }
  const std::string header = dcplan::MfuErrorDataHeader(*data);
  std::fputs(header.c_str(), stdout);
  std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    if (workspace == nullptr) {
      std::fprintf(stderr, "mfu_error_constants: not under `bazel run`: give --out=FILE or -\n");
      return 1;
    }
    out = absl::StrCat(workspace, "/planner/mfu_error_data.h");
  }
  if (out == "-") return 0;
  const absl::Status written = dcplan::WriteFileAtomically(out, header, {});
  if (!written.ok()) {
    std::fprintf(stderr, "mfu_error_constants: %s\n", std::string(written.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "mfu_error_constants: wrote %s\n", out.c_str());
  return 0;
}

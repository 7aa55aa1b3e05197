// File: examples/cli/flags.h
//
// The `dcplan` command line's shared layer: every flag, turning flags into a PlanRequest (a preset
// or a request file, with flag overrides applied on top), and writing results in the chosen format.
// Each subcommand (fit.cc, scale.cc, ...) is a small file over this layer; the planner library does
// the work.
//
// Flags hold text and are parsed here with units (`--power=50MW`, `--budget='$2.5B'`), so a bad
// value gets an error that names the flag: `--power: expected a power such as 50MW, got "50MWh"`.
#pragma once

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/text.h"
#include "google/protobuf/message.h"
#include "proto/io.h"
#include "proto/request.pb.h"

ABSL_DECLARE_FLAG(std::string, preset);
ABSL_DECLARE_FLAG(std::string, request);
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, power);
ABSL_DECLARE_FLAG(std::string, power_at);
ABSL_DECLARE_FLAG(std::string, pue);
ABSL_DECLARE_FLAG(std::string, annual_pue);
ABSL_DECLARE_FLAG(std::string, cooling);
ABSL_DECLARE_FLAG(std::string, mfu_model);
ABSL_DECLARE_FLAG(std::string, provisioning);
ABSL_DECLARE_FLAG(std::string, provisioning_margin);
ABSL_DECLARE_FLAG(std::string, max_gpus);
ABSL_DECLARE_FLAG(std::string, max_buildings);
ABSL_DECLARE_FLAG(std::string, budget);
ABSL_DECLARE_FLAG(std::string, budget_on);
ABSL_DECLARE_FLAG(std::string, horizon_years);
ABSL_DECLARE_FLAG(std::string, electricity);
ABSL_DECLARE_FLAG(std::string, objective);
ABSL_DECLARE_FLAG(std::string, gpus);
ABSL_DECLARE_FLAG(std::string, presets);
ABSL_DECLARE_FLAG(std::string, requests);
ABSL_DECLARE_FLAG(std::string, in);
ABSL_DECLARE_FLAG(std::string, in_format);
ABSL_DECLARE_FLAG(std::string, out_format);
ABSL_DECLARE_FLAG(std::string, type);
namespace dcplan::cli {
// --set's value: every occurrence's PATH=VALUE, in command-line order. (abseil's
// std::vector<std::string> flag keeps only the last occurrence and splits it at commas, which lost
// every --set but the last and cut a list value such as [7, 3] apart.)
struct SetAssignments {
  std::vector<std::string> items;
};
bool AbslParseFlag(absl::string_view text, SetAssignments* out, std::string* error);
std::string AbslUnparseFlag(const SetAssignments& value);
}  // namespace dcplan::cli
ABSL_DECLARE_FLAG(dcplan::cli::SetAssignments, set);

namespace dcplan::cli {

// Output formats of the commands.
enum class OutputFormat { kTable, kJson, kText, kBinary, kCsv, kJsonLines, kSvg };

// --format, checked against what the command offers (e.g. {"table", "json", "textproto"}).
absl::StatusOr<OutputFormat> FormatFlag(const std::vector<std::string>& allowed);

// The request the flags describe: --request=FILE if given, else --preset=NAME (default h100-dgx).
absl::StatusOr<PlanRequest> BaseRequest();

// Applies every override flag that was given (--power, --pue, --max_gpus, --budget, ...) to
// `request`.
absl::Status ApplyOverrides(PlanRequest* request);

// Validates the request (planner/validate.h), whose cross-field rules refuse a field the rest of
// the request makes meaningless: a power cap at the substation, max_buildings without a building
// power limit, a budget where nothing has a price. UserMessage names the flag.
absl::Status CheckFlagsMatter(const PlanRequest& request);

// Records that the user set the field `path` as `name` ("--pue", "--set=site.pue"), so that errors
// about it speak the user's words.
void RecordUserName(absl::string_view path, absl::string_view name);

// The status's message with the field path it carries (base/field_checks.h FieldPathOf) replaced by
// the name the user set it with: "--pue must be >= 1.0, got 0.9".
std::string UserMessage(const absl::Status& status);

// An error message as Fail prints it: Printable (base/text.h), so on one line, every word longer
// than 256 bytes clipped to 200 by Clip, the whole at most about 2,000 bytes. (Values are clipped
// to 80 bytes where the messages quote them; file names are kept whole up to 256.)
std::string ForTerminal(absl::string_view message);

// BaseRequest() with ApplyOverrides() and CheckFlagsMatter(): what most commands solve.
absl::StatusOr<PlanRequest> RequestFromFlags();

// The input files this run reads (never overwritten by --out).
std::vector<std::string> InputFiles();

// Writes `text` to --out (atomically) or to stdout.
absl::Status WriteOutput(absl::string_view text);

// Writes `message` in `format` (json, textproto or binary) to --out or stdout.
absl::Status WriteMessage(const google::protobuf::Message& message, OutputFormat format);

// Parses a comma-separated list of GPU counts ("1,8,512,8K").
absl::StatusOr<std::vector<int64_t>> ParseGpuList(absl::string_view text);

}  // namespace dcplan::cli

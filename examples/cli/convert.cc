// dcplan convert: a PlanRequest (or Plan, --type=plan) between text format, JSON and binary. The
// encodings come from the file extensions unless --in_format / --out_format say otherwise; the
// output is written atomically and never over the input.
#include <memory>
#include <optional>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "planner/validate.h"
#include "proto/io.h"
#include "proto/plan.pb.h"

namespace dcplan::cli {

absl::Status RunConvert() {
  const std::string in = absl::GetFlag(FLAGS_in);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (in.empty() || out.empty()) {
    return absl::InvalidArgumentError("convert needs --in=FILE and --out=FILE");
  }
  std::optional<Encoding> in_encoding;
  if (std::string f = absl::GetFlag(FLAGS_in_format); !f.empty()) {
    auto e = ParseEncodingName(f);
    if (!e.ok()) return e.status();
    in_encoding = *e;
  }
  absl::StatusOr<Encoding> out_encoding = absl::GetFlag(FLAGS_out_format).empty()
                                              ? EncodingFromPath(out)
                                              : ParseEncodingName(absl::GetFlag(FLAGS_out_format));
  if (!out_encoding.ok()) return out_encoding.status();

  const std::string type = absl::GetFlag(FLAGS_type);
  std::unique_ptr<google::protobuf::Message> message;
  if (type == "request") {
    message = std::make_unique<PlanRequest>();
  } else if (type == "plan") {
    message = std::make_unique<Plan>();
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--type must be request or plan; got \"", type, "\""));
  }
  absl::Status read = ReadMessageFile(in, in_encoding, message.get());
  if (!read.ok()) return read;
  if (type == "request") {
    // Refuse to pass an invalid request on: a converted file should be one dcplan can solve.
    absl::Status valid = ValidateRequest(static_cast<const PlanRequest&>(*message));
    if (!valid.ok()) return valid;
  }
  absl::Status written = WriteMessageFile(out, *out_encoding, *message, {in});
  return written;
}

}  // namespace dcplan::cli

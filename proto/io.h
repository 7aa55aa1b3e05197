// File: proto/io.h
//
// Reading and writing protos (PlanRequest, Plan, ScaleReport or any other
// google::protobuf::Message) in the three encodings dcplan speaks: text format, proto3 JSON and
// binary. Parsing never crashes or prints on bad input: every problem comes back as an absl::Status
// that names the file, the line and column (text format) or the parser's own words (JSON). Files
// are read and written by base/file_io.h: with a size limit (kMaxInputBytes), and atomically (a
// temporary file in the same directory, then rename(2)), never over one of the command's inputs.
//
// Example:
//   dcplan::PlanRequest request;
//   DCPLAN_RETURN_IF_ERROR(dcplan::ReadMessageFile("req.textproto", std::nullopt, &request));
//   dcplan::Plan plan = ...;
//   DCPLAN_RETURN_IF_ERROR(
//       dcplan::WriteMessageFile("plan.json", dcplan::Encoding::kJson, plan, {"req.textproto"}));
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/file_io.h"
#include "google/protobuf/message.h"

namespace dcplan {

// How a message is written down.
enum class Encoding {
  kText,    // protobuf text format (.textproto)
  kJson,    // proto3 JSON mapping (.json)
  kBinary,  // protobuf wire format (.pb)
};

// The canonical name of `encoding`: "text", "json" or "binary".
absl::string_view EncodingName(Encoding encoding);

// Parses an encoding name as given on the command line: "text" or "textproto", "json", "binary" or
// "pb" (case-insensitive). InvalidArgument listing the accepted names otherwise.
absl::StatusOr<Encoding> ParseEncodingName(absl::string_view name);

// The encoding a file's extension implies (case-insensitive): .textproto .txtpb .pbtxt .txt ->
// text; .json -> json; .pb .binpb .bin -> binary. InvalidArgument naming the path and the known
// extensions otherwise (also for "-", which has no extension).
absl::StatusOr<Encoding> EncodingFromPath(absl::string_view path);

// Parses `data` in `encoding` into `message`, which is cleared first. Text-format errors carry the
// 1-based line:column and the parser's words; JSON (proto3 mapping, original field names and
// lowerCamelCase accepted, unknown fields rejected) errors carry the parser's message; binary input
// that does not parse gives "not a valid binary <full message type>"; binary input with a field
// this schema does not know is refused like text and JSON refuse one ("not a valid binary
// dcplan.PlanRequest: hardware.accelerator has a field this dcplan does not know (number 9)"), as
// a field an older dcplan ignored could be a cap it would not apply. A string field that is not
// valid UTF-8 (proto3 requires it; the text parser alone would take "\xff") is an error in every
// encoding: "invalid text-format dcplan.PlanRequest: name is not valid UTF-8". All are
// InvalidArgument. Never crashes and prints nothing, whatever the bytes.
absl::Status ParseMessage(absl::string_view data, Encoding encoding,
                          google::protobuf::Message* message);

// Serializes `message` in `encoding`: text format with UTF-8 kept as is; JSON with the original
// (snake_case) field names, every primitive field printed even when zero, indented and ending with
// a newline (uint64 and int64 fields are strings, as proto3 JSON prescribes); binary wire format.
absl::StatusOr<std::string> SerializeMessage(const google::protobuf::Message& message,
                                             Encoding encoding);

// Reads and parses the file at `path` into `message`, in `encoding` or, when none is given, the
// encoding EncodingFromPath(path) implies. "-" reads standard input (and needs an explicit
// encoding). Every error names the path: it does not exist (NotFound), is a directory, is not
// readable (PermissionDenied), is empty ("<path> is empty"), is larger than kMaxInputBytes ("<path>
// is larger than the 64 MiB limit"), or does not parse ("<path>: " followed by ParseMessage's
// error).
absl::Status ReadMessageFile(absl::string_view path, std::optional<Encoding> encoding,
                             google::protobuf::Message* message);

// Serializes `message` in `encoding` and writes it to `path` with WriteTextFile.
absl::Status WriteMessageFile(absl::string_view path, Encoding encoding,
                              const google::protobuf::Message& message,
                              const std::vector<std::string>& inputs = {});

// Writes `contents` to `path` with base/file_io.h's WriteFileAtomically (the one writer every
// command uses): atomic for regular files, written through for devices and FIFOs, symlinks
// followed, never over one of `inputs`, "-" is standard output.
absl::Status WriteTextFile(absl::string_view path, absl::string_view contents,
                           const std::vector<std::string>& inputs = {});

}  // namespace dcplan

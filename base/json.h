// File: base/json.h
//
// The one JSON string quoter, in its two dialects: plain JSON (what our own JSON writers emit: the
// CLI's JSON lines, the serve API's error bodies) and protobuf's (what proto/json_fast.cc must
// match byte for byte, so that its output equals protobuf's JSON printer's).
//
// Example:
//   std::string body = "{\"error\": ";
//   AppendJsonString(status.message(), &body);   // "must be >= 1.0" stays as written
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace dcplan {

// Appends `text` as a JSON string, escaping only what JSON requires: `"` and `\` with a backslash,
// the C0 controls and DEL as \u00XX. A whole valid UTF-8 sequence is kept; any other byte >= 0x80
// becomes U+FFFD, so the result is always valid JSON.
void AppendJsonString(absl::string_view text, std::string* out);

// AppendJsonString into a new string.
std::string JsonQuote(absl::string_view text);

// Appends `text` as a JSON string escaped as protobuf's JSON printer escapes it (\b \f \n \r \t
// short forms; other controls, DEL, '<' and '>' as \u00xx). Returns false, having appended part of
// it, when `text` is not ASCII: the caller then falls back to protobuf itself.
bool AppendProtobufJsonString(absl::string_view text, std::string* out);

// Appends `v` as protobuf's JSON printer writes a double: the shortest of %.15g and %.17g that
// reads back exactly (SimpleDtoa), NaN and +-Infinity quoted.
void AppendProtobufJsonDouble(double v, std::string* out);

}  // namespace dcplan

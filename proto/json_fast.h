// File: proto/json_fast.h
//
// A fast path for the proto3 JSON mapping of dcplan's messages, byte for byte what protobuf's own
// util/json_util gives with io.h's options (original field names, every primitive field printed,
// optional indentation), at a tenth of its cost: protobuf converts through a type resolver and the
// binary format, which made JSON 97% of an HTTP request's time in `dcplan serve`. Both functions
// handle the plain case and decline the rest, so the caller falls back to protobuf's codec, which
// stays the authority for errors and for anything rare:
// - printing declines messages with map, bytes or float fields or non-ASCII strings;
// - parsing declines any input it does not take with certainty as protobuf would: a syntax error,
//   an unknown field, a repeated key, null, string escapes or non-ASCII text, numbers in unusual
//   forms (exponents in integers, quoted doubles other than NaN and +-Infinity), a second member
//   of a oneof, nesting deeper than 64.
// Every Plan is printed, and every PlanRequest read, by code generated from the schema at build
// time (proto/plan_json.h, proto/request_json.h) with the same results; other messages by
// reflection. proto/json_fast_test.cc checks both against protobuf's codec on every preset, plans,
// reports and generated messages; the JSON fuzzer compares them on everything it makes.
//
// Example:
//   std::string out;
//   if (!dcplan::PrintJsonFast(plan, /*indent=*/true, &out)) { /* use protobuf's printer */ }
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace dcplan {

// Appends `message` as proto3 JSON to `out` (indented with one space a level when `indent`, then
// no trailing newline); false, with `out` unchanged, when it declines.
bool PrintJsonFast(const google::protobuf::Message& message, bool indent, std::string* out);

// Parses `json` into `message` (cleared first); false when it declines, leaving `message` in an
// unspecified state (the caller parses again with protobuf's parser).
bool ParseJsonFast(absl::string_view json, google::protobuf::Message* message);

}  // namespace dcplan

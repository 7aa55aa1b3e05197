// File: proto/plan_json.h
//
// Plan as proto3 JSON through code generated from plan.proto at build time
// (proto/gen_json_printer.cc): the same bytes as proto/json_fast.h's PrintJsonFast (and so as
// protobuf's printer with io.h's options) with no reflection, for the one message every plan
// answer prints (`dcplan serve`'s /v1/plan, `dcplan fit --format=json`). PrintJsonFast calls it
// for every Plan, nested ones included; proto/json_fast_test.cc checks it against protobuf.
//
// Example:
//   std::string out;
//   if (!dcplan::PrintPlanJson(plan, /*indent=*/true, /*depth=*/0, &out)) { /* fall back */ }
#pragma once

#include <string>

#include "proto/plan.pb.h"

namespace dcplan {

// Appends `plan` as JSON to `out` (indented one space a level when `indent`, as if nested `depth`
// levels deep; no trailing newline); false, with `out` unchanged, where PrintJsonFast would
// decline (a non-ASCII string).
bool PrintPlanJson(const Plan& plan, bool indent, int depth, std::string* out);

}  // namespace dcplan

// File: proto/request_json.h
//
// PlanRequest from proto3 JSON through code generated from request.proto at build time
// (proto/gen_json_parser.cc): what proto/json_fast.h's ParseJsonFast reads, without reflection,
// for the message every plan request sends (`dcplan serve`'s POST /v1/plan and friends, `dcplan
// fit --request=x.json`). ParseJsonFast calls it for every PlanRequest; proto/json_fast_test.cc
// checks it against protobuf's parser.
//
// Example:
//   PlanRequest request;
//   if (!dcplan::ParsePlanRequestJson(text, &request)) { /* protobuf's parser instead */ }
#pragma once

#include "absl/strings/string_view.h"
#include "proto/request.pb.h"

namespace dcplan {

// Clears `request` and reads `json` into it; false where ParseJsonFast would decline (the request
// is then left part-read: parse it another way).
bool ParsePlanRequestJson(absl::string_view json, PlanRequest* request);

}  // namespace dcplan

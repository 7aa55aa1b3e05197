// File: tests/fuzz/fuzz_check.h
//
// What the request harnesses assert about a request from outside: everything the library does
// with it, checked (a broken check aborts through fuzz_require.h, so libFuzzer saves the input).
//
// Example:
//   dcplan::fuzz::CheckRequestBytes(bytes, dcplan::Encoding::kJson);
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/io.h"
#include "proto/request.pb.h"
#include "tests/fuzz/fuzz_require.h"

namespace dcplan::fuzz {

// Everything the library does with a parsed request, checked: validation either passes or names a
// field; a valid request round-trips through text, JSON and binary unchanged; it solves (or fails
// with a precondition that names its fields) to a plan that satisfies every invariant of
// tests/plan_invariants.h and is the same byte for byte when solved again; Scale evaluates one
// server and dcplan's largest cluster with finite figures.
void CheckRequest(const PlanRequest& request, absl::string_view input);

// Parses `input` as a PlanRequest in `encoding` and runs CheckRequest on it; a parse error must be
// a one-line InvalidArgument.
void CheckRequestBytes(absl::string_view input, Encoding encoding);

}  // namespace dcplan::fuzz

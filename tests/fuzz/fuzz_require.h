// File: tests/fuzz/fuzz_require.h
//
// How the fuzz harnesses report a broken assertion: print what broke and the input that broke it,
// then abort(), which libFuzzer (and the replay test) records as a crash with the input saved. A
// harness never returns an error: every input either passes every check or is a finding.
//
// Example:
//   dcplan::fuzz::Require(std::isfinite(value), "a non-finite value", input);
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dcplan::fuzz {

// Aborts with `what` and `input` (escaped, cut at 4 KiB) on stderr unless `ok`.
void Require(bool ok, absl::string_view what, absl::string_view input);

// An error dcplan returns for bad input: a non-empty single line with one of the codes bad input
// gets (InvalidArgument, OutOfRange, FailedPrecondition, NotFound, PermissionDenied).
void RequireInputError(const absl::Status& status, absl::string_view context,
                       absl::string_view input);

}  // namespace dcplan::fuzz

// File: tests/fuzz/fuzz_require.cc
#include "tests/fuzz/fuzz_require.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace dcplan::fuzz {

void Require(bool ok, absl::string_view what, absl::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "dcplan fuzz check failed: %.*s\ninput (%zu bytes): \"%s\"\n",
               static_cast<int>(what.size()), what.data(), input.size(),
               absl::CHexEscape(input.substr(0, 4096)).c_str());
  std::abort();
}

void RequireInputError(const absl::Status& status, absl::string_view context,
                       absl::string_view input) {
  const absl::StatusCode code = status.code();
  Require(code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kOutOfRange ||
              code == absl::StatusCode::kFailedPrecondition ||
              code == absl::StatusCode::kNotFound || code == absl::StatusCode::kPermissionDenied,
          absl::StrCat(context, ": an unexpected status code: ", status.ToString()), input);
  Require(!status.message().empty(), absl::StrCat(context, ": an error without a message"), input);
  Require(status.message().find('\n') == absl::string_view::npos,
          absl::StrCat(context, ": an error of more than one line: ", status.ToString()), input);
}

}  // namespace dcplan::fuzz

// File: base/status_matchers.h
//
// gMock matchers for absl::Status and absl::StatusOr (Debian's Abseil ships none).
//
// Example:
//   EXPECT_THAT(ValidateRequest(r), StatusIs(absl::StatusCode::kInvalidArgument,
//                                            HasSubstr("site.pue must be >= 1.0, got 0.9")));
//   EXPECT_THAT(ParsePower("50MW"), IsOk());
#pragma once

#include <ostream>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace dcplan::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s;
  return s.ok();
}

MATCHER_P2(StatusIs, code, message_matcher, "") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s;
  return s.code() == code && ::testing::Matches(message_matcher)(std::string(s.message()));
}

}  // namespace dcplan::testing

// File: base/field_checks.h
//
// The field checks both validators share (planner/validate.cc for PlanRequest and
// planner/workload/workload_validate.cc for Workload): each returns OK or an error naming the field
// path and the value (the path also as a payload: WithFieldPath), with one status code per kind of
// failure:
//   - InvalidArgument: a value outside the range the schema states (`site.pue must be >= 1.0`);
//   - OutOfRange: a value beyond one of dcplan's hard limits (`costs.horizon_years must be <= 50`).
// Cross-field rules (FailedPrecondition) stay in the validators, which know the fields.
//
// Example:
//   DCPLAN_RETURN_IF_ERROR(CheckInRange("site.substation", "power_factor", pf, 0, 1, kOpenLow));
//   // site.substation.power_factor must be in (0, 1], got 1.3
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dcplan {

// %g with as many significant digits as it takes to read the same double back ("0.9", "4600",
// "1e+15", "0.30000000000000004", "nan", "inf"): a message never shows two numbers the same way.
std::string FormatDouble(double value);

// Errors carry the field path they are about as data, not only as text: every check below attaches
// it, and so do the validators' cross-field rules. Front ends map it back to the user's own name
// for the input (a flag, a --set path, a page control). WithFieldPath returns `status` with the
// path attached (an OK status is returned as it is); FieldPathOf gives it back, or "" when none.
absl::Status WithFieldPath(absl::Status status, absl::string_view path);
std::string FieldPathOf(const absl::Status& status);

// `prefix.field`, or `field` at the top level.
std::string FieldPath(absl::string_view prefix, absl::string_view field);

// Finite.
absl::Status CheckFinite(absl::string_view prefix, absl::string_view field, double value);

// OutOfRange when a finite `value` exceeds the hard limit `max`.
absl::Status CheckAtMost(absl::string_view prefix, absl::string_view field, double value,
                         double max);

// Finite, >= 0 and <= max.
absl::Status CheckNonNegative(absl::string_view prefix, absl::string_view field, double value,
                              double max);

// Finite, > 0 and <= max. `note` follows "> 0" in the message, e.g. " when set".
absl::Status CheckPositive(absl::string_view prefix, absl::string_view field, double value,
                           double max, absl::string_view note = "");

// Finite and in [lo, hi], or (lo, hi] with kOpenLow: "must be in (0, 1], got 1.3".
enum RangeLow { kClosedLow, kOpenLow };
absl::Status CheckInRange(absl::string_view prefix, absl::string_view field, double value,
                          double lo, double hi, RangeLow low = kClosedLow);

// An integer count >= min; `note` follows the bound in the message.
absl::Status CheckCountAtLeast(absl::string_view prefix, absl::string_view field, uint64_t value,
                               uint64_t min, absl::string_view note = "");

// OutOfRange when an integer count exceeds the hard limit `max`.
absl::Status CheckCountAtMost(absl::string_view prefix, absl::string_view field, uint64_t value,
                              uint64_t max);

// A proto3 enum field holds any int; only the values the schema names are accepted.
absl::Status CheckEnum(absl::string_view prefix, absl::string_view field, int value,
                       bool (*is_valid)(int), absl::string_view enum_name);

}  // namespace dcplan

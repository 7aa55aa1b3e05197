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

#include <cmath>
#include <cstdint>
#include <cstring>
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

// `prefix` + `suffix` ("hardware" + ".accelerator") for a validator to hand to the next one down,
// in a buffer on the stack: a valid request is checked without allocating (a path too long for
// the buffer goes to the heap). Not copyable: the view points into the object.
class SubPath {
 public:
  SubPath(absl::string_view prefix, absl::string_view suffix) {
    if (prefix.size() + suffix.size() <= sizeof(buffer_)) {
      std::memcpy(buffer_, prefix.data(), prefix.size());
      std::memcpy(buffer_ + prefix.size(), suffix.data(), suffix.size());
      view_ = absl::string_view(buffer_, prefix.size() + suffix.size());
    } else {
      heap_.assign(prefix.data(), prefix.size()).append(suffix.data(), suffix.size());
      view_ = heap_;
    }
  }
  SubPath(const SubPath&) = delete;
  SubPath& operator=(const SubPath&) = delete;
  operator absl::string_view() const { return view_; }  // NOLINT: a path is a string_view
  absl::string_view view() const { return view_; }

 private:
  char buffer_[112];
  std::string heap_;
  absl::string_view view_;
};

// Whether CheckInRange's lower bound is allowed (kClosedLow) or not (kOpenLow).
enum RangeLow { kClosedLow, kOpenLow };

// The failing sides of the checks below, out of line (the passing side is inline: validation
// runs ~100 of them for each of a ledger's ~25 re-solves).
namespace field_checks_internal {
absl::Status CheckFiniteFailed(absl::string_view prefix, absl::string_view field, double value);
absl::Status CheckAtMostFailed(absl::string_view prefix, absl::string_view field, double value,
                               double max);
absl::Status CheckNonNegativeFailed(absl::string_view prefix, absl::string_view field, double value,
                                    double max);
absl::Status CheckPositiveFailed(absl::string_view prefix, absl::string_view field, double value,
                                 double max, absl::string_view note);
absl::Status CheckInRangeFailed(absl::string_view prefix, absl::string_view field, double value,
                                double lo, double hi, RangeLow low);
absl::Status CheckCountAtLeastFailed(absl::string_view prefix, absl::string_view field,
                                     uint64_t value, uint64_t min, absl::string_view note);
absl::Status CheckCountAtMostFailed(absl::string_view prefix, absl::string_view field,
                                    uint64_t value, uint64_t max);
absl::Status CheckEnumFailed(absl::string_view prefix, absl::string_view field, int value,
                             bool (*is_valid)(int), absl::string_view enum_name);
}  // namespace field_checks_internal

// Finite.
inline absl::Status CheckFinite(absl::string_view prefix, absl::string_view field, double value) {
  if (std::isfinite(value)) return absl::OkStatus();
  return field_checks_internal::CheckFiniteFailed(prefix, field, value);
}

// OutOfRange when a finite `value` exceeds the hard limit `max`.
inline absl::Status CheckAtMost(absl::string_view prefix, absl::string_view field, double value,
                                double max) {
  if (value <= max) return absl::OkStatus();
  return field_checks_internal::CheckAtMostFailed(prefix, field, value, max);
}

// Finite, >= 0 and <= max.
inline absl::Status CheckNonNegative(absl::string_view prefix, absl::string_view field,
                                     double value, double max) {
  if (std::isfinite(value) && value >= 0 && value <= max) return absl::OkStatus();
  return field_checks_internal::CheckNonNegativeFailed(prefix, field, value, max);
}

// Finite, > 0 and <= max. `note` follows "> 0" in the message, e.g. " when set".
inline absl::Status CheckPositive(absl::string_view prefix, absl::string_view field, double value,
                                  double max, absl::string_view note = "") {
  if (std::isfinite(value) && value > 0 && value <= max) return absl::OkStatus();
  return field_checks_internal::CheckPositiveFailed(prefix, field, value, max, note);
}

// Finite and in [lo, hi], or (lo, hi] with kOpenLow: "must be in (0, 1], got 1.3".
inline absl::Status CheckInRange(absl::string_view prefix, absl::string_view field, double value,
                                 double lo, double hi, RangeLow low = kClosedLow) {
  if (std::isfinite(value) && (low == kOpenLow ? value > lo : value >= lo) && value <= hi)
    return absl::OkStatus();
  return field_checks_internal::CheckInRangeFailed(prefix, field, value, lo, hi, low);
}

// An integer count >= min; `note` follows the bound in the message.
inline absl::Status CheckCountAtLeast(absl::string_view prefix, absl::string_view field,
                                      uint64_t value, uint64_t min, absl::string_view note = "") {
  if (value >= min) return absl::OkStatus();
  return field_checks_internal::CheckCountAtLeastFailed(prefix, field, value, min, note);
}

// OutOfRange when an integer count exceeds the hard limit `max`.
inline absl::Status CheckCountAtMost(absl::string_view prefix, absl::string_view field,
                                     uint64_t value, uint64_t max) {
  if (value <= max) return absl::OkStatus();
  return field_checks_internal::CheckCountAtMostFailed(prefix, field, value, max);
}

// A proto3 enum field holds any int; only the values the schema names are accepted.
inline absl::Status CheckEnum(absl::string_view prefix, absl::string_view field, int value,
                              bool (*is_valid)(int), absl::string_view enum_name) {
  if (is_valid(value)) return absl::OkStatus();
  return field_checks_internal::CheckEnumFailed(prefix, field, value, is_valid, enum_name);
}

}  // namespace dcplan

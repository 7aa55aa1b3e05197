#include "base/field_checks.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace dcplan {

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

namespace {
constexpr absl::string_view kFieldPathPayload = "type.dcplan/field_path";
}  // namespace

absl::Status WithFieldPath(absl::Status status, absl::string_view path) {
  if (!status.ok() && !path.empty()) status.SetPayload(kFieldPathPayload, absl::Cord(path));
  return status;
}

std::string FieldPathOf(const absl::Status& status) {
  auto path = status.GetPayload(kFieldPathPayload);
  return path.has_value() ? std::string(*path) : std::string();
}

std::string FieldPath(absl::string_view prefix, absl::string_view field) {
  if (prefix.empty()) return std::string(field);
  return absl::StrCat(prefix, ".", field);
}

namespace field_checks_internal {

absl::Status CheckFiniteFailed(absl::string_view prefix, absl::string_view field, double value) {
  if (std::isfinite(value)) return absl::OkStatus();
  return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                           FieldPath(prefix, field), " must be finite, got ", FormatDouble(value))),
                       FieldPath(prefix, field));
}

absl::Status CheckAtMostFailed(absl::string_view prefix, absl::string_view field, double value,
                               double max) {
  if (value <= max) return absl::OkStatus();
  return WithFieldPath(absl::OutOfRangeError(absl::StrCat(FieldPath(prefix, field),
                                                          " must be <= ", FormatDouble(max),
                                                          ", got ", FormatDouble(value))),
                       FieldPath(prefix, field));
}

absl::Status CheckNonNegativeFailed(absl::string_view prefix, absl::string_view field, double value,
                                    double max) {
  if (absl::Status s = CheckFinite(prefix, field, value); !s.ok()) return s;
  if (!(value >= 0)) {
    return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                             FieldPath(prefix, field), " must be >= 0, got ", FormatDouble(value))),
                         FieldPath(prefix, field));
  }
  return CheckAtMost(prefix, field, value, max);
}

absl::Status CheckPositiveFailed(absl::string_view prefix, absl::string_view field, double value,
                                 double max, absl::string_view note) {
  if (absl::Status s = CheckFinite(prefix, field, value); !s.ok()) return s;
  if (!(value > 0)) {
    return WithFieldPath(
        absl::InvalidArgumentError(absl::StrCat(FieldPath(prefix, field), " must be > 0", note,
                                                ", got ", FormatDouble(value))),
        FieldPath(prefix, field));
  }
  return CheckAtMost(prefix, field, value, max);
}

absl::Status CheckInRangeFailed(absl::string_view prefix, absl::string_view field, double value,
                                double lo, double hi, RangeLow low) {
  if (absl::Status s = CheckFinite(prefix, field, value); !s.ok()) return s;
  const bool open = low == kOpenLow;
  if ((open ? value > lo : value >= lo) && value <= hi) return absl::OkStatus();
  return WithFieldPath(
      absl::InvalidArgumentError(absl::StrCat(FieldPath(prefix, field), " must be in ",
                                              open ? "(" : "[", FormatDouble(lo), ", ",
                                              FormatDouble(hi), "], got ", FormatDouble(value))),
      FieldPath(prefix, field));
}

absl::Status CheckCountAtLeastFailed(absl::string_view prefix, absl::string_view field,
                                     uint64_t value, uint64_t min, absl::string_view note) {
  if (value >= min) return absl::OkStatus();
  return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                           FieldPath(prefix, field), " must be >= ", min, note, ", got ", value)),
                       FieldPath(prefix, field));
}

absl::Status CheckCountAtMostFailed(absl::string_view prefix, absl::string_view field,
                                    uint64_t value, uint64_t max) {
  if (value <= max) return absl::OkStatus();
  return WithFieldPath(absl::OutOfRangeError(absl::StrCat(FieldPath(prefix, field),
                                                          " must be <= ", max, ", got ", value)),
                       FieldPath(prefix, field));
}

absl::Status CheckEnumFailed(absl::string_view prefix, absl::string_view field, int value,
                             bool (*is_valid)(int), absl::string_view enum_name) {
  if (is_valid(value)) return absl::OkStatus();
  return WithFieldPath(
      absl::InvalidArgumentError(absl::StrCat(FieldPath(prefix, field), " must be a known ",
                                              enum_name, " value, got ", value)),
      FieldPath(prefix, field));
}

}  // namespace field_checks_internal

}  // namespace dcplan

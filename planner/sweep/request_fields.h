// File: planner/sweep/request_fields.h
//
// PlanRequest's numeric fields named by path, as a sweep axis names them: "site.pue",
// "constraints.power_cap_watts", or an alias ("power", "pue", "budget", "electricity", "gpus",
// "max_buildings", "horizon_years"). Resolves a path against the schema, reads a value in the unit
// the field's name gives ("50MW" for a `_watts` field) and sets it by reflection.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(RequestFieldPath field, ResolveRequestField(ResolveSweepAlias("pue")));
//   DCPLAN_ASSIGN_OR_RETURN(double v, ParseFieldValue(field.back()->name(), "1.3"));
//   DCPLAN_RETURN_IF_ERROR(SetRequestField(field, "site.pue", v, &request));
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "proto/request.pb.h"

namespace dcplan {

// The chain of fields from PlanRequest down to one numeric field.
using RequestFieldPath = std::vector<const google::protobuf::FieldDescriptor*>;

// The full field path an alias stands for ("power" -> "constraints.power_cap_watts"); other text
// is returned as it is.
std::string ResolveSweepAlias(absl::string_view name);

// The fields `path` ("site.pue") walks through. InvalidArgument when a part does not exist, a
// field on the way is not a message or is repeated, or the last one is not numeric.
absl::StatusOr<RequestFieldPath> ResolveRequestField(absl::string_view path);

// Whether `f` holds a whole number (int32, int64, uint32, uint64).
bool IsIntegerField(const google::protobuf::FieldDescriptor* f);

// Parses one value for the field `name` (a path or alias, as the user typed it) in the unit the
// field's name gives, by planner/request_edit.h's grammar: `_watts` power text, `_usd` money,
// `_usd_per_kwh` an energy price, `_bits_per_second` and `_bytes_per_second` a data rate,
// `_flops_per_second` a compute rate, a percentage for a fraction; otherwise a plain number or a
// count ("8K").
absl::StatusOr<double> ParseFieldValue(absl::string_view name, absl::string_view text);

// Sets the numeric field at the end of `field` (whose path is `path`, for messages) in `request`
// to `v`. OutOfRange when a whole-number field cannot hold `v`.
absl::Status SetRequestField(const RequestFieldPath& field, absl::string_view path, double v,
                             PlanRequest* request);

}  // namespace dcplan

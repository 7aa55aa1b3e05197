// File: planner/sweep/request_fields.cc
#include "planner/sweep/request_fields.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "planner/request_edit.h"
#include "units/parse.h"

namespace dcplan {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

}  // namespace

std::string ResolveSweepAlias(absl::string_view name) { return ResolveAlias(name); }

bool IsIntegerField(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

// The chain of fields from PlanRequest down to the numeric field `path` names, resolved by the
// request-editing layer (planner/request_edit.h), so a sweep names fields as --set does.
absl::StatusOr<std::vector<const FieldDescriptor*>> ResolveRequestField(absl::string_view path) {
  DCPLAN_ASSIGN_OR_RETURN(FieldRef field, ResolveField(path));
  std::vector<const FieldDescriptor*> chain;
  for (const FieldStep& step : field.steps) {
    if (step.field->is_repeated()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": repeated fields cannot be swept (", step.field->full_name(), ")"));
    }
    chain.push_back(step.field);
  }
  if (!field.numeric()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not a numeric field; sweeps vary numbers (and presets: preset=a,b)"));
  }
  return chain;
}

// One value in the field's unit, by the request-editing layer's grammar: `name` as the user
// typed it (an alias that hides its unit, such as "power", takes the unit as --power does).
absl::StatusOr<double> ParseFieldValue(absl::string_view name, absl::string_view text) {
  DCPLAN_ASSIGN_OR_RETURN(FieldRef field, ResolveField(name));
  const bool strict = name == "power" || name == "power_cap" || name == "electricity";
  auto v = ParseNumber(field, text, strict);
  if (!v.ok()) {
    // The layer's message starts with the path; the axis names the field already.
    absl::string_view message = v.status().message();
    absl::ConsumePrefix(&message, absl::StrCat(field.path, ": "));
    return absl::Status(v.status().code(), message);
  }
  return *v;
}

// Sets the numeric field at the end of `chain` in `request` to `v`.
absl::Status SetRequestField(const std::vector<const FieldDescriptor*>& chain,
                             absl::string_view path, double v, PlanRequest* request) {
  Message* msg = request;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    msg = msg->GetReflection()->MutableMessage(msg, chain[i]);
  }
  const FieldDescriptor* f = chain.back();
  const Reflection* r = msg->GetReflection();
  auto out_of_range = [&](double lo, double hi) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s must be a whole number in [%.0f, %.0f], got %.17g", path, lo, hi, v));
  };
  auto in = [&](double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); };
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(msg, f, v);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(msg, f, static_cast<float>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      if (!in(-2147483648.0, 2147483647.0)) return out_of_range(-2147483648.0, 2147483647.0);
      r->SetInt32(msg, f, static_cast<int32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      if (!in(0, 4294967295.0)) return out_of_range(0, 4294967295.0);
      r->SetUInt32(msg, f, static_cast<uint32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      if (!in(-9.0e18, 9.0e18)) return out_of_range(-9.0e18, 9.0e18);
      r->SetInt64(msg, f, static_cast<int64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      if (!in(0, 1.8e19)) return out_of_range(0, 1.8e19);
      r->SetUInt64(msg, f, static_cast<uint64_t>(v));
      break;
    default:
      return absl::InternalError(absl::StrCat(path, " is not numeric"));
  }
  return absl::OkStatus();
}

}  // namespace dcplan

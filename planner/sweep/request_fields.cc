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
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "units/parse.h"

namespace dcplan {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Alias {
  const char* name;
  const char* path;
};
constexpr Alias kAliases[] = {
    {"power", "constraints.power_cap_watts"},
    {"power_cap", "constraints.power_cap_watts"},
    {"pue", "site.pue"},
    {"budget", "constraints.budget_usd"},
    {"electricity", "costs.electricity_usd_per_kwh"},
    {"gpus", "constraints.max_gpus"},
    {"max_gpus", "constraints.max_gpus"},
    {"max_buildings", "site.max_buildings"},
    {"horizon_years", "costs.horizon_years"},
};

}  // namespace

std::string ResolveSweepAlias(absl::string_view name) {
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.path;
  }
  return std::string(name);
}

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

// The chain of fields from PlanRequest down to the numeric field `path` names.
absl::StatusOr<std::vector<const FieldDescriptor*>> ResolveRequestField(absl::string_view path) {
  std::vector<const FieldDescriptor*> chain;
  const Descriptor* d = PlanRequest::descriptor();
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const FieldDescriptor* f = d == nullptr ? nullptr : d->FindFieldByName(std::string(parts[i]));
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", path,
                       "\" in PlanRequest (aliases: power, pue, budget, electricity, gpus, "
                       "max_buildings, horizon_years, preset)"));
    }
    if (f->is_repeated()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": repeated fields cannot be swept (", f->full_name(), ")"));
    }
    const bool last = i + 1 == parts.size();
    if (!last && f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", path, "\" in PlanRequest: ", f->name(), " is not a message"));
    }
    if (last) {
      const bool numeric = f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE ||
                           f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT || IsIntegerField(f);
      if (!numeric) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, " is not a numeric field; sweeps vary numbers (and presets: preset=a,b)"));
      }
    }
    chain.push_back(f);
    d = f->message_type();
  }
  return chain;
}

// Parses one value of the field `name` (its last path part) in the unit the name gives.
absl::StatusOr<double> ParseFieldValue(absl::string_view name, absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  double plain = 0;
  const bool is_plain = absl::SimpleAtod(text, &plain) && std::isfinite(plain);
  auto either = [&](auto parsed, auto read) -> absl::StatusOr<double> {
    if (parsed.ok()) return read(*parsed);
    if (is_plain) return plain;
    return parsed.status();
  };
  if (absl::EndsWith(name, "_watts")) return either(units::ParsePower(text), units::InWatts);
  if (absl::EndsWith(name, "_usd_per_kwh")) {
    return either(units::ParseMoneyPerEnergy(text), units::InUsdPerKilowattHour);
  }
  if (absl::EndsWith(name, "_usd_per_it_watt")) {
    return either(units::ParseMoneyPerPower(text), units::InUsdPerWatt);
  }
  if (absl::EndsWith(name, "_usd") || absl::EndsWith(name, "_usd_per_year")) {
    return either(units::ParseMoney(text), units::InUsd);
  }
  if (absl::EndsWith(name, "_bits_per_second")) {
    return either(units::ParseDataRate(text),
                  [](units::DataRate r) { return units::InBitsPerSecond(r); });
  }
  if (absl::EndsWith(name, "_bytes_per_second")) {
    return either(units::ParseDataRate(text), units::InBytesPerSecond);
  }
  if (absl::EndsWith(name, "_flops_per_second")) {
    return either(units::ParseComputeRate(text), units::InFlopsPerSecond);
  }
  return units::ParseCount(text);
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

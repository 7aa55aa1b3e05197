// File: planner/presets/provenance_testing.h
//
// Test helpers for the `sources` lists of presets and model presets (proto/provenance.proto),
// driven by the message descriptors so that a field added to the schema is covered without
// touching the tests: the dot-separated path of every field a message sets, and whether a path
// names a real field.
//
// Example:
//   for (const std::string& path : SetFieldPaths(request, {"schema_version", "name", "sources"}))
//     EXPECT_TRUE(cited.contains(path)) << path;
//   EXPECT_TRUE(NamesAScalarField(*PlanRequest::descriptor(), "hardware.accelerator.tdp_watts"));
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace dcplan::testing {

namespace provenance_internal {

inline void CollectSetFieldPaths(const google::protobuf::Message& message,
                                 const std::string& prefix, const std::set<std::string>& skip,
                                 std::set<std::string>* out) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    const std::string path =
        prefix.empty() ? field->name() : absl::StrCat(prefix, ".", field->name());
    if (skip.count(path) > 0) continue;
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      out->insert(path);  // a scalar, or a repeated scalar named without an index
    } else if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        CollectSetFieldPaths(reflection->GetRepeatedMessage(message, field, i), path, skip, out);
      }
    } else {
      CollectSetFieldPaths(reflection->GetMessage(message, field), path, skip, out);
    }
  }
}

}  // namespace provenance_internal

// The paths of every scalar field `message` sets (proto3 presence: a non-zero plain field, a
// present `optional` one), through nested and repeated messages, repeated fields without an index
// ("hardware.network.upper_tier_oversubscription", "efficiency.table.points.mfu"); sorted. Paths in
// `skip` (and everything below them) are left out.
inline std::vector<std::string> SetFieldPaths(const google::protobuf::Message& message,
                                              const std::set<std::string>& skip) {
  std::set<std::string> paths;
  provenance_internal::CollectSetFieldPaths(message, "", skip, &paths);
  return {paths.begin(), paths.end()};
}

// Whether `path` ("hardware.accelerator.tdp_watts") names a scalar (non-message) field of
// `descriptor`'s message, every component but the last naming a message field.
inline bool NamesAScalarField(const google::protobuf::Descriptor& descriptor,
                              absl::string_view path) {
  const google::protobuf::Descriptor* message = &descriptor;
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (message == nullptr) return false;
    const google::protobuf::FieldDescriptor* field = message->FindFieldByName(parts[i]);
    if (field == nullptr) return false;
    const bool last = i + 1 == parts.size();
    const bool is_message = field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE;
    if (last) return !is_message;
    if (!is_message) return false;
    message = field->message_type();
  }
  return false;
}

}  // namespace dcplan::testing

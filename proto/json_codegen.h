// File: proto/json_codegen.h
//
// What the JSON code generators (gen_json_printer for Plan, gen_json_parser for PlanRequest) both
// need from a descriptor: C++ names of the generated classes and accessors, C++ literals, and the
// message types a root type reaches.
//
// Example:
//   std::vector<const Descriptor*> types;
//   std::set<const Descriptor*> seen;
//   CollectMessageTypes(dcplan::Plan::descriptor(), &types, &seen);   // inner types first
//   std::cout << ClassName(types[0]);                                   // "::dcplan::Accelerator"
#pragma once

#include <set>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace dcplan::codegen {

// The C++ class of a message type: ::dcplan::Plan, ::dcplan::Outer_Inner.
std::string ClassName(const google::protobuf::Descriptor* d);

// The C++ type of an enum: ::dcplan::Cooling, ::dcplan::Outer_Inner.
std::string EnumClassName(const google::protobuf::EnumDescriptor* e);

// A generated function's name for a message or enum type: `prefix` + the full name with '_' for
// '.'.
std::string FunctionName(const std::string& prefix, const google::protobuf::Descriptor* d);
std::string FunctionName(const std::string& prefix, const google::protobuf::EnumDescriptor* e);

// The C++ header protoc generates for `file` ("proto/plan.proto" -> "proto/plan.pb.h").
std::string GeneratedHeader(const google::protobuf::FileDescriptor* file);

// The accessor protobuf's C++ generator gives a field: its name, with `_` after a C++ keyword.
std::string Accessor(const google::protobuf::FieldDescriptor* f);

// A C++ string literal holding `text` (printable ASCII expected: JSON keys and enum names).
std::string Literal(const std::string& text);

// `d` and every message type its fields reach (maps excluded), each once, inner types first.
void CollectMessageTypes(const google::protobuf::Descriptor* d,
                         std::vector<const google::protobuf::Descriptor*>* out,
                         std::set<const google::protobuf::Descriptor*>* seen);

// Fields the fast JSON path leaves to protobuf: maps, floats and bytes.
bool Declined(const google::protobuf::FieldDescriptor* f);

}  // namespace dcplan::codegen

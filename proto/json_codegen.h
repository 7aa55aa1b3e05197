// File: proto/json_codegen.h
//
// What the code generators (gen_json_printer for Plan, gen_json_parser and gen_request_access for
// PlanRequest) need from a descriptor: C++ names of the generated classes and accessors, C++
// literals, and the message types a root type reaches with their headers.
//
// Example:
//   std::vector<const Descriptor*> types = MessageTypesOf(dcplan::Plan::descriptor());
//   std::cout << ClassName(types[0]);             // "::dcplan::Accelerator" (inner types first)
//   for (const std::string& h : GeneratedHeaders(types)) std::cout << "#include \"" << h << "\"\n";
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

// `root` and every message type it reaches, as CollectMessageTypes lists them from a fresh start.
std::vector<const google::protobuf::Descriptor*> MessageTypesOf(
    const google::protobuf::Descriptor* root);

// The headers protoc generates for the files that define `types`, each once, sorted.
std::set<std::string> GeneratedHeaders(
    const std::vector<const google::protobuf::Descriptor*>& types);

// Fields the fast JSON path leaves to protobuf: maps, floats and bytes.
bool Declined(const google::protobuf::FieldDescriptor* f);

}  // namespace dcplan::codegen

// File: proto/gen_json_parser.cc
//
// Writes C++ that reads a PlanRequest (and every message type inside it) from proto3 JSON through
// the generated setters: what proto/json_fast.cc's reflection parser does, unrolled for one schema,
// with no reflection and with strings assigned into the request's own (reused) storage. Bazel runs
// it at build time (proto/BUILD.bazel, genrule request_json_cc); the output is never checked in,
// so a field added to request.proto is read with no change here.
//
// It reads what json_fast's parser reads and declines what it declines (escapes, non-ASCII, null,
// a field twice, two members of a oneof, unknown fields, maps, bytes, floats; JsonReader's rules
// for numbers), each key by its proto name or its lowerCamelCase json_name as protobuf resolves
// them. A declined text is parsed by protobuf instead; proto/json_fast_test.cc checks that whatever
// it accepts reads as protobuf reads it.
//
//   bazel-bin/proto/gen_json_parser > request_json.cc
#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "proto/json_codegen.h"
#include "proto/request.pb.h"

namespace {

using ::dcplan::codegen::Accessor;
using ::dcplan::codegen::ClassName;
using ::dcplan::codegen::Declined;
using ::dcplan::codegen::EnumClassName;
using ::dcplan::codegen::Literal;
using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

std::string ParseName(const Descriptor* d) { return dcplan::codegen::FunctionName("Parse_", d); }
std::string FieldName(const Descriptor* d) { return dcplan::codegen::FunctionName("Field_", d); }

std::string EnumReader(const EnumDescriptor* e) {
  return dcplan::codegen::FunctionName("Enum_", e);
}

// The function mapping a key to a field index: the field after the last one read by its name
// first (a request's keys mostly come in declaration order), then every name, then the json_names
// no field has as its name (the first field whose json_name it is), as protobuf resolves a key.
void WriteFieldLookup(const Descriptor* d) {
  std::cout << "\nint " << FieldName(d) << "(absl::string_view key, int next) {\n";
  if (d->field_count() == 0) {
    std::cout << "  (void)key;\n  (void)next;\n  return -1;\n}\n";
    return;
  }
  std::cout << "  switch (next) {\n";
  for (int i = 0; i < d->field_count(); ++i) {
    std::cout << "    case " << i << ":\n      if (key == " << Literal(d->field(i)->name())
              << ") return " << i << ";\n      break;\n";
  }
  std::cout << "    default:\n      break;\n  }\n";
  std::set<std::string> names;
  for (int i = 0; i < d->field_count(); ++i) {
    names.insert(d->field(i)->name());
    std::cout << "  if (key == " << Literal(d->field(i)->name()) << ") return " << i << ";\n";
  }
  for (int i = 0; i < d->field_count(); ++i) {
    const std::string& json = d->field(i)->json_name();
    if (!names.insert(json).second) continue;
    std::cout << "  if (key == " << Literal(json) << ") return " << i << ";\n";
  }
  std::cout << "  return -1;\n}\n";
}

// The function reading an enum value by name (every name, aliases included).
void WriteEnumReader(const EnumDescriptor* e) {
  std::cout << "\nbool " << EnumReader(e) << "(absl::string_view name, int* value) {\n";
  for (int k = 0; k < e->value_count(); ++k) {
    std::cout << "  if (name == " << Literal(e->value(k)->name())
              << ") {\n    *value = " << e->value(k)->number() << ";\n    return true;\n  }\n";
  }
  std::cout << "  return false;\n}\n";
}

// Statements reading one value of `f` into `m` (an element added when `repeated`), at the
// object's `depth`.
std::string Value(const FieldDescriptor* f, bool repeated) {
  const std::string name = Accessor(f);
  // A number or a bool: read as C++ `type` by JsonReader's `read`.
  const auto scalar = [&](const char* type, const char* read) {
    return absl::StrCat(type, " v; if (!in.", read, "(&v)) return false; m->",
                        repeated ? "add_" : "set_", name, "(v);");
  };
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::StrCat("if (!", ParseName(f->message_type()), "(in, m->",
                          repeated ? "add_" : "mutable_", name, "(), depth + 1)) return false;");
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return scalar("double", "ReadDouble");
    case FieldDescriptor::CPPTYPE_INT32:
      return scalar("int32_t", "ReadInteger");
    case FieldDescriptor::CPPTYPE_INT64:
      return scalar("int64_t", "ReadInteger");
    case FieldDescriptor::CPPTYPE_UINT32:
      return scalar("uint32_t", "ReadInteger");
    case FieldDescriptor::CPPTYPE_UINT64:
      return scalar("uint64_t", "ReadInteger");
    case FieldDescriptor::CPPTYPE_BOOL:
      return scalar("bool", "ReadBool");
    case FieldDescriptor::CPPTYPE_ENUM:
      return absl::StrCat("absl::string_view s; int v; if (!in.ReadPlainString(&s) || !",
                          EnumReader(f->enum_type()), "(s, &v)) return false; m->",
                          repeated ? "add_" : "set_", name, "(static_cast<",
                          EnumClassName(f->enum_type()), ">(v));");
    case FieldDescriptor::CPPTYPE_STRING:
      return absl::StrCat("absl::string_view s; if (!in.ReadPlainString(&s)) return false; m->",
                          repeated ? "add_" : "mutable_", name, "()->assign(s.data(), s.size());");
    default:
      return "return false;";
  }
}

void WriteParser(const Descriptor* d) {
  const int words = std::max(1, (d->field_count() + 63) / 64);
  std::cout << "\nbool " << ParseName(d) << "(JsonReader& in, " << ClassName(d)
            << "* m, int depth) {\n"
            << "  if (depth > JsonReader::kMaxDepth || !in.Consume('{')) return false;\n"
            << "  if (in.Consume('}')) return true;\n";
  if (d->field_count() == 0) {
    std::cout << "  (void)m;\n  return false;\n}\n";
    return;
  }
  // Each field's name as its key is written, quotes included: the key after the last one read is
  // compared in place first (a request's keys mostly come in declaration order), which leaves out
  // reading the key as a string and looking it up.
  std::cout << "  static constexpr absl::string_view kQuoted[] = {";
  for (int i = 0; i < d->field_count(); ++i) {
    std::cout << (i == 0 ? "" : ", ") << Literal(absl::StrCat("\"", d->field(i)->name(), "\""));
  }
  std::cout << "};\n"
            << "  uint64_t seen[" << words << "] = {};\n"
            << "  auto was_seen = [&](int i) { return (seen[i / 64] >> (i % 64) & 1) != 0; };\n"
            << "  int next = 0;  // the index after the last field read\n"
            << "  do {\n"
            << "    int index;\n"
            << "    if (next < " << d->field_count() << " && in.ConsumeQuoted(kQuoted[next])) {\n"
            << "      index = next;\n"
            << "    } else {\n"
            << "      absl::string_view key;\n"
            << "      if (!in.ReadPlainString(&key)) return false;\n"
            << "      index = " << FieldName(d) << "(key, next);\n"
            << "    }\n"
            << "    if (!in.Consume(':') || index < 0 || was_seen(index)) return false;\n"
            << "    seen[index / 64] |= uint64_t{1} << (index % 64);\n"
            << "    next = index + 1;\n"
            << "    switch (index) {\n";
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    std::cout << "      case " << i << ": {  // " << f->name() << "\n";
    if (Declined(f)) {
      std::cout << "        return false;\n      }\n";
      continue;
    }
    if (const auto* oneof = f->real_containing_oneof()) {
      for (int k = 0; k < oneof->field_count(); ++k) {
        if (oneof->field(k) == f) continue;
        std::cout << "        if (was_seen(" << oneof->field(k)->index() << ")) return false;\n";
      }
    }
    if (f->is_repeated()) {
      std::cout << "        if (!in.Consume('[')) return false;\n"
                << "        if (!in.Consume(']')) {\n"
                << "          do {\n"
                << "            " << Value(f, true) << "\n"
                << "          } while (in.Consume(','));\n"
                << "          if (!in.Consume(']')) return false;\n"
                << "        }\n";
    } else {
      std::cout << "        " << Value(f, false) << "\n";
    }
    std::cout << "        break;\n      }\n";
  }
  std::cout << "      default:\n        return false;\n    }\n"
            << "  } while (in.Consume(','));\n"
            << "  return in.Consume('}');\n}\n";
}

}  // namespace

int main() {
  const std::vector<const Descriptor*> types =
      dcplan::codegen::MessageTypesOf(dcplan::PlanRequest::descriptor());
  std::set<std::string> headers = dcplan::codegen::GeneratedHeaders(types);
  std::vector<const EnumDescriptor*> enums;
  std::set<const EnumDescriptor*> enums_seen;
  for (const Descriptor* d : types) {
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM &&
          enums_seen.insert(f->enum_type()).second) {
        enums.push_back(f->enum_type());
        headers.insert(dcplan::codegen::GeneratedHeader(f->enum_type()->file()));
      }
    }
  }
  std::cout << "// Generated by proto/gen_json_parser.cc at build time: do not edit.\n"
               "#include \"proto/request_json.h\"\n\n"
               "#include <cstdint>\n\n"
               "#include \"absl/strings/string_view.h\"\n"
               "#include \"proto/json_reader.h\"\n";
  for (const std::string& h : headers) std::cout << "#include \"" << h << "\"\n";
  std::cout << "\nnamespace dcplan {\nnamespace {\n";
  for (const Descriptor* d : types) {
    std::cout << "\nbool " << ParseName(d) << "(JsonReader& in, " << ClassName(d)
              << "* m, int depth);";
  }
  std::cout << "\n";
  for (const EnumDescriptor* e : enums) WriteEnumReader(e);
  for (const Descriptor* d : types) {
    WriteFieldLookup(d);
    WriteParser(d);
  }
  std::cout << "\n}  // namespace\n\n"
               "bool ParsePlanRequestJson(absl::string_view json, PlanRequest* request) {\n"
               "  request->Clear();\n"
               "  JsonReader in(json);\n"
               "  return Parse_dcplan_PlanRequest(in, request, 0) && in.AtEnd();\n"
               "}\n\n"
               "}  // namespace dcplan\n";
  return 0;
}

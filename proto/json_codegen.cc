#include "proto/json_codegen.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace dcplan::codegen {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

namespace {

// ::package::Name for a top-level type's name.
std::string InPackage(const google::protobuf::FileDescriptor* file, const std::string& name) {
  return absl::StrCat("::", absl::StrReplaceAll(file->package(), {{".", "::"}}), "::", name);
}

}  // namespace

std::string ClassName(const Descriptor* d) {
  if (d->containing_type() != nullptr) {
    return absl::StrCat(ClassName(d->containing_type()), "_", d->name());
  }
  return InPackage(d->file(), d->name());
}

std::string EnumClassName(const EnumDescriptor* e) {
  if (e->containing_type() != nullptr) {
    return absl::StrCat(ClassName(e->containing_type()), "_", e->name());
  }
  return InPackage(e->file(), e->name());
}

std::string FunctionName(const std::string& prefix, const Descriptor* d) {
  return absl::StrCat(prefix, absl::StrReplaceAll(d->full_name(), {{".", "_"}}));
}

std::string FunctionName(const std::string& prefix, const EnumDescriptor* e) {
  return absl::StrCat(prefix, absl::StrReplaceAll(e->full_name(), {{".", "_"}}));
}

std::string GeneratedHeader(const google::protobuf::FileDescriptor* file) {
  const std::string& name = file->name();
  return absl::StrCat(name.substr(0, name.rfind('.')), ".pb.h");
}

std::string Accessor(const FieldDescriptor* f) {
  static const std::set<std::string> kKeywords = {
      "alignas",  "alignof",  "and",      "asm",      "auto",     "bool",      "break",
      "case",     "catch",    "char",     "class",    "const",    "constexpr", "continue",
      "default",  "delete",   "do",       "double",   "else",     "enum",      "explicit",
      "export",   "extern",   "false",    "float",    "for",      "friend",    "goto",
      "if",       "inline",   "int",      "long",     "mutable",  "namespace", "new",
      "noexcept", "not",      "nullptr",  "operator", "or",       "private",   "protected",
      "public",   "register", "return",   "short",    "signed",   "sizeof",    "static",
      "struct",   "switch",   "template", "this",     "throw",    "true",      "try",
      "typedef",  "typeid",   "typename", "union",    "unsigned", "using",     "virtual",
      "void",     "volatile", "while",    "xor"};
  std::string name = f->lowercase_name();
  if (kKeywords.count(name) > 0) name += "_";
  return name;
}

std::string Literal(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

void CollectMessageTypes(const Descriptor* d, std::vector<const Descriptor*>* out,
                         std::set<const Descriptor*>* seen) {
  if (!seen->insert(d).second) return;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_map()) {
      CollectMessageTypes(f->message_type(), out, seen);
    }
  }
  out->push_back(d);
}

std::vector<const Descriptor*> MessageTypesOf(const Descriptor* root) {
  std::vector<const Descriptor*> types;
  std::set<const Descriptor*> seen;
  CollectMessageTypes(root, &types, &seen);
  return types;
}

std::set<std::string> GeneratedHeaders(const std::vector<const Descriptor*>& types) {
  std::set<std::string> headers;
  for (const Descriptor* d : types) headers.insert(GeneratedHeader(d->file()));
  return headers;
}

bool Declined(const FieldDescriptor* f) {
  return f->is_map() || f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT ||
         f->type() == FieldDescriptor::TYPE_BYTES;
}

}  // namespace dcplan::codegen

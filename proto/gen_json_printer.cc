// File: proto/gen_json_printer.cc
//
// Writes C++ that prints a Plan (and every message type inside it) as proto3 JSON through the
// generated accessors: the code proto/json_fast.cc's reflection printer would run, unrolled for
// one schema. Bazel runs it at build time (proto/BUILD.bazel, genrule plan_json_cc); the output is
// never checked in, so a field added to plan.proto is printed with no change here.
//
// The output is byte for byte what json_fast.cc's printer (and so protobuf's printer with io.h's
// options) writes: fields outside any oneof in declaration order, message fields only when present,
// then the members of oneofs (proto3 `optional` included) by field number when set; doubles in
// protobuf's shortest form; 64-bit integers quoted; enums by name; strings escaped as protobuf
// does. Whatever json_fast declines (maps, bytes, floats, non-ASCII strings) makes the generated
// printer decline too, and the caller falls back.
//
//   bazel-bin/proto/gen_json_printer > plan_json.cc
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "proto/json_codegen.h"
#include "proto/plan.pb.h"

namespace {

using ::dcplan::codegen::Accessor;
using ::dcplan::codegen::ClassName;
using ::dcplan::codegen::Declined;
using ::dcplan::codegen::Literal;
using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

std::string FunctionName(const Descriptor* d) { return dcplan::codegen::FunctionName("Print_", d); }

// Statements appending the value `v` (an expression) of field `f` at nesting `depth` (a C++
// expression).
std::string Value(const FieldDescriptor* f, const std::string& v, const std::string& depth) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::StrCat("if (!", FunctionName(f->message_type()), "(", v, ", o, ", depth,
                          ")) return false;");
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return absl::StrCat("o.Double(", v, ");");
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat("o.Integer(", v, ");");
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat("o.QuotedInteger(", v, ");");
    case FieldDescriptor::CPPTYPE_BOOL:
      return absl::StrCat("if (", v, ") { o.Text(\"true\"); } else { o.Text(\"false\"); }");
    case FieldDescriptor::CPPTYPE_ENUM: {
      const EnumDescriptor* e = f->enum_type();
      std::string s = absl::StrCat("switch (static_cast<int>(", v, ")) {");
      std::set<int> done;
      for (int k = 0; k < e->value_count(); ++k) {
        const int number = e->value(k)->number();
        if (!done.insert(number).second) continue;  // an alias: the first name, as protobuf
        absl::StrAppend(&s, " case ", number, ": o.Text(",
                        Literal(absl::StrCat("\"", e->FindValueByNumber(number)->name(), "\"")),
                        "); break;");
      }
      absl::StrAppend(&s, " default: o.Integer(static_cast<int>(", v, ")); }");
      return s;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      return absl::StrCat("if (!o.String(", v, ")) return false;");
  }
  return "return false;";
}

// Whether a member is the first of its object, as far as the generator knows: the comma before a
// key is decided here when it can be, and at run time only after a member that may be absent.
enum class First { kYes, kNo, kRuntime };

// The key of `f`, with the comma before it as `first` says.
std::string KeyCall(const FieldDescriptor* f, First first) {
  const std::string key = Literal(absl::StrCat("\"", f->name(), "\":"));
  switch (first) {
    case First::kYes:
      return absl::StrCat("  o.Key</*comma=*/false>(depth, ", key, ");\n");
    case First::kNo:
      return absl::StrCat("  o.Key</*comma=*/true>(depth, ", key, ");\n");
    case First::kRuntime:
      break;
  }
  return absl::StrCat("  o.Key(depth, &first, ", key, ");\n");
}

// The body printing field `f` of `m` at `depth` (the message's own nesting).
std::string Field(const FieldDescriptor* f, First first) {
  if (Declined(f)) return "  return false;\n";
  const std::string name = Accessor(f);
  std::string s = KeyCall(f, first);
  if (!f->is_repeated()) {
    absl::StrAppend(&s, "  ", Value(f, absl::StrCat("m.", name, "()"), "depth + 1"), "\n");
    return s;
  }
  absl::StrAppend(&s, "  o.Char('[');\n", "  for (int i = 0; i < m.", name, "_size(); ++i) {\n",
                  "    if (i > 0) o.Char(',');\n", "    o.NewLine(depth + 2);\n", "    ",
                  Value(f, absl::StrCat("m.", name, "(i)"), "depth + 2"), "\n  }\n", "  if (m.",
                  name, "_size() > 0) o.NewLine(depth + 1);\n", "  o.Char(']');\n");
  return s;
}

}  // namespace

int main() {
  const std::vector<const Descriptor*> types =
      dcplan::codegen::MessageTypesOf(dcplan::Plan::descriptor());
  const std::set<std::string> headers = dcplan::codegen::GeneratedHeaders(types);
  std::cout << "// Generated by proto/gen_json_printer.cc at build time: do not edit.\n"
               "#include \"proto/plan_json.h\"\n\n"
               "#include <algorithm>\n"
               "#include <charconv>\n"
               "#include <cstring>\n"
               "#include <string>\n\n"
               "#include \"base/json.h\"\n"
               "#include \"base/shortest_double.h\"\n";
  for (const std::string& h : headers) std::cout << "#include \"" << h << "\"\n";
  std::cout
      << "\nnamespace dcplan {\nnamespace {\n\n"
         "// Writes through a pointer into `out`, grown ahead of each piece by at least the\n"
         "// piece's largest size (a string's is six bytes a character): no std::string\n"
         "// append per token.\n"
         "class Out {\n"
         " public:\n"
         "  // Room for what this thread wrote last time and 8 KB more (16 KB at first):\n"
         "  // a plan is written without growing `out` (each growth zeroed and copied\n"
         "  // ~16 KB).\n"
         "  Out(std::string* out, bool indent)\n"
         "      : out_(out), indent_(indent), start_(out->size()) {\n"
         "    out_->resize(start_ + std::max<size_t>(16384, LastSize() + 8192));\n"
         "    p_ = out_->data() + start_;\n"
         "    end_ = out_->data() + out_->size();\n"
         "  }\n"
         "  // Trims `out` to what was written, or to what it held before when `ok` is false.\n"
         "  void Finish(bool ok) {\n"
         "    const size_t written = static_cast<size_t>(p_ - out_->data()) - start_;\n"
         "    if (ok) LastSize() = std::min<size_t>(written, size_t{1} << 20);\n"
         "    out_->resize(ok ? start_ + written : start_);\n"
         "  }\n"
         "  static size_t& LastSize() {\n"
         "    static thread_local size_t last = 0;\n"
         "    return last;\n"
         "  }\n"
         "  void Char(char c) {\n"
         "    Room(1);\n"
         "    *p_++ = c;\n"
         "  }\n"
         "  template <size_t N>\n"
         "  void Text(const char (&text)[N]) {\n"
         "    Room(N - 1);\n"
         "    Put(text, N - 1);\n"
         "  }\n"
         "  void NewLine(int depth) {\n"
         "    if (!indent_) return;\n"
         "    Room(static_cast<size_t>(depth) + 1);\n"
         "    Indent(depth);\n"
         "  }\n"
         "  // A member's key (\"name\":, then a space when indented), after a comma unless it\n"
         "  // is the first.\n"
         "  template <size_t N>\n"
         "  void Key(int depth, bool* first, const char (&key)[N]) {\n"
         "    if (*first) {\n"
         "      Key<false>(depth, key);\n"
         "    } else {\n"
         "      Key<true>(depth, key);\n"
         "    }\n"
         "    *first = false;\n"
         "  }\n"
         "  // The same where the generator knows whether a member came before.\n"
         "  template <bool comma, size_t N>\n"
         "  void Key(int depth, const char (&key)[N]) {\n"
         "    Room(N + static_cast<size_t>(depth) + 4);\n"
         "    if (comma) *p_++ = ',';\n"
         "    if (indent_) Indent(depth + 1);\n"
         "    Put(key, N - 1);\n"
         "    if (indent_) *p_++ = ' ';\n"
         "  }\n"
         "  void Double(double v) {\n"
         "    Room(kMaxJsonDoubleBytes);\n"
         "    p_ = WriteProtobufJsonDouble(v, p_);\n"
         "  }\n"
         "  template <typename Int>\n"
         "  void Integer(Int v) {\n"
         "    Room(24);\n"
         "    p_ = WriteInteger(static_cast<int64_t>(v), p_);\n"
         "  }\n"
         "  template <typename Int>\n"
         "  void QuotedInteger(Int v) {\n"
         "    Room(24);\n"
         "    *p_++ = '\"';\n"
         "    p_ = std::to_chars(p_, p_ + 22, v).ptr;\n"
         "    *p_++ = '\"';\n"
         "  }\n"
         "  bool String(const std::string& text) {\n"
         "    Room(MaxProtobufJsonStringBytes(text.size()));\n"
         "    char* end = WriteProtobufJsonString(text, p_);\n"
         "    if (end == nullptr) return false;\n"
         "    p_ = end;\n"
         "    return true;\n"
         "  }\n\n"
         " private:\n"
         "  void Room(size_t n) {\n"
         "    if (static_cast<size_t>(end_ - p_) < n) Grow(n);\n"
         "  }\n"
         "  void Grow(size_t n) {\n"
         "    const size_t used = static_cast<size_t>(p_ - out_->data());\n"
         "    out_->resize(std::max(2 * out_->size(), used + n));\n"
         "    p_ = out_->data() + used;\n"
         "    end_ = out_->data() + out_->size();\n"
         "  }\n"
         "  void Put(const char* text, size_t n) {\n"
         "    std::memcpy(p_, text, n);\n"
         "    p_ += n;\n"
         "  }\n"
         "  // A new line and `depth` spaces; the room is made already.\n"
         "  void Indent(int depth) {\n"
         "    *p_++ = '\\n';\n"
         "    std::memset(p_, ' ', static_cast<size_t>(depth));\n"
         "    p_ += depth;\n"
         "  }\n\n"
         "  std::string* out_;\n"
         "  bool indent_;\n"
         "  size_t start_;\n"
         "  char* p_;\n"
         "  char* end_;\n"
         "};\n\n";
  for (const Descriptor* d : types) {
    std::cout << "bool " << FunctionName(d) << "(const " << ClassName(d)
              << "& m, Out& o, int depth);\n";
  }
  for (const Descriptor* d : types) {
    std::vector<const FieldDescriptor*> plain, oneof;
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      (f->containing_oneof() != nullptr ? oneof : plain).push_back(f);
    }
    std::sort(oneof.begin(), oneof.end(), [](const FieldDescriptor* a, const FieldDescriptor* b) {
      return a->number() < b->number();
    });
    std::cout << "\nbool " << FunctionName(d) << "(const " << ClassName(d)
              << "& m, Out& o, int depth) {\n"
              << "  o.Char('{');\n";
    if (d->field_count() == 0) std::cout << "  (void)m;\n";
    // Whether a member has been written: known here until the first member that may be absent
    // (a message or a oneof member), kept in `first` at run time from there on.
    First first = First::kYes;
    auto member = [&](const FieldDescriptor* f, bool guarded, const std::string& comment) {
      std::cout << "  // " << comment << "\n";
      if (guarded && first == First::kYes) {
        std::cout << "  bool first = true;\n";
        first = First::kRuntime;
      }
      if (guarded) std::cout << "  if (m.has_" << Accessor(f) << "()) {\n";
      std::cout << Field(f, first);
      if (guarded) {
        std::cout << "  }\n";
      } else {
        first = First::kNo;  // always written
      }
    };
    for (const FieldDescriptor* f : plain) {
      member(f, f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_repeated(), f->name());
    }
    for (const FieldDescriptor* f : oneof) {
      member(f, true, absl::StrCat(f->name(), " (in oneof ", f->containing_oneof()->name(), ")"));
    }
    if (first == First::kNo) std::cout << "  o.NewLine(depth);\n";
    if (first == First::kRuntime) std::cout << "  if (!first) o.NewLine(depth);\n";
    std::cout << "  o.Char('}');\n"
              << "  return true;\n}\n";
  }
  std::cout << "\n}  // namespace\n\n"
               "bool PrintPlanJson(const Plan& plan, bool indent, int depth, std::string* out) {\n"
               "  Out o(out, indent);\n"
               "  const bool ok = Print_dcplan_Plan(plan, o, depth);\n"
               "  o.Finish(ok);\n"
               "  return ok;\n"
               "}\n\n"
               "}  // namespace dcplan\n";
  return 0;
}

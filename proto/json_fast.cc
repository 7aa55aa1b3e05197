#include "proto/json_fast.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "google/protobuf/descriptor.h"

namespace dcplan {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// ------------------------------------------------------------------------------------------------
// Printing
// ------------------------------------------------------------------------------------------------

// protobuf's SimpleDtoa: the shortest of %.15g and %.17g that reads back exactly.
void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  // Whole numbers below 10^15 print as integers under %.15g: the common case (watts, counts).
  if (v == std::trunc(v) && std::abs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
    absl::StrAppend(out, static_cast<int64_t>(v));
    return;
  }
  // std::to_chars with a precision is printf's %.*g, at a fraction of the cost.
  char buffer[40];
  auto printed = std::to_chars(buffer, buffer + sizeof(buffer), v, std::chars_format::general, 15);
  double back = 0;
  std::from_chars(buffer, printed.ptr, back);
  if (back != v) {
    printed = std::to_chars(buffer, buffer + sizeof(buffer), v, std::chars_format::general, 17);
  }
  out->append(buffer, static_cast<size_t>(printed.ptr - buffer));
}

class Printer {
 public:
  Printer(bool indent, std::string* out) : indent_(indent), out_(out) {}

  // Fields in protobuf's order: those outside any oneof in declaration order, then the members of
  // oneofs, proto3 `optional` ones included, that are set, by field number (protobuf's
  // default-value writer lays out the first kind up front and appends the second as their values
  // arrive).
  bool PrintMessage(const Message& m, int depth) {
    const Descriptor* d = m.GetDescriptor();
    const Reflection* r = m.GetReflection();
    out_->push_back('{');
    bool first = true;
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (f->containing_oneof() != nullptr) continue;
      if (f->message_type() != nullptr && !f->is_repeated() && !r->HasField(m, f)) continue;
      if (!PrintField(m, r, f, depth, &first)) return false;
    }
    if (d->oneof_decl_count() > 0) {
      int previous = 0;
      while (true) {
        const FieldDescriptor* next = nullptr;
        for (int i = 0; i < d->field_count(); ++i) {
          const FieldDescriptor* f = d->field(i);
          if (f->containing_oneof() == nullptr || f->number() <= previous || !r->HasField(m, f)) {
            continue;
          }
          if (next == nullptr || f->number() < next->number()) next = f;
        }
        if (next == nullptr) break;
        if (!PrintField(m, r, next, depth, &first)) return false;
        previous = next->number();
      }
    }
    if (!first) NewLine(depth);
    out_->push_back('}');
    return true;
  }

 private:
  bool PrintField(const Message& m, const Reflection* r, const FieldDescriptor* f, int depth,
                  bool* first) {
    if (f->is_map()) return false;
    if (!*first) out_->push_back(',');
    *first = false;
    NewLine(depth + 1);
    out_->push_back('"');
    out_->append(f->name());
    out_->append(indent_ ? "\": " : "\":");
    if (!f->is_repeated()) return PrintValue(m, r, f, -1, depth + 1);
    const int n = r->FieldSize(m, f);
    out_->push_back('[');
    for (int j = 0; j < n; ++j) {
      if (j > 0) out_->push_back(',');
      NewLine(depth + 2);
      if (!PrintValue(m, r, f, j, depth + 2)) return false;
    }
    if (n > 0) NewLine(depth + 1);
    out_->push_back(']');
    return true;
  }

  void NewLine(int depth) {
    if (!indent_) return;
    out_->push_back('\n');
    out_->append(static_cast<size_t>(depth), ' ');
  }

  // Field `f` of `m` (element `index` when repeated, else -1).
  bool PrintValue(const Message& m, const Reflection* r, const FieldDescriptor* f, int index,
                  int depth) {
    const bool rep = index >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return PrintMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), depth);
      case FieldDescriptor::CPPTYPE_DOUBLE:
        AppendDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f), out_);
        return true;
      case FieldDescriptor::CPPTYPE_INT32:
        absl::StrAppend(out_, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
        return true;
      case FieldDescriptor::CPPTYPE_UINT32:
        absl::StrAppend(out_, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
        return true;
      case FieldDescriptor::CPPTYPE_INT64:
        absl::StrAppend(out_, "\"", rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f),
                        "\"");
        return true;
      case FieldDescriptor::CPPTYPE_UINT64:
        absl::StrAppend(out_, "\"", rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f),
                        "\"");
        return true;
      case FieldDescriptor::CPPTYPE_BOOL:
        out_->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false");
        return true;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const int number = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
        const EnumValueDescriptor* v = f->enum_type()->FindValueByNumber(number);
        if (v == nullptr) {
          absl::StrAppend(out_, number);
        } else {
          absl::StrAppend(out_, "\"", v->name(), "\"");
        }
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        if (f->type() == FieldDescriptor::TYPE_BYTES) return false;
        std::string scratch;
        const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                   : r->GetStringReference(m, f, &scratch);
        return AppendProtobufJsonString(s, out_);
      }
      default:  // float
        return false;
    }
  }

  const bool indent_;
  std::string* out_;
};

// ------------------------------------------------------------------------------------------------
// Parsing
// ------------------------------------------------------------------------------------------------

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(absl::string_view json) : p_(json.data()), end_(json.data() + json.size()) {}

  bool ParseDocument(Message* m) {
    SkipSpace();
    if (!ParseObject(m, 0)) return false;
    SkipSpace();
    return p_ == end_;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // A string without escapes or non-ASCII bytes (anything else: decline).
  bool ParsePlainString(absl::string_view* s) {
    SkipSpace();
    if (p_ >= end_ || *p_ != '"') return false;
    const char* start = ++p_;
    while (p_ < end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++p_;
    }
    if (p_ >= end_) return false;
    *s = absl::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // A JSON number token, as text; `integer` when it has no fraction or exponent.
  bool ParseNumberToken(absl::string_view* token, bool* integer) {
    SkipSpace();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    *integer = true;
    if (p_ < end_ && *p_ == '.') {
      *integer = false;
      ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      *integer = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return false;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    *token = absl::string_view(start, static_cast<size_t>(p_ - start));
    return true;
  }

  bool ParseLiteral(absl::string_view word) {
    SkipSpace();
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        absl::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool ParseObject(Message* m, int depth) {
    if (depth > kMaxDepth || !Consume('{')) return false;
    const Descriptor* d = m->GetDescriptor();
    const Reflection* r = m->GetReflection();
    std::vector<bool> seen(static_cast<size_t>(d->field_count()), false);
    if (Consume('}')) return true;
    do {
      absl::string_view key;
      if (!ParsePlainString(&key) || !Consume(':')) return false;
      const std::string name(key);
      const FieldDescriptor* f = d->FindFieldByName(name);
      for (int i = 0; f == nullptr && i < d->field_count(); ++i) {
        if (d->field(i)->json_name() == name) f = d->field(i);  // lowerCamelCase
      }
      if (f == nullptr || f->is_map()) return false;
      const size_t index = static_cast<size_t>(f->index());
      if (seen[index]) return false;
      seen[index] = true;
      if (const auto* oneof = f->real_containing_oneof()) {
        for (int i = 0; i < oneof->field_count(); ++i) {
          if (oneof->field(i) != f && seen[static_cast<size_t>(oneof->field(i)->index())]) {
            return false;
          }
        }
      }
      if (f->is_repeated()) {
        if (!Consume('[')) return false;
        if (!Consume(']')) {
          do {
            if (!ParseValue(m, r, f, depth)) return false;
          } while (Consume(','));
          if (!Consume(']')) return false;
        }
      } else if (!ParseValue(m, r, f, depth)) {
        return false;
      }
    } while (Consume(','));
    return Consume('}');
  }

  // One value of field `f` (an element when repeated).
  bool ParseValue(Message* m, const Reflection* r, const FieldDescriptor* f, int depth) {
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return ParseObject(rep ? r->AddMessage(m, f) : r->MutableMessage(m, f), depth + 1);
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        double v;
        SkipSpace();
        if (p_ < end_ && *p_ == '"') {
          absl::string_view s;
          if (!ParsePlainString(&s)) return false;
          if (s == "NaN") {
            v = std::numeric_limits<double>::quiet_NaN();
          } else if (s == "Infinity") {
            v = std::numeric_limits<double>::infinity();
          } else if (s == "-Infinity") {
            v = -std::numeric_limits<double>::infinity();
          } else {
            return false;
          }
        } else {
          absl::string_view token;
          bool integer;
          if (!ParseNumberToken(&token, &integer)) return false;
          const std::string text(token);
          char* stop = nullptr;
          v = std::strtod(text.c_str(), &stop);
          if (stop != text.c_str() + text.size() || std::isinf(v)) return false;
          // protobuf reads "-0" as +0 and long integers its own way: its call.
          if ((v == 0 && std::signbit(v)) || (integer && token.size() > 15)) return false;
        }
        rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT32:
      case FieldDescriptor::CPPTYPE_UINT64: {
        absl::string_view token;
        SkipSpace();
        if (p_ < end_ && *p_ == '"') {
          if (!ParsePlainString(&token)) return false;
          // A quoted integer in the plain form only ("12", "-3").
          const char* t = token.data();
          const char* e = t + token.size();
          if (t < e && *t == '-') ++t;
          if (t == e || (*t == '0' && e - t > 1)) return false;
          for (; t < e; ++t) {
            if (*t < '0' || *t > '9') return false;
          }
        } else {
          bool integer;
          if (!ParseNumberToken(&token, &integer) || !integer) return false;
        }
        return SetInteger(m, r, f, token);
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        bool v;
        if (ParseLiteral("true")) {
          v = true;
        } else if (ParseLiteral("false")) {
          v = false;
        } else {
          return false;
        }
        rep ? r->AddBool(m, f, v) : r->SetBool(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        absl::string_view name;
        if (!ParsePlainString(&name)) return false;
        const EnumValueDescriptor* v = f->enum_type()->FindValueByName(std::string(name));
        if (v == nullptr) return false;
        rep ? r->AddEnumValue(m, f, v->number()) : r->SetEnumValue(m, f, v->number());
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        absl::string_view s;
        if (f->type() == FieldDescriptor::TYPE_BYTES || !ParsePlainString(&s)) return false;
        rep ? r->AddString(m, f, std::string(s)) : r->SetString(m, f, std::string(s));
        return true;
      }
      default:  // float
        return false;
    }
  }

  bool SetInteger(Message* m, const Reflection* r, const FieldDescriptor* f,
                  absl::string_view token) {
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: {
        int32_t v;
        if (!absl::SimpleAtoi(token, &v)) return false;
        rep ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        int64_t v;
        if (!absl::SimpleAtoi(token, &v)) return false;
        rep ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        uint32_t v;
        if (token.empty() || token[0] == '-' || !absl::SimpleAtoi(token, &v)) return false;
        rep ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
        return true;
      }
      default: {
        uint64_t v;
        if (token.empty() || token[0] == '-' || !absl::SimpleAtoi(token, &v)) return false;
        rep ? r->AddUInt64(m, f, v) : r->SetUInt64(m, f, v);
        return true;
      }
    }
  }

  const char* p_;
  const char* const end_;
};

}  // namespace

bool PrintJsonFast(const Message& message, bool indent, std::string* out) {
  const size_t size = out->size();
  Printer printer(indent, out);
  if (printer.PrintMessage(message, 0)) return true;
  out->resize(size);
  return false;
}

bool ParseJsonFast(absl::string_view json, Message* message) {
  message->Clear();
  Parser parser(json);
  return parser.ParseDocument(message);
}

}  // namespace dcplan

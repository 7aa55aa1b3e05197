#include "proto/json_fast.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/json.h"
#include "google/protobuf/descriptor.h"
#include "proto/json_reader.h"
#include "proto/plan.pb.h"
#include "proto/plan_json.h"
#include "proto/request.pb.h"
#include "proto/request_json.h"

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

// How the printer handles one field, worked out once per message type.
enum class Kind : uint8_t {
  kMessage,
  kDouble,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kBool,
  kEnum,
  kString,
  kDecline,  // maps, bytes and floats: left to protobuf
};

struct MessageLayout;

struct FieldLayout {
  const FieldDescriptor* field;
  Kind kind;
  bool repeated;
  bool map;
  // "name": (indented) and "name": (compact), with the quotes.
  std::string key_indented;
  std::string key_compact;
  const MessageLayout* message = nullptr;  // kMessage
  // kEnum: the quoted names of the values numbered 0 .. size - 1 (empty where none); other
  // numbers are looked up.
  std::vector<std::string> enum_names;
};

// A message type's fields in protobuf's order: those outside any oneof in declaration order
// (`plain`), then the members of oneofs, proto3 `optional` ones included, by field number (`oneof`;
// printed when set). protobuf's default-value writer lays out the first kind up front and appends
// the second as their values arrive.
struct MessageLayout {
  std::vector<FieldLayout> plain;
  std::vector<FieldLayout> oneof;
  // For the parser: each field by its name and by its lowerCamelCase json_name (the name first, as
  // Descriptor::FindFieldByName, then the first field whose json_name it is).
  absl::flat_hash_map<std::string, const FieldLayout*> by_name;
  // Each field by its index: a request's keys mostly come in declaration order, so the parser
  // tries the field after the last one first, with no hashing.
  std::vector<const FieldLayout*> in_order;
  // The type is Plan: printed by proto/plan_json.h.
  bool plan = false;
};

Kind KindOf(const FieldDescriptor* f) {
  if (f->is_map()) return Kind::kDecline;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return Kind::kMessage;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return Kind::kDouble;
    case FieldDescriptor::CPPTYPE_INT32:
      return Kind::kInt32;
    case FieldDescriptor::CPPTYPE_UINT32:
      return Kind::kUInt32;
    case FieldDescriptor::CPPTYPE_INT64:
      return Kind::kInt64;
    case FieldDescriptor::CPPTYPE_UINT64:
      return Kind::kUInt64;
    case FieldDescriptor::CPPTYPE_BOOL:
      return Kind::kBool;
    case FieldDescriptor::CPPTYPE_ENUM:
      return Kind::kEnum;
    case FieldDescriptor::CPPTYPE_STRING:
      return f->type() == FieldDescriptor::TYPE_BYTES ? Kind::kDecline : Kind::kString;
    default:  // float
      return Kind::kDecline;
  }
}

// The layouts of every message type met so far, built on first use and kept for the life of the
// process (descriptors live as long). The layout follows the descriptor, so a field added to a
// .proto is printed (or declined) with no change here.
class Layouts {
 public:
  const MessageLayout* For(const Descriptor* d) {
    std::lock_guard<std::mutex> lock(mu_);
    return BuildLocked(d);
  }

 private:
  const MessageLayout* BuildLocked(const Descriptor* d) {
    auto it = layouts_.find(d);
    if (it != layouts_.end()) return it->second.get();
    MessageLayout* layout = (layouts_[d] = std::make_unique<MessageLayout>()).get();
    layout->plan = d == Plan::descriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      FieldLayout fl;
      fl.field = f;
      fl.kind = KindOf(f);
      fl.repeated = f->is_repeated();
      fl.map = f->is_map();
      fl.key_indented = absl::StrCat("\"", f->name(), "\": ");
      fl.key_compact = absl::StrCat("\"", f->name(), "\":");
      if (fl.kind == Kind::kMessage) fl.message = BuildLocked(f->message_type());
      if (fl.kind == Kind::kEnum) {
        const google::protobuf::EnumDescriptor* e = f->enum_type();
        int size = 0;
        for (int k = 0; k < e->value_count(); ++k) {
          const int number = e->value(k)->number();
          if (number >= 0 && number < 256) size = std::max(size, number + 1);
        }
        fl.enum_names.resize(static_cast<size_t>(size));
        for (int number = 0; number < size; ++number) {
          const EnumValueDescriptor* v = e->FindValueByNumber(number);
          if (v != nullptr) fl.enum_names[number] = absl::StrCat("\"", v->name(), "\"");
        }
      }
      (f->containing_oneof() != nullptr ? layout->oneof : layout->plain).push_back(std::move(fl));
    }
    std::sort(layout->oneof.begin(), layout->oneof.end(),
              [](const FieldLayout& a, const FieldLayout& b) {
                return a.field->number() < b.field->number();
              });
    std::vector<const FieldLayout*> in_order(static_cast<size_t>(d->field_count()));
    for (const auto* list : {&layout->plain, &layout->oneof}) {
      for (const FieldLayout& f : *list) in_order[static_cast<size_t>(f.field->index())] = &f;
    }
    for (const FieldLayout* f : in_order) layout->by_name.emplace(f->field->name(), f);
    for (const FieldLayout* f : in_order) layout->by_name.emplace(f->field->json_name(), f);
    layout->in_order = std::move(in_order);
    return layout;
  }

  std::mutex mu_;
  std::unordered_map<const Descriptor*, std::unique_ptr<MessageLayout>> layouts_;
};

Layouts& AllLayouts() {
  static Layouts* layouts = new Layouts;
  return *layouts;
}

class Printer {
 public:
  Printer(bool indent, std::string* out) : indent_(indent), out_(out) {}

  bool PrintMessage(const Message& m, const MessageLayout& layout, int depth) {
    // A Plan (the answer every plan request prints) through the code generated for it.
    if (layout.plan) {
      if (const auto* plan = dynamic_cast<const Plan*>(&m)) {
        return PrintPlanJson(*plan, indent_, depth, out_);
      }
    }
    const Reflection* r = m.GetReflection();
    out_->push_back('{');
    bool first = true;
    for (const FieldLayout& f : layout.plain) {
      if (f.kind == Kind::kMessage && !f.repeated && !r->HasField(m, f.field)) continue;
      if (!PrintField(m, r, f, depth, &first)) return false;
    }
    for (const FieldLayout& f : layout.oneof) {
      if (!r->HasField(m, f.field)) continue;
      if (!PrintField(m, r, f, depth, &first)) return false;
    }
    if (!first) NewLine(depth);
    out_->push_back('}');
    return true;
  }

 private:
  bool PrintField(const Message& m, const Reflection* r, const FieldLayout& f, int depth,
                  bool* first) {
    if (f.map) return false;
    if (!*first) out_->push_back(',');
    *first = false;
    NewLine(depth + 1);
    out_->append(indent_ ? f.key_indented : f.key_compact);
    if (!f.repeated) return PrintValue(m, r, f, -1, depth + 1);
    const int n = r->FieldSize(m, f.field);
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
  bool PrintValue(const Message& m, const Reflection* r, const FieldLayout& fl, int index,
                  int depth) {
    const FieldDescriptor* f = fl.field;
    const bool rep = index >= 0;
    switch (fl.kind) {
      case Kind::kMessage:
        return PrintMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f),
                            *fl.message, depth);
      case Kind::kDouble:
        AppendProtobufJsonDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f),
                                 out_);
        return true;
      case Kind::kInt32:
        absl::StrAppend(out_, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
        return true;
      case Kind::kUInt32:
        absl::StrAppend(out_, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
        return true;
      case Kind::kInt64:
        absl::StrAppend(out_, "\"", rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f),
                        "\"");
        return true;
      case Kind::kUInt64:
        absl::StrAppend(out_, "\"", rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f),
                        "\"");
        return true;
      case Kind::kBool:
        out_->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false");
        return true;
      case Kind::kEnum: {
        const int number = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
        if (number >= 0 && static_cast<size_t>(number) < fl.enum_names.size() &&
            !fl.enum_names[number].empty()) {
          out_->append(fl.enum_names[number]);
          return true;
        }
        const EnumValueDescriptor* v = f->enum_type()->FindValueByNumber(number);
        if (v == nullptr) {
          absl::StrAppend(out_, number);
        } else {
          absl::StrAppend(out_, "\"", v->name(), "\"");
        }
        return true;
      }
      case Kind::kString: {
        std::string scratch;
        const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                   : r->GetStringReference(m, f, &scratch);
        return AppendProtobufJsonString(s, out_);
      }
      case Kind::kDecline:
        return false;
    }
    return false;
  }

  const bool indent_;
  std::string* out_;
};

// ------------------------------------------------------------------------------------------------
// Parsing
// ------------------------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(absl::string_view json) : in_(json) {}

  bool ParseDocument(Message* m, const MessageLayout& layout) {
    return ParseObject(m, layout, 0) && in_.AtEnd();
  }

 private:
  bool ParseObject(Message* m, const MessageLayout& layout, int depth) {
    if (depth > JsonReader::kMaxDepth || !in_.Consume('{')) return false;
    const Descriptor* d = m->GetDescriptor();
    const Reflection* r = m->GetReflection();
    // The fields seen so far, by index: bits on the stack for up to 256 fields.
    constexpr size_t kOnStack = 256;
    uint64_t seen_here[kOnStack / 64] = {};
    std::vector<bool> seen_beyond;
    const size_t field_count = static_cast<size_t>(d->field_count());
    if (field_count > kOnStack) seen_beyond.assign(field_count, false);
    auto seen = [&](size_t i) -> bool {
      return i < kOnStack ? (seen_here[i / 64] >> (i % 64) & 1) != 0 : seen_beyond[i];
    };
    if (in_.Consume('}')) return true;
    size_t next = 0;  // the index after the last field read
    do {
      absl::string_view key;
      if (!in_.ReadPlainString(&key) || !in_.Consume(':')) return false;
      const FieldLayout* guess = next < field_count ? layout.in_order[next] : nullptr;
      if (guess == nullptr || guess->field->name() != key) {
        const auto found = layout.by_name.find(key);
        if (found == layout.by_name.end()) return false;
        guess = found->second;
      }
      const FieldLayout& fl = *guess;
      const FieldDescriptor* f = fl.field;
      if (fl.map) return false;
      const size_t index = static_cast<size_t>(f->index());
      if (seen(index)) return false;
      if (index < kOnStack) {
        seen_here[index / 64] |= uint64_t{1} << (index % 64);
      } else {
        seen_beyond[index] = true;
      }
      next = index + 1;
      if (const auto* oneof = f->real_containing_oneof()) {
        for (int i = 0; i < oneof->field_count(); ++i) {
          if (oneof->field(i) != f && seen(static_cast<size_t>(oneof->field(i)->index()))) {
            return false;
          }
        }
      }
      if (fl.repeated) {
        if (!in_.Consume('[')) return false;
        if (!in_.Consume(']')) {
          do {
            if (!ParseValue(m, r, fl, depth)) return false;
          } while (in_.Consume(','));
          if (!in_.Consume(']')) return false;
        }
      } else if (!ParseValue(m, r, fl, depth)) {
        return false;
      }
    } while (in_.Consume(','));
    return in_.Consume('}');
  }

  // One value of field `fl` (an element when repeated).
  bool ParseValue(Message* m, const Reflection* r, const FieldLayout& fl, int depth) {
    const FieldDescriptor* f = fl.field;
    const bool rep = fl.repeated;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return ParseObject(rep ? r->AddMessage(m, f) : r->MutableMessage(m, f), *fl.message,
                           depth + 1);
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        double v;
        if (!in_.ReadDouble(&v)) return false;
        rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT32: {
        int32_t v;
        if (!in_.ReadInteger(&v)) return false;
        rep ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        int64_t v;
        if (!in_.ReadInteger(&v)) return false;
        rep ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        uint32_t v;
        if (!in_.ReadInteger(&v)) return false;
        rep ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_UINT64: {
        uint64_t v;
        if (!in_.ReadInteger(&v)) return false;
        rep ? r->AddUInt64(m, f, v) : r->SetUInt64(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_BOOL: {
        bool v;
        if (!in_.ReadBool(&v)) return false;
        rep ? r->AddBool(m, f, v) : r->SetBool(m, f, v);
        return true;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        absl::string_view name;
        if (!in_.ReadPlainString(&name)) return false;
        // The names of the values numbered 0..255 are at hand (quoted); others, and aliases,
        // through the descriptor.
        int number = -1;
        for (size_t i = 0; i < fl.enum_names.size(); ++i) {
          const std::string& quoted = fl.enum_names[i];
          if (quoted.size() == name.size() + 2 &&
              absl::string_view(quoted).substr(1, name.size()) == name) {
            number = static_cast<int>(i);
            break;
          }
        }
        if (number < 0) {
          const EnumValueDescriptor* v = f->enum_type()->FindValueByName(std::string(name));
          if (v == nullptr) return false;
          number = v->number();
        }
        rep ? r->AddEnumValue(m, f, number) : r->SetEnumValue(m, f, number);
        return true;
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        absl::string_view s;
        if (f->type() == FieldDescriptor::TYPE_BYTES || !in_.ReadPlainString(&s)) return false;
        rep ? r->AddString(m, f, std::string(s)) : r->SetString(m, f, std::string(s));
        return true;
      }
      default:  // float
        return false;
    }
  }

  JsonReader in_;
};

}  // namespace

bool PrintJsonFast(const Message& message, bool indent, std::string* out) {
  const size_t size = out->size();
  Printer printer(indent, out);
  const MessageLayout* layout = AllLayouts().For(message.GetDescriptor());
  if (printer.PrintMessage(message, *layout, 0)) return true;
  out->resize(size);
  return false;
}

bool ParseJsonFast(absl::string_view json, Message* message) {
  if (message->GetDescriptor() == PlanRequest::descriptor()) {
    return ParsePlanRequestJson(json, static_cast<PlanRequest*>(message));
  }
  message->Clear();
  Parser parser(json);
  return parser.ParseDocument(message, *AllLayouts().For(message->GetDescriptor()));
}

}  // namespace dcplan

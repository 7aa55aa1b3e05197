// Every generated accessor against protobuf's reflection, on every singular field of every message
// type PlanRequest reaches: unset, set to zero, to -0.0 (set by its bits), to other values, to
// each enum value, strings empty and not, sub-messages absent, present and empty, and oneof
// members set and then displaced by another member.
#include "proto/request_access.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "proto/json_codegen.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// What the accessors must answer, from reflection.
void ExpectAgrees(const Message& m, const FieldDescriptor* f, const std::string& when) {
  const FieldAccess* a = AccessFor(f);
  ASSERT_NE(a, nullptr) << f->full_name();
  const Reflection* r = m.GetReflection();
  EXPECT_EQ(a->has(m), r->HasField(m, f)) << f->full_name() << " " << when;
  double want = 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      want = r->GetDouble(m, f);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      want = r->GetFloat(m, f);
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      want = r->GetInt32(m, f);
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      want = r->GetUInt32(m, f);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      want = static_cast<double>(r->GetInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      want = static_cast<double>(r->GetUInt64(m, f));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      want = r->GetEnumValue(m, f);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      want = r->GetBool(m, f) ? 1 : 0;
      break;
    default:
      break;
  }
  const double got = a->number(m);
  EXPECT_TRUE(got == want && std::signbit(got) == std::signbit(want))
      << f->full_name() << " " << when << ": " << got << " vs " << want;
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    const Message* sub = a->message(m);
    if (r->HasField(m, f)) {
      EXPECT_EQ(sub, &r->GetMessage(m, f)) << f->full_name() << " " << when;
    } else {
      EXPECT_EQ(sub, nullptr) << f->full_name() << " " << when;
    }
  } else {
    EXPECT_EQ(a->message(m), nullptr) << f->full_name();
  }
}

// The values to try in `f`, each set on `m` by `set(i)` for i in [0, count).
int Values(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_ENUM:
      return f->enum_type()->value_count();
    case FieldDescriptor::CPPTYPE_BOOL:
      return 2;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return 1;
    default:
      return 4;
  }
}

void SetValue(Message* m, const FieldDescriptor* f, int i) {
  const Reflection* r = m->GetReflection();
  static const double kDoubles[] = {0.0, -0.0, 1.25, -3e9};
  static const int64_t kInts[] = {0, 1, 7, 123456};
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(m, f, kDoubles[i]);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(m, f, static_cast<float>(kDoubles[i]));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(m, f, static_cast<int32_t>(i == 3 ? -kInts[i] : kInts[i]));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(m, f, static_cast<uint32_t>(kInts[i]));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(m, f, i == 3 ? -kInts[i] * 1000000 : kInts[i]);
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(m, f, static_cast<uint64_t>(kInts[i]) * 1000000);
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(m, f, f->enum_type()->value(i)->number());
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(m, f, i == 1);
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(m, f, i % 2 == 0 ? "" : "x");
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      r->MutableMessage(m, f);  // present and empty
      break;
  }
}

TEST(RequestAccess, EveryAccessorAgreesWithReflection) {
  const std::vector<const Descriptor*> types = codegen::MessageTypesOf(PlanRequest::descriptor());
  int checked = 0;
  for (const Descriptor* d : types) {
    const Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
    ASSERT_NE(prototype, nullptr) << d->full_name();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (f->is_repeated()) {
        EXPECT_EQ(AccessFor(f), nullptr) << f->full_name();
        continue;
      }
      std::unique_ptr<Message> m(prototype->New());
      ExpectAgrees(*m, f, "unset");
      for (int v = 0; v < Values(f); ++v) {
        SetValue(m.get(), f, v);
        ExpectAgrees(*m, f, "value " + std::to_string(v));
        ++checked;
      }
      // A oneof member displaced by another member of its oneof is unset again.
      if (const auto* oneof = f->real_containing_oneof()) {
        for (int j = 0; j < oneof->field_count(); ++j) {
          const FieldDescriptor* other = oneof->field(j);
          if (other == f) continue;
          SetValue(m.get(), f, Values(f) - 1);
          SetValue(m.get(), other, Values(other) - 1);
          ExpectAgrees(*m, f, "displaced by " + other->name());
        }
      }
      // The default instance answers as an empty message does.
      ExpectAgrees(*prototype, f, "default instance");
    }
  }
  EXPECT_GT(checked, 200);  // PlanRequest reaches a few hundred values to try
}

// The setters do what reflection's SetDouble and MutableMessage do: the same bytes, and a oneof's
// other member cleared.
TEST(RequestAccess, SettersMatchReflection) {
  const std::vector<const Descriptor*> types = codegen::MessageTypesOf(PlanRequest::descriptor());
  int doubles = 0, messages = 0;
  for (const Descriptor* d : types) {
    const Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (f->is_repeated()) continue;
      const FieldAccess* a = AccessFor(f);
      ASSERT_NE(a, nullptr);
      EXPECT_EQ(a->set_double != nullptr, f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE);
      EXPECT_EQ(a->mutable_message != nullptr, f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE);
      // From empty, and from a message whose every other oneof member is set.
      for (bool others : {false, true}) {
        std::unique_ptr<Message> by_access(prototype->New()), by_reflection(prototype->New());
        if (others && f->real_containing_oneof() != nullptr) {
          for (int j = 0; j < f->real_containing_oneof()->field_count(); ++j) {
            const FieldDescriptor* other = f->real_containing_oneof()->field(j);
            if (other == f) continue;
            SetValue(by_access.get(), other, Values(other) - 1);
            SetValue(by_reflection.get(), other, Values(other) - 1);
          }
        }
        if (a->set_double != nullptr) {
          for (double v : {0.0, -0.0, 2.5}) {
            a->set_double(by_access.get(), v);
            by_reflection->GetReflection()->SetDouble(by_reflection.get(), f, v);
            EXPECT_EQ(by_access->SerializeAsString(), by_reflection->SerializeAsString())
                << f->full_name() << " = " << v;
          }
          ++doubles;
        }
        if (a->mutable_message != nullptr) {
          Message* got = a->mutable_message(by_access.get());
          Message* want = by_reflection->GetReflection()->MutableMessage(by_reflection.get(), f);
          EXPECT_EQ(got, &by_access->GetReflection()->GetMessage(*by_access, f));
          EXPECT_EQ(got->GetDescriptor(), want->GetDescriptor());
          EXPECT_EQ(by_access->SerializeAsString(), by_reflection->SerializeAsString())
              << f->full_name();
          EXPECT_TRUE(by_access->GetReflection()->HasField(*by_access, f));
          ++messages;
        }
      }
    }
  }
  EXPECT_GT(doubles, 50);
  EXPECT_GT(messages, 10);
}

TEST(RequestAccess, FieldsOutsideTheRequestHaveNone) {
  EXPECT_EQ(AccessFor(google::protobuf::FileDescriptorProto::descriptor()->FindFieldByName("name")),
            nullptr);
}

}  // namespace
}  // namespace dcplan

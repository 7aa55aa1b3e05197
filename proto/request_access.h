// File: proto/request_access.h
//
// Direct accessors for the singular fields of PlanRequest and every message type inside it,
// generated from request.proto at build time (proto/gen_request_access.cc): for one field, what
// protobuf's reflection answers (HasField, the value as a number, the sub-message; SetDouble and
// MutableMessage) by a plain call
// to the generated getters, without a descriptor lookup, a has-bit search or an offset table. The
// loops that read many fields of one request by path use them: a plan's ledger reads ~150 fields
// and walks ~20 messages (planner/ledger.cc), and reflection there was a fifth of a JSON plan.
// //proto:request_access_test holds every accessor to reflection on every field.
//
// Example:
//   const FieldAccess* a = AccessFor(Site::descriptor()->FindFieldByName("pue"));
//   if (a->has(site)) total += a->number(site);   // reflection's HasField, GetDouble
#pragma once

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace dcplan {

struct FieldAccess {
  // Reflection's HasField(parent, field): the has-bit or oneof case where the field has presence,
  // else a value that is not zero (by its bits for a double) or a string that is not empty.
  bool (*has)(const google::protobuf::Message& parent);
  // The value as a number: the value of a numeric field, an enum's number, a bool as 0 or 1; 0 for
  // a string or message field.
  double (*number)(const google::protobuf::Message& parent);
  // A message field's message when set (reflection's HasField), else null; null for other fields.
  const google::protobuf::Message* (*message)(const google::protobuf::Message& parent);
  // Reflection's SetDouble for a double field (null for other fields).
  void (*set_double)(google::protobuf::Message* parent, double v);
  // Reflection's MutableMessage for a message field (null for other fields).
  google::protobuf::Message* (*mutable_message)(google::protobuf::Message* parent);
};

// The accessors of a singular field (not repeated, not a map) of PlanRequest or of a message type
// it reaches, or null for any other field. `parent` must be a message of the field's containing
// type.
const FieldAccess* AccessFor(const google::protobuf::FieldDescriptor* field);

}  // namespace dcplan

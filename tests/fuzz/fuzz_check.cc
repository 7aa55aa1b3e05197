// File: tests/fuzz/fuzz_check.cc
#include "tests/fuzz/fuzz_check.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "planner/planner.h"
#include "planner/validate.h"
#include "proto/io.h"
#include "proto/plan.pb.h"
#include "tests/plan_invariants.h"

namespace dcplan::fuzz {
namespace {

constexpr Encoding kEncodings[] = {Encoding::kText, Encoding::kJson, Encoding::kBinary};

// Replaces every -0.0 in `message` (at any depth) with +0.0: the same value to dcplan, but JSON
// prints both as 0, so the sign of a zero does not survive JSON (nor need it).
void PositiveZeros(google::protobuf::Message* message) {
  const google::protobuf::Descriptor* d = message->GetDescriptor();
  const google::protobuf::Reflection* r = message->GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE) {
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(*message, f); ++j) {
          if (r->GetRepeatedDouble(*message, f, j) == 0) r->SetRepeatedDouble(message, f, j, 0.0);
        }
      } else if (r->HasField(*message, f) && r->GetDouble(*message, f) == 0) {
        // Keeps an explicitly present zero present (optional fields).
        r->SetDouble(message, f, 0.0);
      }
    } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(*message, f); ++j) {
          PositiveZeros(r->MutableRepeatedMessage(message, f, j));
        }
      } else if (r->HasField(*message, f)) {
        PositiveZeros(r->MutableMessage(message, f));
      }
    }
  }
}

// The wire bytes of `message`, zeros made positive: equal for equal messages (none of ours has a
// map field).
std::string Deterministic(const google::protobuf::Message& message) {
  std::unique_ptr<google::protobuf::Message> copy(message.New());
  copy->CopyFrom(message);
  PositiveZeros(copy.get());
  return copy->SerializePartialAsString();
}

std::string Describe(const PlanRequest& request) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(request, &text);
  return text;
}

}  // namespace

void CheckRequest(const PlanRequest& request, absl::string_view input) {
  const absl::Status valid = ValidateRequest(request);
  if (!valid.ok()) {
    RequireInputError(valid, "ValidateRequest", input);
    return;
  }
  const std::string where = absl::StrCat("\nrequest:\n", Describe(request));

  // A valid request survives every encoding. Text and JSON carry no unknown fields.
  PlanRequest known = request;
  known.DiscardUnknownFields();
  for (Encoding encoding : kEncodings) {
    const absl::StatusOr<std::string> written = SerializeMessage(request, encoding);
    Require(written.ok(),
            absl::StrCat("cannot write a valid request as ", EncodingName(encoding), ": ",
                         written.status().ToString(), where),
            input);
    PlanRequest back;
    const absl::Status read = ParseMessage(*written, encoding, &back);
    Require(read.ok(),
            absl::StrCat("a valid request written as ", EncodingName(encoding),
                         " does not read back: ", read.ToString(), where),
            input);
    const PlanRequest& expected = encoding == Encoding::kBinary ? request : known;
    Require(Deterministic(back) == Deterministic(expected),
            absl::StrCat("a valid request changes through ", EncodingName(encoding), where), input);
  }

  const absl::StatusOr<Plan> plan = SolvePlan(request);
  if (!plan.ok()) {
    // Valid fields that cannot work together (a building smaller than one pod, no cap at all).
    RequireInputError(plan.status(), "SolvePlan", input);
    Require(plan.status().code() == absl::StatusCode::kFailedPrecondition,
            absl::StrCat("a valid request fails to solve with ", plan.status().ToString(), where),
            input);
  } else {
    const absl::Status invariants = testing::CheckPlanInvariants(request, *plan);
    Require(invariants.ok(), absl::StrCat(invariants.ToString(), where), input);
    for (Encoding encoding : kEncodings) {
      const absl::StatusOr<std::string> written = SerializeMessage(*plan, encoding);
      Require(written.ok(),
              absl::StrCat("cannot write the plan as ", EncodingName(encoding), ": ",
                           written.status().ToString(), where),
              input);
    }
    const absl::StatusOr<Plan> again = SolvePlan(request);
    Require(again.ok() && Deterministic(*again) == Deterministic(*plan),
            absl::StrCat("solving the same request twice gives different plans", where), input);
  }

  // Any valid request evaluates one server and dcplan's largest cluster with finite figures.
  const int64_t gpus_per_server = request.hardware().server().gpus_per_server();
  const absl::StatusOr<ScaleReport> scale =
      Scale(request, {1, gpus_per_server, static_cast<int64_t>(limits::kMaxGpus)});
  if (!scale.ok()) {
    RequireInputError(scale.status(), "Scale", input);
    Require(scale.status().code() == absl::StatusCode::kFailedPrecondition,
            absl::StrCat("a valid request fails to scale with ", scale.status().ToString(), where),
            input);
  } else {
    const absl::Status finite = testing::CheckAllFinite(*scale);
    Require(finite.ok(), absl::StrCat("Scale: ", finite.ToString(), where), input);
  }
}

void CheckRequestBytes(absl::string_view input, Encoding encoding) {
  PlanRequest request;
  const absl::Status parsed = ParseMessage(input, encoding, &request);
  if (!parsed.ok()) {
    RequireInputError(parsed, "ParseMessage", input);
    Require(parsed.code() == absl::StatusCode::kInvalidArgument,
            absl::StrCat("a parse error that is not InvalidArgument: ", parsed.ToString()), input);
    return;
  }
  CheckRequest(request, input);
}

}  // namespace dcplan::fuzz

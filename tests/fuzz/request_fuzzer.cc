// File: tests/fuzz/request_fuzzer.cc
//
// libFuzzer harness: bytes -> PlanRequest in one encoding -> validation -> (when valid) round trips
// through every encoding, SolvePlan with every plan invariant checked, Scale. The encoding is
// DCPLAN_FUZZ_ENCODING (kText, kJson or kBinary), set per target in BUILD.bazel, so one source
// gives the three harnesses text_request_fuzzer, json_request_fuzzer and binary_request_fuzzer.
// The JSON harness also checks that the fast JSON codec agrees with protobuf's (proto/json_fast.h).
// Everything else checked is in fuzz_check.h; run them with tests/fuzz/run_fuzzers.sh.
//
// Example:
//   tests/fuzz/run_fuzzers.sh 600 text_request_fuzzer   # ten minutes on the text harness
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "proto/io.h"
#include "proto/json_fast.h"
#include "proto/request.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_require.h"

#ifndef DCPLAN_FUZZ_ENCODING
#error "DCPLAN_FUZZ_ENCODING must name an Encoding: kText, kJson or kBinary"
#endif

namespace {

std::string Deterministic(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  return out;
}

// JSON only: whatever the fast codec (proto/json_fast.h) takes, protobuf's takes too, to the same
// message, and both print that message alike.
void CheckJsonFastAgreesWithProtobuf(absl::string_view input) {
  dcplan::PlanRequest fast, reference;
  if (!dcplan::ParseJsonFast(input, &fast)) return;
  google::protobuf::util::JsonParseOptions parse;
  const bool ok = google::protobuf::util::JsonStringToMessage(
                      google::protobuf::StringPiece(input.data(), input.size()), &reference, parse)
                      .ok();
  dcplan::fuzz::Require(ok, "JSON the fast parser took but protobuf's refused", input);
  dcplan::fuzz::Require(Deterministic(fast) == Deterministic(reference),
                        "JSON the two parsers read differently", input);
  google::protobuf::util::JsonPrintOptions print;
  print.add_whitespace = true;
  print.always_print_primitive_fields = true;
  print.preserve_proto_field_names = true;
  std::string expected, got;
  (void)google::protobuf::util::MessageToJsonString(reference, &expected, print);
  if (dcplan::PrintJsonFast(fast, /*indent=*/true, &got)) {
    got.push_back('\n');
    dcplan::fuzz::Require(got == expected, "a message the two printers print differently", input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  if (dcplan::Encoding::DCPLAN_FUZZ_ENCODING == dcplan::Encoding::kJson) {
    CheckJsonFastAgreesWithProtobuf(input);
  }
  dcplan::fuzz::CheckRequestBytes(input, dcplan::Encoding::DCPLAN_FUZZ_ENCODING);
  return 0;
}

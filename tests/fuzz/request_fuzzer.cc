// File: tests/fuzz/request_fuzzer.cc
//
// libFuzzer harness: bytes -> PlanRequest in one encoding -> validation -> (when valid) round trips
// through every encoding, SolvePlan with every plan invariant checked, Scale. The encoding is
// DCPLAN_FUZZ_ENCODING (kText, kJson or kBinary), set per target in BUILD.bazel, so one source
// gives the three harnesses text_request_fuzzer, json_request_fuzzer and binary_request_fuzzer.
// Everything checked is in fuzz_check.h; run them with tests/fuzz/run_fuzzers.sh.
//
// Example:
//   tests/fuzz/run_fuzzers.sh 600 text_request_fuzzer   # ten minutes on the text harness
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "proto/io.h"
#include "tests/fuzz/fuzz_check.h"

#ifndef DCPLAN_FUZZ_ENCODING
#error "DCPLAN_FUZZ_ENCODING must name an Encoding: kText, kJson or kBinary"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dcplan::fuzz::CheckRequestBytes(absl::string_view(reinterpret_cast<const char*>(data), size),
                                  dcplan::Encoding::DCPLAN_FUZZ_ENCODING);
  return 0;
}

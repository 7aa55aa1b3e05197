// File: tests/extreme_inputs_test.cc
//
// Values at the edges, through the library: NaN and infinity in every double field of PlanRequest
// (found by walking the schema, so a field added later is covered without editing this file), every
// integer field at its type's maximum, and extreme but valid requests (10^9 GPUs, 100 GW, prices of
// zero, a cap smaller than one server, a budget below the fixed costs). Each gives a plan or a
// clear error naming the field; run under --config=asan, UBSan checks that no count overflows on
// the way.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/validate.h"
#include "proto/io.h"
#include "tests/plan_invariants.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;
using ::testing::HasSubstr;

// A valid request with every section present, so that a bad value in any one field is the first
// (and only) error. The workload is a Llama-3-8B-like job (32 layers, hidden 4,096, 8 KV heads).
constexpr char kEverySection[] = R"pb(
  schema_version: SCHEMA_VERSION_1
  name: "every section"
  hardware {
    accelerator {
      peak_flops_per_second: 989.4e12
      tdp_watts: 700
      measured_power_watts: 650
      hbm_bytes: 80e9
      hbm_bandwidth_bytes_per_second: 3.35e12
      price_usd: 27500
    }
    server { gpus_per_server: 8 overhead_watts: 4600 price_usd: 300000 non_gpu_price_usd: 75000 }
    rack { max_servers_per_rack: 4 power_limit_watts: 41000 overhead_watts: 150 price_usd: 15000 }
    pod { racks_per_pod: 8 }
    network {
      scale_up_domain_gpus: 8
      scale_up_bandwidth_bytes_per_second: 450e9
      nics_per_gpu: 1
      port_bits_per_second: 400e9
      switch_radix: 64
      switch_power_watts: 750
      switch_price_usd: 30000
      optic_power_watts: 8.5
      optic_price_usd: 750
      leaf_oversubscription: 1
    }
    calibration {
      kernel_efficiency: 0.7
      scale_up_bandwidth_efficiency: 0.8
      scale_out_bandwidth_efficiency: 0.8
      memory_bound_factor: 1.2
      gradient_sync_overlap: 0.5
      scale_up_latency_seconds: 1e-5
      scale_out_latency_seconds: 2e-5
      hbm_usable_fraction: 0.9
    }
  }
  site {
    pue: 1.3
    building { critical_it_power_watts: 30e6 }
    max_buildings: 3
    substation {
      transformer_rating_va: 100e6
      transformer_count: 4
      power_factor: 0.95
      redundancy: REDUNDANCY_2N
    }
  }
  efficiency { log_linear { intercept: 0.62 slope_per_doubling: 0.02 floor: 0.01 } }
  constraints {
    power_cap_watts: 50e6
    power_cap_at: POWER_CAP_AT_FACILITY
    max_gpus: 100000
    budget_usd: 5e9
    budget_on: BUDGET_ON_TCO
    objective: OBJECTIVE_MAX_GPUS
  }
  costs {
    facility_usd_per_it_watt: 11
    site_fixed_usd: 1e8
    electricity_usd_per_kwh: 0.08
    average_utilization: 0.76
    maintenance_fraction_per_year: 0.05
    staff_usd_per_year: 5e6
    horizon_years: 4
  }
  workload {
    name: "8B"
    layers: 32
    hidden: 4096
    heads: 32
    kv_heads: 8
    ffn_hidden: 14336
    gated_mlp: true
    vocab: 128256
    seq_len: 8192
    params: 8.03e9
    global_batch_tokens: 4194304
    train_tokens: 15e12
  }
)pb";

PlanRequest Parse(absl::string_view text) {
  PlanRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(text), &request)) << text;
  return request;
}

// The base for a field path: kEverySection, with the efficiency model the path goes through (a
// one-point table or a constant) instead of the log-linear curve.
PlanRequest BaseFor(absl::string_view path) {
  PlanRequest request = Parse(kEverySection);
  if (absl::StartsWith(path, "efficiency.table")) {
    request.mutable_efficiency()->mutable_table()->add_points()->set_gpus(8);
    request.mutable_efficiency()->mutable_table()->mutable_points(0)->set_mfu(0.5);
  }
  return request;
}

// Every scalar field path under `descriptor` whose C++ type is one of `types` ("a.b[0].c" for a
// repeated message, whose first element is meant).
void FieldPaths(const Descriptor* descriptor, const std::string& prefix,
                const std::vector<FieldDescriptor::CppType>& types, std::vector<std::string>* out,
                int depth = 0) {
  if (depth > 8) return;  // the schema has no recursion, but never loop
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string path = absl::StrCat(prefix, prefix.empty() ? "" : ".", field->name());
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      FieldPaths(field->message_type(), absl::StrCat(path, field->is_repeated() ? "[0]" : ""),
                 types, out, depth + 1);
    } else if (!field->is_repeated() &&
               std::find(types.begin(), types.end(), field->cpp_type()) != types.end()) {
      out->push_back(path);
    }
  }
}

// The message and field `path` names inside `request`, creating messages on the way.
std::pair<Message*, const FieldDescriptor*> Resolve(PlanRequest* request, absl::string_view path) {
  Message* message = request;
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string name = parts[i];
    const bool indexed = absl::EndsWith(name, "[0]");
    if (indexed) name.resize(name.size() - 3);
    const FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(name);
    if (field == nullptr) return {nullptr, nullptr};
    if (i + 1 == parts.size()) return {message, field};
    const Reflection* reflection = message->GetReflection();
    if (indexed) {
      if (reflection->FieldSize(*message, field) == 0) reflection->AddMessage(message, field);
      message = reflection->MutableRepeatedMessage(message, field, 0);
    } else {
      message = reflection->MutableMessage(message, field);
    }
  }
  return {nullptr, nullptr};
}

TEST(ExtremeInputs, TheBaseRequestIsValid) {
  EXPECT_THAT(ValidateRequest(BaseFor("")), IsOk());
  EXPECT_THAT(ValidateRequest(BaseFor("efficiency.table.points[0].mfu")), IsOk());
}

// NaN, +inf and -inf in each double field: rejected, naming the field path and the value.
TEST(ExtremeInputs, NanAndInfinityInEveryDoubleFieldAreRejectedWithTheFieldPath) {
  std::vector<std::string> paths;
  FieldPaths(PlanRequest::descriptor(), "", {FieldDescriptor::CPPTYPE_DOUBLE}, &paths);
  ASSERT_GE(paths.size(), 40u);  // 47 when this was written
  const std::map<std::string, double> kValues = {
      {"nan", std::numeric_limits<double>::quiet_NaN()},
      {"inf", std::numeric_limits<double>::infinity()},
      {"-inf", -std::numeric_limits<double>::infinity()}};
  int checked = 0;
  for (const std::string& path : paths) {
    for (const auto& [name, value] : kValues) {
      PlanRequest request = BaseFor(path);
      auto [message, field] = Resolve(&request, path);
      ASSERT_NE(field, nullptr) << path;
      message->GetReflection()->SetDouble(message, field, value);
      EXPECT_THAT(ValidateRequest(request),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           absl::StrCat(path, " must be finite, got ", name)))
          << path << " = " << name;
      // SolvePlan (what the CLI runs) stops at the same error.
      EXPECT_THAT(SolvePlan(request).status(),
                  StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path)));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3 * static_cast<int>(paths.size()));
}

// The text format and JSON both spell NaN and infinity; either way the validator names the field.
TEST(ExtremeInputs, NanAndInfinityReadFromTextAndJsonAreRejected) {
  PlanRequest request;
  std::string text = kEverySection;
  ASSERT_NE(text.find("pue: 1.3"), std::string::npos);
  text.replace(text.find("pue: 1.3"), 8, "pue: nan");
  ASSERT_THAT(ParseMessage(text, Encoding::kText, &request), IsOk());
  EXPECT_TRUE(std::isnan(request.site().pue()));
  EXPECT_THAT(ValidateRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "site.pue must be finite, got nan"));
  // JSON: the same request with the power cap as the string "Infinity".
  PlanRequest base = Parse(kEverySection);
  base.mutable_constraints()->clear_power_cap_watts();
  absl::StatusOr<std::string> json = SerializeMessage(base, Encoding::kJson);
  ASSERT_THAT(json, IsOk());
  const std::string cap = "\"power_cap_watts\": 0";
  ASSERT_NE(json->find(cap), std::string::npos) << *json;
  json->replace(json->find(cap), cap.size(), "\"power_cap_watts\": \"-Infinity\"");
  ASSERT_THAT(ParseMessage(*json, Encoding::kJson, &request), IsOk());
  EXPECT_THAT(ValidateRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "constraints.power_cap_watts must be finite, got -inf"));
}

// Every integer field at its type's maximum (4294967295 or 18446744073709551615; enums at
// 2147483647): an error that names the field, or, where no limit applies, a valid request that
// solves without overflowing anything. The fields with a limit get their exact message.
TEST(ExtremeInputs, EveryIntegerFieldAtItsMaximumGivesAPlanOrNamesTheField) {
  const std::map<std::string, std::string> kExact = {
      {"schema_version",
       "schema_version must be <= 1 (SCHEMA_VERSION_1, the newest this dcplan reads), got "
       "2147483647"},
      {"hardware.server.gpus_per_server",
       "hardware.server.gpus_per_server must be <= 1024, got 4294967295"},
      {"hardware.rack.max_servers_per_rack",
       "hardware.rack.max_servers_per_rack must be <= 4096, got 4294967295"},
      {"hardware.pod.racks_per_pod",
       "hardware.pod.racks_per_pod must be <= 1000000, got 4294967295"},
      {"hardware.network.scale_up_domain_gpus",
       "hardware.network.scale_up_domain_gpus must be <= 1000000, got 4294967295"},
      {"hardware.network.nics_per_gpu",
       "hardware.network.nics_per_gpu must be <= 16, got 4294967295"},
      {"hardware.network.switch_radix",
       "hardware.network.switch_radix must be >= 4 and even (required when nics_per_gpu > 0), got "
       "4294967295"},
      {"site.max_buildings", "site.max_buildings must be <= 1000000, got 4294967295"},
      {"site.substation.transformer_count",
       "site.substation.transformer_count must be <= 10000, got 4294967295"},
      {"site.substation.redundancy",
       "site.substation.redundancy must be a known Redundancy value, got 2147483647"},
      {"efficiency.table.points[0].gpus",
       "efficiency.table.points[0].gpus must be <= 1000000000000, got 18446744073709551615"},
      {"constraints.power_cap_at",
       "constraints.power_cap_at must be a known PowerCapAt value, got 2147483647"},
      {"constraints.max_gpus",
       "constraints.max_gpus must be <= 1000000000000, got 18446744073709551615"},
      {"constraints.budget_on",
       "constraints.budget_on must be a known BudgetOn value, got 2147483647"},
      {"constraints.objective",
       "constraints.objective must be a known Objective value, got 2147483647"},
  };
  std::vector<std::string> paths;
  FieldPaths(PlanRequest::descriptor(), "",
             {FieldDescriptor::CPPTYPE_UINT32, FieldDescriptor::CPPTYPE_UINT64,
              FieldDescriptor::CPPTYPE_INT32, FieldDescriptor::CPPTYPE_INT64,
              FieldDescriptor::CPPTYPE_ENUM},
             &paths);
  ASSERT_GE(paths.size(), kExact.size());
  for (const std::string& path : paths) {
    PlanRequest request = BaseFor(path);
    auto [message, field] = Resolve(&request, path);
    ASSERT_NE(field, nullptr) << path;
    const Reflection* r = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetUInt32(message, field, std::numeric_limits<uint32_t>::max());
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->SetUInt64(message, field, std::numeric_limits<uint64_t>::max());
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->SetInt32(message, field, std::numeric_limits<int32_t>::max());
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->SetInt64(message, field, std::numeric_limits<int64_t>::max());
        break;
      default:
        r->SetEnumValue(message, field, std::numeric_limits<int32_t>::max());
    }
    const absl::Status valid = ValidateRequest(request);
    if (auto exact = kExact.find(path); exact != kExact.end()) {
      EXPECT_FALSE(valid.ok()) << path;
      EXPECT_EQ(valid.message(), exact->second) << path;
    } else if (!valid.ok()) {
      EXPECT_THAT(valid.message(), HasSubstr(field->name())) << "the error does not name the field";
    } else {
      // No limit on this field: the request solves (or names why not), and the plan is sound.
      const absl::StatusOr<Plan> plan = SolvePlan(request);
      if (plan.ok()) {
        EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk()) << path;
      } else {
        EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << path;
        EXPECT_FALSE(plan.status().message().empty()) << path;
      }
    }
  }
}

// The seed's all-in GPU: 1 PFLOP/s and 1.4 kW with everything included, 8 a server, PUE 1.
constexpr char kSeed[] = R"pb(
  name: "seed"
  hardware {
    accelerator { peak_flops_per_second: 1e15 tdp_watts: 1400 }
    server { gpus_per_server: 8 }
    rack { max_servers_per_rack: 4 }
    pod { racks_per_pod: 8 }
  }
  site { pue: 1.0 }
)pb";

PlanRequest SeedWith(absl::string_view extra) {
  PlanRequest request = Parse(kSeed);
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(std::string(extra), &request));
  return request;
}

TEST(ExtremeInputs, OneHundredGigawattsIsAPlan) {
  // 100e9 W / 1,400 W a GPU / 8 a server = 8,928,571.4 servers: 8,928,571 x 8 = 71,428,568 GPUs.
  const PlanRequest request = SeedWith("constraints { power_cap_watts: 100e9 }");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().gpu_count(), 71428568u);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

TEST(ExtremeInputs, ABillionGpusIsAPlan) {
  // 1e9 GPUs x 1.4 kW = 1.4 TW, under a 10^15 W cap: the GPU cap binds at exactly 1e9 GPUs
  // (125,000,000 servers of 8; 31,250,000 racks of 4; 3,906,250 pods of 8).
  const PlanRequest request =
      SeedWith("constraints { power_cap_watts: 1e15 max_gpus: 1000000000 }");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().gpu_count(), 1000000000u);
  EXPECT_EQ(plan->counts().server_count(), 125000000u);
  EXPECT_EQ(plan->counts().rack_count(), 31250000u);
  EXPECT_EQ(plan->counts().pod_count(), 3906250u);
  EXPECT_DOUBLE_EQ(plan->power().facility_power_watts(), 1.4e12);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_MAX_GPUS);
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

TEST(ExtremeInputs, PricesOfZeroCostNothingAndABudgetOverNothingPricedIsAnError) {
  // Nothing priced, under a power cap: a plan that costs $0 and $0 per GPU-hour.
  const PlanRequest priced_at_zero = SeedWith(
      "constraints { power_cap_watts: 1e6 } costs { electricity_usd_per_kwh: 0 "
      "facility_usd_per_it_watt: 0 site_fixed_usd: 0 staff_usd_per_year: 0 }");
  const absl::StatusOr<Plan> plan = SolvePlan(priced_at_zero);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().gpu_count(), 712u);  // 1e6 / 11,200 = 89.3 servers: 89 x 8
  EXPECT_EQ(plan->cost().tco_usd(), 0.0);
  EXPECT_EQ(plan->cost().usd_per_gpu_hour(), 0.0);
  EXPECT_THAT(testing::CheckPlanInvariants(priced_at_zero, *plan), IsOk());
  // A budget with nothing priced caps nothing: an error, alone or beside another cap (it used to
  // be ignored silently there, the plan reporting the whole budget as headroom).
  for (const char* caps : {"constraints { budget_usd: 1e9 }",
                           "constraints { budget_usd: 1e9 power_cap_watts: 1e6 }"}) {
    EXPECT_THAT(SolvePlan(SeedWith(caps)).status(),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         "constraints.budget_usd is 1000000000 but nothing in the request has a "
                         "price, so the budget caps nothing: set hardware.server.price_usd or "
                         "hardware.accelerator.price_usd, or leave budget_usd at 0"))
        << caps;
  }
}

TEST(ExtremeInputs, CapsTheRestOfTheRequestMakesMeaninglessAreErrors) {
  // max_buildings without a building power limit: one building holds any cluster.
  EXPECT_THAT(SolvePlan(SeedWith("constraints { power_cap_watts: 1e6 } site { max_buildings: 2 }"))
                  .status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "site.max_buildings is 2 but site.building.critical_it_power_watts is 0 (no "
                       "limit per building), so one building holds any cluster and max_buildings "
                       "caps nothing: set site.building.critical_it_power_watts, or leave "
                       "max_buildings at 0"));
  // A power cap in watts measured at the substation, whose rating is the cap.
  EXPECT_THAT(SolvePlan(SeedWith("constraints { power_cap_watts: 1e6 power_cap_at: "
                                 "POWER_CAP_AT_SUBSTATION } site { substation { "
                                 "transformer_rating_va: 1e7 } }"))
                  .status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "constraints.power_cap_watts is 1000000 but constraints.power_cap_at is "
                       "POWER_CAP_AT_SUBSTATION, which caps at the substation's rating "
                       "(site.substation.transformer_rating_va) and ignores power_cap_watts: set "
                       "one or the other"));
}

TEST(ExtremeInputs, ACapSmallerThanOneServerIsAZeroGpuPlanThatSaysWhy) {
  // One seed server draws 8 x 1,400 = 11,200 W; a 10 kW cap holds none.
  const PlanRequest request = SeedWith("constraints { power_cap_watts: 10000 }");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().gpu_count(), 0u);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  ASSERT_EQ(plan->notes_size(), 1);
  EXPECT_EQ(plan->notes(0),
            "no GPUs fit: even one server (8 GPUs, 11200 W of IT power, 11200 W at the meter) "
            "breaks the facility power cap");
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

TEST(ExtremeInputs, ABudgetBelowTheFixedCostsIsAZeroGpuPlan) {
  const PlanRequest request = SeedWith(
      "hardware { server { price_usd: 100000 } } constraints { budget_usd: 1e6 } "
      "costs { site_fixed_usd: 2e6 }");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().gpu_count(), 0u);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_BUDGET);
  EXPECT_THAT(plan->notes(0), HasSubstr("no GPUs fit"));
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

}  // namespace
}  // namespace dcplan

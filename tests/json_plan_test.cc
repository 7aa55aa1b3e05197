// The fast JSON codec (proto/json_fast.h) against protobuf's own, on what `dcplan serve` and the
// CLI really exchange: the plan of every preset, and of 2,000 requests made from the presets with
// random caps, PUE and prices (fixed seed). Printed through io.h's SerializeMessage, which takes
// the fast path when it can and protobuf's printer when the fast path declines (a map, bytes or
// float field), the text must be protobuf's byte for byte either way; and the fast path must take
// every plan (so that a field added to Plan that it cannot print shows up here as a decline, not as
// a slowdown nobody sees). The requests read back through the fast parser equal the requests.
// Fields are found through the descriptors, so a new field of Plan is covered with no change here;
// proto/json_fast_test.cc also fills every field of every message type at random.
#include <cmath>
#include <random>
#include <string>

#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "proto/io.h"
#include "proto/json_fast.h"

namespace dcplan {
namespace {

std::string ProtobufJson(const google::protobuf::Message& m, bool indent) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = indent;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &out, options).ok());
  return out;
}

// `plan` printed every way matches protobuf.
void ExpectPrintedAsProtobufDoes(const Plan& plan) {
  std::string reference = ProtobufJson(plan, /*indent=*/true);
  if (reference.empty() || reference.back() != '\n') reference.push_back('\n');
  EXPECT_EQ(SerializeMessage(plan, Encoding::kJson).value(), reference);
  for (bool indent : {true, false}) {
    std::string fast;
    ASSERT_TRUE(PrintJsonFast(plan, indent, &fast)) << "the fast printer declined a Plan";
    std::string want = ProtobufJson(plan, indent);
    if (indent && !want.empty() && want.back() == '\n') want.pop_back();
    ASSERT_EQ(fast, want);
  }
}

// `request` printed by protobuf and read back by the codec (fast path first) is `request`.
void ExpectReadBack(const PlanRequest& request) {
  for (bool indent : {true, false}) {
    const std::string json = ProtobufJson(request, indent);
    PlanRequest back;
    ASSERT_TRUE(ParseMessage(json, Encoding::kJson, &back).ok()) << json;
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, request)) << json;
  }
}

TEST(JsonPlan, EveryPresetsPlanPrintsAsProtobufPrintsIt) {
  int plans = 0;
  for (const std::string& name : PresetNames()) {
    PlanRequest r = LoadPreset(name).value();
    if (!r.has_constraints() ||
        (r.constraints().power_cap_watts() == 0 && r.constraints().budget_usd() == 0 &&
         r.constraints().max_gpus() == 0)) {
      r.mutable_constraints()->set_power_cap_watts(50e6);
    }
    auto plan = SolvePlan(r);
    ASSERT_TRUE(plan.ok()) << name << ": " << plan.status();
    ExpectPrintedAsProtobufDoes(*plan);
    ExpectReadBack(r);
    ++plans;
  }
  EXPECT_GE(plans, 7);
}

TEST(JsonPlan, RandomRequestsPlansPrintAsProtobufPrintsThem) {
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::vector<std::string> names = PresetNames();
  int solved = 0;
  for (int i = 0; i < 2000; ++i) {
    PlanRequest r = LoadPreset(names[rng() % names.size()]).value();
    Constraints& c = *r.mutable_constraints();
    c.Clear();
    // Log-uniform caps: 100 kW to 5 GW, $1M to $100B, 8 to 10^6 GPUs; some left unset.
    if (rng() % 4 != 0) c.set_power_cap_watts(std::pow(10.0, 5.0 + 4.7 * unit(rng)));
    if (rng() % 3 == 0) c.set_budget_usd(std::pow(10.0, 6.0 + 5.0 * unit(rng)));
    if (rng() % 3 == 0)
      c.set_max_gpus(static_cast<uint64_t>(std::pow(10.0, 0.9 + 5.1 * unit(rng))));
    if (c.power_cap_watts() == 0 && c.budget_usd() == 0 && c.max_gpus() == 0) {
      c.set_power_cap_watts(1e7);
    }
    r.mutable_site()->set_pue(1.0 + unit(rng));
    r.mutable_costs()->set_electricity_usd_per_kwh(0.01 + 0.2 * unit(rng));
    // The assumptions ledger (about 50 re-solves) on every 20th plan; marginal values on all.
    ExplainOptions explain;
    explain.assumptions = explain.influence = i % 20 == 0;
    auto plan = SolvePlan(r, explain);
    if (!plan.ok()) continue;
    ExpectPrintedAsProtobufDoes(*plan);
    if (i % 10 == 0) ExpectReadBack(r);
    if (HasFatalFailure()) return;
    ++solved;
  }
  EXPECT_GT(solved, 1000);
}

}  // namespace
}  // namespace dcplan

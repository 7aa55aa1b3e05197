#include "planner/ledger.h"

#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::testing::HasSubstr;

const Assumption* Find(const Plan& plan, const std::string& path) {
  for (const Assumption& a : plan.assumptions()) {
    if (a.path() == path) return &a;
  }
  return nullptr;
}

Plan Fit(PlanRequest request) {
  auto plan = SolvePlan(request);
  EXPECT_THAT(plan.status(), IsOk());
  return plan.ok() ? *plan : Plan();
}

// The ledger gives prices and costs no influence without solving again when there is no budget cap
// (planner/ledger.cc, MoneyOnly). What that stands for, checked the slow way on every preset, under
// a power cap, for both objectives: each of those inputs moved by +10% and the request rebuilt and
// solved from scratch gives the same GPU count and the same realized FLOP/s, bit for bit, so the
// influence the full re-solve would report is 0. Under the most-GPUs objective the same holds for
// the figures only the compute model reads (the GPU count, not realized compute, is compared).
TEST(Ledger, PricesAndCostsMoveNothingWithoutABudgetCapSolvedAgain) {
  const char* money[] = {"costs.facility_usd_per_it_watt",
                         "costs.electricity_usd_per_kwh",
                         "costs.average_utilization",
                         "costs.horizon_years",
                         "costs.wacc",
                         "costs.it_life_years",
                         "costs.facility_life_years",
                         "costs.it_maintenance_fraction_per_year",
                         "site.annual_pue",
                         "hardware.accelerator.price_usd",
                         "hardware.server.price_usd",
                         "hardware.server.non_gpu_price_usd",
                         "hardware.rack.price_usd",
                         "hardware.network.switch_price_usd",
                         "hardware.network.optic_price_usd",
                         "hardware.network.copper_cable_end_price_usd",
                         "hardware.auxiliary.storage_price_fraction",
                         "hardware.auxiliary.head_node_price_usd"};
  // And under the most-GPUs objective, the figures only the compute model reads (ComputeOnly).
  const char* compute[] = {"hardware.accelerator.peak_flops_per_second",
                           "hardware.accelerator.peak_fp8_flops_per_second",
                           "hardware.accelerator.hbm_bytes",
                           "hardware.accelerator.hbm_bandwidth_bytes_per_second",
                           "hardware.network.scale_up_bandwidth_bytes_per_second"};
  int compared = 0;
  for (const std::string& preset : PresetNames()) {
    for (Objective objective : {OBJECTIVE_MAX_GPUS, OBJECTIVE_MAX_REALIZED_COMPUTE}) {
      std::vector<const char*> paths(std::begin(money), std::end(money));
      // (Each compute move searches the reference job again on new hardware: three presets.)
      const bool few = preset == "h100-dgx" || preset == "gb200-nvl72" || preset == "mi300x";
      if (objective == OBJECTIVE_MAX_GPUS && few)
        paths.insert(paths.end(), std::begin(compute), std::end(compute));
      PlanRequest r = LoadPreset(preset).value();
      ASSERT_THAT(SetField("power", "60MW", "--power", &r), IsOk());
      r.mutable_constraints()->set_budget_usd(0);
      r.mutable_constraints()->set_objective(objective);
      auto base_model = BuildModel(r);
      ASSERT_THAT(base_model.status(), IsOk()) << preset;
      auto base = Solve(*base_model);
      ASSERT_THAT(base.status(), IsOk()) << preset;
      for (const char* path : paths) {
        auto field = ResolveField(path);
        ASSERT_THAT(field.status(), IsOk()) << path;
        const double value = GetNumber(r, *field);
        PlanRequest moved = r;
        // A price the preset leaves at 0 gets one, as +10% of nothing would not move it.
        ASSERT_THAT(SetNumber(*field, value > 0 ? value * 1.1 : 0.5, &moved), IsOk()) << path;
        auto model = BuildModel(moved);
        if (!model.ok())
          continue;  // invalid moved (a utilization of 1.1): the ledger tries no other
        auto again = Solve(*model);
        ASSERT_THAT(again.status(), IsOk()) << preset << " " << path;
        EXPECT_EQ(again->eval.gpus, base->eval.gpus) << preset << " " << path;
        if (objective == OBJECTIVE_MAX_REALIZED_COMPUTE) {
          EXPECT_EQ(units::InFlopsPerSecond(again->eval.realized),
                    units::InFlopsPerSecond(base->eval.realized))
              << preset << " " << path;
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
  // And the ledger reports 0 for them, while the PUE, which the power cap reads, moves the answer.
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("power", "60MW", "--power", &r), IsOk());
  const Plan plan = Fit(r);
  for (const char* path : money) {
    if (const Assumption* a = Find(plan, path)) EXPECT_EQ(a->influence(), 0) << path;
  }
  for (const char* path : compute) {
    if (const Assumption* a = Find(plan, path)) EXPECT_EQ(a->influence(), 0) << path;
  }
  EXPECT_GT(Find(plan, "site.pue")->influence(), 0.05);
}

TEST(Ledger, NamesTheSiteAssumptionsAndWhereTheyCameFrom) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("power", "100MW", "--power", &r), IsOk());
  const Plan plan = Fit(r);
  for (const char* path :
       {"site.cooling", "site.pue", "site.annual_pue", "site.provisioning.basis"}) {
    const Assumption* a = Find(plan, path);
    ASSERT_NE(a, nullptr) << path;
    EXPECT_NE(a->origin(), ORIGIN_USER) << path;  // the user set none of them
    EXPECT_FALSE(a->source().empty()) << path;
  }
  // No annual PUE in the preset: the air-cooling default (Uptime Institute, 1.44), derived.
  EXPECT_EQ(Find(plan, "site.annual_pue")->origin(), ORIGIN_DERIVED);
  EXPECT_EQ(Find(plan, "site.annual_pue")->value(), 1.44);
  // The preset's provisioning is its stated judgement (nameplate, as NVIDIA's SuperPOD designs).
  EXPECT_EQ(Find(plan, "site.provisioning.basis")->origin(), ORIGIN_ESTIMATE);
  EXPECT_THAT(Find(plan, "site.provisioning.basis")->source(), HasSubstr("SOURCES.md#"));
  // The power cap is the user's.
  EXPECT_EQ(Find(plan, "constraints.power_cap_watts")->origin(), ORIGIN_USER);
  EXPECT_EQ(Find(plan, "constraints.power_cap_watts")->source(), "--power");
  // Under a power cap the design-day PUE moves the answer (about 1/1.1: -9%) and a price does not.
  EXPECT_NEAR(Find(plan, "site.pue")->influence(), 1 - 1 / 1.1, 0.01);
  EXPECT_EQ(Find(plan, "hardware.accelerator.price_usd")->influence(), 0);
  // Sorted by influence.
  for (int i = 1; i < plan.assumptions_size(); ++i) {
    EXPECT_GE(plan.assumptions(i - 1).influence(), plan.assumptions(i).influence());
  }
}

TEST(Ledger, AValueTheUserSetSaysSo) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("power", "100MW", "--power", &r), IsOk());
  ASSERT_THAT(SetField("site.pue", "1.2", "--set", &r), IsOk());
  const Plan plan = Fit(r);
  const Assumption* pue = Find(plan, "site.pue");
  ASSERT_NE(pue, nullptr);
  EXPECT_EQ(pue->origin(), ORIGIN_USER);
  EXPECT_EQ(pue->source(), "--set");
  EXPECT_EQ(pue->value(), 1.2);
}

// Where a workload field's value came from: an entry for its full path in the request's sources
// first, else the workload's own sources under its path within the workload; the first entry of a
// path wins in either list.
TEST(Ledger, AWorkloadFieldsOriginIsTheRequestsEntryElseTheWorkloads) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("power", "20MW", "--power", &r), IsOk());
  *r.mutable_workload() = LoadModel("llama3-8b").value();
  r.mutable_workload()->clear_sources();
  auto add = [](google::protobuf::RepeatedPtrField<FieldSource>* sources, const char* path,
                Origin origin, const char* source) {
    FieldSource* s = sources->Add();
    s->set_path(path);
    s->set_origin(origin);
    s->set_source(source);
  };
  add(r.mutable_workload()->mutable_sources(), "hidden", ORIGIN_PRESET, "the model card");
  add(r.mutable_workload()->mutable_sources(), "hidden", ORIGIN_ESTIMATE, "a second entry");
  add(r.mutable_workload()->mutable_sources(), "layers", ORIGIN_PRESET, "the model card");
  add(r.mutable_sources(), "workload.layers", ORIGIN_ESTIMATE, "the request's own entry");
  ExplainOptions explain;
  explain.influence = false;
  const absl::StatusOr<Plan> plan = SolvePlan(r, explain);
  ASSERT_THAT(plan.status(), IsOk());
  const Assumption* hidden = Find(*plan, "workload.hidden");
  ASSERT_NE(hidden, nullptr);
  EXPECT_EQ(hidden->origin(), ORIGIN_PRESET);
  EXPECT_EQ(hidden->source(), "the model card");
  const Assumption* layers = Find(*plan, "workload.layers");
  ASSERT_NE(layers, nullptr);
  EXPECT_EQ(layers->origin(), ORIGIN_ESTIMATE);
  EXPECT_EQ(layers->source(), "the request's own entry");
  // A workload field with no entry in either list is the user's.
  const Assumption* heads = Find(*plan, "workload.heads");
  ASSERT_NE(heads, nullptr);
  EXPECT_EQ(heads->origin(), ORIGIN_USER);
  EXPECT_EQ(heads->source(), "the request");
}

TEST(Ledger, HeadlineNamesCoolingPuesProvisioningAndAPrice) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("budget", "$2B", "--budget", &r), IsOk());
  const Plan plan = Fit(r);
  std::vector<std::string> paths;
  for (const Assumption* a : HeadlineAssumptions(plan)) paths.push_back(a->path());
  ASSERT_GE(paths.size(), 5u);
  EXPECT_EQ(paths[0], "site.cooling");
  EXPECT_EQ(paths[1], "site.pue");
  EXPECT_EQ(paths[2], "site.annual_pue");
  EXPECT_EQ(paths[3], "site.provisioning.basis");
  EXPECT_THAT(paths[4], HasSubstr("price"));
  // Under a budget the price moves the answer.
  // Under a budget the price moves the answer: +10% on a $27,500 GPU is +$22,000 on a ~$500,000
  // server with its share of the facility, about -4% of the GPUs.
  EXPECT_GT(Find(plan, paths[4])->influence(), 0.02);
}

// The marginal value of a cap is a second solve, here checked against the seed formula by hand:
// 45.9 MW / 11.2 kW a server = 4,098.2 -> 4,098 servers = 32,784 GPUs; 46.9 MW / 11.2 kW =
// 4,187.5 -> 4,187 servers = 33,496 GPUs: 712 GPUs more for 1 MW more. Realized compute is
// G x 1 PFLOP/s x (0.62 - 0.02 log2 G) at both sizes.
TEST(Ledger, MarginalValueOfPowerIsTheNextMegawattsGpus) {
  PlanRequest r = LoadPreset("seed").value();
  ASSERT_THAT(SetField("power", "45.9MW", "--power", &r), IsOk());
  const Plan plan = Fit(r);
  ASSERT_EQ(plan.counts().gpu_count(), 32784u);
  ASSERT_TRUE(plan.marginal().has_gpus_per_megawatt());
  EXPECT_EQ(plan.marginal().gpus_per_megawatt(), 712);
  auto realized = [](double g) { return g * 1e15 * (0.62 - 0.02 * std::log2(g)); };
  EXPECT_NEAR(plan.marginal().realized_flops_per_second_per_megawatt(),
              realized(33496) - realized(32784), 1e3);
  EXPECT_FALSE(plan.marginal().has_gpus_per_100m_usd());  // no budget cap
}

// 150 MW of DGX H100 at a PUE of 1.55: the 3-tier radix-64 fat tree holds 65,536 GPUs (k^3/4 =
// 65,536 endpoints), so the next server needs a 4th tier, whose switches and optics cost far more
// than the 3.2 MW of headroom the power cap leaves.
TEST(Ledger, SaysWhenANewNetworkTierStopsTheNextServer) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  ASSERT_THAT(SetField("power", "150MW", "--power", &r), IsOk());
  const Plan plan = Fit(r);
  EXPECT_EQ(plan.counts().gpu_count(), 65536u);
  ASSERT_TRUE(plan.has_next_step());
  EXPECT_EQ(plan.next_step().kind(), "network_tier");
  EXPECT_THAT(plan.next_step().description(), HasSubstr("4th network tier"));
  EXPECT_GT(plan.next_step().added_facility_power_watts(), 3.2e6);
}

}  // namespace
}  // namespace dcplan

#include "planner/solver.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

Solution SolveOrDie(const PlanRequest& request) {
  Model m = BuildModel(request).value();
  return Solve(m).value();
}

// The solution fits every cap and one more server breaks at least one.
void ExpectTight(const PlanRequest& request) {
  Model m = BuildModel(request).value();
  Solution s = Solve(m).value();
  EXPECT_EQ(BrokenCaps(m, EvaluateCluster(m, s.servers * m.server.gpus)), 0u);
  EXPECT_NE(BrokenCaps(m, EvaluateCluster(m, (s.servers + 1) * m.server.gpus)), 0u);
}

TEST(Solver, SeedUnder45Point9MegawattsFits32784Gpus) {
  // 45.9 MW / (8 x 1.4 kW) = 4,098.2: 4,098 servers = 32,784 GPUs (45,897,600 W); 4,099 would draw
  // 45,908,800 W.
  Solution s = SolveOrDie(SeedWith("constraints { power_cap_watts: 45.9e6 }"));
  EXPECT_EQ(s.eval.gpus, 32784);
  EXPECT_EQ(s.servers, 4098);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_DOUBLE_EQ(units::InWatts(s.headroom.facility_power), 45.9e6 - 45897600.0);
}

TEST(Solver, SeedUnder46MegawattsFits32856Gpus) {
  // 46 MW / 11.2 kW = 4,107.1: 4,107 servers = 32,856 GPUs.
  Solution s = SolveOrDie(SeedWith("constraints { power_cap_watts: 46e6 }"));
  EXPECT_EQ(s.eval.gpus, 32856);
}

TEST(Solver, ItPowerCapIgnoresThePue) {
  // 10 MW of IT power, 10.2 kW servers, no network: 980 servers (9,996,000 W) = 7,840 GPUs.
  Solution s = SolveOrDie(H100With(R"pb(
    hardware { network { nics_per_gpu: 0 } }
    constraints { power_cap_watts: 10e6 power_cap_at: POWER_CAP_AT_IT })pb"));
  EXPECT_EQ(s.servers, 980);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_IT_POWER);
  EXPECT_TRUE(s.headroom.has_it_power);
  EXPECT_FALSE(s.headroom.has_facility_power);
}

TEST(Solver, SubstationBindsWhenItIsTighterThanTheCap) {
  // Two 50 MVA transformers, PF 0.9, N+1: 45 MW usable; 45 MW / 11.2 kW = 4,017.9: 4,017 servers.
  Solution s = SolveOrDie(SeedWith(R"pb(
    site {
      substation {
        transformer_rating_va: 50e6
        transformer_count: 2
        power_factor: 0.9
        redundancy: REDUNDANCY_N_PLUS_1
      }
    }
    constraints { power_cap_watts: 100e6 })pb"));
  EXPECT_EQ(s.servers, 4017);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_SUBSTATION);
  EXPECT_NEAR(units::InWatts(s.headroom.substation), 45e6 - 4017 * 11200.0, 1e-3);
}

TEST(Solver, SubstationAloneIsACap) {
  // power_cap_at SUBSTATION: one 100 MVA transformer at PF 0.95 = 95 MW; 95e6 / 11,200 = 8,482.1.
  Solution s = SolveOrDie(SeedWith(R"pb(
    site { substation { transformer_rating_va: 100e6 transformer_count: 1 } }
    constraints { power_cap_at: POWER_CAP_AT_SUBSTATION })pb"));
  EXPECT_EQ(s.servers, 8482);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_SUBSTATION);
}

TEST(Solver, GpuCapCountsWholeServers) {
  // max_gpus 1,001 with 8 GPUs a server: 125 servers (1,000 GPUs); 126 would be 1,008.
  Solution s = SolveOrDie(SeedWith("constraints { power_cap_watts: 100e6 max_gpus: 1001 }"));
  EXPECT_EQ(s.eval.gpus, 1000);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_MAX_GPUS);
  EXPECT_EQ(s.headroom.gpus, 1);
}

TEST(Solver, BuildingCountBinds) {
  // 27 pods per 10 MW building (see model_test); 2 buildings = 54 pods x 32 servers = 1,728
  // servers.
  Solution s = SolveOrDie(SeedWith(R"pb(
    site {
      building { critical_it_power_watts: 10e6 }
      max_buildings: 2
    }
    constraints { power_cap_watts: 100e6 })pb"));
  EXPECT_EQ(s.servers, 1728);
  EXPECT_EQ(s.eval.buildings, 2);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_BUILDINGS);
}

TEST(Solver, CapSmallerThanOneServerGivesZeroGpus) {
  // 10 kW < one 11.2 kW seed server.
  Solution s = SolveOrDie(SeedWith("constraints { power_cap_watts: 10000 }"));
  EXPECT_EQ(s.eval.gpus, 0);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_FACILITY_POWER);
}

// dcplan's size limit, a trillion GPUs (kMaxGpus): 125,000,000,000 servers of 8 GPUs at 500 W,
// 4,000 W a server and 5e14 W in all. Caps on either side of it, where the search's top switches
// from the power's bound to one server past the limit.
constexpr char kHalfKilowattGpus[] = "hardware { accelerator { tdp_watts: 500 } } ";

TEST(Solver, TheSizeLimitBindsAtATrillionGpus) {
  // 6e14 W would hold 150e9 servers: the limit binds at 125e9 (1e12 GPUs).
  Solution s = SolveOrDie(
      SeedWith(absl::StrCat(kHalfKilowattGpus, "constraints { power_cap_watts: 6e14 }")));
  EXPECT_EQ(s.servers, 125000000000);
  EXPECT_EQ(s.eval.gpus, 1000000000000);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_SIZE_LIMIT);
  EXPECT_EQ(s.broken_by_one_more, kCapSizeLimit);
}

TEST(Solver, APowerCapAtTheSizeLimitBindsWithIt) {
  // 5e14 W is exactly 125e9 servers: one more breaks the power cap and the limit; the power,
  // first in FirstBrokenCap's order, is named.
  Solution s = SolveOrDie(
      SeedWith(absl::StrCat(kHalfKilowattGpus, "constraints { power_cap_watts: 5e14 }")));
  EXPECT_EQ(s.servers, 125000000000);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_EQ(s.broken_by_one_more, kCapFacilityPower | kCapSizeLimit);
}

TEST(Solver, APowerCapJustBelowTheSizeLimitBindsAlone) {
  // One server's 4,000 W less: 124,999,999,999 servers, and one more breaks only the power.
  Solution s = SolveOrDie(SeedWith(
      absl::StrCat(kHalfKilowattGpus, "constraints { power_cap_watts: 499999999996000 }")));
  EXPECT_EQ(s.servers, 124999999999);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_EQ(s.broken_by_one_more, kCapFacilityPower);
}

TEST(Solver, RefusesARequestWithoutAnyCap) {
  Model m = BuildModel(SeedWith("")).value();
  EXPECT_THAT(Solve(m), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no cap")));
  EXPECT_THAT(LargestFeasibleServers(m, 10),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no cap")));
}

TEST(Solver, RefusesABudgetWhenNothingHasAPrice) {
  // The validator refuses it (planner/validate.cc ValidateNothingIgnored), before any model.
  EXPECT_THAT(BuildModel(SeedWith("constraints { budget_usd: 1e9 }")).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("price")));
}

constexpr absl::string_view kPricedSeed = R"pb(
  hardware {
    accelerator { price_usd: 25000 }
    server { non_gpu_price_usd: 100000 }
  }
  costs { facility_usd_per_it_watt: 10 })pb";

TEST(Solver, BudgetCapIsExactToTheServer) {
  // Per server: 8 x $25,000 + $100,000 = $300,000, plus $10/W x 11,200 W = $112,000: $412,000.
  // $1B / $412,000 = 2,427.2: 2,427 servers cost $999,924,000; 2,428 would cost $1,000,336,000.
  Solution s = SolveOrDie(SeedWith(absl::StrCat(kPricedSeed, "constraints { budget_usd: 1e9 }")));
  EXPECT_EQ(s.servers, 2427);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_BUDGET);
  EXPECT_NEAR(units::InUsd(s.eval.capex), 999924000.0, 1e-3);
  EXPECT_NEAR(units::InUsd(s.headroom.budget), 76000.0, 1e-3);
}

TEST(Solver, UnderBothCapsReportsTheTighterOneEitherWay) {
  // 45.9 MW allows 4,098 servers; $1B allows 2,427: the budget binds.
  Solution a = SolveOrDie(SeedWith(
      absl::StrCat(kPricedSeed, "constraints { budget_usd: 1e9 power_cap_watts: 45.9e6 }")));
  EXPECT_EQ(a.servers, 2427);
  EXPECT_EQ(a.binding, BINDING_CONSTRAINT_BUDGET);
  // $2B allows 4,854 servers: now power binds at 4,098.
  Solution b = SolveOrDie(SeedWith(
      absl::StrCat(kPricedSeed, "constraints { budget_usd: 2e9 power_cap_watts: 45.9e6 }")));
  EXPECT_EQ(b.servers, 4098);
  EXPECT_EQ(b.binding, BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_TRUE(b.headroom.has_budget);
  EXPECT_NEAR(units::InUsd(b.headroom.budget), 2e9 - 4098 * 412000.0, 1e-3);
}

TEST(Solver, BudgetOnTcoAddsOpexOverTheHorizon) {
  // TCO per server over 4 years: capex $412,000 x (1 + 0.05 x 4) = $494,400, plus energy
  // 11,200 W x 0.8 x 8,760 h x 4 = 313,958.4 kWh x $0.10 = $31,395.84: $525,795.84 a server.
  // $1B / $525,795.84 = 1,901.9: 1,901 servers.
  Solution s = SolveOrDie(SeedWith(absl::StrCat(kPricedSeed, R"pb(
    costs { electricity_usd_per_kwh: 0.1 maintenance_fraction_per_year: 0.05 }
    constraints { budget_usd: 1e9 budget_on: BUDGET_ON_TCO })pb")));
  EXPECT_EQ(s.servers, 1901);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_BUDGET);
}

TEST(Solver, IsTightUnderEveryKindOfCap) {
  for (const char* extra : {
           "constraints { power_cap_watts: 50e6 }",
           "constraints { power_cap_watts: 1e9 }",
           "constraints { power_cap_watts: 12345678 power_cap_at: POWER_CAP_AT_IT }",
           "constraints { max_gpus: 77777 }",
           "constraints { budget_usd: 3.3e9 power_cap_watts: 1e9 }",
           "costs { facility_usd_per_it_watt: 11 } constraints { budget_usd: 2.5e9 }",
           "costs { electricity_usd_per_kwh: 0.07 } constraints { budget_usd: 2.5e9 budget_on: "
           "BUDGET_ON_TCO }",
       }) {
    SCOPED_TRACE(extra);
    ExpectTight(H100With(extra));
  }
}

// The largest feasible server count by plain bisection over [0, 2^37] servers, the obvious way: the
// reference the solver's guided search must match exactly.
int64_t ReferenceLargestFeasible(const Model& m) {
  int64_t low = 0, high = int64_t{1} << 37;
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (BrokenCaps(m, EvaluateForCaps(m, mid * m.server.gpus)) == 0) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

TEST(Solver, MatchesPlainBisectionOverThousandsOfRandomCaps) {
  // Power caps from 1 kW to 10 GW (log-uniform), with and without budgets on capex or TCO, a
  // substation and a building limit, on the H100-like request (rack overhead, a fat tree whose
  // tiers change with size) and the seed: the answer and what one more server breaks agree with
  // bisection.
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const double power = std::pow(10.0, 3.0 + 7.0 * u(rng));
    std::string extra = absl::StrCat("constraints { power_cap_watts: ", power);
    if (u(rng) < 0.3) {
      absl::StrAppend(&extra, " budget_usd: ", std::pow(10.0, 6.0 + 5.0 * u(rng)),
                      u(rng) < 0.5 ? " budget_on: BUDGET_ON_TCO" : "");
    }
    absl::StrAppend(&extra, " }");
    if (u(rng) < 0.2) {
      absl::StrAppend(&extra, " site { substation { transformer_rating_va: ",
                      std::pow(10.0, 5.0 + 5.0 * u(rng)), " } }");
    }
    if (u(rng) < 0.2) {
      absl::StrAppend(&extra, " site { building { critical_it_power_watts: 50e6 } max_buildings: ",
                      1 + static_cast<int>(u(rng) * 5), " }");
    }
    absl::StrAppend(&extra,
                    " costs { facility_usd_per_it_watt: 11 electricity_usd_per_kwh: 0.08 "
                    "site_fixed_usd: ",
                    u(rng) < 0.5 ? 0.0 : 2e8, " }");
    const PlanRequest request =
        u(rng) < 0.7
            ? H100With(extra)
            : SeedWith(absl::StrCat(extra, " hardware { accelerator { price_usd: 25000 } }"));
    auto model = BuildModel(request);
    if (!model.ok()) continue;  // e.g. a building that cannot hold one pod
    auto s = Solve(*model);
    ASSERT_TRUE(s.ok()) << s.status() << extra;
    const int64_t expected = ReferenceLargestFeasible(*model);
    ASSERT_EQ(s->servers, expected) << extra;
    const uint32_t at_expected =
        BrokenCaps(*model, EvaluateForCaps(*model, expected * model->server.gpus));
    const uint32_t above =
        at_expected != 0
            ? at_expected
            : BrokenCaps(*model, EvaluateForCaps(*model, (expected + 1) * model->server.gpus));
    ASSERT_EQ(s->broken_by_one_more, above) << extra;
    // A guess near the answer, far from it, or out of range changes nothing but the time taken.
    for (int64_t guess : {expected, expected + 1, expected - 3, expected * 2, int64_t{1} << 40,
                          static_cast<int64_t>(u(rng) * 1e6)}) {
      auto g = Solve(*model, guess);
      ASSERT_TRUE(g.ok()) << g.status() << extra;
      ASSERT_EQ(g->servers, expected) << extra << " guess " << guess;
      ASSERT_EQ(g->broken_by_one_more, above) << extra << " guess " << guess;
      // The search's answer alone, as a ledger's influences re-solve.
      auto servers = LargestFeasibleServers(*model, guess);
      ASSERT_TRUE(servers.ok()) << servers.status() << extra;
      ASSERT_EQ(*servers, expected) << extra << " guess " << guess;
    }
    // The evaluation at the answer is EvaluateCluster's, field by field where it matters.
    const ClusterEval full = EvaluateCluster(*model, expected * model->server.gpus);
    ASSERT_EQ(s->eval.racks, full.racks);
    ASSERT_EQ(units::InWatts(s->eval.facility_power), units::InWatts(full.facility_power));
    ASSERT_EQ(units::InUsd(s->eval.tco), units::InUsd(full.tco));
    ASSERT_EQ(units::InFlopsPerSecond(s->eval.realized), units::InFlopsPerSecond(full.realized));
    ++checked;
  }
  EXPECT_GT(checked, 2500);
}

TEST(Solver, MaxRealizedComputeStopsWhereMoreGpusDeliverLess) {
  // MFU falls from 0.5 at 1,000 GPUs to 0.1 at 4,000: G x MFU peaks near 2,081 GPUs
  // (mfu_model_test).
  PlanRequest r = SeedWith(R"pb(
    efficiency {
      table {
        points { gpus: 1000 mfu: 0.5 }
        points { gpus: 4000 mfu: 0.1 }
      }
    }
    constraints { power_cap_watts: 5e6 objective: OBJECTIVE_MAX_REALIZED_COMPUTE })pb");
  Model m = BuildModel(r).value();
  Solution s = Solve(m).value();
  // Brute force over every whole-server size that fits 5 MW (446 servers): none realizes more.
  double best = 0;
  int64_t best_n = 0;
  for (int64_t n = 1; n <= s.largest_feasible_servers; ++n) {
    double rate = units::InFlopsPerSecond(EvaluateCluster(m, n * 8).realized);
    if (rate > best) best = rate, best_n = n;
  }
  EXPECT_EQ(s.largest_feasible_servers, 446);
  EXPECT_EQ(s.servers, best_n);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_DIMINISHING_RETURNS);
  EXPECT_NEAR(static_cast<double>(s.eval.gpus), 2081.0, 8.0);
}

// A workload's realized compute stops growing at its largest useful split: MFU(G) = 0.5 x
// min(G, 2,000) / G, so G x MFU is flat from 2,000 GPUs (250 servers of 8) on. It remembers every
// size it is asked for, as the workload model's cache does.
class PlateauMfu final : public MfuModel {
 public:
  units::Ratio MfuAt(int64_t gpus) const override {
    asked_.insert(gpus);
    return units::Fraction(gpus <= 0 ? 0.0
                                     : 0.5 * static_cast<double>(std::min<int64_t>(gpus, 2000)) /
                                           static_cast<double>(gpus));
  }
  std::string Describe() const override { return "plateau at 2,000 GPUs"; }
  std::vector<double> RealizedComputeCandidates() const override { return {}; }
  mutable std::set<int64_t> asked_;
};

TEST(Solver, ThePlateauSearchProbesTheSameSizesWhateverTheCap) {
  PlanRequest r = SeedWith(R"pb(
    constraints { power_cap_watts: 5e6 objective: OBJECTIVE_MAX_REALIZED_COMPUTE })pb");
  Model m = BuildModel(r).value();
  auto plateau = std::make_shared<PlateauMfu>();
  m.mfu = plateau;
  m.realized_candidates.clear();
  // 5 MW of 1.4 kW GPUs is 3,571 GPUs, 446 servers; realized compute is flat from 250 servers, so
  // the answer is 250 servers (the plateau's start), stopped by diminishing returns.
  Solution s = Solve(m).value();
  EXPECT_EQ(s.largest_feasible_servers, 446);
  EXPECT_EQ(s.servers, 250);
  EXPECT_EQ(s.binding, BINDING_CONSTRAINT_DIMINISHING_RETURNS);
  // Caps that move the largest size within the same power of two (257 .. 511 servers, as a Monte
  // Carlo over the PUE does): the plateau's search asks for the same sizes, so each new cap costs
  // the efficiency model only the size at the cap (and, for the cap's own solve, its neighbour
  // above it, which the caps need anyway), never a new set of bisection midpoints.
  for (double watts : {4.0e6, 4.4e6, 5.3e6, 5.6e6}) {
    const size_t before = plateau->asked_.size();
    m.caps.power_cap = units::Watts(watts);
    Solution again = Solve(m).value();
    EXPECT_EQ(again.servers, 250) << watts;
    EXPECT_LE(plateau->asked_.size() - before, 2u) << watts;
  }
}

}  // namespace
}  // namespace dcplan

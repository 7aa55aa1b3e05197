// File: tests/property_test.cc
//
// Randomized property tests of the planner: 100,000 valid requests generated from a fixed seed
// (std::mt19937_64, so every run sees the same requests and a failure reproduces by its index),
// varying every section of PlanRequest: accelerator and server sizes and prices, overheads, racks
// with and without power limits, pods, the scale-out network (NICs, radix, oversubscription), PUE,
// buildings, the substation under each redundancy, every efficiency model, every kind of cap and
// both objectives. For each one:
//   - every invariant in tests/plan_invariants.h holds (caps respected, tight, counts consistent
//     across levels, IT <= facility <= substation, power adds up, headroom right);
//   - more power (a higher power cap or transformer rating) or more budget never gives fewer GPUs
//     (under MAX_REALIZED_COMPUTE: never less realized compute);
//   - solving the same request twice gives byte-identical output in binary, text and JSON.
// Under AddressSanitizer (which slows everything ~5x) the count is 20,000; DCPLAN_PROPERTY_COUNT
// overrides it either way (e.g. 1000000 for a long local run).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "proto/io.h"
#include "tests/plan_invariants.h"

namespace dcplan {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kDefaultCount = 20000;
#else
constexpr int kDefaultCount = 100000;
#endif

int RequestCount() {
  const char* env = std::getenv("DCPLAN_PROPERTY_COUNT");
  if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
  return kDefaultCount;
}

// Draws the parts of a request. Magnitudes are log-uniform so that every scale (watts to 100 GW,
// dollars to a trillion) is exercised, with the edge values (0, exact limits) drawn on purpose.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  double LogUniform(double lo, double hi) { return std::exp(Uniform(std::log(lo), std::log(hi))); }
  uint64_t Int(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  template <typename T, size_t N>
  T Pick(const T (&values)[N]) {
    return values[Int(0, N - 1)];
  }
  // 0 with probability `p_zero`, else log-uniform in [lo, hi].
  double ZeroOr(double p_zero, double lo, double hi) {
    return Chance(p_zero) ? 0.0 : LogUniform(lo, hi);
  }

  PlanRequest Request(int index) {
    PlanRequest r;
    r.set_name(absl::StrCat("generated-", index));
    if (Chance(0.5)) r.set_schema_version(SCHEMA_VERSION_1);

    Accelerator* acc = r.mutable_hardware()->mutable_accelerator();
    acc->set_peak_flops_per_second(LogUniform(1e12, 1e16));
    acc->set_tdp_watts(Chance(0.02) ? LogUniform(1e-3, 1) : LogUniform(50, 3000));
    if (Chance(0.3)) acc->set_measured_power_watts(acc->tdp_watts() * Uniform(0.3, 1.0));
    if (Chance(0.2)) acc->set_measured_power_watts(acc->tdp_watts());  // the edge: equal to TDP
    acc->set_hbm_bytes(ZeroOr(0.3, 1e9, 3e11));
    acc->set_price_usd(ZeroOr(0.3, 1e3, 1e5));

    Server* srv = r.mutable_hardware()->mutable_server();
    const uint32_t kGpusPerServer[] = {1, 2, 4, 8, 8, 8, 16, 36, 72, 1024};
    srv->set_gpus_per_server(Chance(0.2) ? static_cast<uint32_t>(Int(1, 1024))
                                         : Pick(kGpusPerServer));
    srv->set_overhead_watts(ZeroOr(0.2, 10, 50000));
    srv->set_price_usd(ZeroOr(0.6, 1e4, 5e6));
    srv->set_non_gpu_price_usd(ZeroOr(0.4, 1e3, 2e5));
    if (Chance(0.3)) srv->set_measured_overhead_watts(srv->overhead_watts() * Uniform(0.3, 1.0));
    // Provisioning: at the nameplate, or at the measured draw with a margin (capped at the
    // nameplate).
    Provisioning* provisioning = r.mutable_site()->mutable_provisioning();
    if (Chance(0.3)) {
      provisioning->set_basis(PROVISIONING_BASIS_MEASURED);
      if (Chance(0.5)) provisioning->set_margin(Chance(0.2) ? 0.0 : Uniform(0.0, 1.0));
    } else if (Chance(0.2)) {
      provisioning->set_basis(PROVISIONING_BASIS_NAMEPLATE);
    }
    const auto provisioned = [provisioning](double nameplate, double measured) {
      if (provisioning->basis() != PROVISIONING_BASIS_MEASURED) return nameplate;
      const double margin = provisioning->has_margin() ? provisioning->margin() : 0.08;
      return std::min(nameplate, (measured > 0 ? measured : nameplate) * (1.0 + margin));
    };
    const double gpu_watts = provisioned(acc->tdp_watts(), acc->measured_power_watts());
    const double server_watts = srv->gpus_per_server() * gpu_watts +
                                provisioned(srv->overhead_watts(), srv->measured_overhead_watts());

    double rack_watts = server_watts;
    uint64_t servers_per_rack = 1;
    if (Chance(0.85)) {
      Rack* rack = r.mutable_hardware()->mutable_rack();
      servers_per_rack = Chance(0.05) ? 4096 : Int(1, 64);
      rack->set_max_servers_per_rack(static_cast<uint32_t>(servers_per_rack));
      rack->set_overhead_watts(ZeroOr(0.3, 1, 5000));
      if (Chance(0.2))
        rack->set_measured_overhead_watts(rack->overhead_watts() * Uniform(0.3, 1.0));
      rack->set_price_usd(ZeroOr(0.3, 1e3, 1e5));
      const double rack_overhead =
          provisioned(rack->overhead_watts(), rack->measured_overhead_watts());
      if (Chance(0.4)) {
        // At least one server plus the overhead (exactly that, sometimes).
        const double one = server_watts + rack_overhead;
        rack->set_power_limit_watts(Chance(0.1) ? one : one * LogUniform(1, 100));
        // (At least one: the quotient of a limit of exactly one server can round below 1.)
        servers_per_rack = std::clamp<uint64_t>(
            static_cast<uint64_t>((rack->power_limit_watts() - rack_overhead) / server_watts), 1,
            servers_per_rack);
      }
      rack_watts = static_cast<double>(servers_per_rack) * server_watts + rack_overhead;
    }
    uint64_t racks_per_pod = 1;
    if (Chance(0.8)) {
      racks_per_pod = Chance(0.1) ? 0 : Int(1, 128);
      r.mutable_hardware()->mutable_pod()->set_racks_per_pod(static_cast<uint32_t>(racks_per_pod));
      racks_per_pod = std::max<uint64_t>(racks_per_pod, 1);
    }

    Network* net = r.mutable_hardware()->mutable_network();
    double pod_network_watts = 0;
    if (Chance(0.7)) {
      net->set_nics_per_gpu(static_cast<uint32_t>(Chance(0.7) ? 1 : Int(1, 16)));
      const uint32_t kRadix[] = {4, 8, 32, 36, 48, 64, 64, 128, 256, 512};
      const uint32_t radix = Chance(0.05) ? 2 * static_cast<uint32_t>(Int(2, 32768)) : Pick(kRadix);
      net->set_switch_radix(radix);
      if (Chance(0.4)) {
        net->set_leaf_oversubscription(Chance(0.3) ? 1.0
                                                   : Uniform(1.0, std::min(radix - 1.0, 8.0)));
      }
      net->set_port_bits_per_second(ZeroOr(0.2, 1e10, 1.6e12));
      net->set_switch_power_watts(ZeroOr(0.1, 50, 5000));
      net->set_switch_price_usd(ZeroOr(0.2, 1e3, 1e5));
      net->set_optic_power_watts(ZeroOr(0.2, 1, 40));
      net->set_optic_price_usd(ZeroOr(0.2, 10, 3000));
      if (Chance(0.2)) {
        net->set_switch_measured_power_watts(net->switch_power_watts() * Uniform(0.3, 1.0));
      }
      if (Chance(0.3)) {
        const int tiers = static_cast<int>(Int(1, 4));
        for (int t = 0; t < tiers; ++t) {
          net->add_upper_tier_oversubscription(
              Chance(0.4) ? 1.0 : Uniform(1.0, std::min(radix - 1.0, 8.0)));
        }
      }
      if (Chance(0.3)) {
        net->set_rail_optimized(true);
      } else if (Chance(0.3)) {
        net->set_leaf_placement(Chance(0.5) ? LEAF_PLACEMENT_TOP_OF_RACK
                                            : LEAF_PLACEMENT_END_OF_ROW);
        net->set_copper_cable_end_price_usd(ZeroOr(0.3, 10, 500));
      }
      // A generous bound on a pod's own fabric for the building limit below: every endpoint needs
      // at most ~2 x tiers switch ports and optics.
      const double endpoints = static_cast<double>(racks_per_pod * servers_per_rack) *
                               srv->gpus_per_server() * net->nics_per_gpu();
      pod_network_watts = endpoints * 30 * (net->switch_power_watts() + net->optic_power_watts());
    }
    if (Chance(0.3)) net->set_scale_up_domain_gpus(static_cast<uint32_t>(Int(1, 576)));

    AuxiliaryLoads* aux = r.mutable_hardware()->mutable_auxiliary();
    if (Chance(0.3)) {
      aux->set_storage_power_fraction(ZeroOr(0.2, 0.001, 0.2));
      aux->set_storage_price_fraction(ZeroOr(0.2, 0.001, 0.5));
      aux->set_frontend_network_power_fraction(ZeroOr(0.3, 0.001, 0.1));
      aux->set_frontend_network_price_fraction(ZeroOr(0.3, 0.001, 0.2));
      aux->set_head_nodes(static_cast<uint32_t>(Chance(0.5) ? 0 : Int(1, 64)));
      aux->set_head_node_power_watts(ZeroOr(0.2, 100, 3000));
      aux->set_head_node_price_usd(ZeroOr(0.2, 1e3, 5e4));
      aux->set_hot_spare_fraction(Chance(0.3) ? 0.0 : Uniform(0.0, 0.2));
    }

    Site* site = r.mutable_site();
    if (Chance(0.8)) site->set_pue(Chance(0.1) ? Pick({1.0, 5.0}) : Uniform(1.0, 2.5));
    if (Chance(0.4))
      site->set_cooling(Pick({COOLING_UNSPECIFIED, COOLING_AIR, COOLING_DIRECT_LIQUID}));
    // A rack above the air limit needs liquid (planner/validate.cc): on air, the site's limit holds
    // the rack (exactly, sometimes); otherwise it is any limit.
    if (site->cooling() == COOLING_AIR && rack_watts > 45000) {
      site->set_max_air_cooled_rack_watts(Chance(0.1) ? rack_watts
                                                      : rack_watts * Uniform(1.0, 1.5));
    } else if (Chance(0.2)) {
      site->set_max_air_cooled_rack_watts(LogUniform(1e3, 1e6));
      if (site->cooling() == COOLING_AIR && rack_watts > site->max_air_cooled_rack_watts()) {
        site->set_max_air_cooled_rack_watts(rack_watts);
      }
    }
    // The cooling the server needs: none, or the site's own.
    if (site->cooling() != COOLING_UNSPECIFIED && Chance(0.3))
      srv->set_required_cooling(site->cooling());
    if (Chance(0.3)) {
      // At most the design-day PUE in effect.
      const double peak = site->has_pue()                            ? site->pue()
                          : site->cooling() == COOLING_AIR           ? 1.55
                          : site->cooling() == COOLING_DIRECT_LIQUID ? 1.2
                                                                     : 1.3;
      site->set_annual_pue(Chance(0.2) ? peak : Uniform(1.0, peak));
    }
    if (Chance(0.3)) {
      const double pod_watts =
          (static_cast<double>(racks_per_pod) * rack_watts + pod_network_watts) *
          (1.0 + aux->storage_power_fraction() + aux->frontend_network_power_fraction());
      site->mutable_building()->set_critical_it_power_watts(
          std::min(pod_watts * LogUniform(1, 50), 1e15));
      if (Chance(0.6)) site->set_max_buildings(static_cast<uint32_t>(Int(1, 100)));
    } else if (Chance(0.1)) {
      site->set_max_buildings(static_cast<uint32_t>(Int(1, 5)));
    }
    if (Chance(0.4)) {
      Substation* sub = site->mutable_substation();
      sub->set_transformer_rating_va(LogUniform(1e5, 1e10));
      const Redundancy kRedundancy[] = {REDUNDANCY_UNSPECIFIED, REDUNDANCY_N, REDUNDANCY_N_PLUS_1,
                                        REDUNDANCY_2N};
      sub->set_redundancy(Pick(kRedundancy));
      uint32_t count = static_cast<uint32_t>(Int(Chance(0.2) ? 0 : 1, 8));
      if (sub->redundancy() == REDUNDANCY_N_PLUS_1) count = std::max<uint32_t>(count, 2);
      if (sub->redundancy() == REDUNDANCY_2N) count = 2 * std::max<uint32_t>(count, 1);
      sub->set_transformer_count(count);
      if (Chance(0.5)) sub->set_power_factor(Chance(0.1) ? 1.0 : Uniform(0.5, 1.0));
    }

    switch (Int(0, 3)) {
      case 0:
        break;  // the default log-linear curve
      case 1: {
        LogLinearMfu* ll = r.mutable_efficiency()->mutable_log_linear();
        const double intercept = Uniform(0.2, 1.0);
        ll->set_intercept(intercept);
        ll->set_slope_per_doubling(Chance(0.1) ? 0.0
                                               : Uniform(0.0, std::min(0.1, intercept * 0.99)));
        if (Chance(0.5)) ll->set_floor(Uniform(0.001, intercept));
        break;
      }
      case 2: {
        MfuTable* table = r.mutable_efficiency()->mutable_table();
        uint64_t g = Int(1, 64);
        const int points = static_cast<int>(Int(1, 8));
        for (int i = 0; i < points; ++i) {
          MfuPoint* p = table->add_points();
          p->set_gpus(g);
          p->set_mfu(Uniform(0.05, 1.0));
          g = std::min<uint64_t>(g * Int(2, 64) + Int(1, 7), 1000000000000 - (points - i));
        }
        break;
      }
      default:
        r.mutable_efficiency()->mutable_constant()->set_mfu(Uniform(0.01, 1.0));
    }

    Constraints* caps = r.mutable_constraints();
    const bool rated = site->substation().transformer_rating_va() > 0;
    const PowerCapAt kCapAt[] = {POWER_CAP_AT_UNSPECIFIED, POWER_CAP_AT_FACILITY, POWER_CAP_AT_IT,
                                 POWER_CAP_AT_SUBSTATION};
    caps->set_power_cap_at(Pick(kCapAt));
    if (caps->power_cap_at() == POWER_CAP_AT_SUBSTATION && !rated) {
      caps->set_power_cap_at(POWER_CAP_AT_FACILITY);
    }
    // Up to 100 GW, now and then below one server.
    if (Chance(0.8)) caps->set_power_cap_watts(LogUniform(1e3, 1e11));
    if (Chance(0.3)) caps->set_max_gpus(Chance(0.1) ? 1000000000 : Int(1, 2000000));
    if (Chance(0.4)) {
      caps->set_budget_usd(LogUniform(1e5, 1e12));
      caps->set_budget_on(Pick({BUDGET_ON_UNSPECIFIED, BUDGET_ON_CAPEX, BUDGET_ON_TCO}));
    }
    caps->set_objective(Pick({OBJECTIVE_UNSPECIFIED, OBJECTIVE_MAX_GPUS, OBJECTIVE_MAX_GPUS,
                              OBJECTIVE_MAX_REALIZED_COMPUTE}));
    // Something must bound the cluster: a power cap, the GPU cap, a rated substation or buildings.
    const bool bounded =
        caps->power_cap_watts() > 0 || caps->max_gpus() > 0 || rated ||
        (site->max_buildings() > 0 && site->building().critical_it_power_watts() > 0);
    if (!bounded) caps->set_power_cap_watts(LogUniform(1e3, 1e11));

    Costs* costs = r.mutable_costs();
    costs->set_facility_usd_per_it_watt(ZeroOr(0.3, 1, 20));
    costs->set_site_fixed_usd(ZeroOr(0.7, 1e5, 1e9));
    costs->set_electricity_usd_per_kwh(ZeroOr(0.2, 0.01, 0.5));
    if (Chance(0.5)) costs->set_average_utilization(Chance(0.1) ? 1.0 : Uniform(0.05, 1.0));
    costs->set_maintenance_fraction_per_year(Chance(0.3) ? 0.0 : Uniform(0.0, 0.2));
    costs->set_staff_usd_per_year(ZeroOr(0.5, 1e4, 1e8));
    if (Chance(0.5)) costs->set_horizon_years(Chance(0.05) ? 50.0 : Uniform(0.25, 10));
    if (Chance(0.3)) {
      costs->set_wacc(Chance(0.2) ? 0.0 : Uniform(0.0, 0.2));
      if (Chance(0.7)) costs->set_it_life_years(Uniform(1, 8));
      if (Chance(0.7)) costs->set_facility_life_years(Uniform(5, 40));
      if (Chance(0.5)) costs->set_it_maintenance_fraction_per_year(Uniform(0.0, 0.15));
      if (Chance(0.5)) costs->set_facility_maintenance_fraction_per_year(Uniform(0.0, 0.05));
    }

    // Caps the rest of the request makes meaningless are errors (not valid requests): max_buildings
    // without a building power limit, a power cap in watts measured at the substation, a budget
    // where nothing has a price. The draws above stay as they were (same seed, same requests);
    // such caps are taken out here.
    if (site->building().critical_it_power_watts() <= 0) site->clear_max_buildings();
    if (caps->power_cap_at() == POWER_CAP_AT_SUBSTATION) caps->clear_power_cap_watts();
    const Hardware& h = r.hardware();
    const bool priced =
        h.server().price_usd() > 0 || h.accelerator().price_usd() > 0 ||
        h.server().non_gpu_price_usd() > 0 || costs->facility_usd_per_it_watt() > 0 ||
        (caps->budget_on() == BUDGET_ON_TCO && costs->electricity_usd_per_kwh() > 0);
    if (!priced) caps->clear_budget_usd();
    if (caps->power_cap_watts() <= 0 && caps->max_gpus() == 0 && !rated &&
        site->max_buildings() == 0 && caps->budget_usd() <= 0) {
      caps->set_power_cap_watts(LogUniform(1e3, 1e11));
    }
    return r;
  }

 private:
  std::mt19937_64 rng_;
};

std::string Encoded(const Plan& plan, Encoding encoding) {
  absl::StatusOr<std::string> s = SerializeMessage(plan, encoding);
  return s.ok() ? *s : s.status().ToString();
}

bool max_compute_objective(const PlanRequest& r) {
  return r.constraints().objective() == OBJECTIVE_MAX_REALIZED_COMPUTE;
}

TEST(PlannerProperties, HoldForEveryGeneratedValidRequest) {
  const int count = RequestCount();
  Generator gen(/*seed=*/20261202);
  int solved = 0, zero_gpu = 0, diminishing = 0, failures = 0;
  int by_binding[BindingConstraint_ARRAYSIZE] = {};
  for (int i = 0; i < count && failures < 10; ++i) {
    const PlanRequest request = gen.Request(i);
    auto describe = [&] {
      std::string text;
      google::protobuf::TextFormat::PrintToString(request, &text);
      return absl::StrCat("request #", i, ":\n", text);
    };
    // The assumptions ledger re-solves once per input (~50 solves): every 100th request carries
    // it, every request the marginal values and the next step.
    ExplainOptions explain;
    explain.assumptions = explain.influence = i % 100 == 0;
    const absl::StatusOr<Plan> plan = SolvePlan(request, explain);
    if (!plan.ok()) {
      ++failures;
      ADD_FAILURE() << "a generated valid request failed: " << plan.status() << "\n" << describe();
      continue;
    }
    ++solved;
    zero_gpu += plan->counts().gpu_count() == 0;
    diminishing += plan->binding_constraint() == BINDING_CONSTRAINT_DIMINISHING_RETURNS;
    ++by_binding[plan->binding_constraint()];

    const absl::Status invariants = testing::CheckPlanInvariants(request, *plan);
    if (!invariants.ok()) {
      ++failures;
      ADD_FAILURE() << invariants << "\n" << describe();
      continue;
    }

    // A cap's marginal value is never negative when the objective is GPUs: more never fits fewer.
    if (!max_compute_objective(request)) {
      if (plan->marginal().gpus_per_megawatt() < 0 || plan->marginal().gpus_per_100m_usd() < 0) {
        ++failures;
        ADD_FAILURE() << "a negative marginal value: " << plan->marginal().ShortDebugString()
                      << "\n"
                      << describe();
      }
    }
    // Every ledger entry has a source and a known origin.
    for (const Assumption& a : plan->assumptions()) {
      if (a.source().empty() || a.origin() == ORIGIN_UNSPECIFIED || a.influence() < 0) {
        ++failures;
        ADD_FAILURE() << "ledger entry " << a.ShortDebugString() << "\n" << describe();
      }
    }

    // The same input gives byte-identical output, in every encoding.
    const absl::StatusOr<Plan> again = SolvePlan(request, explain);
    ASSERT_TRUE(again.ok()) << again.status();
    for (Encoding e : {Encoding::kBinary, Encoding::kText, Encoding::kJson}) {
      if (e == Encoding::kJson && i % 10 != 0) continue;  // the slowest printer: every 10th
      if (Encoded(*plan, e) != Encoded(*again, e)) {
        ++failures;
        ADD_FAILURE() << "two solves differ in " << EncodingName(e) << "\n" << describe();
      }
    }

    // More power or more budget never gives fewer GPUs (nor, maximizing compute, less compute).
    const bool max_compute = request.constraints().objective() == OBJECTIVE_MAX_REALIZED_COMPUTE;
    auto check_more = [&](const char* what, const PlanRequest& more) {
      ExplainOptions none;
      none.assumptions = none.influence = none.marginal = none.next_step = false;
      const absl::StatusOr<Plan> bigger = SolvePlan(more, none);
      if (!bigger.ok()) {
        ++failures;
        ADD_FAILURE() << "with more " << what << ": " << bigger.status() << "\n" << describe();
        return;
      }
      const bool fewer = max_compute ? bigger->compute().realized_flops_per_second() <
                                           plan->compute().realized_flops_per_second()
                                     : bigger->counts().gpu_count() < plan->counts().gpu_count();
      if (fewer) {
        ++failures;
        ADD_FAILURE() << "more " << what << " gave less: " << bigger->counts().gpu_count()
                      << " GPUs (" << bigger->compute().realized_flops_per_second() << " FLOP/s) < "
                      << plan->counts().gpu_count() << " GPUs ("
                      << plan->compute().realized_flops_per_second() << " FLOP/s)\n"
                      << describe();
      }
    };
    const double factor = 1.0 + gen.LogUniform(1e-6, 4.0);
    if (request.constraints().power_cap_watts() > 0 &&
        request.constraints().power_cap_watts() * factor <= 1e15) {
      PlanRequest more = request;
      more.mutable_constraints()->set_power_cap_watts(request.constraints().power_cap_watts() *
                                                      factor);
      check_more("power", more);
    }
    if (request.site().substation().transformer_rating_va() > 0 &&
        request.site().substation().transformer_rating_va() * factor <= 1e15) {
      PlanRequest more = request;
      more.mutable_site()->mutable_substation()->set_transformer_rating_va(
          request.site().substation().transformer_rating_va() * factor);
      check_more("substation capacity", more);
    }
    if (request.constraints().budget_usd() > 0 &&
        request.constraints().budget_usd() * factor <= 1e15) {
      PlanRequest more = request;
      more.mutable_constraints()->set_budget_usd(request.constraints().budget_usd() * factor);
      check_more("budget", more);
    }
  }
  EXPECT_EQ(solved, count);
  // The generator must reach every corner it aims at, or the properties above prove little.
  EXPECT_GT(zero_gpu, count / 1000) << "too few zero-GPU plans";
  EXPECT_GT(diminishing, count / 1000) << "too few DIMINISHING_RETURNS plans";
  for (BindingConstraint b : {BINDING_CONSTRAINT_FACILITY_POWER, BINDING_CONSTRAINT_IT_POWER,
                              BINDING_CONSTRAINT_SUBSTATION, BINDING_CONSTRAINT_MAX_GPUS,
                              BINDING_CONSTRAINT_BUILDINGS, BINDING_CONSTRAINT_BUDGET}) {
    EXPECT_GT(by_binding[b], count / 1000)
        << "too few plans bound by " << BindingConstraint_Name(b);
  }
  std::cout << "checked " << solved << " generated requests (" << zero_gpu << " zero-GPU plans, "
            << diminishing << " stopped by diminishing returns)\n";
  for (int b = 0; b < BindingConstraint_ARRAYSIZE; ++b) {
    if (by_binding[b] > 0) {
      std::cout << "  " << BindingConstraint_Name(static_cast<BindingConstraint>(b)) << ": "
                << by_binding[b] << "\n";
    }
  }
}

}  // namespace
}  // namespace dcplan

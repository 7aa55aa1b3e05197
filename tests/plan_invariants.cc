// File: tests/plan_invariants.cc
//
// Every figure is recomputed from the request (never from the planner's typed model), and caps are
// compared exactly: the plan's numbers are the very doubles the solver compared, so a cap broken by
// one ulp is a real violation. Sums recomputed here in another order get a relative tolerance.
#include "tests/plan_invariants.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"
#include "planner/planner.h"

namespace dcplan::testing {
namespace {

// dcplan's size limit (planner/solver.h kMaxGpus), restated: a plan within one server of it is
// tight by the limit.
constexpr uint64_t kSizeLimitGpus = 1'000'000'000'000;

// Relative tolerance for figures recomputed here in a different order of operations.
constexpr double kRelTol = 1e-9;

bool Near(double a, double b) {
  return std::fabs(a - b) <= kRelTol * std::max({std::fabs(a), std::fabs(b), 1e-300});
}

// `a <= b` up to kRelTol, for bounds recomputed here.
bool AtMostNear(double a, double b) { return a <= b || Near(a, b); }

absl::Status Broken(absl::string_view what) {
  return absl::InternalError(absl::StrCat("invariant broken: ", what));
}

// Fails with `what` and the values when `ok` is false.
#define DCPLAN_INVARIANT(ok, ...) \
  if (!(ok)) return Broken(absl::StrCat(__VA_ARGS__))

uint64_t CeilDiv(uint64_t a, uint64_t b) { return a == 0 ? 0 : (a - 1) / b + 1; }

// The request's effective figures, defaults applied (proto/request.proto's comments).
struct Effective {
  uint64_t gpus_per_server = 0;
  double gpu_watts = 0;
  double server_watts = 0;
  uint64_t max_servers_per_rack = 1;
  double rack_limit_watts = 0;  // 0 = none
  double rack_overhead_watts = 0;
  uint64_t racks_per_pod = 1;
  double pue = 1.3;
  bool has_substation = false;
  double substation_watts = 0;
  double building_watts = 0;  // 0 = none
  uint64_t max_buildings = 0;
  PowerCapAt cap_at = POWER_CAP_AT_FACILITY;
  double power_cap = 0;  // 0 = none (POWER_CAP_AT_SUBSTATION: the substation's capacity)
  uint64_t max_gpus = 0;
  double budget = 0;
  BudgetOn budget_on = BUDGET_ON_CAPEX;
  Objective objective = OBJECTIVE_MAX_GPUS;
  uint64_t nics_per_gpu = 0;
  uint64_t radix = 0;
  uint64_t leaf_downlinks = 0;
  std::vector<uint64_t> upper_downlinks;  // tiers above the leaf with an oversubscription
  bool top_of_rack = false;
  bool rail_optimized = false;
  double switch_watts = 0;  // provisioned
  double rack_overhead_provisioned = 0;
  double server_overhead_watts = 0;
  double storage_fraction = 0;
  double frontend_fraction = 0;
  double hot_spares = 0;
};

// A device's provisioned power (proto/request.proto, Provisioning): its nameplate, or its measured
// draw (0 = the nameplate) x (1 + margin, default 0.08), at most the nameplate.
double Provisioned(const PlanRequest& r, double nameplate, double measured) {
  const Provisioning& p = r.site().provisioning();
  if (p.basis() != PROVISIONING_BASIS_MEASURED) return nameplate;
  const double margin = p.has_margin() ? p.margin() : 0.08;
  return std::min(nameplate, (measured > 0 ? measured : nameplate) * (1.0 + margin));
}

uint64_t Downlinks(uint64_t radix, double oversubscription) {
  return static_cast<uint64_t>(
      std::floor(static_cast<double>(radix) * oversubscription / (1.0 + oversubscription) + 1e-9));
}

Effective EffectiveOf(const PlanRequest& r) {
  Effective e;
  const Accelerator& acc = r.hardware().accelerator();
  const Server& srv = r.hardware().server();
  e.gpus_per_server = srv.gpus_per_server();
  e.gpu_watts = Provisioned(r, acc.tdp_watts(), acc.measured_power_watts());
  e.server_overhead_watts = Provisioned(r, srv.overhead_watts(), srv.measured_overhead_watts());
  e.server_watts = static_cast<double>(e.gpus_per_server) * e.gpu_watts + e.server_overhead_watts;
  e.max_servers_per_rack = std::max<uint64_t>(r.hardware().rack().max_servers_per_rack(), 1);
  e.rack_limit_watts = r.hardware().rack().power_limit_watts();
  e.rack_overhead_watts = Provisioned(r, r.hardware().rack().overhead_watts(),
                                      r.hardware().rack().measured_overhead_watts());
  e.racks_per_pod = std::max<uint64_t>(r.hardware().pod().racks_per_pod(), 1);
  // The design-day PUE: given, or by cooling (air 1.55, direct liquid 1.2, else 1.3).
  e.pue = r.site().has_pue()                            ? r.site().pue()
          : r.site().cooling() == COOLING_AIR           ? 1.55
          : r.site().cooling() == COOLING_DIRECT_LIQUID ? 1.2
                                                        : 1.3;
  const Substation& sub = r.site().substation();
  e.has_substation = sub.transformer_rating_va() > 0;
  if (e.has_substation) {
    // Usable transformers: N all, N+1 all but one, 2N half; times rating (VA) and power factor.
    const double count = std::max<uint32_t>(sub.transformer_count(), 1);
    double usable = count;
    if (sub.redundancy() == REDUNDANCY_N_PLUS_1) usable = count - 1;
    if (sub.redundancy() == REDUNDANCY_2N) usable = count / 2;
    e.substation_watts =
        usable * sub.transformer_rating_va() * (sub.has_power_factor() ? sub.power_factor() : 0.95);
  }
  e.building_watts = r.site().building().critical_it_power_watts();
  e.max_buildings = r.site().max_buildings();
  const Constraints& c = r.constraints();
  e.cap_at =
      c.power_cap_at() == POWER_CAP_AT_UNSPECIFIED ? POWER_CAP_AT_FACILITY : c.power_cap_at();
  e.power_cap = e.cap_at == POWER_CAP_AT_SUBSTATION ? 0 : c.power_cap_watts();
  e.max_gpus = c.max_gpus();
  e.budget = c.budget_usd();
  e.budget_on = c.budget_on() == BUDGET_ON_TCO ? BUDGET_ON_TCO : BUDGET_ON_CAPEX;
  e.objective = c.objective() == OBJECTIVE_MAX_REALIZED_COMPUTE ? OBJECTIVE_MAX_REALIZED_COMPUTE
                                                                : OBJECTIVE_MAX_GPUS;
  const Network& net = r.hardware().network();
  e.nics_per_gpu = net.nics_per_gpu();
  e.radix = net.switch_radix();
  const double oversub = net.has_leaf_oversubscription() ? net.leaf_oversubscription() : 1.0;
  e.leaf_downlinks = Downlinks(e.radix, oversub);
  for (double o : net.upper_tier_oversubscription()) {
    e.upper_downlinks.push_back(Downlinks(e.radix, o));
  }
  e.top_of_rack = !net.rail_optimized() && net.leaf_placement() == LEAF_PLACEMENT_TOP_OF_RACK;
  e.rail_optimized = net.rail_optimized();
  e.switch_watts = Provisioned(r, net.switch_power_watts(), net.switch_measured_power_watts());
  const AuxiliaryLoads& aux = r.hardware().auxiliary();
  e.storage_fraction = aux.storage_power_fraction();
  e.frontend_fraction = aux.frontend_network_power_fraction();
  e.hot_spares = aux.hot_spare_fraction();
  return e;
}

// Leaves the fabric needs for `servers` installed servers (proto/request.proto: packed, top of rack
// with one rack's NICs per leaf, or rail-optimized with a leaf per rail of d servers).
double LeavesFor(const Effective& e, uint64_t endpoints, uint64_t servers, uint64_t spr) {
  const uint64_t d = e.leaf_downlinks;
  if (e.rail_optimized) {
    return static_cast<double>(e.gpus_per_server * e.nics_per_gpu) *
           static_cast<double>(CeilDiv(servers, d));
  }
  if (e.top_of_rack) {
    const uint64_t rack_ports = spr * e.gpus_per_server * e.nics_per_gpu;
    return static_cast<double>(endpoints / rack_ports) *
               static_cast<double>(CeilDiv(rack_ports, d)) +
           static_cast<double>(CeilDiv(endpoints % rack_ports, d));
  }
  return static_cast<double>(CeilDiv(endpoints, d));
}

// Whether a fat tree of at most 12 tiers (planner/fabric.h) of the request's switches connects
// `endpoints` NIC ports on `servers` servers: one switch for up to `radix`, else t tiers hold
// k d_2 ... d_{t-1} leaves, with d_i the downlinks at tier i (k/2 past the request's list).
bool FabricFits(const Effective& e, uint64_t endpoints, uint64_t servers, uint64_t spr) {
  if (endpoints <= e.radix) return true;
  const double k = static_cast<double>(e.radix);
  double most_leaves = k;
  for (int tier = 2; tier <= 11; ++tier) {
    most_leaves *= tier - 2 < static_cast<int>(e.upper_downlinks.size())
                       ? static_cast<double>(e.upper_downlinks[tier - 2])
                       : k / 2;
  }
  return LeavesFor(e, endpoints, servers, spr) <= most_leaves;
}

double BudgetUse(const Effective& e, const CostPlan& cost) {
  return e.budget_on == BUDGET_ON_TCO ? cost.tco_usd() : cost.capex_usd();
}

// The caps a cluster with these figures breaks, as names (empty = none).
std::vector<BindingConstraint> BrokenCaps(const Effective& e, const Counts& counts,
                                          const PowerBreakdown& power, const CostPlan& cost,
                                          bool fabric_fits) {
  std::vector<BindingConstraint> broken;
  if (e.power_cap > 0) {
    if (e.cap_at == POWER_CAP_AT_IT && power.it_power_watts() > e.power_cap) {
      broken.push_back(BINDING_CONSTRAINT_IT_POWER);
    }
    if (e.cap_at == POWER_CAP_AT_FACILITY && power.facility_power_watts() > e.power_cap) {
      broken.push_back(BINDING_CONSTRAINT_FACILITY_POWER);
    }
  }
  if (e.has_substation && power.facility_power_watts() > power.substation_capacity_watts()) {
    broken.push_back(BINDING_CONSTRAINT_SUBSTATION);
  }
  if (e.max_gpus > 0 && counts.gpu_count() > e.max_gpus) {
    broken.push_back(BINDING_CONSTRAINT_MAX_GPUS);
  }
  if (e.max_buildings > 0 && counts.building_count() > e.max_buildings) {
    broken.push_back(BINDING_CONSTRAINT_BUILDINGS);
  }
  if (e.budget > 0 && BudgetUse(e, cost) > e.budget) broken.push_back(BINDING_CONSTRAINT_BUDGET);
  if (!fabric_fits) broken.push_back(BINDING_CONSTRAINT_FABRIC);
  if (counts.gpu_count() > kSizeLimitGpus) broken.push_back(BINDING_CONSTRAINT_SIZE_LIMIT);
  return broken;
}

std::string Names(const std::vector<BindingConstraint>& caps) {
  std::string s = "{";
  for (BindingConstraint b : caps)
    absl::StrAppend(&s, s.size() > 1 ? ", " : "", BindingConstraint_Name(b));
  return absl::StrCat(s, "}");
}

absl::Status CheckCounts(const Effective& e, const Plan& plan) {
  const Counts& c = plan.counts();
  const uint64_t gps = e.gpus_per_server;
  // Hot spares: the fraction of the training servers, rounded up.
  const uint64_t training = c.server_count() - c.spare_server_count();
  DCPLAN_INVARIANT(c.gpu_count() == training * gps, "whole servers: ", c.gpu_count(),
                   " GPUs != ", training, " training servers x ", gps);
  const double spares = std::ceil(static_cast<double>(training) * e.hot_spares - 1e-6);
  DCPLAN_INVARIANT(std::fabs(static_cast<double>(c.spare_server_count()) - spares) <= 1,
                   "spare servers ", c.spare_server_count(), " for ", training, " at ",
                   e.hot_spares);
  // Servers per rack: within the rack's space, and its power limit when set; and the most that fit.
  const uint64_t spr = c.servers_per_rack();
  DCPLAN_INVARIANT(spr >= 1 && spr <= e.max_servers_per_rack, "servers_per_rack ", spr,
                   " outside [1, ", e.max_servers_per_rack, "]");
  if (e.rack_limit_watts > 0) {
    const double rack = static_cast<double>(spr) * e.server_watts + e.rack_overhead_watts;
    const double one_more = static_cast<double>(spr + 1) * e.server_watts + e.rack_overhead_watts;
    DCPLAN_INVARIANT(AtMostNear(rack, e.rack_limit_watts), "a rack of ", spr, " servers draws ",
                     rack, " W over its limit ", e.rack_limit_watts);
    DCPLAN_INVARIANT(spr == e.max_servers_per_rack || !AtMostNear(one_more, e.rack_limit_watts) ||
                         Near(one_more, e.rack_limit_watts),
                     "servers_per_rack ", spr, " is not the most that fit: ", spr + 1, " draw ",
                     one_more, " W under the limit ", e.rack_limit_watts);
  } else {
    DCPLAN_INVARIANT(spr == e.max_servers_per_rack, "servers_per_rack ", spr,
                     " != max_servers_per_rack ", e.max_servers_per_rack, " without a power limit");
  }
  DCPLAN_INVARIANT(c.rack_count() == CeilDiv(c.server_count(), spr), "racks ", c.rack_count(),
                   " do not hold ", c.server_count(), " servers at ", spr, " a rack exactly");
  DCPLAN_INVARIANT(c.pod_count() == CeilDiv(c.rack_count(), e.racks_per_pod), "pods ",
                   c.pod_count(), " do not hold ", c.rack_count(), " racks at ", e.racks_per_pod,
                   " a pod exactly");
  const uint64_t ppb = c.pods_per_building();
  if (e.building_watts > 0) {
    DCPLAN_INVARIANT(ppb >= 1, "a building limit is set but pods_per_building is 0");
    // A pod draws at least its racks' power (its own fabric comes on top).
    const double pod_racks = static_cast<double>(e.racks_per_pod) * plan.power().rack_power_watts();
    DCPLAN_INVARIANT(AtMostNear(static_cast<double>(ppb) * pod_racks, e.building_watts), ppb,
                     " pods of ", pod_racks, " W exceed a building's ", e.building_watts, " W");
    DCPLAN_INVARIANT(c.building_count() == CeilDiv(c.pod_count(), ppb), "buildings ",
                     c.building_count(), " do not hold ", c.pod_count(), " pods at ", ppb,
                     " a building exactly");
  } else {
    DCPLAN_INVARIANT(ppb == 0, "no building limit but pods_per_building is ", ppb);
    DCPLAN_INVARIANT(c.building_count() == (c.pod_count() > 0 ? 1u : 0u), "buildings ",
                     c.building_count(), " for ", c.pod_count(), " pods without a building limit");
  }
  return absl::OkStatus();
}

absl::Status CheckNetwork(const Effective& e, const Plan& plan) {
  const NetworkPlan& n = plan.network();
  const uint64_t installed =
      plan.counts().gpu_count() + plan.counts().spare_server_count() * e.gpus_per_server;
  const uint64_t endpoints = installed * e.nics_per_gpu;
  DCPLAN_INVARIANT(n.endpoint_count() == endpoints, "endpoint_count ", n.endpoint_count(),
                   " != ", installed, " installed GPUs x ", e.nics_per_gpu, " NICs");
  if (endpoints == 0) {
    DCPLAN_INVARIANT(n.switch_count() == 0 && n.optic_count() == 0 && n.tiers() == 0,
                     "a fabric without endpoints has ", n.switch_count(), " switches");
    return absl::OkStatus();
  }
  DCPLAN_INVARIANT(n.tiers() >= 1, "no fabric tier for ", endpoints, " endpoints");
  DCPLAN_INVARIANT(static_cast<uint32_t>(n.switches_per_tier_size()) == n.tiers(),
                   "switches_per_tier has ", n.switches_per_tier_size(), " entries for ", n.tiers(),
                   " tiers");
  uint64_t sum = 0;
  for (uint64_t s : n.switches_per_tier()) {
    DCPLAN_INVARIANT(s >= 1, "a fabric tier without switches");
    sum += s;
  }
  DCPLAN_INVARIANT(sum == n.switch_count(), "switch_count ", n.switch_count(),
                   " != the tiers' sum ", sum);
  // The leaves must have a port for every endpoint.
  const uint64_t leaf_ports = n.tiers() == 1 ? e.radix : e.leaf_downlinks;
  DCPLAN_INVARIANT(n.switches_per_tier(0) * leaf_ports >= endpoints, n.switches_per_tier(0),
                   " leaves of ", leaf_ports, " ports cannot serve ", endpoints, " endpoints");
  DCPLAN_INVARIANT(n.optic_count() + n.copper_cable_end_count() >= 2 * endpoints, n.optic_count(),
                   " optics and ", n.copper_cable_end_count(), " copper ends for ", endpoints,
                   " endpoints (each needs one at the NIC and one at the leaf)");
  return absl::OkStatus();
}

absl::Status CheckPower(const PlanRequest& r, const Effective& e, const Plan& plan) {
  const PowerBreakdown& p = plan.power();
  const Counts& c = plan.counts();
  DCPLAN_INVARIANT(Near(p.server_power_watts(), e.server_watts), "server_power_watts ",
                   p.server_power_watts(), " != ", e.server_watts);
  DCPLAN_INVARIANT(
      Near(p.rack_power_watts(),
           static_cast<double>(c.servers_per_rack()) * e.server_watts + e.rack_overhead_watts),
      "rack_power_watts ", p.rack_power_watts());
  const uint64_t installed = c.gpu_count() + c.spare_server_count() * e.gpus_per_server;
  DCPLAN_INVARIANT(Near(p.gpu_power_watts(), static_cast<double>(installed) * e.gpu_watts),
                   "gpu_power_watts ", p.gpu_power_watts(), " != ", installed, " x ", e.gpu_watts);
  DCPLAN_INVARIANT(Near(p.server_overhead_power_watts(),
                        static_cast<double>(c.server_count()) * e.server_overhead_watts),
                   "server_overhead_power_watts ", p.server_overhead_power_watts());
  DCPLAN_INVARIANT(Near(p.rack_overhead_power_watts(),
                        static_cast<double>(c.rack_count()) * e.rack_overhead_watts),
                   "rack_overhead_power_watts ", p.rack_overhead_power_watts());
  const Network& net = r.hardware().network();
  const double switch_watts = static_cast<double>(plan.network().switch_count()) * e.switch_watts;
  const double optic_watts =
      static_cast<double>(plan.network().optic_count()) * net.optic_power_watts();
  DCPLAN_INVARIANT(Near(p.network_power_watts(), switch_watts + optic_watts),
                   "network_power_watts ", p.network_power_watts(), " != switches ", switch_watts,
                   " + optics ", optic_watts);
  const double compute = p.gpu_power_watts() + p.server_overhead_power_watts() +
                         p.rack_overhead_power_watts() + p.network_power_watts();
  DCPLAN_INVARIANT(Near(p.storage_power_watts(), compute * e.storage_fraction),
                   "storage_power_watts ", p.storage_power_watts());
  DCPLAN_INVARIANT(Near(p.frontend_network_power_watts(), compute * e.frontend_fraction),
                   "frontend_network_power_watts ", p.frontend_network_power_watts());
  const double it = compute + p.storage_power_watts() + p.frontend_network_power_watts() +
                    p.head_node_power_watts();
  DCPLAN_INVARIANT(Near(p.it_power_watts(), it), "it_power_watts ", p.it_power_watts(),
                   " != the sum of its parts ", it);
  DCPLAN_INVARIANT(Near(p.pue(), e.pue), "pue ", p.pue(), " != ", e.pue);
  DCPLAN_INVARIANT(Near(p.facility_power_watts(), p.it_power_watts() * e.pue),
                   "facility_power_watts ", p.facility_power_watts(), " != IT x PUE");
  DCPLAN_INVARIANT(p.it_power_watts() <= p.facility_power_watts(), "IT power ", p.it_power_watts(),
                   " > facility power ", p.facility_power_watts());
  if (e.has_substation) {
    DCPLAN_INVARIANT(Near(p.substation_capacity_watts(), e.substation_watts),
                     "substation_capacity_watts ", p.substation_capacity_watts(),
                     " != ", e.substation_watts);
    DCPLAN_INVARIANT(p.facility_power_watts() <= p.substation_capacity_watts(), "facility power ",
                     p.facility_power_watts(), " > substation capacity ",
                     p.substation_capacity_watts());
  } else {
    DCPLAN_INVARIANT(p.substation_capacity_watts() == 0, "substation_capacity_watts ",
                     p.substation_capacity_watts(), " without a rated substation");
  }
  return absl::OkStatus();
}

absl::Status CheckHeadroom(const Effective& e, const Plan& plan) {
  const Headroom& h = plan.headroom();
  const PowerBreakdown& p = plan.power();
  const bool facility_cap = e.power_cap > 0 && e.cap_at == POWER_CAP_AT_FACILITY;
  const bool it_cap = e.power_cap > 0 && e.cap_at == POWER_CAP_AT_IT;
  DCPLAN_INVARIANT(h.has_facility_power_watts() == facility_cap, "facility headroom presence");
  DCPLAN_INVARIANT(h.has_it_power_watts() == it_cap, "IT headroom presence");
  DCPLAN_INVARIANT(h.has_substation_watts() == e.has_substation, "substation headroom presence");
  DCPLAN_INVARIANT(h.has_gpus() == (e.max_gpus > 0), "GPU headroom presence");
  DCPLAN_INVARIANT(h.has_buildings() == (e.max_buildings > 0), "building headroom presence");
  DCPLAN_INVARIANT(h.has_budget_usd() == (e.budget > 0), "budget headroom presence");
  if (facility_cap) {
    DCPLAN_INVARIANT(
        Near(h.facility_power_watts(), e.power_cap - p.facility_power_watts()) ||
            std::fabs(h.facility_power_watts() - (e.power_cap - p.facility_power_watts())) <= 1e-6,
        "facility headroom ", h.facility_power_watts());
  }
  if (e.max_gpus > 0) {
    DCPLAN_INVARIANT(h.gpus() == e.max_gpus - plan.counts().gpu_count(), "GPU headroom ", h.gpus());
  }
  if (e.max_buildings > 0) {
    DCPLAN_INVARIANT(h.buildings() == e.max_buildings - plan.counts().building_count(),
                     "building headroom ", h.buildings());
  }
  return absl::OkStatus();
}

// One more server than the plan breaks a cap; the plan's binding constraint is one of those broken.
absl::Status CheckTight(const PlanRequest& r, const Effective& e, const Plan& plan) {
  const uint64_t next = plan.counts().gpu_count() + e.gpus_per_server;
  if (next > kSizeLimitGpus) {
    DCPLAN_INVARIANT(plan.binding_constraint() == BINDING_CONSTRAINT_SIZE_LIMIT ||
                         plan.binding_constraint() == BINDING_CONSTRAINT_MAX_GPUS,
                     "a plan at the size limit names ",
                     BindingConstraint_Name(plan.binding_constraint()));
    return absl::OkStatus();
  }
  const absl::StatusOr<ScaleReport> more = Scale(r, {static_cast<int64_t>(next)});
  DCPLAN_INVARIANT(more.ok(), "Scale(", next, ") failed: ", more.status().ToString());
  const ScaleRow& row = more->rows(0);
  const std::vector<BindingConstraint> broken = BrokenCaps(
      e, row.counts(), row.power(), row.cost(),
      FabricFits(
          e,
          (row.counts().gpu_count() + row.counts().spare_server_count() * e.gpus_per_server) *
              e.nics_per_gpu,
          row.counts().server_count(), row.counts().servers_per_rack()));
  DCPLAN_INVARIANT(!broken.empty(), "not tight: one more server (", next,
                   " GPUs) breaks no cap; the plan says ",
                   BindingConstraint_Name(plan.binding_constraint()));
  DCPLAN_INVARIANT(
      std::find(broken.begin(), broken.end(), plan.binding_constraint()) != broken.end(),
      "the plan names ", BindingConstraint_Name(plan.binding_constraint()),
      " but one more server breaks ", Names(broken));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAllFinite(const google::protobuf::Message& message) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* refl = message.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE) {
      if (f->is_repeated()) {
        for (int j = 0; j < refl->FieldSize(message, f); ++j) {
          const double v = refl->GetRepeatedDouble(message, f, j);
          DCPLAN_INVARIANT(std::isfinite(v), f->full_name(), "[", j, "] is ", v);
        }
      } else {
        const double v = refl->GetDouble(message, f);
        DCPLAN_INVARIANT(std::isfinite(v), f->full_name(), " is ", v);
      }
    } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int j = 0; j < refl->FieldSize(message, f); ++j) {
          absl::Status s = CheckAllFinite(refl->GetRepeatedMessage(message, f, j));
          if (!s.ok()) return s;
        }
      } else if (refl->HasField(message, f)) {
        absl::Status s = CheckAllFinite(refl->GetMessage(message, f));
        if (!s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPlanInvariants(const PlanRequest& r, const Plan& plan) {
  const Effective e = EffectiveOf(r);
  absl::Status s = CheckAllFinite(plan);
  if (!s.ok()) return s;
  DCPLAN_INVARIANT(plan.schema_version() == SCHEMA_VERSION_1, "schema_version ",
                   plan.schema_version());
  DCPLAN_INVARIANT(plan.name() == r.name(), "name \"", plan.name(), "\" != \"", r.name(), "\"");
  DCPLAN_INVARIANT(plan.notes_size() >= 1, "a plan without a note");
  if (!(s = CheckCounts(e, plan)).ok()) return s;
  if (!(s = CheckNetwork(e, plan)).ok()) return s;
  if (!(s = CheckPower(r, e, plan)).ok()) return s;
  if (!(s = CheckHeadroom(e, plan)).ok()) return s;

  // Every cap is respected, except a budget that the site's fixed cost alone breaks (then no GPU
  // fits and the note says so).
  const std::vector<BindingConstraint> broken =
      BrokenCaps(e, plan.counts(), plan.power(), plan.cost(),
                 FabricFits(e, plan.network().endpoint_count(), plan.counts().server_count(),
                            plan.counts().servers_per_rack()));
  const uint64_t gpus = plan.counts().gpu_count();
  if (gpus == 0) {
    DCPLAN_INVARIANT(absl::StartsWith(plan.notes(0), "no GPUs fit"),
                     "a zero-GPU plan's note does not say why: \"", plan.notes(0), "\"");
    // Only the budget can be broken by nothing at all: by the site's fixed cost, or under TCO by
    // staff costs over the horizon.
    const bool fixed_costs = plan.cost().capex().site_fixed_usd() > 0 ||
                             (e.budget_on == BUDGET_ON_TCO && plan.cost().staff_usd_per_year() > 0);
    DCPLAN_INVARIANT(broken.empty() || (broken.size() == 1 &&
                                        broken[0] == BINDING_CONSTRAINT_BUDGET && fixed_costs),
                     "an empty cluster breaks ", Names(broken));
    if (!broken.empty()) {
      DCPLAN_INVARIANT(plan.binding_constraint() == BINDING_CONSTRAINT_BUDGET,
                       "a budget below the site's fixed cost, but the plan names ",
                       BindingConstraint_Name(plan.binding_constraint()));
      return absl::OkStatus();
    }
  } else {
    DCPLAN_INVARIANT(broken.empty(), "the plan of ", gpus, " GPUs breaks ", Names(broken));
  }

  if (plan.binding_constraint() == BINDING_CONSTRAINT_DIMINISHING_RETURNS) {
    // Stopped short of the caps: it must realize at least what the largest feasible cluster does.
    DCPLAN_INVARIANT(e.objective == OBJECTIVE_MAX_REALIZED_COMPUTE,
                     "DIMINISHING_RETURNS under objective ", Objective_Name(e.objective));
    PlanRequest largest_request = r;
    largest_request.mutable_constraints()->set_objective(OBJECTIVE_MAX_GPUS);
    const absl::StatusOr<Plan> largest = SolvePlan(largest_request);
    DCPLAN_INVARIANT(largest.ok(),
                     "the same request under MAX_GPUS fails: ", largest.status().ToString());
    DCPLAN_INVARIANT(gpus < largest->counts().gpu_count(), "stopped at ", gpus,
                     " GPUs but the largest feasible cluster has ", largest->counts().gpu_count());
    DCPLAN_INVARIANT(plan.compute().realized_flops_per_second() >=
                         largest->compute().realized_flops_per_second(),
                     "stopped at ", gpus, " GPUs realizing ",
                     plan.compute().realized_flops_per_second(), " FLOP/s, less than the ",
                     largest->counts().gpu_count(), " that fit realize (",
                     largest->compute().realized_flops_per_second(), ")");
    return absl::OkStatus();
  }
  return CheckTight(r, e, plan);
}

#undef DCPLAN_INVARIANT

}  // namespace dcplan::testing

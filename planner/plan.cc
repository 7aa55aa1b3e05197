#include "planner/plan.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace dcplan {
namespace {
inline double D(int64_t v) { return static_cast<double>(v); }

// `total` / `per`, or 0 when there is nothing to divide by or the quotient passes a double's range
// (a valid request may realize 1e-300 FLOP/s; a plan never carries an infinity).
double PerUnit(double total, double per) {
  if (!(per > 0)) return 0.0;
  const double quotient = total / per;
  return std::isfinite(quotient) ? quotient : 0.0;
}
}  // namespace

void FillCounts(const Model& m, const ClusterEval& e, Counts* c) {
  c->set_gpu_count(e.gpus);
  c->set_server_count(e.servers);
  c->set_rack_count(e.racks);
  c->set_pod_count(e.pods);
  c->set_building_count(e.buildings);
  c->set_servers_per_rack(m.servers_per_rack);
  c->set_pods_per_building(m.pods_per_building);
  c->set_spare_server_count(e.spare_servers);
  c->set_head_node_count(e.head_nodes);
}

void FillPower(const Model& m, const ClusterEval& e, PowerBreakdown* p) {
  using units::InWatts;
  p->set_gpu_power_watts(InWatts(e.gpu_power));
  p->set_server_overhead_power_watts(InWatts(e.server_overhead_power));
  p->set_rack_overhead_power_watts(InWatts(e.rack_overhead_power));
  p->set_network_power_watts(InWatts(e.network_power));
  p->set_it_power_watts(InWatts(e.it_power));
  p->set_facility_power_watts(InWatts(e.facility_power));
  p->set_cooling_and_losses_power_watts(InWatts(e.facility_power - e.it_power));
  p->set_substation_capacity_watts(m.site.has_substation ? InWatts(m.site.substation_capacity)
                                                         : 0.0);
  p->set_pue(units::InFraction(m.site.pue));
  p->set_server_power_watts(InWatts(m.ServerPower()));
  p->set_rack_power_watts(InWatts(D(m.servers_per_rack) * m.ServerPower() + m.rack.overhead));
  p->set_annual_pue(units::InFraction(m.site.annual_pue));
  p->set_storage_power_watts(InWatts(e.storage_power));
  p->set_frontend_network_power_watts(InWatts(e.frontend_power));
  p->set_head_node_power_watts(InWatts(e.head_node_power));
  const double nameplate = InWatts(NameplateItPower(m, e));
  p->set_nameplate_it_power_watts(nameplate);
  p->set_measured_it_power_watts(InWatts(e.measured_it_power));
  p->set_power_oversubscription(PerUnit(nameplate, InWatts(e.it_power)));
  p->set_cooling(m.site.cooling);
  p->set_provisioning_basis(m.site.provisioning);
}

void FillCompute(const Model& m, const ClusterEval& e, ComputePlan* c) {
  c->set_peak_flops_per_second(units::InFlopsPerSecond(e.peak));
  c->set_mfu(units::InFraction(e.mfu));
  c->set_realized_flops_per_second(units::InFlopsPerSecond(e.realized));
  c->set_efficiency_model(m.mfu->Describe());
  if (m.accelerator.has_power_limit) {
    c->set_gpu_power_limit_watts(units::InWatts(m.accelerator.tdp));
    c->set_power_throughput_fraction(units::InFraction(m.accelerator.power_throughput));
  }
}

void FillNetwork(const ClusterEval& e, NetworkPlan* n) {
  n->set_tiers(e.fabric.tiers);
  for (int t = 0; t < e.fabric.tiers; ++t) n->add_switches_per_tier(e.fabric.switches_per_tier[t]);
  n->set_switch_count(e.fabric.switch_count);
  n->set_endpoint_count(e.fabric.endpoint_count);
  n->set_optic_count(e.fabric.optic_count);
  n->set_switch_power_watts(units::InWatts(e.switch_power));
  n->set_optic_power_watts(units::InWatts(e.optic_power));
  n->set_copper_cable_end_count(e.fabric.copper_count);
}

void FillCost(const Model& m, const ClusterEval& e, CostPlan* c) {
  using units::InUsd;
  Capex* capex = c->mutable_capex();
  capex->set_servers_usd(InUsd(e.servers_capex));
  capex->set_racks_usd(InUsd(e.racks_capex));
  capex->set_network_usd(InUsd(e.network_capex));
  capex->set_facility_usd(InUsd(e.facility_capex));
  capex->set_site_fixed_usd(InUsd(e.site_fixed_capex));
  capex->set_total_usd(InUsd(e.capex));
  capex->set_storage_usd(InUsd(e.storage_capex));
  capex->set_frontend_network_usd(InUsd(e.frontend_capex));
  capex->set_head_nodes_usd(InUsd(e.head_nodes_capex));
  // (A horizon of a few seconds makes a rate beyond a double's range: 0, as PerUnit does.)
  const auto finite = [](double v) { return std::isfinite(v) ? v : 0.0; };
  c->set_it_capital_usd_per_year(finite(units::InUsdPerYear(e.it_capital_rate)));
  c->set_facility_capital_usd_per_year(finite(units::InUsdPerYear(e.facility_capital_rate)));
  c->set_capital_usd_per_year(
      finite(units::InUsdPerYear(e.it_capital_rate + e.facility_capital_rate)));
  c->set_capex_usd(InUsd(e.capex));
  c->set_average_facility_power_watts(units::InWatts(e.average_facility_power));
  // A year of the average draw.
  c->set_energy_mwh_per_year(units::InMegawattHours(e.average_facility_power * units::Years(1.0)));
  c->set_energy_usd_per_year(units::InUsdPerYear(e.energy_cost_rate));
  c->set_maintenance_usd_per_year(units::InUsdPerYear(e.maintenance_rate));
  c->set_staff_usd_per_year(units::InUsdPerYear(e.staff_rate));
  c->set_opex_usd_per_year(units::InUsdPerYear(e.opex_rate));
  const double years = units::InYears(m.costs.horizon);
  c->set_horizon_years(years);
  c->set_tco_usd(InUsd(e.tco));
  const double gpu_hours = D(e.gpus) * units::InHours(m.costs.horizon);
  c->set_usd_per_gpu_hour(PerUnit(InUsd(e.tco), gpu_hours));
  const double eflops_years = units::InExaflopsPerSecond(e.realized) * years;
  c->set_usd_per_realized_eflops_year(PerUnit(InUsd(e.tco), eflops_years));
}

ScaleRow ToScaleRow(const Model& m, const ClusterEval& e) {
  ScaleRow row;
  FillCounts(m, e, row.mutable_counts());
  FillCompute(m, e, row.mutable_compute());
  FillPower(m, e, row.mutable_power());
  FillCost(m, e, row.mutable_cost());
  return row;
}

namespace {

// Each binding constraint's words for people: a short label (tables, charts) and the phrase a
// plan's note uses. The one mapping of the enum to words.
struct CapWords {
  BindingConstraint binding;
  const char* label;
  const char* phrase;
};
constexpr CapWords kCapWords[] = {
    {BINDING_CONSTRAINT_NONE, "none", "nothing"},
    {BINDING_CONSTRAINT_FACILITY_POWER, "facility power cap", "the facility power cap"},
    {BINDING_CONSTRAINT_IT_POWER, "IT power cap", "the IT power cap"},
    {BINDING_CONSTRAINT_SUBSTATION, "substation capacity", "the substation's usable capacity"},
    {BINDING_CONSTRAINT_MAX_GPUS, "GPU cap", "the GPU cap (constraints.max_gpus)"},
    {BINDING_CONSTRAINT_BUILDINGS, "building count", "the building count (site.max_buildings)"},
    {BINDING_CONSTRAINT_BUDGET, "budget", "the budget"},
    {BINDING_CONSTRAINT_SIZE_LIMIT, "size limit", "dcplan's size limit of 10^12 GPUs"},
    {BINDING_CONSTRAINT_DIMINISHING_RETURNS, "diminishing returns",
     "diminishing returns: more GPUs would realize no more compute"},
    {BINDING_CONSTRAINT_FABRIC, "scale-out fabric",
     "the scale-out fabric (the deepest fat tree dcplan sizes with this switch radix)"},
};

const CapWords* WordsFor(BindingConstraint b) {
  for (const CapWords& w : kCapWords) {
    if (w.binding == b) return &w;
  }
  return nullptr;
}

const char* CapName(BindingConstraint b) {
  const CapWords* w = WordsFor(b);
  return w != nullptr ? w->phrase : "nothing";
}

}  // namespace

std::string BindingLabel(BindingConstraint b) {
  const CapWords* w = WordsFor(b);
  return w != nullptr ? w->label : "unspecified";
}

Plan ToPlan(const Model& m, const Solution& s) {
  Plan plan;
  ToPlanInto(m, s, &plan);
  return plan;
}

void ToPlanInto(const Model& m, const Solution& s, Plan* out) {
  out->Clear();
  Plan& plan = *out;
  plan.set_schema_version(SCHEMA_VERSION_1);
  plan.set_name(m.name);
  FillCounts(m, s.eval, plan.mutable_counts());
  FillPower(m, s.eval, plan.mutable_power());
  FillCompute(m, s.eval, plan.mutable_compute());
  FillNetwork(s.eval, plan.mutable_network());
  FillCost(m, s.eval, plan.mutable_cost());
  plan.set_binding_constraint(s.binding);

  dcplan::Headroom* h = plan.mutable_headroom();
  const auto& hr = s.headroom;
  if (hr.has_facility_power) h->set_facility_power_watts(units::InWatts(hr.facility_power));
  if (hr.has_it_power) h->set_it_power_watts(units::InWatts(hr.it_power));
  if (hr.has_substation) h->set_substation_watts(units::InWatts(hr.substation));
  if (hr.has_gpus) h->set_gpus(hr.gpus);
  if (hr.has_buildings) h->set_buildings(hr.buildings);
  if (hr.has_budget) h->set_budget_usd(units::InUsd(hr.budget));

  if (s.eval.gpus == 0) {
    plan.add_notes(absl::StrFormat(
        "no GPUs fit: even one server (%d GPUs, %.0f W of IT power, %.0f W at the meter) breaks %s",
        m.server.gpus, units::InWatts(m.ServerPower()),
        units::InWatts(m.ServerPower() * m.site.pue), CapName(s.binding)));
  } else if (s.binding == BINDING_CONSTRAINT_DIMINISHING_RETURNS) {
    // How many GPUs more the caps allow, none of which would add realized compute.
    plan.add_notes(absl::StrFormat(
        "stopped at %d of the %d servers that fit: %s (the %d GPUs more the caps allow would add "
        "none)",
        s.servers, s.largest_feasible_servers, CapName(s.binding),
        (s.largest_feasible_servers - s.servers) * m.server.gpus));
  } else {
    plan.add_notes(absl::StrFormat("bound by %s: one more server (%d GPUs) would break it",
                                   CapName(s.binding), m.server.gpus));
  }
}

}  // namespace dcplan

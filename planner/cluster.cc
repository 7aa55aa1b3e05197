#include "planner/cluster.h"

#include <algorithm>
#include <cmath>

#include "base/numbers.h"

namespace dcplan {
namespace {

inline double D(int64_t v) { return static_cast<double>(v); }

// Hot spares for `servers` training servers: the fraction, rounded up (a product that rounding
// lifts a hair above a whole number, 100 x 0.07, stays that number).
int64_t SpareServers(const Model& m, int64_t servers) {
  const double f = units::InFraction(m.auxiliary.hot_spares);
  if (!(f > 0) || servers <= 0) return 0;
  return static_cast<int64_t>(std::ceil(D(servers) * f * (1.0 - 1e-12)));
}

}  // namespace

namespace {

// IT power of `e`'s devices when each draws the given figure: the one sum behind the nameplate and
// the under-load figures (in EvaluatePower's order of operations).
units::Power ItPowerAt(const Model& m, const ClusterEval& e, units::Power gpu,
                       units::Power server_overhead, units::Power rack_overhead,
                       units::Power switch_power) {
  const int64_t installed_gpus = e.gpus + e.spare_servers * m.server.gpus;
  return (D(installed_gpus) * gpu + D(e.servers) * server_overhead + D(e.racks) * rack_overhead +
          (D(e.fabric.switch_count) * switch_power +
           D(e.fabric.optic_count) * m.network.optic_power)) *
             m.auxiliary.power_factor +
         e.head_node_power;
}

}  // namespace

units::Power NameplateItPower(const Model& m, const ClusterEval& e) {
  return ItPowerAt(m, e, m.accelerator.tdp, m.server.overhead_nameplate, m.rack.overhead_nameplate,
                   m.network.switch_nameplate);
}

units::Power MeasuredItPower(const Model& m, const ClusterEval& e) {
  return ItPowerAt(m, e, m.accelerator.measured, m.server.overhead_measured,
                   m.rack.overhead_measured, m.network.switch_measured);
}

namespace {

// The one place the design-day PUE enters an evaluation.
inline units::Power FacilityPowerOf(const Model& m, units::Power it_power) {
  return it_power * m.site.pue;
}

// EvaluatePower with the training servers the `gpus` (>= 0) fill already counted.
inline void EvaluatePowerIn(const Model& m, int64_t gpus, int64_t training_servers,
                            ClusterEval* out) {
  ClusterEval& e = *out;
  e.gpus = gpus;
  e.spare_servers = m.auxiliary.any ? SpareServers(m, training_servers) : 0;
  e.servers = training_servers + e.spare_servers;
  // Racks and pods straight from the servers: ceil(ceil(a / b) / c) = ceil(a / (b c)), so the
  // divisions run side by side (the products stay far below 2^63 by the validator's limits).
  e.racks = CeilDiv(e.servers, m.servers_per_rack);
  e.pods = CeilDiv(e.servers, m.servers_per_rack * m.racks_per_pod);
  e.buildings = m.pods_per_building > 0 ? CeilDiv(e.pods, m.pods_per_building) : (e.pods > 0);
  e.head_nodes = e.gpus > 0 ? m.auxiliary.head_nodes : 0;  // 0 unless set
  // Spares are installed, cabled and powered like any server.
  const int64_t installed_gpus = e.gpus + e.spare_servers * m.server.gpus;

  const units::Power zero = units::Watts(0.0);
  if (m.network.nics_per_gpu > 0) {
    SizeFabric(m.network.fabric, installed_gpus * m.network.nics_per_gpu, &e.fabric);
    e.switch_power = D(e.fabric.switch_count) * m.network.switch_power;
    e.optic_power = D(e.fabric.optic_count) * m.network.optic_power;
  } else {
    // Cleared in place (only the tiers the last size used can be non-zero), as SizeFabric does.
    FabricSize& f = e.fabric;
    const int old_tiers = std::min(std::max(f.tiers, 0), kMaxFabricTiers);
    for (int t = 0; t < old_tiers; ++t) f.switches_per_tier[t] = 0;
    f.tiers = 0;
    f.switch_count = f.endpoint_count = f.optic_count = f.copper_count = 0;
    f.fits = true;
    e.switch_power = zero;
    e.optic_power = zero;
  }
  e.gpu_power = D(installed_gpus) * m.accelerator.power;
  e.server_overhead_power = D(e.servers) * m.server.overhead;
  e.rack_overhead_power = D(e.racks) * m.rack.overhead;
  e.network_power = e.switch_power + e.optic_power;
  e.compute_it_power =
      e.gpu_power + e.server_overhead_power + e.rack_overhead_power + e.network_power;
  if (m.auxiliary.any) {
    e.storage_power = e.compute_it_power * m.auxiliary.storage_power;
    e.frontend_power = e.compute_it_power * m.auxiliary.frontend_power;
    e.head_node_power = D(e.head_nodes) * m.auxiliary.head_node_power;
    e.it_power = e.compute_it_power + e.storage_power + e.frontend_power + e.head_node_power;
  } else {
    e.storage_power = zero;
    e.frontend_power = zero;
    e.head_node_power = zero;
    e.it_power = e.compute_it_power;
  }
  e.facility_power = FacilityPowerOf(m, e.it_power);
}

}  // namespace

void EvaluatePower(const Model& m, int64_t gpus, ClusterEval* out) {
  if (gpus < 0) gpus = 0;
  EvaluatePowerIn(m, gpus, CeilDiv(gpus, m.server.gpus), out);
}

void EvaluateServersPower(const Model& m, int64_t servers, ClusterEval* out) {
  if (servers < 0) servers = 0;
  EvaluatePowerIn(m, servers * m.server.gpus, servers, out);
}

void CopyPowerPart(const ClusterEval& from, ClusterEval* to) {
  ClusterEval& t = *to;
  t.gpus = from.gpus;
  t.servers = from.servers;
  t.spare_servers = from.spare_servers;
  t.head_nodes = from.head_nodes;
  t.racks = from.racks;
  t.pods = from.pods;
  t.buildings = from.buildings;
  t.fabric = from.fabric;
  t.gpu_power = from.gpu_power;
  t.server_overhead_power = from.server_overhead_power;
  t.rack_overhead_power = from.rack_overhead_power;
  t.switch_power = from.switch_power;
  t.optic_power = from.optic_power;
  t.network_power = from.network_power;
  t.compute_it_power = from.compute_it_power;
  t.storage_power = from.storage_power;
  t.frontend_power = from.frontend_power;
  t.head_node_power = from.head_node_power;
  t.it_power = from.it_power;
  t.facility_power = from.facility_power;
}

void ReevaluateSite(const Model& m, ClusterEval* e) {
  e->facility_power = FacilityPowerOf(m, e->it_power);
  AddCost(m, e);
}

void AddCost(const Model& m, ClusterEval* out) {
  ClusterEval& e = *out;
  // The draw under load: the provisioned power itself when no device has a measured figure of its
  // own, else the same devices at their measured draw.
  e.measured_it_power = m.draw_is_provisioned ? e.it_power : MeasuredItPower(m, e);

  // Capex: whole servers (a partly filled server is bought whole), racks, fabric, storage,
  // frontend, head nodes, facility, site.
  e.servers_capex = D(e.servers) * m.server.price;
  e.racks_capex = D(e.racks) * m.rack.price;
  e.network_capex = D(e.fabric.switch_count) * m.network.switch_price +
                    D(e.fabric.optic_count) * m.network.optic_price +
                    D(e.fabric.copper_count) * m.network.copper_price;
  const units::Money compute_capex = e.servers_capex + e.racks_capex + e.network_capex;
  e.storage_capex = compute_capex * m.auxiliary.storage_price;
  e.frontend_capex = compute_capex * m.auxiliary.frontend_price;
  e.head_nodes_capex = D(e.head_nodes) * m.auxiliary.head_node_price;
  e.it_capex = compute_capex + e.storage_capex + e.frontend_capex + e.head_nodes_capex;
  e.facility_capex = e.it_power * m.costs.facility_per_it_power;
  e.site_fixed_capex = m.costs.site_fixed;
  e.capex = e.servers_capex + e.racks_capex + e.network_capex + e.storage_capex + e.frontend_capex +
            e.head_nodes_capex + e.facility_capex + e.site_fixed_capex;
  const units::Money building = e.facility_capex + e.site_fixed_capex;
  e.it_capital_rate = e.it_capex * m.costs.it_charge_rate;
  e.facility_capital_rate = building * m.costs.facility_charge_rate;

  // Opex: the average draw under load at the meter, at the annual PUE.
  e.average_facility_power = e.measured_it_power * m.costs.average_utilization * m.site.annual_pue;
  e.energy_cost_rate = e.average_facility_power * m.costs.electricity;
  e.maintenance_rate =
      e.it_capex * m.costs.it_maintenance + building * m.costs.facility_maintenance;
  e.staff_rate = m.costs.staff;
  e.opex_rate = e.energy_cost_rate + e.maintenance_rate + e.staff_rate;
  // Capital over the horizon: each class's annuity for horizon years (exactly its capex when the
  // horizon is its life at no cost of capital).
  const units::Money capital =
      m.costs.capital_is_capex
          ? e.capex
          : e.it_capex * m.costs.it_horizon_share + building * m.costs.facility_horizon_share;
  e.tco = capital + e.opex_rate * m.costs.horizon;
}

ClusterEval EvaluateForCaps(const Model& m, int64_t gpus) {
  ClusterEval e;
  EvaluatePower(m, gpus, &e);
  AddCost(m, &e);
  return e;
}

void AddCompute(const Model& m, ClusterEval* e) {
  e->peak = D(e->gpus) * m.accelerator.peak;
  e->mfu = m.mfu->MfuAt(e->gpus);
  e->realized = e->peak * e->mfu;
}

ClusterEval EvaluateCluster(const Model& m, int64_t gpus) {
  ClusterEval e = EvaluateForCaps(m, gpus);
  AddCompute(m, &e);
  return e;
}

}  // namespace dcplan

#include "planner/cluster.h"

#include "base/numbers.h"

namespace dcplan {
namespace {

inline double D(int64_t v) { return static_cast<double>(v); }

}  // namespace

void EvaluatePower(const Model& m, int64_t gpus, ClusterEval* out) {
  ClusterEval& e = *out;
  e.gpus = gpus < 0 ? 0 : gpus;
  // ceil(ceil(a / b) / c) = ceil(a / (b c)): each count straight from the GPUs, so the divisions
  // run side by side instead of one after another (the products stay far below 2^63: at most 1024
  // x 4096 x 10^6 by the validator's limits).
  const int64_t per_rack = m.server.gpus * m.servers_per_rack;
  e.servers = CeilDiv(e.gpus, m.server.gpus);
  e.racks = CeilDiv(e.gpus, per_rack);
  e.pods = CeilDiv(e.gpus, per_rack * m.racks_per_pod);
  e.buildings = m.pods_per_building > 0 ? CeilDiv(e.pods, m.pods_per_building) : (e.pods > 0);

  const units::Power zero = units::Watts(0.0);
  if (m.network.nics_per_gpu > 0) {
    SizeFatTree(e.gpus * m.network.nics_per_gpu, m.network.radix, m.network.leaf_downlinks,
                &e.fabric);
    e.switch_power = D(e.fabric.switch_count) * m.network.switch_power;
    e.optic_power = D(e.fabric.optic_count) * m.network.optic_power;
  } else {
    e.fabric = FabricSize{};
    e.switch_power = zero;
    e.optic_power = zero;
  }
  e.gpu_power = D(e.gpus) * m.accelerator.power;
  e.server_overhead_power = D(e.servers) * m.server.overhead;
  e.rack_overhead_power = D(e.racks) * m.rack.overhead;
  e.network_power = e.switch_power + e.optic_power;
  e.it_power = e.gpu_power + e.server_overhead_power + e.rack_overhead_power + e.network_power;
  e.facility_power = e.it_power * m.site.pue;
}

void AddCost(const Model& m, ClusterEval* out) {
  ClusterEval& e = *out;
  // Capex: whole servers (a partly filled server is bought whole), racks, fabric, facility, site.
  e.servers_capex = D(e.servers) * m.server.price;
  e.racks_capex = D(e.racks) * m.rack.price;
  e.network_capex = D(e.fabric.switch_count) * m.network.switch_price +
                    D(e.fabric.optic_count) * m.network.optic_price;
  e.facility_capex = e.it_power * m.costs.facility_per_it_power;
  e.site_fixed_capex = m.costs.site_fixed;
  e.capex =
      e.servers_capex + e.racks_capex + e.network_capex + e.facility_capex + e.site_fixed_capex;

  // Opex: planners provision for peak IT power and pay for the average draw at the meter.
  e.average_facility_power = e.it_power * m.costs.average_utilization * m.site.pue;
  e.energy_per_year = e.average_facility_power * units::Years(1.0);
  e.energy_cost_per_year = e.energy_per_year * m.costs.electricity;
  e.maintenance_per_year = e.capex * m.costs.maintenance_per_year;
  e.staff_per_year = m.costs.staff * units::Years(1.0);
  e.opex_per_year = e.energy_cost_per_year + e.maintenance_per_year + e.staff_per_year;
  e.tco = e.capex + e.opex_per_year * units::InYears(m.costs.horizon);
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

#include "planner/cluster.h"

namespace dcplan {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return a <= 0 ? 0 : (a - 1) / b + 1; }

inline double D(int64_t v) { return static_cast<double>(v); }

}  // namespace

ClusterEval EvaluateForCaps(const Model& m, int64_t gpus) {
  ClusterEval e;
  e.gpus = gpus < 0 ? 0 : gpus;
  e.servers = CeilDiv(e.gpus, m.server.gpus);
  e.racks = CeilDiv(e.servers, m.servers_per_rack);
  e.pods = CeilDiv(e.racks, m.racks_per_pod);
  e.buildings = m.pods_per_building > 0 ? CeilDiv(e.pods, m.pods_per_building) : (e.pods > 0);

  if (m.network.nics_per_gpu > 0) {
    e.fabric = SizeFatTree(e.gpus * m.network.nics_per_gpu, m.network.radix,
                           m.network.leaf_downlinks);
  }
  const units::Power zero = units::Watts(0.0);
  e.gpu_power = D(e.gpus) * m.accelerator.power;
  e.server_overhead_power = D(e.servers) * m.server.overhead;
  e.rack_overhead_power = D(e.racks) * m.rack.overhead;
  e.switch_power = m.network.nics_per_gpu > 0 ? D(e.fabric.switch_count) * m.network.switch_power
                                              : zero;
  e.optic_power =
      m.network.nics_per_gpu > 0 ? D(e.fabric.optic_count) * m.network.optic_power : zero;
  e.network_power = e.switch_power + e.optic_power;
  e.it_power = e.gpu_power + e.server_overhead_power + e.rack_overhead_power + e.network_power;
  e.facility_power = e.it_power * m.site.pue;

  // Capex: whole servers (a partly filled server is bought whole), racks, fabric, facility, site.
  e.servers_capex = D(e.servers) * m.server.price;
  e.racks_capex = D(e.racks) * m.rack.price;
  e.network_capex = D(e.fabric.switch_count) * m.network.switch_price +
                    D(e.fabric.optic_count) * m.network.optic_price;
  e.facility_capex = e.it_power * m.costs.facility_per_it_power;
  e.site_fixed_capex = m.costs.site_fixed;
  e.capex = e.servers_capex + e.racks_capex + e.network_capex + e.facility_capex +
            e.site_fixed_capex;

  // Opex: planners provision for peak IT power and pay for the average draw at the meter.
  e.average_facility_power = e.it_power * m.costs.average_utilization * m.site.pue;
  e.energy_per_year = e.average_facility_power * units::Years(1.0);
  e.energy_cost_per_year = e.energy_per_year * m.costs.electricity;
  e.maintenance_per_year = e.capex * m.costs.maintenance_per_year;
  e.staff_per_year = m.costs.staff * units::Years(1.0);
  e.opex_per_year = e.energy_cost_per_year + e.maintenance_per_year + e.staff_per_year;
  e.tco = e.capex + e.opex_per_year * units::InYears(m.costs.horizon);
  return e;
}

ClusterEval EvaluateCluster(const Model& m, int64_t gpus) {
  ClusterEval e = EvaluateForCaps(m, gpus);
  e.peak = D(e.gpus) * m.accelerator.peak;
  e.mfu = m.mfu->MfuAt(e.gpus);
  e.realized = e.peak * e.mfu;
  return e;
}

}  // namespace dcplan

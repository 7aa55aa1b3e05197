#include "planner/model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "planner/defaults.h"
#include "planner/fabric.h"
#include "planner/reference_mfu.h"
#include "planner/validate.h"
#include "planner/workload/power_limit.h"
#include "planner/workload_mfu.h"

namespace dcplan {
namespace {

using units::Fraction;
using units::Power;

using defaults::kAverageUtilization;
using defaults::kHorizonYears;
using defaults::kPowerFactor;

// The most whole units, at most `most`, that fit under `limit` when each adds `unit` on top of
// `fixed`: the largest n with n x unit + fixed <= limit. The floor of the quotient alone can be one
// off either way in floating point (so a rack limit of exactly one server plus the overhead, which
// the validator accepts, could hold none), and a tiny unit makes it too large for int64; so it is
// capped first and then settled by that very comparison.
int64_t MostThatFit(Power limit, Power fixed, Power unit, int64_t most) {
  double n = std::floor(units::InFraction((limit - fixed) / unit));
  if (!(n < static_cast<double>(most))) n = static_cast<double>(most);  // also NaN
  int64_t k = n > 0 ? static_cast<int64_t>(n) : 0;
  while (k > 0 && static_cast<double>(k) * unit + fixed > limit) --k;
  while (k < most && static_cast<double>(k + 1) * unit + fixed <= limit) ++k;
  return k;
}

}  // namespace

Power SubstationCapacity(const Substation& s) {
  if (s.transformer_rating_va() <= 0) return units::Watts(0.0);
  const double count = std::max<uint32_t>(s.transformer_count(), 1);
  double usable = count;
  switch (s.redundancy()) {
    case REDUNDANCY_N_PLUS_1:
      usable = count - 1.0;
      break;
    case REDUNDANCY_2N:
      usable = count / 2.0;
      break;
    default:
      break;
  }
  const double pf = s.has_power_factor() ? s.power_factor() : kPowerFactor;
  // Apparent power (VA) x power factor = real power (W).
  return units::Watts(usable * s.transformer_rating_va() * pf);
}

units::Time AnnuityYears(double wacc, double life_years) {
  if (!(wacc > 0)) return units::Years(life_years);
  // 1 - (1 + r)^-n as -expm1(-n log1p(r)): exact to the last bits however short the life.
  return units::Years(-std::expm1(-life_years * std::log1p(wacc)) / wacc);
}

void SetPeakPue(double pue, SiteModel* site) {
  site->pue = Fraction(pue);
  if (!site->has_annual_pue) {
    site->annual_pue = Fraction(defaults::AnnualPue(site->cooling, false, 0.0, pue));
  }
}

absl::Status CheckPowerCapPlace(const Constraints& caps) {
  if (caps.power_cap_at() == POWER_CAP_AT_SUBSTATION && caps.power_cap_watts() > 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "constraints.power_cap_watts is %.15g but constraints.power_cap_at is "
        "POWER_CAP_AT_SUBSTATION, which caps at the substation's rating "
        "(site.substation.transformer_rating_va) and ignores power_cap_watts: set one or the other",
        caps.power_cap_watts()));
  }
  return absl::OkStatus();
}

namespace {

// A device's provisioned power and its draw under training load, from its nameplate and its
// measured figure (0 = the nameplate).
Power Provisioned(const Provisioning& provisioning, double nameplate, double measured) {
  return units::Watts(defaults::ProvisionedWatts(nameplate, measured, provisioning));
}
Power UnderLoad(double nameplate, double measured) {
  return units::Watts(defaults::MeasuredWatts(nameplate, measured));
}

}  // namespace

AcceleratorModel BuildAcceleratorModel(const Accelerator& acc, const Provisioning& provisioning) {
  AcceleratorModel out;
  // Under a power limit L (planner/workload/power_limit.h) the board cannot draw more than L: L is
  // its nameplate, min(measured, L) its draw, and the peak the curve's share of the rated one.
  const double limit = units::InWatts(EffectivePowerLimit(acc));
  const double measured =
      acc.measured_power_watts() > 0 ? std::min(acc.measured_power_watts(), limit) : 0.0;
  out.power_throughput = PowerThroughputFraction(acc);
  out.peak = units::FlopsPerSecond(acc.peak_flops_per_second()) * out.power_throughput;
  out.has_power_limit = HasPowerLimit(acc);
  out.tdp = units::Watts(limit);
  out.power = Provisioned(provisioning, limit, measured);
  out.measured = UnderLoad(limit, measured);
  out.hbm = units::Bytes(acc.hbm_bytes());
  out.hbm_bandwidth = units::BytesPerSecond(acc.hbm_bandwidth_bytes_per_second());
  out.price = units::Usd(acc.price_usd());
  return out;
}

ServerModel BuildServerModel(const Server& srv, const AcceleratorModel& accelerator,
                             const Provisioning& provisioning) {
  ServerModel out;
  out.gpus = srv.gpus_per_server();
  out.overhead = Provisioned(provisioning, srv.overhead_watts(), srv.measured_overhead_watts());
  out.overhead_nameplate = units::Watts(srv.overhead_watts());
  out.overhead_measured = UnderLoad(srv.overhead_watts(), srv.measured_overhead_watts());
  out.price = srv.price_usd() > 0 ? units::Usd(srv.price_usd())
                                  : static_cast<double>(out.gpus) * accelerator.price +
                                        units::Usd(srv.non_gpu_price_usd());
  return out;
}

RackModel BuildRackModel(const Rack& rack, const Provisioning& provisioning) {
  RackModel out;
  out.max_servers = std::max<uint32_t>(rack.max_servers_per_rack(), 1);
  out.has_power_limit = rack.power_limit_watts() > 0;
  out.power_limit = units::Watts(rack.power_limit_watts());
  out.overhead = Provisioned(provisioning, rack.overhead_watts(), rack.measured_overhead_watts());
  out.overhead_nameplate = units::Watts(rack.overhead_watts());
  out.overhead_measured = UnderLoad(rack.overhead_watts(), rack.measured_overhead_watts());
  out.price = units::Usd(rack.price_usd());
  return out;
}

absl::StatusOr<NetworkModel> BuildNetworkModel(const Network& net, const ServerModel& server,
                                               const Provisioning& provisioning) {
  NetworkModel out;
  out.nics_per_gpu = net.nics_per_gpu();
  out.radix = net.switch_radix();
  const double oversub = net.has_leaf_oversubscription() ? net.leaf_oversubscription()
                                                         : defaults::kLeafOversubscription;
  // A leaf of radix k with oversubscription o = down/up gives down = k o / (1 + o) ports to
  // endpoints.
  out.leaf_downlinks = DownlinksAt(net.switch_radix(), oversub);
  out.scale_up_domain_gpus =
      net.scale_up_domain_gpus() > 0 ? net.scale_up_domain_gpus() : server.gpus;
  out.scale_up_bandwidth = units::BytesPerSecond(net.scale_up_bandwidth_bytes_per_second());
  out.port_rate = units::BitsPerSecond(net.port_bits_per_second());
  out.switch_power =
      Provisioned(provisioning, net.switch_power_watts(), net.switch_measured_power_watts());
  out.switch_nameplate = units::Watts(net.switch_power_watts());
  out.switch_measured = UnderLoad(net.switch_power_watts(), net.switch_measured_power_watts());
  out.copper_price = units::Usd(net.copper_cable_end_price_usd());
  out.switch_price = units::Usd(net.switch_price_usd());
  out.optic_power = units::Watts(net.optic_power_watts());
  out.optic_price = units::Usd(net.optic_price_usd());
  if (out.nics_per_gpu > 0 && (out.leaf_downlinks < 1 || out.leaf_downlinks >= out.radix)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("hardware.network.leaf_oversubscription %.15g leaves a radix-%d leaf with "
                        "%d downlinks and %d "
                        "uplinks; both must be at least 1",
                        oversub, out.radix, out.leaf_downlinks, out.radix - out.leaf_downlinks));
  }

  // Tiers above the leaf: their oversubscription, full bisection past the list.
  out.fabric = FatTreeSpec(out.radix, out.leaf_downlinks);
  for (int i = 0; i < net.upper_tier_oversubscription_size(); ++i) {
    const int64_t down = DownlinksAt(out.radix, net.upper_tier_oversubscription(i));
    if (out.nics_per_gpu > 0 && (down < 1 || down >= out.radix)) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "hardware.network.upper_tier_oversubscription[%d] %.15g leaves a radix-%d switch with %d "
          "downlinks and %d uplinks; both must be at least 1",
          i, net.upper_tier_oversubscription(i), out.radix, down, out.radix - down));
    }
    out.fabric.downlinks[i + 1] = down;
  }
  out.fabric.layout = net.rail_optimized() ? LeafLayout::kRailOptimized
                      : net.leaf_placement() == LEAF_PLACEMENT_TOP_OF_RACK ? LeafLayout::kTopOfRack
                                                                           : LeafLayout::kPacked;
  out.fabric.ports_per_server = server.gpus * std::max<int64_t>(out.nics_per_gpu, 1);
  return out;
}

AuxiliaryModel BuildAuxiliaryModel(const AuxiliaryLoads& aux) {
  AuxiliaryModel out;
  out.storage_power = Fraction(aux.storage_power_fraction());
  out.storage_price = Fraction(aux.storage_price_fraction());
  out.frontend_power = Fraction(aux.frontend_network_power_fraction());
  out.frontend_price = Fraction(aux.frontend_network_price_fraction());
  out.head_nodes = aux.head_nodes();
  out.head_node_power = units::Watts(aux.head_node_power_watts());
  out.head_node_price = units::Usd(aux.head_node_price_usd());
  out.hot_spares = Fraction(aux.hot_spare_fraction());
  out.power_factor = 1.0 + out.storage_power + out.frontend_power;
  out.any = aux.storage_power_fraction() > 0 || aux.storage_price_fraction() > 0 ||
            aux.frontend_network_power_fraction() > 0 ||
            aux.frontend_network_price_fraction() > 0 || aux.head_nodes() > 0 ||
            aux.hot_spare_fraction() > 0;
  return out;
}

absl::StatusOr<SiteModel> BuildSiteModel(const Site& site) {
  SiteModel out;
  const Provisioning& provisioning = site.provisioning();
  out.cooling = site.cooling() == COOLING_UNSPECIFIED ? COOLING_UNSPECIFIED : site.cooling();
  out.has_annual_pue = site.has_annual_pue();
  out.annual_pue = Fraction(site.annual_pue());
  SetPeakPue(defaults::PeakPue(site), &out);
  out.provisioning = provisioning.basis() == PROVISIONING_BASIS_MEASURED
                         ? PROVISIONING_BASIS_MEASURED
                         : PROVISIONING_BASIS_NAMEPLATE;
  out.has_building_limit = site.building().critical_it_power_watts() > 0;
  out.building_it_power = units::Watts(site.building().critical_it_power_watts());
  out.max_buildings = site.max_buildings();
  out.substation_capacity = SubstationCapacity(site.substation());
  out.has_substation = site.substation().transformer_rating_va() > 0;
  if (out.has_substation && out.substation_capacity <= units::Watts(0.0)) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "site.substation: %d transformer(s) under %s redundancy leave no usable capacity",
        site.substation().transformer_count(), Redundancy_Name(site.substation().redundancy())));
  }
  return out;
}

CostModel BuildCostModel(const Costs& costs, Cooling cooling) {
  CostModel out;
  out.facility_per_it_power = units::UsdPerWatt(defaults::FacilityUsdPerItWatt(costs, cooling));
  out.site_fixed = units::Usd(costs.site_fixed_usd());
  out.electricity = units::UsdPerKilowattHour(costs.electricity_usd_per_kwh());
  out.average_utilization =
      Fraction(costs.has_average_utilization() ? costs.average_utilization() : kAverageUtilization);
  const double maintenance = costs.maintenance_fraction_per_year();
  out.it_maintenance = units::FractionPerYear(costs.has_it_maintenance_fraction_per_year()
                                                  ? costs.it_maintenance_fraction_per_year()
                                                  : maintenance);
  out.facility_maintenance =
      units::FractionPerYear(costs.has_facility_maintenance_fraction_per_year()
                                 ? costs.facility_maintenance_fraction_per_year()
                                 : maintenance);
  out.staff = units::UsdPerYear(costs.staff_usd_per_year());
  const double horizon = costs.has_horizon_years() ? costs.horizon_years() : kHorizonYears;
  out.horizon = units::Years(horizon);
  const double wacc = costs.has_wacc() ? costs.wacc() : defaults::kWacc;
  out.wacc = Fraction(wacc);
  out.it_annuity = AnnuityYears(wacc, costs.has_it_life_years() ? costs.it_life_years() : horizon);
  out.facility_annuity =
      AnnuityYears(wacc, costs.has_facility_life_years() ? costs.facility_life_years() : horizon);
  out.it_horizon_share = out.horizon / out.it_annuity;
  out.facility_horizon_share = out.horizon / out.facility_annuity;
  out.it_charge_rate = 1.0 / out.it_annuity;
  out.facility_charge_rate = 1.0 / out.facility_annuity;
  out.capital_is_capex = out.it_annuity == out.horizon && out.facility_annuity == out.horizon;
  return out;
}

absl::StatusOr<CapsModel> BuildCapsModel(const Constraints& caps, const SiteModel& site) {
  CapsModel out;
  out.power_cap_at =
      caps.power_cap_at() == POWER_CAP_AT_UNSPECIFIED ? POWER_CAP_AT_FACILITY : caps.power_cap_at();
  if (out.power_cap_at == POWER_CAP_AT_SUBSTATION) {
    if (!site.has_substation) {
      return absl::FailedPreconditionError(
          "constraints.power_cap_at is POWER_CAP_AT_SUBSTATION but site.substation has no "
          "transformer_rating_va");
    }
    DCPLAN_RETURN_IF_ERROR(CheckPowerCapPlace(caps));
    out.has_power_cap = true;
    out.power_cap = site.substation_capacity;
  } else {
    out.has_power_cap = caps.power_cap_watts() > 0;
    out.power_cap = units::Watts(caps.power_cap_watts());
  }
  out.max_gpus = static_cast<int64_t>(caps.max_gpus());
  out.has_budget = caps.budget_usd() > 0;
  out.budget = units::Usd(caps.budget_usd());
  out.budget_on = caps.budget_on() == BUDGET_ON_UNSPECIFIED ? BUDGET_ON_CAPEX : caps.budget_on();
  out.objective = caps.objective() == OBJECTIVE_UNSPECIFIED ? OBJECTIVE_MAX_GPUS : caps.objective();
  return out;
}

absl::StatusOr<Model> BuildModel(const PlanRequest& request) {
  DCPLAN_RETURN_IF_ERROR(ValidateRequest(request));
  return BuildValidatedModel(request);
}

absl::StatusOr<Model> BuildValidatedModel(const PlanRequest& request) {
  Model m;
  DCPLAN_RETURN_IF_ERROR(RebuildModel(request, kRequestAll, &m));
  return m;
}

absl::Status RebuildModel(const PlanRequest& request, unsigned sections, Model* model) {
  Model& m = *model;
  auto reads = [sections](unsigned parts) { return (sections & parts) != 0; };
  if (reads(kRequestRest)) m.name = request.name();
  const Provisioning& provisioning = request.site().provisioning();
  const Hardware& hw = request.hardware();
  // The hardware's parts read the site's provisioning; a server reads its accelerator's figures and
  // the network the server's: each part is built again when what it reads moved.
  const bool hardware = reads(kRequestHardware | kRequestSite);
  const bool accelerator = reads(kRequestAccelerator | kRequestSite);
  const bool server = accelerator || reads(kRequestServer);
  const bool network = server || reads(kRequestNetwork);
  if (hardware) {
    if (accelerator) m.accelerator = BuildAcceleratorModel(hw.accelerator(), provisioning);
    if (server) m.server = BuildServerModel(hw.server(), m.accelerator, provisioning);
    if (reads(kRequestRack | kRequestSite)) m.rack = BuildRackModel(hw.rack(), provisioning);
    m.racks_per_pod = std::max<uint32_t>(hw.pod().racks_per_pod(), 1);
    if (network) {
      DCPLAN_ASSIGN_OR_RETURN(m.network, BuildNetworkModel(hw.network(), m.server, provisioning));
    }
    m.auxiliary = BuildAuxiliaryModel(hw.auxiliary());
    m.draw_is_provisioned = m.accelerator.measured == m.accelerator.power &&
                            m.server.overhead_measured == m.server.overhead &&
                            m.rack.overhead_measured == m.rack.overhead &&
                            m.network.switch_measured == m.network.switch_power;
  }
  if (reads(kRequestSite)) {
    DCPLAN_ASSIGN_OR_RETURN(m.site, BuildSiteModel(request.site()));
  }
  if (reads(kRequestCosts | kRequestSite)) {
    m.costs = BuildCostModel(request.costs(), request.site().cooling());
  }
  if (reads(kRequestConstraints | kRequestSite)) {
    DCPLAN_ASSIGN_OR_RETURN(m.caps, BuildCapsModel(request.constraints(), m.site));
  }

  // The efficiency model: a workload's and a reference workload's read the hardware too.
  const bool on_hardware = request.has_workload() || request.efficiency().has_reference_workload();
  if (reads(kRequestWorkload | kRequestEfficiency) || (on_hardware && reads(kRequestHardware))) {
    m.workload = nullptr;
    m.reference = nullptr;
    m.training_hardware = TrainingHardware();
    if (request.has_workload()) {
      // Only a workload's step model reads it (a reference workload's table builds its own).
      m.training_hardware = BuildTrainingHardware(request.hardware());
      DCPLAN_ASSIGN_OR_RETURN(WorkloadModel workload, BuildWorkloadModel(request.workload()));
      m.workload = std::make_shared<const WorkloadModel>(std::move(workload));
      m.mfu = std::make_shared<const WorkloadMfuModel>(*m.workload, m.training_hardware);
    } else if (request.efficiency().has_reference_workload()) {
      DCPLAN_ASSIGN_OR_RETURN(
          m.reference, ReferenceMfu(request.efficiency().reference_workload(), request.hardware()));
      m.mfu = m.reference;
    } else {
      DCPLAN_ASSIGN_OR_RETURN(m.mfu, MakeMfuModel(request.efficiency()));
    }
    m.realized_candidates = m.mfu->RealizedComputeCandidates();
  }
  if (!hardware) return absl::OkStatus();

  // Servers per rack: space, and the rack's power limit (servers plus the rack's own overhead).
  m.servers_per_rack = m.rack.max_servers;
  const Power server_power = m.ServerPower();
  if (m.rack.has_power_limit) {
    const int64_t by_power =
        MostThatFit(m.rack.power_limit, m.rack.overhead, server_power, m.servers_per_rack);
    if (by_power < 1) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "hardware.rack.power_limit_watts %.15g holds no server: one server draws %.15g W and the "
          "rack's "
          "overhead is %.15g W",
          hw.rack().power_limit_watts(), units::InWatts(server_power), hw.rack().overhead_watts()));
    }
    m.servers_per_rack = by_power;
  }

  m.network.fabric.ports_per_rack = m.servers_per_rack * m.network.fabric.ports_per_server;

  // A full pod's IT power: its racks, plus the fabric a pod of that size needs on its own (its leaf
  // and spine switches, which sit in the pod's building), plus its share of storage and the
  // frontend network.
  const int64_t pod_gpus = m.racks_per_pod * m.servers_per_rack * m.server.gpus;
  Power pod_network = units::Watts(0.0);
  if (m.network.nics_per_gpu > 0) {
    FabricSize f;
    SizeFabric(m.network.fabric, pod_gpus * m.network.nics_per_gpu, &f);
    pod_network = static_cast<double>(f.switch_count) * m.network.switch_power +
                  static_cast<double>(f.optic_count) * m.network.optic_power;
  }
  m.pod_it_power = (static_cast<double>(m.racks_per_pod) *
                        (static_cast<double>(m.servers_per_rack) * server_power + m.rack.overhead) +
                    pod_network) *
                   (1.0 + m.auxiliary.storage_power + m.auxiliary.frontend_power);
  m.pods_per_building = 0;
  if (m.site.has_building_limit) {
    // More than kMaxGpus pods per building is no limit at all.
    const int64_t pods = MostThatFit(m.site.building_it_power, units::Watts(0.0), m.pod_it_power,
                                     static_cast<int64_t>(limits::kMaxGpus));
    if (pods < 1) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "site.building.critical_it_power_watts %.15g cannot hold one pod, which draws %.15g W "
          "(hardware.pod.racks_per_pod %d racks of %d servers)",
          request.site().building().critical_it_power_watts(), units::InWatts(m.pod_it_power),
          m.racks_per_pod, m.servers_per_rack));
    }
    m.pods_per_building = pods;
  }
  return absl::OkStatus();
}

}  // namespace dcplan

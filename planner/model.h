// File: planner/model.h
//
// The typed model of a data center: a validated PlanRequest with every number turned into a
// Boost.Units quantity and every default applied. It is the one place where proto doubles become
// units (BuildModel), so the rest of the planner never touches a raw number or a proto.
//
// A Model is a small value (copy it freely; the efficiency model is shared and immutable) and holds
// the figures that do not depend on the cluster's size, derived once: servers per rack under the
// rack's space AND power limits, pods per building under the building's critical IT power, the
// substation's usable capacity.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));   // validates first
//   units::Power one_server = model.ServerPower();                 // 10.2 kW for h100-dgx
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/fabric.h"
#include "planner/mfu_model.h"
#include "planner/reference_mfu.h"
#include "planner/workload/workload_model.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

// Every device's power comes three ways: `power` as provisioned (site.provisioning), its nameplate,
// and its measured draw under training load (the energy bill's basis).
struct AcceleratorModel {
  units::ComputeRate peak;  // dense peak at the training precision, under the power limit
  units::Power power;       // provisioned
  units::Power tdp;         // nameplate: the power limit when one is set
  bool has_power_limit = false;
  units::Ratio power_throughput;  // the power curve's share of the rated peak (1 without a limit)
  units::Power measured;          // under training load (the TDP when not given)
  units::Data hbm;
  units::DataRate hbm_bandwidth;
  units::Money price;
};

struct ServerModel {
  int64_t gpus = 1;
  units::Power overhead;  // everything but the accelerators, provisioned
  units::Power overhead_nameplate;
  units::Power overhead_measured;
  units::Money price;  // whole server, accelerators included
};

struct RackModel {
  int64_t max_servers = 1;
  bool has_power_limit = false;
  units::Power power_limit;
  units::Power overhead;  // provisioned
  units::Power overhead_nameplate;
  units::Power overhead_measured;
  units::Money price;
};

struct NetworkModel {
  int64_t nics_per_gpu = 0;  // 0 = no scale-out fabric
  int64_t radix = 0;
  int64_t leaf_downlinks = 0;  // ports of a leaf facing the endpoints
  int64_t scale_up_domain_gpus = 1;
  units::DataRate scale_up_bandwidth;
  units::DataRate port_rate;
  units::Power switch_power;  // provisioned
  units::Power switch_nameplate;
  units::Power switch_measured;
  units::Money switch_price;
  units::Power optic_power;
  units::Money optic_price;
  units::Money copper_price;  // one copper cable end
  FabricSpec fabric;          // radix, downlinks per tier, leaf layout
};

// hardware.auxiliary: loads beyond the GPU servers and their fabric.
struct AuxiliaryModel {
  units::Ratio storage_power;  // per watt of compute IT power
  units::Ratio storage_price;  // per USD of compute hardware
  units::Ratio frontend_power;
  units::Ratio frontend_price;
  int64_t head_nodes = 0;
  units::Power head_node_power;
  units::Money head_node_price;
  units::Ratio hot_spares;  // spare servers per training server
  // Derived: whether any of the above is set, and 1 + the two power fractions.
  bool any = false;
  units::Ratio power_factor;
};

struct SiteModel {
  units::Ratio pue;         // design-day peak: sizes the facility
  units::Ratio annual_pue;  // annual average: the energy bill
  Cooling cooling = COOLING_UNSPECIFIED;
  bool has_annual_pue = false;  // site.annual_pue given (else derived from cooling and pue)
  ProvisioningBasis provisioning = PROVISIONING_BASIS_NAMEPLATE;
  bool has_building_limit = false;
  units::Power building_it_power;
  int64_t max_buildings = 0;  // 0 = unlimited
  bool has_substation = false;
  units::Power substation_capacity;  // usable real power after power factor and redundancy
};

struct CostModel {
  units::MoneyPerPower facility_per_it_power;
  units::Money site_fixed;
  units::MoneyPerEnergy electricity;
  units::Ratio average_utilization;
  units::PerTime it_maintenance;        // share of the IT capex a year
  units::PerTime facility_maintenance;  // share of the facility and site capex a year
  units::MoneyPerTime staff;
  units::Time horizon;
  // Capital is charged as an annuity: capex / annuity a year, where the annuity is
  // (1 - (1 + wacc)^-life) / wacc years (the life itself at wacc 0).
  units::Ratio wacc;
  units::Time it_annuity;
  units::Time facility_annuity;
  // Derived: the share of each class's capex charged a year (1 / annuity), and whether both
  // annuities are the horizon itself (TCO's capital is then the capex).
  units::PerTime it_charge_rate;
  units::PerTime facility_charge_rate;
  // The share of each class's capex a horizon is charged: horizon / annuity.
  units::Ratio it_horizon_share;
  units::Ratio facility_horizon_share;
  bool capital_is_capex = true;
};

struct CapsModel {
  bool has_power_cap = false;
  units::Power power_cap;
  PowerCapAt power_cap_at = POWER_CAP_AT_FACILITY;
  int64_t max_gpus = 0;  // 0 = none
  bool has_budget = false;
  units::Money budget;
  BudgetOn budget_on = BUDGET_ON_CAPEX;
  Objective objective = OBJECTIVE_MAX_GPUS;
};

struct Model {
  std::string name;
  AcceleratorModel accelerator;
  ServerModel server;
  RackModel rack;
  int64_t racks_per_pod = 1;
  NetworkModel network;
  AuxiliaryModel auxiliary;
  SiteModel site;
  CostModel costs;
  CapsModel caps;
  std::shared_ptr<const MfuModel> mfu;
  // The training job (PlanRequest.workload), or null; when set, `mfu` is its WorkloadMfuModel.
  std::shared_ptr<const WorkloadModel> workload;
  // The reference job (efficiency.reference_workload), or null; when set, `mfu` is it.
  std::shared_ptr<const ReferenceMfuModel> reference;
  // The hardware as the workload model sees it (peak, HBM, scale-up and scale-out bandwidth,
  // hardware.calibration with defaults applied); built only with a workload (PlanTraining reads
  // it).
  TrainingHardware training_hardware;

  // Derived once in BuildModel.
  // Every device's draw under load is its provisioned power (no measured figure differs from what
  // is provisioned): the draw under load is then the provisioned IT power itself.
  bool draw_is_provisioned = true;
  int64_t servers_per_rack = 1;   // the tighter of space and power
  int64_t pods_per_building = 0;  // 0 = unlimited
  units::Power pod_it_power;      // IT power of one full pod, network share included
  // GPU counts where realized compute may peak (MfuModel::RealizedComputeCandidates), kept here so
  // that solving never allocates.
  std::vector<double> realized_candidates;

  // IT power of one full server as provisioned: its accelerators plus its overhead.
  units::Power ServerPower() const {
    return static_cast<double>(server.gpus) * accelerator.power + server.overhead;
  }
  // The same under training load.
  units::Power ServerMeasuredPower() const {
    return static_cast<double>(server.gpus) * accelerator.measured + server.overhead_measured;
  }
};

// The years over which an annuity at `wacc` a year repays its capital in `life` years:
// (1 - (1 + wacc)^-life) / wacc, or `life` at wacc 0.
units::Time AnnuityYears(double wacc, double life_years);

// Sets the design-day PUE to `pue` and the annual PUE as BuildModel derives it (for sweeps, which
// patch the PUE without rebuilding the model).
void SetPeakPue(double pue, SiteModel* site);

// Usable real power of a substation: transformers x rating x power factor, less the transformers
// the redundancy scheme holds back (N: none; N+1: one; 2N: half).
units::Power SubstationCapacity(const Substation& substation);

// The builders BuildModel runs, one per message, each on a validated message (the sweep's fast
// path re-runs the one whose field it patches). They apply the schema's defaults and turn numbers
// into quantities; the network, the site and the caps can fail when their parts do not fit
// together (FailedPrecondition naming the fields).
AcceleratorModel BuildAcceleratorModel(const Accelerator& accelerator,
                                       const Provisioning& provisioning);
ServerModel BuildServerModel(const Server& server, const AcceleratorModel& accelerator,
                             const Provisioning& provisioning);
RackModel BuildRackModel(const Rack& rack, const Provisioning& provisioning);
absl::StatusOr<NetworkModel> BuildNetworkModel(const Network& network, const ServerModel& server,
                                               const Provisioning& provisioning);
AuxiliaryModel BuildAuxiliaryModel(const AuxiliaryLoads& auxiliary);
absl::StatusOr<SiteModel> BuildSiteModel(const Site& site);
// The costs of a site cooled as `cooling`: a direct-liquid-cooled site pays
// costs.liquid_cooling_premium_usd_per_it_watt on top of facility_usd_per_it_watt.
CostModel BuildCostModel(const Costs& costs, Cooling cooling);
absl::StatusOr<CapsModel> BuildCapsModel(const Constraints& constraints, const SiteModel& site);

// Validates `request` (planner/validate.h), then builds the typed model. Fails, naming the fields,
// when the request is invalid or its parts cannot fit together (a rack that holds no server under
// its power limit, a building that cannot hold one pod).
absl::StatusOr<Model> BuildModel(const PlanRequest& request);

// BuildModel without the validation, for a request known to pass it (the ledger's moves check
// only the sections they change, planner/validate.h ValidAfterMove). An invalid request here is a
// caller's bug: the model may then hold anything.
absl::StatusOr<Model> BuildValidatedModel(const PlanRequest& request);

// Builds again the parts of `model` that read the request sections in `sections` (RequestSection
// bits, planner/validate.h), from `request`: `model` must have been built (BuildValidatedModel)
// from a request that differs from `request` only in those sections, and `request` must pass
// ValidateRequest. The result is the model BuildValidatedModel(request) builds (model_test checks
// it on every preset's moves); a move of a price rebuilds only the costs, a move of a hardware
// figure everything but the site, costs, caps and a constant efficiency model.
absl::Status RebuildModel(const PlanRequest& request, unsigned sections, Model* model);

// One of BuildModel's checks that the parts fit together, for callers that patch a model instead
// of rebuilding it (sweeps): a power cap in watts is meaningless when the cap is measured at the
// substation (whose rating is then the cap). FailedPrecondition naming both fields.
absl::Status CheckPowerCapPlace(const Constraints& caps);

}  // namespace dcplan

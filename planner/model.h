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
#include "planner/mfu_model.h"
#include "planner/workload/workload_model.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

struct AcceleratorModel {
  units::ComputeRate peak;  // dense peak at the training precision
  units::Power power;       // provisioned draw: measured average if given, else TDP
  units::Power tdp;
  units::Data hbm;
  units::DataRate hbm_bandwidth;
  units::Money price;
};

struct ServerModel {
  int64_t gpus = 1;
  units::Power overhead;  // everything but the accelerators
  units::Money price;     // whole server, accelerators included
};

struct RackModel {
  int64_t max_servers = 1;
  bool has_power_limit = false;
  units::Power power_limit;
  units::Power overhead;
  units::Money price;
};

struct NetworkModel {
  int64_t nics_per_gpu = 0;  // 0 = no scale-out fabric
  int64_t radix = 0;
  int64_t leaf_downlinks = 0;  // ports of a leaf facing the endpoints
  int64_t scale_up_domain_gpus = 1;
  units::DataRate scale_up_bandwidth;
  units::DataRate port_rate;
  units::Power switch_power;
  units::Money switch_price;
  units::Power optic_power;
  units::Money optic_price;
};

struct SiteModel {
  units::Ratio pue;
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
  units::Ratio maintenance_per_year;  // fraction of capex each year
  units::MoneyPerTime staff;
  units::Time horizon;
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
  SiteModel site;
  CostModel costs;
  CapsModel caps;
  std::shared_ptr<const MfuModel> mfu;
  // The training job (PlanRequest.workload), or null; when set, `mfu` is its WorkloadMfuModel.
  std::shared_ptr<const WorkloadModel> workload;
  // The hardware as the workload model sees it (peak, HBM, scale-up and scale-out bandwidth,
  // hardware.calibration with defaults applied).
  TrainingHardware training_hardware;

  // Derived once in BuildModel.
  int64_t servers_per_rack = 1;   // the tighter of space and power
  int64_t pods_per_building = 0;  // 0 = unlimited
  units::Power pod_it_power;      // IT power of one full pod, network share included
  // GPU counts where realized compute may peak (MfuModel::RealizedComputeCandidates), kept here so
  // that solving never allocates.
  std::vector<double> realized_candidates;

  // IT power of one full server: its accelerators plus its overhead.
  units::Power ServerPower() const {
    return static_cast<double>(server.gpus) * accelerator.power + server.overhead;
  }
};

// Usable real power of a substation: transformers x rating x power factor, less the transformers
// the redundancy scheme holds back (N: none; N+1: one; 2N: half).
units::Power SubstationCapacity(const Substation& substation);

// Validates `request` (planner/validate.h), then builds the typed model. Fails, naming the fields,
// when the request is invalid or its parts cannot fit together (a rack that holds no server under
// its power limit, a building that cannot hold one pod).
absl::StatusOr<Model> BuildModel(const PlanRequest& request);

// One of BuildModel's checks that the parts fit together, for callers that patch a model instead
// of rebuilding it (sweeps): a power cap in watts is meaningless when the cap is measured at the
// substation (whose rating is then the cap). FailedPrecondition naming both fields.
absl::Status CheckPowerCapPlace(const Constraints& caps);

}  // namespace dcplan

// File: planner/cluster.h
//
// Evaluating one cluster size: given G GPUs, everything that follows from the model in closed form:
// counts at every level (GPUs in whole servers, servers in racks, racks in pods, pods in
// buildings), the scale-out fabric, power from the accelerators to the facility meter, compute,
// capex and opex. Counts are ceilings of divisions and power and cost are sums of per-level terms,
// so an evaluation costs nanoseconds and never allocates; every figure is non-decreasing in G,
// which is what lets the solver bisect.
//
// Example:
//   ClusterEval e = EvaluateCluster(model, 32768);
//   units::Power meter = e.facility_power;   // 45.9 MW for the seed preset
#pragma once

#include <cstdint>

#include "planner/fabric.h"
#include "planner/model.h"
#include "units/units.h"

namespace dcplan {

struct ClusterEval {
  // Counts. The last server may be partly filled when gpus is not a multiple of gpus per server.
  // `gpus` are the training GPUs; `servers` includes the hot spares.
  int64_t gpus = 0;
  int64_t servers = 0;
  int64_t spare_servers = 0;
  int64_t head_nodes = 0;
  int64_t racks = 0;
  int64_t pods = 0;
  int64_t buildings = 0;
  FabricSize fabric;

  // Power as provisioned. it_power = compute_it_power (GPU servers, racks, scale-out fabric) +
  // storage + frontend network + head nodes; facility power = it_power x design-day PUE.
  units::Power gpu_power;
  units::Power server_overhead_power;
  units::Power rack_overhead_power;
  units::Power switch_power;
  units::Power optic_power;
  units::Power network_power;
  units::Power compute_it_power;
  units::Power storage_power;
  units::Power frontend_power;
  units::Power head_node_power;
  units::Power it_power;
  units::Power facility_power;
  // IT power with every device at its draw under training load (AddCost).
  units::Power measured_it_power;

  // Compute.
  units::ComputeRate peak;
  units::Ratio mfu;
  units::ComputeRate realized;

  // Capital cost.
  units::Money servers_capex;
  units::Money racks_capex;
  units::Money network_capex;
  units::Money storage_capex;
  units::Money frontend_capex;
  units::Money head_nodes_capex;
  units::Money it_capex;  // all of the above
  units::Money facility_capex;
  units::Money site_fixed_capex;
  units::Money capex;
  // Capital charged per year: each class's capex over its annuity (planner/model.h).
  units::MoneyPerTime it_capital_rate;
  units::MoneyPerTime facility_capital_rate;

  // Operating cost per year and over the horizon.
  units::Power average_facility_power;  // average IT draw under load x annual PUE
  // Operating costs as rates (USD a year at the edges); the energy's rate is the average power.
  units::MoneyPerTime energy_cost_rate;
  units::MoneyPerTime maintenance_rate;
  units::MoneyPerTime staff_rate;
  units::MoneyPerTime opex_rate;
  units::Money tco;
};

// Evaluates a cluster of `gpus` GPUs (>= 0) under `model`. Pure and O(1).
ClusterEval EvaluateCluster(const Model& model, int64_t gpus);

// Only what the caps need (counts, power and money), without the efficiency model: the solver's
// inner loop. Fields not needed for caps are left at zero.
ClusterEval EvaluateForCaps(const Model& model, int64_t gpus);

// The three steps of EvaluateCluster, for the solver, whose probes need costs only under a budget
// and compute only at the answer: counts, fabric and power of `gpus` GPUs written into `eval`
// (other fields untouched); capex and opex from those; peak, MFU and realized compute from the GPU
// count.
void EvaluatePower(const Model& model, int64_t gpus, ClusterEval* eval);
// The same for `servers` full training servers (servers x GPUs per server GPUs): for the solver's
// probes, which count in servers, without dividing their GPUs back into servers.
void EvaluateServersPower(const Model& model, int64_t servers, ClusterEval* eval);

// IT power of `eval`'s devices (counts and fabric from EvaluatePower) at their nameplate, and at
// their measured draw under training load (the nameplate where none is given).
units::Power NameplateItPower(const Model& model, const ClusterEval& eval);
units::Power MeasuredItPower(const Model& model, const ClusterEval& eval);
void AddCost(const Model& model, ClusterEval* eval);
void AddCompute(const Model& model, ClusterEval* eval);

// `eval` (EvaluateCluster under a model that differed only in the site's PUEs or the costs) brought
// to `model`: the facility power and AddCost again. Counts, fabric, IT power and compute read
// neither, so the result is what EvaluateCluster(model, eval->gpus) gives, bit for bit, at the
// cost of AddCost alone (a sweep along the PUE keeps its neighbouring clusters this way).
void ReevaluateSite(const Model& model, ClusterEval* eval);

// Copies what EvaluatePower writes (counts, fabric, power) from `from` to `to`: all the solver
// needs of a probe's evaluation before AddCost and AddCompute fill in the rest.
void CopyPowerPart(const ClusterEval& from, ClusterEval* to);

}  // namespace dcplan

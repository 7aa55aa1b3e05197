// File: planner/plan.h
//
// From the typed world back to the schema: a Solution (or one evaluated cluster) becomes a Plan (or
// a ScaleRow), with every quantity written in the unit its field names. This is the only place,
// besides BuildModel, where the planner converts between quantities and raw numbers.
//
// Example:
//   Plan plan = ToPlan(model, solution);
//   plan.counts().gpu_count();   // 32784
#pragma once

#include <string>

#include "planner/cluster.h"
#include "planner/model.h"
#include "planner/solver.h"
#include "proto/plan.pb.h"

namespace dcplan {

// The whole plan for a solution, with notes that explain a zero-GPU plan or a cap that bound.
Plan ToPlan(const Model& model, const Solution& solution);
// The same into `plan`, cleared first (a caller that writes many plans keeps one: its messages and
// strings stay allocated).
void ToPlanInto(const Model& model, const Solution& solution, Plan* plan);

// A binding constraint's short label for people: "facility power cap", "budget", "GPU cap"
// ("unspecified" for a value the schema does not name).
std::string BindingLabel(BindingConstraint binding);

// One cluster size's figures (`dcplan scale`).
ScaleRow ToScaleRow(const Model& model, const ClusterEval& eval);

// Fills the parts a Plan and a ScaleRow share.
void FillCounts(const Model& model, const ClusterEval& eval, Counts* counts);
void FillPower(const Model& model, const ClusterEval& eval, PowerBreakdown* power);
void FillCompute(const Model& model, const ClusterEval& eval, ComputePlan* compute);
void FillNetwork(const ClusterEval& eval, NetworkPlan* network);
void FillCost(const Model& model, const ClusterEval& eval, CostPlan* cost);

}  // namespace dcplan

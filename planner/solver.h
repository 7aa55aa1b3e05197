// File: planner/solver.h
//
// The solver: the largest cluster, in whole servers, that satisfies every cap of a model: the power
// cap (at the facility meter, on IT power, or the substation's capacity), the substation whenever
// it is rated, the building count, the GPU count and the budget (on capex or on TCO). Every capped
// quantity is non-decreasing in the server count, so the answer is found by bisection between 0 and
// an upper bound (each cap divided by what one server at least adds to it): O(log n) evaluations of
// O(1) each, no allocation. The result is exact: it fits every cap and one more server breaks at
// least one, which the solution names as the binding constraint, with the headroom left under every
// other cap.
//
// With the objective MAX_REALIZED_COMPUTE the solver then picks, among the feasible sizes, the one
// with the most realized FLOP/s: the largest, unless the efficiency curve falls faster than 1/G, in
// which case the candidates the efficiency model names are checked too.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
//   DCPLAN_ASSIGN_OR_RETURN(Solution s, Solve(model));
//   // s.eval.gpus == 32784 for the seed preset under 45.9 MW; s.binding == FACILITY_POWER
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "planner/cluster.h"
#include "planner/model.h"
#include "planner/validate.h"
#include "proto/plan.pb.h"
#include "units/units.h"

namespace dcplan {

// dcplan's own bound on cluster size: a trillion GPUs (the validator's limit on max_gpus).
inline constexpr int64_t kMaxGpus = static_cast<int64_t>(limits::kMaxGpus);

// Bit flags for the caps a cluster breaks.
enum CapBit : uint32_t {
  kCapFacilityPower = 1u << 0,
  kCapItPower = 1u << 1,
  kCapSubstation = 1u << 2,
  kCapMaxGpus = 1u << 3,
  kCapBuildings = 1u << 4,
  kCapBudget = 1u << 5,
  kCapSizeLimit = 1u << 6,
  kCapFabric = 1u << 7,  // the fat tree would need more than kMaxFabricTiers tiers
};

// The caps `eval` breaks under `model`, as CapBit flags (0 = feasible).
uint32_t BrokenCaps(const Model& model, const ClusterEval& eval);

// The first cap in `broken` (in the order facility power, IT power, substation, budget, buildings,
// GPUs, fabric, size limit) as the plan's enum.
BindingConstraint FirstBrokenCap(uint32_t broken);

// What is left under each cap the model sets.
struct CapHeadroom {
  bool has_facility_power = false;
  units::Power facility_power;
  bool has_it_power = false;
  units::Power it_power;
  bool has_substation = false;
  units::Power substation;
  bool has_gpus = false;
  int64_t gpus = 0;
  bool has_buildings = false;
  int64_t buildings = 0;
  bool has_budget = false;
  units::Money budget;
};

struct Solution {
  int64_t servers = 0;
  ClusterEval eval;  // the chosen cluster, fully evaluated
  BindingConstraint binding = BINDING_CONSTRAINT_UNSPECIFIED;
  // Every cap one more server would break (CapBit flags); `binding` is the first of them.
  uint32_t broken_by_one_more = 0;
  CapHeadroom headroom;
  // The largest feasible size, which differs from `servers` only under MAX_REALIZED_COMPUTE.
  int64_t largest_feasible_servers = 0;
};

// Headroom of `eval` under every cap of `model`.
CapHeadroom HeadroomOf(const Model& model, const ClusterEval& eval);

// Solves `model`. FailedPrecondition when the model sets no cap (the largest cluster would be
// unbounded) or only a budget while nothing has a price. A cap smaller than one server is not an
// error: the solution has zero GPUs and names the cap.
absl::StatusOr<Solution> Solve(const Model& model);

// The same, with the search starting at `guess_servers` (e.g. the answer for a neighbouring request
// in a sweep). The answer does not depend on the guess; a good one saves a probe or two, a bad one
// (or -1, none) costs nothing but time.
absl::StatusOr<Solution> Solve(const Model& model, int64_t guess_servers);

// The same, written into `*solution` (every field of it), for loops that solve many models (a
// sweep's inner loop), where the copies of a returned Solution are a measurable share of the time.
absl::Status SolveInto(const Model& model, int64_t guess_servers, Solution* solution);

// The largest server count that fits every cap of `model` (0 when none does), which is
// SolveInto's `servers` under the objective MAX_GPUS, without the rest of a solution (the binding
// cap, costs, compute, headroom): for re-solves that read only the GPU count (a ledger's
// influences). Errors as SolveInto's; `guess_servers` as Solve's.
absl::StatusOr<int64_t> LargestFeasibleServers(const Model& model, int64_t guess_servers);

// Whether Solve(model) answers `servers`, told from `at` and `above`, the clusters of `servers` and
// `servers` + 1 servers fully evaluated under `model` (evaluations do not read the caps: a sweep
// over a cap keeps them from one point to the next). True when `at` fits every cap and `above`
// breaks one, within the solver's search range, under the objective MAX_GPUS: then Solve's
// solution is `at` with *broken_by_one_more the caps `above` breaks. False tells nothing (solve).
bool AnswersAt(const Model& model, int64_t servers, const ClusterEval& at, const ClusterEval& above,
               uint32_t* broken_by_one_more);

}  // namespace dcplan

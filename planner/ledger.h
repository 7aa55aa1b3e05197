// File: planner/ledger.h
//
// What a plan rests on, and what more would buy. Three parts of a Plan that explain it rather than
// state it:
//   - the assumptions ledger (Plan.assumptions): one entry per input the answer depends on, with
//   its
//     value and unit, where it came from (a preset's cited figure, an estimate, the user, a
//     default, derived from another input) and how much the answer moves when it moves (influence:
//     the relative change of the objective for +10% of a number, or the other value of an enum);
//   - the marginal value of the caps (Plan.marginal): GPUs and realized FLOP/s that 1 MW more
//     power and $100M more budget would buy, each from a second exact solve;
//   - the discrete step (Plan.next_step): when one more server would need a new network tier or a
//     new building, what that step adds in power and capex.
// Everything is computed by solving again (planner/solver.h), never by a formula of its own, so it
// agrees with the solver by construction. The one shortcut: an input the objective cannot read gets
// influence 0 without a solve (a price or a cost without a budget cap; a figure only the compute
// model reads, such as HBM, under the most-GPUs objective), which is what solving again would give
// (ledger_test checks that by full re-solves on every preset).
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Plan plan, SolvePlan(request));   // SolvePlan calls Explain
//   for (const Assumption& a : plan.assumptions()) std::cout << a.path() << " " << a.source();
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "planner/model.h"
#include "planner/solver.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {

// What Explain computes; each part costs a few extra solves.
struct ExplainOptions {
  bool assumptions = true;
  // Influence re-solves once per number in the ledger that can move the objective; without it
  // every influence is 0.
  bool influence = true;
  bool marginal = true;
  bool next_step = true;
};

// Fills plan->assumptions, marginal and next_step for `request`, solved as `model` and `solution`.
absl::Status Explain(const PlanRequest& request, const Model& model, const Solution& solution,
                     const ExplainOptions& options, Plan* plan);

// The assumptions a person should see first: cooling, both PUEs, provisioning, the price that
// matters most for this plan, then the others by influence; at most `count` (>= 5), in that order.
std::vector<const Assumption*> HeadlineAssumptions(const Plan& plan, int count = 5);

}  // namespace dcplan

// File: planner/sweep/compare_monte_carlo.cc
#include "planner/sweep/compare_monte_carlo.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "planner/compare.h"
#include "planner/sweep/sensitivity.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

std::string Who(const PlanRequest& r, size_t i) {
  return r.name().empty() ? absl::StrCat("request ", i) : r.name();
}

absl::Status Named(const absl::Status& s, const std::string& who) {
  return absl::Status(s.code(), absl::StrCat(who, ": ", s.message()));
}

// The plan without what the Monte Carlo adds: what Compare's plan of the median request is.
std::string Bare(const Plan& plan) {
  Plan p = plan;
  p.clear_distribution();
  p.clear_sensitivity();
  p.clear_sensitivity_output();
  std::string bytes;
  p.SerializeToString(&bytes);
  return bytes;
}

}  // namespace

absl::StatusOr<Comparison> CompareUncertain(absl::Span<const PlanRequest> requests,
                                            const MonteCarloOptions& options) {
  bool any = false;
  for (const PlanRequest& r : requests) any = any || r.uncertain_size() > 0;
  if (!any) return Compare(requests);
  const size_t n = requests.size();
  std::vector<MonteCarloRun> runs;
  std::vector<PlanRequest> medians;
  runs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const PlanRequest& r = requests[i];
    if (r.uncertain_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          Who(r, i),
          ": uncertain: no uncertain input, while other options have some; every option needs "
          "them (the same ones, to compare on common random numbers)"));
    }
    auto run = MonteCarloRun::Create(r);
    if (!run.ok()) return Named(run.status(), Who(r, i));
    if (i > 0 && run->samples() != runs[0].samples()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: monte_carlo.samples must be the same for every option (common random numbers), "
          "got %d and %d for %s",
          Who(r, i), run->samples(), runs[0].samples(), Who(requests[0], 0)));
    }
    if (i > 0 && run->seed() != runs[0].seed()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: monte_carlo.seed must be the same for every option (common random numbers), got "
          "%d and %d for %s",
          Who(r, i), run->seed(), runs[0].seed(), Who(requests[0], 0)));
    }
    medians.push_back(run->median_request());
    runs.push_back(*std::move(run));
  }
  const int64_t samples = runs[0].samples();
  DCPLAN_RETURN_IF_ERROR(CheckMonteCarloWork(static_cast<int64_t>(n), samples,
                                             absl::StrCat(n, " options"), "solves",
                                             "compare fewer options or take fewer samples"));
  const MonteCarloPool holder(options);
  DCPLAN_RETURN_IF_ERROR(holder.status());
  MonteCarloOptions opts = options;
  opts.pool = holder.get();

  // The ranking, the differing assumptions and the efficiency basis: Compare of the medians.
  DCPLAN_ASSIGN_OR_RETURN(Comparison comparison, Compare(medians));
  // Each option's plan with its distribution, put in its place in the ranking (matched on the plan
  // itself: the same median request gives the same plan, byte for byte).
  std::vector<Plan> plans(n);
  std::vector<std::string> bare(n);
  for (size_t i = 0; i < n; ++i) {
    auto plan = SolveUncertainPlan(requests[i], opts);
    if (!plan.ok()) return Named(plan.status(), Who(requests[i], i));
    plans[i] = *std::move(plan);
    bare[i] = Bare(plans[i]);
  }
  std::vector<size_t> order;  // order[p]: the option at rank p
  std::vector<bool> used(n, false);
  for (int p = 0; p < comparison.plans_size(); ++p) {
    const std::string key = Bare(comparison.plans(p));
    size_t found = n;
    for (size_t i = 0; i < n && found == n; ++i) {
      if (!used[i] && bare[i] == key) found = i;
    }
    if (found == n) return absl::InternalError("a compared plan differs from its option's plan");
    used[found] = true;
    order.push_back(found);
    *comparison.mutable_plans(p) = std::move(plans[found]);
  }

  // P(best): the options' samples a block at a time, each solved on every core; in each sample the
  // option (in ranking order, so a tie goes to the higher rank) with the most realized compute,
  // then the lower TCO, wins.
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(opts.block_samples, 1 << 14));
  std::vector<std::vector<SampleResult>> rows(
      n, std::vector<SampleResult>(static_cast<size_t>(std::min(samples, block))));
  std::vector<int64_t> wins(n, 0);
  for (int64_t first = 0; first < samples; first += block) {
    const int64_t count = std::min(block, samples - first);
    if (opts.check) DCPLAN_RETURN_IF_ERROR(opts.check());
    for (size_t p = 0; p < n; ++p) {
      const MonteCarloRun& run = runs[order[p]];
      std::vector<SampleResult>& out = rows[p];
      opts.pool->ParallelFor(count, 256, [&](int64_t b, int64_t e) {
        run.SolveSamples(first + b, absl::MakeSpan(out.data() + b, static_cast<size_t>(e - b)));
      });
    }
    for (int64_t s = 0; s < count; ++s) {
      int best = -1;
      for (size_t p = 0; p < n; ++p) {
        const SampleResult& r = rows[p][s];
        if (!r.ok) continue;
        if (best < 0) {
          best = static_cast<int>(p);
          continue;
        }
        const SampleResult& b = rows[best][s];
        const double rf = r.outputs[kOutRealizedFlopsPerSecond];
        const double bf = b.outputs[kOutRealizedFlopsPerSecond];
        if (rf > bf || (rf == bf && r.outputs[kOutTcoUsd] < b.outputs[kOutTcoUsd])) {
          best = static_cast<int>(p);
        }
      }
      if (best >= 0) ++wins[best];
    }
  }
  for (size_t p = 0; p < n; ++p) {
    comparison.add_p_best(static_cast<double>(wins[p]) / static_cast<double>(samples));
  }
  return comparison;
}

}  // namespace dcplan

// File: planner/sweep/sweep_monte_carlo.cc
#include "planner/sweep/sweep_monte_carlo.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "google/protobuf/descriptor.h"
#include "planner/ledger.h"
#include "planner/planner.h"
#include "planner/request_edit.h"
#include "planner/sweep/headline.h"

namespace dcplan {
namespace {

// The headline columns a Distributions carries, in the headline's order.
std::vector<const HeadlineColumn*> SpreadColumns() {
  std::vector<const HeadlineColumn*> out;
  for (const HeadlineColumn& c : HeadlineColumns()) {
    if (Distributions::descriptor()->FindFieldByName(c.name) != nullptr &&
        c.kind != HeadlineColumn::Kind::kBinding) {
      out.push_back(&c);
    }
  }
  return out;
}

}  // namespace

absl::Status CheckSweepMonteCarloWork(int64_t points, int64_t samples) {
  return CheckMonteCarloWork(points, samples, absl::StrCat("the grid's ", points, " points"),
                             "solves", "give fewer points or fewer samples");
}

absl::Status RunUncertainSweep(
    const Sweep& sweep, const MonteCarloOptions& options,
    absl::FunctionRef<absl::Status(int64_t point, const UncertainSweepPoint& result)> consume) {
  if (sweep.size() == 0) return absl::OkStatus();
  DCPLAN_ASSIGN_OR_RETURN(PlanRequest first, sweep.RequestAt(0));
  if (first.uncertain_size() == 0) {
    return absl::InvalidArgumentError("the sweep's request has no uncertain input");
  }
  // An axis that is also uncertain would be overridden by the samples: refused.
  for (int i = 0; i < first.uncertain_size(); ++i) {
    auto field = ResolveField(first.uncertain(i).path());
    if (!field.ok()) continue;  // MonteCarloRun::Create names it
    for (const SweepAxis& a : sweep.axes()) {
      if (a.path == field->path) {
        return absl::InvalidArgumentError(
            absl::StrCat("uncertain[", i, "] (", field->path,
                         ") is also a sweep axis: sample it or sweep it, not both"));
      }
    }
  }
  const MonteCarlo& mc = first.monte_carlo();
  DCPLAN_RETURN_IF_ERROR(CheckSweepMonteCarloWork(
      sweep.size(),
      static_cast<int64_t>(mc.has_samples() ? mc.samples() : kDefaultMonteCarloSamples)));
  const MonteCarloPool holder(options);
  DCPLAN_RETURN_IF_ERROR(holder.status());
  MonteCarloOptions opts = options;
  opts.pool = holder.get();
  ExplainOptions none;
  none.assumptions = none.influence = none.marginal = none.next_step = false;
  UncertainSweepPoint result;
  for (int64_t p = 0; p < sweep.size(); ++p) {
    result = UncertainSweepPoint();
    result.status = [&]() -> absl::Status {
      DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, sweep.RequestAt(p));
      DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun run, MonteCarloRun::Create(request));
      DCPLAN_ASSIGN_OR_RETURN(result.plan, SolvePlan(run.median_request(), none));
      DCPLAN_ASSIGN_OR_RETURN(result.distribution, run.Summarize(opts));
      return absl::OkStatus();
    }();
    if (!result.status.ok() && absl::IsCancelled(result.status)) return result.status;
    DCPLAN_RETURN_IF_ERROR(consume(p, result));
  }
  return absl::OkStatus();
}

std::vector<std::string> SweepPercentileColumns() {
  std::vector<std::string> names;
  for (const HeadlineColumn* c : SpreadColumns()) {
    for (const char* q : {"_p10", "_p50", "_p90"}) names.push_back(absl::StrCat(c->name, q));
  }
  return names;
}

void AppendSweepPercentiles(const Distributions& d, bool ok, std::string* out) {
  const google::protobuf::Reflection* r = d.GetReflection();
  for (const HeadlineColumn* c : SpreadColumns()) {
    const auto* f = Distributions::descriptor()->FindFieldByName(c->name);
    const Percentiles& p = static_cast<const Percentiles&>(r->GetMessage(d, f));
    for (double v : {p.p10(), p.p50(), p.p90()}) {
      out->push_back(',');
      if (ok) AppendHeadlineValue(*c, v, out);
    }
  }
}

}  // namespace dcplan

#include "planner/solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace dcplan {
namespace {

using units::Money;
using units::Power;

inline double D(int64_t v) { return static_cast<double>(v); }

// The budget-capped figure: capex or TCO.
Money BudgetUse(const Model& m, const ClusterEval& e) {
  return m.caps.budget_on == BUDGET_ON_TCO ? e.tco : e.capex;
}

// The power a cap limits, measured where the cap says.
Power PowerCapUse(const Model& m, const ClusterEval& e) {
  return m.caps.power_cap_at == POWER_CAP_AT_IT ? e.it_power : e.facility_power;
}

// The server counts allowed by `limit` when each server adds at least `per_server` (watts or
// dollars, in any quantity of the same dimension): limit / per_server, whose whole part is the
// largest count (left unrounded: every use compares it with whole numbers or truncates it, the
// same as its floor for a limit >= 0); `inf` for none.
template <typename Quantity>
double ServersWithin(Quantity limit, Quantity per_server) {
  if (!(per_server > Quantity::from_value(0.0))) return std::numeric_limits<double>::infinity();
  return units::InFraction(limit / per_server);
}

// BrokenCaps, here where the search can inline it.
inline uint32_t CapsBroken(const Model& m, const ClusterEval& e) {
  uint32_t broken = 0;
  if (m.caps.has_power_cap && PowerCapUse(m, e) > m.caps.power_cap) {
    switch (m.caps.power_cap_at) {
      case POWER_CAP_AT_IT:
        broken |= kCapItPower;
        break;
      case POWER_CAP_AT_SUBSTATION:
        broken |= kCapSubstation;
        break;
      default:
        broken |= kCapFacilityPower;
    }
  }
  if (m.site.has_substation && e.facility_power > m.site.substation_capacity) {
    broken |= kCapSubstation;
  }
  if (m.caps.max_gpus > 0 && e.gpus > m.caps.max_gpus) broken |= kCapMaxGpus;
  if (m.site.max_buildings > 0 && e.buildings > m.site.max_buildings) broken |= kCapBuildings;
  if (m.caps.has_budget && BudgetUse(m, e) > m.caps.budget) broken |= kCapBudget;
  if (e.gpus > kMaxGpus) broken |= kCapSizeLimit;
  // A fabric that does not fit has no switches counted: never a plan, always a cap.
  if (!e.fabric.fits) broken |= kCapFabric;
  return broken;
}

// The search for the largest feasible server count in [0, high]. Every cap is non-decreasing in the
// server count, so any probe narrows the bracket: a feasible size raises `low`, an infeasible one
// lowers `high` below it. Probes are placed where the caps say the answer is (each capped quantity
// is close to affine in the server count, so a secant through the last two probes lands within a
// few servers of it), then the bracket is closed by galloping from the last probe and bisecting.
// Whatever the guesses, the result is exact: the bracket only ever shrinks by what a probe proved.
class ServerSearch {
 public:
  // Sizes above `high` are known to break a cap. `eval` is where the probes' evaluations go, with
  // the search's own scratch: the one at `low` ends up in one of the two (see low_eval()).
  ServerSearch(const Model& m, int64_t high, ClusterEval* eval, ClusterEval* scratch)
      : m_(m), high_(high), evals_{eval, scratch} {}

  // Runs the search, starting at `guess` when it is in [0, high] (a good guess, such as the answer
  // for a neighbouring request, saves probes; a bad one costs a few), else at `high`, which is
  // often exact (no overheads beyond the servers' own power).
  void Run(int64_t guess) {
    int64_t n;
    if (guess >= 0 && guess <= high_) {
      // A guess is usually the answer or next to it: the guess and the neighbour on the side the
      // probe points to settle it in two probes, before any secant.
      n = guess;
      const bool fits = Probe(n);
      if (low_ < high_) {
        n = fits ? n + 1 : n - 1;
        if (n >= 0) Probe(n);
      }
    } else {
      n = high_;
      Probe(n);
    }
    for (int step = 0; step < kSecantSteps && low_ < high_; ++step) {
      const double g = Guess();  // NaN or far outside the bracket on degenerate inputs
      n = !(g >= D(low_ + 1)) ? low_ + 1 : g >= D(high_) ? high_ : static_cast<int64_t>(g);
      Probe(n);
    }
    // Gallop from the last probe towards the answer, then bisect what is left.
    if (n == low_) {
      for (int64_t step = 1; low_ < high_; step *= 2) {
        if (!Probe(std::min(low_ + step, high_))) break;
      }
    } else {
      for (int64_t step = 1; low_ < high_; step *= 2) {
        if (Probe(std::max(high_ + 1 - step, low_ + 1))) break;
      }
    }
    while (low_ < high_) Probe(low_ + (high_ - low_ + 1) / 2);
    if (!low_probed_) Probe(low_);  // only when every probe above 0 broke a cap
  }

  int64_t low() const { return low_; }
  // Whether `low` fits every cap (false only when even 0 servers breaks one).
  bool low_feasible() const { return broken_at_low_ == 0; }
  uint32_t broken_at_low() const { return broken_at_low_; }
  // The caps' evaluation at `low` (EvaluatePower, and AddCost under a budget).
  const ClusterEval& low_eval() const { return *evals_[low_slot_]; }
  bool low_eval_is_scratch() const { return low_slot_ == 1; }
  // The caps low + 1 servers break.
  uint32_t BrokenAboveLow() {
    if (broken_above_ != 0) return broken_above_;
    ClusterEval& e = *evals_[1 - low_slot_];
    EvaluateServersPower(m_, low_ + 1, &e);
    if (m_.caps.has_budget) AddCost(m_, &e);
    return CapsBroken(m_, e);
  }

 private:
  static constexpr int kSecantSteps = 3;

  // What each cap with a limit in power or money uses at one probe (Guess divides by the caps:
  // most searches end before they need a guess).
  struct Uses {
    int64_t n = -1;  // -1 = no probe yet
    Power power, substation;
    Money budget;
  };

  // Probes n servers; returns whether they fit every cap.
  bool Probe(int64_t n) {
    const int slot = 1 - low_slot_;  // never overwrite the evaluation at low
    ClusterEval& e = *evals_[slot];
    EvaluateServersPower(m_, n, &e);
    if (m_.caps.has_budget) AddCost(m_, &e);
    const uint32_t broken = CapsBroken(m_, e);
    previous_ = last_;
    last_.n = n;
    last_.power = PowerCapUse(m_, e);
    last_.substation = e.facility_power;
    last_.budget = BudgetUse(m_, e);
    if (broken == 0) {
      if (n >= low_) {
        low_ = n;
        low_slot_ = slot;
        low_probed_ = true;
        broken_at_low_ = 0;
      }
      return true;
    }
    if (n <= high_) {
      high_ = n - 1;
      broken_above_ = broken;
    }
    if (n == 0) {
      low_slot_ = slot;
      low_probed_ = true;
      broken_at_low_ = broken;
    }
    return false;
  }

  // Where the caps put the answer, from the last probe (and the one before it when there is one):
  // where each cap's use reaches the cap, by a secant through the two probes' uses (or in
  // proportion to the last probe's use): one division a cap.
  double Guess() const {
    double g = std::numeric_limits<double>::infinity();
    const bool secant = previous_.n >= 0 && previous_.n != last_.n;
    auto cap = [&](double limit, double now, double before) {
      if (secant && now != before) {
        g = std::min(g, D(last_.n) + (limit - now) * D(last_.n - previous_.n) / (now - before));
      } else if (now > 0) {
        g = std::min(g, D(last_.n) * limit / now);
      }
    };
    if (m_.caps.has_power_cap) {
      cap(units::InWatts(m_.caps.power_cap), units::InWatts(last_.power),
          units::InWatts(previous_.power));
    }
    if (m_.site.has_substation) {
      cap(units::InWatts(m_.site.substation_capacity), units::InWatts(last_.substation),
          units::InWatts(previous_.substation));
    }
    if (m_.caps.has_budget) {
      cap(units::InUsd(m_.caps.budget), units::InUsd(last_.budget), units::InUsd(previous_.budget));
    }
    // The whole number nearest the crossing, as Run truncates it: a probe there and one beside it
    // settle the answer whichever side of it the crossing falls, when the estimate is within half
    // a server (the floor needed it to fall short of the next whole number: 4 probes instead of 3
    // for the h100-dgx under all caps, whose first secant says 6486.98 for 6487.2).
    return std::isfinite(g) ? g + 0.5 : D(high_);
  }

  const Model& m_;
  int64_t low_ = 0;            // fits every cap, or 0
  int64_t high_;               // every size above breaks a cap
  uint32_t broken_above_ = 0;  // what high + 1 breaks, when it was probed
  uint32_t broken_at_low_ = 0;
  bool low_probed_ = false;
  ClusterEval* evals_[2];  // the probes' evaluations: the one at low, and the next probe's
  // The slot of the evaluation at `low`; the first probe goes to the other one, evals_[0], the
  // caller's, where the answer usually ends up (no copy).
  int low_slot_ = 1;
  Uses last_, previous_;
};

}  // namespace

uint32_t BrokenCaps(const Model& m, const ClusterEval& e) { return CapsBroken(m, e); }

BindingConstraint FirstBrokenCap(uint32_t broken) {
  if (broken & kCapFacilityPower) return BINDING_CONSTRAINT_FACILITY_POWER;
  if (broken & kCapItPower) return BINDING_CONSTRAINT_IT_POWER;
  if (broken & kCapSubstation) return BINDING_CONSTRAINT_SUBSTATION;
  if (broken & kCapBudget) return BINDING_CONSTRAINT_BUDGET;
  if (broken & kCapBuildings) return BINDING_CONSTRAINT_BUILDINGS;
  if (broken & kCapMaxGpus) return BINDING_CONSTRAINT_MAX_GPUS;
  if (broken & kCapFabric) return BINDING_CONSTRAINT_FABRIC;
  if (broken & kCapSizeLimit) return BINDING_CONSTRAINT_SIZE_LIMIT;
  return BINDING_CONSTRAINT_NONE;
}

namespace {

// HeadroomOf written into `*out`, every field of it (SolveInto's solution may hold another
// model's): no CapHeadroom built and copied.
inline void FillHeadroom(const Model& m, const ClusterEval& e, CapHeadroom* out) {
  CapHeadroom& h = *out;
  const Power zero_power = units::Watts(0.0);
  const bool power_cap = m.caps.has_power_cap;
  h.has_it_power = power_cap && m.caps.power_cap_at == POWER_CAP_AT_IT;
  h.it_power = h.has_it_power ? m.caps.power_cap - e.it_power : zero_power;
  // A cap at the substation is reported as the substation's headroom below.
  h.has_facility_power = power_cap && m.caps.power_cap_at != POWER_CAP_AT_IT &&
                         m.caps.power_cap_at != POWER_CAP_AT_SUBSTATION;
  h.facility_power = h.has_facility_power ? m.caps.power_cap - e.facility_power : zero_power;
  h.has_substation = m.site.has_substation;
  h.substation = h.has_substation ? m.site.substation_capacity - e.facility_power : zero_power;
  h.has_gpus = m.caps.max_gpus > 0;
  h.gpus = h.has_gpus ? m.caps.max_gpus - e.gpus : 0;
  h.has_buildings = m.site.max_buildings > 0;
  h.buildings = h.has_buildings ? m.site.max_buildings - e.buildings : 0;
  h.has_budget = m.caps.has_budget;
  h.budget = h.has_budget ? m.caps.budget - BudgetUse(m, e) : units::Usd(0.0);
}

}  // namespace

CapHeadroom HeadroomOf(const Model& m, const ClusterEval& e) {
  CapHeadroom h;
  FillHeadroom(m, e, &h);
  return h;
}

absl::StatusOr<Solution> Solve(const Model& m) { return Solve(m, -1); }

absl::StatusOr<Solution> Solve(const Model& m, int64_t guess_servers) {
  // Solved in place, in the StatusOr that is returned (one return, so no copy of the Solution).
  absl::StatusOr<Solution> s(absl::in_place);
  if (absl::Status status = SolveInto(m, guess_servers, &*s); !status.ok()) {
    s = absl::StatusOr<Solution>(std::move(status));
  }
  return s;
}

namespace {

// Why ServerUpperBound found no bound to search under.
enum class NoBound { kNone, kNoCap, kBuildingsCapNothing, kBudgetCapsNothing };

// The error for `why` (out of line: the solver's hot path never builds one).
ABSL_ATTRIBUTE_NOINLINE absl::Status NoBoundError(const Model& m, NoBound why) {
  switch (why) {
    case NoBound::kBuildingsCapNothing:
      return absl::FailedPreconditionError(absl::StrCat(
          "site.max_buildings is ", m.site.max_buildings,
          " but site.building.critical_it_power_watts is 0 (no limit per building), so one "
          "building holds any cluster and max_buildings caps nothing: set "
          "site.building.critical_it_power_watts, or leave max_buildings at 0"));
    case NoBound::kBudgetCapsNothing:
      return absl::FailedPreconditionError(absl::StrCat(
          "constraints.budget_usd is ", absl::StrFormat("%.15g", units::InUsd(m.caps.budget)),
          " but nothing in the request has a price, so the budget caps nothing: set "
          "hardware.server.price_usd or hardware.accelerator.price_usd, or leave budget_usd at 0"));
    default:
      return absl::FailedPreconditionError(
          "no cap to solve under: set constraints.power_cap_watts, constraints.budget_usd, "
          "constraints.max_gpus, a rated site.substation, or site.max_buildings with "
          "site.building.critical_it_power_watts");
  }
}

// The most servers every cap allows (the whole part of the result, >= 0 or +inf), from below: each
// server adds at least its own IT power (and that times the PUE at the meter), its price, and its
// share of the facility cost. Sets *why (and returns 0) when nothing caps the cluster, or a cap
// caps nothing: both errors (NoBoundError).
inline double ServerUpperBound(const Model& m, NoBound* why) {
  const int64_t gps = m.server.gpus;
  const Power server_it = m.ServerPower();
  const Power server_meter = server_it * m.site.pue;
  double hi = std::numeric_limits<double>::infinity();
  bool capped = false;
  if (m.caps.has_power_cap) {
    const Power per = m.caps.power_cap_at == POWER_CAP_AT_IT ? server_it : server_meter;
    hi = std::min(hi, ServersWithin(m.caps.power_cap, per));
    capped = true;
  }
  if (m.site.has_substation) {
    hi = std::min(hi, ServersWithin(m.site.substation_capacity, server_meter));
    capped = true;
  }
  if (m.caps.max_gpus > 0) {
    hi = std::min(hi, std::ceil(D(m.caps.max_gpus) / D(gps)));
    capped = true;
  }
  if (m.site.max_buildings > 0) {
    // Without a building power limit one building holds any cluster: the cap would cap nothing.
    if (m.pods_per_building <= 0) {
      *why = NoBound::kBuildingsCapNothing;
      return 0;
    }
    hi = std::min(hi, D(m.site.max_buildings) * D(m.pods_per_building) * D(m.racks_per_pod) *
                          D(m.servers_per_rack));
    capped = true;
  }
  if (m.caps.has_budget) {
    // Per server at least: its price and its facility share; under TCO also maintenance on those
    // and its average energy over the horizon.
    const units::Time horizon = m.costs.horizon;
    const Money server_price = m.server.price;
    const Money server_facility = m.costs.facility_per_it_power * server_it;
    Money per = server_price + server_facility;
    if (m.caps.budget_on == BUDGET_ON_TCO) {
      // Capital charged over the horizon (horizon / annuity of each class's capex), maintenance,
      // and the server's own average energy.
      per = server_price * (horizon / m.costs.it_annuity + m.costs.it_maintenance * horizon) +
            server_facility *
                (horizon / m.costs.facility_annuity + m.costs.facility_maintenance * horizon) +
            m.ServerMeasuredPower() * m.costs.average_utilization * m.site.annual_pue * horizon *
                m.costs.electricity;
    }
    if (!(per > units::Usd(0.0))) {
      // Nothing costs anything per server: the budget would cap nothing, whatever the other caps.
      *why = NoBound::kBudgetCapsNothing;
      return 0;
    }
    hi = std::min(hi, ServersWithin(m.caps.budget, per));
    capped = true;
  }
  if (!capped) {
    *why = NoBound::kNoCap;
    return 0;
  }
  return hi;
}

// The top of SolveInto's search: the whole part of ServerUpperBound, or one server past dcplan's
// size limit (so the limit can bind) when that is lower; 0 with *why set when there is no bound.
// kMaxGpus / gps is an integer division, left out when the bound is below it.
inline int64_t SearchTop(const Model& m, NoBound* why) {
  const double hi = ServerUpperBound(m, why);
  if (*why != NoBound::kNone) return 0;
  const int64_t gps = m.server.gpus;
  // Below kMaxGpus / gps, hi is below the limit's kMaxGpus / gps + 1 servers too.
  if (hi * D(gps) < D(kMaxGpus)) return static_cast<int64_t>(hi);
  const int64_t size_limit_servers = kMaxGpus / gps + 1;
  return hi >= D(size_limit_servers) ? size_limit_servers : static_cast<int64_t>(hi);
}

}  // namespace

// Under OBJECTIVE_MAX_REALIZED_COMPUTE: the smallest size, at most `low` servers, that realizes the
// most, checked where the efficiency model says realized compute may peak, then down the plateau.
// Moves `s` there with BINDING_CONSTRAINT_DIMINISHING_RETURNS when that is below `low`.
void PreferRealizedCompute(const Model& m, int64_t low, Solution* solution) {
  Solution& s = *solution;
  const int64_t gps = m.server.gpus;
  {
    int64_t best = low;
    double best_rate = units::InFlopsPerSecond(EvaluateCluster(m, low * gps).realized);
    for (double g : m.realized_candidates) {
      const double center = std::floor(g / D(gps));
      for (double c : {center, center + 1.0}) {
        if (c < 1.0 || c >= D(low)) continue;
        const int64_t n = static_cast<int64_t>(c);
        const double rate = units::InFlopsPerSecond(EvaluateCluster(m, n * gps).realized);
        // Equal within rounding (a workload's realized compute is flat past its largest useful
        // size): the smaller cluster wins.
        const double tolerance = 1e-12 * std::abs(best_rate);
        if (rate > best_rate + tolerance || (std::abs(rate - best_rate) <= tolerance && n < best)) {
          best = n;
          best_rate = rate;
        }
      }
    }
    // A plateau: past a workload's largest useful split GPUs only idle, so realized compute is
    // flat and a size well below the best one found reaches the same rate. Search [1, best] for
    // the first size that reaches it (the plateau's start): the last size that falls short is
    // found bit by bit from the highest, so every size probed is `below` plus a power of two, the
    // same sizes whatever `best` is within a power of two. A Monte Carlo over the caps or the PUE
    // moves `best` from sample to sample; the efficiency model remembers each size it searched, so
    // after the first sample only the size at the caps is new (not a dozen bisection midpoints).
    const auto rate_at = [&](int64_t n) {
      return units::InFlopsPerSecond(EvaluateCluster(m, n * gps).realized);
    };
    const double reach = best_rate - 1e-12 * std::abs(best_rate);
    if (best > 1 && best_rate > 0) {
      int64_t below = 0;  // 0, or a size whose rate falls short
      int64_t step = 1;
      while (step <= (best - 1) / 2) step *= 2;
      for (; step >= 1; step /= 2) {
        if (below + step < best && rate_at(below + step) < reach) below += step;
      }
      best = below + 1;
    }
    if (best != low) {
      s.servers = best;
      s.binding = BINDING_CONSTRAINT_DIMINISHING_RETURNS;
    }
  }
}

bool AnswersAt(const Model& m, int64_t servers, const ClusterEval& at, const ClusterEval& above,
               uint32_t* broken_by_one_more) {
  if (m.caps.objective == OBJECTIVE_MAX_REALIZED_COMPUTE || servers < 0) return false;
  if (CapsBroken(m, at) != 0) return false;
  const uint32_t broken = CapsBroken(m, above);
  if (broken == 0) return false;
  // SolveInto's search range: `servers` must be in it (the search never looks beyond).
  NoBound why = NoBound::kNone;
  const int64_t top = SearchTop(m, &why);
  if (why != NoBound::kNone || servers > top) return false;
  *broken_by_one_more = broken;
  return true;
}

absl::StatusOr<int64_t> LargestFeasibleServers(const Model& m, int64_t guess_servers) {
  NoBound why = NoBound::kNone;
  const int64_t top = SearchTop(m, &why);
  if (ABSL_PREDICT_FALSE(why != NoBound::kNone)) return NoBoundError(m, why);
  static thread_local ClusterEval evals[2];
  ServerSearch search(m, top, &evals[0], &evals[1]);
  search.Run(guess_servers);
  return search.low();
}

absl::Status SolveInto(const Model& m, int64_t guess_servers, Solution* solution) {
  Solution& s = *solution;
  const int64_t gps = m.server.gpus;
  NoBound why = NoBound::kNone;
  const int64_t top = SearchTop(m, &why);
  if (ABSL_PREDICT_FALSE(why != NoBound::kNone)) return NoBoundError(m, why);
  // The probes' second evaluation: one per thread, kept between calls, since zeroing a fresh
  // ClusterEval is a measurable share of a sweep's time per point.
  static thread_local ClusterEval scratch;
  ServerSearch search(m, top, &s.eval, &scratch);
  search.Run(guess_servers);
  const int64_t low = search.low();
  s.largest_feasible_servers = low;
  s.servers = low;
  // Every cap one more server breaks; at 0 servers a cap may already be broken (a budget below the
  // site's fixed cost), and then that is what binds.
  s.broken_by_one_more = search.low_feasible() ? search.BrokenAboveLow() : search.broken_at_low();
  s.binding = FirstBrokenCap(s.broken_by_one_more);

  if (m.caps.objective == OBJECTIVE_MAX_REALIZED_COMPUTE && low > 1) {
    PreferRealizedCompute(m, low, &s);
  }
  if (s.servers == low) {
    // Counts and power are done; add what the caps did not need.
    if (search.low_eval_is_scratch()) CopyPowerPart(search.low_eval(), &s.eval);
    AddCost(m, &s.eval);
    AddCompute(m, &s.eval);
  } else {
    s.eval = EvaluateCluster(m, s.servers * gps);
  }
  FillHeadroom(m, s.eval, &s.headroom);
  return absl::OkStatus();
}

}  // namespace dcplan

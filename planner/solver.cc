#include "planner/solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"

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

// Largest server count allowed by `limit` when each server adds at least `per_server`; `inf` for none.
double ServersWithin(double limit, double per_server) {
  if (per_server <= 0) return std::numeric_limits<double>::infinity();
  return std::floor(limit / per_server);
}

}  // namespace

uint32_t BrokenCaps(const Model& m, const ClusterEval& e) {
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
  return broken;
}

BindingConstraint FirstBrokenCap(uint32_t broken) {
  if (broken & kCapFacilityPower) return BINDING_CONSTRAINT_FACILITY_POWER;
  if (broken & kCapItPower) return BINDING_CONSTRAINT_IT_POWER;
  if (broken & kCapSubstation) return BINDING_CONSTRAINT_SUBSTATION;
  if (broken & kCapBudget) return BINDING_CONSTRAINT_BUDGET;
  if (broken & kCapBuildings) return BINDING_CONSTRAINT_BUILDINGS;
  if (broken & kCapMaxGpus) return BINDING_CONSTRAINT_MAX_GPUS;
  if (broken & kCapSizeLimit) return BINDING_CONSTRAINT_SIZE_LIMIT;
  return BINDING_CONSTRAINT_NONE;
}

CapHeadroom HeadroomOf(const Model& m, const ClusterEval& e) {
  CapHeadroom h;
  if (m.caps.has_power_cap) {
    switch (m.caps.power_cap_at) {
      case POWER_CAP_AT_IT:
        h.has_it_power = true;
        h.it_power = m.caps.power_cap - e.it_power;
        break;
      case POWER_CAP_AT_SUBSTATION:
        break;  // reported as the substation's headroom below
      default:
        h.has_facility_power = true;
        h.facility_power = m.caps.power_cap - e.facility_power;
    }
  }
  if (m.site.has_substation) {
    h.has_substation = true;
    h.substation = m.site.substation_capacity - e.facility_power;
  }
  if (m.caps.max_gpus > 0) {
    h.has_gpus = true;
    h.gpus = m.caps.max_gpus - e.gpus;
  }
  if (m.site.max_buildings > 0) {
    h.has_buildings = true;
    h.buildings = m.site.max_buildings - e.buildings;
  }
  if (m.caps.has_budget) {
    h.has_budget = true;
    h.budget = m.caps.budget - BudgetUse(m, e);
  }
  return h;
}

absl::StatusOr<Solution> Solve(const Model& m) {
  const int64_t gps = m.server.gpus;
  // Upper bound on the server count from every cap: each server adds at least its own IT power (and
  // that times the PUE at the meter), its price, and its share of the facility cost.
  const double server_it = units::InWatts(m.ServerPower());
  const double server_meter = server_it * units::InFraction(m.site.pue);
  double hi = std::numeric_limits<double>::infinity();
  bool capped = false;
  if (m.caps.has_power_cap) {
    const double per = m.caps.power_cap_at == POWER_CAP_AT_IT ? server_it : server_meter;
    hi = std::min(hi, ServersWithin(units::InWatts(m.caps.power_cap), per));
    capped = true;
  }
  if (m.site.has_substation) {
    hi = std::min(hi, ServersWithin(units::InWatts(m.site.substation_capacity), server_meter));
    capped = true;
  }
  if (m.caps.max_gpus > 0) {
    hi = std::min(hi, std::ceil(D(m.caps.max_gpus) / D(gps)));
    capped = true;
  }
  if (m.site.max_buildings > 0 && m.pods_per_building > 0) {
    hi = std::min(hi, D(m.site.max_buildings) * D(m.pods_per_building) * D(m.racks_per_pod) *
                          D(m.servers_per_rack));
    capped = true;
  }
  if (m.caps.has_budget) {
    // Per server at least: its price and its facility share; under TCO also maintenance on those and
    // its average energy over the horizon.
    const double years = units::InYears(m.costs.horizon);
    double per = units::InUsd(m.server.price) +
                 units::InUsdPerWatt(m.costs.facility_per_it_power) * server_it;
    if (m.caps.budget_on == BUDGET_ON_TCO) {
      per = per * (1.0 + units::InFraction(m.costs.maintenance_per_year) * years) +
            units::InUsd(m.ServerPower() * m.costs.average_utilization * m.site.pue *
                         units::Years(years) * m.costs.electricity);
    }
    if (per > 0) {
      hi = std::min(hi, ServersWithin(units::InUsd(m.caps.budget), per));
      capped = true;
    } else if (!capped) {
      return absl::FailedPreconditionError(
          "constraints.budget_usd is the only cap but nothing in the request has a price: set "
          "hardware.server.price_usd or hardware.accelerator.price_usd");
    }
  }
  if (!capped) {
    return absl::FailedPreconditionError(
        "no cap to solve under: set constraints.power_cap_watts, constraints.budget_usd, "
        "constraints.max_gpus, site.max_buildings or a rated site.substation");
  }
  // Never search beyond dcplan's size limit (one server past it, so the limit can bind).
  const int64_t size_limit_servers = kMaxGpus / gps + 1;
  int64_t high = hi >= D(size_limit_servers) ? size_limit_servers : static_cast<int64_t>(hi);
  int64_t low = 0;
  // Invariant: every size <= low is feasible or low == 0; every size > high is infeasible.
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (BrokenCaps(m, EvaluateForCaps(m, mid * gps)) == 0) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  Solution s;
  s.largest_feasible_servers = low;
  s.servers = low;
  const uint32_t at_low = BrokenCaps(m, EvaluateForCaps(m, low * gps));
  if (at_low != 0) {
    // Even an empty cluster breaks a cap (a budget below the site's fixed cost).
    s.broken_by_one_more = at_low;
  } else {
    s.broken_by_one_more = BrokenCaps(m, EvaluateForCaps(m, (low + 1) * gps));
  }
  s.binding = FirstBrokenCap(s.broken_by_one_more);

  if (m.caps.objective == OBJECTIVE_MAX_REALIZED_COMPUTE && low > 1) {
    int64_t best = low;
    double best_rate = units::InFlopsPerSecond(EvaluateCluster(m, low * gps).realized);
    for (double g : m.realized_candidates) {
      const double center = std::floor(g / D(gps));
      for (double c : {center, center + 1.0}) {
        if (c < 1.0 || c >= D(low)) continue;
        const int64_t n = static_cast<int64_t>(c);
        const double rate = units::InFlopsPerSecond(EvaluateCluster(m, n * gps).realized);
        if (rate > best_rate || (rate == best_rate && n < best)) {
          best = n;
          best_rate = rate;
        }
      }
    }
    if (best != low) {
      s.servers = best;
      s.binding = BINDING_CONSTRAINT_DIMINISHING_RETURNS;
    }
  }
  s.eval = EvaluateCluster(m, s.servers * gps);
  s.headroom = HeadroomOf(m, s.eval);
  return s;
}

}  // namespace dcplan

#include "planner/fabric.h"

#include <algorithm>
#include <cmath>

#include "base/numbers.h"

namespace dcplan {

double FullBisectionHosts(int64_t radix, int tiers) {
  return 2.0 * std::pow(static_cast<double>(radix) / 2.0, tiers);
}

double FatTreeMaxEndpoints(int64_t radix, int64_t leaf_downlinks) {
  // SizeFatTree's loop run to the last tier it allows: d k (k/2)^(kMaxFabricTiers - 2).
  const double half = static_cast<double>(radix) / 2.0;
  double capacity = static_cast<double>(leaf_downlinks) * static_cast<double>(radix);
  for (int tiers = 3; tiers <= kMaxFabricTiers; ++tiers) capacity *= half;
  return capacity;
}

FabricSize SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks) {
  FabricSize f;
  SizeFatTree(endpoints, radix, leaf_downlinks, &f);
  return f;
}

void SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks, FabricSize* out) {
  // Every field is set below, in place: the solver sizes a fabric per probe, into the previous
  // probe's. Of the tiers only those the old size used can be non-zero; they are cleared first.
  FabricSize& f = *out;
  const int old_tiers = std::min(std::max(f.tiers, 0), kMaxFabricTiers);
  for (int t = 0; t < old_tiers; ++t) f.switches_per_tier[t] = 0;
  f.tiers = 0;
  f.switch_count = 0;
  f.endpoint_count = endpoints;
  f.optic_count = 0;
  f.fits = true;
  if (endpoints <= 0) return;
  if (endpoints <= radix) {
    f.tiers = 1;
    f.switches_per_tier[0] = 1;
    f.switch_count = 1;
    f.optic_count = 2 * endpoints;
    return;
  }
  const int64_t d = leaf_downlinks;
  const int64_t u = radix - d;
  const double half = static_cast<double>(radix) / 2.0;
  // Capacity of t tiers: d k (k/2)^(t-2), compared in doubles (it overflows int64 quickly).
  double capacity = static_cast<double>(d) * static_cast<double>(radix);
  int tiers = 2;
  while (static_cast<double>(endpoints) > capacity) {
    if (++tiers > kMaxFabricTiers) {
      f.fits = false;
      return;
    }
    capacity *= half;
  }
  const int64_t leaves = CeilDiv(endpoints, d);
  const int64_t uplinks = leaves * u;
  const int64_t middle = CeilDiv(uplinks, radix / 2);  // each middle tier
  const int64_t top = CeilDiv(uplinks, radix);
  f.tiers = tiers;
  f.switches_per_tier[0] = leaves;
  for (int t = 1; t < tiers - 1; ++t) f.switches_per_tier[t] = middle;
  f.switches_per_tier[tiers - 1] = top;
  f.switch_count = leaves + static_cast<int64_t>(tiers - 2) * middle + top;
  f.optic_count = 2 * endpoints + 2 * static_cast<int64_t>(tiers - 1) * uplinks;
}

}  // namespace dcplan

#include "planner/fabric.h"

#include <cmath>

namespace dcplan {
namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

double FullBisectionHosts(int64_t radix, int tiers) {
  return 2.0 * std::pow(static_cast<double>(radix) / 2.0, tiers);
}

FabricSize SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks) {
  FabricSize f;
  f.endpoint_count = endpoints;
  if (endpoints <= 0) return f;
  if (endpoints <= radix) {
    f.tiers = 1;
    f.switches_per_tier[0] = 1;
    f.switch_count = 1;
    f.optic_count = 2 * endpoints;
    return f;
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
      return f;
    }
    capacity *= half;
  }
  const int64_t leaves = CeilDiv(endpoints, d);
  const int64_t uplinks = leaves * u;
  f.tiers = tiers;
  f.switches_per_tier[0] = leaves;
  for (int t = 1; t < tiers - 1; ++t) f.switches_per_tier[t] = CeilDiv(uplinks, radix / 2);
  f.switches_per_tier[tiers - 1] = CeilDiv(uplinks, radix);
  for (int t = 0; t < tiers; ++t) f.switch_count += f.switches_per_tier[t];
  f.optic_count = 2 * endpoints + 2 * static_cast<int64_t>(tiers - 1) * uplinks;
  return f;
}

}  // namespace dcplan

#include "planner/fabric.h"

#include <algorithm>
#include <cmath>

#include "base/numbers.h"

namespace dcplan {
namespace {
// Links a top-of-rack leaf that serves `ports` (<= d) NICs sends up: its share of the u uplinks.
int64_t LeafUplinks(int64_t ports, const Divisor& d, int64_t u) { return CeilDiv(ports * u, d); }

// Leaves and the links above them for `ports` NIC ports that share leaves only within themselves
// (one rack), `d` down and `u` up per leaf.
void GroupLeaves(int64_t ports, const Divisor& d, int64_t u, int64_t* leaves, int64_t* links) {
  const int64_t full = ports / d;
  const int64_t rest = ports % d;
  *leaves += full + (rest > 0);
  *links += full * u + LeafUplinks(rest, d, u);
}
}  // namespace

int64_t DownlinksAt(int64_t radix, double oversubscription) {
  return static_cast<int64_t>(
      std::floor(static_cast<double>(radix) * oversubscription / (1.0 + oversubscription) + 1e-9));
}

FabricSpec FatTreeSpec(int64_t radix, int64_t leaf_downlinks) {
  FabricSpec s;
  s.radix = radix;
  s.downlinks.fill(radix / 2);
  s.downlinks[0] = leaf_downlinks;
  return s;
}

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
  SizeFabric(FatTreeSpec(radix, leaf_downlinks), endpoints, out);
}

void SizeFabric(const FabricSpec& spec, int64_t endpoints, FabricSize* out) {
  // Every field is set below, in place: the solver sizes a fabric per probe, into the previous
  // probe's. Of the tiers only those the old size used can be non-zero; they are cleared first.
  FabricSize& f = *out;
  const int old_tiers = std::min(std::max(f.tiers, 0), kMaxFabricTiers);
  for (int t = 0; t < old_tiers; ++t) f.switches_per_tier[t] = 0;
  f.tiers = 0;
  f.switch_count = 0;
  f.endpoint_count = endpoints;
  f.optic_count = 0;
  f.copper_count = 0;
  f.fits = true;
  if (endpoints <= 0) return;
  const bool copper = spec.layout == LeafLayout::kTopOfRack;
  // NIC links: a NIC end and a leaf end each.
  if (copper) {
    f.copper_count = 2 * endpoints;
  } else {
    f.optic_count = 2 * endpoints;
  }
  const Divisor& k = spec.radix;
  if (endpoints <= k) {
    f.tiers = 1;
    f.switches_per_tier[0] = 1;
    f.switch_count = 1;
    return;
  }
  const Divisor& d = spec.downlinks[0];
  const int64_t u = k - d;
  int64_t leaves = 0;
  int64_t links = 0;
  switch (spec.layout) {
    case LeafLayout::kPacked:
      leaves = CeilDiv(endpoints, d);
      links = leaves * u;
      break;
    case LeafLayout::kTopOfRack: {
      const int64_t racks = endpoints / spec.ports_per_rack;
      int64_t rack_leaves = 0;
      int64_t rack_links = 0;
      GroupLeaves(spec.ports_per_rack, d, u, &rack_leaves, &rack_links);
      leaves = racks * rack_leaves;
      links = racks * rack_links;
      GroupLeaves(endpoints % spec.ports_per_rack, d, u, &leaves, &links);
      break;
    }
    case LeafLayout::kRailOptimized: {
      // Rails: one per NIC port of a server; each rail's leaves serve d servers, and a leaf
      // serving fewer gets its share of the uplinks (as a top-of-rack leaf does).
      const int64_t servers = CeilDiv(endpoints, spec.ports_per_server);
      int64_t rail_leaves = 0;
      int64_t rail_links = 0;
      GroupLeaves(servers, d, u, &rail_leaves, &rail_links);
      leaves = spec.ports_per_server * rail_leaves;
      links = spec.ports_per_server * rail_links;
      break;
    }
  }
  // The fewest tiers that hold the leaves: t tiers hold k d_2 ... d_{t-1} of them (in doubles: the
  // product overflows int64 quickly).
  double most_leaves = static_cast<double>(k);
  int tiers = 2;
  while (static_cast<double>(leaves) > most_leaves) {
    if (++tiers > kMaxFabricTiers) {
      f.fits = false;
      f.optic_count = 0;
      f.copper_count = 0;
      return;
    }
    most_leaves *= static_cast<double>(spec.downlinks[tiers - 2]);
  }
  f.tiers = tiers;
  f.switches_per_tier[0] = leaves;
  f.switch_count = leaves;
  int64_t inter_tier_links = links;
  for (int t = 1; t < tiers - 1; ++t) {
    const Divisor& dt = spec.downlinks[t];
    const int64_t switches = CeilDiv(links, dt);
    f.switches_per_tier[t] = switches;
    f.switch_count += switches;
    // Links on up from this tier: its downlinks' traffic at its oversubscription.
    links = CeilDiv(links * (k - dt), dt);
    inter_tier_links += links;
  }
  const int64_t top = CeilDiv(links, k);
  f.switches_per_tier[tiers - 1] = top;
  f.switch_count += top;
  f.optic_count += 2 * inter_tier_links;
}

}  // namespace dcplan

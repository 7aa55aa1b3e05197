// File: planner/fabric.h
//
// Sizing the scale-out network: a fat tree (folded Clos) of identical radix-k switches for H endpoints
// (NIC ports). With full bisection, a 2-tier leaf-spine tree serves k^2/2 hosts with 3k/2 switches and a
// 3-tier tree k^3/4 hosts with 5k^2/4 switches (k = 64: 2,048 and 65,536 hosts). In general, with d
// downlinks and u = k - d uplinks per leaf (d = k/2 at full bisection; d/u is the leaf
// oversubscription):
//   - H <= k:  one switch, no uplinks (tiers = 1);
//   - else t tiers, the least with H <= d k (k/2)^(t-2); leaves = ceil(H / d); every middle tier has
//     ceil(leaves u / (k/2)) switches and the top tier ceil(leaves u / k).
// Optics (transceivers or cable ends): one per NIC port, one per leaf downlink, and two per link between
// tiers (leaves x u links between each pair of adjacent tiers).
//
// Pure, O(tiers), no allocation: the solver calls it for every candidate cluster size.
//
// Example:
//   FabricSize f = SizeFatTree(/*endpoints=*/4096, /*radix=*/64, /*leaf_downlinks=*/32);
//   // f.tiers == 3, f.switches_per_tier = {128, 128, 64}
#pragma once

#include <array>
#include <cstdint>

namespace dcplan {

// Deepest fat tree dcplan sizes: 8 tiers of radix 4 still serve 2 x 4 x 2^6 = 512 hosts, and every
// realistic radix reaches any validated cluster size long before.
inline constexpr int kMaxFabricTiers = 12;

struct FabricSize {
  int tiers = 0;                                     // 0 = no endpoints
  std::array<int64_t, kMaxFabricTiers> switches_per_tier{};  // leaf first; [tiers..] are 0
  int64_t switch_count = 0;
  int64_t endpoint_count = 0;
  int64_t optic_count = 0;
  bool fits = true;  // false when even kMaxFabricTiers tiers cannot serve the endpoints
};

// Sizes a fat tree of radix `radix` (>= 4, even) whose leaves use `leaf_downlinks` ports (1 ..
// radix - 1) towards the endpoints and the rest upwards.
FabricSize SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks);

// The same, written over `*fabric` (the cluster evaluator's probes size a fabric in place), which
// must hold a FabricSize as this header describes it (tiers past `tiers` zero), e.g. the last one.
void SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks, FabricSize* fabric);

// The most endpoints SizeFatTree can serve with at most kMaxFabricTiers tiers (its `fits` is
// endpoints <= this, computed the same way), for a caller that needs only that answer.
double FatTreeMaxEndpoints(int64_t radix, int64_t leaf_downlinks);

// Hosts a full-bisection fat tree of `tiers` tiers of radix `radix` serves: 2 (k/2)^tiers.
double FullBisectionHosts(int64_t radix, int tiers);

}  // namespace dcplan

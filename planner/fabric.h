// File: planner/fabric.h
//
// Sizing the scale-out network: a fat tree (folded Clos) of identical radix-k switches for H
// endpoints (NIC ports). With full bisection, a 2-tier leaf-spine tree serves k^2/2 hosts with 3k/2
// switches and a 3-tier tree k^3/4 hosts with 5k^2/4 switches (k = 64: 2,048 and 65,536 hosts).
//
// In general every tier below the top may be oversubscribed: a switch of tier i has d_i ports down
// and u_i = k - d_i up (d_i / u_i is the tier's oversubscription; d = k/2 at full bisection), and
// the top tier points all k ports down.
//   - H <= k:  one switch, no uplinks (tiers = 1);
//   - else the leaves: ceil(H / d_1) of them; or, with leaves at the top of each rack, per rack (a
//     leaf serves one rack's NICs); or, rail-optimized, ceil(servers / d_1) per rail (a leaf serves
//     the n-th NIC of d_1 servers);
//   - links above the leaves: u_1 per full leaf (a top-of-rack or rail leaf that serves p < d_1
//     NICs gets ceil(p u_1 / d_1)); each tier i above carries ceil(links_{i-1} u_i / d_i) links on
//     up and has ceil(links_{i-1} / d_i) switches; the top tier has ceil(links / k);
//   - t tiers hold at most k d_2 ... d_{t-1} leaves (each top switch reaches one tier-(t-1) block
//     per port); the fabric takes the fewest tiers that hold its leaves.
// Optics (transceivers or cable ends): two per NIC link (NIC and leaf ends; copper cable ends
// instead with top-of-rack leaves) and two per link between tiers.
//
// Pure, O(tiers), no allocation: the solver calls it for every candidate cluster size.
//
// Example:
//   FabricSize f = SizeFatTree(/*endpoints=*/4096, /*radix=*/64, /*leaf_downlinks=*/32);
//   // f.tiers == 3, f.switches_per_tier = {128, 128, 64}
#pragma once

#include <array>
#include <cstdint>

#include "base/numbers.h"

namespace dcplan {

// Deepest fat tree dcplan sizes: 8 tiers of radix 4 still serve 2 x 4 x 2^6 = 512 hosts, and every
// realistic radix reaches any validated cluster size long before.
inline constexpr int kMaxFabricTiers = 12;

struct FabricSize {
  int tiers = 0;                                             // 0 = no endpoints
  std::array<int64_t, kMaxFabricTiers> switches_per_tier{};  // leaf first; [tiers..] are 0
  int64_t switch_count = 0;
  int64_t endpoint_count = 0;
  int64_t optic_count = 0;
  int64_t copper_count = 0;  // copper cable ends (top-of-rack NIC links)
  bool fits = true;          // false when even kMaxFabricTiers tiers cannot serve the endpoints
};

// Where the leaves sit and how NICs map onto them.
enum class LeafLayout {
  kPacked,        // leaves anywhere, every port used (end of row)
  kTopOfRack,     // a leaf (or several) in each rack, serving that rack's NICs over copper
  kRailOptimized  // a leaf serves one rail: the n-th NIC of up to d_1 servers
};

// The shape of a fabric, fixed by the request: the model derives it once. Its port counts are
// Divisors (base/numbers.h): each sizing divides by them along the tiers, and they read as int64_t.
struct FabricSpec {
  Divisor radix = 0;
  // Ports facing down at tier i (leaf = [0]) when tier i is not the top; the top tier uses all.
  std::array<Divisor, kMaxFabricTiers> downlinks{};
  LeafLayout layout = LeafLayout::kPacked;
  Divisor ports_per_server = 1;  // NIC ports per server (GPUs per server x NICs per GPU)
  Divisor ports_per_rack = 1;    // NIC ports per full rack
};

// A spec for a fat tree whose leaves use `leaf_downlinks` ports down and every tier above is at
// full bisection.
FabricSpec FatTreeSpec(int64_t radix, int64_t leaf_downlinks);

// Sizes the fabric for `endpoints` NIC ports (installed servers x ports per server) over `*fabric`
// (the cluster evaluator's probes size a fabric in place), which must hold a FabricSize as this
// header describes it (tiers past `tiers` zero), e.g. the last one.
void SizeFabric(const FabricSpec& spec, int64_t endpoints, FabricSize* fabric);

// Sizes a fat tree of radix `radix` (>= 4, even) whose leaves use `leaf_downlinks` ports (1 ..
// radix - 1) towards the endpoints and the rest upwards, every tier above at full bisection.
FabricSize SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks);

// The same, written over `*fabric`.
void SizeFatTree(int64_t endpoints, int64_t radix, int64_t leaf_downlinks, FabricSize* fabric);

// The most endpoints SizeFatTree can serve with at most kMaxFabricTiers tiers (its `fits` is
// endpoints <= this, computed the same way), for a caller that needs only that answer.
double FatTreeMaxEndpoints(int64_t radix, int64_t leaf_downlinks);

// Hosts a full-bisection fat tree of `tiers` tiers of radix `radix` serves: 2 (k/2)^tiers.
double FullBisectionHosts(int64_t radix, int tiers);

// Ports down of a radix-`radix` switch at `oversubscription` down per up: floor(k o / (1 + o)).
int64_t DownlinksAt(int64_t radix, double oversubscription);

}  // namespace dcplan

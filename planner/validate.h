// File: planner/validate.h
//
// The PlanRequest validator: the gate every request passes before it becomes a typed model. It
// checks each field against the requirement written in its comment in proto/request.proto, plus a
// few hard limits of dcplan's own (below) that keep counts and products far from overflow
// downstream, so the model, evaluator and solver may assume a well-formed request.
//
// Modeled on or-tools' model_validator: one small function per message, errors name the full field
// path and the offending value, and the FIRST error in field order is returned:
//   `site.pue must be >= 1.0, got 0.9`
//   `hardware.accelerator.peak_flops_per_second must be finite, got nan`
//   `efficiency.table.points[2].gpus must be greater than points[1].gpus (512), got 256`
//
// Status codes:
// - InvalidArgument: a field breaks its own requirement (negative, zero where required, NaN or
//   infinity, outside (0, 1], unknown enum value, a schema_version newer than this reader knows,
//   table points not increasing).
// - OutOfRange: a value above an upper bound that could be raised some day: the proto's own size
//   bounds (gpus_per_server <= 1024, nics_per_gpu <= 16, pue <= 5, horizon_years <= 50) and the
//   hard limits in dcplan::limits.
// - FailedPrecondition: fields that are fine alone but impossible together, e.g. REDUNDANCY_2N
//   with an odd transformer count, a rack power limit below one server plus the rack overhead (a
//   rack that can hold no server), slope_per_doubling >= intercept, measured_power_watts >
//   tdp_watts.
//
// Presence: `optional` fields are checked only when present. A cross-field requirement is checked
// on the effective values (a default stands in for an absent field) whenever at least one of the
// fields involved is present, e.g. `log_linear { intercept: 0.015 }` fails because the default
// slope 0.02 is not below it. hardware.rack may be absent (no rack level); when present,
// max_servers_per_rack is required. Strings (names) are free text and not checked.
//
// Example:
//   PlanRequest request;
//   ...
//   absl::Status status = ValidateRequest(request);
//   if (!status.ok()) {
//     // e.g. "hardware.server.gpus_per_server must be >= 1, got 0"
//     std::cerr << status.message() << "\n";
//     return 2;
//   }
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/request.pb.h"

namespace dcplan {

// Hard limits enforced by ValidateRequest (status OutOfRange). They are far above any real data
// center; they exist so that counts fit comfortably in 64-bit integers and sums/products of doubles
// stay finite.
namespace limits {

// hardware.server.gpus_per_server (from the proto).
inline constexpr uint32_t kMaxGpusPerServer = 1024;
// hardware.rack.max_servers_per_rack.
inline constexpr uint32_t kMaxServersPerRack = 4096;
// hardware.pod.racks_per_pod.
inline constexpr uint32_t kMaxRacksPerPod = 1000000;
// hardware.network.scale_up_domain_gpus.
inline constexpr uint32_t kMaxScaleUpDomainGpus = 1000000;
// hardware.network.nics_per_gpu (from the proto).
inline constexpr uint32_t kMaxNicsPerGpu = 16;
// hardware.network.switch_radix.
inline constexpr uint32_t kMaxSwitchRadix = 65536;
// site.max_buildings.
inline constexpr uint32_t kMaxBuildings = 1000000;
// site.substation.transformer_count.
inline constexpr uint32_t kMaxTransformers = 10000;
// constraints.max_gpus and every efficiency.table.points[i].gpus. A solver may also use it as the
// upper bound of its search when no cap bounds the cluster more tightly.
inline constexpr uint64_t kMaxGpus = 1000000000000;  // 1e12
// efficiency.table.points size.
inline constexpr int kMaxMfuTablePoints = 10000;

// hardware.accelerator.peak_flops_per_second, in FLOP/s.
inline constexpr double kMaxPeakFlopsPerSecond = 1e20;
// Every power figure (TDP, overheads, switch and optic power, rack limit, building power, power
// cap), in watts.
inline constexpr double kMaxWatts = 1e15;
// site.substation.transformer_rating_va, in volt-amperes.
inline constexpr double kMaxVoltAmperes = 1e15;
// Every money figure (prices, budget, fixed and yearly costs, USD per watt, USD per kWh), in USD.
inline constexpr double kMaxUsd = 1e15;
// hardware.accelerator.hbm_bytes, in bytes.
inline constexpr double kMaxBytes = 1e15;
// HBM and scale-up bandwidths, in bytes per second.
inline constexpr double kMaxBytesPerSecond = 1e15;
// hardware.network.port_bits_per_second, in bits per second.
inline constexpr double kMaxBitsPerSecond = 1e15;
// site.pue (from the proto).
inline constexpr double kMaxPue = 5.0;
// costs.horizon_years, it_life_years, facility_life_years (from the proto).
inline constexpr double kMaxHorizonYears = 50.0;
// costs.it_life_years and facility_life_years: at least about four days, so that a horizon's
// capital charge (horizon / annuity x capex) stays within a double's range.
inline constexpr double kMinAssetLifeYears = 0.01;
// costs.horizon_years when constraints.budget_on is BUDGET_ON_TCO with a budget: at least a quarter
// of a year. A TCO charges the horizon's share of the capital, so as the horizon shrinks a TCO
// budget buys without bound (a $10B TCO budget over 1e-9 years bought 10^12 H100s); a quarter
// already buys 14 times what the same money buys outright.
inline constexpr double kMinTcoHorizonYears = 0.25;
// hardware.network.upper_tier_oversubscription size (tiers above the leaf, top excluded).
inline constexpr int kMaxUpperTierOversubscriptions = 11;
// hardware.auxiliary.head_nodes.
inline constexpr uint32_t kMaxHeadNodes = 100000;
// hardware.auxiliary.*_price_fraction.
inline constexpr double kMaxPriceFraction = 10.0;

}  // namespace limits

// Checks every field of `request` against the requirements written in proto/request.proto and the
// limits above. Returns OK, or the first error in field order (see the status codes above).
absl::Status ValidateRequest(const PlanRequest& request);

// The parts of a request, as bits: what a validation check reads. The hardware has one bit per
// message in it.
enum RequestSection : unsigned {
  kRequestAccelerator = 1u << 0,
  kRequestServer = 1u << 1,
  kRequestRack = 1u << 2,
  kRequestPod = 1u << 3,
  kRequestNetwork = 1u << 4,
  kRequestAuxiliary = 1u << 5,
  kRequestCalibration = 1u << 6,
  kRequestHardwareOther = 1u << 7,  // hardware's own fields (its name)
  kRequestHardware = (1u << 8) - 1,
  kRequestSite = 1u << 8,
  kRequestEfficiency = 1u << 9,
  kRequestConstraints = 1u << 10,
  kRequestCosts = 1u << 11,
  kRequestWorkload = 1u << 12,
  kRequestRest = 1u << 13,  // schema_version, sources, uncertain, monte_carlo, names
  kRequestAll = (1u << 14) - 1,
};

// The section a field path lies in ("site.substation.power_factor" -> kRequestSite,
// "hardware.rack.power_limit_watts" -> kRequestRack).
unsigned RequestSectionOf(absl::string_view path);

// Whether `moved` passes ValidateRequest, for a request that did pass it before fields in
// `sections` (and only those) changed: the same verdict from only the checks that read those
// sections (every check reads just the messages it is handed). The ledger's influence moves change
// one number each and re-solve ~35 times a plan; this skips ~half the checks of each. A request
// with uncertain inputs is checked whole. validate_test compares it with ValidateRequest on every
// preset's moves.
bool ValidAfterMove(const PlanRequest& moved, unsigned sections);

}  // namespace dcplan

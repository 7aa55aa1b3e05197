// File: planner/validate.cc
//
// One Validate function per message, in the order of proto/request.proto. Each takes the path of
// its message (e.g. "hardware.accelerator") and builds a field path only when it reports an error,
// so a valid request is checked without allocating.
#include "planner/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/field_checks.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "planner/defaults.h"
#include "planner/presets/models.h"
#include "planner/request_edit.h"
#include "planner/uncertain.h"
#include "planner/workload/power_limit.h"
#include "planner/workload/workload_validate.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

// The defaults proto/request.proto documents for absent optional fields that take part in a
// cross-field requirement.
constexpr double kDefaultIntercept = defaults::kMfuIntercept;
constexpr double kDefaultSlopePerDoubling = defaults::kMfuSlopePerDoubling;
constexpr double kDefaultFloor = defaults::kMfuFloor;

// ------------------------------------------------------------------------------------------------
// Formatting
// ------------------------------------------------------------------------------------------------

// ------------------------------------------------------------------------------------------------
// Field checks beyond base/field_checks.h's.
// ------------------------------------------------------------------------------------------------

// Finite and in (0, 1].
absl::Status CheckFraction(absl::string_view prefix, absl::string_view field, double value) {
  return CheckInRange(prefix, field, value, 0, 1, kOpenLow);
}

// ", got 0.02" or ", got 0.02 (the default)" for a value that may stand in for an absent field.
std::string Got(double value, bool present) {
  return absl::StrCat(", got ", FormatDouble(value), present ? "" : " (the default)");
}

// "(0.62)" or "(0.62, the default)".
std::string Bound(double value, bool present) {
  return absl::StrCat("(", FormatDouble(value), present ? "" : ", the default", ")");
}

// ------------------------------------------------------------------------------------------------
// Hardware
// ------------------------------------------------------------------------------------------------

// A measured draw under training load: 0 (= the nameplate) or in (0, nameplate].
absl::Status CheckMeasured(absl::string_view path, absl::string_view field, double measured,
                           absl::string_view nameplate_field, double nameplate) {
  DCPLAN_RETURN_IF_ERROR(CheckFinite(path, field, measured));
  if (measured == 0) return absl::OkStatus();
  if (!(measured > 0 && measured <= limits::kMaxWatts)) {  // the note is built only to fail
    DCPLAN_RETURN_IF_ERROR(
        CheckPositive(path, field, measured, limits::kMaxWatts,
                      absl::StrCat(" when set (0 = use ", nameplate_field, ")")));
  }
  if (measured > nameplate) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(path, field), " must be <= ", nameplate_field, " (",
                     FormatDouble(nameplate), "), got ", FormatDouble(measured)));
  }
  return absl::OkStatus();
}

// Finite and in [0, max].
absl::Status CheckFractionOrZero(absl::string_view prefix, absl::string_view field, double value,
                                 double max = 1.0) {
  return CheckInRange(prefix, field, value, 0, max);
}

absl::Status ValidateAccelerator(const Accelerator& accelerator, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckPositive(path, "peak_flops_per_second",
                                       accelerator.peak_flops_per_second(),
                                       limits::kMaxPeakFlopsPerSecond));
  DCPLAN_RETURN_IF_ERROR(
      CheckPositive(path, "tdp_watts", accelerator.tdp_watts(), limits::kMaxWatts));
  // 0 = use tdp_watts; otherwise > 0 and <= tdp_watts.
  DCPLAN_RETURN_IF_ERROR(CheckMeasured(path, "measured_power_watts",
                                       accelerator.measured_power_watts(), "tdp_watts",
                                       accelerator.tdp_watts()));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "hbm_bytes", accelerator.hbm_bytes(), limits::kMaxBytes));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "hbm_bandwidth_bytes_per_second",
                                          accelerator.hbm_bandwidth_bytes_per_second(),
                                          limits::kMaxBytesPerSecond));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "peak_fp8_flops_per_second",
                                          accelerator.peak_fp8_flops_per_second(),
                                          limits::kMaxPeakFlopsPerSecond));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "peak_fp4_flops_per_second",
                                          accelerator.peak_fp4_flops_per_second(),
                                          limits::kMaxPeakFlopsPerSecond));
  DCPLAN_RETURN_IF_ERROR(ValidatePowerLimit(accelerator, path));
  return CheckNonNegative(path, "price_usd", accelerator.price_usd(), limits::kMaxUsd);
}

// A valid accelerator's provisioned power, under its power limit when one is set (as
// planner/model.cc builds it: the limit is the nameplate, min(measured, limit) the draw).
double ProvisionedGpuWatts(const Accelerator& gpu, const Provisioning& provisioning) {
  const double limit = gpu.power_limit_watts() > 0 ? gpu.power_limit_watts() : gpu.tdp_watts();
  const double measured =
      gpu.measured_power_watts() > 0 ? std::min(gpu.measured_power_watts(), limit) : 0.0;
  return defaults::ProvisionedWatts(limit, measured, provisioning);
}

absl::Status ValidateServer(const Server& server, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckCountAtLeast(path, "gpus_per_server", server.gpus_per_server(), 1));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "gpus_per_server", server.gpus_per_server(),
                                          limits::kMaxGpusPerServer));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "overhead_watts", server.overhead_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "price_usd", server.price_usd(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "non_gpu_price_usd", server.non_gpu_price_usd(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(CheckMeasured(path, "measured_overhead_watts",
                                       server.measured_overhead_watts(), "overhead_watts",
                                       server.overhead_watts()));
  return CheckEnum(path, "required_cooling", server.required_cooling(), Cooling_IsValid, "Cooling");
}

// `accelerator` and `server` are already valid: a set power limit must fit one server (accelerators
// and server overhead at their provisioned power under `provisioning`) plus the rack overhead.
absl::Status ValidateRack(const Rack& rack, const Accelerator& accelerator, const Server& server,
                          const Provisioning& provisioning, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtLeast(path, "max_servers_per_rack", rack.max_servers_per_rack(), 1));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "max_servers_per_rack", rack.max_servers_per_rack(),
                                          limits::kMaxServersPerRack));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "power_limit_watts", rack.power_limit_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "overhead_watts", rack.overhead_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(CheckMeasured(path, "measured_overhead_watts",
                                       rack.measured_overhead_watts(), "overhead_watts",
                                       rack.overhead_watts()));
  if (rack.power_limit_watts() > 0) {
    const double gpu_watts = ProvisionedGpuWatts(accelerator, provisioning);
    const double server_overhead = defaults::ProvisionedWatts(
        server.overhead_watts(), server.measured_overhead_watts(), provisioning);
    const double rack_overhead = defaults::ProvisionedWatts(
        rack.overhead_watts(), rack.measured_overhead_watts(), provisioning);
    const double needed = server.gpus_per_server() * gpu_watts + server_overhead + rack_overhead;
    if (rack.power_limit_watts() < needed) {
      return absl::FailedPreconditionError(
          absl::StrCat(FieldPath(path, "power_limit_watts"),
                       " must be >= one server plus the rack overhead (", server.gpus_per_server(),
                       " x ", FormatDouble(gpu_watts), " + ", FormatDouble(server_overhead), " + ",
                       FormatDouble(rack_overhead), " = ", FormatDouble(needed), "), got ",
                       FormatDouble(rack.power_limit_watts()), ": a rack that can hold no server"));
    }
  }
  return CheckNonNegative(path, "price_usd", rack.price_usd(), limits::kMaxUsd);
}

absl::Status ValidatePod(const Pod& pod, absl::string_view path) {
  // 0 means the default 1, so every uint32 but the too-large ones is fine.
  return CheckCountAtMost(path, "racks_per_pod", pod.racks_per_pod(), limits::kMaxRacksPerPod);
}

absl::Status ValidateNetwork(const Network& network, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(
      path, "scale_up_domain_gpus", network.scale_up_domain_gpus(), limits::kMaxScaleUpDomainGpus));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "scale_up_bandwidth_bytes_per_second",
                                          network.scale_up_bandwidth_bytes_per_second(),
                                          limits::kMaxBytesPerSecond));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "nics_per_gpu", network.nics_per_gpu(), limits::kMaxNicsPerGpu));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(
      path, "port_bits_per_second", network.port_bits_per_second(), limits::kMaxBitsPerSecond));
  // Required when there is a scale-out network; a radix given without one must still be a radix.
  const uint32_t radix = network.switch_radix();
  const bool has_fabric = network.nics_per_gpu() > 0;
  if (has_fabric || radix != 0) {
    if (radix < 4 || radix % 2 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(FieldPath(path, "switch_radix"), " must be >= 4 and even",
                       has_fabric ? " (required when nics_per_gpu > 0)" : "", ", got ", radix));
    }
    DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "switch_radix", radix, limits::kMaxSwitchRadix));
  }
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "switch_power_watts", network.switch_power_watts(),
                                          limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "switch_price_usd", network.switch_price_usd(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "optic_power_watts", network.optic_power_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "optic_price_usd", network.optic_price_usd(), limits::kMaxUsd));
  if (network.has_leaf_oversubscription()) {
    const double oversubscription = network.leaf_oversubscription();
    DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "leaf_oversubscription", oversubscription));
    if (!(oversubscription >= 1)) {
      return absl::InvalidArgumentError(absl::StrCat(FieldPath(path, "leaf_oversubscription"),
                                                     " must be >= 1, got ",
                                                     FormatDouble(oversubscription)));
    }
    // A leaf of radix k with d downlinks per uplink has floor(k / (1 + d)) uplinks: at least one
    // needs d <= k - 1.
    if (has_fabric && oversubscription > radix - 1.0) {
      return absl::FailedPreconditionError(absl::StrCat(
          FieldPath(path, "leaf_oversubscription"),
          " must leave at least one uplink per leaf switch: at most switch_radix - 1 (", radix - 1,
          "), got ", FormatDouble(oversubscription)));
    }
  }
  DCPLAN_RETURN_IF_ERROR(CheckMeasured(path, "switch_measured_power_watts",
                                       network.switch_measured_power_watts(), "switch_power_watts",
                                       network.switch_power_watts()));
  const int tiers = network.upper_tier_oversubscription_size();
  if (tiers > limits::kMaxUpperTierOversubscriptions) {
    return absl::OutOfRangeError(
        absl::StrCat(FieldPath(path, "upper_tier_oversubscription"), " must have at most ",
                     limits::kMaxUpperTierOversubscriptions, " entries, got ", tiers));
  }
  for (int i = 0; i < tiers; ++i) {
    const std::string field = absl::StrCat("upper_tier_oversubscription[", i, "]");
    const double o = network.upper_tier_oversubscription(i);
    DCPLAN_RETURN_IF_ERROR(CheckFinite(path, field, o));
    if (!(o >= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(FieldPath(path, field), " must be >= 1, got ", FormatDouble(o)));
    }
    if (has_fabric && o > radix - 1.0) {
      return absl::FailedPreconditionError(
          absl::StrCat(FieldPath(path, field),
                       " must leave at least one uplink per switch: at most "
                       "switch_radix - 1 (",
                       radix - 1, "), got ", FormatDouble(o)));
    }
  }
  DCPLAN_RETURN_IF_ERROR(CheckEnum(path, "leaf_placement", network.leaf_placement(),
                                   LeafPlacement_IsValid, "LeafPlacement"));
  if (network.rail_optimized() && network.leaf_placement() == LEAF_PLACEMENT_TOP_OF_RACK) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "rail_optimized"),
        " is true but leaf_placement is LEAF_PLACEMENT_TOP_OF_RACK: a rail's leaf serves many "
        "racks, so it sits at the end of the row"));
  }
  return CheckNonNegative(path, "copper_cable_end_price_usd", network.copper_cable_end_price_usd(),
                          limits::kMaxUsd);
}

absl::Status ValidateAuxiliary(const AuxiliaryLoads& aux, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(
      CheckFractionOrZero(path, "storage_power_fraction", aux.storage_power_fraction()));
  DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(
      path, "storage_price_fraction", aux.storage_price_fraction(), limits::kMaxPriceFraction));
  DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "frontend_network_power_fraction",
                                             aux.frontend_network_power_fraction()));
  DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "frontend_network_price_fraction",
                                             aux.frontend_network_price_fraction(),
                                             limits::kMaxPriceFraction));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "head_nodes", aux.head_nodes(), limits::kMaxHeadNodes));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "head_node_power_watts",
                                          aux.head_node_power_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "head_node_price_usd", aux.head_node_price_usd(), limits::kMaxUsd));
  return CheckFractionOrZero(path, "hot_spare_fraction", aux.hot_spare_fraction());
}

absl::Status ValidateProvisioning(const Provisioning& p, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(
      CheckEnum(path, "basis", p.basis(), ProvisioningBasis_IsValid, "ProvisioningBasis"));
  if (p.has_margin()) {
    DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "margin", p.margin()));
  }
  return absl::OkStatus();
}

// The checks of the hardware that read a part in `sections` (RequestSection bits; all of them for
// ValidateRequest).
absl::Status ValidateHardware(const Hardware& hardware, const Site& site, absl::string_view path,
                              unsigned sections) {
  auto reads = [sections](unsigned parts) { return (sections & parts) != 0; };
  if (reads(kRequestAccelerator)) {
    DCPLAN_RETURN_IF_ERROR(
        ValidateAccelerator(hardware.accelerator(), SubPath(path, ".accelerator")));
  }
  if (reads(kRequestServer)) {
    DCPLAN_RETURN_IF_ERROR(ValidateServer(hardware.server(), SubPath(path, ".server")));
  }
  if (hardware.has_rack() &&
      reads(kRequestRack | kRequestAccelerator | kRequestServer | kRequestSite)) {
    // The rack limit is checked against power as the site provisions it: check that first.
    DCPLAN_RETURN_IF_ERROR(ValidateProvisioning(site.provisioning(), "site.provisioning"));
    DCPLAN_RETURN_IF_ERROR(ValidateRack(hardware.rack(), hardware.accelerator(), hardware.server(),
                                        site.provisioning(), SubPath(path, ".rack")));
  }
  if (reads(kRequestPod)) {
    DCPLAN_RETURN_IF_ERROR(ValidatePod(hardware.pod(), SubPath(path, ".pod")));
  }
  if (reads(kRequestNetwork)) {
    DCPLAN_RETURN_IF_ERROR(ValidateNetwork(hardware.network(), SubPath(path, ".network")));
  }
  if (reads(kRequestAuxiliary)) {
    return ValidateAuxiliary(hardware.auxiliary(), SubPath(path, ".auxiliary"));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------------------
// Site
// ------------------------------------------------------------------------------------------------

absl::Status ValidateBuilding(const Building& building, absl::string_view path) {
  return CheckNonNegative(path, "critical_it_power_watts", building.critical_it_power_watts(),
                          limits::kMaxWatts);
}

absl::Status ValidateSubstation(const Substation& substation, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(
      path, "transformer_rating_va", substation.transformer_rating_va(), limits::kMaxVoltAmperes));
  // 0 means the default 1.
  const uint32_t count = substation.transformer_count();
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "transformer_count", count, limits::kMaxTransformers));
  if (substation.has_power_factor()) {
    DCPLAN_RETURN_IF_ERROR(CheckFraction(path, "power_factor", substation.power_factor()));
  }
  DCPLAN_RETURN_IF_ERROR(
      CheckEnum(path, "redundancy", substation.redundancy(), Redundancy_IsValid, "Redundancy"));
  // The redundancy scheme must leave usable transformers; checked when the substation is rated or
  // its count is given.
  if (substation.transformer_rating_va() > 0 || count > 0) {
    const uint32_t effective_count = count == 0 ? 1 : count;
    const std::string got = absl::StrCat(", got ", count, count == 0 ? " (the default 1)" : "");
    if (substation.redundancy() == REDUNDANCY_2N && effective_count % 2 != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          FieldPath(path, "transformer_count"),
          " must be even with REDUNDANCY_2N (half of the transformers are held in reserve)", got));
    }
    if (substation.redundancy() == REDUNDANCY_N_PLUS_1 && effective_count < 2) {
      return absl::FailedPreconditionError(absl::StrCat(
          FieldPath(path, "transformer_count"),
          " must be >= 2 with REDUNDANCY_N_PLUS_1 (one transformer is held in reserve)", got));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSite(const Site& site, absl::string_view path) {
  if (site.has_pue()) {
    DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "pue", site.pue()));
    if (!(site.pue() >= 1.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(FieldPath(path, "pue"), " must be >= 1.0, got ", FormatDouble(site.pue())));
    }
    DCPLAN_RETURN_IF_ERROR(CheckAtMost(path, "pue", site.pue(), limits::kMaxPue));
  }
  DCPLAN_RETURN_IF_ERROR(CheckEnum(path, "cooling", site.cooling(), Cooling_IsValid, "Cooling"));
  if (site.has_annual_pue()) {
    DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "annual_pue", site.annual_pue()));
    if (!(site.annual_pue() >= 1.0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          FieldPath(path, "annual_pue"), " must be >= 1.0, got ", FormatDouble(site.annual_pue())));
    }
    const double peak = defaults::PeakPue(site);
    if (site.annual_pue() > peak) {
      return absl::FailedPreconditionError(
          absl::StrCat(FieldPath(path, "annual_pue"), " must be <= pue, the design-day peak ",
                       Bound(peak, site.has_pue()), Got(site.annual_pue(), true)));
    }
  }
  DCPLAN_RETURN_IF_ERROR(ValidateProvisioning(site.provisioning(), SubPath(path, ".provisioning")));
  if (site.has_max_air_cooled_rack_watts()) {
    DCPLAN_RETURN_IF_ERROR(CheckPositive(path, "max_air_cooled_rack_watts",
                                         site.max_air_cooled_rack_watts(), limits::kMaxWatts));
  }
  DCPLAN_RETURN_IF_ERROR(ValidateBuilding(site.building(), SubPath(path, ".building")));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "max_buildings", site.max_buildings(), limits::kMaxBuildings));
  return ValidateSubstation(site.substation(), SubPath(path, ".substation"));
}

// ------------------------------------------------------------------------------------------------
// Efficiency
// ------------------------------------------------------------------------------------------------

// Each field is checked alone and then against the fields before it, so errors come in field order.
absl::Status ValidateLogLinearMfu(const LogLinearMfu& model, absl::string_view path) {
  if (model.has_intercept()) {
    DCPLAN_RETURN_IF_ERROR(CheckFraction(path, "intercept", model.intercept()));
  }
  const double intercept = model.has_intercept() ? model.intercept() : kDefaultIntercept;
  if (model.has_slope_per_doubling()) {
    DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "slope_per_doubling", model.slope_per_doubling(),
                                            std::numeric_limits<double>::infinity()));
  }
  const double slope =
      model.has_slope_per_doubling() ? model.slope_per_doubling() : kDefaultSlopePerDoubling;
  if ((model.has_intercept() || model.has_slope_per_doubling()) && !(slope < intercept)) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "slope_per_doubling"), " must be < intercept ",
        Bound(intercept, model.has_intercept()), Got(slope, model.has_slope_per_doubling())));
  }
  if (model.has_floor()) {
    DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "floor", model.floor()));
    if (!(model.floor() > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(FieldPath(path, "floor"),
                                                     " must be in (0, intercept], got ",
                                                     FormatDouble(model.floor())));
    }
  }
  const double floor = model.has_floor() ? model.floor() : kDefaultFloor;
  if ((model.has_intercept() || model.has_floor()) && !(floor <= intercept)) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(path, "floor"), " must be <= intercept ",
                     Bound(intercept, model.has_intercept()), Got(floor, model.has_floor())));
  }
  return absl::OkStatus();
}

absl::Status ValidateMfuTable(const MfuTable& table, absl::string_view path) {
  const int size = table.points_size();
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, "points"), " must have at least one point, got 0"));
  }
  if (size > limits::kMaxMfuTablePoints) {
    return absl::OutOfRangeError(absl::StrCat(FieldPath(path, "points"), " must have at most ",
                                              limits::kMaxMfuTablePoints, " points, got ", size));
  }
  for (int i = 0; i < size; ++i) {
    const MfuPoint& point = table.points(i);
    const std::string point_path = absl::StrCat(path, ".points[", i, "]");
    DCPLAN_RETURN_IF_ERROR(CheckCountAtLeast(point_path, "gpus", point.gpus(), 1));
    DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(point_path, "gpus", point.gpus(), limits::kMaxGpus));
    if (i > 0 && point.gpus() <= table.points(i - 1).gpus()) {
      return absl::InvalidArgumentError(
          absl::StrCat(point_path, ".gpus must be greater than points[", i - 1, "].gpus (",
                       table.points(i - 1).gpus(), "), got ", point.gpus()));
    }
    DCPLAN_RETURN_IF_ERROR(CheckFraction(point_path, "mfu", point.mfu()));
  }
  return absl::OkStatus();
}

// The job must be a known model preset that the workload validator accepts (its hardware is
// checked with the request's, ValidateWorkloadHardware).
absl::Status ValidateReferenceWorkload(const ReferenceWorkload& reference, absl::string_view path) {
  const SubPath model_path(path, ".model");
  const absl::string_view name = reference.model().empty()
                                     ? absl::string_view(defaults::kReferenceModel)
                                     : absl::string_view(reference.model());
  // Model presets are compiled in: each is checked once a process.
  static absl::Mutex mu(absl::kConstInit);
  static auto* checked = new std::map<std::string, absl::Status, std::less<>>();
  absl::Status verdict;
  bool known = false;
  {
    absl::MutexLock lock(&mu);
    auto it = checked->find(name);
    if (it != checked->end()) {
      verdict = it->second;
      known = true;
    }
  }
  if (!known) {
    absl::StatusOr<Workload> model = LoadModel(name);
    if (!model.ok()) {
      return WithFieldPath(absl::InvalidArgumentError(
                               absl::StrCat(model_path.view(), ": ", model.status().message())),
                           model_path);
    }
    if (absl::Status s = ValidateWorkload(*model, "workload"); !s.ok()) {
      verdict = WithFieldPath(
          absl::InvalidArgumentError(absl::StrCat(
              model_path.view(), " \"", name, "\" cannot be a reference workload: ", s.message())),
          model_path);
    }
    absl::MutexLock lock(&mu);
    checked->emplace(std::string(name), verdict);
  }
  DCPLAN_RETURN_IF_ERROR(verdict);
  return CheckNonNegative(path, "batch_tokens_per_gpu", reference.batch_tokens_per_gpu(),
                          defaults::kMaxBatchTokensPerGpu);
}

absl::Status ValidateEfficiency(const EfficiencyModel& efficiency, absl::string_view path) {
  switch (efficiency.model_case()) {
    case EfficiencyModel::kLogLinear:
      return ValidateLogLinearMfu(efficiency.log_linear(), SubPath(path, ".log_linear"));
    case EfficiencyModel::kTable:
      return ValidateMfuTable(efficiency.table(), SubPath(path, ".table"));
    case EfficiencyModel::kConstant:
      return CheckFraction(SubPath(path, ".constant"), "mfu", efficiency.constant().mfu());
    case EfficiencyModel::kReferenceWorkload:
      return ValidateReferenceWorkload(efficiency.reference_workload(),
                                       SubPath(path, ".reference_workload"));
    case EfficiencyModel::MODEL_NOT_SET:
      return absl::OkStatus();  // log_linear with its defaults
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------------------
// Constraints and costs
// ------------------------------------------------------------------------------------------------

absl::Status ValidateConstraints(const Constraints& constraints, const Site& site,
                                 absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "power_cap_watts", constraints.power_cap_watts(), limits::kMaxWatts));
  DCPLAN_RETURN_IF_ERROR(CheckEnum(path, "power_cap_at", constraints.power_cap_at(),
                                   PowerCapAt_IsValid, "PowerCapAt"));
  if (constraints.power_cap_at() == POWER_CAP_AT_SUBSTATION &&
      !(site.substation().transformer_rating_va() > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "power_cap_at"),
        " is POWER_CAP_AT_SUBSTATION but site.substation.transformer_rating_va is 0 (no rated "
        "substation to cap at: give site.substation.transformer_rating_va, e.g. 100MVA)"));
  }
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "max_gpus", constraints.max_gpus(), limits::kMaxGpus));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "budget_usd", constraints.budget_usd(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(
      CheckEnum(path, "budget_on", constraints.budget_on(), BudgetOn_IsValid, "BudgetOn"));
  return CheckEnum(path, "objective", constraints.objective(), Objective_IsValid, "Objective");
}

absl::Status ValidateCosts(const Costs& costs, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "facility_usd_per_it_watt",
                                          costs.facility_usd_per_it_watt(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "site_fixed_usd", costs.site_fixed_usd(), limits::kMaxUsd));
  DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "electricity_usd_per_kwh",
                                          costs.electricity_usd_per_kwh(), limits::kMaxUsd));
  if (costs.has_average_utilization()) {
    DCPLAN_RETURN_IF_ERROR(CheckFraction(path, "average_utilization", costs.average_utilization()));
  }
  const double maintenance = costs.maintenance_fraction_per_year();
  DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "maintenance_fraction_per_year", maintenance));
  if (!(maintenance >= 0 && maintenance <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(FieldPath(path, "maintenance_fraction_per_year"),
                                                   " must be in [0, 1], got ",
                                                   FormatDouble(maintenance)));
  }
  DCPLAN_RETURN_IF_ERROR(
      CheckNonNegative(path, "staff_usd_per_year", costs.staff_usd_per_year(), limits::kMaxUsd));
  if (costs.has_horizon_years()) {
    DCPLAN_RETURN_IF_ERROR(
        CheckPositive(path, "horizon_years", costs.horizon_years(), limits::kMaxHorizonYears));
  }
  if (costs.has_wacc()) DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "wacc", costs.wacc()));
  for (const auto& [field, present, years] :
       {std::tuple<const char*, bool, double>{"it_life_years", costs.has_it_life_years(),
                                              costs.it_life_years()},
        std::tuple<const char*, bool, double>{
            "facility_life_years", costs.has_facility_life_years(), costs.facility_life_years()}}) {
    if (!present) continue;
    DCPLAN_RETURN_IF_ERROR(CheckPositive(path, field, years, limits::kMaxHorizonYears));
    if (years < limits::kMinAssetLifeYears) {
      return absl::OutOfRangeError(absl::StrCat(
          FieldPath(path, field), " must be >= ", FormatDouble(limits::kMinAssetLifeYears),
          ", got ", FormatDouble(years)));
    }
  }
  if (costs.has_it_maintenance_fraction_per_year()) {
    DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "it_maintenance_fraction_per_year",
                                               costs.it_maintenance_fraction_per_year()));
  }
  if (costs.has_facility_maintenance_fraction_per_year()) {
    DCPLAN_RETURN_IF_ERROR(CheckFractionOrZero(path, "facility_maintenance_fraction_per_year",
                                               costs.facility_maintenance_fraction_per_year()));
  }
  if (costs.has_liquid_cooling_premium_usd_per_it_watt()) {
    DCPLAN_RETURN_IF_ERROR(CheckNonNegative(path, "liquid_cooling_premium_usd_per_it_watt",
                                            costs.liquid_cooling_premium_usd_per_it_watt(),
                                            limits::kMaxUsd));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------------------
// Cooling against the hardware
// ------------------------------------------------------------------------------------------------

// "132,000" for a whole number of watts below 10^15, FormatDouble's text otherwise.
std::string GroupedWatts(double watts) {
  if (!(watts >= 0 && watts < 1e15) || watts != std::floor(watts)) return FormatDouble(watts);
  std::string digits = absl::StrCat(static_cast<int64_t>(watts));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

// The site's cooling must suit the hardware: what the server requires, and on air no rack may
// draw more than the site can cool by air. `hardware` and `site` are already valid. A rack's draw
// is its servers (as many as its space and power limit allow, as the model packs them) and its
// own overhead, at the power the site provisions.
absl::Status ValidateCoolingFitsHardware(const Hardware& hardware, const Site& site) {
  const Cooling required = hardware.server().required_cooling();
  if (required != COOLING_UNSPECIFIED && site.cooling() != COOLING_UNSPECIFIED &&
      site.cooling() != required) {
    const std::string& name = hardware.server().name();
    return absl::FailedPreconditionError(
        absl::StrCat("site.cooling is ", Cooling_Name(site.cooling()),
                     " but hardware.server.required_cooling is ", Cooling_Name(required),
                     name.empty() ? "" : absl::StrCat(" (\"", Clip(name), "\" needs it)"),
                     ": set site.cooling to ", Cooling_Name(required)));
  }
  if (site.cooling() != COOLING_AIR) return absl::OkStatus();
  const Accelerator& gpu = hardware.accelerator();
  const Server& server = hardware.server();
  const Rack& rack = hardware.rack();
  const Provisioning& provisioning = site.provisioning();
  const double server_watts =
      server.gpus_per_server() * ProvisionedGpuWatts(gpu, provisioning) +
      defaults::ProvisionedWatts(server.overhead_watts(), server.measured_overhead_watts(),
                                 provisioning);
  // Without a rack every server is a rack of its own.
  double servers = 1;
  double rack_overhead = 0;
  if (hardware.has_rack()) {
    rack_overhead = defaults::ProvisionedWatts(rack.overhead_watts(),
                                               rack.measured_overhead_watts(), provisioning);
    servers = rack.max_servers_per_rack();
    if (rack.power_limit_watts() > 0 && server_watts > 0) {
      // At least one: a limit of exactly one server can round the quotient below 1.
      servers = std::clamp(std::floor((rack.power_limit_watts() - rack_overhead) / server_watts),
                           1.0, servers);
    }
  }
  const double rack_watts = servers * server_watts + rack_overhead;
  const double limit = defaults::MaxAirCooledRackWatts(site);
  if (rack_watts <= limit) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "site.cooling is COOLING_AIR but a rack draws ", GroupedWatts(rack_watts), " W (",
      FormatDouble(servers), " x ", GroupedWatts(server_watts), " W of hardware.server",
      hardware.has_rack()
          ? absl::StrCat(" + ", GroupedWatts(rack_overhead), " W of hardware.rack.overhead_watts")
          : "",
      "), above site.max_air_cooled_rack_watts ", GroupedWatts(limit), " W",
      site.has_max_air_cooled_rack_watts() ? "" : " (the default)",
      ": set site.cooling to COOLING_DIRECT_LIQUID or raise site.max_air_cooled_rack_watts"));
}

// Caps that each pass their own checks but together make the answer absurd: a TCO budget over a
// horizon so short it prices a GPU at a sliver of its cost (a budget then buys up to the 10^12
// size limit). Refused with the range the horizon must be in.
absl::Status ValidateCapCombination(const PlanRequest& request) {
  const Constraints& c = request.constraints();
  const Costs& costs = request.costs();
  if (c.budget_usd() > 0 && c.budget_on() == BUDGET_ON_TCO && costs.has_horizon_years() &&
      costs.horizon_years() < limits::kMinTcoHorizonYears) {
    return absl::OutOfRangeError(absl::StrCat(
        "costs.horizon_years must be in [", FormatDouble(limits::kMinTcoHorizonYears), ", ",
        FormatDouble(limits::kMaxHorizonYears),
        "] with a TCO budget (constraints.budget_on is BUDGET_ON_TCO), got ",
        FormatDouble(costs.horizon_years()),
        ": over a shorter horizon a GPU costs a sliver of its price and the budget buys without "
        "bound; give a longer horizon, or budget on capex"));
  }
  return absl::OkStatus();
}

// A reader refuses a request newer than it knows; 0 (unspecified) means the current version.
absl::Status ValidateSchemaVersion(int version) {
  if (version > SchemaVersion_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schema_version must be <= ", SchemaVersion_MAX, " (",
        SchemaVersion_Name(SchemaVersion_MAX), ", the newest this dcplan reads), got ", version));
  }
  return CheckEnum("", "schema_version", version, SchemaVersion_IsValid, "SchemaVersion");
}

// Each sources entry names a real field, says where its value comes from, and is short.
absl::Status ValidateSources(const PlanRequest& r) {
  if (r.sources_size() > 1000 || r.workload().sources_size() > 1000) {
    return WithFieldPath(absl::OutOfRangeError(
                             absl::StrCat("sources must have at most 1000 entries, got ",
                                          std::max(r.sources_size(), r.workload().sources_size()))),
                         "sources");
  }
  // A preset carries tens of sources: the common case (a known origin, a canonical path, a source
  // of sensible length) costs a table lookup, with no string built.
  std::string path;
  for (int i = 0; i < r.sources_size() + r.workload().sources_size(); ++i) {
    const bool in_workload = i >= r.sources_size();
    const FieldSource& s = in_workload ? r.workload().sources(i - r.sources_size()) : r.sources(i);
    if (in_workload) {
      path.assign("workload.");
      path.append(s.path());
    }
    const absl::string_view full = in_workload ? absl::string_view(path) : s.path();
    if (Origin_IsValid(s.origin()) && !s.path().empty() && FindScalarField(full) != nullptr &&
        !s.source().empty() && s.source().size() <= 1000) {
      continue;
    }
    const std::string where = in_workload
                                  ? absl::StrCat("workload.sources[", i - r.sources_size(), "]")
                                  : absl::StrCat("sources[", i, "]");
    DCPLAN_RETURN_IF_ERROR(CheckEnum(where, "origin", s.origin(), Origin_IsValid, "Origin"));
    if (auto field = ResolveField(full); !field.ok() || s.path().empty()) {
      return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                               where, ".path must name a field, got \"", Clip(s.path(), 80), "\"")),
                           absl::StrCat(where, ".path"));
    }
    if (s.source().empty() || s.source().size() > 1000) {
      return WithFieldPath(absl::InvalidArgumentError(
                               absl::StrCat(where, ".source must be 1 to 1,000 bytes, got ",
                                            s.source().size(), " (for ", Clip(s.path(), 80), ")")),
                           absl::StrCat(where, ".source"));
    }
  }
  return absl::OkStatus();
}

// Fields the rest of the request makes meaningless are refused rather than ignored: a silent
// no-op is a wrong answer the user cannot see.
absl::Status ValidateNothingIgnored(const PlanRequest& r) {
  const Site& site = r.site();
  if (site.provisioning().has_margin() &&
      site.provisioning().basis() != PROVISIONING_BASIS_MEASURED) {
    return WithFieldPath(
        absl::FailedPreconditionError(absl::StrCat(
            "site.provisioning.margin has no effect: power is provisioned for the nameplate "
            "(site.provisioning.basis is not PROVISIONING_BASIS_MEASURED); got ",
            FormatDouble(site.provisioning().margin()))),
        "site.provisioning.margin");
  }
  const Constraints& caps = r.constraints();
  if (caps.power_cap_watts() > 0 && caps.power_cap_at() == POWER_CAP_AT_SUBSTATION) {
    return WithFieldPath(
        absl::FailedPreconditionError(absl::StrFormat(
            "constraints.power_cap_watts is %.15g but constraints.power_cap_at is "
            "POWER_CAP_AT_SUBSTATION, which caps at the substation's rating "
            "(site.substation.transformer_rating_va) and ignores power_cap_watts: set one or the "
            "other",
            caps.power_cap_watts())),
        "constraints.power_cap_watts");
  }
  if (site.max_buildings() > 0 && site.building().critical_it_power_watts() <= 0) {
    return WithFieldPath(
        absl::FailedPreconditionError(absl::StrCat(
            "site.max_buildings is ", site.max_buildings(),
            " but site.building.critical_it_power_watts is 0 (no limit per building), so one "
            "building holds any cluster and max_buildings caps nothing: set "
            "site.building.critical_it_power_watts, or leave max_buildings at 0")),
        "site.max_buildings");
  }
  const Hardware& h = r.hardware();
  const bool tco = caps.budget_on() == BUDGET_ON_TCO;
  if (caps.budget_usd() > 0 && h.server().price_usd() <= 0 && h.accelerator().price_usd() <= 0 &&
      h.server().non_gpu_price_usd() <= 0 && r.costs().facility_usd_per_it_watt() <= 0 &&
      !(tco && r.costs().electricity_usd_per_kwh() > 0)) {
    return WithFieldPath(
        absl::FailedPreconditionError(absl::StrCat(
            "constraints.budget_usd is ", absl::StrFormat("%.15g", caps.budget_usd()),
            " but nothing in the request has a price, so the budget caps nothing: set "
            "hardware.server.price_usd or hardware.accelerator.price_usd, or leave budget_usd at "
            "0")),
        "constraints.budget_usd");
  }
  return absl::OkStatus();
}

// The field path an error's message starts with ("site.pue must be ..."), for errors that were
// made without one attached.
absl::Status AttachLeadingPath(absl::Status status) {
  if (status.ok() || !FieldPathOf(status).empty()) return status;
  absl::string_view message = status.message();
  const size_t end = message.find_first_of(" :");
  if (end == absl::string_view::npos) return status;
  absl::string_view path = message.substr(0, end);
  if (path.find('.') == absl::string_view::npos) return status;
  return WithFieldPath(std::move(status), path);
}

// Every check, in field order; each runs when `sections` holds a part it reads (all of them for
// ValidateRequest). A check reads only the messages it is handed, so its reads are its arguments.
absl::Status ValidateRequestFields(const PlanRequest& request, unsigned sections = kRequestAll) {
  auto reads = [sections](unsigned parts) { return (sections & parts) != 0; };
  if (reads(kRequestRest)) DCPLAN_RETURN_IF_ERROR(ValidateSchemaVersion(request.schema_version()));
  if (reads(kRequestHardware | kRequestSite)) {
    DCPLAN_RETURN_IF_ERROR(
        ValidateHardware(request.hardware(), request.site(), "hardware", sections));
  }
  if (reads(kRequestCalibration)) {
    DCPLAN_RETURN_IF_ERROR(
        ValidateCalibration(request.hardware().calibration(), "hardware.calibration"));
  }
  if (reads(kRequestSite)) DCPLAN_RETURN_IF_ERROR(ValidateSite(request.site(), "site"));
  if (reads(kRequestAccelerator | kRequestServer | kRequestRack | kRequestSite)) {
    DCPLAN_RETURN_IF_ERROR(ValidateCoolingFitsHardware(request.hardware(), request.site()));
  }
  if (reads(kRequestEfficiency)) {
    DCPLAN_RETURN_IF_ERROR(ValidateEfficiency(request.efficiency(), "efficiency"));
  }
  if (reads(kRequestConstraints | kRequestSite)) {
    DCPLAN_RETURN_IF_ERROR(
        ValidateConstraints(request.constraints(), request.site(), "constraints"));
  }
  if (reads(kRequestCosts)) DCPLAN_RETURN_IF_ERROR(ValidateCosts(request.costs(), "costs"));
  if (reads(kRequestConstraints | kRequestCosts)) {
    DCPLAN_RETURN_IF_ERROR(ValidateCapCombination(request));
  }
  if (reads(kRequestAccelerator | kRequestConstraints) &&
      request.hardware().accelerator().power_limit_auto() &&
      request.constraints().objective() != OBJECTIVE_MAX_REALIZED_COMPUTE) {
    return WithFieldPath(
        absl::FailedPreconditionError(absl::StrCat(
            "hardware.accelerator.power_limit_auto searches the GPU power limit with the most "
            "realized compute, so constraints.objective must be OBJECTIVE_MAX_REALIZED_COMPUTE, "
            "got ",
            Objective_Name(request.constraints().objective()))),
        "hardware.accelerator.power_limit_auto");
  }
  if (request.has_workload()) {
    if (reads(kRequestWorkload)) {
      DCPLAN_RETURN_IF_ERROR(ValidateWorkload(request.workload(), "workload"));
    }
    if (reads(kRequestWorkload | kRequestHardware)) {
      DCPLAN_RETURN_IF_ERROR(ValidateWorkloadHardware(request.hardware(), "hardware"));
      DCPLAN_RETURN_IF_ERROR(ValidatePrecisionOnHardware(request.workload(), request.hardware(),
                                                         "workload", "hardware"));
    }
  } else if (request.efficiency().has_reference_workload() &&
             reads(kRequestWorkload | kRequestEfficiency | kRequestAccelerator | kRequestServer |
                   kRequestNetwork)) {
    DCPLAN_RETURN_IF_ERROR(ValidateWorkloadHardware(request.hardware(), "hardware"));
  }
  if (reads(kRequestRest)) DCPLAN_RETURN_IF_ERROR(ValidateSources(request));
  if (reads(kRequestAccelerator | kRequestServer | kRequestSite | kRequestConstraints |
            kRequestCosts)) {
    return ValidateNothingIgnored(request);
  }
  return absl::OkStatus();
}

// PlanRequest.uncertain and monte_carlo (proto/uncertainty.proto): each entry's distribution
// (planner/uncertain.h), each path once, and its values inside the field's own range: the request
// with the value set must pass the field's checks ("uncertain[0] (site.pue): 0.5 is outside the
// field's range: site.pue must be ...").
absl::Status ValidateUncertainInputs(const PlanRequest& r) {
  if (r.uncertain_size() == 0 && !r.has_monte_carlo()) return absl::OkStatus();
  if (r.uncertain_size() > kMaxUncertainInputs) {
    return absl::InvalidArgumentError(absl::StrCat("uncertain: at most ", kMaxUncertainInputs,
                                                   " inputs, got ", r.uncertain_size()));
  }
  const MonteCarlo& mc = r.monte_carlo();
  if (mc.has_samples() && (mc.samples() < 1 || mc.samples() > kMaxMonteCarloSamples)) {
    return absl::OutOfRangeError(absl::StrCat("monte_carlo.samples must be in [1, ",
                                              kMaxMonteCarloSamples, "], got ", mc.samples()));
  }
  // Every number finite first, named by its full path ("uncertain[0].uniform.low").
  std::function<absl::Status(const google::protobuf::Message&, const std::string&)> finite =
      [&](const google::protobuf::Message& m, const std::string& prefix) -> absl::Status {
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    m.GetReflection()->ListFields(m, &fields);
    for (const google::protobuf::FieldDescriptor* f : fields) {
      const std::string path = absl::StrCat(prefix, ".", f->name());
      if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE && !f->is_repeated()) {
        const double v = m.GetReflection()->GetDouble(m, f);
        if (!std::isfinite(v)) {
          return WithFieldPath(
              absl::InvalidArgumentError(absl::StrCat(path, " must be finite, got ", v)), path);
        }
      } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
        if (f->is_repeated()) {
          for (int j = 0; j < m.GetReflection()->FieldSize(m, f); ++j) {
            DCPLAN_RETURN_IF_ERROR(finite(m.GetReflection()->GetRepeatedMessage(m, f, j),
                                          absl::StrCat(path, "[", j, "]")));
          }
        } else {
          DCPLAN_RETURN_IF_ERROR(finite(m.GetReflection()->GetMessage(m, f), path));
        }
      }
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < r.uncertain_size(); ++i) {
    DCPLAN_RETURN_IF_ERROR(finite(r.uncertain(i), absl::StrCat("uncertain[", i, "]")));
  }
  DCPLAN_RETURN_IF_ERROR(finite(mc, "monte_carlo"));
  PlanRequest probe = r;
  probe.clear_uncertain();
  probe.clear_monte_carlo();
  std::vector<std::string> seen;
  for (int i = 0; i < r.uncertain_size(); ++i) {
    const std::string where = absl::StrCat("uncertain[", i, "]");
    DCPLAN_ASSIGN_OR_RETURN(UncertainInput in, ResolveUncertain(r.uncertain(i), where));
    const std::string& path = in.field.path;
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) {
      return WithFieldPath(
          absl::InvalidArgumentError(absl::StrCat(where, " (", path, "): given twice")), where);
    }
    seen.push_back(path);
    for (double v : in.ValuesToCheck()) {
      PlanRequest p = probe;
      absl::Status s = SetNumber(in.field, v, &p);
      if (s.ok()) s = ValidateRequestFields(p);
      if (!s.ok() && (absl::StartsWith(s.message(), path) || FieldPathOf(s) == path)) {
        return WithFieldPath(absl::InvalidArgumentError(
                                 absl::StrCat(where, " (", path, "): ", absl::StrFormat("%g", v),
                                              " is outside the field's range: ", s.message())),
                             where);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateRequest(const PlanRequest& request) {
  absl::Status status = ValidateRequestFields(request);
  if (status.ok()) status = ValidateUncertainInputs(request);
  return AttachLeadingPath(std::move(status));
}

unsigned RequestSectionOf(absl::string_view path) {
  const absl::string_view top = path.substr(0, path.find('.'));
  if (top == "hardware") {
    absl::string_view part = path.substr(std::min(path.size(), top.size() + 1));
    part = part.substr(0, part.find('.'));
    if (part == "accelerator") return kRequestAccelerator;
    if (part == "server") return kRequestServer;
    if (part == "rack") return kRequestRack;
    if (part == "pod") return kRequestPod;
    if (part == "network") return kRequestNetwork;
    if (part == "auxiliary") return kRequestAuxiliary;
    if (part == "calibration") return kRequestCalibration;
    return kRequestHardwareOther;
  }
  if (top == "site") return kRequestSite;
  if (top == "efficiency") return kRequestEfficiency;
  if (top == "constraints") return kRequestConstraints;
  if (top == "costs") return kRequestCosts;
  if (top == "workload") return kRequestWorkload;
  return kRequestRest;
}

bool ValidAfterMove(const PlanRequest& moved, unsigned sections) {
  // The uncertain inputs are checked against the whole request: a move cannot be narrowed there.
  if (moved.uncertain_size() > 0 || moved.has_monte_carlo()) return ValidateRequest(moved).ok();
  return ValidateRequestFields(moved, sections).ok();
}

}  // namespace dcplan

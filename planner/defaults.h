// File: planner/defaults.h
//
// The defaults proto/request.proto promises for its optional fields, in one place, so the validator
// (which checks cross-field rules on effective values) and the model (which applies them) cannot
// disagree; and the effective values of fields whose default depends on other fields (the PUEs on
// the cooling, a device's provisioned power on the site's provisioning policy).
//
// Example:
//   double pue = PeakPue(site);               // site.pue, or the cooling type's design-day default
//   double annual = AnnualPue(site);          // never above the peak
#pragma once

#include <algorithm>

#include "proto/request.pb.h"

namespace dcplan::defaults {

inline constexpr double kPue = 1.3;                   // site.pue without a cooling type
inline constexpr double kPowerFactor = 0.95;          // site.substation.power_factor
inline constexpr double kAverageUtilization = 0.8;    // costs.average_utilization
inline constexpr double kHorizonYears = 4.0;          // costs.horizon_years
inline constexpr double kLeafOversubscription = 1.0;  // hardware.network.leaf_oversubscription
// site.provisioning.margin: an HGX H100 node's highest draw while training, 8.4 kW, is 8% above its
// 7.75 kW average (IEEE Access 13 (2025) 61740, "Single-Node Power Demand During AI Training";
// arXiv 2506.14551 for the average).
inline constexpr double kProvisioningMargin = 0.08;
inline constexpr double kWacc = 0.0;  // costs.wacc
// efficiency.log_linear: the seed chapter's MFU = 0.62 - 0.02 log2(G), floored at 0.01.
inline constexpr double kMfuIntercept = 0.62;
inline constexpr double kMfuSlopePerDoubling = 0.02;
inline constexpr double kMfuFloor = 0.01;
// The reference workload's defaults (proto ReferenceWorkload): Llama 3 405B, whose published batch
// of 16M tokens ran on 16,384 H100s (Dubey et al. 2024, arXiv 2407.21783): 1,024 tokens a GPU.
inline constexpr char kReferenceModel[] = "llama3-405b";
inline constexpr double kBatchTokensPerGpu = 1024;
inline constexpr double kMaxBatchTokensPerGpu = 1048576;

// PUE by cooling type: the design-day peak (sizes the facility) and the annual average (the energy
// bill).
// - Air: Uptime Institute's Global Data Center Survey 2023 puts sites of 20 MW and above at an
//   annual average of 1.44 (planner/presets/SOURCES.md#air-annual-pue). The design-day figure is a
//   judgement, not a survey figure (no public source gives the gap): on the hottest hours the
//   economizers stop and the chillers run at full lift, about a quarter more overhead: 1.55.
// - Direct liquid: LBNL's 2024 United States Data Center Energy Usage Report (Shehabi et al.) puts
//   specialized AI data centers at an annual average of 1.14 in 2023, against 1.43 for all US
//   sites; new German sites must stay at or below 1.2 (EnEfG, from 2026). The design-day 1.2 is a
//   judgement: dry coolers need chiller trim on the hottest hours.
// Give your site's own figures when you know them.
inline constexpr double kAirPue = 1.55;
inline constexpr double kAirAnnualPue = 1.44;
inline constexpr double kLiquidPue = 1.2;
inline constexpr double kLiquidAnnualPue = 1.14;

// site.max_air_cooled_rack_watts: the most a rack may draw (at the power the site provisions) and
// still be cooled by air. A judgement, not a published limit: hot/cold-aisle containment is
// commonly quoted as good for about 40-50 kW per rack, and NVIDIA's air-cooled DGX H100 SuperPOD
// racks of four systems draw ~41 kW (planner/presets/SOURCES.md#air-rack-limit); 45 kW keeps them
// on air and sends a 132 kW GB200 NVL72 rack to liquid. Rear-door heat exchangers reach further:
// raise it for such a site.
inline constexpr double kMaxAirCooledRackWatts = 45000.0;

// costs.liquid_cooling_premium_usd_per_it_watt: what a direct-liquid-cooled hall costs beyond an
// air-cooled one, per watt of critical IT power. Turner & Townsend's Data Centre Construction Cost
// Index 2025-2026 finds US AI (liquid-cooled) data centres 7-10% dearer to build than traditional
// ones of similar IT capacity; 8% of Cushman &
// Wakefield's 2025 19-market average of $11.7 M per MW is $0.94/W, rounded to $0.9/W
// (planner/presets/SOURCES.md#liquid-premium).
inline constexpr double kLiquidCoolingPremiumUsdPerItWatt = 0.9;

// site.max_air_cooled_rack_watts as the validator applies it.
inline double MaxAirCooledRackWatts(const Site& site) {
  return site.has_max_air_cooled_rack_watts() ? site.max_air_cooled_rack_watts()
                                              : kMaxAirCooledRackWatts;
}

// What the facility costs per watt of critical IT power, in USD: facility_usd_per_it_watt plus,
// for a direct-liquid-cooled site whose facility is priced (facility_usd_per_it_watt > 0), the
// liquid-cooling premium.
inline double FacilityUsdPerItWatt(const Costs& costs, Cooling cooling) {
  if (cooling != COOLING_DIRECT_LIQUID || !(costs.facility_usd_per_it_watt() > 0)) {
    return costs.facility_usd_per_it_watt();
  }
  const double premium = costs.has_liquid_cooling_premium_usd_per_it_watt()
                             ? costs.liquid_cooling_premium_usd_per_it_watt()
                             : kLiquidCoolingPremiumUsdPerItWatt;
  return costs.facility_usd_per_it_watt() + premium;
}

// site.pue as the model applies it.
inline double PeakPue(const Site& site) {
  if (site.has_pue()) return site.pue();
  switch (site.cooling()) {
    case COOLING_AIR:
      return kAirPue;
    case COOLING_DIRECT_LIQUID:
      return kLiquidPue;
    default:
      return kPue;
  }
}

// site.annual_pue as the model applies it, given the peak PUE in effect (a sweep patches the peak).
inline double AnnualPue(Cooling cooling, bool has_annual, double annual, double peak) {
  if (has_annual) return annual;
  switch (cooling) {
    case COOLING_AIR:
      return std::min(kAirAnnualPue, peak);
    case COOLING_DIRECT_LIQUID:
      return std::min(kLiquidAnnualPue, peak);
    default:
      return peak;
  }
}
inline double AnnualPue(const Site& site) {
  return AnnualPue(site.cooling(), site.has_annual_pue(), site.annual_pue(), PeakPue(site));
}

// The power a device is provisioned for: its nameplate, or under PROVISIONING_BASIS_MEASURED its
// measured draw (0 = the nameplate) times 1 + margin, at most the nameplate.
inline double ProvisionedWatts(double nameplate, double measured, const Provisioning& p) {
  if (p.basis() != PROVISIONING_BASIS_MEASURED) return nameplate;
  const double draw = measured > 0 ? measured : nameplate;
  const double margin = p.has_margin() ? p.margin() : kProvisioningMargin;
  return std::min(nameplate, draw * (1.0 + margin));
}

// A device's draw under training load: its measured figure, or its nameplate when none is given.
inline double MeasuredWatts(double nameplate, double measured) {
  return measured > 0 ? measured : nameplate;
}

}  // namespace dcplan::defaults

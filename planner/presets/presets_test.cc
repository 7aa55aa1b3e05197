// File: planner/presets/presets_test.cc
//
// Tests the compiled-in presets: the list, lookup errors, that each file parses, that the text is
// embedded verbatim, that the numbers match the seed chapter and the published figures of
// planner/presets/SOURCES.md, and that every figure a preset sets is cited in its `sources`.
#include "planner/presets/presets.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/defaults.h"
#include "planner/presets/provenance_testing.h"
#include "planner/validate.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::NamesAScalarField;
using ::dcplan::testing::SetFieldPaths;
using ::dcplan::testing::StatusIs;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// What `unknown preset` messages list: every preset, sorted.
constexpr char kKnownPresets[] =
    "known presets: a100-dgx, b200-dgx, b300-dgx, gb200-nvl72, gb300-nvl72, gh200, h100-dgx, "
    "h200-dgx, mi300x, mi355x, seed, vr200-nvl144";

// The preset, which must load (the failure is reported by the caller's ASSERT).
PlanRequest MustLoad(const std::string& name) {
  absl::StatusOr<PlanRequest> request = LoadPreset(name);
  EXPECT_THAT(request, IsOk()) << name;
  return request.ok() ? *request : PlanRequest();
}

// Server power at TDP: GPUs plus the server's own overhead, in watts.
double ServerWatts(const PlanRequest& r) {
  return r.hardware().server().gpus_per_server() * r.hardware().accelerator().tdp_watts() +
         r.hardware().server().overhead_watts();
}

// The preset file as the test's runfiles hold it (data dependency), byte for byte.
std::string ReadPresetFile(const std::string& name) {
  std::ifstream in(absl::StrCat("planner/presets/", name, ".textproto"), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PresetNames, ListsTheTwelvePresetsSorted) {
  EXPECT_THAT(PresetNames(),
              ElementsAre("a100-dgx", "b200-dgx", "b300-dgx", "gb200-nvl72", "gb300-nvl72", "gh200",
                          "h100-dgx", "h200-dgx", "mi300x", "mi355x", "seed", "vr200-nvl144"));
}

TEST(LoadPreset, ParsesEveryPresetNamedAfterItsFile) {
  for (const std::string& name : PresetNames()) {
    absl::StatusOr<PlanRequest> request = LoadPreset(name);
    ASSERT_THAT(request, IsOk()) << name;
    EXPECT_EQ(request->name(), name);
    EXPECT_EQ(request->schema_version(), SCHEMA_VERSION_1) << name;
  }
}

TEST(LoadPreset, EveryPresetPassesTheRequestValidator) {
  for (const std::string& name : PresetNames()) {
    absl::StatusOr<PlanRequest> request = LoadPreset(name);
    ASSERT_THAT(request, IsOk()) << name;
    EXPECT_THAT(ValidateRequest(*request), IsOk()) << name;
  }
}

TEST(LoadPreset, RejectsAnUnknownNameListingTheKnownOnes) {
  EXPECT_THAT(LoadPreset("h900"),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("unknown preset \"h900\"; ", kKnownPresets))));
  // Lookup is exact: no case folding, no ".textproto" suffix, no empty name.
  EXPECT_THAT(LoadPreset("H100-DGX"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("H100-DGX")));
  EXPECT_THAT(LoadPreset("seed.textproto"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("seed")));
  EXPECT_THAT(LoadPreset(""), StatusIs(absl::StatusCode::kNotFound, HasSubstr(kKnownPresets)));
}

TEST(LoadPreset, EscapesAnUnprintableUnknownName) {
  EXPECT_THAT(LoadPreset("a\nb"), StatusIs(absl::StatusCode::kNotFound,
                                           HasSubstr("unknown preset \"a\\nb\"; known presets")));
}

TEST(PresetText, RejectsAnUnknownNameListingTheKnownOnes) {
  EXPECT_THAT(PresetText("h900"),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("unknown preset \"h900\"; ", kKnownPresets))));
}

TEST(PresetText, IsEachFileVerbatimWithItsComments) {
  for (const std::string& name : PresetNames()) {
    absl::StatusOr<absl::string_view> text = PresetText(name);
    ASSERT_THAT(text, IsOk()) << name;
    const std::string file = ReadPresetFile(name);
    ASSERT_FALSE(file.empty()) << "cannot read the runfile for " << name;
    EXPECT_EQ(*text, file) << name;
    EXPECT_THAT(std::string(*text), StartsWith("# proto-file: proto/request.proto\n")) << name;
  }
}

// The seed chapter's toy model: 1 PFLOP/s and 1.4 kW all-in per GPU, 8 GPUs per server, no
// overheads, no scale-out network, PUE 1, MFU = 0.62 - 0.02 log2(GPUs).
TEST(SeedPreset, ReproducesTheChaptersToyModelExactly) {
  const PlanRequest seed = MustLoad("seed");
  const Hardware& hw = seed.hardware();
  EXPECT_EQ(hw.accelerator().peak_flops_per_second(), 1e15);
  EXPECT_EQ(hw.accelerator().tdp_watts(), 1400.0);
  EXPECT_EQ(hw.accelerator().measured_power_watts(), 0.0);
  EXPECT_EQ(hw.server().gpus_per_server(), 8u);
  EXPECT_EQ(hw.server().overhead_watts(), 0.0);
  EXPECT_EQ(hw.rack().overhead_watts(), 0.0);
  EXPECT_EQ(hw.rack().power_limit_watts(), 0.0);
  EXPECT_EQ(hw.network().nics_per_gpu(), 0u);
  ASSERT_TRUE(seed.site().has_pue()) << "PUE must be set explicitly, not left to the 1.3 default";
  EXPECT_EQ(seed.site().pue(), 1.0);
  EXPECT_EQ(seed.site().substation().transformer_rating_va(), 0.0);
  ASSERT_TRUE(seed.efficiency().has_log_linear());
  ASSERT_TRUE(seed.efficiency().log_linear().has_intercept());
  ASSERT_TRUE(seed.efficiency().log_linear().has_slope_per_doubling());
  EXPECT_EQ(seed.efficiency().log_linear().intercept(), 0.62);
  EXPECT_EQ(seed.efficiency().log_linear().slope_per_doubling(), 0.02);
}

TEST(SeedPreset, PutsThirtyFiveThousandGpusInFiftyMegawatts) {
  // The chapter's arithmetic: 50 MW / 1.4 kW = 35,714 GPUs, in whole 8-GPU servers 4,464 x 8 =
  // 35,712.
  const PlanRequest seed = MustLoad("seed");
  const double gpu_watts = seed.hardware().accelerator().tdp_watts() * seed.site().pue();
  const double servers =
      std::floor(50e6 / (gpu_watts * seed.hardware().server().gpus_per_server()));
  EXPECT_EQ(servers * seed.hardware().server().gpus_per_server(), 35712.0);
}

TEST(H100DgxPreset, ServerDrawsTheDgxH100Maximum) {
  // SOURCES.md#dgx-h100: DGX H100, 8 GPUs, 10.2 kW max; 8 x 700 W + 4,600 W.
  const PlanRequest h100 = MustLoad("h100-dgx");
  EXPECT_NEAR(ServerWatts(h100), 10200.0, 0.01 * 10200.0);
}

TEST(H100DgxPreset, IsAFullFatSuperPodOfFourDgxRacks) {
  // SOURCES.md#superpod-h100-su, #superpod-h100-rack, #dgx-h100-nics, #ndr-switch: SU = 32 DGX =
  // 256 GPUs; 4 DGX per rack at ~41 kW; NDR 400 Gb/s, one ConnectX-7 per GPU; radix-64 switches.
  const PlanRequest h100 = MustLoad("h100-dgx");
  const Hardware& hw = h100.hardware();
  EXPECT_EQ(hw.rack().max_servers_per_rack(), 4u);
  EXPECT_LE(hw.rack().power_limit_watts(), 41000.0);
  // Four DGX fit under the rack limit, five would not: 4 x 10,200 + 150 <= 41,000 < 5 x 10,200 +
  // 150.
  EXPECT_LE(4 * ServerWatts(h100) + hw.rack().overhead_watts(), hw.rack().power_limit_watts());
  EXPECT_GT(5 * ServerWatts(h100) + hw.rack().overhead_watts(), hw.rack().power_limit_watts());
  EXPECT_EQ(
      hw.pod().racks_per_pod() * hw.rack().max_servers_per_rack() * hw.server().gpus_per_server(),
      256u);
  EXPECT_EQ(hw.network().nics_per_gpu(), 1u);
  EXPECT_EQ(hw.network().port_bits_per_second(), 400e9);
  EXPECT_EQ(hw.network().switch_radix(), 64u);
}

TEST(Gb200Nvl72Preset, ModelsOneRackAsOneSeventyTwoGpuServer) {
  // SOURCES.md#gb200-nvlink, #gb200-rack-power, #gb200-rack-draw, #gb200-su: NVL72 = one rack, 72
  // GPUs in one NVLink domain, ~120 kW (132 kW of power shelves); SU = 8 racks = 576 GPUs.
  const PlanRequest gb200 = MustLoad("gb200-nvl72");
  const Hardware& hw = gb200.hardware();
  EXPECT_EQ(hw.server().gpus_per_server(), 72u);
  EXPECT_EQ(hw.network().scale_up_domain_gpus(), 72u);
  EXPECT_EQ(hw.rack().max_servers_per_rack(), 1u);
  EXPECT_EQ(hw.rack().power_limit_watts(), 132000.0);
  // Nameplate: the 132 kW of power shelves; under load ~120 kW: 72 x 1,200 + 33,600.
  EXPECT_EQ(ServerWatts(gb200) + hw.rack().overhead_watts(), 132000.0);
  EXPECT_EQ(hw.server().gpus_per_server() * hw.accelerator().tdp_watts() +
                hw.server().measured_overhead_watts(),
            120000.0);
  EXPECT_EQ(hw.pod().racks_per_pod() * hw.server().gpus_per_server(), 576u);
}

TEST(Gb200Nvl72Preset, RoughlyReproducesTwelveHundredKilowattsPerScalableUnit) {
  // SOURCES.md#gb200-su: GB200 SuperPOD SU = 576 GPUs, 1.2 MW of IT (8 racks of 132 kW power
  // shelves and their network). From the preset: 8 racks x 132 kW = 1,056 kW, plus a two-tier fat
  // tree for 576 NIC ports at k = 64: 576 / 32 = 18 leaf and 18 x 32 / 64 = 9 spine switches
  // (27 x 750 W = 20.25 kW) and 4 x 576 = 2,304 optic ends (NIC, leaf down, leaf up, spine down)
  // x 8.5 W = 19.584 kW: 1,095.834 kW; storage (3%) and frontend (1%) on top, x 1.04, and 9 head
  // nodes of 1 kW: IT = 1,148.667 kW, within 5% of 1.2 MW (tests/public_sites_test.cc holds the
  // planner to the same row).
  const PlanRequest gb200 = MustLoad("gb200-nvl72");
  const Hardware& hw = gb200.hardware();
  const int racks = hw.pod().racks_per_pod();
  const int ports = racks * hw.server().gpus_per_server() * hw.network().nics_per_gpu();
  const int down_per_leaf = hw.network().switch_radix() / 2;
  const int leaves = (ports + down_per_leaf - 1) / down_per_leaf;
  const int spines =
      (leaves * down_per_leaf + hw.network().switch_radix() - 1) / hw.network().switch_radix();
  ASSERT_EQ(leaves, 18);
  ASSERT_EQ(spines, 9);
  const double it_watts = racks * (ServerWatts(gb200) + hw.rack().overhead_watts()) +
                          (leaves + spines) * hw.network().switch_power_watts() +
                          4.0 * ports * hw.network().optic_power_watts();
  EXPECT_NEAR(it_watts, 1095.834e3, 1.0);
  const AuxiliaryLoads& aux = hw.auxiliary();
  const double site_it =
      it_watts * (1.0 + aux.storage_power_fraction() + aux.frontend_network_power_fraction()) +
      aux.head_nodes() * aux.head_node_power_watts();
  EXPECT_NEAR(site_it, 1148.667e3, 1.0);
  EXPECT_NEAR(site_it, 1.2e6, 0.05 * 1.2e6);
}

// One accelerator's and server's published figures (SOURCES.md), as each preset must reproduce
// them.
struct ReferenceRow {
  const char* preset;
  double peak_flops_per_second;  // "dense BF16 TFLOP/s" x 1e12
  double tdp_watts;              // "TDP W"
  unsigned gpus_per_server;      // server or NVLink domain size
  double hbm_min_bytes;          // "HBM" (a range for B200), vendor GB = 1e9
  double hbm_max_bytes;
  double hbm_bandwidth_bytes_per_second;  // "HBM bandwidth"
  double server_max_watts;                // "Servers and racks"; 0 = not published
};

// SOURCES.md, "Accelerators" and "Servers, racks and pods" (the rows <gpu>-bf16, -tdp, -hbm,
// -hbm-bandwidth and dgx-<gpu>).
constexpr ReferenceRow kReference[] = {
    // A100 SXM 80GB: 312, 400 W, 80 GB, 2.0 TB/s; DGX A100: 8 GPUs, 6.5 kW max.
    {"a100-dgx", 312e12, 400, 8, 80e9, 80e9, 2.0e12, 6500},
    // H100 SXM5: 989.4, 700 W, 80 GB, 3.35 TB/s; DGX H100: 8 GPUs, 10.2 kW max.
    {"h100-dgx", 989.4e12, 700, 8, 80e9, 80e9, 3.35e12, 10200},
    // H200 SXM: 989, 700 W, 141 GB, 4.8 TB/s; DGX H200: 8 GPUs, 10.2 kW max.
    {"h200-dgx", 989e12, 700, 8, 141e9, 141e9, 4.8e12, 10200},
    // B200 (HGX/DGX): 2250, 1000 W, 180-192 GB, 8 TB/s; DGX B200: ~14.3 kW.
    {"b200-dgx", 2250e12, 1000, 8, 180e9, 192e9, 8e12, 14300},
    // B200 in GB200 NVL72: 2500, 1200 W, 186-192 GB, 8 TB/s; NVL72 rack (one domain of 72): 132 kW
    // of power shelves (its nameplate; ~120 kW under load).
    {"gb200-nvl72", 2500e12, 1200, 72, 186e9, 192e9, 8e12, 132000},
    // MI300X: 1307.4, 750 W, 192 GB, 5.3 TB/s, 8 per domain; server power not published.
    {"mi300x", 1307.4e12, 750, 8, 192e9, 192e9, 5.3e12, 0},
    // B300 (HGX B300): 2250, 1100 W (estimate), 288 GB, 8 TB/s; DGX B300 ~14 kW (estimate).
    {"b300-dgx", 2250e12, 1100, 8, 288e9, 288e9, 8e12, 14000},
    // Blackwell Ultra in GB300 NVL72: 2500, 1400 W (estimate), 279-288 GB, 8 TB/s; one NVL72 rack
    // at 72 x 1,400 + 45,600 = 146,400 W (estimate).
    {"gb300-nvl72", 2500e12, 1400, 72, 279e9, 288e9, 8e12, 146400},
    // GH200: 989.4, 1000 W module, 96 GB, 4 TB/s, 4 per node; node power not published.
    {"gh200", 989.4e12, 1000, 4, 96e9, 96e9, 4e12, 0},
    // MI355X: 2516.6, 1400 W, 288 GB, 8 TB/s, 8 per platform; platform power not published.
    {"mi355x", 2516.6e12, 1400, 8, 288e9, 288e9, 8e12, 0},
    // Rubin in Vera Rubin NVL144 (announced; BF16 and power estimates): 8333, 1800 W, 288 GB,
    // 13 TB/s, 72 per rack; 72 x 1,800 + 60,000 = 189,600 W (estimate).
    {"vr200-nvl144", 8333e12, 1800, 72, 288e9, 288e9, 13e12, 189600},
};

TEST(RealPresets, MatchThePublishedFigures) {
  for (const ReferenceRow& row : kReference) {
    SCOPED_TRACE(row.preset);
    const PlanRequest r = MustLoad(row.preset);
    const Accelerator& gpu = r.hardware().accelerator();
    EXPECT_DOUBLE_EQ(gpu.peak_flops_per_second(), row.peak_flops_per_second);
    EXPECT_DOUBLE_EQ(gpu.tdp_watts(), row.tdp_watts);
    EXPECT_EQ(r.hardware().server().gpus_per_server(), row.gpus_per_server);
    EXPECT_GE(gpu.hbm_bytes(), row.hbm_min_bytes);
    EXPECT_LE(gpu.hbm_bytes(), row.hbm_max_bytes);
    EXPECT_DOUBLE_EQ(gpu.hbm_bandwidth_bytes_per_second(), row.hbm_bandwidth_bytes_per_second);
    if (row.server_max_watts > 0) {
      EXPECT_NEAR(ServerWatts(r), row.server_max_watts, 0.01 * row.server_max_watts);
    }
  }
}

TEST(RealPresets, FillInEverySection) {
  for (const ReferenceRow& row : kReference) {
    SCOPED_TRACE(row.preset);
    const PlanRequest r = MustLoad(row.preset);
    const Hardware& hw = r.hardware();
    EXPECT_FALSE(hw.accelerator().name().empty());
    EXPECT_GT(hw.accelerator().price_usd(), 0.0);
    EXPECT_FALSE(hw.server().name().empty());
    EXPECT_GT(hw.server().overhead_watts(), 0.0);
    // Priced either as a whole server or as GPUs plus the rest.
    EXPECT_TRUE(hw.server().price_usd() > 0 || hw.server().non_gpu_price_usd() > 0);
    EXPECT_GE(hw.rack().max_servers_per_rack(), 1u);
    // The rack limit holds a full rack, so it documents the rack rather than shrinking it.
    EXPECT_LE(hw.rack().max_servers_per_rack() * ServerWatts(r) + hw.rack().overhead_watts(),
              hw.rack().power_limit_watts());
    EXPECT_GE(hw.pod().racks_per_pod(), 1u);
    EXPECT_GE(hw.network().scale_up_domain_gpus(), hw.server().gpus_per_server());
    EXPECT_GT(hw.network().scale_up_bandwidth_bytes_per_second(), 0.0);
    EXPECT_EQ(hw.network().nics_per_gpu(), 1u);
    EXPECT_GT(hw.network().port_bits_per_second(), 0.0);
    EXPECT_GE(hw.network().switch_radix(), 4u);
    EXPECT_EQ(hw.network().switch_radix() % 2, 0u);
    EXPECT_GT(hw.network().switch_power_watts(), 0.0);
    EXPECT_GT(hw.network().switch_price_usd(), 0.0);
    EXPECT_GT(hw.network().optic_power_watts(), 0.0);
    EXPECT_GT(hw.network().optic_price_usd(), 0.0);
    ASSERT_TRUE(r.site().has_pue());
    EXPECT_GE(r.site().pue(), 1.0);
    // Every real preset's MFU comes from the step model on the reference workload (issue 23).
    EXPECT_TRUE(r.efficiency().has_reference_workload());
    // Cushman & Wakefield 2025: 9.3-15.0 M USD per MW of critical load across 19 US markets.
    EXPECT_GE(r.costs().facility_usd_per_it_watt(), 9.3);
    EXPECT_LE(r.costs().facility_usd_per_it_watt(), 15.0);
    // The PUEs: a cooling type, the design day at or above the annual average.
    EXPECT_NE(r.site().cooling(), COOLING_UNSPECIFIED);
    // The design-day PUE is the cooling type's default (planner/defaults.h), so schema and presets
    // agree; the annual PUE is left to its default.
    EXPECT_DOUBLE_EQ(r.site().pue(),
                     r.site().cooling() == COOLING_AIR ? defaults::kAirPue : defaults::kLiquidPue);
    EXPECT_FALSE(r.site().has_annual_pue());
    EXPECT_GT(r.costs().electricity_usd_per_kwh(), 0.0);
    EXPECT_GT(r.costs().maintenance_fraction_per_year(), 0.0);
  }
}

// ------------------------------------------------------------------------------------------------
// Each figure against its SOURCES.md row: the row's value column starts with the figure, in the
// unit given here ("2,500 TFLOP/s (...)" with 1e12, "$45,000" with 1, "288 GB" with 1e9).
// ------------------------------------------------------------------------------------------------

std::string ReadRunfile(const std::string& path);

struct SourcedFigure {
  const char* preset;
  const char* path;  // a numeric field of PlanRequest
  const char* row;   // SOURCES.md id
  double unit;
};

constexpr SourcedFigure kSourcedFigures[] = {
    // FP8 and FP4 peaks of the earlier presets.
    {"h100-dgx", "hardware.accelerator.peak_fp8_flops_per_second", "h100-fp8", 1e12},
    {"h200-dgx", "hardware.accelerator.peak_fp8_flops_per_second", "h200-fp8", 1e12},
    {"b200-dgx", "hardware.accelerator.peak_fp8_flops_per_second", "b200-fp8", 1e12},
    {"b200-dgx", "hardware.accelerator.peak_fp4_flops_per_second", "b200-fp4", 1e12},
    {"gb200-nvl72", "hardware.accelerator.peak_fp8_flops_per_second", "gb200-fp8", 1e12},
    {"gb200-nvl72", "hardware.accelerator.peak_fp4_flops_per_second", "gb200-fp4", 1e12},
    {"mi300x", "hardware.accelerator.peak_fp8_flops_per_second", "mi300x-fp8", 1e12},
    // gb300-nvl72.
    {"gb300-nvl72", "hardware.accelerator.peak_flops_per_second", "gb300-bf16", 1e12},
    {"gb300-nvl72", "hardware.accelerator.peak_fp8_flops_per_second", "gb300-fp8", 1e12},
    {"gb300-nvl72", "hardware.accelerator.peak_fp4_flops_per_second", "gb300-fp4", 1e12},
    {"gb300-nvl72", "hardware.accelerator.tdp_watts", "gb300-tdp", 1},
    {"gb300-nvl72", "hardware.accelerator.hbm_bytes", "gb300-hbm", 1e9},
    {"gb300-nvl72", "hardware.accelerator.hbm_bandwidth_bytes_per_second", "gb300-hbm-bandwidth",
     1e12},
    {"gb300-nvl72", "hardware.network.scale_up_domain_gpus", "gb300-nvlink", 1},
    {"gb300-nvl72", "hardware.server.price_usd", "gb300-price", 1},
    {"gb300-nvl72", "hardware.calibration.compute_units", "blackwell-ultra-sms", 1},
    {"gb300-nvl72", "hardware.network.switch_radix", "xdr-switch", 1},
    {"gb300-nvl72", "hardware.network.switch_power_watts", "xdr-switch-power-price", 1},
    {"gb300-nvl72", "hardware.network.optic_power_watts", "xdr-optics", 1},
    // b300-dgx.
    {"b300-dgx", "hardware.accelerator.peak_flops_per_second", "b300-bf16", 1e12},
    {"b300-dgx", "hardware.accelerator.peak_fp8_flops_per_second", "b300-fp8", 1e12},
    {"b300-dgx", "hardware.accelerator.peak_fp4_flops_per_second", "b300-fp4", 1e12},
    {"b300-dgx", "hardware.accelerator.tdp_watts", "b300-tdp", 1},
    {"b300-dgx", "hardware.accelerator.hbm_bytes", "b300-hbm", 1e9},
    {"b300-dgx", "hardware.accelerator.hbm_bandwidth_bytes_per_second", "b300-hbm-bandwidth", 1e12},
    {"b300-dgx", "hardware.accelerator.price_usd", "b300-price", 1},
    {"b300-dgx", "hardware.network.scale_up_domain_gpus", "b300-nvlink", 1},
    {"b300-dgx", "hardware.server.non_gpu_price_usd", "dgx-b300-non-gpu-price", 1},
    {"b300-dgx", "hardware.rack.max_servers_per_rack", "b300-rack", 1},
    {"b300-dgx", "hardware.calibration.compute_units", "blackwell-ultra-sms", 1},
    // mi355x.
    {"mi355x", "hardware.accelerator.peak_flops_per_second", "mi355x-bf16", 1e12},
    {"mi355x", "hardware.accelerator.peak_fp8_flops_per_second", "mi355x-fp8", 1e12},
    {"mi355x", "hardware.accelerator.peak_fp4_flops_per_second", "mi355x-fp4", 1e12},
    {"mi355x", "hardware.accelerator.tdp_watts", "mi355x-tdp", 1},
    {"mi355x", "hardware.accelerator.hbm_bytes", "mi355x-hbm", 1e9},
    {"mi355x", "hardware.accelerator.hbm_bandwidth_bytes_per_second", "mi355x-hbm-bandwidth", 1e12},
    {"mi355x", "hardware.accelerator.price_usd", "mi355x-price", 1},
    {"mi355x", "hardware.network.scale_up_domain_gpus", "mi355x-infinity-fabric", 1},
    {"mi355x", "hardware.calibration.compute_units", "mi355x-cus", 1},
    {"mi355x", "hardware.server.overhead_watts", "mi355x-server", 1},
    {"mi355x", "hardware.rack.max_servers_per_rack", "mi355x-rack", 1},
    // gh200.
    {"gh200", "hardware.accelerator.peak_flops_per_second", "gh200-bf16", 1e12},
    {"gh200", "hardware.accelerator.peak_fp8_flops_per_second", "gh200-fp8", 1e12},
    {"gh200", "hardware.accelerator.tdp_watts", "gh200-tdp", 1},
    {"gh200", "hardware.accelerator.hbm_bytes", "gh200-hbm", 1e9},
    {"gh200", "hardware.accelerator.price_usd", "gh200-price", 1},
    {"gh200", "hardware.server.gpus_per_server", "gh200-node", 1},
    {"gh200", "hardware.server.overhead_watts", "gh200-node-overhead", 1},
    {"gh200", "hardware.network.scale_up_domain_gpus", "gh200-nvlink", 1},
    {"gh200", "hardware.rack.max_servers_per_rack", "gh200-rack", 1},
    {"gh200", "hardware.network.switch_radix", "slingshot-switch", 1},
    {"gh200", "hardware.network.switch_power_watts", "slingshot-power-price", 1},
    // vr200-nvl144 (announced figures and labelled estimates).
    {"vr200-nvl144", "hardware.accelerator.peak_fp8_flops_per_second", "vr200-announced", 1e12},
    {"vr200-nvl144", "hardware.accelerator.peak_flops_per_second", "vr200-bf16", 1e12},
    {"vr200-nvl144", "hardware.accelerator.hbm_bytes", "vr200-hbm", 1e9},
    {"vr200-nvl144", "hardware.accelerator.hbm_bandwidth_bytes_per_second", "vr200-hbm-bandwidth",
     1e12},
    {"vr200-nvl144", "hardware.accelerator.tdp_watts", "vr200-power", 1},
    {"vr200-nvl144", "hardware.server.price_usd", "vr200-price", 1},
    {"vr200-nvl144", "hardware.network.scale_up_domain_gpus", "vr200-nvlink", 1},
    {"vr200-nvl144", "hardware.network.switch_radix", "vr200-fabric", 1},
    {"vr200-nvl144", "hardware.calibration.compute_units", "vr200-sms", 1},
};

// The value column of SOURCES.md's row `id` ("" when there is none).
std::string RowValue(const std::string& table, const std::string& id) {
  const std::string anchor = absl::StrCat("| <a id=\"", id, "\"></a>");
  const size_t at = table.find(anchor);
  if (at == std::string::npos) return "";
  const std::string line = table.substr(at, table.find('\n', at) - at);
  // | anchor `id` | figure | value | source | kind | used by |
  std::vector<std::string> cells = absl::StrSplit(line, " | ");
  return cells.size() > 2 ? cells[2] : "";
}

// The first number of `text`, thousands separators dropped ("$3,900,000 per rack" -> 3900000).
double FirstNumber(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string digits;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      digits.push_back(c);
    } else if (c != ',') {
      break;
    }
  }
  return digits.empty() ? -1 : std::stod(digits);
}

// The numeric field at `path` of `r`, through the descriptor.
double FieldValue(const PlanRequest& r, const std::string& path) {
  const google::protobuf::Message* msg = &r;
  const std::vector<std::string> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const google::protobuf::FieldDescriptor* f = msg->GetDescriptor()->FindFieldByName(parts[i]);
    if (f == nullptr) return -1;
    const google::protobuf::Reflection* reflection = msg->GetReflection();
    if (i + 1 < parts.size()) {
      msg = &reflection->GetMessage(*msg, f);
      continue;
    }
    switch (f->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE:
        return reflection->GetDouble(*msg, f);
      case google::protobuf::FieldDescriptor::CPPTYPE_UINT32:
        return reflection->GetUInt32(*msg, f);
      default:
        return -1;
    }
  }
  return -1;
}

TEST(Presets, EveryListedFigureIsTheFirstNumberOfItsSourcesRow) {
  const std::string table = ReadRunfile("planner/presets/SOURCES.md");
  ASSERT_FALSE(table.empty()) << "cannot read planner/presets/SOURCES.md";
  for (const SourcedFigure& f : kSourcedFigures) {
    SCOPED_TRACE(absl::StrCat(f.preset, " ", f.path, " SOURCES.md#", f.row));
    const std::string value = RowValue(table, f.row);
    ASSERT_FALSE(value.empty());
    const PlanRequest r = MustLoad(f.preset);
    EXPECT_DOUBLE_EQ(FieldValue(r, f.path), FirstNumber(value) * f.unit) << value;
    // The preset cites that row for that field.
    bool cited = false;
    for (const FieldSource& s : r.sources()) {
      cited |= s.path() == f.path && absl::StrContains(s.source(), absl::StrCat("#", f.row));
    }
    EXPECT_TRUE(cited);
  }
}

TEST(Presets, VeraRubinIsLabelledAnAnnouncement) {
  // Every published figure of vr200-nvl144's own hardware is NVIDIA's announcement, and says so
  // (the site, costs and shared estimates cite their own sources).
  const PlanRequest r = MustLoad("vr200-nvl144");
  for (const FieldSource& s : r.sources()) {
    const bool own = absl::StartsWith(s.path(), "hardware.") &&
                     !absl::StartsWith(s.path(), "hardware.auxiliary.") &&
                     !absl::StartsWith(s.path(), "hardware.calibration.");
    if (own && s.origin() == ORIGIN_PRESET) {
      EXPECT_THAT(s.source(), StartsWith("NVIDIA announcement")) << s.path();
    }
  }
  EXPECT_THAT(r.hardware().accelerator().name(), HasSubstr("announced"));
}

// ------------------------------------------------------------------------------------------------
// Provenance: every figure a preset sets is cited (proto/provenance.proto), checked from the
// PlanRequest descriptor so that a field added to the schema and set by a preset needs a source.
// ------------------------------------------------------------------------------------------------

// The file as the test's runfiles hold it.
std::string ReadRunfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The request's identity, not figures: no source needed (a preset may still cite them).
const std::set<std::string> kUncited = {"schema_version", "name", "sources"};

TEST(Presets, CiteEveryFieldTheySetAndNothingElse) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const PlanRequest r = MustLoad(name);
    std::set<std::string> cited;
    for (const FieldSource& source : r.sources()) {
      // No stale entries: each path names a real scalar field of PlanRequest, once.
      EXPECT_TRUE(NamesAScalarField(*PlanRequest::descriptor(), source.path())) << source.path();
      EXPECT_TRUE(cited.insert(source.path()).second) << "cited twice: " << source.path();
      EXPECT_FALSE(source.source().empty()) << source.path();
      EXPECT_THAT(source.origin(), AnyOf(ORIGIN_PRESET, ORIGIN_ESTIMATE)) << source.path();
      // An estimate says which kind it is and why.
      if (source.origin() == ORIGIN_ESTIMATE) {
        EXPECT_THAT(source.source(), AnyOf(StartsWith("estimate: "), StartsWith("judgement: ")))
            << source.path();
      }
    }
    for (const std::string& path : SetFieldPaths(r, kUncited)) {
      EXPECT_EQ(cited.count(path), 1u) << "no source for " << path;
    }
  }
}

TEST(Presets, CiteTheSeedChaptersToyModelForTheSeed) {
  const PlanRequest seed = MustLoad("seed");
  ASSERT_GT(seed.sources_size(), 0);
  for (const FieldSource& source : seed.sources()) {
    EXPECT_EQ(source.origin(), ORIGIN_ESTIMATE) << source.path();
    EXPECT_THAT(source.source(), StartsWith("judgement: the seed chapter's")) << source.path();
  }
}

TEST(Presets, CiteOnlyRowsThatSourcesMdHas) {
  // Every "SOURCES.md#id" a preset's sources or comments name is an anchor of SOURCES.md.
  const std::string table = ReadRunfile("planner/presets/SOURCES.md");
  ASSERT_FALSE(table.empty()) << "cannot read planner/presets/SOURCES.md";
  for (const std::string& name : PresetNames()) {
    const std::string text = ReadPresetFile(name);
    size_t at = 0;
    int rows = 0;
    while ((at = text.find("SOURCES.md#", at)) != std::string::npos) {
      at += 11;
      size_t end = at;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) {
        ++end;
      }
      const std::string id = text.substr(at, end - at);
      EXPECT_TRUE(absl::StrContains(table, absl::StrCat("<a id=\"", id, "\"></a>")))
          << name << " cites SOURCES.md#" << id;
      ++rows;
    }
    EXPECT_GT(rows, 0) << name;
    // Nobody has the old reference file: no preset may point at it.
    EXPECT_FALSE(absl::StrContains(text, "hardware_reference")) << name;
  }
}

}  // namespace
}  // namespace dcplan

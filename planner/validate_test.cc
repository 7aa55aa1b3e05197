#include "planner/validate.h"

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/test_requests.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::google::protobuf::TextFormat;
using ::testing::HasSubstr;

// A complete, valid request: an H100-like server (989.4 TFLOP/s dense BF16, 700 W, 8 per server,
// 4600 W for the rest of the server), racks of 4 servers at 41 kW, a radix-64 fat tree.
// Rack power: one server is 8 x 700 + 4600 = 10200 W; four servers plus the 200 W rack overhead are
// 4 x 10200 + 200 = 41000 W, exactly the limit.
constexpr char kFullRequest[] = R"pb(
  schema_version: SCHEMA_VERSION_1
  name: "h100-test"
  hardware {
    accelerator {
      name: "H100 SXM5"
      peak_flops_per_second: 989.4e12
      tdp_watts: 700
      hbm_bytes: 80e9
      hbm_bandwidth_bytes_per_second: 3.35e12
      price_usd: 25000
    }
    server { name: "DGX H100" gpus_per_server: 8 overhead_watts: 4600 non_gpu_price_usd: 150000 }
    rack { max_servers_per_rack: 4 power_limit_watts: 41000 overhead_watts: 200 price_usd: 60000 }
    pod { racks_per_pod: 32 }
    network {
      scale_up_domain_gpus: 8
      scale_up_bandwidth_bytes_per_second: 450e9
      nics_per_gpu: 1
      port_bits_per_second: 4e11
      switch_radix: 64
      switch_power_watts: 1500
      switch_price_usd: 40000
      optic_power_watts: 15
      optic_price_usd: 800
      leaf_oversubscription: 1
    }
  }
  site {
    pue: 1.3
    building { critical_it_power_watts: 50e6 }
    max_buildings: 4
    substation {
      transformer_rating_va: 1e8
      transformer_count: 4
      power_factor: 0.95
      redundancy: REDUNDANCY_2N
    }
  }
  efficiency { log_linear { intercept: 0.62 slope_per_doubling: 0.02 floor: 0.01 } }
  constraints {
    power_cap_watts: 100e6
    power_cap_at: POWER_CAP_AT_FACILITY
    max_gpus: 100000
    budget_usd: 5e9
    budget_on: BUDGET_ON_TCO
    objective: OBJECTIVE_MAX_GPUS
  }
  costs {
    facility_usd_per_it_watt: 10
    site_fixed_usd: 5e7
    electricity_usd_per_kwh: 0.08
    average_utilization: 0.8
    maintenance_fraction_per_year: 0.05
    staff_usd_per_year: 5e6
    horizon_years: 4
  }
)pb";

// The least a request needs: an accelerator and a server; everything else takes its default.
constexpr char kMinimalRequest[] = R"pb(
  hardware {
    accelerator { peak_flops_per_second: 989.4e12 tdp_watts: 700 }
    server { gpus_per_server: 8 }
  }
)pb";

enum class Base { kFull, kMinimal };

// The base fixture with `fragment` merged in (scalars in the fragment overwrite the fixture's).
PlanRequest Build(Base base, const std::string& fragment) {
  PlanRequest request;
  EXPECT_TRUE(
      TextFormat::ParseFromString(base == Base::kFull ? kFullRequest : kMinimalRequest, &request));
  EXPECT_TRUE(TextFormat::MergeFromString(fragment, &request)) << fragment;
  return request;
}

TEST(ValidateRequest, AcceptsTheFullH100Request) {
  EXPECT_THAT(ValidateRequest(Build(Base::kFull, "")), IsOk());
}

TEST(ValidateRequest, AcceptsAnAcceleratorAndAServerAlone) {
  EXPECT_THAT(ValidateRequest(Build(Base::kMinimal, "")), IsOk());
}

TEST(ValidateRequest, RejectsAnEmptyRequestAtItsFirstRequiredField) {
  EXPECT_THAT(ValidateRequest(PlanRequest()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hardware.accelerator.peak_flops_per_second must be > 0, got 0")));
}

TEST(ValidateRequest, ReportsTheFirstErrorInFieldOrder) {
  // Four bad fields; peak_flops_per_second (hardware.accelerator field 2) comes first.
  const PlanRequest request = Build(Base::kFull, R"pb(
    hardware { accelerator { peak_flops_per_second: 0 tdp_watts: 0 } }
    site { pue: 0.9 }
    costs { horizon_years: 0 }
  )pb");
  EXPECT_THAT(ValidateRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hardware.accelerator.peak_flops_per_second must be > 0, got 0")));
}

// ------------------------------------------------------------------------------------------------
// Bad inputs: each fragment breaks one requirement of proto/request.proto or one hard limit.
// ------------------------------------------------------------------------------------------------

struct BadCase {
  const char* name;
  Base base;
  const char* fragment;
  absl::StatusCode code;
  const char* message;

  friend std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.name; }
};

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
constexpr absl::StatusCode kRange = absl::StatusCode::kOutOfRange;
constexpr absl::StatusCode kPrecondition = absl::StatusCode::kFailedPrecondition;

const BadCase kBadCases[] = {
    // Schema version.
    {"NewerSchemaVersion", Base::kFull, "schema_version: 2", kInvalid,
     "schema_version must be <= 1 (SCHEMA_VERSION_1, the newest this dcplan reads), got 2"},
    {"NegativeSchemaVersion", Base::kFull, "schema_version: -1", kInvalid,
     "schema_version must be a known SchemaVersion value, got -1"},

    // Accelerator.
    {"NanPeakFlops", Base::kFull, "hardware { accelerator { peak_flops_per_second: nan } }",
     kInvalid, "hardware.accelerator.peak_flops_per_second must be finite, got nan"},
    {"InfinitePeakFlops", Base::kFull, "hardware { accelerator { peak_flops_per_second: inf } }",
     kInvalid, "hardware.accelerator.peak_flops_per_second must be finite, got inf"},
    {"MinusInfinitePeakFlops", Base::kFull,
     "hardware { accelerator { peak_flops_per_second: -inf } }", kInvalid,
     "hardware.accelerator.peak_flops_per_second must be finite, got -inf"},
    {"ZeroPeakFlops", Base::kFull, "hardware { accelerator { peak_flops_per_second: 0 } }",
     kInvalid, "hardware.accelerator.peak_flops_per_second must be > 0, got 0"},
    {"PeakFlopsAboveHardLimit", Base::kFull,
     "hardware { accelerator { peak_flops_per_second: 2e20 } }", kRange,
     "hardware.accelerator.peak_flops_per_second must be <= 1e+20, got 2e+20"},
    {"NegativeTdp", Base::kFull, "hardware { accelerator { tdp_watts: -700 } }", kInvalid,
     "hardware.accelerator.tdp_watts must be > 0, got -700"},
    {"TdpAboveHardLimit", Base::kMinimal, "hardware { accelerator { tdp_watts: 1.5e15 } }", kRange,
     "hardware.accelerator.tdp_watts must be <= 1e+15, got 1.5e+15"},
    {"NegativeMeasuredPower", Base::kFull, "hardware { accelerator { measured_power_watts: -5 } }",
     kInvalid,
     "hardware.accelerator.measured_power_watts must be > 0 when set (0 = use tdp_watts), got -5"},
    {"NanMeasuredPower", Base::kFull, "hardware { accelerator { measured_power_watts: nan } }",
     kInvalid, "hardware.accelerator.measured_power_watts must be finite, got nan"},
    {"MeasuredPowerAboveTdp", Base::kFull, "hardware { accelerator { measured_power_watts: 750 } }",
     kPrecondition,
     "hardware.accelerator.measured_power_watts must be <= tdp_watts (700), got 750"},
    {"NegativeHbmBytes", Base::kFull, "hardware { accelerator { hbm_bytes: -1 } }", kInvalid,
     "hardware.accelerator.hbm_bytes must be >= 0, got -1"},
    {"InfiniteHbmBandwidth", Base::kFull,
     "hardware { accelerator { hbm_bandwidth_bytes_per_second: inf } }", kInvalid,
     "hardware.accelerator.hbm_bandwidth_bytes_per_second must be finite, got inf"},
    {"NegativeAcceleratorPrice", Base::kFull, "hardware { accelerator { price_usd: -25000 } }",
     kInvalid, "hardware.accelerator.price_usd must be >= 0, got -25000"},

    // Server.
    {"ZeroGpusPerServer", Base::kFull, "hardware { server { gpus_per_server: 0 } }", kInvalid,
     "hardware.server.gpus_per_server must be >= 1, got 0"},
    {"TooManyGpusPerServer", Base::kFull, "hardware { server { gpus_per_server: 1025 } }", kRange,
     "hardware.server.gpus_per_server must be <= 1024, got 1025"},
    {"NegativeServerOverhead", Base::kFull, "hardware { server { overhead_watts: -1 } }", kInvalid,
     "hardware.server.overhead_watts must be >= 0, got -1"},
    {"NegativeServerPrice", Base::kFull, "hardware { server { price_usd: -0.5 } }", kInvalid,
     "hardware.server.price_usd must be >= 0, got -0.5"},
    {"NanNonGpuPrice", Base::kFull, "hardware { server { non_gpu_price_usd: nan } }", kInvalid,
     "hardware.server.non_gpu_price_usd must be finite, got nan"},

    // Rack.
    {"ZeroServersPerRack", Base::kFull, "hardware { rack { max_servers_per_rack: 0 } }", kInvalid,
     "hardware.rack.max_servers_per_rack must be >= 1, got 0"},
    {"EmptyRackMessage", Base::kMinimal, "hardware { rack { price_usd: 1000 } }", kInvalid,
     "hardware.rack.max_servers_per_rack must be >= 1, got 0"},
    {"TooManyServersPerRack", Base::kFull, "hardware { rack { max_servers_per_rack: 4097 } }",
     kRange, "hardware.rack.max_servers_per_rack must be <= 4096, got 4097"},
    {"NegativeRackPowerLimit", Base::kFull, "hardware { rack { power_limit_watts: -1 } }", kInvalid,
     "hardware.rack.power_limit_watts must be >= 0, got -1"},
    // One server + rack overhead = 8 x 700 + 4600 + 200 = 10400 W; 1 W less holds no server.
    {"RackThatHoldsNoServer", Base::kFull, "hardware { rack { power_limit_watts: 10399 } }",
     kPrecondition,
     "hardware.rack.power_limit_watts must be >= one server plus the rack overhead "
     "(8 x 700 + 4600 + 200 = 10400), got 10399: a rack that can hold no server"},
    // Provisioned at the nameplate (the default), a measured draw changes nothing: 10400 W.
    {"RackThatHoldsNoServerAtNameplate", Base::kFull,
     "hardware { accelerator { measured_power_watts: 600 } rack { power_limit_watts: 9000 } }",
     kPrecondition,
     "hardware.rack.power_limit_watts must be >= one server plus the rack overhead "
     "(8 x 700 + 4600 + 200 = 10400), got 9000"},
    // Provisioned at the measured draw with no margin: 8 x 600 + 4600 + 200 = 9600 W.
    {"RackThatHoldsNoServerAtMeasuredPower", Base::kFull,
     "hardware { accelerator { measured_power_watts: 600 } rack { power_limit_watts: 9000 } } "
     "site { provisioning { basis: PROVISIONING_BASIS_MEASURED margin: 0 } }",
     kPrecondition,
     "hardware.rack.power_limit_watts must be >= one server plus the rack overhead "
     "(8 x 600 + 4600 + 200 = 9600), got 9000"},
    // With the default margin of 8%: 8 x 600 x 1.08 = 5184; the server overhead has no measured
    // figure, so min(4600, 4600 x 1.08) = 4600; 5184 + 4600 + 200 = 9984 W.
    {"RackThatHoldsNoServerAtMeasuredPowerWithMargin", Base::kFull,
     "hardware { accelerator { measured_power_watts: 600 } rack { power_limit_watts: 9000 } } "
     "site { provisioning { basis: PROVISIONING_BASIS_MEASURED } }",
     kPrecondition,
     "hardware.rack.power_limit_watts must be >= one server plus the rack overhead "
     "(8 x 648 + 4600 + 200 = 9984), got 9000"},
    {"MeasuredServerOverheadAboveNameplate", Base::kFull,
     "hardware { server { measured_overhead_watts: 4601 } }", kPrecondition,
     "hardware.server.measured_overhead_watts must be <= overhead_watts (4600), got 4601"},
    {"NegativeMeasuredRackOverhead", Base::kFull,
     "hardware { rack { measured_overhead_watts: -1 } }", kInvalid,
     "hardware.rack.measured_overhead_watts must be > 0 when set (0 = use overhead_watts), got -1"},
    {"ProvisioningMarginAboveOne", Base::kFull, "site { provisioning { margin: 1.5 } }", kInvalid,
     "site.provisioning.margin must be in [0, 1], got 1.5"},
    {"UnknownProvisioningBasis", Base::kFull, "site { provisioning { basis: 7 } }", kInvalid,
     "site.provisioning.basis must be a known ProvisioningBasis value, got 7"},
    {"SwitchMeasuredAboveNameplate", Base::kFull,
     "hardware { network { switch_measured_power_watts: 2000 } }", kPrecondition,
     "hardware.network.switch_measured_power_watts must be <= switch_power_watts"},
    {"UpperTierOversubscriptionBelowOne", Base::kFull,
     "hardware { network { upper_tier_oversubscription: [1, 0.5] } }", kInvalid,
     "hardware.network.upper_tier_oversubscription[1] must be >= 1, got 0.5"},
    {"UpperTierOversubscriptionWithoutUplinks", Base::kFull,
     "hardware { network { upper_tier_oversubscription: 64 } }", kPrecondition,
     "hardware.network.upper_tier_oversubscription[0] must leave at least one uplink per switch"},
    {"TooManyUpperTiers", Base::kFull,
     "hardware { network { upper_tier_oversubscription: [1,1,1,1,1,1,1,1,1,1,1,1] } }", kRange,
     "hardware.network.upper_tier_oversubscription must have at most 11 entries, got 12"},
    {"RailOptimizedTopOfRack", Base::kFull,
     "hardware { network { rail_optimized: true leaf_placement: LEAF_PLACEMENT_TOP_OF_RACK } }",
     kPrecondition,
     "hardware.network.rail_optimized is true but leaf_placement is LEAF_PLACEMENT_TOP_OF_RACK"},
    {"NegativeCopperPrice", Base::kFull, "hardware { network { copper_cable_end_price_usd: -1 } }",
     kInvalid, "hardware.network.copper_cable_end_price_usd must be >= 0, got -1"},
    {"StorageFractionAboveOne", Base::kFull, "hardware { auxiliary { storage_power_fraction: 2 } }",
     kInvalid, "hardware.auxiliary.storage_power_fraction must be in [0, 1], got 2"},
    {"NegativeHotSpares", Base::kFull, "hardware { auxiliary { hot_spare_fraction: -0.1 } }",
     kInvalid, "hardware.auxiliary.hot_spare_fraction must be in [0, 1], got -0.1"},
    {"TooManyHeadNodes", Base::kFull, "hardware { auxiliary { head_nodes: 100001 } }", kRange,
     "hardware.auxiliary.head_nodes must be <= 100000, got 100001"},
    {"NegativeRackOverhead", Base::kFull, "hardware { rack { overhead_watts: -200 } }", kInvalid,
     "hardware.rack.overhead_watts must be >= 0, got -200"},
    {"InfiniteRackPrice", Base::kFull, "hardware { rack { price_usd: inf } }", kInvalid,
     "hardware.rack.price_usd must be finite, got inf"},

    // Pod.
    {"TooManyRacksPerPod", Base::kFull, "hardware { pod { racks_per_pod: 1000001 } }", kRange,
     "hardware.pod.racks_per_pod must be <= 1000000, got 1000001"},

    // Network.
    {"ScaleUpDomainAboveHardLimit", Base::kFull,
     "hardware { network { scale_up_domain_gpus: 1000001 } }", kRange,
     "hardware.network.scale_up_domain_gpus must be <= 1000000, got 1000001"},
    {"NegativeScaleUpBandwidth", Base::kFull,
     "hardware { network { scale_up_bandwidth_bytes_per_second: -450e9 } }", kInvalid,
     "hardware.network.scale_up_bandwidth_bytes_per_second must be >= 0, got -4.5e+11"},
    {"TooManyNicsPerGpu", Base::kFull, "hardware { network { nics_per_gpu: 17 } }", kRange,
     "hardware.network.nics_per_gpu must be <= 16, got 17"},
    {"NegativePortSpeed", Base::kFull, "hardware { network { port_bits_per_second: -4e11 } }",
     kInvalid, "hardware.network.port_bits_per_second must be >= 0, got -4e+11"},
    {"MissingRadixWithNics", Base::kFull, "hardware { network { switch_radix: 0 } }", kInvalid,
     "hardware.network.switch_radix must be >= 4 and even (required when nics_per_gpu > 0), "
     "got 0"},
    {"OddRadix", Base::kFull, "hardware { network { switch_radix: 63 } }", kInvalid,
     "hardware.network.switch_radix must be >= 4 and even (required when nics_per_gpu > 0), "
     "got 63"},
    {"RadixTwo", Base::kFull, "hardware { network { switch_radix: 2 } }", kInvalid,
     "hardware.network.switch_radix must be >= 4 and even (required when nics_per_gpu > 0), "
     "got 2"},
    {"OddRadixWithoutNics", Base::kMinimal, "hardware { network { switch_radix: 5 } }", kInvalid,
     "hardware.network.switch_radix must be >= 4 and even, got 5"},
    {"RadixAboveHardLimit", Base::kFull, "hardware { network { switch_radix: 65538 } }", kRange,
     "hardware.network.switch_radix must be <= 65536, got 65538"},
    {"NegativeSwitchPower", Base::kFull, "hardware { network { switch_power_watts: -1500 } }",
     kInvalid, "hardware.network.switch_power_watts must be >= 0, got -1500"},
    {"NanSwitchPrice", Base::kFull, "hardware { network { switch_price_usd: nan } }", kInvalid,
     "hardware.network.switch_price_usd must be finite, got nan"},
    {"NegativeOpticPower", Base::kFull, "hardware { network { optic_power_watts: -15 } }", kInvalid,
     "hardware.network.optic_power_watts must be >= 0, got -15"},
    {"OpticPriceAboveHardLimit", Base::kFull, "hardware { network { optic_price_usd: 1e16 } }",
     kRange, "hardware.network.optic_price_usd must be <= 1e+15, got 1e+16"},
    {"LeafOversubscriptionBelowOne", Base::kFull,
     "hardware { network { leaf_oversubscription: 0.5 } }", kInvalid,
     "hardware.network.leaf_oversubscription must be >= 1, got 0.5"},
    {"NanLeafOversubscription", Base::kFull, "hardware { network { leaf_oversubscription: nan } }",
     kInvalid, "hardware.network.leaf_oversubscription must be finite, got nan"},
    // A radix-64 leaf at 63.5:1 has floor(64 / 64.5) = 0 uplinks.
    {"LeafOversubscriptionLeavingNoUplink", Base::kFull,
     "hardware { network { leaf_oversubscription: 63.5 } }", kPrecondition,
     "hardware.network.leaf_oversubscription must leave at least one uplink per leaf switch: at "
     "most switch_radix - 1 (63), got 63.5"},

    // Site.
    {"PueBelowOne", Base::kFull, "site { pue: 0.9 }", kInvalid, "site.pue must be >= 1.0, got 0.9"},
    // 0.1 + 0.2 is printed with the 17 digits that tell it from 0.3.
    {"PueNotRoundedInMessage", Base::kFull, "site { pue: 0.30000000000000004 }", kInvalid,
     "site.pue must be >= 1.0, got 0.30000000000000004"},
    {"PueAboveFive", Base::kFull, "site { pue: 5.5 }", kRange, "site.pue must be <= 5, got 5.5"},
    {"NanPue", Base::kMinimal, "site { pue: nan }", kInvalid, "site.pue must be finite, got nan"},
    {"NegativeBuildingPower", Base::kFull, "site { building { critical_it_power_watts: -1 } }",
     kInvalid, "site.building.critical_it_power_watts must be >= 0, got -1"},
    {"TooManyBuildings", Base::kFull, "site { max_buildings: 1000001 }", kRange,
     "site.max_buildings must be <= 1000000, got 1000001"},
    {"InfiniteTransformerRating", Base::kFull, "site { substation { transformer_rating_va: inf } }",
     kInvalid, "site.substation.transformer_rating_va must be finite, got inf"},
    {"TooManyTransformers", Base::kFull, "site { substation { transformer_count: 10002 } }", kRange,
     "site.substation.transformer_count must be <= 10000, got 10002"},
    {"ZeroPowerFactor", Base::kFull, "site { substation { power_factor: 0 } }", kInvalid,
     "site.substation.power_factor must be in (0, 1], got 0"},
    {"PowerFactorAboveOne", Base::kFull, "site { substation { power_factor: 1.3 } }", kInvalid,
     "site.substation.power_factor must be in (0, 1], got 1.3"},
    {"UnknownRedundancy", Base::kFull, "site { substation { redundancy: 9 } }", kInvalid,
     "site.substation.redundancy must be a known Redundancy value, got 9"},
    {"TwoNWithThreeTransformers", Base::kFull, "site { substation { transformer_count: 3 } }",
     kPrecondition,
     "site.substation.transformer_count must be even with REDUNDANCY_2N (half of the "
     "transformers are held in reserve), got 3"},
    {"TwoNWithTheDefaultSingleTransformer", Base::kMinimal,
     "site { substation { transformer_rating_va: 1e8 redundancy: REDUNDANCY_2N } }", kPrecondition,
     "site.substation.transformer_count must be even with REDUNDANCY_2N (half of the "
     "transformers are held in reserve), got 0 (the default 1)"},
    {"NPlusOneWithOneTransformer", Base::kFull,
     "site { substation { transformer_count: 1 redundancy: REDUNDANCY_N_PLUS_1 } }", kPrecondition,
     "site.substation.transformer_count must be >= 2 with REDUNDANCY_N_PLUS_1 (one transformer "
     "is held in reserve), got 1"},

    // Efficiency: log-linear.
    {"ZeroIntercept", Base::kFull, "efficiency { log_linear { intercept: 0 } }", kInvalid,
     "efficiency.log_linear.intercept must be in (0, 1], got 0"},
    {"InterceptAboveOne", Base::kFull, "efficiency { log_linear { intercept: 1.2 } }", kInvalid,
     "efficiency.log_linear.intercept must be in (0, 1], got 1.2"},
    {"NegativeSlope", Base::kFull, "efficiency { log_linear { slope_per_doubling: -0.01 } }",
     kInvalid, "efficiency.log_linear.slope_per_doubling must be >= 0, got -0.01"},
    {"InfiniteSlope", Base::kFull, "efficiency { log_linear { slope_per_doubling: inf } }",
     kInvalid, "efficiency.log_linear.slope_per_doubling must be finite, got inf"},
    {"SlopeEqualToIntercept", Base::kFull, "efficiency { log_linear { slope_per_doubling: 0.62 } }",
     kPrecondition,
     "efficiency.log_linear.slope_per_doubling must be < intercept (0.62), got 0.62"},
    // The default slope 0.02 is not below a given intercept of 0.015.
    {"InterceptBelowTheDefaultSlope", Base::kMinimal,
     "efficiency { log_linear { intercept: 0.015 } }", kPrecondition,
     "efficiency.log_linear.slope_per_doubling must be < intercept (0.015), got 0.02 (the "
     "default)"},
    {"SlopeAboveTheDefaultIntercept", Base::kMinimal,
     "efficiency { log_linear { slope_per_doubling: 0.7 } }", kPrecondition,
     "efficiency.log_linear.slope_per_doubling must be < intercept (0.62, the default), got 0.7"},
    {"ZeroFloor", Base::kFull, "efficiency { log_linear { floor: 0 } }", kInvalid,
     "efficiency.log_linear.floor must be in (0, intercept], got 0"},
    {"FloorAboveIntercept", Base::kFull, "efficiency { log_linear { floor: 0.63 } }", kPrecondition,
     "efficiency.log_linear.floor must be <= intercept (0.62), got 0.63"},
    // The default floor 0.01 is above a given intercept of 0.005.
    {"InterceptBelowTheDefaultFloor", Base::kMinimal,
     "efficiency { log_linear { intercept: 0.005 slope_per_doubling: 0.001 } }", kPrecondition,
     "efficiency.log_linear.floor must be <= intercept (0.005), got 0.01 (the default)"},

    // Efficiency: table and constant.
    {"EmptyTable", Base::kMinimal, "efficiency { table {} }", kInvalid,
     "efficiency.table.points must have at least one point, got 0"},
    {"TableNotIncreasing", Base::kMinimal,
     "efficiency { table { points { gpus: 8 mfu: 0.6 } points { gpus: 512 mfu: 0.5 }"
     " points { gpus: 256 mfu: 0.45 } } }",
     kInvalid,
     "efficiency.table.points[2].gpus must be greater than points[1].gpus (512), got 256"},
    {"TableRepeatsASize", Base::kMinimal,
     "efficiency { table { points { gpus: 8 mfu: 0.6 } points { gpus: 8 mfu: 0.5 } } }", kInvalid,
     "efficiency.table.points[1].gpus must be greater than points[0].gpus (8), got 8"},
    {"TablePointWithZeroGpus", Base::kMinimal,
     "efficiency { table { points { gpus: 0 mfu: 0.6 } } }", kInvalid,
     "efficiency.table.points[0].gpus must be >= 1, got 0"},
    {"TablePointAboveGpuLimit", Base::kMinimal,
     "efficiency { table { points { gpus: 1000000000001 mfu: 0.3 } } }", kRange,
     "efficiency.table.points[0].gpus must be <= 1000000000000, got 1000000000001"},
    {"TablePointWithZeroMfu", Base::kMinimal,
     "efficiency { table { points { gpus: 8 mfu: 0.6 } points { gpus: 64 mfu: 0 } } }", kInvalid,
     "efficiency.table.points[1].mfu must be in (0, 1], got 0"},
    {"TablePointWithNanMfu", Base::kMinimal, "efficiency { table { points { gpus: 8 mfu: nan } } }",
     kInvalid, "efficiency.table.points[0].mfu must be finite, got nan"},
    {"ZeroConstantMfu", Base::kMinimal, "efficiency { constant {} }", kInvalid,
     "efficiency.constant.mfu must be in (0, 1], got 0"},
    {"ConstantMfuAboveOne", Base::kMinimal, "efficiency { constant { mfu: 1.5 } }", kInvalid,
     "efficiency.constant.mfu must be in (0, 1], got 1.5"},

    // Constraints.
    {"NegativePowerCap", Base::kFull, "constraints { power_cap_watts: -1 }", kInvalid,
     "constraints.power_cap_watts must be >= 0, got -1"},
    {"PowerCapAboveHardLimit", Base::kFull, "constraints { power_cap_watts: 1.0000001e15 }", kRange,
     "constraints.power_cap_watts must be <= 1e+15, got 1.0000001e+15"},
    {"UnknownPowerCapAt", Base::kFull, "constraints { power_cap_at: 7 }", kInvalid,
     "constraints.power_cap_at must be a known PowerCapAt value, got 7"},
    {"SubstationCapWithoutSubstation", Base::kMinimal,
     "constraints { power_cap_at: POWER_CAP_AT_SUBSTATION }", kPrecondition,
     "constraints.power_cap_at is POWER_CAP_AT_SUBSTATION but "
     "site.substation.transformer_rating_va is 0"},
    {"MaxGpusAboveHardLimit", Base::kFull, "constraints { max_gpus: 1000000000001 }", kRange,
     "constraints.max_gpus must be <= 1000000000000, got 1000000000001"},
    {"BudgetAboveHardLimit", Base::kFull, "constraints { budget_usd: 2e15 }", kRange,
     "constraints.budget_usd must be <= 1e+15, got 2e+15"},
    {"NanBudget", Base::kFull, "constraints { budget_usd: nan }", kInvalid,
     "constraints.budget_usd must be finite, got nan"},
    {"UnknownBudgetOn", Base::kFull, "constraints { budget_on: 3 }", kInvalid,
     "constraints.budget_on must be a known BudgetOn value, got 3"},
    {"NegativeObjective", Base::kFull, "constraints { objective: -2 }", kInvalid,
     "constraints.objective must be a known Objective value, got -2"},

    // Costs.
    {"NegativeFacilityCost", Base::kFull, "costs { facility_usd_per_it_watt: -10 }", kInvalid,
     "costs.facility_usd_per_it_watt must be >= 0, got -10"},
    {"NanSiteFixedCost", Base::kFull, "costs { site_fixed_usd: nan }", kInvalid,
     "costs.site_fixed_usd must be finite, got nan"},
    {"NegativeElectricityPrice", Base::kFull, "costs { electricity_usd_per_kwh: -0.08 }", kInvalid,
     "costs.electricity_usd_per_kwh must be >= 0, got -0.08"},
    {"ZeroAverageUtilization", Base::kFull, "costs { average_utilization: 0 }", kInvalid,
     "costs.average_utilization must be in (0, 1], got 0"},
    {"MaintenanceAboveOne", Base::kFull, "costs { maintenance_fraction_per_year: 1.5 }", kInvalid,
     "costs.maintenance_fraction_per_year must be in [0, 1], got 1.5"},
    {"NegativeMaintenance", Base::kFull, "costs { maintenance_fraction_per_year: -0.05 }", kInvalid,
     "costs.maintenance_fraction_per_year must be in [0, 1], got -0.05"},
    {"InfiniteStaffCost", Base::kFull, "costs { staff_usd_per_year: inf }", kInvalid,
     "costs.staff_usd_per_year must be finite, got inf"},
    {"ZeroHorizon", Base::kFull, "costs { horizon_years: 0 }", kInvalid,
     "costs.horizon_years must be > 0, got 0"},
    {"HorizonAboveFiftyYears", Base::kFull, "costs { horizon_years: 51 }", kRange,
     "costs.horizon_years must be <= 50, got 51"},
    {"WaccAboveOne", Base::kFull, "costs { wacc: 1.2 }", kInvalid,
     "costs.wacc must be in [0, 1], got 1.2"},
    {"ZeroItLife", Base::kFull, "costs { it_life_years: 0 }", kInvalid,
     "costs.it_life_years must be > 0, got 0"},
    // A life of 1e-300 years would make the horizon's capital charge overflow.
    {"TinyItLife", Base::kFull, "costs { it_life_years: 1e-300 }", kRange,
     "costs.it_life_years must be >= 0.01, got 1e-300"},
    {"FacilityLifeAboveFifty", Base::kFull, "costs { facility_life_years: 60 }", kRange,
     "costs.facility_life_years must be <= 50, got 60"},
    {"NegativeFacilityMaintenance", Base::kFull,
     "costs { facility_maintenance_fraction_per_year: -0.01 }", kInvalid,
     "costs.facility_maintenance_fraction_per_year must be in [0, 1], got -0.01"},
    {"UnknownCooling", Base::kFull, "site { cooling: 9 }", kInvalid,
     "site.cooling must be a known Cooling value, got 9"},
    {"AnnualPueBelowOne", Base::kFull, "site { annual_pue: 0.95 }", kInvalid,
     "site.annual_pue must be >= 1.0, got 0.95"},
    // The design-day peak is the highest PUE of the year: the annual average cannot exceed it.
    {"AnnualPueAbovePeak", Base::kFull, "site { pue: 1.2 annual_pue: 1.3 }", kPrecondition,
     "site.annual_pue must be <= pue, the design-day peak (1.2), got 1.3"},
    // Liquid cooling's design-day default is 1.2 (planner/defaults.h).
    {"AnnualPueAboveTheCoolingsDefaultPeak", Base::kMinimal,
     "site { cooling: COOLING_DIRECT_LIQUID annual_pue: 1.25 }", kPrecondition,
     "site.annual_pue must be <= pue, the design-day peak (1.2, the default), got 1.25"},

    // Cooling against the hardware.
    {"UnknownRequiredCooling", Base::kFull, "hardware { server { required_cooling: 7 } }", kInvalid,
     "hardware.server.required_cooling must be a known Cooling value, got 7"},
    {"ZeroAirCooledRackLimit", Base::kFull, "site { max_air_cooled_rack_watts: 0 }", kInvalid,
     "site.max_air_cooled_rack_watts must be > 0, got 0"},
    {"NanAirCooledRackLimit", Base::kFull, "site { max_air_cooled_rack_watts: nan }", kInvalid,
     "site.max_air_cooled_rack_watts must be finite, got nan"},
    {"NegativeLiquidCoolingPremium", Base::kFull,
     "costs { liquid_cooling_premium_usd_per_it_watt: -1 }", kInvalid,
     "costs.liquid_cooling_premium_usd_per_it_watt must be >= 0, got -1"},
    // A server that needs liquid on an air-cooled site: both fields and values are named.
    {"AirForAServerThatNeedsLiquid", Base::kFull,
     "hardware { server { required_cooling: COOLING_DIRECT_LIQUID } } site { cooling: COOLING_AIR "
     "}",
     kPrecondition,
     "site.cooling is COOLING_AIR but hardware.server.required_cooling is COOLING_DIRECT_LIQUID "
     "(\"DGX H100\" needs it): set site.cooling to COOLING_DIRECT_LIQUID"},
    {"LiquidForAServerThatNeedsAir", Base::kMinimal,
     "hardware { server { required_cooling: COOLING_AIR } } site { cooling: COOLING_DIRECT_LIQUID "
     "}",
     kPrecondition,
     "site.cooling is COOLING_DIRECT_LIQUID but hardware.server.required_cooling is COOLING_AIR: "
     "set site.cooling to COOLING_AIR"},
    // The fixture's full rack: 4 x (8 x 700 + 4,600) + 200 = 41,000 W, above a 40 kW air limit.
    {"RackAboveTheSitesAirLimit", Base::kFull,
     "site { cooling: COOLING_AIR max_air_cooled_rack_watts: 40000 }", kPrecondition,
     "site.cooling is COOLING_AIR but a rack draws 41,000 W (4 x 10,200 W of hardware.server + "
     "200 W of hardware.rack.overhead_watts), above site.max_air_cooled_rack_watts 40,000 W: set "
     "site.cooling to COOLING_DIRECT_LIQUID or raise site.max_air_cooled_rack_watts"},
    // A rack power limit of 30,800 W holds three servers: 3 x 10,200 + 200 = 30,800 W > 30 kW.
    {"RackFilledUpToItsPowerLimitAboveTheAirLimit", Base::kFull,
     "hardware { rack { power_limit_watts: 30800 } } site { cooling: COOLING_AIR "
     "max_air_cooled_rack_watts: 30000 }",
     kPrecondition, "a rack draws 30,800 W (3 x 10,200 W of hardware.server + 200 W"},
    // A GB200 NVL72-like server with no rack is a rack of its own: 72 x 1,200 + 45,600 = 132,000 W,
    // above the 45,000 W default.
    {"SeventyTwoGpuServerOnAirAtTheDefaultLimit", Base::kMinimal,
     "hardware { accelerator { tdp_watts: 1200 } server { gpus_per_server: 72 overhead_watts: "
     "45600 } } site { cooling: COOLING_AIR }",
     kPrecondition,
     "site.cooling is COOLING_AIR but a rack draws 132,000 W (1 x 132,000 W of hardware.server), "
     "above site.max_air_cooled_rack_watts 45,000 W (the default): set site.cooling to "
     "COOLING_DIRECT_LIQUID or raise site.max_air_cooled_rack_watts"},
};

class ValidateRequestRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ValidateRequestRejects, TheBadFieldNamingItsPathAndValue) {
  const BadCase& c = GetParam();
  EXPECT_THAT(ValidateRequest(Build(c.base, c.fragment)), StatusIs(c.code, HasSubstr(c.message)))
      << "fragment: " << c.fragment;
}

INSTANTIATE_TEST_SUITE_P(BadFields, ValidateRequestRejects, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

// ------------------------------------------------------------------------------------------------
// Values on the edge of each requirement are accepted: the bounds are inclusive where the proto
// says so and absent optional fields are never checked.
// ------------------------------------------------------------------------------------------------

struct GoodCase {
  const char* name;
  Base base;
  const char* fragment;

  friend std::ostream& operator<<(std::ostream& os, const GoodCase& c) { return os << c.name; }
};

const GoodCase kGoodCases[] = {
    {"UnspecifiedSchemaVersion", Base::kFull, "schema_version: SCHEMA_VERSION_UNSPECIFIED"},
    {"MeasuredPowerEqualToTdp", Base::kFull,
     "hardware { accelerator { measured_power_watts: 700 } }"},
    {"GpusPerServerAtTheLimit", Base::kMinimal, "hardware { server { gpus_per_server: 1024 } }"},
    {"RackThatHoldsExactlyOneServer", Base::kFull,
     "hardware { rack { power_limit_watts: 10400 } }"},
    {"RackWithoutPowerLimit", Base::kFull, "hardware { rack { power_limit_watts: 0 } }"},
    {"ServersPerRackAtTheLimit", Base::kMinimal,
     "hardware { rack { max_servers_per_rack: 4096 } }"},
    {"NoScaleOutNetwork", Base::kFull, "hardware { network { nics_per_gpu: 0 switch_radix: 0 } }"},
    {"NicsAndRadixAtTheLimits", Base::kFull,
     "hardware { network { nics_per_gpu: 16 switch_radix: 65536 } }"},
    {"LeafWithOneUplink", Base::kFull, "hardware { network { leaf_oversubscription: 63 } }"},
    {"PueOfOne", Base::kFull, "site { pue: 1.0 }"},
    {"PueOfFive", Base::kFull, "site { pue: 5 }"},
    {"PowerFactorOfOne", Base::kFull, "site { substation { power_factor: 1 } }"},
    {"NPlusOneWithTwoTransformers", Base::kFull,
     "site { substation { transformer_count: 2 redundancy: REDUNDANCY_N_PLUS_1 } }"},
    {"TwoNWithoutSubstation", Base::kMinimal, "site { substation { redundancy: REDUNDANCY_2N } }"},
    {"FlatMfuCurve", Base::kFull, "efficiency { log_linear { slope_per_doubling: 0 } }"},
    {"FloorEqualToIntercept", Base::kFull, "efficiency { log_linear { floor: 0.62 } }"},
    {"InterceptOfOne", Base::kMinimal, "efficiency { log_linear { intercept: 1 } }"},
    {"SinglePointTable", Base::kMinimal, "efficiency { table { points { gpus: 1 mfu: 1 } } }"},
    {"TableUpToTheGpuLimit", Base::kMinimal,
     "efficiency { table { points { gpus: 1 mfu: 0.6 } points { gpus: 1000000000000 mfu: 0.1 } } "
     "}"},
    {"ConstantMfuOfOne", Base::kMinimal, "efficiency { constant { mfu: 1 } }"},
    {"SubstationCapWithSubstation", Base::kFull,
     "constraints { power_cap_at: POWER_CAP_AT_SUBSTATION power_cap_watts: 0 }"},
    {"CapsAtTheLimits", Base::kFull,
     "constraints { power_cap_watts: 1e15 max_gpus: 1000000000000 budget_usd: 1e15 }"},
    {"NoMaintenance", Base::kFull, "costs { maintenance_fraction_per_year: 0 }"},
    {"FullMaintenance", Base::kFull, "costs { maintenance_fraction_per_year: 1 }"},
    {"FullUtilization", Base::kFull, "costs { average_utilization: 1 }"},
    {"FiftyYearHorizon", Base::kFull, "costs { horizon_years: 50 }"},
    // Cooling: the fixture's 41,000 W rack fits the 45 kW default and a limit of exactly 41 kW.
    {"FullRackOnAirUnderTheDefaultLimit", Base::kFull, "site { cooling: COOLING_AIR }"},
    {"RackExactlyAtTheAirLimit", Base::kFull,
     "site { cooling: COOLING_AIR max_air_cooled_rack_watts: 41000 }"},
    // The air limit binds only on air.
    {"HotRackOnLiquid", Base::kFull,
     "site { cooling: COOLING_DIRECT_LIQUID max_air_cooled_rack_watts: 1000 }"},
    {"HotRackWithUnspecifiedCooling", Base::kFull, "site { max_air_cooled_rack_watts: 1000 }"},
    // An unspecified site cooling contradicts no requirement.
    {"LiquidServerWithUnspecifiedCooling", Base::kFull,
     "hardware { server { required_cooling: COOLING_DIRECT_LIQUID } }"},
    {"LiquidServerOnLiquid", Base::kFull,
     "hardware { server { required_cooling: COOLING_DIRECT_LIQUID } } site { cooling: "
     "COOLING_DIRECT_LIQUID }"},
    {"NoLiquidCoolingPremium", Base::kFull, "costs { liquid_cooling_premium_usd_per_it_watt: 0 }"},
};

class ValidateRequestAccepts : public ::testing::TestWithParam<GoodCase> {};

TEST_P(ValidateRequestAccepts, TheValueOnTheEdgeOfItsRequirement) {
  const GoodCase& c = GetParam();
  EXPECT_THAT(ValidateRequest(Build(c.base, c.fragment)), IsOk()) << "fragment: " << c.fragment;
}

INSTANTIATE_TEST_SUITE_P(EdgeValues, ValidateRequestAccepts, ::testing::ValuesIn(kGoodCases),
                         [](const ::testing::TestParamInfo<GoodCase>& info) {
                           return std::string(info.param.name);
                         });

// ------------------------------------------------------------------------------------------------
// The table size limit (too many points to write as a fragment).
// ------------------------------------------------------------------------------------------------

// A table of `n` points at 1, 2, ..., n GPUs.
PlanRequest WithTableOf(int n) {
  PlanRequest request = Build(Base::kMinimal, "");
  MfuTable* table = request.mutable_efficiency()->mutable_table();
  for (int i = 1; i <= n; ++i) {
    MfuPoint* point = table->add_points();
    point->set_gpus(i);
    point->set_mfu(0.5);
  }
  return request;
}

TEST(ValidateRequest, RefusesATcoBudgetOverAHorizonTooShortToMeanAnything) {
  // $10B of TCO over 1e-9 years bought the 10^12 size limit of H100s: refused with the range. A
  // quarter year (the edge) is accepted, and so is any horizon with a capex budget, or no budget.
  const std::string budget = "constraints { budget_usd: 1e10 budget_on: BUDGET_ON_TCO } ";
  EXPECT_THAT(ValidateRequest(Build(Base::kFull, budget + "costs { horizon_years: 1e-9 }")),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("costs.horizon_years must be in [0.25, 50] with a TCO budget "
                                 "(constraints.budget_on is BUDGET_ON_TCO), got 1e-09")));
  EXPECT_THAT(ValidateRequest(Build(Base::kFull, budget + "costs { horizon_years: 0.2499 }")),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("got 0.2499")));
  EXPECT_THAT(ValidateRequest(Build(Base::kFull, budget + "costs { horizon_years: 0.25 }")),
              IsOk());
  EXPECT_THAT(ValidateRequest(Build(Base::kFull,
                                    "constraints { budget_usd: 1e10 budget_on: BUDGET_ON_CAPEX } "
                                    "costs { horizon_years: 1e-9 }")),
              IsOk());
  EXPECT_THAT(ValidateRequest(Build(Base::kMinimal, "costs { horizon_years: 1e-9 }")), IsOk());
}

TEST(ValidateRequest, AcceptsATableOfTenThousandPoints) {
  EXPECT_THAT(ValidateRequest(WithTableOf(10000)), IsOk());
}

TEST(ValidateRequest, RejectsATableOfMoreThanTenThousandPoints) {
  EXPECT_THAT(ValidateRequest(WithTableOf(10001)),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("efficiency.table.points must have at most 10000 points, got "
                                 "10001")));
}

// ValidAfterMove gives ValidateRequest's verdict on every move of one number in a valid request:
// each preset (and variants that switch on the checks that read several sections: air cooling
// with rack limits near the racks' draw, measured provisioning, a TCO budget, the compute
// objective, a budget only the server's price gives meaning), every numeric field the schema
// has, moved to values on both sides of its bounds. ValidateRequest is the reference; the moves
// that fail must be many, or the comparison proves nothing.
TEST(ValidAfterMove, AgreesWithValidateRequestOnEveryMove) {
  std::vector<PlanRequest> bases;
  for (const std::string& preset : PresetNames()) {
    PlanRequest r = LoadPreset(preset).value();
    bases.push_back(r);
    const PlanRequest v = dcplan::testing::CrossSectionVariant(r, 5e9);
    if (ValidateRequest(v).ok()) bases.push_back(v);
    // Air cooling with rack limits around the racks' draw (moves of the rack, server and GPU
    // cross it), and a budget that only the server's price makes meaningful.
    for (double limit : {15e3, 25e3, 35e3, 45e3, 70e3, 100e3, 140e3}) {
      for (uint32_t servers : {0u, 16u}) {  // as given, or as many as the rack's power allows
        PlanRequest air = v;
        air.mutable_site()->set_max_air_cooled_rack_watts(limit);
        if (servers > 0 && air.hardware().has_rack()) {
          air.mutable_hardware()->mutable_rack()->set_max_servers_per_rack(servers);
        }
        if (ValidateRequest(air).ok()) bases.push_back(air);
      }
    }
    PlanRequest priced = r;
    priced.mutable_constraints()->set_budget_usd(1e9);
    priced.mutable_hardware()->mutable_accelerator()->set_price_usd(0);
    priced.mutable_hardware()->mutable_server()->set_non_gpu_price_usd(0);
    priced.mutable_hardware()->mutable_server()->set_price_usd(300000);
    priced.mutable_costs()->set_facility_usd_per_it_watt(0);
    if (ValidateRequest(priced).ok()) bases.push_back(priced);
  }
  int moves = 0;
  int invalid = 0;
  for (const PlanRequest& base : bases) {
    ASSERT_THAT(ValidateRequest(base), IsOk()) << base.name();
    for (const std::string& path : AllScalarPaths()) {
      const FieldRef* field = FindScalarField(path);
      if (field == nullptr || !field->numeric() || field->leaf()->is_repeated()) continue;
      const double value = GetNumber(base, *field);
      for (double v : {value * 1.1, value * 0.9, value + 1, value - 1, 0.0, -1.0, 0.5, 2.0, 1e-9,
                       1e9, 1e300, std::nan("")}) {
        PlanRequest moved = base;
        if (!SetNumber(*field, v, &moved).ok()) continue;
        const bool valid = ValidateRequest(moved).ok();
        EXPECT_EQ(ValidAfterMove(moved, RequestSectionOf(path)), valid)
            << base.name() << ": " << path << " = " << v;
        ++moves;
        invalid += valid ? 0 : 1;
      }
    }
  }
  EXPECT_GT(moves, 10000);
  EXPECT_GT(invalid, moves / 10);
}

// The section of a path is its first name (the second in the hardware); anything outside the
// request's parts is the rest.
TEST(RequestSectionOf, NamesTheTopLevelMessage) {
  EXPECT_EQ(RequestSectionOf("site.substation.power_factor"), kRequestSite);
  EXPECT_EQ(RequestSectionOf("hardware.accelerator.tdp_watts"), kRequestAccelerator);
  EXPECT_EQ(RequestSectionOf("hardware.rack.power_limit_watts"), kRequestRack);
  EXPECT_EQ(RequestSectionOf("hardware.calibration.kernel_launch_seconds"), kRequestCalibration);
  EXPECT_EQ(RequestSectionOf("hardware.name"), kRequestHardwareOther);
  EXPECT_EQ(kRequestHardware & RequestSectionOf("hardware.network.switch_radix"), kRequestNetwork);
  EXPECT_EQ(RequestSectionOf("costs.wacc"), kRequestCosts);
  EXPECT_EQ(RequestSectionOf("constraints.power_cap_watts"), kRequestConstraints);
  EXPECT_EQ(RequestSectionOf("efficiency.constant.mfu"), kRequestEfficiency);
  EXPECT_EQ(RequestSectionOf("workload.layers"), kRequestWorkload);
  EXPECT_EQ(RequestSectionOf("schema_version"), kRequestRest);
}

}  // namespace
}  // namespace dcplan

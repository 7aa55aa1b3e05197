// File: tests/regression_test.cc
//
// One test per bug that fuzzing (tests/fuzz/), the property test (tests/property_test.cc) or the
// sanitizers found, named after what was wrong, with the smallest input that showed it. The fuzz
// reproducers also live in tests/fuzz/corpus/*/regression-* and replay in the fuzzers' replay
// tests; these tests say in plain words what each one was.
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "proto/io.h"
#include "tests/plan_invariants.h"
#include "units/format.h"
#include "units/parse.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

PlanRequest Parse(const std::string& text) {
  PlanRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &request)) << text;
  return request;
}

// Property test: a radix-4 fat tree serves at most 2 x 4 x 2^10 = 8,192 NICs in 12 tiers (the
// deepest dcplan sizes). Past that the fabric was sized as "does not fit" with zero switches, so a
// 100 MW plan claimed 71,000 GPUs with no network power at all. The fabric is now a cap.
TEST(Regression, AFabricThatCannotConnectMoreGpusIsACapNotAFreeNetwork) {
  const PlanRequest request = Parse(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 1e15 tdp_watts: 1000 }
      server { gpus_per_server: 8 }
      network { nics_per_gpu: 1 switch_radix: 4 switch_power_watts: 100 optic_power_watts: 1 }
    }
    site { pue: 1.0 }
    constraints { power_cap_watts: 100e6 }
  )pb");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  // 8,192 NICs at one per GPU = 1,024 servers of 8; server 1,025 would need a 13th tier.
  EXPECT_EQ(plan->counts().gpu_count(), 8192u);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_FABRIC);
  EXPECT_EQ(plan->network().tiers(), 12u);
  EXPECT_GT(plan->network().switch_count(), 0u);
  EXPECT_THAT(plan->notes(0), HasSubstr("scale-out fabric"));
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

// Property test: a rack limit of exactly one server plus the rack's overhead passes validation
// (100 + 28.7 <= 128.7), but the model took floor((128.7 - 28.7) / 100) =
// floor(0.99999999999999989) = 0 servers per rack and failed with "holds no server".
TEST(Regression, ARackLimitOfExactlyOneServerHoldsOneServer) {
  const PlanRequest request = Parse(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 1e15 tdp_watts: 100 }
      server { gpus_per_server: 1 }
      rack { max_servers_per_rack: 8 power_limit_watts: 128.7 overhead_watts: 28.7 }
    }
    constraints { power_cap_watts: 1e6 }
  )pb");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().servers_per_rack(), 1u);
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

// UBSan (float-cast-overflow): a 1e-300 W accelerator under a 1e15 W rack limit gave
// floor(1e15 / 1e-300) = inf servers per rack, converted to int64 (undefined behaviour), and the
// same for pods per building. Both are now capped before the conversion: the rack holds its
// max_servers_per_rack, the building 10^12 pods (no limit), and dcplan's size limit binds.
TEST(Regression, ATinyServerUnderHugeLimitsDoesNotOverflowTheCounts) {
  const PlanRequest request = Parse(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 1e15 tdp_watts: 1e-300 }
      server { gpus_per_server: 8 }
      rack { max_servers_per_rack: 4096 power_limit_watts: 1e15 }
    }
    site { building { critical_it_power_watts: 1e15 } }
    constraints { power_cap_watts: 1e15 }
  )pb");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->counts().servers_per_rack(), 4096u);
  EXPECT_EQ(plan->counts().pods_per_building(), 1000000000000u);
  EXPECT_EQ(plan->counts().gpu_count(), 1000000000000u);
  EXPECT_EQ(plan->binding_constraint(), BINDING_CONSTRAINT_SIZE_LIMIT);
  EXPECT_THAT(testing::CheckPlanInvariants(request, *plan), IsOk());
}

// Fuzzing (binary_request_fuzzer): a valid request with peak_flops_per_second 3.6e-301 realizes
// so little that TCO / realized EFLOP/s-years overflowed: the plan carried
// usd_per_realized_eflops_year = inf (printed "Infinity" in JSON). Such a ratio is now 0.
TEST(Regression, APlanNeverCarriesAnInfiniteCostRatio) {
  const PlanRequest request = Parse(R"pb(
    hardware {
      accelerator { peak_flops_per_second: 3.6e-301 tdp_watts: 700 price_usd: 27500 }
      server { gpus_per_server: 8 }
    }
    efficiency { constant { mfu: 0.5 } }
    constraints { power_cap_watts: 1e6 }
  )pb");
  const absl::StatusOr<Plan> plan = SolvePlan(request);
  ASSERT_THAT(plan, IsOk());
  EXPECT_GT(plan->counts().gpu_count(), 0u);
  EXPECT_EQ(plan->cost().usd_per_realized_eflops_year(), 0.0);
  EXPECT_TRUE(std::isfinite(plan->cost().usd_per_gpu_hour()));
  EXPECT_THAT(testing::CheckAllFinite(*plan), IsOk());
}

// Fuzzing (binary_request_fuzzer): binary input keeps fields this schema does not know. Written
// as text they came out as bare numbers ("4: 1"), which no text parser reads back, so `dcplan
// convert x.pb x.textproto` wrote a file dcplan could not read; and a field a newer dcplan added
// (a cap, say) would be silently ignored. Binary input now refuses them, as text and JSON do.
TEST(Regression, BinaryInputWithAFieldThisDcplanDoesNotKnowIsRefused) {
  PlanRequest request = Parse(R"pb(hardware { accelerator { tdp_watts: 700 } })pb");
  request.mutable_hardware()
      ->mutable_accelerator()
      ->GetReflection()
      ->MutableUnknownFields(request.mutable_hardware()->mutable_accelerator())
      ->AddVarint(99, 1);
  const std::string bytes = request.SerializeAsString();
  PlanRequest back;
  EXPECT_THAT(ParseMessage(bytes, Encoding::kBinary, &back),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "not a valid binary dcplan.PlanRequest: hardware.accelerator has a field "
                       "this dcplan does not know (number 99)"));
  // A message built in code with unknown fields still prints as text that reads back.
  const absl::StatusOr<std::string> text = SerializeMessage(request, Encoding::kText);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(ParseMessage(*text, Encoding::kText, &back), IsOk());
  EXPECT_EQ(back.hardware().accelerator().tdp_watts(), 700);
}

// The CLI tests' bad-input table: the text parser took invalid UTF-8 in a string (raw or through
// "\xff" escapes); JSON output then silently dropped the name, and binary output logged
// libprotobuf errors and wrote a file the binary reader refused. Every encoding now refuses it.
TEST(Regression, InvalidUtf8InAStringIsAParseErrorInText) {
  PlanRequest request;
  EXPECT_THAT(ParseMessage("name: \"\\xff\\xfe\"", Encoding::kText, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "invalid text-format dcplan.PlanRequest: name is not valid UTF-8"));
  // An overlong encoding of '/' and a UTF-16 surrogate are not UTF-8 either.
  EXPECT_THAT(
      ParseMessage("hardware { server { name: \"\\xc0\\xaf\" } }", Encoding::kText, &request),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "invalid text-format dcplan.PlanRequest: hardware.server.name is not valid "
               "UTF-8"));
  EXPECT_THAT(ParseMessage("name: \"\\xed\\xa0\\x80\"", Encoding::kText, &request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not valid UTF-8")));
  // Valid multi-byte text is fine: "héllo 😀".
  EXPECT_THAT(
      ParseMessage("name: \"h\\303\\251llo \\360\\237\\230\\200\"", Encoding::kText, &request),
      IsOk());
  EXPECT_EQ(request.name(), "h\xc3\xa9llo \xf0\x9f\x98\x80");
}

// Fuzzing (units_fuzzer): ".5e308B/s" parses to 5e307 B/s, but FormatDataRate multiplied by 8
// first and printed "inf b/s", which does not parse back (format.h promises every string it prints
// does). The bit rate is now scaled without the overflowing product: 4e293 Pb/s.
TEST(Regression, AHugeDataRatePrintsAsAFiniteBitRate) {
  const absl::StatusOr<units::DataRate> rate = units::ParseDataRate(".5e308B/s");
  ASSERT_THAT(rate, IsOk());
  const std::string text = units::FormatDataRate(*rate, 1);
  EXPECT_THAT(text, ::testing::EndsWith(" Pb/s"));  // 3.99999...e293 Pb/s, in 294 digits
  const absl::StatusOr<units::DataRate> back = units::ParseDataRate(text);
  ASSERT_THAT(back, IsOk());
  EXPECT_NEAR(units::InBytesPerSecond(*back) / 5e307, 1.0, 1e-12);
  // Everyday rates print as before: 400 Gb/s, 3.2 Tb/s.
  EXPECT_EQ(units::FormatDataRate(units::BytesPerSecond(50e9), 1), "400 Gb/s");
  EXPECT_EQ(units::FormatDataRate(units::BytesPerSecond(400e9), 1), "3.2 Tb/s");
}

// Fuzzing (units_fuzzer, the 10-minute run): the same overflow in the prices. "05e301MUSD/W"
// parses to 5e307 USD/W, whose USD per MW (x 1e6) is beyond a double: FormatMoneyPerPower
// printed "inf USD/MW". Likewise USD per kWh (x 3.6e6) above ~5e301 USD/J. Such prices now print
// per watt and per joule.
TEST(Regression, HugePricesPrintInTheCoherentUnitInsteadOfInfinity) {
  const absl::StatusOr<units::MoneyPerPower> per_power = units::ParseMoneyPerPower("05e301MUSD/W");
  ASSERT_THAT(per_power, IsOk());
  const std::string power_text = units::FormatMoneyPerPower(*per_power, 2);
  EXPECT_THAT(power_text, ::testing::EndsWith("T/W"));  // $5e295 trillion per watt
  const absl::StatusOr<units::MoneyPerPower> power_back = units::ParseMoneyPerPower(power_text);
  ASSERT_THAT(power_back, IsOk()) << power_text;
  EXPECT_NEAR(units::InUsdPerWatt(*power_back) / 5e307, 1.0, 1e-12);

  const absl::StatusOr<units::MoneyPerEnergy> per_energy =
      units::ParseMoneyPerEnergy("1e305 USD/J");
  ASSERT_THAT(per_energy, IsOk());
  const std::string energy_text = units::FormatMoneyPerEnergy(*per_energy, 3);
  EXPECT_THAT(energy_text, ::testing::EndsWith(" USD/J"));
  const absl::StatusOr<units::MoneyPerEnergy> energy_back = units::ParseMoneyPerEnergy(energy_text);
  ASSERT_THAT(energy_back, IsOk()) << energy_text;
  EXPECT_NEAR(units::InUsdPerJoule(*energy_back) / 1e305, 1.0, 1e-12);
  // Everyday prices print as before.
  EXPECT_EQ(units::FormatMoneyPerPower(units::UsdPerWatt(10), 2), "$10.00M/MW");
  EXPECT_EQ(units::FormatMoneyPerEnergy(units::UsdPerKilowattHour(0.08), 3), "0.080 USD/kWh");
}

}  // namespace
}  // namespace dcplan

#include "planner/request_edit.h"

#include <string>

#include "base/field_checks.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using google::protobuf::FieldDescriptor;
using ::testing::HasSubstr;

// A value of the field's type that is not its default, as text, and what GetText reads back.
struct Sample {
  std::string text;
  std::string read_back;
};

Sample SampleFor(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_ENUM: {
      const std::string name = f->enum_type()->value(f->enum_type()->value_count() - 1)->name();
      return {name, name};
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      return {"true", "true"};
    case FieldDescriptor::CPPTYPE_STRING:
      return {"label", "label"};
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return {"0.75", "0.75"};
    default:
      return {"7", "7"};
  }
}

// Generated from the schema: a new field is covered without a new test.
TEST(RequestEdit, SetsAndReadsBackEveryScalarFieldOfTheSchema) {
  ASSERT_GT(AllScalarPaths().size(), 100u);
  for (const std::string& path : AllScalarPaths()) {
    SCOPED_TRACE(path);
    auto field = ResolveField(path);
    ASSERT_THAT(field.status(), IsOk());
    PlanRequest request;
    Sample sample = SampleFor(field->leaf());
    if (field->whole_list()) sample = {"[" + sample.text + "]", "[" + sample.read_back + "]"};
    ASSERT_THAT(SetField(*field, sample.text, "--set", &request), IsOk());
    EXPECT_EQ(GetText(request, *field), sample.read_back);
    EXPECT_TRUE(IsSet(request, *field));
    // The value is recorded as the user's.
    ASSERT_GE(request.sources_size(), 1);
    const FieldSource& last = request.sources(request.sources_size() - 1);
    EXPECT_EQ(last.path(), path);
    EXPECT_EQ(last.origin(), ORIGIN_USER);
    EXPECT_EQ(last.source(), "--set");
  }
}

TEST(RequestEdit, ReadsNumbersInTheUnitTheFieldNames) {
  PlanRequest r;
  // 50 MW = 5e7 W; $35,000; 10% = 0.1; 0.08 USD/kWh; 400 Gb/s = 4e11 bit/s; 80 GB = 8e10 B;
  // 100 MVA = 1e8 VA; 16Mi = 2^24 = 16,777,216 tokens; $12/W.
  ASSERT_THAT(SetField("power", "50MW", "--power", &r), IsOk());
  ASSERT_THAT(SetField("hardware.accelerator.price_usd", "35000", "--set", &r), IsOk());
  ASSERT_THAT(SetField("costs.wacc", "10%", "--set", &r), IsOk());
  ASSERT_THAT(SetField("electricity", "0.08 USD/kWh", "--set", &r), IsOk());
  ASSERT_THAT(SetField("hardware.network.port_bits_per_second", "400Gb/s", "--set", &r), IsOk());
  ASSERT_THAT(SetField("hardware.accelerator.hbm_bytes", "80GB", "--set", &r), IsOk());
  ASSERT_THAT(SetField("site.substation.transformer_rating_va", "100MVA", "--set", &r), IsOk());
  ASSERT_THAT(SetField("workload.global_batch_tokens", "16Mi", "--set", &r), IsOk());
  ASSERT_THAT(SetField("facility_cost", "$12/W", "--set", &r), IsOk());
  ASSERT_THAT(SetField("it_life", "6y", "--set", &r), IsOk());
  EXPECT_EQ(r.constraints().power_cap_watts(), 5e7);
  EXPECT_EQ(r.hardware().accelerator().price_usd(), 35000);
  EXPECT_DOUBLE_EQ(r.costs().wacc(), 0.1);
  EXPECT_DOUBLE_EQ(r.costs().electricity_usd_per_kwh(), 0.08);
  EXPECT_EQ(r.hardware().network().port_bits_per_second(), 4e11);
  EXPECT_EQ(r.hardware().accelerator().hbm_bytes(), 8e10);
  EXPECT_EQ(r.site().substation().transformer_rating_va(), 1e8);
  EXPECT_EQ(r.workload().global_batch_tokens(), 16777216u);
  EXPECT_DOUBLE_EQ(r.costs().facility_usd_per_it_watt(), 12);
  EXPECT_DOUBLE_EQ(r.costs().it_life_years(), 6);
}

TEST(RequestEdit, ReadsEnumsByAnyOfTheirNames) {
  PlanRequest r;
  ASSERT_THAT(SetField("site.cooling", "liquid", "--set", &r), IsOk());
  EXPECT_EQ(r.site().cooling(), COOLING_DIRECT_LIQUID);
  ASSERT_THAT(SetField("cooling", "COOLING_AIR", "--set", &r), IsOk());
  EXPECT_EQ(r.site().cooling(), COOLING_AIR);
  ASSERT_THAT(SetField("power_at", "meter", "--set", &r), IsOk());
  EXPECT_EQ(r.constraints().power_cap_at(), POWER_CAP_AT_FACILITY);
  ASSERT_THAT(SetField("objective", "compute", "--set", &r), IsOk());
  EXPECT_EQ(r.constraints().objective(), OBJECTIVE_MAX_REALIZED_COMPUTE);
  ASSERT_THAT(SetField("software", "megatron_2021", "--set", &r), IsOk());
  EXPECT_EQ(r.workload().framework().generation(), SOFTWARE_MEGATRON_2021);
  EXPECT_THAT(SetField("cooling", "water", "--set", &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "site.cooling must be one of air, direct_liquid; got \"water\""));
}

TEST(RequestEdit, SetsListsWholeOrByIndex) {
  PlanRequest r;
  ASSERT_THAT(SetField("hardware.network.upper_tier_oversubscription", "[7, 3]", "--set", &r),
              IsOk());
  ASSERT_EQ(r.hardware().network().upper_tier_oversubscription_size(), 2);
  EXPECT_EQ(r.hardware().network().upper_tier_oversubscription(1), 3);
  ASSERT_THAT(SetField("hardware.network.upper_tier_oversubscription[1]", "2", "--set", &r),
              IsOk());
  EXPECT_EQ(r.hardware().network().upper_tier_oversubscription(1), 2);
  ASSERT_THAT(SetField("efficiency.table.points[0].gpus", "8", "--set", &r), IsOk());
  ASSERT_THAT(SetField("efficiency.table.points[0].mfu", "0.5", "--set", &r), IsOk());
  EXPECT_EQ(r.efficiency().table().points(0).gpus(), 8u);
  // A bad element changes nothing.
  EXPECT_THAT(SetField("hardware.network.upper_tier_oversubscription", "[1, x]", "--set", &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hardware.network.upper_tier_oversubscription[1]")));
  EXPECT_EQ(r.hardware().network().upper_tier_oversubscription_size(), 2);
  ASSERT_THAT(SetField("hardware.network.upper_tier_oversubscription", "[]", "--set", &r), IsOk());
  EXPECT_EQ(r.hardware().network().upper_tier_oversubscription_size(), 0);
}

TEST(RequestEdit, BadPathsNameTheNearestField) {
  EXPECT_THAT(ResolveField("site.peu").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "no field \"site.peu\" in PlanRequest; did you mean site.pue?"));
  EXPECT_THAT(ResolveField("powr").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "no field \"powr\" in PlanRequest; did you mean power?"));
  EXPECT_THAT(ResolveField("site").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "no field \"site\" in PlanRequest: site is a message; name one of its "
                       "fields"));
  auto status = ResolveField("hardware.accelerator.tdp").status();
  EXPECT_EQ(FieldPathOf(status), "hardware.accelerator.tdp");
}

TEST(RequestEdit, BadValuesNameThePathAndCarryIt) {
  PlanRequest r;
  absl::Status s = SetField("site.pue", "abc", "--set", &r);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInvalidArgument, "site.pue: expected a number, got \"abc\""));
  EXPECT_EQ(FieldPathOf(s), "site.pue");
  EXPECT_THAT(SetField("site.max_buildings", "2.5", "--set", &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "site.max_buildings: expected a whole number, got \"2.5\""));
  EXPECT_THAT(SetField("site.max_buildings", "5e9", "--set", &r),
              StatusIs(absl::StatusCode::kOutOfRange,
                       "site.max_buildings must be a whole number in [0, 4294967295], got "
                       "5000000000"));
  EXPECT_THAT(SetField("hardware.accelerator.tdp_watts", "700 Wh", "--set", &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "hardware.accelerator.tdp_watts: expected a power such as 50MW, got "
                       "\"700 Wh\""));
  EXPECT_THAT(ApplyAssignment("site.pue", "--set", &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "expected PATH=VALUE (e.g. site.pue=1.2), got \"site.pue\""));
  EXPECT_EQ(r.sources_size(), 0);
}

// The alias "power" hides its unit, so a bare number is refused, as --power and --vary=power
// both refuse it; the full path names its unit (watts), so a bare number there is watts.
TEST(RequestEdit, PowerNeedsItsUnitUnlessThePathNamesIt) {
  PlanRequest r;
  EXPECT_THAT(SetField("power", "50000000", "--power", &r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs its unit")));
  ASSERT_THAT(SetField("constraints.power_cap_watts", "50000000", "--set", &r), IsOk());
  EXPECT_EQ(r.constraints().power_cap_watts(), 5e7);
  EXPECT_THAT(SetField("power", "0", "--power", &r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a cap of zero")));
  EXPECT_THAT(SetField("budget", "0", "--budget", &r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a cap of zero")));
}

TEST(RequestEdit, CoolingBringsItsOwnPuesUnlessTheUserGaveThem) {
  PlanRequest r;
  r.mutable_site()->set_pue(1.55);  // a preset's figure
  r.mutable_site()->set_annual_pue(1.44);
  ASSERT_THAT(SetField("site.cooling", "liquid", "--cooling", &r), IsOk());
  EXPECT_FALSE(r.site().has_pue());
  EXPECT_FALSE(r.site().has_annual_pue());
  ASSERT_THAT(SetField("site.pue", "1.3", "--pue", &r), IsOk());
  ASSERT_THAT(SetField("site.cooling", "air", "--cooling", &r), IsOk());
  EXPECT_EQ(r.site().pue(), 1.3);
}

TEST(RequestEdit, GlobalBatchInTokensReplacesOneInSequences) {
  PlanRequest r;
  ASSERT_THAT(SetField("global_batch_sequences", "2048", "--set", &r), IsOk());
  ASSERT_THAT(SetField("global_batch_tokens", "16M", "--set", &r), IsOk());
  EXPECT_EQ(r.workload().global_batch_sequences(), 0u);
  EXPECT_EQ(r.workload().global_batch_tokens(), 16000000u);
}

TEST(RequestEdit, NumbersSetFastAndReadBack) {
  PlanRequest r;
  auto pue = ResolveField("pue");
  ASSERT_THAT(pue.status(), IsOk());
  ASSERT_THAT(SetNumber(*pue, 1.25, &r), IsOk());
  EXPECT_EQ(GetNumber(r, *pue), 1.25);
  EXPECT_EQ(r.sources_size(), 0);  // the fast path records nothing
  auto tp = ResolveField("tp");
  ASSERT_THAT(tp.status(), IsOk());
  EXPECT_THAT(SetNumber(*tp, -1, &r), StatusIs(absl::StatusCode::kOutOfRange,
                                               "workload.parallelism.tp must be a whole number "
                                               "in [0, 4294967295], got -1"));
}

}  // namespace
}  // namespace dcplan

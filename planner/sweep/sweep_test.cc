#include "planner/sweep/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SweepAxis Axis(absl::string_view spec) {
  auto axis = ParseSweepAxis(spec);
  EXPECT_THAT(axis.status(), IsOk()) << spec;
  return axis.ok() ? *axis : SweepAxis();
}

// Every row of a sweep, in the order Run hands them over (checked to be grid order).
std::vector<SweepRow> RunAll(const Sweep& sweep, const SweepOptions& options = {}) {
  std::vector<SweepRow> rows;
  absl::Status status = sweep.Run(options, [&](int64_t first, absl::Span<const SweepRow> block) {
    EXPECT_EQ(first, static_cast<int64_t>(rows.size()));
    rows.insert(rows.end(), block.begin(), block.end());
    return absl::OkStatus();
  });
  EXPECT_THAT(status, IsOk());
  return rows;
}

// ------------------------------------------------------------------------------------------------
// Parsing axes
// ------------------------------------------------------------------------------------------------

TEST(ParseSweepAxis, LogRangeOfPowerInMegawatts) {
  SweepAxis a = Axis("power=10MW:500MW:log20");
  EXPECT_EQ(a.path, "constraints.power_cap_watts");
  ASSERT_EQ(a.size(), 20);
  EXPECT_EQ(a.values.front(), 10e6);
  EXPECT_EQ(a.values.back(), 500e6);
  // 10 MW x 50^(1/19) = 12.2863 MW (ln 50 / 19 = 0.205896, e^0.205896 = 1.228630), kept to 6
  // significant digits; the next one 10 MW x 50^(2/19) = 15.0952 MW.
  EXPECT_EQ(a.values[1], 12.2863e6);
  EXPECT_EQ(a.values[2], 15.0952e6);
}

TEST(ParseSweepAxis, LinearRangeEndsOnItsLastStepWithoutFloatingNoise) {
  // 1.1 to 1.6 by 0.05: 11 values, exactly the decimals a person would write.
  SweepAxis a = Axis("site.pue=1.1:1.6:0.05");
  EXPECT_EQ(a.path, "site.pue");
  ASSERT_EQ(a.size(), 11);
  EXPECT_EQ(a.values[3], 1.25);
  EXPECT_EQ(a.values[10], 1.6);
  EXPECT_EQ(a.ValueText(1), "1.15");
  // A step that does not divide the range stops before b: 10, 25, 40 MW.
  EXPECT_THAT(Axis("power=10MW:50MW:15MW").values, ElementsAre(10e6, 25e6, 40e6));
}

TEST(ParseSweepAxis, ReadsEachValueInTheFieldsUnit) {
  EXPECT_THAT(Axis("budget=$1B,$2.5B, 750M USD").values, ElementsAre(1e9, 2.5e9, 750e6));
  EXPECT_EQ(Axis("budget=1e9").path, "constraints.budget_usd");
  EXPECT_THAT(Axis("electricity=0.05 USD/kWh,$80/MWh,0.1 $/kWh").values,
              ElementsAre(0.05, 0.08, 0.1));
  EXPECT_EQ(Axis("electricity=0.1 USD/kWh").path, "costs.electricity_usd_per_kwh");
  // The full path names its unit, so a bare number is USD/kWh there.
  EXPECT_THAT(Axis("costs.electricity_usd_per_kwh=0.1").values, ElementsAre(0.1));
  // 400 Gb/s is 4e11 bits per second, the field's unit.
  EXPECT_THAT(Axis("hardware.network.port_bits_per_second=400Gb/s,800Gb/s").values,
              ElementsAre(4e11, 8e11));
  EXPECT_THAT(Axis("hardware.accelerator.peak_flops_per_second=989.4 TFLOP/s").values,
              ElementsAre(989.4e12));
  EXPECT_THAT(Axis("hardware.accelerator.tdp_watts=700,1kW").values, ElementsAre(700, 1000));
}

TEST(ParseSweepAxis, CountFieldsTakeSuffixesAndRoundToWholeNumbers) {
  SweepAxis a = Axis("gpus=1K:8K:log4");
  EXPECT_EQ(a.path, "constraints.max_gpus");
  // 1,000 x 2^k: exact after rounding whatever exp(log()) gives.
  EXPECT_THAT(a.values, ElementsAre(1000, 2000, 4000, 8000));
}

// One grammar: a value --power (planner/request_edit.h SetField on the alias) accepts, a sweep's
// axis accepts, and a value one refuses the other refuses.
TEST(ParseSweepAxis, AcceptsAndRefusesWhatTheFlagsDo) {
  for (const char* name : {"power", "budget", "electricity", "pue", "max_gpus", "wacc"}) {
    for (const char* value : {"50MW", "50000000", "0", "-1MW", "$2B", "2e9", "0.08 USD/kWh", "0.08",
                              "1.2", "10%", "8K", "abc", "50MWh", ""}) {
      PlanRequest r;
      const bool by_flag = SetField(name, value, "flag", &r).ok();
      const bool by_axis = ParseSweepAxis(absl::StrCat(name, "=", value)).ok();
      EXPECT_EQ(by_flag, by_axis) << name << "=" << value;
    }
  }
}

TEST(ParseSweepAxis, WholeNumberFieldsRefuseFractions) {
  // gpus_per_server is a uint32: 4 + 2.5 = 6.5 is not a server's GPU count, and rounding it would
  // solve a grid the user did not ask for.
  EXPECT_THAT(ParseSweepAxis("hardware.server.gpus_per_server=4:10:2.5"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "axis \"hardware.server.gpus_per_server=4:10:2.5\": expected a whole "
                       "number, got \"2.5\""));
  EXPECT_THAT(ParseSweepAxis("max_buildings=1,1.5"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "axis \"max_buildings=1,1.5\": expected a whole number, got \"1.5\""));
  // 1 to 4 in 10 log-spaced whole numbers: only 1, 2, 3, 4 exist, so values would repeat.
  EXPECT_THAT(
      ParseSweepAxis("gpus=1:4:log10"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "axis \"gpus=1:4:log10\": 10 log-spaced points repeat values (whole numbers); "
               "use fewer points or a wider range"));
}

TEST(ParseSweepAxis, RangesNeverCollapseToDuplicates) {
  // 1.0 to 1.0000000001 by 1e-11: 11 values that 12 significant digits would merge (1.00000000001
  // and 1.00000000002 both print as 1.00000000000); they are kept at full precision instead.
  SweepAxis fine = Axis("pue=1:1.0000000001:1e-11");
  ASSERT_EQ(fine.size(), 11);
  EXPECT_LT(fine.values[0], fine.values[1]);
  EXPECT_NE(fine.ValueText(0), fine.ValueText(1));
  // 1 MW to 1.00001 MW in 100 log steps: 6 significant digits would repeat 1 MW; kept distinct.
  SweepAxis log = Axis("power=1MW:1.00001MW:log100");
  ASSERT_EQ(log.size(), 100);
  EXPECT_TRUE(std::is_sorted(log.values.begin(), log.values.end()));
  EXPECT_EQ(std::adjacent_find(log.values.begin(), log.values.end()), log.values.end());
  // A step below a double's precision at 1 (2.2e-16) cannot give distinct values: refused.
  EXPECT_THAT(ParseSweepAxis("pue=1:1.000000000000001:1e-17"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the step 1e-17 is too small for a double to tell the values "
                                 "apart")));
}

TEST(ParseSweepAxes, RefusesAHugeGridBeforeMakingAnyValue) {
  // Five axes of 10^8 values each: 10^40 points. Making the first axis alone would take 800 MB and
  // tens of seconds; counting takes microseconds.
  const std::string axis = "=1:100000000:1";
  const auto start = std::chrono::steady_clock::now();
  auto axes = ParseSweepAxes({"gpus" + axis, "max_buildings" + axis,
                              "hardware.server.gpus_per_server" + axis,
                              "hardware.rack.max_servers_per_rack" + axis, "horizon_years" + axis});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(axes, StatusIs(absl::StatusCode::kOutOfRange,
                             "the grid has 1e+40 points (100000000 x 100000000 x 100000000 x "
                             "100000000 x 100000000); a sweep may have at most 1000000000: take "
                             "fewer values along an axis"));
  EXPECT_LT(seconds, 0.1);
  // 1,000 x 1,000,000 = 10^9 points, the limit exactly: counted, then made.
  auto at_limit = ParseSweepAxes({"pue=1:1.999:0.001", "power=1W:1000000W:1W"});
  ASSERT_THAT(at_limit, IsOk());
  EXPECT_EQ((*at_limit)[0].size() * (*at_limit)[1].size(), kMaxSweepPoints);
  // One more value along the first axis: 1,001 x 1,000,000 points.
  EXPECT_THAT(ParseSweepAxes({"pue=1:2:0.001", "power=1W:1000000W:1W"}),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("the grid has 1001000000 points (1001 x 1000000)")));
}

TEST(ParseSweepAxis, PresetAxisKeepsNames) {
  SweepAxis a = Axis("preset=seed, h100-dgx");
  EXPECT_TRUE(a.is_preset());
  EXPECT_THAT(a.presets, ElementsAre("seed", "h100-dgx"));
  EXPECT_EQ(a.ValueText(1), "h100-dgx");
}

TEST(ParseSweepAxis, ErrorsNameTheAxisAndWhatIsWrong) {
  EXPECT_THAT(ParseSweepAxis("power"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected FIELD=VALUES")));
  EXPECT_THAT(ParseSweepAxis("site.puee=1.2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no field \"site.puee\"")));
  EXPECT_THAT(ParseSweepAxis("name=a,b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a numeric field")));
  EXPECT_THAT(ParseSweepAxis("site=1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("site is a message")));
  EXPECT_THAT(ParseSweepAxis("efficiency.table.points[0].mfu=1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("repeated")));
  // A cap of zero is refused as --power=0 refuses it (0 in a request means "no cap").
  EXPECT_THAT(ParseSweepAxis("power=0,1MW"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a cap of zero")));
  // "power" hides its unit: a bare number is refused as --power refuses it.
  EXPECT_THAT(ParseSweepAxis("power=50000000"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs its unit")));
  EXPECT_THAT(ParseSweepAxis("power=50MWh"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("axis \"power=50MWh\": expected a power such as 50MW")));
  EXPECT_THAT(ParseSweepAxis("power=50MW:10MW:5MW"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a <= b")));
  EXPECT_THAT(ParseSweepAxis("pue=1.1:1.5:0"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step must be > 0")));
  EXPECT_THAT(ParseSweepAxis("power=10MW:50MW:log1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("log20")));
  EXPECT_THAT(ParseSweepAxis("power=0MW:50MW:log5"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a cap of zero")));
  EXPECT_THAT(ParseSweepAxis("pue=0:5:log5"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a > 0")));
  EXPECT_THAT(ParseSweepAxis("power=1:2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a:b:step or a:b:logN")));
}

// ------------------------------------------------------------------------------------------------
// Grids
// ------------------------------------------------------------------------------------------------

TEST(Sweep, FirstAxisIsOutermost) {
  Sweep s = Sweep::Create(SeedWith(""), {Axis("pue=1,1.2,1.4"), Axis("power=1MW:4MW:1MW")}).value();
  EXPECT_EQ(s.size(), 12);
  // Point 5 = pue index 1 (5 / 4), power index 1 (5 % 4).
  EXPECT_EQ(s.IndexAlong(5, 0), 1);
  EXPECT_EQ(s.IndexAlong(5, 1), 1);
  EXPECT_EQ(s.IndexAlong(11, 0), 2);
  EXPECT_EQ(s.IndexAlong(11, 1), 3);
  PlanRequest r = s.RequestAt(5).value();
  EXPECT_EQ(r.site().pue(), 1.2);
  EXPECT_EQ(r.constraints().power_cap_watts(), 2e6);
}

TEST(Sweep, CreateRefusesBadGrids) {
  EXPECT_THAT(Sweep::Create(SeedWith(""), {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least one")));
  EXPECT_THAT(
      Sweep::Create(SeedWith(""), {Axis("power=1MW"), Axis("constraints.power_cap_watts=2MW")})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("swept twice")));
  EXPECT_THAT(Sweep::Create(SeedWith(""), {Axis("preset=seed,h900")}).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("h900")));
  // 100,000 x 100,000 = 1e10 points > kMaxSweepPoints.
  EXPECT_THAT(Sweep::Create(SeedWith(""), {Axis("power=1MW:100000MW:1MW"),
                                           Axis("costs.electricity_usd_per_kwh=0.00001:1:0.00001")})
                  .status(),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("at most")));
}

// ------------------------------------------------------------------------------------------------
// Values
// ------------------------------------------------------------------------------------------------

TEST(Sweep, SeedPowerSweepMatchesTheFormula) {
  // Seed servers draw 8 x 1.4 kW = 11.2 kW at PUE 1: floor(P / 11.2 kW) servers of 8 GPUs.
  //   10 MW -> 892.9 -> 892 servers = 7,136 GPUs; 45.9 MW -> 4,098.2 -> 32,784; 46 MW -> 32,856.
  Sweep s = Sweep::Create(SeedWith(""), {Axis("power=10MW,45.9MW,46MW")}).value();
  std::vector<SweepRow> rows = RunAll(s);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].gpus, 7136);
  EXPECT_EQ(rows[1].gpus, 32784);
  EXPECT_EQ(rows[1].servers, 4098);
  EXPECT_EQ(rows[2].gpus, 32856);
  // 32,784 GPUs: 1 PFLOP/s each; MFU 0.62 - 0.02 log2(32,784) = 0.319986; 45,897,600 W.
  EXPECT_DOUBLE_EQ(units::InFlopsPerSecond(rows[1].peak), 32784e15);
  EXPECT_NEAR(units::InFraction(rows[1].mfu), 0.62 - 0.02 * std::log2(32784.0), 1e-12);
  EXPECT_DOUBLE_EQ(units::InWatts(rows[1].facility_power), 45897600.0);
  EXPECT_EQ(rows[1].binding, BINDING_CONSTRAINT_FACILITY_POWER);
}

TEST(Sweep, EveryRowEqualsSolvingItsRequestAlone) {
  Sweep s = Sweep::Create(H100With("costs { facility_usd_per_it_watt: 11 }"),
                          {Axis("power=5MW:300MW:log7"), Axis("pue=1.1,1.4")})
                .value();
  std::vector<SweepRow> rows = RunAll(s);
  ASSERT_EQ(rows.size(), 14u);
  for (int64_t i = 0; i < s.size(); ++i) {
    Plan plan = SolvePlan(s.RequestAt(i).value()).value();
    EXPECT_EQ(rows[i].gpus, static_cast<int64_t>(plan.counts().gpu_count())) << i;
    EXPECT_EQ(units::InWatts(rows[i].facility_power), plan.power().facility_power_watts()) << i;
    EXPECT_EQ(units::InUsd(rows[i].capex), plan.cost().capex_usd()) << i;
    EXPECT_EQ(rows[i].binding, plan.binding_constraint()) << i;
  }
}

// Every field of two rows, exactly.
void ExpectSameRows(const std::vector<SweepRow>& a, const std::vector<SweepRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("point ", i));
    ASSERT_EQ(a[i].status, b[i].status);
    ASSERT_EQ(a[i].gpus, b[i].gpus);
    ASSERT_EQ(a[i].servers, b[i].servers);
    ASSERT_EQ(a[i].racks, b[i].racks);
    ASSERT_EQ(a[i].pods, b[i].pods);
    ASSERT_EQ(a[i].buildings, b[i].buildings);
    ASSERT_EQ(units::InWatts(a[i].it_power), units::InWatts(b[i].it_power));
    ASSERT_EQ(units::InWatts(a[i].facility_power), units::InWatts(b[i].facility_power));
    ASSERT_EQ(units::InFlopsPerSecond(a[i].peak), units::InFlopsPerSecond(b[i].peak));
    ASSERT_EQ(units::InFraction(a[i].mfu), units::InFraction(b[i].mfu));
    ASSERT_EQ(units::InFlopsPerSecond(a[i].realized), units::InFlopsPerSecond(b[i].realized));
    ASSERT_EQ(units::InUsd(a[i].capex), units::InUsd(b[i].capex));
    ASSERT_EQ(units::InUsdPerYear(a[i].opex_rate), units::InUsdPerYear(b[i].opex_rate));
    ASSERT_EQ(units::InUsd(a[i].tco), units::InUsd(b[i].tco));
    ASSERT_EQ(a[i].binding, b[i].binding);
  }
}

TEST(Sweep, PatchingTheModelEqualsRebuildingItForEveryPatchedField) {
  // All five patched fields at once, invalid values included (pue 0.95, electricity -0.01), a
  // substation-measured cap (where a power_cap_watts above 0 is an error), a budget on TCO, an
  // annual PUE given (kept as the peak moves) and one derived from liquid cooling (moving with
  // it): the fast path and building every point's model from its request agree field by field.
  for (const char* extra : {
           "costs { facility_usd_per_it_watt: 11 maintenance_fraction_per_year: 0.05 }",
           "site { substation { transformer_rating_va: 60e6 } } constraints { power_cap_at: "
           "POWER_CAP_AT_SUBSTATION budget_on: BUDGET_ON_TCO } costs { facility_usd_per_it_watt: 9 "
           "}",
           "site { annual_pue: 1.15 } constraints { budget_on: BUDGET_ON_TCO }",
           "site { cooling: COOLING_DIRECT_LIQUID } constraints { budget_on: BUDGET_ON_TCO }",
       }) {
    SCOPED_TRACE(extra);
    Sweep s = Sweep::Create(H100With(extra), {Axis("pue=0.95,1.2,1.5"),
                                              Axis("costs.electricity_usd_per_kwh=-0.01,0.05,0.15"),
                                              Axis("budget=$300M,$2B"), Axis("gpus=0,5000,100K"),
                                              Axis("power=3MW,7MW,20MW,45.9MW,90MW")})
                  .value();
    SweepOptions slow;
    slow.patch_models = false;
    ExpectSameRows(RunAll(s), RunAll(s, slow));
  }
}

TEST(Sweep, RepeatedAnswersEqualSolvingEveryPoint) {
  // Caps in fine steps: neighbouring points share their answer or move by a server, and the sweep
  // tells them from the last answer's evaluations (AnswersAt) instead of searching. Up and down
  // (a list going down), over the power cap, the budget (capex and TCO) and the GPU cap, under a
  // PUE and an electricity price that change the evaluations between rows, and along the PUE and
  // the price themselves: every row is what solving its point alone gives.
  std::vector<std::string> down;
  for (int i = 0; i < 300; ++i) down.push_back(absl::StrCat(3'000'000 - 3'333 * i, "W"));
  const std::vector<std::vector<std::string>> grids = {
      {"pue=1.1,1.3", "power=1MW:3MW:1kW"},
      {"pue=1.2,1.25", absl::StrCat("power=", absl::StrJoin(down, ","))},
      {"costs.electricity_usd_per_kwh=0.05,0.1", "budget=$10M:$40M:$20K"},
      {"power=2MW,50MW", "gpus=1000:1400:1"},
      // The PUE and the price moving fastest: the last answer's clusters are brought to each new
      // PUE or price (ReevaluateSite), an invalid PUE (0.999) between them.
      {"power=2MW,3MW,40MW", "pue=0.999:1.6:0.0005"},
      {"budget=$20M,$45M", "costs.electricity_usd_per_kwh=0.05:0.15:0.0002"},
  };
  for (const char* extra : {"costs { facility_usd_per_it_watt: 11 }",
                            "constraints { budget_on: BUDGET_ON_TCO } costs { "
                            "facility_usd_per_it_watt: 9 }"}) {
    for (const auto& grid : grids) {
      SCOPED_TRACE(absl::StrCat(extra, " ", absl::StrJoin(grid, " ")));
      std::vector<SweepAxis> axes;
      for (const std::string& spec : grid) axes.push_back(Axis(spec));
      Sweep s = Sweep::Create(H100With(extra), axes).value();
      SweepOptions slow;
      slow.patch_models = false;
      SweepOptions one_thread;
      one_thread.threads = 1;
      const std::vector<SweepRow> expected = RunAll(s, slow);
      ExpectSameRows(RunAll(s, one_thread), expected);
      ExpectSameRows(RunAll(s), expected);
    }
  }
}

TEST(Sweep, LongAxesCheckTheirValuesByTheirRangeExactly) {
  // More than 4,096 values: the valid interval of a patched field is found by bisection, not by
  // checking every value. PUE from 0.5 to 6 by 0.001: 5,501 values, valid only in [1, 5] (the
  // proto's range), with errors at both ends; then the same values shuffled into a list. Every row,
  // errors included, matches solving each point's request on its own.
  Sweep ordered =
      Sweep::Create(SeedWith("constraints { power_cap_watts: 45.9e6 }"), {Axis("pue=0.5:6:0.001")})
          .value();
  ASSERT_EQ(ordered.size(), 5501);
  SweepOptions slow;
  slow.patch_models = false;
  const std::vector<SweepRow> rows = RunAll(ordered);
  ExpectSameRows(rows, RunAll(ordered, slow));
  // 0.999 is the last invalid value below the range, 5.001 the first above it.
  EXPECT_THAT(rows[499].status, StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("site.pue must be >= 1.0, got 0.999")));
  EXPECT_THAT(rows[500].status, IsOk());
  EXPECT_THAT(rows[4500].status, IsOk());
  EXPECT_THAT(rows[4501].status, StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("5.001")));

  std::vector<std::string> shuffled;
  for (int i = 0; i < 5501; ++i)
    shuffled.push_back(absl::StrCat(0.5 + ((i * 2903) % 5501) * 0.001));
  Sweep unordered = Sweep::Create(SeedWith("constraints { power_cap_watts: 45.9e6 }"),
                                  {Axis(absl::StrCat("pue=", absl::StrJoin(shuffled, ",")))})
                        .value();
  ExpectSameRows(RunAll(unordered), RunAll(unordered, slow));
}

TEST(Sweep, RowsAreTheSameWhateverTheThreadsAndBlocks) {
  Sweep s = Sweep::Create(H100With(""), {Axis("pue=1.1:1.5:0.1"), Axis("power=1MW:1000MW:log997")})
                .value();
  ASSERT_EQ(s.size(), 5 * 997);
  SweepOptions one;
  one.threads = 1;
  const std::vector<SweepRow> reference = RunAll(s, one);
  for (int threads : {2, 3}) {
    for (int64_t block : {int64_t{1} << 16, int64_t{1000}, int64_t{7}}) {
      SweepOptions o;
      o.threads = threads;
      o.block_points = block;
      SCOPED_TRACE(absl::StrCat(threads, " threads, blocks of ", block));
      ExpectSameRows(reference, RunAll(s, o));
    }
  }
}

TEST(Sweep, ChunksThatTakeOverAnotherChunksSolverGetTheSameRows) {
  // Chunks take the solvers (models, patched values, guesses) earlier chunks finished with. In
  // small chunks of 13 points that start anywhere in the grid, over a slow axis of 11 server
  // overheads moving fastest (more models than a solver keeps: they are evicted and built again), a
  // PUE (0.999 invalid) and a power cap, every row is what solving its point alone gives.
  Sweep s = Sweep::Create(H100With(""), {Axis("power=2MW:60MW:log9"), Axis("pue=0.999,1.2,1.45"),
                                         Axis("hardware.server.overhead_watts=1000:5000:400")})
                .value();
  ASSERT_EQ(s.size(), 9 * 3 * 11);
  SweepOptions alone;
  alone.patch_models = false;
  const std::vector<SweepRow> reference = RunAll(s, alone);
  for (int threads : {1, 2}) {
    for (int64_t block : {int64_t{100}, int64_t{1} << 16}) {
      SweepOptions o;
      o.threads = threads;
      o.block_points = block;
      o.chunk_points = 13;
      SCOPED_TRACE(absl::StrCat(threads, " threads, blocks of ", block));
      ExpectSameRows(reference, RunAll(s, o));
    }
  }
  EXPECT_THAT(reference[0].status, StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("site.pue must be >= 1.0, got 0.999")));
}

// SweepOptions::on_chunk sees each row once, on the solving threads, in chunks numbered from each
// block's start (chunk c of a block begins at its first point + c x chunk_points), the same rows
// the consumer then gets, before the consumer gets their block.
TEST(Sweep, EachChunkReachesOnChunkBeforeItsBlockReachesTheConsumer) {
  Sweep s = Sweep::Create(H100With(""), {Axis("pue=1.1:1.5:0.1"), Axis("power=1MW:1000MW:log997")})
                .value();
  const std::vector<SweepRow> reference = RunAll(s);
  for (int threads : {1, 2, 3}) {
    for (int64_t block : {int64_t{1000}, int64_t{4985}, int64_t{1} << 16}) {
      SCOPED_TRACE(absl::StrCat(threads, " threads, blocks of ", block));
      SweepOptions o;
      o.threads = threads;
      o.block_points = block;
      o.chunk_points = 300;
      std::mutex mu;
      std::vector<SweepRow> seen(static_cast<size_t>(s.size()));
      std::vector<int> times_seen(static_cast<size_t>(s.size()), 0);
      int64_t consumed = 0;  // points the consumer has had
      bool chunk_after_its_block = false, misnumbered = false;
      o.on_chunk = [&](int64_t first, int chunk, absl::Span<const SweepRow> rows) {
        std::lock_guard<std::mutex> lock(mu);
        misnumbered = misnumbered || first != (first / block) * block + chunk * int64_t{300} ||
                      rows.size() > 300;
        chunk_after_its_block = chunk_after_its_block || first < consumed;
        for (size_t i = 0; i < rows.size(); ++i) {
          seen[static_cast<size_t>(first) + i] = rows[i];
          ++times_seen[static_cast<size_t>(first) + i];
        }
      };
      const absl::Status run = s.Run(o, [&](int64_t first, absl::Span<const SweepRow> rows) {
        std::lock_guard<std::mutex> lock(mu);
        for (size_t i = 0; i < rows.size(); ++i) {
          EXPECT_EQ(times_seen[static_cast<size_t>(first) + i], 1);
        }
        consumed = first + static_cast<int64_t>(rows.size());
        return absl::OkStatus();
      });
      ASSERT_THAT(run, IsOk());
      EXPECT_EQ(consumed, s.size());
      EXPECT_FALSE(misnumbered);
      EXPECT_FALSE(chunk_after_its_block);
      ExpectSameRows(reference, seen);
    }
  }
}

// A reference preset's MFU table is searched up front on every thread when every axis is patched
// (Sweep::Impl::PrefillReference): the rows are those of one thread, and of each point solved on
// its own.
TEST(Sweep, ReferenceTableFilledUpFrontGivesTheSameRows) {
  PlanRequest h100 = LoadPreset("h100-dgx").value();
  ASSERT_TRUE(h100.efficiency().has_reference_workload());
  Sweep s = Sweep::Create(h100, {Axis("power=5MW:40MW:log60"), Axis("pue=1.2,1.5")}).value();
  SweepOptions slow;
  slow.patch_models = false;
  SweepOptions one;
  one.threads = 1;
  SweepOptions two;
  two.threads = 2;
  // Two threads first, while the table is cold (other tests may have searched a few sizes).
  const std::vector<SweepRow> prefilled = RunAll(s, two);
  const std::vector<SweepRow> expected = RunAll(s, slow);
  ExpectSameRows(prefilled, expected);
  ExpectSameRows(RunAll(s, one), expected);
}

TEST(Sweep, AnInvalidValueFailsOnlyItsOwnPoints) {
  Sweep s =
      Sweep::Create(SeedWith("constraints { power_cap_watts: 45.9e6 }"), {Axis("pue=0.9,1.0")})
          .value();
  std::vector<SweepRow> rows = RunAll(s);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[0].status, StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("site.pue must be >= 1.0, got 0.9")));
  EXPECT_EQ(rows[0].gpus, 0);
  EXPECT_THAT(rows[1].status, IsOk());
  EXPECT_EQ(rows[1].gpus, 32784);
}

TEST(Sweep, APointWithoutAnyCapSaysSo) {
  // max_gpus 0 means no GPU cap, and the seed has no other cap.
  Sweep s = Sweep::Create(SeedWith(""), {Axis("gpus=0,712")}).value();
  std::vector<SweepRow> rows = RunAll(s);
  EXPECT_THAT(rows[0].status, StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no cap")));
  // 712 GPUs = 89 servers of 8.
  EXPECT_EQ(rows[1].gpus, 712);
}

TEST(Sweep, PresetAxisSolvesEachPresetWithTheOtherAxes) {
  Sweep s =
      Sweep::Create(PlanRequest(), {Axis("preset=seed,h100-dgx"), Axis("power=45.9MW")}).value();
  std::vector<SweepRow> rows = RunAll(s);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gpus, 32784);  // the seed formula, as above
  PlanRequest h100 = LoadPreset("h100-dgx").value();
  h100.mutable_constraints()->set_power_cap_watts(45.9e6);
  EXPECT_EQ(rows[1].gpus, static_cast<int64_t>(SolvePlan(h100).value().counts().gpu_count()));
}

TEST(Sweep, AnyNumericFieldRebuildsTheModel) {
  // 1 kW more per seed server: 12.2 kW; 45.9 MW / 12.2 kW = 3,762.3 -> 3,762 servers = 30,096 GPUs.
  Sweep s = Sweep::Create(SeedWith(""),
                          {Axis("power=45.9MW"), Axis("hardware.server.overhead_watts=0,1kW")})
                .value();
  std::vector<SweepRow> rows = RunAll(s);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gpus, 32784);
  EXPECT_EQ(rows[1].gpus, 30096);
}

TEST(Sweep, AConsumerErrorStopsTheRun) {
  Sweep s = Sweep::Create(SeedWith(""), {Axis("power=1MW:100MW:1MW")}).value();
  SweepOptions o;
  o.block_points = 10;
  int calls = 0;
  absl::Status status = s.Run(o, [&](int64_t, absl::Span<const SweepRow>) {
    return ++calls == 3 ? absl::DataLossError("disk full") : absl::OkStatus();
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("disk full")));
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace dcplan

#include "planner/planner.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/status_matchers.h"
#include "base/thread_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SolvePlan, WritesCountsPowerComputeAndTheBindingCap) {
  Plan plan = SolvePlan(SeedWith("constraints { power_cap_watts: 45.9e6 }")).value();
  EXPECT_EQ(plan.schema_version(), SCHEMA_VERSION_1);
  EXPECT_EQ(plan.counts().gpu_count(), 32784u);
  EXPECT_EQ(plan.counts().server_count(), 4098u);
  // 4,098 servers / 4 a rack = 1,024.5: 1,025 racks; / 8 a pod = 128.1: 129 pods.
  EXPECT_EQ(plan.counts().rack_count(), 1025u);
  EXPECT_EQ(plan.counts().pod_count(), 129u);
  EXPECT_EQ(plan.counts().building_count(), 1u);
  EXPECT_DOUBLE_EQ(plan.power().it_power_watts(), 32784 * 1400.0);
  EXPECT_DOUBLE_EQ(plan.power().facility_power_watts(), 32784 * 1400.0);
  EXPECT_DOUBLE_EQ(plan.compute().peak_flops_per_second(), 32784e15);
  EXPECT_EQ(plan.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_TRUE(plan.headroom().has_facility_power_watts());
  EXPECT_FALSE(plan.headroom().has_budget_usd());
  ASSERT_EQ(plan.notes_size(), 1);
  EXPECT_THAT(plan.notes(0), HasSubstr("facility power cap"));
}

TEST(SolvePlan, ZeroGpuPlanSaysWhy) {
  Plan plan = SolvePlan(SeedWith("constraints { power_cap_watts: 5000 }")).value();
  EXPECT_EQ(plan.counts().gpu_count(), 0u);
  ASSERT_EQ(plan.notes_size(), 1);
  EXPECT_THAT(plan.notes(0), HasSubstr("no GPUs fit"));
}

// A Plan written over by one request after another holds exactly what a fresh one would: nothing
// of the earlier plans (notes, assumptions, a training plan, headroom) is left behind, whatever
// the order.
TEST(SolvePlanInto, AReusedPlanEqualsAFreshOne) {
  const std::vector<PlanRequest> requests = {
      H100With("constraints { power_cap_watts: 50e6 budget_usd: 2e9 }"),
      SeedWith("constraints { power_cap_watts: 5000 }"),  // no GPUs fit
      SeedWith("constraints { power_cap_watts: 45.9e6 }"),
      H100With("constraints { power_cap_watts: 20e6 objective: OBJECTIVE_MAX_REALIZED_COMPUTE }"),
  };
  Plan reused;
  for (int round = 0; round < 2; ++round) {
    for (const PlanRequest& r : requests) {
      const Plan fresh = SolvePlan(r).value();
      ASSERT_THAT(SolvePlanInto(r, ExplainOptions(), &reused), IsOk());
      EXPECT_EQ(reused.SerializeAsString(), fresh.SerializeAsString()) << r.ShortDebugString();
    }
  }
  // An error leaves an error, as SolvePlan says.
  EXPECT_THAT(SolvePlanInto(SeedWith("site { pue: 0.9 }"), ExplainOptions(), &reused),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("site.pue")));
}

TEST(Scale, ReproducesTheSeedTable) {
  // The chapter's table: G = 1, 8, 512, 8192, 32768 -> MFU 0.62 - 0.02 log2 G, realized = G x 1 PF
  // x MFU, power = G x 1.4 kW.
  const int64_t sizes[] = {1, 8, 512, 8192, 32768};
  const double mfu[] = {0.62, 0.56, 0.44, 0.36, 0.32};
  ScaleReport report = Scale(SeedWith(""), sizes).value();
  ASSERT_EQ(report.rows_size(), 5);
  for (int i = 0; i < 5; ++i) {
    const ScaleRow& row = report.rows(i);
    const double g = static_cast<double>(sizes[i]);
    EXPECT_DOUBLE_EQ(row.compute().peak_flops_per_second(), g * 1e15);
    EXPECT_NEAR(row.compute().mfu(), mfu[i], 1e-12);
    EXPECT_NEAR(row.compute().realized_flops_per_second(), g * 1e15 * mfu[i], g * 1e3);
    EXPECT_DOUBLE_EQ(row.power().facility_power_watts(), g * 1400.0);
  }
}

TEST(Scale, RejectsSizesOutOfRange) {
  const int64_t sizes[] = {8, 0};
  EXPECT_THAT(Scale(SeedWith(""), sizes),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("gpus[1] must be in")));
}

TEST(ScaleEach, HandsOverEveryRowInOrderABlockAtATimeOnEveryThread) {
  // 10,000 sizes 1..10,000 in blocks of 4,096: 4,096 + 4,096 + 1,808 rows. Row i is the seed at
  // G = i + 1: MFU 0.62 - 0.02 log2 G (floor 0.01), power G x 1.4 kW, as Scale gives one at a time.
  std::vector<int64_t> sizes(10000);
  for (int64_t i = 0; i < 10000; ++i) sizes[i] = i + 1;
  ThreadPool pool(2);
  std::vector<int64_t> firsts, counts;
  int64_t next = 0;
  ASSERT_THAT(ScaleEach(SeedWith(""), sizes, &pool,
                        [&](int64_t first, absl::Span<const ScaleRow> rows) {
                          firsts.push_back(first);
                          counts.push_back(static_cast<int64_t>(rows.size()));
                          for (const ScaleRow& row : rows) {
                            const double g = static_cast<double>(++next);
                            EXPECT_EQ(row.counts().gpu_count(), next);
                            EXPECT_NEAR(row.compute().mfu(),
                                        std::max(0.01, 0.62 - 0.02 * std::log2(g)), 1e-12);
                            EXPECT_DOUBLE_EQ(row.power().facility_power_watts(), g * 1400.0);
                          }
                          return absl::OkStatus();
                        }),
              IsOk());
  EXPECT_THAT(firsts, ElementsAre(0, 4096, 8192));
  EXPECT_THAT(counts, ElementsAre(4096, 4096, 1808));
  // An error from the consumer stops it there.
  int calls = 0;
  EXPECT_THAT(ScaleEach(SeedWith(""), sizes, &pool,
                        [&](int64_t, absl::Span<const ScaleRow>) {
                          ++calls;
                          return absl::DataLossError("disk full");
                        }),
              StatusIs(absl::StatusCode::kDataLoss, "disk full"));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace dcplan

#include "base/field_checks.h"

#include <cmath>
#include <limits>
#include <string>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::Eq;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatDouble, PrintsTheShortestTextThatReadsBack) {
  EXPECT_EQ(FormatDouble(0.9), "0.9");
  EXPECT_EQ(FormatDouble(4600), "4600");
  EXPECT_EQ(FormatDouble(1e15), "1e+15");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDouble(std::nan("")), "nan");
  EXPECT_EQ(FormatDouble(-kInf), "-inf");
}

TEST(FieldChecks, NameThePathAndTheValueWithOneCodePerKind) {
  EXPECT_EQ(FieldPath("", "schema_version"), "schema_version");
  EXPECT_THAT(CheckFinite("site", "pue", kInf),
              StatusIs(absl::StatusCode::kInvalidArgument, Eq("site.pue must be finite, got inf")));
  // A hard limit is OutOfRange; a value outside the schema's range is InvalidArgument.
  EXPECT_THAT(
      CheckAtMost("costs", "horizon_years", 51, 50),
      StatusIs(absl::StatusCode::kOutOfRange, Eq("costs.horizon_years must be <= 50, got 51")));
  EXPECT_THAT(
      CheckNonNegative("rack", "price_usd", -1, 1e15),
      StatusIs(absl::StatusCode::kInvalidArgument, Eq("rack.price_usd must be >= 0, got -1")));
  EXPECT_THAT(
      CheckPositive("a", "tdp_watts", 0, 1e15, " when set"),
      StatusIs(absl::StatusCode::kInvalidArgument, Eq("a.tdp_watts must be > 0 when set, got 0")));
  EXPECT_THAT(CheckInRange("s", "power_factor", 1.3, 0, 1, kOpenLow),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("s.power_factor must be in (0, 1], got 1.3")));
  EXPECT_THAT(CheckInRange("s", "power_factor", 0, 0, 1, kOpenLow),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(CheckInRange("c", "wacc", 0, 0, 1), IsOk());
  EXPECT_THAT(
      CheckInRange("c", "wacc", 1.2, 0, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, Eq("c.wacc must be in [0, 1], got 1.2")));
  EXPECT_THAT(CheckCountAtLeast("server", "gpus_per_server", 0, 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("server.gpus_per_server must be >= 1, got 0")));
  EXPECT_THAT(
      CheckCountAtMost("site", "max_buildings", 7, 5),
      StatusIs(absl::StatusCode::kOutOfRange, Eq("site.max_buildings must be <= 5, got 7")));
  EXPECT_THAT(CheckEnum(
                  "site", "cooling", 9, [](int v) { return v < 3; }, "Cooling"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("site.cooling must be a known Cooling value, got 9")));
}

TEST(SubPath, JoinsPrefixAndSuffixOnTheStackOrTheHeap) {
  // The two parts written out by hand; a path longer than the 112-byte buffer takes the heap.
  EXPECT_EQ(absl::string_view(SubPath("hardware", ".accelerator")), "hardware.accelerator");
  EXPECT_EQ(SubPath("", "site").view(), "site");
  const std::string long_prefix(200, 'a');
  const SubPath longer(long_prefix, ".b");
  EXPECT_EQ(longer.view().size(), 202u);
  EXPECT_EQ(longer.view(), long_prefix + ".b");
  const std::string exact(110, 'x');  // 110 + 2 = 112: the buffer exactly
  EXPECT_EQ(SubPath(exact, ".y").view(), exact + ".y");
}

}  // namespace
}  // namespace dcplan

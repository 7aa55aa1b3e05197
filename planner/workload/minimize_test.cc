// File: planner/workload/minimize_test.cc
#include "planner/workload/minimize.h"

#include <vector>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(MinimizeInBox, FindsAShiftedQuadraticsMinimumInsideTheBox) {
  // (x - 1)^2 + 3 (y + 2)^2 over [-5, 5]^2: zero at (1, -2), inside the box.
  const auto f = [](const std::vector<double>& v) {
    return (v[0] - 1) * (v[0] - 1) + 3 * (v[1] + 2) * (v[1] + 2);
  };
  const std::vector<double> x = MinimizeInBox(f, {0, 0}, {0.5, 0.5}, {-5, -5}, {5, 5}, 300);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0], 1.0, 1e-4);
  EXPECT_NEAR(x[1], -2.0, 1e-4);
  EXPECT_NEAR(f(x), 0.0, 1e-8);
}

TEST(MinimizeInBox, AMinimumOutsideTheBoxLandsOnItsEdge) {
  // (x - 3)^2 + (y - 0.5)^2 over [-1, 2] x [-1, 1]: the unconstrained minimum (3, 0.5) is beyond
  // x = 2, so the box's best point is (2, 0.5).
  const auto f = [](const std::vector<double>& v) {
    return (v[0] - 3) * (v[0] - 3) + (v[1] - 0.5) * (v[1] - 0.5);
  };
  const std::vector<double> x = MinimizeInBox(f, {0, 0}, {0.2, 0.2}, {-1, -1}, {2, 1}, 300);
  EXPECT_DOUBLE_EQ(x[0], 2.0);
  EXPECT_NEAR(x[1], 0.5, 1e-4);
}

TEST(MinimizeInBox, AMinimumBeyondACornerLandsOnTheCorner) {
  // (x + 4)^2 + (y + 4)^2 over [-1, 1]^2: the box's best point is its corner (-1, -1).
  const auto f = [](const std::vector<double>& v) {
    return (v[0] + 4) * (v[0] + 4) + (v[1] + 4) * (v[1] + 4);
  };
  const std::vector<double> x = MinimizeInBox(f, {0.5, 0.5}, {0.1, 0.1}, {-1, -1}, {1, 1}, 300);
  EXPECT_DOUBLE_EQ(x[0], -1.0);
  EXPECT_DOUBLE_EQ(x[1], -1.0);
}

TEST(MinimizeInBox, StartsOnABoundAndStepsInward) {
  // x^2 over [0, 1] starting at the upper bound: the first step goes the other way; the minimum is
  // the lower bound 0.
  const auto f = [](const std::vector<double>& v) { return v[0] * v[0]; };
  const std::vector<double> x = MinimizeInBox(f, {1}, {0.25}, {0}, {1}, 200);
  EXPECT_NEAR(x[0], 0.0, 1e-6);
  EXPECT_GE(x[0], 0.0);
}

TEST(MinimizeInBox, FindsRosenbrocksMinimum) {
  // (1 - x)^2 + 100 (y - x^2)^2 over [-2, 2]^2 from the classic start (-1.2, 1): zero at (1, 1).
  const auto f = [](const std::vector<double>& v) {
    const double a = 1 - v[0], b = v[1] - v[0] * v[0];
    return a * a + 100 * b * b;
  };
  const std::vector<double> x = MinimizeInBox(f, {-1.2, 1}, {0.1, 0.1}, {-2, -2}, {2, 2}, 2000);
  EXPECT_NEAR(x[0], 1.0, 1e-3);
  EXPECT_NEAR(x[1], 1.0, 1e-3);
}

}  // namespace
}  // namespace dcplan

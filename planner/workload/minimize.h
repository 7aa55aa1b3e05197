// File: planner/workload/minimize.h
//
// A derivative-free minimizer for a few bounded parameters: Nelder-Mead inside a box. Calibration
// (calibration.h) fits its free constants with it.
//
// Example:
//   const auto f = [](const std::vector<double>& x) { return (x[0] - 1) * (x[0] - 1); };
//   std::vector<double> x = MinimizeInBox(f, {0.0}, {0.1}, {-5.0}, {5.0}, 200);  // x[0] ~ 1
#pragma once

#include <functional>
#include <vector>

namespace dcplan {

// Minimizes `f` over the box [lower, upper] by Nelder-Mead from `start` with initial simplex steps
// `step` (points outside the box are clamped to it before `f` sees them), for `iterations`
// iterations. Returns the best point found.
std::vector<double> MinimizeInBox(const std::function<double(const std::vector<double>&)>& f,
                                  std::vector<double> start, const std::vector<double>& step,
                                  const std::vector<double>& lower,
                                  const std::vector<double>& upper, int iterations);

}  // namespace dcplan

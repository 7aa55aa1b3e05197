// File: planner/workload/minimize.cc
#include "planner/workload/minimize.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace dcplan {

std::vector<double> MinimizeInBox(const std::function<double(const std::vector<double>&)>& f,
                                  std::vector<double> start, const std::vector<double>& step,
                                  const std::vector<double>& lower,
                                  const std::vector<double>& upper, int iterations) {
  const size_t n = start.size();
  auto clamp = [&](std::vector<double> x) {
    for (size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], lower[i], upper[i]);
    return x;
  };
  auto eval = [&](const std::vector<double>& x) { return f(clamp(x)); };
  // Simplex: the start and one step along each axis.
  std::vector<std::vector<double>> pts(n + 1, clamp(start));
  for (size_t i = 0; i < n; ++i) {
    pts[i + 1][i] += step[i];
    pts[i + 1] = clamp(pts[i + 1]);
    if (pts[i + 1][i] == pts[0][i])
      pts[i + 1][i] -= step[i];  // stepped into a bound: go the other way
  }
  std::vector<double> vals(n + 1);
  for (size_t i = 0; i <= n; ++i) vals[i] = eval(pts[i]);
  auto combine = [&](const std::vector<double>& a, const std::vector<double>& b, double t) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j) x[j] = a[j] + t * (b[j] - a[j]);
    return x;
  };
  for (int it = 0; it < iterations; ++it) {
    std::vector<size_t> order(n + 1);
    for (size_t i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vals[a] < vals[b]; });
    std::vector<std::vector<double>> p2;
    std::vector<double> v2;
    for (size_t i : order) {
      p2.push_back(pts[i]);
      v2.push_back(vals[i]);
    }
    pts = std::move(p2);
    vals = std::move(v2);
    std::vector<double> centroid(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) centroid[j] += pts[i][j] / static_cast<double>(n);
    }
    // Reflect, expand, contract, shrink (the standard coefficients 1, 2, 1/2, 1/2).
    const std::vector<double> xr = combine(centroid, pts[n], -1.0);
    const double fr = eval(xr);
    if (fr < vals[0]) {
      const std::vector<double> xe = combine(centroid, pts[n], -2.0);
      const double fe = eval(xe);
      if (fe < fr) {
        pts[n] = xe;
        vals[n] = fe;
      } else {
        pts[n] = xr;
        vals[n] = fr;
      }
    } else if (fr < vals[n - 1]) {
      pts[n] = xr;
      vals[n] = fr;
    } else {
      const std::vector<double> xc = combine(centroid, pts[n], 0.5);
      const double fc = eval(xc);
      if (fc < vals[n]) {
        pts[n] = xc;
        vals[n] = fc;
      } else {
        for (size_t i = 1; i <= n; ++i) {
          pts[i] = combine(pts[0], pts[i], 0.5);
          vals[i] = eval(pts[i]);
        }
      }
    }
  }
  size_t best = 0;
  for (size_t i = 1; i <= n; ++i) {
    if (vals[i] < vals[best]) best = i;
  }
  return clamp(pts[best]);
}

}  // namespace dcplan

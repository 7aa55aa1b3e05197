#include "planner/mfu_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "planner/defaults.h"

namespace dcplan {

using units::Fraction;
using units::Ratio;

namespace {
constexpr double kLn2 = 0.69314718055994530942;
}  // namespace

LogLinearMfuModel::LogLinearMfuModel(double intercept, double slope_per_doubling, double floor)
    : intercept_(intercept), slope_(slope_per_doubling), floor_(floor) {}

Ratio LogLinearMfuModel::MfuAt(int64_t gpus) const {
  if (gpus <= 0) return Fraction(0.0);
  double m = intercept_ - slope_ * std::log2(static_cast<double>(gpus));
  return Fraction(std::max(m, floor_));
}

std::string LogLinearMfuModel::Describe() const {
  return absl::StrFormat("log_linear: %g - %g log2(G), floor %g", intercept_, slope_, floor_);
}

std::vector<double> LogLinearMfuModel::RealizedComputeCandidates() const {
  // d/dG [G (a - b log2 G)] = a - b log2 G - b / ln 2 = 0  =>  log2 G = a/b - 1/ln 2. Past the
  // point where the curve meets its floor, G x floor grows again, so that point is a candidate too.
  std::vector<double> out;
  if (slope_ > 0) {
    out.push_back(std::exp2(intercept_ / slope_ - 1.0 / kLn2));
    out.push_back(std::exp2((intercept_ - floor_) / slope_));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TableMfuModel::TableMfuModel(std::vector<Point> points) : points_(std::move(points)) {
  log2_gpus_.reserve(points_.size());
  for (const Point& p : points_) log2_gpus_.push_back(std::log2(p.gpus));
}

Ratio TableMfuModel::MfuAt(int64_t gpus) const {
  if (gpus <= 0) return Fraction(0.0);
  const double g = static_cast<double>(gpus);
  if (g <= points_.front().gpus) return Fraction(points_.front().mfu);
  if (g >= points_.back().gpus) return Fraction(points_.back().mfu);
  // First point with gpus > g; g lies in [points_[i-1], points_[i]).
  auto it = std::upper_bound(points_.begin(), points_.end(), g,
                             [](double v, const Point& p) { return v < p.gpus; });
  size_t i = static_cast<size_t>(it - points_.begin());
  const double x = std::log2(g);
  const double x0 = log2_gpus_[i - 1], x1 = log2_gpus_[i];
  const double t = (x - x0) / (x1 - x0);
  return Fraction(points_[i - 1].mfu + t * (points_[i].mfu - points_[i - 1].mfu));
}

std::string TableMfuModel::Describe() const {
  std::string s = absl::StrCat("table: ", points_.size(), " points interpolated in log2(G) (");
  for (size_t i = 0; i < points_.size(); ++i) {
    absl::StrAppend(&s, i ? ", " : "",
                    absl::StrFormat("%g GPUs %.1f%%", points_[i].gpus, 100.0 * points_[i].mfu));
  }
  return absl::StrCat(s, ")");
}

std::vector<double> TableMfuModel::RealizedComputeCandidates() const {
  // Inside segment i, MFU = c + s log2 G, so G x MFU has its one stationary point at
  // log2 G = -c/s - 1/ln 2 (when s < 0); beyond the ends MFU is constant and G x MFU grows.
  std::vector<double> out;
  for (size_t i = 0; i < points_.size(); ++i) {
    out.push_back(points_[i].gpus);
    if (i + 1 == points_.size()) break;
    const double s = (points_[i + 1].mfu - points_[i].mfu) / (log2_gpus_[i + 1] - log2_gpus_[i]);
    if (s < 0) {
      const double c = points_[i].mfu - s * log2_gpus_[i];
      const double x = -c / s - 1.0 / kLn2;
      if (x > log2_gpus_[i] && x < log2_gpus_[i + 1]) out.push_back(std::exp2(x));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

ConstantMfuModel::ConstantMfuModel(double mfu) : mfu_(mfu) {}

Ratio ConstantMfuModel::MfuAt(int64_t gpus) const { return Fraction(gpus <= 0 ? 0.0 : mfu_); }

std::string ConstantMfuModel::Describe() const { return absl::StrFormat("constant: %g", mfu_); }

std::vector<double> ConstantMfuModel::RealizedComputeCandidates() const { return {}; }

absl::StatusOr<std::shared_ptr<const MfuModel>> MakeMfuModel(const EfficiencyModel& proto) {
  switch (proto.model_case()) {
    case EfficiencyModel::kTable: {
      std::vector<TableMfuModel::Point> points;
      for (const MfuPoint& p : proto.table().points()) {
        points.push_back({static_cast<double>(p.gpus()), p.mfu()});
      }
      if (points.empty()) {
        return absl::InvalidArgumentError("efficiency.table.points must not be empty");
      }
      return std::make_shared<const TableMfuModel>(std::move(points));
    }
    case EfficiencyModel::kConstant:
      return std::make_shared<const ConstantMfuModel>(proto.constant().mfu());
    case EfficiencyModel::kLogLinear:
    case EfficiencyModel::MODEL_NOT_SET:
      break;
  }
  const LogLinearMfu& ll = proto.log_linear();
  return std::make_shared<const dcplan::LogLinearMfuModel>(
      ll.has_intercept() ? ll.intercept() : defaults::kMfuIntercept,
      ll.has_slope_per_doubling() ? ll.slope_per_doubling() : defaults::kMfuSlopePerDoubling,
      ll.has_floor() ? ll.floor() : defaults::kMfuFloor);
}

}  // namespace dcplan

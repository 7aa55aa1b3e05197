// File: planner/workload/power_limit.cc
#include "planner/workload/power_limit.h"

#include <algorithm>
#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/field_checks.h"
#include "base/status_macros.h"

namespace dcplan {
namespace {

constexpr size_t kDefaultPoints = sizeof(kDefaultPowerCurve) / sizeof(kDefaultPowerCurve[0]);

size_t PointCount(const Accelerator& a) {
  return a.power_curve_size() > 0 ? static_cast<size_t>(a.power_curve_size()) : kDefaultPoints;
}

PowerCurvePoint PointAt(const Accelerator& a, size_t i) {
  if (a.power_curve_size() == 0) return kDefaultPowerCurve[i];
  const PowerPerformancePoint& p = a.power_curve(static_cast<int>(i));
  return {p.power_fraction(), p.throughput_fraction()};
}

// Linear interpolation of the curve at power fraction `x`, clamped to its ends.
double Interpolate(const Accelerator& a, double x) {
  const size_t n = PointCount(a);
  if (x <= PointAt(a, 0).power_fraction) return PointAt(a, 0).throughput_fraction;
  for (size_t i = 1; i < n; ++i) {
    const PowerCurvePoint lo = PointAt(a, i - 1);
    const PowerCurvePoint hi = PointAt(a, i);
    if (x <= hi.power_fraction) {
      const double t = (x - lo.power_fraction) / (hi.power_fraction - lo.power_fraction);
      return lo.throughput_fraction + t * (hi.throughput_fraction - lo.throughput_fraction);
    }
  }
  return PointAt(a, n - 1).throughput_fraction;
}

absl::Status ValidateCurve(const Accelerator& a, absl::string_view path) {
  const int n = a.power_curve_size();
  if (n == 0) return absl::OkStatus();
  const SubPath field(path, path.empty() ? "power_curve" : ".power_curve");
  // Every value finite first (a NaN names its own field), then each point's range, then the
  // curve's shape.
  for (int i = 0; i < n; ++i) {
    const SubPath point(field, absl::StrCat("[", i, "]"));
    DCPLAN_RETURN_IF_ERROR(CheckFinite(point, "power_fraction", a.power_curve(i).power_fraction()));
    DCPLAN_RETURN_IF_ERROR(
        CheckFinite(point, "throughput_fraction", a.power_curve(i).throughput_fraction()));
  }
  for (int i = 0; i < n; ++i) {
    const SubPath point(field, absl::StrCat("[", i, "]"));
    const PowerPerformancePoint& p = a.power_curve(i);
    DCPLAN_RETURN_IF_ERROR(
        CheckInRange(point, "power_fraction", p.power_fraction(), kMinPowerCurveFraction, 1.0));
    DCPLAN_RETURN_IF_ERROR(
        CheckInRange(point, "throughput_fraction", p.throughput_fraction(), 0.0, 1.0, kOpenLow));
  }
  if (n < 2) {
    return WithFieldPath(
        absl::InvalidArgumentError(
            absl::StrCat(field.view(), " must have at least 2 points (the last {1, 1}), got ", n)),
        field);
  }
  for (int i = 0; i < n; ++i) {
    const SubPath point(field, absl::StrCat("[", i, "]"));
    const PowerPerformancePoint& p = a.power_curve(i);
    if (i == 0) continue;
    const PowerPerformancePoint& q = a.power_curve(i - 1);
    if (!(p.power_fraction() > q.power_fraction())) {
      const std::string f = FieldPath(point, "power_fraction");
      return WithFieldPath(
          absl::InvalidArgumentError(absl::StrCat(
              f, " must be > the previous point's (", FormatDouble(q.power_fraction()),
              "): the points go from the lowest power up, got ", FormatDouble(p.power_fraction()))),
          f);
    }
    if (p.throughput_fraction() < q.throughput_fraction()) {
      const std::string f = FieldPath(point, "throughput_fraction");
      return WithFieldPath(
          absl::InvalidArgumentError(absl::StrCat(
              f, " must be >= the previous point's (", FormatDouble(q.throughput_fraction()),
              "): more power never delivers less, got ", FormatDouble(p.throughput_fraction()))),
          f);
    }
  }
  const PowerPerformancePoint& last = a.power_curve(n - 1);
  if (last.power_fraction() != 1.0 || last.throughput_fraction() != 1.0) {
    const SubPath point(field, absl::StrCat("[", n - 1, "]"));
    return WithFieldPath(
        absl::InvalidArgumentError(absl::StrCat(
            point.view(),
            " must be {power_fraction: 1, throughput_fraction: 1} (at the rated power nothing "
            "changes), got {",
            FormatDouble(last.power_fraction()), ", ", FormatDouble(last.throughput_fraction()),
            "}")),
        point);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePowerLimit(const Accelerator& a, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(ValidateCurve(a, path));
  const double limit = a.power_limit_watts();
  const SubPath field(path, path.empty() ? "power_limit_watts" : ".power_limit_watts");
  DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "power_limit_watts", limit));
  if (limit != 0) {
    const double floor_fraction = PointAt(a, 0).power_fraction;
    const double floor = floor_fraction * a.tdp_watts();
    if (limit < 0) {
      return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                               field.view(), " must be > 0 when set (0 = none: the TDP), got ",
                               FormatDouble(limit))),
                           field);
    }
    if (limit > a.tdp_watts()) {
      return WithFieldPath(absl::FailedPreconditionError(absl::StrCat(
                               field.view(), " must be <= tdp_watts (", FormatDouble(a.tdp_watts()),
                               "), got ", FormatDouble(limit))),
                           field);
    }
    if (limit < floor) {
      return WithFieldPath(
          absl::FailedPreconditionError(absl::StrCat(
              field.view(), " must be >= ", FormatDouble(floor), " (",
              FormatDouble(floor_fraction * 100), "% of tdp_watts ", FormatDouble(a.tdp_watts()),
              ", the lowest power the power curve covers), got ", FormatDouble(limit))),
          field);
    }
  }
  if (a.power_limit_auto() && limit != 0) {
    const std::string f = FieldPath(path, "power_limit_auto");
    return WithFieldPath(absl::FailedPreconditionError(absl::StrCat(
                             f, " is true but ", field.view(), " is ", FormatDouble(limit),
                             ": the search chooses the limit, so set one or the other")),
                         f);
  }
  return absl::OkStatus();
}

units::Ratio PowerCurveFloor(const Accelerator& a) {
  return units::Fraction(PointAt(a, 0).power_fraction);
}

units::Ratio ThroughputAtPowerFraction(const Accelerator& a, units::Ratio power_fraction) {
  return units::Fraction(Interpolate(a, units::InFraction(power_fraction)));
}

bool PowerCurveIsConcave(const Accelerator& a) {
  const size_t n = PointCount(a);
  double previous_slope = 0;
  for (size_t i = 1; i < n; ++i) {
    const PowerCurvePoint lo = PointAt(a, i - 1);
    const PowerCurvePoint hi = PointAt(a, i);
    const double slope =
        (hi.throughput_fraction - lo.throughput_fraction) / (hi.power_fraction - lo.power_fraction);
    if (i > 1 && slope > previous_slope) return false;
    previous_slope = slope;
  }
  return true;
}

bool HasPowerLimit(const Accelerator& a) { return a.power_limit_watts() > 0; }

units::Power EffectivePowerLimit(const Accelerator& a) {
  return units::Watts(HasPowerLimit(a) ? a.power_limit_watts() : a.tdp_watts());
}

units::Ratio PowerThroughputFraction(const Accelerator& a) {
  if (!HasPowerLimit(a)) return units::Fraction(1.0);
  return units::Fraction(Interpolate(a, a.power_limit_watts() / a.tdp_watts()));
}

const Hardware& WithPowerLimitedPeaks(const Hardware& hardware, Hardware* scaled) {
  if (!HasPowerLimit(hardware.accelerator())) return hardware;
  const double f = units::InFraction(PowerThroughputFraction(hardware.accelerator()));
  *scaled = hardware;
  Accelerator* a = scaled->mutable_accelerator();
  a->set_peak_flops_per_second(a->peak_flops_per_second() * f);
  a->set_peak_fp8_flops_per_second(a->peak_fp8_flops_per_second() * f);
  a->set_peak_fp4_flops_per_second(a->peak_fp4_flops_per_second() * f);
  return *scaled;
}

}  // namespace dcplan

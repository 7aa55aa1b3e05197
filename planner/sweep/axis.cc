// File: planner/sweep/axis.cc
#include "planner/sweep/axis.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/numbers.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "planner/sweep/request_fields.h"

namespace dcplan {
namespace {

// Most values one axis may have.
constexpr int64_t kMaxAxisValues = 100'000'000;

// `v` with the noise of repeated decimal steps removed (1.1 + 3 x 0.05 = 1.2500000000000002
// -> 1.25).
double Tidy(double v, int digits) {
  // std::to_chars / from_chars: the same digits as "%.*g" and strtod, several times faster (a
  // 10^7-value axis is made in a fraction of a second).
  char buf[64];
  const std::to_chars_result printed =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::general, digits);
  if (printed.ec != std::errc()) return v;
  double tidy = v;
  std::from_chars(buf, printed.ptr, tidy);
  return tidy;
}

// Whether any two neighbours of `values` are equal (a range's values only grow).
bool HasDuplicates(const std::vector<double>& values) {
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

// The values `text` stands for, or (when `values` is null) only how many there are: a range's
// count comes from its ends and step alone, so the grid's size is known before anything is made.
// Whole-number fields (`integer`) take whole numbers only; a log range over one takes the nearest
// whole numbers. A range is kept to 12 (linear) or 6 (log) significant digits to drop floating
// noise, more when that would make two values equal; values that are equal even then (a step below
// a double's precision, more log points than whole numbers) are refused.
absl::StatusOr<double> ParseValues(absl::string_view spec, absl::string_view name,
                                   absl::string_view text, bool integer,
                                   std::vector<double>* values) {
  auto value = [&](absl::string_view t) -> absl::StatusOr<double> {
    auto v = ParseFieldValue(name, t);
    if (!v.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis \"", Clip(spec), "\": ", v.status().message()));
    }
    if (integer && *v != std::floor(*v)) {
      return absl::InvalidArgumentError(absl::StrCat("axis \"", Clip(spec), "\": ", name,
                                                     " takes whole numbers, got ",
                                                     absl::StripAsciiWhitespace(t)));
    }
    return *v;
  };
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("axis \"", Clip(spec), "\": ", what));
  };
  if (!absl::StrContains(text, ':')) {
    double count = 0;
    for (absl::string_view part : absl::StrSplit(text, ',')) {
      DCPLAN_ASSIGN_OR_RETURN(double v, value(part));
      if (values != nullptr) values->push_back(v);
      ++count;
    }
    return count;
  }
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() != 3) return error("a range is a:b:step or a:b:logN");
  DCPLAN_ASSIGN_OR_RETURN(double a, value(parts[0]));
  DCPLAN_ASSIGN_OR_RETURN(double b, value(parts[1]));
  absl::string_view third = absl::StripAsciiWhitespace(parts[2]);
  if (absl::ConsumePrefix(&third, "log")) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(third, &n) || n < 2) {
      return error("logN needs a whole N of at least 2, e.g. log20");
    }
    if (n > kMaxAxisValues) {
      return error(absl::StrCat(n, " values; an axis may have at most ", kMaxAxisValues));
    }
    if (!(a > 0 && b > 0)) return error("a log range needs a > 0 and b > 0");
    if (values == nullptr) return static_cast<double>(n);
    values->reserve(static_cast<size_t>(n));
    const double la = std::log(a), lb = std::log(b);
    for (int digits : {6, 12, 17}) {
      values->clear();
      for (int64_t i = 0; i < n; ++i) {
        double v = i == 0       ? a
                   : i == n - 1 ? b
                                : Tidy(std::exp(la + (lb - la) * static_cast<double>(i) /
                                                         static_cast<double>(n - 1)),
                                       digits);
        if (integer) v = std::round(v);
        values->push_back(v);
      }
      if (!HasDuplicates(*values)) return static_cast<double>(n);
    }
    return error(absl::StrCat(n, " log-spaced points repeat values",
                              integer ? " (whole numbers)" : "",
                              "; use fewer points or a wider range"));
  }
  DCPLAN_ASSIGN_OR_RETURN(double step, value(third));
  if (!(step > 0)) return error("the step must be > 0");
  if (!(b >= a)) return error("a:b:step needs a <= b");
  const double count = std::floor((b - a) / step * (1 + 1e-12) + 1e-9) + 1;
  if (!(count <= static_cast<double>(kMaxAxisValues))) {
    return error(
        absl::StrFormat("%.6g values; an axis may have at most %d", count, kMaxAxisValues));
  }
  if (values == nullptr) return count;
  values->reserve(static_cast<size_t>(count));
  for (int digits : {12, 17}) {
    values->clear();
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
      values->push_back(std::min(b, Tidy(a + static_cast<double>(i) * step, digits)));
    }
    if (!HasDuplicates(*values)) return count;
  }
  return error(absl::StrCat("the step ", absl::StripAsciiWhitespace(third),
                            " is too small for a double to tell the values apart"));
}

}  // namespace

std::string SweepAxis::ValueText(int64_t i) const {
  if (is_preset()) return presets[i];
  return ShortestDouble(values[i]);
}

namespace {

// Parses `spec` into `axis`; its values only when `materialize`. Returns the number of values.
absl::StatusOr<double> ParseAxis(absl::string_view spec, bool materialize, SweepAxis* axis) {
  std::pair<absl::string_view, absl::string_view> kv =
      absl::StrSplit(spec, absl::MaxSplits('=', 1));
  const absl::string_view name = absl::StripAsciiWhitespace(kv.first);
  const absl::string_view text = absl::StripAsciiWhitespace(kv.second);
  if (name.empty() || text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis \"", Clip(spec),
                     "\": expected FIELD=VALUES, e.g. power=10MW:500MW:log20 or pue=1.1,1.3"));
  }
  axis->path = ResolveSweepAlias(name);
  if (axis->is_preset()) {
    for (absl::string_view p : absl::StrSplit(text, ',')) {
      p = absl::StripAsciiWhitespace(p);
      if (p.empty())
        return absl::InvalidArgumentError(
            absl::StrCat("axis \"", Clip(spec), "\": empty preset name"));
      axis->presets.emplace_back(p);
    }
    return static_cast<double>(axis->presets.size());
  }
  auto chain = ResolveRequestField(axis->path);
  if (!chain.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis \"", Clip(spec), "\": ", chain.status().message()));
  }
  return ParseValues(spec, name, text, IsIntegerField(chain->back()),
                     materialize ? &axis->values : nullptr);
}

}  // namespace

absl::StatusOr<SweepAxis> ParseSweepAxis(absl::string_view spec) {
  SweepAxis axis;
  DCPLAN_RETURN_IF_ERROR(ParseAxis(spec, /*materialize=*/true, &axis).status());
  return axis;
}

absl::StatusOr<std::vector<SweepAxis>> ParseSweepAxes(const std::vector<std::string>& specs,
                                                      int64_t max_points) {
  double points = 1;
  std::vector<std::string> counts;
  for (const std::string& spec : specs) {
    SweepAxis counted;
    DCPLAN_ASSIGN_OR_RETURN(double n, ParseAxis(spec, /*materialize=*/false, &counted));
    points *= n;
    counts.push_back(absl::StrFormat("%.0f", n));
  }
  max_points = std::min(max_points, kMaxSweepPoints);
  if (points > static_cast<double>(max_points)) {
    return absl::OutOfRangeError(absl::StrCat(
        "the grid has ",
        points < 1e15 ? absl::StrFormat("%.0f", points) : absl::StrFormat("%.3g", points),
        " points (", absl::StrJoin(counts, " x "), "); a sweep may have at most ", max_points,
        ": take fewer values along an axis"));
  }
  std::vector<SweepAxis> axes;
  for (const std::string& spec : specs) {
    DCPLAN_ASSIGN_OR_RETURN(SweepAxis axis, ParseSweepAxis(spec));
    axes.push_back(std::move(axis));
  }
  return axes;
}

}  // namespace dcplan

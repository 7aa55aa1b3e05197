// File: planner/sweep/axis.h
//
// The axes of a sweep's grid: `PATH=VALUES` text (see planner/sweep/sweep.h for the syntax) parsed
// into a field path and its values, in the field's unit. Errors name the axis text, `axis "...":`,
// and never a command-line flag: the CLI adds its flag name.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(SweepAxis power, ParseSweepAxis("power=10MW:500MW:log20"));
//   // power.path == "constraints.power_cap_watts", power.values: 20 values from 1e7 to 5e8
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/sweep/request_fields.h"

namespace dcplan {

// The most points one sweep may have (a billion: minutes of solving, gigabytes of CSV).
inline constexpr int64_t kMaxSweepPoints = 1'000'000'000;

// One axis of a grid: a field of PlanRequest and the values it takes.
struct SweepAxis {
  // The field's full path in PlanRequest, e.g. "constraints.power_cap_watts", or "preset".
  std::string path;
  // The values of a numeric field, in the unit its name gives (watts, USD, ...): the proto's own
  // numbers, since they are set into a PlanRequest.
  std::vector<double> values;
  // The preset names of the "preset" axis.
  std::vector<std::string> presets;

  bool is_preset() const { return path == "preset"; }
  int64_t size() const {
    return static_cast<int64_t>(is_preset() ? presets.size() : values.size());
  }
  // Value `i` as text: the number in the field's unit (shortest form that reads back exactly) or
  // the preset name.
  std::string ValueText(int64_t i) const;
};

// Parses one axis, `PATH=VALUES` (see planner/sweep/sweep.h). Errors name the axis text and say
// what is wrong: an unknown or non-numeric field, a value in the wrong unit, an empty or reversed
// range.
absl::StatusOr<SweepAxis> ParseSweepAxis(absl::string_view spec);

// Parses every axis of a grid. The grid's size (the product of the axes' value counts, which come
// from each range's ends and step) is checked against kMaxSweepPoints before any axis's values are
// made, so a grid of 10^40 points is refused at once: "the grid has 1e+40 points (100000000 x ...);
// a sweep may have at most 1000000000: take fewer values along an axis" (OutOfRange).
// `max_points` lowers the limit (a server answering one request at a time allows fewer).
absl::StatusOr<std::vector<SweepAxis>> ParseSweepAxes(const std::vector<std::string>& specs,
                                                      int64_t max_points = kMaxSweepPoints);

}  // namespace dcplan

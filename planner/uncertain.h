// File: planner/uncertain.h
//
// Uncertain inputs (proto/uncertainty.proto): a PlanRequest field and a distribution over its
// value. This header reads the text form (`site.pue=triangular(1.15, 1.25, 1.45)`, values in the
// request-editing grammar of planner/request_edit.h, units included), checks a distribution's own
// parameters (low <= high, sd >= 0, probabilities summing to 1) and gives its quantile function,
// which is how samples are drawn (inverse transform) and how P10 and P90 are found for the
// sensitivity. Whether the values lie in the field's range is the validator's check
// (planner/validate.h), which calls CheckUncertain here for the rest.
//
// Every number here is a double in the field's own unit (what the proto field's name says): this
// layer sits at the proto boundary, like request_edit.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Uncertain u, ParseUncertain("pue=uniform(1.0, 2.0)"));
//   DCPLAN_ASSIGN_OR_RETURN(UncertainInput in, ResolveUncertain(u));
//   double p90 = in.Quantile(0.9);   // 1.9
#pragma once

#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/request_edit.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

// Most samples a Monte Carlo run may ask for, and the default.
inline constexpr uint64_t kMaxMonteCarloSamples = 1'000'000;
inline constexpr uint64_t kDefaultMonteCarloSamples = 10'000;
inline constexpr uint64_t kDefaultMonteCarloSeed = 1;
// Most values of a discrete distribution, and most uncertain inputs in one request.
inline constexpr int kMaxDiscreteValues = 1000;
inline constexpr int kMaxUncertainInputs = 64;

// "PATH=DIST" (PATH a field path or alias, DIST as Uncertain.text) -> an Uncertain with the text
// parsed into its distribution. InvalidArgument naming the path for a bad path or text.
absl::StatusOr<Uncertain> ParseUncertain(absl::string_view assignment);

// The distribution text `text` for `field` (see Uncertain.text) -> `out`'s distribution.
absl::Status ParseDistribution(const FieldRef& field, absl::string_view text, Uncertain* out);

// The distribution as text, in the form ParseDistribution reads ("uniform(1, 2)").
std::string DistributionText(const Uncertain& u);

// A resolved and checked uncertain input.
struct UncertainInput {
  FieldRef field;
  Uncertain spec;  // path canonical, text parsed
  // The normal and lognormal are truncated to [range_low, range_high] (the field's valid range,
  // found by the Monte Carlo engine; unbounded until then).
  double range_low = -std::numeric_limits<double>::infinity();
  double range_high = std::numeric_limits<double>::infinity();

  // The value below which a share `u` in [0, 1] of the distribution lies.
  double Quantile(double u) const;
  // The ends of the support (the quantiles at 0 and 1; the normal's +-9 sd before truncation).
  double Low() const { return Quantile(0.0); }
  double High() const { return Quantile(1.0); }
  // The values the validator checks against the field's range: both ends of a bounded
  // distribution, every value of a discrete one, the mean or median of an unbounded one.
  std::vector<double> ValuesToCheck() const;
};

// Resolves the path and parses any text; then CheckUncertain. `where` names the entry in errors
// ("uncertain[0]").
absl::StatusOr<UncertainInput> ResolveUncertain(const Uncertain& u,
                                                absl::string_view where = "uncertain");

// The distribution's own requirements (those in proto/uncertainty.proto), each error of the form
// "uncertain[0] (site.pue): uniform low 2 must be <= high 1".
absl::Status CheckUncertain(const UncertainInput& in, absl::string_view where);

// The standard normal's quantile (inverse CDF) for p in (0, 1), to ~1e-15 relative.
double NormalQuantile(double p);
// Acklam's approximation alone (relative error 1.15e-9), without NormalQuantile's refinement: a
// third of the cost, for draws where that error is far below the spread (the MFU model's error).
double NormalQuantileApprox(double p);

}  // namespace dcplan

// File: planner/uncertain.cc
#include "planner/uncertain.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/field_checks.h"
#include "base/status_macros.h"

namespace dcplan {
namespace {

using google::protobuf::FieldDescriptor;

absl::Status Bad(absl::string_view where, absl::string_view path, absl::string_view what) {
  return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(where, " (", path, "): ", what)),
                       where);
}

bool WholeNumber(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

// Phi(x), the standard normal's CDF.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// A share as text: "0.3" or "30%".
bool ParseShare(absl::string_view text, double* out) {
  text = absl::StripAsciiWhitespace(text);
  if (absl::ConsumeSuffix(&text, "%")) {
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), out)) return false;
    *out /= 100;
    return true;
  }
  return absl::SimpleAtod(text, out);
}

}  // namespace

double NormalQuantile(double p) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  // Acklam's rational approximation, then one Halley step on erfc.
  const double x = NormalQuantileApprox(p);
  const double e = NormalCdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double NormalQuantileApprox(double p) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  // Acklam's rational approximation (relative error 1.15e-9).
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  double x;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - lo) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  return x;
}

absl::Status ParseDistribution(const FieldRef& field, absl::string_view text, Uncertain* out) {
  const std::string& path = field.path;
  absl::string_view t = absl::StripAsciiWhitespace(text);
  const size_t open = t.find('(');
  if (open == absl::string_view::npos || t.back() != ')') {
    return WithFieldPath(
        absl::InvalidArgumentError(absl::StrCat(
            path,
            ": a distribution is uniform(a, b), triangular(low, mode, high), normal(mean, "
            "sd), lognormal(median, sigma) or discrete(v1:p1, v2:p2, ...); got \"",
            text, "\"")),
        path);
  }
  const std::string kind = absl::AsciiStrToLower(absl::StripAsciiWhitespace(t.substr(0, open)));
  absl::string_view inside = t.substr(open + 1, t.size() - open - 2);
  std::vector<std::string> args;
  for (absl::string_view a : absl::StrSplit(inside, ',')) {
    args.emplace_back(absl::StripAsciiWhitespace(a));
  }
  auto want = [&](size_t n) -> absl::Status {
    if (args.size() == n && !(n > 0 && args[0].empty())) return absl::OkStatus();
    return WithFieldPath(absl::InvalidArgumentError(absl::StrFormat(
                             "%s: %s takes %d values, got \"%s\"", path, kind, n, inside)),
                         path);
  };
  auto num = [&](const std::string& s, double* v) -> absl::Status {
    DCPLAN_ASSIGN_OR_RETURN(*v, ParseNumber(field, s));
    return absl::OkStatus();
  };
  out->clear_distribution();
  if (kind == "uniform") {
    DCPLAN_RETURN_IF_ERROR(want(2));
    Uniform* d = out->mutable_uniform();
    double v;
    DCPLAN_RETURN_IF_ERROR(num(args[0], &v));
    d->set_low(v);
    DCPLAN_RETURN_IF_ERROR(num(args[1], &v));
    d->set_high(v);
  } else if (kind == "triangular") {
    DCPLAN_RETURN_IF_ERROR(want(3));
    Triangular* d = out->mutable_triangular();
    double v;
    DCPLAN_RETURN_IF_ERROR(num(args[0], &v));
    d->set_low(v);
    DCPLAN_RETURN_IF_ERROR(num(args[1], &v));
    d->set_mode(v);
    DCPLAN_RETURN_IF_ERROR(num(args[2], &v));
    d->set_high(v);
  } else if (kind == "normal") {
    DCPLAN_RETURN_IF_ERROR(want(2));
    Normal* d = out->mutable_normal();
    double v;
    DCPLAN_RETURN_IF_ERROR(num(args[0], &v));
    d->set_mean(v);
    // A negative sd is the checker's to refuse with its own message; the grammar may not take "-".
    absl::string_view sd = args[1];
    const bool negative = absl::ConsumePrefix(&sd, "-");
    DCPLAN_RETURN_IF_ERROR(num(std::string(sd), &v));
    d->set_sd(negative ? -v : v);
  } else if (kind == "lognormal") {
    DCPLAN_RETURN_IF_ERROR(want(2));
    Lognormal* d = out->mutable_lognormal();
    double v;
    DCPLAN_RETURN_IF_ERROR(num(args[0], &v));
    d->set_median(v);
    if (!absl::SimpleAtod(args[1], &v)) {
      return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                               path, ": lognormal sigma is a plain number, got \"", args[1], "\"")),
                           path);
    }
    d->set_sigma(v);
  } else if (kind == "discrete") {
    Discrete* d = out->mutable_discrete();
    for (const std::string& a : args) {
      if (a.empty() && args.size() == 1) break;
      const size_t colon = a.rfind(':');
      double v, p;
      if (colon == std::string::npos || !ParseShare(a.substr(colon + 1), &p)) {
        return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                                 path, ": discrete values are VALUE:PROBABILITY, got \"", a, "\"")),
                             path);
      }
      DCPLAN_RETURN_IF_ERROR(num(a.substr(0, colon), &v));
      DiscreteValue* dv = d->add_values();
      dv->set_value(v);
      dv->set_probability(p);
    }
  } else {
    return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(
                             path, ": unknown distribution \"", kind,
                             "\"; use uniform, triangular, normal, lognormal or discrete")),
                         path);
  }
  return absl::OkStatus();
}

absl::StatusOr<Uncertain> ParseUncertain(absl::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected PATH=DISTRIBUTION, e.g. pue=uniform(1.1, 1.4); got \"", assignment, "\""));
  }
  DCPLAN_ASSIGN_OR_RETURN(FieldRef field,
                          ResolveField(absl::StripAsciiWhitespace(assignment.substr(0, eq))));
  Uncertain u;
  u.set_path(field.path);
  DCPLAN_RETURN_IF_ERROR(ParseDistribution(field, assignment.substr(eq + 1), &u));
  return u;
}

std::string DistributionText(const Uncertain& u) {
  auto g = [](double v) { return absl::StrFormat("%.10g", v); };
  switch (u.distribution_case()) {
    case Uncertain::kUniform:
      return absl::StrCat("uniform(", g(u.uniform().low()), ", ", g(u.uniform().high()), ")");
    case Uncertain::kTriangular:
      return absl::StrCat("triangular(", g(u.triangular().low()), ", ", g(u.triangular().mode()),
                          ", ", g(u.triangular().high()), ")");
    case Uncertain::kNormal:
      return absl::StrCat("normal(", g(u.normal().mean()), ", ", g(u.normal().sd()), ")");
    case Uncertain::kLognormal:
      return absl::StrCat("lognormal(", g(u.lognormal().median()), ", ", g(u.lognormal().sigma()),
                          ")");
    case Uncertain::kDiscrete: {
      std::vector<std::string> parts;
      for (const DiscreteValue& v : u.discrete().values()) {
        parts.push_back(absl::StrCat(g(v.value()), ":", g(v.probability())));
      }
      return absl::StrCat("discrete(", absl::StrJoin(parts, ", "), ")");
    }
    case Uncertain::kText:
      return u.text();
    default:
      return "";
  }
}

absl::Status CheckUncertain(const UncertainInput& in, absl::string_view where) {
  const Uncertain& u = in.spec;
  const std::string& path = in.field.path;
  auto finite = [&](std::initializer_list<double> vs) -> absl::Status {
    for (double v : vs) {
      if (!std::isfinite(v)) return Bad(where, path, "values must be finite");
    }
    return absl::OkStatus();
  };
  auto g = [](double v) { return absl::StrFormat("%g", v); };
  switch (u.distribution_case()) {
    case Uncertain::kUniform: {
      const Uniform& d = u.uniform();
      DCPLAN_RETURN_IF_ERROR(finite({d.low(), d.high()}));
      if (d.low() > d.high()) {
        return Bad(where, path,
                   absl::StrCat("uniform low ", g(d.low()), " must be <= high ", g(d.high())));
      }
      return absl::OkStatus();
    }
    case Uncertain::kTriangular: {
      const Triangular& d = u.triangular();
      DCPLAN_RETURN_IF_ERROR(finite({d.low(), d.mode(), d.high()}));
      if (!(d.low() <= d.mode() && d.mode() <= d.high())) {
        return Bad(where, path,
                   absl::StrCat("triangular needs low <= mode <= high, got ", g(d.low()), ", ",
                                g(d.mode()), ", ", g(d.high())));
      }
      return absl::OkStatus();
    }
    case Uncertain::kNormal: {
      const Normal& d = u.normal();
      DCPLAN_RETURN_IF_ERROR(finite({d.mean(), d.sd()}));
      if (d.sd() < 0)
        return Bad(where, path, absl::StrCat("normal sd must be >= 0, got ", g(d.sd())));
      return absl::OkStatus();
    }
    case Uncertain::kLognormal: {
      const Lognormal& d = u.lognormal();
      DCPLAN_RETURN_IF_ERROR(finite({d.median(), d.sigma()}));
      if (d.median() <= 0) {
        return Bad(where, path, absl::StrCat("lognormal median must be > 0, got ", g(d.median())));
      }
      if (d.sigma() < 0) {
        return Bad(where, path, absl::StrCat("lognormal sigma must be >= 0, got ", g(d.sigma())));
      }
      return absl::OkStatus();
    }
    case Uncertain::kDiscrete: {
      const Discrete& d = u.discrete();
      if (d.values_size() < 1 || d.values_size() > kMaxDiscreteValues) {
        return Bad(where, path,
                   absl::StrCat("discrete needs 1 to ", kMaxDiscreteValues, " values, got ",
                                d.values_size()));
      }
      double sum = 0;
      for (const DiscreteValue& v : d.values()) {
        DCPLAN_RETURN_IF_ERROR(finite({v.value(), v.probability()}));
        if (v.probability() <= 0) {
          return Bad(where, path,
                     absl::StrCat("discrete probability of ", g(v.value()), " must be > 0, got ",
                                  g(v.probability())));
        }
        sum += v.probability();
      }
      if (std::abs(sum - 1) > 1e-6) {
        return Bad(where, path, absl::StrCat("discrete probabilities must sum to 1, got ", g(sum)));
      }
      return absl::OkStatus();
    }
    default:
      return Bad(where, path, "no distribution given");
  }
}

absl::StatusOr<UncertainInput> ResolveUncertain(const Uncertain& u, absl::string_view where) {
  auto field = ResolveField(u.path());
  if (!field.ok()) {
    return WithFieldPath(
        absl::InvalidArgumentError(absl::StrCat(where, ": ", field.status().message())), where);
  }
  if (!field->numeric()) return Bad(where, field->path, "not a numeric field");
  UncertainInput in;
  in.field = *std::move(field);
  in.spec = u;
  in.spec.set_path(in.field.path);
  if (u.distribution_case() == Uncertain::kText) {
    absl::Status parsed = ParseDistribution(in.field, u.text(), &in.spec);
    if (!parsed.ok()) {
      return WithFieldPath(absl::InvalidArgumentError(absl::StrCat(where, ": ", parsed.message())),
                           where);
    }
  }
  DCPLAN_RETURN_IF_ERROR(CheckUncertain(in, where));
  if (in.spec.has_discrete()) {
    auto* values = in.spec.mutable_discrete()->mutable_values();
    std::stable_sort(
        values->begin(), values->end(),
        [](const DiscreteValue& a, const DiscreteValue& b) { return a.value() < b.value(); });
  }
  return in;
}

double UncertainInput::Quantile(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  double x = 0;
  switch (spec.distribution_case()) {
    case Uncertain::kUniform:
      x = spec.uniform().low() + u * (spec.uniform().high() - spec.uniform().low());
      break;
    case Uncertain::kTriangular: {
      const double a = spec.triangular().low(), c = spec.triangular().mode(),
                   b = spec.triangular().high();
      if (b == a) {
        x = a;
      } else if (u < (c - a) / (b - a)) {
        x = a + std::sqrt(u * (b - a) * (c - a));
      } else {
        x = b - std::sqrt((1 - u) * (b - a) * (b - c));
      }
      break;
    }
    case Uncertain::kNormal:
    case Uncertain::kLognormal: {
      const bool log = spec.has_lognormal();
      const double mu = log ? std::log(spec.lognormal().median()) : spec.normal().mean();
      const double sd = log ? spec.lognormal().sigma() : spec.normal().sd();
      if (sd == 0) {
        x = log ? spec.lognormal().median() : mu;
        break;
      }
      // Standardized ends: the field's range, and never beyond 9 sd.
      auto z = [&](double v) {
        if (log) v = v > 0 ? std::log(v) : -std::numeric_limits<double>::infinity();
        return std::clamp((v - mu) / sd, -9.0, 9.0);
      };
      const double za = z(range_low), zb = z(range_high);
      const double pa = NormalCdf(za), pb = NormalCdf(zb);
      const double p = pa + u * (pb - pa);
      double zz = p <= pa ? za : p >= pb ? zb : std::clamp(NormalQuantile(p), za, zb);
      x = mu + sd * zz;
      if (log) x = std::exp(x);
      x = std::clamp(x, range_low, range_high);
      break;
    }
    case Uncertain::kDiscrete: {
      const auto& values = spec.discrete().values();
      double cum = 0;
      x = values[values.size() - 1].value();
      for (const DiscreteValue& v : values) {
        cum += v.probability();
        if (u <= cum) {
          x = v.value();
          break;
        }
      }
      break;
    }
    default:
      return 0;
  }
  if (WholeNumber(field.leaf())) x = std::round(x);
  return x;
}

std::vector<double> UncertainInput::ValuesToCheck() const {
  switch (spec.distribution_case()) {
    case Uncertain::kNormal:
      return {spec.normal().mean()};
    case Uncertain::kLognormal:
      return {spec.lognormal().median()};
    case Uncertain::kDiscrete: {
      std::vector<double> v;
      for (const DiscreteValue& d : spec.discrete().values()) v.push_back(d.value());
      return v;
    }
    default:
      return {Low(), High()};
  }
}

}  // namespace dcplan

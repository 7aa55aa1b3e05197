// File: planner/sweep/monte_carlo.cc
#include "planner/sweep/monte_carlo.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "google/protobuf/descriptor.h"
#include "planner/mfu_error.h"
#include "planner/model.h"
#include "planner/power_limit_search.h"
#include "planner/request_edit.h"
#include "planner/solver.h"
#include "planner/training.h"
#include "planner/validate.h"
#include "units/units.h"

namespace dcplan {
namespace {

using google::protobuf::FieldDescriptor;

constexpr const char* kOutputNames[kNumSampleOutputs] = {"gpu_count",
                                                         "realized_flops_per_second",
                                                         "it_power_watts",
                                                         "facility_power_watts",
                                                         "capex_usd",
                                                         "tco_usd",
                                                         "usd_per_gpu_hour",
                                                         "mfu",
                                                         "time_to_train_seconds",
                                                         "goodput"};

// What a sampled field touches in the typed model (planner/model.cc's builders that read it).
enum Patch : uint32_t {
  kPatchCaps = 1,    // constraints.*: BuildCapsModel
  kPatchSite = 2,    // site.pue, site.annual_pue: BuildSiteModel, then the caps (they read it)
  kPatchCosts = 4,   // costs.*: BuildCostModel
  kPatchPrices = 8,  // accelerator and server prices: BuildAcceleratorModel, BuildServerModel
  kRebuild = 16,     // anything else: BuildModel
};

uint32_t PatchOf(const std::string& path) {
  if (absl::StartsWith(path, "constraints.")) return kPatchCaps;
  if (path == "site.pue" || path == "site.annual_pue") return kPatchSite;
  if (absl::StartsWith(path, "costs.")) return kPatchCosts;
  if (path == "hardware.accelerator.price_usd" || path == "hardware.server.price_usd" ||
      path == "hardware.server.non_gpu_price_usd") {
    return kPatchPrices;
  }
  return kRebuild;
}

// SplitMix64's finalizer: a counter-based stream, so draw (sample, input) needs no state.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double PerUnit(double total, double per) {
  if (!(per > 0)) return 0.0;
  const double q = total / per;
  return std::isfinite(q) ? q : 0.0;
}

// The valid range of `in`'s field around its centre, out to 9 sd: the validator's verdict on the
// request with the value set, the ends found by bisection.
void FindRange(const PlanRequest& probe, UncertainInput* in) {
  const bool log = in->spec.has_lognormal();
  if (!log && !in->spec.has_normal()) return;
  const double center = log ? in->spec.lognormal().median() : in->spec.normal().mean();
  const double sd = log ? in->spec.lognormal().sigma() : in->spec.normal().sd();
  if (sd == 0) return;
  PlanRequest p = probe;
  auto valid = [&](double v) {
    return SetNumber(in->field, v, &p).ok() && ValidateRequest(p).ok();
  };
  auto end = [&](double far) {
    if (valid(far)) return far;
    double good = center, bad = far;
    for (int i = 0; i < 80 && good != bad; ++i) {
      const double mid = good + (bad - good) / 2;
      if (mid == good || mid == bad) break;
      (valid(mid) ? good : bad) = mid;
    }
    return good;
  };
  const double lo = log ? center * std::exp(-9 * sd) : center - 9 * sd;
  const double hi = log ? center * std::exp(9 * sd) : center + 9 * sd;
  in->range_low = end(lo);
  in->range_high = end(hi);
}

// A direct setter for the fields samples most often vary (SetNumber walks the schema by
// reflection, a measurable share of a sample's time); null for the others.
using DirectSetter = void (*)(double, PlanRequest*);
DirectSetter DirectSetterOf(const std::string& path) {
  if (path == "site.pue") return [](double v, PlanRequest* r) { r->mutable_site()->set_pue(v); };
  if (path == "costs.electricity_usd_per_kwh") {
    return [](double v, PlanRequest* r) { r->mutable_costs()->set_electricity_usd_per_kwh(v); };
  }
  if (path == "constraints.power_cap_watts") {
    return [](double v, PlanRequest* r) { r->mutable_constraints()->set_power_cap_watts(v); };
  }
  if (path == "constraints.budget_usd") {
    return [](double v, PlanRequest* r) { r->mutable_constraints()->set_budget_usd(v); };
  }
  if (path == "hardware.accelerator.price_usd") {
    return [](double v, PlanRequest* r) {
      r->mutable_hardware()->mutable_accelerator()->set_price_usd(v);
    };
  }
  if (path == "hardware.server.price_usd") {
    return
        [](double v, PlanRequest* r) { r->mutable_hardware()->mutable_server()->set_price_usd(v); };
  }
  return nullptr;
}

}  // namespace

const char* OutputName(int output) {
  return output >= 0 && output < kNumSampleOutputs ? kOutputNames[output] : "";
}

namespace {

// The Plan field a Distributions name stands for.
const char* PlanPathOf(absl::string_view name) {
  static const std::pair<const char*, const char*> kPaths[] = {
      {"gpu_count", "counts.gpu_count"},
      {"realized_flops_per_second", "compute.realized_flops_per_second"},
      {"it_power_watts", "power.it_power_watts"},
      {"facility_power_watts", "power.facility_power_watts"},
      {"capex_usd", "cost.capex_usd"},
      {"tco_usd", "cost.tco_usd"},
      {"usd_per_gpu_hour", "cost.usd_per_gpu_hour"},
      {"mfu", "compute.mfu"},
      {"time_to_train_seconds", "training.time_to_train_seconds"},
      {"goodput", "training.goodput"},
  };
  for (const auto& [n, p] : kPaths) {
    if (name == n) return p;
  }
  return nullptr;
}

absl::Status NoSuchOutput(absl::string_view name) {
  return absl::InvalidArgumentError(
      absl::StrCat("no output \"", name, "\"; outputs are ",
                   absl::StrJoin(kOutputNames, kOutputNames + kNumSampleOutputs, ", "),
                   " or a numeric Plan field by path (cost.energy_usd_per_year)"));
}

// The numeric leaf of Plan at `path`, walking messages (null when there is none).
const FieldDescriptor* PlanLeaf(absl::string_view path,
                                std::vector<const FieldDescriptor*>* chain) {
  const google::protobuf::Descriptor* d = Plan::descriptor();
  const FieldDescriptor* f = nullptr;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (d == nullptr) return nullptr;
    f = d->FindFieldByName(std::string(part));
    if (f == nullptr || f->is_repeated()) return nullptr;
    chain->push_back(f);
    d = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? f->message_type() : nullptr;
  }
  if (f == nullptr || f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ||
      f->cpp_type() == FieldDescriptor::CPPTYPE_STRING ||
      f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM ||
      f->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
    return nullptr;
  }
  return f;
}

}  // namespace

absl::Status CheckOutputName(absl::string_view name) {
  const char* path = PlanPathOf(name);
  std::vector<const FieldDescriptor*> chain;
  if (PlanLeaf(path != nullptr ? path : name, &chain) == nullptr) return NoSuchOutput(name);
  return absl::OkStatus();
}

absl::StatusOr<double> PlanOutput(const Plan& plan, absl::string_view name) {
  const char* path = PlanPathOf(name);
  std::vector<const FieldDescriptor*> chain;
  const FieldDescriptor* leaf = PlanLeaf(path != nullptr ? path : name, &chain);
  if (leaf == nullptr) return NoSuchOutput(name);
  const google::protobuf::Message* m = &plan;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    m = &m->GetReflection()->GetMessage(*m, chain[i]);
  }
  const google::protobuf::Reflection* r = m->GetReflection();
  switch (leaf->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return r->GetDouble(*m, leaf);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return r->GetFloat(*m, leaf);
    case FieldDescriptor::CPPTYPE_INT32:
      return r->GetInt32(*m, leaf);
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<double>(r->GetInt64(*m, leaf));
    case FieldDescriptor::CPPTYPE_UINT32:
      return r->GetUInt32(*m, leaf);
    case FieldDescriptor::CPPTYPE_UINT64:
      return static_cast<double>(r->GetUInt64(*m, leaf));
    default:
      return NoSuchOutput(name);
  }
}

MonteCarloPool::MonteCarloPool(const MonteCarloOptions& options) : pool_(options.pool) {
  if (pool_ == nullptr) {
    own_ = std::make_unique<ThreadPool>(options.threads);
    pool_ = own_.get();
  }
}
MonteCarloPool::~MonteCarloPool() = default;
absl::Status MonteCarloPool::status() const { return pool_->status(); }

absl::Status CheckMonteCarloWork(int64_t runs, int64_t samples, absl::string_view runs_text,
                                 absl::string_view what, absl::string_view advice) {
  const double work = static_cast<double>(runs) * static_cast<double>(samples);
  if (work > static_cast<double>(kMaxMonteCarloWork)) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s x monte_carlo.samples (%d) = %.4g %s, more than 10^8: %s", runs_text,
                        samples, work, what, advice));
  }
  return absl::OkStatus();
}

Percentiles SummarizeValues(std::vector<double>* values) {
  Percentiles p;
  const size_t n = values->size();
  if (n == 0) return p;
  auto rank = [&](double q) {
    // Nearest rank: the ceil(q n)-th smallest.
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
    k = std::clamp<size_t>(k, 1, n) - 1;
    std::nth_element(values->begin(), values->begin() + k, values->end());
    return (*values)[k];
  };
  p.set_p10(rank(0.1));
  p.set_p50(rank(0.5));
  p.set_p90(rank(0.9));
  double sum = 0, lo = (*values)[0], hi = (*values)[0];
  for (double v : *values) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  p.set_mean(sum / static_cast<double>(n));
  p.set_min(lo);
  p.set_max(hi);
  return p;
}

// ------------------------------------------------------------------------------------------------

struct MonteCarloRun::Impl {
  PlanRequest median;  // every input at its median, uncertain and monte_carlo cleared
  std::vector<UncertainInput> inputs;
  int64_t samples = 0;
  uint64_t seed = 0;
  uint64_t seed_key = 0;
  uint32_t patch = 0;                 // the union of the inputs' Patch kinds
  std::vector<DirectSetter> setters;  // per input, or null
  Model model;                        // built from `median`
  bool workload = false;
  // The efficiency model's own error (planner/mfu_error.h): each sample's MFU is multiplied by
  // exp(mfu_sigma Z), Z drawn from its own stream (key mfu_key); 0 = not sampled.
  double mfu_sigma = 0;
  std::string mfu_basis;
  uint64_t mfu_key = 0;

  // The MFU factor of sample `sample` (before the cap at MFU 1).
  double MfuFactor(int64_t sample) const {
    if (mfu_sigma == 0) return 1.0;
    const uint64_t h = Mix(mfu_key ^ static_cast<uint64_t>(sample));
    const double u = (static_cast<double>(h >> 11) + 0.5) * 0x1p-53;
    return std::exp(mfu_sigma * NormalQuantileApprox(u));
  }

  double RawDraw(int64_t sample, int input) const {
    const uint64_t h =
        Mix(seed_key ^ (static_cast<uint64_t>(sample) * kMaxUncertainInputs + input));
    return (static_cast<double>(h >> 11) + 0.5) * 0x1p-53;
  }

  // Rank correlations (monte_carlo.correlations) through a Gaussian copula: the inputs in a pair
  // with a non-zero rank (`correlated`, by input index) get z = L x, x their independent normals
  // and L the Cholesky factor (lower, row-major, correlated.size() squared) of their Pearson
  // matrix; every other input keeps its raw draw.
  std::vector<int> correlated;
  std::vector<double> cholesky;

  // Every input's draw u in (0, 1) for sample `sample`, into u[0 .. inputs.size()).
  void Draws(int64_t sample, double* u) const {
    for (size_t j = 0; j < inputs.size(); ++j) u[j] = RawDraw(sample, static_cast<int>(j));
    if (correlated.empty()) return;
    const size_t k = correlated.size();
    double x[kMaxUncertainInputs];
    for (size_t a = 0; a < k; ++a) x[a] = NormalQuantile(u[correlated[a]]);
    for (size_t a = 0; a < k; ++a) {
      double z = 0;
      for (size_t b = 0; b <= a; ++b) z += cholesky[a * k + b] * x[b];
      // The standard normal's CDF, kept inside (0, 1).
      const double v = 0.5 * std::erfc(-z / std::sqrt(2.0));
      u[correlated[a]] = std::clamp(v, 0x1p-60, 1 - 0x1p-53);
    }
  }

  double Draw(int64_t sample, int input) const {
    if (correlated.empty()) return RawDraw(sample, input);
    double u[kMaxUncertainInputs];
    Draws(sample, u);
    return u[input];
  }

  // A worker's own request, model and caches.
  struct Worker {
    PlanRequest request;
    Model model;
    Solution solution;
    int64_t guess = -1;
  };

  // Per GPU count: time to train and goodput, shared by every worker (patched samples only: they
  // never change them). Each value is a function of the count alone, so the order in which
  // workers fill it changes nothing.
  mutable absl::Mutex training_mu;
  mutable std::unordered_map<int64_t, std::pair<double, double>> training
      ABSL_GUARDED_BY(training_mu);

  bool TrainingAt(const Model& m, int64_t gpus, std::pair<double, double>* out) const {
    const bool cache = !(patch & kRebuild);
    if (cache) {
      absl::MutexLock lock(&training_mu);
      auto it = training.find(gpus);
      if (it != training.end()) {
        *out = it->second;
        return true;
      }
    }
    // Only two figures are read: the search may skip what cannot be the best (the same plan).
    auto t = PlanTraining(m, gpus, /*cluster_sets_dp=*/true, SearchMode::kBestOnly);
    if (!t.ok()) return false;
    *out = {t->time_to_train_seconds(), t->goodput()};
    if (cache) {
      absl::MutexLock lock(&training_mu);
      training.emplace(gpus, *out);
    }
    return true;
  }

  void Solve(int64_t i, int64_t fixed_gpus, Worker& w, SampleResult* out) const {
    *out = SampleResult();
    double u[kMaxUncertainInputs];
    Draws(i, u);
    for (size_t j = 0; j < inputs.size(); ++j) {
      const double v = inputs[j].Quantile(u[j]);
      if (setters[j] != nullptr) {
        setters[j](v, &w.request);
      } else if (!SetNumber(inputs[j].field, v, &w.request).ok()) {
        return;
      }
    }
    Model& m = w.model;
    if (patch & kRebuild) {
      auto built = BuildModel(w.request);
      if (!built.ok()) return;
      m = *std::move(built);
    } else {
      const PlanRequest& r = w.request;
      if (patch & kPatchPrices) {
        const Provisioning& prov = r.site().provisioning();
        m.accelerator = BuildAcceleratorModel(r.hardware().accelerator(), prov);
        m.server = BuildServerModel(r.hardware().server(), m.accelerator, prov);
      }
      if (patch & kPatchSite) {
        auto site = BuildSiteModel(r.site());
        if (!site.ok()) return;
        m.site = *site;
      }
      if (patch & kPatchCosts) m.costs = BuildCostModel(r.costs(), r.site().cooling());
      if ((patch & (kPatchSite | kPatchCaps)) && fixed_gpus == 0) {
        auto caps = BuildCapsModel(r.constraints(), m.site);
        if (!caps.ok()) return;
        m.caps = *caps;
      }
    }
    // Scale (fixed_gpus > 0): the cluster of exactly that size, whatever the caps; else the solve.
    if (fixed_gpus > 0) {
      w.solution.eval = EvaluateCluster(m, fixed_gpus);
      w.solution.binding = BINDING_CONSTRAINT_UNSPECIFIED;
    } else {
      if (!SolveInto(m, w.guess, &w.solution).ok()) return;
      w.guess = w.solution.servers;
    }
    const Solution& s = w.solution;
    const ClusterEval& e = s.eval;
    auto& o = out->outputs;
    o[kOutGpuCount] = static_cast<double>(e.gpus);
    o[kOutRealizedFlopsPerSecond] = units::InFlopsPerSecond(e.realized);
    o[kOutItPowerWatts] = units::InWatts(e.it_power);
    o[kOutFacilityPowerWatts] = units::InWatts(e.facility_power);
    o[kOutCapexUsd] = units::InUsd(e.capex);
    o[kOutTcoUsd] = units::InUsd(e.tco);
    o[kOutUsdPerGpuHour] =
        PerUnit(units::InUsd(e.tco), static_cast<double>(e.gpus) * units::InHours(m.costs.horizon));
    o[kOutMfu] = units::InFraction(e.mfu);
    if (workload && e.gpus > 0) {
      std::pair<double, double> t;
      if (!TrainingAt(m, e.gpus, &t)) return;
      o[kOutTimeToTrainSeconds] = t.first;
      o[kOutGoodput] = t.second;
    }
    if (mfu_sigma > 0 && o[kOutMfu] > 0) {
      // The same model times a factor: the size the solver chose is still the best (G x MFU(G) x f
      // peaks where G x MFU(G) does), every FLOP/s scales by f and the time to train by 1 / f.
      const double f = std::min(MfuFactor(i), 1.0 / o[kOutMfu]);
      o[kOutMfu] *= f;
      o[kOutRealizedFlopsPerSecond] *= f;
      o[kOutTimeToTrainSeconds] /= f;
    }
    out->binding = s.binding;
    out->ok = true;
  }
};

// Resolves monte_carlo.correlations into impl->correlated and impl->cholesky.
absl::Status MonteCarloRun::SetUpCorrelations(const MonteCarlo& mc, Impl* impl) {
  const int n = static_cast<int>(impl->inputs.size());
  std::vector<double> pearson(static_cast<size_t>(n) * n, 0.0);
  std::vector<bool> involved(n, false);
  std::vector<bool> given(static_cast<size_t>(n) * n, false);
  auto index_of = [&](int i, const char* side, const std::string& path) -> absl::StatusOr<int> {
    const std::string where = absl::StrCat("monte_carlo.correlations[", i, "].", side);
    auto field = ResolveField(path);
    if (!field.ok())
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", field.status().message()));
    for (int j = 0; j < n; ++j) {
      if (impl->inputs[j].field.path == field->path) return j;
    }
    return absl::InvalidArgumentError(absl::StrCat(where, " (", field->path,
                                                   ") is not an uncertain input: give it an "
                                                   "uncertain distribution first"));
  };
  for (int i = 0; i < mc.correlations_size(); ++i) {
    const Correlation& c = mc.correlations(i);
    if (!(c.rank() >= -1 && c.rank() <= 1)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "monte_carlo.correlations[%d].rank must be in [-1, 1], got %g", i, c.rank()));
    }
    DCPLAN_ASSIGN_OR_RETURN(int a, index_of(i, "a", c.a()));
    DCPLAN_ASSIGN_OR_RETURN(int b, index_of(i, "b", c.b()));
    if (a == b) {
      return absl::InvalidArgumentError(absl::StrCat("monte_carlo.correlations[", i,
                                                     "]: a and b are the same input (",
                                                     impl->inputs[a].field.path, ")"));
    }
    if (given[a * n + b]) {
      return absl::InvalidArgumentError(
          absl::StrCat("monte_carlo.correlations[", i, "]: the pair ", impl->inputs[a].field.path,
                       ", ", impl->inputs[b].field.path, " is given twice"));
    }
    given[a * n + b] = given[b * n + a] = true;
    const double r = 2 * std::sin(M_PI * c.rank() / 6);
    if (c.rank() != 0) {
      pearson[a * n + b] = pearson[b * n + a] = r;
      involved[a] = involved[b] = true;
    }
  }
  for (int j = 0; j < n; ++j) {
    if (involved[j]) impl->correlated.push_back(j);
  }
  const size_t k = impl->correlated.size();
  if (k == 0) return absl::OkStatus();
  std::vector<double>& l = impl->cholesky;
  l.assign(k * k, 0.0);
  for (size_t a = 0; a < k; ++a) {
    for (size_t b = 0; b <= a; ++b) {
      double sum = a == b ? 1.0 : pearson[impl->correlated[a] * n + impl->correlated[b]];
      for (size_t m = 0; m < b; ++m) sum -= l[a * k + m] * l[b * k + m];
      if (a == b) {
        if (!(sum > 1e-12)) {
          return absl::InvalidArgumentError(
              "monte_carlo.correlations: the correlation matrix is not positive definite (the "
              "ranks contradict one another, or one is +-1); weaken them");
        }
        l[a * k + a] = std::sqrt(sum);
      } else {
        l[a * k + b] = sum / l[b * k + b];
      }
    }
  }
  return absl::OkStatus();
}

MonteCarloRun::MonteCarloRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MonteCarloRun::MonteCarloRun(MonteCarloRun&&) noexcept = default;
MonteCarloRun& MonteCarloRun::operator=(MonteCarloRun&&) noexcept = default;
MonteCarloRun::~MonteCarloRun() = default;

absl::StatusOr<MonteCarloRun> MonteCarloRun::Create(const PlanRequest& request) {
  if (request.uncertain_size() == 0) {
    return absl::InvalidArgumentError("no uncertain input: give at least one uncertain entry");
  }
  DCPLAN_RETURN_IF_ERROR(ValidateRequest(request));
  auto impl = std::make_unique<Impl>();
  const MonteCarlo& mc = request.monte_carlo();
  impl->samples = static_cast<int64_t>(mc.has_samples() ? mc.samples() : kDefaultMonteCarloSamples);
  impl->seed = mc.has_seed() ? mc.seed() : kDefaultMonteCarloSeed;
  impl->seed_key = Mix(impl->seed);
  PlanRequest probe = request;
  probe.clear_uncertain();
  probe.clear_monte_carlo();
  for (int i = 0; i < request.uncertain_size(); ++i) {
    DCPLAN_ASSIGN_OR_RETURN(
        UncertainInput in,
        ResolveUncertain(request.uncertain(i), absl::StrCat("uncertain[", i, "]")));
    FindRange(probe, &in);
    impl->patch |= PatchOf(in.field.path);
    impl->setters.push_back(DirectSetterOf(in.field.path));
    impl->inputs.push_back(std::move(in));
  }
  DCPLAN_RETURN_IF_ERROR(SetUpCorrelations(mc, impl.get()));
  impl->median = std::move(probe);
  for (const UncertainInput& in : impl->inputs) {
    DCPLAN_RETURN_IF_ERROR(SetNumber(in.field, in.Quantile(0.5), &impl->median));
  }
  DCPLAN_RETURN_IF_ERROR(RefuseAutoPowerLimit(impl->median, "uncertainty sampling"));
  DCPLAN_ASSIGN_OR_RETURN(impl->model, BuildModel(impl->median));
  impl->workload = impl->model.workload != nullptr;
  if (!mc.has_model_mfu_error() || mc.model_mfu_error()) {
    const MfuErrorSpread spread = MfuErrorFor(impl->median);
    impl->mfu_sigma = spread.sigma;
    impl->mfu_basis = spread.basis;
    impl->mfu_key = Mix(impl->seed_key ^ 0x6d66755f6572726fULL);  // "mfu_erro": its own stream
  }
  return MonteCarloRun(std::move(impl));
}

int64_t MonteCarloRun::samples() const { return impl_->samples; }
uint64_t MonteCarloRun::seed() const { return impl_->seed; }
const std::vector<UncertainInput>& MonteCarloRun::inputs() const { return impl_->inputs; }
bool MonteCarloRun::patched() const { return !(impl_->patch & kRebuild); }
const PlanRequest& MonteCarloRun::median_request() const { return impl_->median; }
double MonteCarloRun::Draw(int64_t sample, int input) const { return impl_->Draw(sample, input); }
double MonteCarloRun::mfu_error_sigma() const { return impl_->mfu_sigma; }
double MonteCarloRun::MfuFactor(int64_t sample) const { return impl_->MfuFactor(sample); }
double MonteCarloRun::InputValue(int64_t sample, int input) const {
  return impl_->inputs[input].Quantile(impl_->Draw(sample, input));
}

PlanRequest MonteCarloRun::RequestAt(int64_t sample) const {
  PlanRequest r = impl_->median;
  for (size_t j = 0; j < impl_->inputs.size(); ++j) {
    SetNumber(impl_->inputs[j].field, InputValue(sample, static_cast<int>(j)), &r).IgnoreError();
  }
  return r;
}

void MonteCarloRun::SolveSamples(int64_t first, absl::Span<SampleResult> out,
                                 int64_t fixed_gpus) const {
  Impl::Worker w{impl_->median, impl_->model, Solution(), -1};
  for (size_t k = 0; k < out.size(); ++k) {
    impl_->Solve(first + static_cast<int64_t>(k), fixed_gpus, w, &out[k]);
  }
}

absl::Status MonteCarloRun::Run(
    const MonteCarloOptions& options,
    absl::FunctionRef<absl::Status(int64_t first, absl::Span<const SampleResult>)> consume) const {
  const MonteCarloPool holder(options);
  ThreadPool* pool = holder.get();
  const int64_t n = impl_->samples;
  const int64_t block = std::max<int64_t>(1, options.block_samples);
  std::vector<SampleResult> rows(static_cast<size_t>(std::min(n, block)));
  for (int64_t first = 0; first < n; first += block) {
    const int64_t count = std::min(block, n - first);
    if (options.check) DCPLAN_RETURN_IF_ERROR(options.check());
    pool->ParallelFor(count, 512, [&](int64_t b, int64_t e) {
      SolveSamples(first + b, absl::MakeSpan(rows.data() + b, static_cast<size_t>(e - b)),
                   options.fixed_gpus);
    });
    DCPLAN_RETURN_IF_ERROR(consume(first, absl::MakeConstSpan(rows.data(), count)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Distributions> MonteCarloRun::Summarize(const MonteCarloOptions& options) const {
  std::vector<std::vector<double>> values(kNumSampleOutputs);
  for (auto& v : values) v.reserve(static_cast<size_t>(impl_->samples));
  std::unordered_map<int, int64_t> binding;
  int64_t failed = 0;
  DCPLAN_RETURN_IF_ERROR(Run(options, [&](int64_t, absl::Span<const SampleResult> rows) {
    for (const SampleResult& r : rows) {
      if (!r.ok) {
        ++failed;
        continue;
      }
      for (int k = 0; k < kNumSampleOutputs; ++k) values[k].push_back(r.outputs[k]);
      ++binding[r.binding];
    }
    return absl::OkStatus();
  }));
  if (failed == impl_->samples) {
    // Say why, from the first sample.
    auto plan_status = ValidateRequest(RequestAt(0));
    return absl::FailedPreconditionError(
        absl::StrCat("no sample has a plan", plan_status.ok() ? "" : ": ", plan_status.message()));
  }
  Distributions d;
  d.set_samples(static_cast<uint64_t>(impl_->samples));
  d.set_seed(impl_->seed);
  d.set_failed_samples(static_cast<uint64_t>(failed));
  if (impl_->mfu_sigma > 0) {
    d.set_mfu_error_sigma(impl_->mfu_sigma);
    d.set_mfu_error_basis(impl_->mfu_basis);
  }
  const google::protobuf::Descriptor* desc = Distributions::descriptor();
  for (int k = 0; k < kNumSampleOutputs; ++k) {
    if (!impl_->workload && (k == kOutTimeToTrainSeconds || k == kOutGoodput)) continue;
    const FieldDescriptor* f = desc->FindFieldByName(kOutputNames[k]);
    d.GetReflection()->MutableMessage(&d, f)->CopyFrom(SummarizeValues(&values[k]));
  }
  std::vector<std::pair<int, int64_t>> shares(binding.begin(), binding.end());
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  const double ok = static_cast<double>(impl_->samples - failed);
  for (const auto& [b, count] : shares) {
    if (options.fixed_gpus > 0) break;  // scale: no cap applies
    BindingShare* s = d.add_binding();
    s->set_binding_constraint(BindingConstraint_Name(static_cast<BindingConstraint>(b)));
    s->set_fraction(static_cast<double>(count) / ok);
  }
  return d;
}

}  // namespace dcplan

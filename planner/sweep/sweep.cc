// File: planner/sweep/sweep.cc
#include "planner/sweep/sweep.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/large_buffer.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "google/protobuf/descriptor.h"
#include "planner/mfu_model.h"
#include "planner/model.h"
#include "planner/power_limit_search.h"
#include "planner/presets/presets.h"
#include "planner/reference_mfu.h"
#include "planner/solver.h"
#include "planner/sweep/request_fields.h"
#include "planner/validate.h"

namespace dcplan {
namespace {

using google::protobuf::FieldDescriptor;

// The fields a sweep patches into the typed model instead of rebuilding it.
enum class Fast { kNone, kPowerCap, kPue, kElectricity, kMaxGpus, kBudget };

Fast FastFieldOf(absl::string_view path) {
  if (path == "constraints.power_cap_watts") return Fast::kPowerCap;
  if (path == "site.pue") return Fast::kPue;
  if (path == "costs.electricity_usd_per_kwh") return Fast::kElectricity;
  if (path == "constraints.max_gpus") return Fast::kMaxGpus;
  if (path == "constraints.budget_usd") return Fast::kBudget;
  return Fast::kNone;
}

// Sets the field `f` of the point's request to `v` (the proto's number) and re-runs the builder
// of planner/model.h that reads it, so the patched model is what BuildModel would make (sweep_test
// checks every one against a rebuilt model).
absl::Status Patch(Fast f, double v, PlanRequest* r, Model* m) {
  switch (f) {
    case Fast::kPowerCap:
      r->mutable_constraints()->set_power_cap_watts(v);
      break;
    case Fast::kMaxGpus:
      r->mutable_constraints()->set_max_gpus(static_cast<uint64_t>(v));
      break;
    case Fast::kBudget:
      r->mutable_constraints()->set_budget_usd(v);
      break;
    case Fast::kPue:
      r->mutable_site()->set_pue(v);
      break;
    case Fast::kElectricity:
      r->mutable_costs()->set_electricity_usd_per_kwh(v);
      break;
    case Fast::kNone:
      return absl::OkStatus();
  }
  switch (f) {
    case Fast::kPue:
      // Of the site model only the peak PUE and the annual PUE derived from it read site.pue
      // (SetPeakPue is BuildSiteModel's own step), and the caps read the site's substation alone.
      SetPeakPue(v, &m->site);
      return absl::OkStatus();
    case Fast::kElectricity:
      m->costs = BuildCostModel(r->costs(), r->site().cooling());
      return absl::OkStatus();
    default:
      DCPLAN_ASSIGN_OR_RETURN(m->caps, BuildCapsModel(r->constraints(), m->site));
      return absl::OkStatus();
  }
}

void FillRow(const ClusterEval& e, BindingConstraint binding, SweepRow* row) {
  row->status = absl::OkStatus();
  row->gpus = e.gpus;
  row->servers = e.servers;
  row->racks = e.racks;
  row->pods = e.pods;
  row->buildings = e.buildings;
  row->it_power = e.it_power;
  row->facility_power = e.facility_power;
  row->peak = e.peak;
  row->mfu = e.mfu;
  row->realized = e.realized;
  row->capex = e.capex;
  row->opex_rate = e.opex_rate;
  row->tco = e.tco;
  row->binding = binding;
}

void FillRow(const Solution& s, SweepRow* row) { FillRow(s.eval, s.binding, row); }

// Whether patching `f` changes the model's clusters' evaluations (not only its caps).
bool ChangesEvaluations(Fast f) { return f == Fast::kPue || f == Fast::kElectricity; }

void FailRow(absl::Status status, SweepRow* row) {
  *row = SweepRow();
  row->status = std::move(status);
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Sweep
// ------------------------------------------------------------------------------------------------

struct Sweep::Impl {
  // Whether one value of a patched axis is valid; decided once per value before solving.
  enum class Check : uint8_t { kValid, kInvalid, kUnknown };
  // The validator's errors of a patched axis' invalid values, by value index (most values are
  // valid: a Status per value would be a million writes and page faults on a long axis).
  using ValueErrors = absl::flat_hash_map<size_t, absl::Status>;

  PlanRequest base;
  std::vector<SweepAxis> axes;
  PresetLoader load_preset;
  std::vector<std::vector<const FieldDescriptor*>> chains;  // per axis; empty for the preset axis
  std::vector<int64_t> strides;                             // point / stride % size = index
  std::vector<int64_t> sizes;  // per axis (SweepAxis::size compares the path each call)
  std::vector<Fast> fast;      // per axis
  int preset_axis = -1;
  int64_t size = 1;

  int64_t IndexAlong(int64_t point, int axis) const {
    return (point / strides[axis]) % sizes[axis];
  }

  // The combination of the axes that are not patched (their indices as one number).
  int64_t ComboOf(int64_t point, bool patch) const {
    int64_t combo = 0;
    for (size_t a = 0; a < axes.size(); ++a) {
      if (patch && fast[a] != Fast::kNone) continue;
      combo = combo * sizes[a] + IndexAlong(point, static_cast<int>(a));
    }
    return combo;
  }

  absl::StatusOr<PlanRequest> StartOf(int64_t point) const {
    if (preset_axis < 0) return base;
    const std::string& name = axes[preset_axis].presets[IndexAlong(point, preset_axis)];
    return load_preset(name);
  }

  // The request of `point` with every axis set (patched ones too when `all`), else with the patched
  // axes at `stand_in` values (valid ones, so the model builds; they are patched over).
  absl::StatusOr<PlanRequest> RequestFor(int64_t point, bool all,
                                         const std::vector<double>* stand_in) const {
    DCPLAN_ASSIGN_OR_RETURN(PlanRequest r, StartOf(point));
    for (size_t a = 0; a < axes.size(); ++a) {
      if (static_cast<int>(a) == preset_axis) continue;
      double v;
      if (all || fast[a] == Fast::kNone) {
        v = axes[a].values[IndexAlong(point, static_cast<int>(a))];
      } else {
        v = (*stand_in)[a];
      }
      DCPLAN_RETURN_IF_ERROR(SetRequestField(chains[a], axes[a].path, v, &r));
    }
    return r;
  }

  // Checks value i of patched axis `a`, set into `r` (a copy of a valid start): valid, invalid
  // (with the validator's error, which names the field), or unknown (an error about another field).
  Check CheckValue(int a, size_t i, PlanRequest* r, absl::Status* error) const {
    absl::Status set = SetRequestField(chains[a], axes[a].path, axes[a].values[i], r);
    absl::Status valid = set.ok() ? ValidateRequest(*r) : set;
    // The patched power cap means nothing when the cap is at the substation: as BuildModel says.
    if (valid.ok() && fast[a] == Fast::kPowerCap) valid = CheckPowerCapPlace(r->constraints());
    if (valid.ok()) return Check::kValid;
    if (!set.ok() || absl::StartsWith(valid.message(), axes[a].path)) {
      *error = std::move(valid);
      return Check::kInvalid;
    }
    return Check::kUnknown;
  }

  // Checks every value of patched axis `a` against `start`. Every patched field's requirement in
  // proto/request.proto is a range (power_cap_watts >= 0, pue in [1, 5], ...), so its valid values
  // are one interval: on a long axis the interval's ends are found by bisection over the values in
  // order, every value outside it is checked (for its message), and 64 spread inside it are checked
  // as well. Should any of those disagree with the interval, every value is checked.
  void CheckValues(int a, const PlanRequest& start, ThreadPool& pool, std::vector<Check>* checks,
                   ValueErrors* errors) const {
    const std::vector<double>& v = axes[a].values;
    const size_t n = v.size();
    auto check_all = [&] {
      std::mutex mu;
      pool.ParallelFor(static_cast<int64_t>(n), 1024, [&](int64_t b, int64_t e) {
        PlanRequest r = start;
        ValueErrors found;
        for (int64_t i = b; i < e; ++i) {
          absl::Status error;
          (*checks)[i] = CheckValue(a, i, &r, &error);
          if ((*checks)[i] == Check::kInvalid) found[static_cast<size_t>(i)] = std::move(error);
        }
        std::lock_guard<std::mutex> lock(mu);
        for (auto& [i, error] : found) (*errors)[i] = std::move(error);
      });
    };
    if (n <= 4096) return check_all();
    // The values in ascending order: their own order when sorted (no index array to fill).
    const bool sorted = std::is_sorted(v.begin(), v.end());
    std::vector<size_t> order;
    if (!sorted) {
      order.resize(n);
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    }
    auto index = [&](size_t k) { return sorted ? k : order[k]; };
    PlanRequest r = start;
    std::vector<int8_t> known(n, 0);  // checked already
    auto at = [&](size_t k) {         // the check of the k-th smallest value
      const size_t i = index(k);
      if (!known[i]) {
        absl::Status error;
        (*checks)[i] = CheckValue(a, i, &r, &error);
        if ((*checks)[i] == Check::kInvalid) (*errors)[i] = std::move(error);
        known[i] = 1;
      }
      return (*checks)[i];
    };
    // A valid value to start from.
    size_t inside = n;
    for (size_t k : {n / 2, size_t{0}, n - 1, n / 4, 3 * n / 4}) {
      const Check c = at(k);
      if (c == Check::kUnknown) return check_all();
      if (c == Check::kValid) {
        inside = k;
        break;
      }
    }
    if (inside == n) return check_all();
    // The interval's ends: the first and the last valid value in order.
    size_t lo = 0, hi = inside;  // first valid in [lo, hi]
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (at(mid) == Check::kValid)
        hi = mid;
      else
        lo = mid + 1;
    }
    const size_t first = lo;
    lo = inside, hi = n - 1;  // last valid in [lo, hi]
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (at(mid) == Check::kValid)
        lo = mid;
      else
        hi = mid - 1;
    }
    const size_t last = lo;
    const size_t stride = std::max<size_t>(1, (last - first) / 64);
    for (size_t k = 0; k < n; ++k) {
      const bool in = k >= first && k <= last;
      if (!in || (k - first) % stride == 0) {
        if (at(k) != (in ? Check::kValid : Check::kInvalid)) return check_all();
      } else {
        (*checks)[index(k)] = Check::kValid;
      }
    }
  }

  void SolveSlow(int64_t point, SweepRow* row) const {
    auto request = RequestFor(point, /*all=*/true, nullptr);
    if (!request.ok()) return FailRow(request.status(), row);
    auto model = BuildModel(*request);
    if (!model.ok()) return FailRow(model.status(), row);
    auto solution = Solve(*model);
    if (!solution.ok()) return FailRow(solution.status(), row);
    FillRow(*solution, row);
  }

  // What Run works out once before solving: each patched value's check, the axes by kind and the
  // steps along the innermost axis.
  struct RunPlan;
  RunPlan PlanRun(bool patch, ThreadPool& pool) const;
  // Searches up front, on every thread, the reference-MFU table entries the points will read
  // (ReferenceMfuModel::Prefill); returns how many.
  int PrefillReference(const RunPlan& plan, ThreadPool& pool) const;
  // Solves the points of one chunk with a worker's own models and guesses.
  class ChunkSolver;
};

Sweep::Sweep(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Sweep::Sweep(Sweep&&) noexcept = default;
Sweep& Sweep::operator=(Sweep&&) noexcept = default;
Sweep::~Sweep() = default;

absl::StatusOr<Sweep> Sweep::Create(PlanRequest base, std::vector<SweepAxis> axes,
                                    PresetLoader load_preset) {
  DCPLAN_RETURN_IF_ERROR(RefuseAutoPowerLimit(base, "a sweep"));
  auto impl = std::make_unique<Impl>();
  impl->base = std::move(base);
  impl->load_preset = load_preset ? std::move(load_preset)
                                  : [](absl::string_view name) { return LoadPreset(name); };
  if (axes.empty()) return absl::InvalidArgumentError("a sweep needs at least one axis");
  double points = 1;
  for (size_t a = 0; a < axes.size(); ++a) {
    const SweepAxis& axis = axes[a];
    for (size_t b = 0; b < a; ++b) {
      if (axes[b].path == axis.path) {
        return absl::InvalidArgumentError(absl::StrCat(axis.path, " is swept twice"));
      }
    }
    if (axis.size() == 0) return absl::InvalidArgumentError(absl::StrCat(axis.path, ": no values"));
    points *= static_cast<double>(axis.size());
    if (axis.is_preset()) {
      impl->preset_axis = static_cast<int>(a);
      impl->chains.emplace_back();
      impl->fast.push_back(Fast::kNone);
      for (const std::string& name : axis.presets) {
        auto loaded = impl->load_preset(name);
        if (!loaded.ok()) return loaded.status();
      }
      continue;
    }
    DCPLAN_ASSIGN_OR_RETURN(std::vector<const FieldDescriptor*> chain,
                            ResolveRequestField(axis.path));
    impl->chains.push_back(std::move(chain));
    impl->fast.push_back(FastFieldOf(axis.path));
  }
  if (points > static_cast<double>(kMaxSweepPoints)) {
    return absl::OutOfRangeError(absl::StrFormat(
        "the grid has %.0f points; a sweep may have at most %d", points, kMaxSweepPoints));
  }
  impl->axes = std::move(axes);
  impl->size = static_cast<int64_t>(points);
  impl->strides.assign(impl->axes.size(), 1);
  for (const SweepAxis& axis : impl->axes) impl->sizes.push_back(axis.size());
  for (int a = static_cast<int>(impl->axes.size()) - 2; a >= 0; --a) {
    impl->strides[a] = impl->strides[a + 1] * impl->sizes[a + 1];
  }
  return Sweep(std::move(impl));
}

int64_t Sweep::size() const { return impl_->size; }
const std::vector<SweepAxis>& Sweep::axes() const { return impl_->axes; }
int64_t Sweep::IndexAlong(int64_t point, int axis) const { return impl_->IndexAlong(point, axis); }

absl::StatusOr<PlanRequest> Sweep::RequestAt(int64_t point) const {
  if (point < 0 || point >= impl_->size) {
    return absl::OutOfRangeError(
        absl::StrCat("point ", point, " is outside the grid of ", impl_->size, " points"));
  }
  return impl_->RequestFor(point, /*all=*/true, nullptr);
}

struct Sweep::Impl::RunPlan {
  bool patch = true;
  int inner = 0;  // the innermost axis
  // Per patched axis and value: valid, invalid (with the validator's error) or unknown.
  std::vector<std::vector<Check>> checks;
  std::vector<ValueErrors> errors;
  // Per patched axis, a valid value that stands in for it while a model is built.
  std::vector<double> stand_in;
  // The axes by kind, and their sizes, so that the inner loop looks nothing up.
  std::vector<int> fast_axes, slow_axes;
  std::vector<int64_t> sizes;
  // The innermost axis' values when it is patched (the guesses extrapolate in them), else null.
  const std::vector<double>* inner_values = nullptr;

  // How much further point i is from point i - 1 along the innermost axis than that one from
  // i - 2 (1 in steps when the axis is not patched, and for i < 2).
  double Ratio(int64_t i) const {
    if (inner_values == nullptr || i < 2) return 1.0;
    const std::vector<double>& v = *inner_values;
    return (v[i] - v[i - 1]) / (v[i - 1] - v[i - 2]);
  }
};

Sweep::Impl::RunPlan Sweep::Impl::PlanRun(bool patch, ThreadPool& pool) const {
  const size_t n_axes = axes.size();
  RunPlan plan;
  plan.patch = patch;

  // The values of every patched axis are checked by the validator, set into a request that is
  // valid without them: an error that names the field is the value's. When no such request is at
  // hand (the start is itself invalid) a value is "unknown" and its points are solved the slow way,
  // request by request.
  plan.checks.resize(n_axes);
  plan.errors.resize(n_axes);
  plan.stand_in.assign(n_axes, 0.0);
  if (patch) {
    auto start = StartOf(0);
    for (size_t a = 0; a < n_axes; ++a) {
      if (fast[a] == Fast::kNone) continue;
      const std::vector<double>& values = axes[a].values;
      plan.checks[a].assign(values.size(), Check::kUnknown);
      if (!start.ok() || !ValidateRequest(*start).ok()) continue;
      CheckValues(static_cast<int>(a), *start, pool, &plan.checks[a], &plan.errors[a]);
      // A valid value stands in for the axis while the model is built; none: every point fails.
      for (size_t i = 0; i < values.size(); ++i) {
        if (plan.checks[a][i] == Check::kValid) {
          plan.stand_in[a] = values[i];
          break;
        }
      }
    }
  }

  plan.sizes.resize(n_axes);
  for (size_t a = 0; a < n_axes; ++a) {
    (fast[a] != Fast::kNone ? plan.fast_axes : plan.slow_axes).push_back(static_cast<int>(a));
    plan.sizes[a] = axes[a].size();
  }

  // Neighbouring points have neighbouring answers: the next answer is extrapolated from the last
  // two along the innermost axis, in its values when it is patched (a log-spaced power axis then
  // extrapolates exactly where the answer is proportional to the power), else in steps.
  plan.inner = static_cast<int>(n_axes) - 1;
  if (fast[plan.inner] != Fast::kNone) plan.inner_values = &axes[plan.inner].values;
  return plan;
}

// A reference workload's MFU table (planner/reference_mfu.h) fills as the solves meet its sizes,
// one entry (a parallelism search, milliseconds) at a time, and the threads that need an entry
// being searched wait for it: a cold sweep over a reference preset ran its table on about one
// core. When every axis is patched (caps, PUE, prices) the points share one model, and under the
// most-GPUs objective their GPU counts do not read MFU: a sample of the points (up to 2,048, spread
// over the grid) is solved with a constant MFU for the sizes they land on, and the entries those
// read are searched first, on every thread. A hint only: entries it misses fill as before, and the
// table is the same either way.
int Sweep::Impl::PrefillReference(const RunPlan& plan, ThreadPool& pool) const {
  if (!plan.patch || !plan.slow_axes.empty() || preset_axis >= 0 || pool.size() < 2) return 0;
  auto request = RequestFor(0, /*all=*/false, &plan.stand_in);
  if (!request.ok()) return 0;
  absl::StatusOr<Model> built = BuildModel(*request);
  if (!built.ok() || built->reference == nullptr ||
      built->caps.objective == OBJECTIVE_MAX_REALIZED_COMPUTE) {
    return 0;
  }
  Model& model = *built;
  const std::shared_ptr<const ReferenceMfuModel> reference = std::move(model.reference);
  model.mfu = std::make_shared<const ConstantMfuModel>(0.5);  // read by no GPU count here
  const int64_t stride = std::max<int64_t>(1, size / 2048);
  std::vector<int64_t> gpus;
  Solution solution;
  int64_t guess = -1;
  for (int64_t p = 0; p < size; p += stride) {
    bool valid = true;
    for (int a : plan.fast_axes) {
      const int64_t i = IndexAlong(p, a);
      valid = valid && plan.checks[a][i] == Check::kValid &&
              Patch(fast[a], axes[a].values[i], &*request, &model).ok();
    }
    if (!valid || !SolveInto(model, guess, &solution).ok()) continue;
    guess = solution.servers;
    gpus.push_back(solution.eval.gpus);
  }
  return reference->Prefill(gpus, pool);
}

class Sweep::Impl::ChunkSolver {
 public:
  ChunkSolver(const Impl& s, const RunPlan& plan) : s_(s), plan_(plan) {
    cache_.reserve(kCacheEntries);
  }

  // Solves points first .. end - 1 into rows[0 .. end - first - 1].
  void Solve(int64_t first, int64_t end, SweepRow* rows) {
    const size_t n_axes = s_.axes.size();
    std::vector<int64_t> idx(n_axes);
    for (size_t a = 0; a < n_axes; ++a) idx[a] = s_.IndexAlong(first, static_cast<int>(a));
    for (int64_t p = first; p < end; ++p) {
      SolvePoint(p, idx, &rows[p - first]);
      // The next point: the last axis moves fastest.
      for (int a = static_cast<int>(n_axes) - 1; a >= 0; --a) {
        if (++idx[a] < plan_.sizes[a]) break;
        idx[a] = 0;
      }
    }
  }

 private:
  // A model, by combination of the axes that are not patched, with the last answers found under
  // it (the next point's guess).
  struct Entry {
    int64_t combo = -1;
    absl::StatusOr<Model> model = absl::UnknownError("not built");
    // The request the model was built from; the patched fields are set on it.
    PlanRequest request;
    // The last two answers (server counts) under this model, and where they were along the
    // innermost axis.
    int64_t last = -1, before = -1;
    int64_t last_at = -2, before_at = -2;
    // Per axis, the index of the value patched into the model and request (-1: none yet, the
    // stand-in): a value is applied only when it changes.
    std::vector<int64_t> applied;
    // The clusters of `at_servers` and one more server, fully evaluated under the model (-1: none).
    // Evaluations do not read the caps: while only caps change from point to point, the answer is
    // usually the same cluster or a neighbour, told by AnswersAt without a search.
    int64_t at_servers = -1;
    ClusterEval at, above;
    bool above_ready = false;
    // Whether the last try of those was right (off: the answers jump, the try costs evaluations).
    bool neighbours_hit = false;
  };
  // Neighbours tried per point beyond the last answer before searching.
  static constexpr int kNeighbourShifts = 2;
  static constexpr size_t kCacheEntries = 8;

  // The model for the unpatched axes' combination `combo`: cached, else built (evicting the
  // oldest of kCacheEntries).
  Entry& EntryFor(int64_t combo, int64_t p) {
    for (Entry& e : cache_) {
      if (e.combo == combo) return e;
    }
    Entry* entry = nullptr;
    if (cache_.size() < kCacheEntries) {
      entry = &cache_.emplace_back();
    } else {
      entry = &cache_[evict_];
      evict_ = (evict_ + 1) % kCacheEntries;
      *entry = Entry();
    }
    entry->combo = combo;
    entry->applied.assign(s_.axes.size(), -1);
    auto request = s_.RequestFor(p, /*all=*/false, &plan_.stand_in);
    entry->model = request.ok() ? BuildModel(*request) : request.status();
    if (request.ok()) entry->request = *std::move(request);
    return *entry;
  }

  // Solves point `p`, whose index along each axis is idx[axis].
  void SolvePoint(int64_t p, const std::vector<int64_t>& idx, SweepRow* row) {
    if (!plan_.patch) return s_.SolveSlow(p, row);
    // The patched axes' values first: an invalid one is the point's error, an unknown one sends
    // the point the slow way.
    bool unknown = false;
    for (int a : plan_.fast_axes) {
      const Check check = plan_.checks[a][idx[a]];
      if (check == Check::kInvalid) {
        return FailRow(plan_.errors[a].at(static_cast<size_t>(idx[a])), row);
      }
      unknown |= check == Check::kUnknown;
    }
    if (unknown) return s_.SolveSlow(p, row);
    int64_t combo = 0;
    for (int a : plan_.slow_axes) combo = combo * plan_.sizes[a] + idx[a];
    Entry& entry = EntryFor(combo, p);
    if (!entry.model.ok()) return FailRow(entry.model.status(), row);
    Model& model = *entry.model;
    bool reevaluate = false;
    for (int a : plan_.fast_axes) {
      if (entry.applied[a] == idx[a]) continue;
      entry.applied[a] = -1;
      reevaluate |= ChangesEvaluations(s_.fast[a]);
      absl::Status patched = Patch(s_.fast[a], s_.axes[a].values[idx[a]], &entry.request, &model);
      if (!patched.ok()) {
        entry.at_servers = -1;
        return FailRow(std::move(patched), row);
      }
      entry.applied[a] = idx[a];
    }
    if (reevaluate && entry.at_servers >= 0) {
      // A new PUE or electricity price moves only the facility power and the money: the kept
      // clusters are brought to the new model instead of searched again (bit for bit the same).
      ReevaluateSite(model, &entry.at);
      if (entry.above_ready) ReevaluateSite(model, &entry.above);
    }
    const int64_t at = idx[plan_.inner];
    if (SolveByNeighbours(model, entry, row)) {
      entry.neighbours_hit = true;
      Remember(entry, entry.at_servers, at);
      return;
    }
    int64_t guess = entry.last;
    if (entry.last_at == at - 1 && entry.before_at == at - 2) {
      const double g = static_cast<double>(entry.last) +
                       static_cast<double>(entry.last - entry.before) * plan_.Ratio(at);
      guess = g >= 0 && g < 1e15 ? static_cast<int64_t>(g + 0.5) : -1;  // also NaN
    }
    absl::Status solved = SolveInto(model, guess, &solution_);
    if (!solved.ok()) return FailRow(std::move(solved), row);
    FillRow(solution_, row);
    // The next point tries this answer and its neighbours when the answers repeat.
    const bool repeated = solution_.servers == entry.last;
    Remember(entry, solution_.servers, at);
    entry.neighbours_hit = entry.neighbours_hit || repeated;
    if (entry.neighbours_hit && model.caps.objective != OBJECTIVE_MAX_REALIZED_COMPUTE) {
      // Kept only when the next point will try it (the copy is a share of a jumping sweep's time;
      // AnswersAt never answers the compute objective).
      entry.at_servers = solution_.servers;
      entry.at = solution_.eval;
      entry.above_ready = false;
    } else {
      entry.at_servers = -1;
    }
  }

  static void Remember(Entry& entry, int64_t servers, int64_t at) {
    entry.before = entry.last;
    entry.before_at = entry.last_at;
    entry.last = servers;
    entry.last_at = at;
  }

  // Solves the point from the entry's evaluations when the answer is the last one or within
  // kNeighbourShifts servers of it (AnswersAt), moving them along; false when it is not (or the
  // answers have been jumping), and the point is searched. Never under the compute objective:
  // AnswersAt does not answer it, so SolvePoint keeps no evaluations then.
  bool SolveByNeighbours(const Model& model, Entry& entry, SweepRow* row) {
    if (entry.at_servers < 0 || (!entry.neighbours_hit && !entry.above_ready)) return false;
    const int64_t gps = model.server.gpus;
    if (!entry.above_ready) {
      entry.above = EvaluateCluster(model, (entry.at_servers + 1) * gps);
      entry.above_ready = true;
    }
    for (int shift = 0;; ++shift) {
      uint32_t broken = 0;
      if (AnswersAt(model, entry.at_servers, entry.at, entry.above, &broken)) {
        FillRow(entry.at, FirstBrokenCap(broken), row);
        return true;
      }
      if (shift == kNeighbourShifts) break;
      // The answer is above when `above` fits (caps only: the objective is MAX_GPUS here), below
      // when `at` does not.
      if (BrokenCaps(model, entry.above) == 0) {
        std::swap(entry.at, entry.above);
        ++entry.at_servers;
        entry.above = EvaluateCluster(model, (entry.at_servers + 1) * gps);
      } else if (BrokenCaps(model, entry.at) != 0 && entry.at_servers > 0) {
        std::swap(entry.at, entry.above);
        --entry.at_servers;
        entry.at = EvaluateCluster(model, entry.at_servers * gps);
      } else {
        break;
      }
    }
    entry.neighbours_hit = false;
    return false;
  }

  const Impl& s_;
  const RunPlan& plan_;
  std::vector<Entry> cache_;
  size_t evict_ = 0;
  Solution solution_;
};

absl::Status Sweep::Run(
    const SweepOptions& options,
    absl::FunctionRef<absl::Status(int64_t, absl::Span<const SweepRow>)> consume) const {
  const Impl& s = *impl_;
  std::unique_ptr<ThreadPool> own_pool;
  if (options.pool == nullptr) own_pool = std::make_unique<ThreadPool>(options.threads);
  ThreadPool& pool = options.pool != nullptr ? *options.pool : *own_pool;
  DCPLAN_RETURN_IF_ERROR(pool.status());
  const Impl::RunPlan plan = s.PlanRun(options.patch_models, pool);
  s.PrefillReference(plan, pool);

  // Blocks of points in grid order; each block in chunks on every thread. A chunk takes a
  // ChunkSolver (models, requests and guesses) another chunk has finished with, or makes one: a
  // model built from its request for every chunk of 2,048 points was ~2% of a large grid's time.
  // Which one a chunk gets does not change its rows (the search is exact whatever the guesses,
  // and a patched value is applied whenever it differs from the model's).
  const int64_t block = std::max<int64_t>(1, options.block_points);
  const int64_t chunk = options.chunk_points > 0
                            ? options.chunk_points
                            : std::max<int64_t>(256, block / (16 * pool.size()));
  // A block of rows is ~9 MB: mapped in huge pages (base/large_buffer.h), not faulted in 4 KiB at
  // a time as the first block is solved.
  std::vector<SweepRow, LargeAllocator<SweepRow>> rows(
      static_cast<size_t>(std::min(block, s.size)));
  std::mutex solvers_mu;
  std::vector<std::unique_ptr<Impl::ChunkSolver>> solvers;  // free ones
  for (int64_t first = 0; first < s.size; first += block) {
    const int64_t n = std::min(block, s.size - first);
    pool.ParallelFor(n, chunk, [&](int64_t b, int64_t e) {
      std::unique_ptr<Impl::ChunkSolver> solver;
      {
        std::lock_guard<std::mutex> lock(solvers_mu);
        if (!solvers.empty()) {
          solver = std::move(solvers.back());
          solvers.pop_back();
        }
      }
      if (solver == nullptr) solver = std::make_unique<Impl::ChunkSolver>(s, plan);
      solver->Solve(first + b, first + e, rows.data() + b);
      {
        std::lock_guard<std::mutex> lock(solvers_mu);
        solvers.push_back(std::move(solver));
      }
      if (options.on_chunk) {
        options.on_chunk(first + b, static_cast<int>(b / chunk),
                         absl::MakeConstSpan(rows.data() + b, static_cast<size_t>(e - b)));
      }
    });
    DCPLAN_RETURN_IF_ERROR(consume(first, absl::MakeConstSpan(rows.data(), n)));
  }
  return absl::OkStatus();
}

}  // namespace dcplan

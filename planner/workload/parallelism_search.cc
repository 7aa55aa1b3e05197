// File: planner/workload/parallelism_search.cc
#include "planner/workload/parallelism_search.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "base/numbers.h"

namespace dcplan {
namespace {

constexpr int64_t kMaxVirtualStages = 8;
// Context-parallel degrees searched: powers of two up to this (Llama 3 trains 131,072-token
// sequences with cp 16). A larger fixed cp is evaluated as given.
constexpr int64_t kMaxSearchedCp = 32;
// Context parallelism is searched only for sequences this long or longer: below it the activations
// of one sequence fit a tensor-parallel group and splitting it only adds ring traffic (Llama 3 ran
// 8,192-token sequences with cp 1 and 131,072 with cp 16). A cp given by the workload is always
// evaluated.
constexpr int64_t kMinSeqLenForCp = 16384;

// Data-parallel degrees tried per (tp, pp): the largest, and smaller ones down to 1/16 of it.
constexpr int kMaxDpCandidates = 16;
constexpr int64_t kDpWindow = 16;
constexpr int kMaxBatchDivisorCandidates = 8;

// The divisors of the global batch, ascending (trial division up to its square root: at most 10^6
// steps for the largest batch the validator allows), computed once per search.
std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

// Fills `out` with dp_max, then the powers of two and the largest divisors of the batch below it
// down to dp_max / kDpWindow, distinct and descending. Returns how many.
int DpCandidates(int64_t dp_max, const std::vector<int64_t>& batch_divisors,
                 std::array<int64_t, kMaxDpCandidates>* out) {
  int n = 0;
  auto add = [&](int64_t dp) {
    if (n >= kMaxDpCandidates || dp < 1 || dp > dp_max) return;
    for (int i = 0; i < n; ++i) {
      if ((*out)[i] == dp) return;
    }
    (*out)[n++] = dp;
  };
  add(dp_max);
  const int64_t floor_dp = std::max<int64_t>(1, dp_max / kDpWindow);
  // Divisors of the batch: every replica gets the same number of sequences.
  auto it = std::upper_bound(batch_divisors.begin(), batch_divisors.end(), dp_max);
  for (int k = 0; k < kMaxBatchDivisorCandidates && it != batch_divisors.begin(); ++k) {
    --it;
    if (*it < floor_dp) break;
    add(*it);
  }
  int64_t p2 = 1;
  while (p2 * 2 <= dp_max) p2 *= 2;
  for (; p2 >= floor_dp; p2 /= 2) add(p2);
  std::sort(out->begin(), out->begin() + n, std::greater<int64_t>());
  return n;
}

double InGigabytes(units::Data d) { return units::InBytes(d) / 1e9; }

// The pipeline depths searched: every depth up to 128 (uneven splits included, as Llama 3 405B's
// 126 layers over 16 stages), and beyond that the divisors of the layer count and the powers of
// two, so the search stays small for any layer count.
constexpr int64_t kEveryDepthUpTo = 128;
bool IsPipelineCandidate(int64_t pp, int64_t layers) {
  return pp <= kEveryDepthUpTo || layers % pp == 0 || (pp & (pp - 1)) == 0;
}

// The fixed fields that can be checked before searching.
absl::Status CheckFixed(const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus) {
  if (gpus < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the cluster needs at least one GPU to train on, got %d", gpus));
  }
  if (w.fixed_tp > 0) {
    if (w.heads % w.fixed_tp != 0 || w.ffn_hidden % w.fixed_tp != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "workload.parallelism.tp %d must divide workload.heads (%d) and the ffn hidden size (%d)",
          w.fixed_tp, w.heads, w.ffn_hidden));
    }
    if (w.fixed_tp > hw.scale_up_gpus) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "workload.parallelism.tp %d is larger than the scale-up domain of %d GPUs "
          "(hardware.network.scale_up_domain_gpus)",
          w.fixed_tp, hw.scale_up_gpus));
    }
  }
  if (w.fixed_pp > w.layers) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism.pp %d must be at most workload.layers (%d)", w.fixed_pp, w.layers));
  }
  if (w.fixed_pp > 1 && w.fixed_virtual_stages > MaxVirtualStages(w.layers, w.fixed_pp)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism: pp x virtual_stages = %d x %d must be at most workload.layers "
        "(%d)%s",
        w.fixed_pp, w.fixed_virtual_stages, w.layers,
        w.fixed_pp > 2 ? " + 2 (the first and last chunk may hold only the embedding or the output "
                         "layer)"
                       : ""));
  }
  if (w.fixed_cp > 0 && w.seq_len % w.fixed_cp != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism.cp %d must divide workload.seq_len (%d)", w.fixed_cp, w.seq_len));
  }
  if (w.fixed_pp == 1 && w.fixed_virtual_stages > 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism.virtual_stages %d needs pipeline parallelism (pp > 1), got pp 1",
        w.fixed_virtual_stages));
  }
  if (w.fixed_dp > w.global_batch) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism.dp %d is larger than the global batch of %d sequences: some "
        "replicas would have no data",
        w.fixed_dp, w.global_batch));
  }
  const int64_t tp = std::max<int64_t>(w.fixed_tp, 1);
  const int64_t pp = std::max<int64_t>(w.fixed_pp, 1);
  const int64_t dp = std::max<int64_t>(w.fixed_dp, 1);
  const int64_t cp = std::max<int64_t>(w.fixed_cp, 1);
  if (w.fixed_ep > 1 && w.fixed_dp > 0 && w.fixed_dp % w.fixed_ep != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism.ep %d must divide workload.parallelism.dp (%d): the expert-parallel "
        "ranks are data-parallel replicas",
        w.fixed_ep, w.fixed_dp));
  }
  // In floating point: the fixed degrees may multiply past int64 before they are compared.
  const double product = static_cast<double>(tp) * static_cast<double>(cp) *
                         static_cast<double>(pp) * static_cast<double>(dp);
  // cp left unset counts as 1 when tp, pp and dp are all fixed: the product then leaves no room.
  if (w.fixed_tp > 0 && w.fixed_pp > 0 && w.fixed_dp > 0) {
    if (product != static_cast<double>(gpus)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "workload.parallelism: tp x cp x pp x dp = %d x %d x %d x %d = %.0f must equal the GPU "
          "count %d",
          tp, cp, pp, dp, product, gpus));
    }
  } else if (product > static_cast<double>(gpus)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "workload.parallelism: the fixed degrees (tp %d, cp %d, pp %d, dp %d) need %.0f GPUs, more "
        "than the cluster's %d",
        tp, cp, pp, dp, product, gpus));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t LargestUsefulGpus(const WorkloadModel& w, const TrainingHardware& hw, std::string* why) {
  int64_t tp = w.fixed_tp;
  if (tp == 0) {
    for (int64_t t = 1; t <= hw.scale_up_gpus; ++t) {
      if (w.heads % t == 0 && w.ffn_hidden % t == 0 &&
          (w.kv_heads % t == 0 || t % w.kv_heads == 0)) {
        tp = t;
      }
    }
  }
  tp = std::max<int64_t>(tp, 1);
  int64_t cp = w.fixed_cp;
  if (cp == 0) {
    cp = 1;
    if (w.seq_len >= kMinSeqLenForCp) {
      while (cp * 2 <= kMaxSearchedCp && w.seq_len % (cp * 2) == 0) cp *= 2;
    }
  }
  const int64_t pp = w.fixed_pp > 0 ? w.fixed_pp : w.layers;
  const int64_t dp = w.global_batch;  // the cluster sets dp: a fixed dp does not limit it
  // In floating point: the product may pass int64.
  const double g = static_cast<double>(tp) * static_cast<double>(cp) * static_cast<double>(pp) *
                   static_cast<double>(dp);
  if (why != nullptr) {
    *why = absl::StrFormat(
        "at most tp %d x cp %d x pp %d (%s) x dp %d (the global batch of %d sequences, one per "
        "replica) GPUs can be busy",
        tp, cp, pp, w.fixed_pp > 0 ? "as given" : "one layer per stage", dp, w.global_batch);
  }
  return g >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(g);
}

namespace {

// What the search has found so far.
struct SearchState {
  // What every estimate works out from the workload and the hardware alone, worked out once.
  StepModel model;
  SearchResult best;
  bool have = false;
  // For the error message when nothing fits.
  units::Data least = units::Bytes(std::numeric_limits<double>::infinity());
  ParallelConfig least_config;
  units::Data usable = units::Bytes(0.0);
  int64_t no_fabric = 0;
  // The layer's kernel times of (tp, cp) for micro-batches b_first x 2^i, worked out on first use:
  // they do not depend on the pipeline depth, the data-parallel degree, the virtual stages or the
  // recomputation, which the search varies inside (tp, cp).
  int64_t kernels_tp = 0, kernels_cp = 0, kernels_b_first = 0;
  std::array<LayerKernels, 64> kernels;
  std::array<bool, 64> have_kernels{};
  // SearchMode::kBestOnly: skip what cannot be faster than the best found (ShapeBound). The
  // bound's part of the stage per recomputation class, l x layer + output layer of kernels[i], is
  // kept beside them.
  bool prune = false;
  // For micro-batches b_first x 2^j, j <= i, per RecomputeClass: the least stage part of the bound
  // per sequence (stage / b) and the least stage; entries below `bounds_ready` are worked out.
  std::array<std::array<units::Time, 3>, 64> least_stage_per_sequence;
  std::array<std::array<units::Time, 3>, 64> least_stage;
  int bounds_ready = 0;

  // Forgets the kernels (and the stage bounds) of another (tp, cp, first micro-batch).
  void KeyKernels(const ParallelConfig& c, int64_t b_first) {
    if (c.tp != kernels_tp || c.cp != kernels_cp || b_first != kernels_b_first) {
      kernels_tp = c.tp;
      kernels_cp = c.cp;
      kernels_b_first = b_first;
      have_kernels.fill(false);
      bounds_ready = 0;
    }
  }

  // With the experts' multiplies of c's ep (a mixture of experts).
  const LayerKernels& KernelsFor(const WorkloadModel& w, const TrainingHardware& hw,
                                 const ParallelConfig& c, int64_t b_first, int i) {
    KeyKernels(c, b_first);
    if (!have_kernels[i]) {
      kernels[i] = EstimateLayerKernels(w, hw, c.tp, c.cp, c.micro_batch);
      have_kernels[i] = true;
    }
    if (w.moe.enabled && kernels[i].experts_ep != c.ep) {
      AddExpertKernels(w, hw, c.tp, c.ep, kernels[i]);
    }
    return kernels[i];
  }
};

constexpr Recompute kRecomputes[] = {RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_PARTIAL,
                                     RECOMPUTE_FULL};

// Estimates one configuration and keeps it if it is the fastest yet. False when it does not fit in
// memory: memory grows with the micro-batch, so larger ones need not be tried.
inline bool Evaluate(const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus,
                     const ParallelConfig& c, const LayerKernels& kernels,
                     const GroupFigures& group, SearchState& st,
                     int64_t* recomputed_layers = nullptr) {
  SearchResult& best = st.best;
  // Only the memory of a configuration that does not fit is needed.
  const StepEstimate e = EstimateStepIfItFits(st.model, c, gpus, kernels, group);
  if (recomputed_layers != nullptr) *recomputed_layers = e.recomputed_layers;
  ++best.evaluated;
  if (!e.Feasible()) {
    if (e.infeasible == Infeasible::kNoScaleOut) {
      ++st.no_fabric;
      return true;
    }
    if (e.memory < st.least) {
      st.least = e.memory;
      st.least_config = c;
      st.usable = e.memory_usable;
    }
    return false;  // memory grows with the micro-batch
  }
  ++best.feasible;
  if (!st.have || e.step < best.estimate.step) {
    st.have = true;
    best.config = c;
    best.estimate = e;
  }
  return true;
}

// The micro-batches SearchMicroBatches tries, b_first x 2^i up to b_last (the fixed one alone when
// the workload fixes it; per_rank: sequences per replica), and the most virtual stages it tries for
// pp stages; ShapeBound bounds exactly those.
inline int64_t FirstMicroBatch(const WorkloadModel& w) {
  return w.fixed_micro_batch > 0 ? w.fixed_micro_batch : 1;
}
inline int64_t LastMicroBatch(const WorkloadModel& w, int64_t per_rank) {
  return w.fixed_micro_batch > 0 ? w.fixed_micro_batch : per_rank;
}
inline int64_t MostVirtualStages(const WorkloadModel& w, int64_t pp) {
  return w.fixed_virtual_stages > 0
             ? w.fixed_virtual_stages
             : std::min<int64_t>(kMaxVirtualStages, MaxVirtualStages(w.layers, pp));
}

// The recomputation modes as the step's layer time sees them: none and partial (whose reruns come
// after, in AddRerun) run one forward and keep their memory-bound time; selective and full
// recomputation rerun the attention core, and full the multiplies too.
int RecomputeClass(Recompute r) {
  return r == RECOMPUTE_FULL ? 2 : (r == RECOMPUTE_SELECTIVE ? 1 : 0);
}

// A lower bound on the steps of `shape`'s configurations (a dense model: a mixture of experts'
// kernels depend on ep, and it is never pruned). EstimateStep's step is m x (stage + p2p) + bubble
// + exposed data-parallel time + optimizer (+ partial recomputation's reruns), every term >= 0, and
// its bubble is at least (pp - 1) / v x stage. The slowest stage is at least the mean of the pp
// stages, (l x layer + output layer) / pp =: S(b) / pp, and a layer is at least its multiplies,
// attention core and memory-bound time (the tensor-, context- and expert-parallel times are >= 0).
// With micro-batch b, m = ceil(batch / (dp b)) >= batch / (dp b), so for v virtual stages and
// recomputation class r (RecomputeClass), over the micro-batches b tried:
//   step >= (batch / dp x min_b S_r(b) / b + (pp - 1) / v x min_b S_r(b)) / pp.
// The two minimums over b_first x 2^j, j <= i, are kept per (tp, cp) in SearchState (prefix
// minimums, worked out once as far as a shape needs): a shape's check is a few multiplies.
struct ShapeBound {
  int64_t pp = 1;
  double batch_per_replica = 0;  // batch / dp
  int every = 0;                 // micro-batches tried at v = 1: b_first x 2^j, j < every
  int interleaved = 0;           // those leaving at least pp micro-batches (v > 1 tries only them)

  void Prepare(const WorkloadModel& w, const TrainingHardware& hw, const ParallelConfig& shape,
               SearchState& st) {
    pp = shape.pp;
    batch_per_replica = static_cast<double>(w.global_batch) / static_cast<double>(shape.dp);
    const int64_t per_rank = CeilDiv(w.global_batch, shape.dp);
    const int64_t b_first = FirstMicroBatch(w);
    const int64_t b_last = LastMicroBatch(w, per_rank);
    // b_first x 2^j <= b_last; with interleaving also ceil(per_rank / b) >= pp, that is
    // (pp - 1) b < per_rank (SearchMicroBatches stops at the first b that leaves fewer).
    const auto count = [&](int64_t last) {
      return last < b_first ? 0 : 64 - __builtin_clzll(static_cast<uint64_t>(last / b_first));
    };
    every = count(b_last);
    interleaved = pp == 1 ? every : std::min(every, count((per_rank - 1) / (pp - 1)));
    st.KeyKernels(shape, b_first);
    for (int i = st.bounds_ready; i < every; ++i) {
      ParallelConfig c = shape;
      c.micro_batch = b_first << i;
      const LayerKernels& k = st.KernelsFor(w, hw, c, b_first, i);
      const units::Time forward = k.params_scale * k.dense_forward;
      const units::Time backward = k.params_scale * k.dense_backward;
      const units::Time attention = k.attention_forward;
      const units::Time layers[3] = {
          forward + backward + 3.0 * attention + k.layer_memory[0],
          forward + backward + 4.0 * attention + k.layer_memory[1],
          2.0 * forward + backward + 4.0 * attention + k.layer_memory[2],
      };
      const units::Time output = k.output_forward + k.output_backward + k.output_memory;
      for (int r = 0; r < 3; ++r) {
        const units::Time stage = static_cast<double>(w.layers) * layers[r] + output;
        const units::Time per_sequence = stage / static_cast<double>(c.micro_batch);
        st.least_stage[i][r] = i == 0 ? stage : std::min(st.least_stage[i - 1][r], stage);
        st.least_stage_per_sequence[i][r] =
            i == 0 ? per_sequence : std::min(st.least_stage_per_sequence[i - 1][r], per_sequence);
      }
      st.bounds_ready = i + 1;
    }
  }

  // The bound with v virtual stages (with `every`: of every v up to it, over all the micro-batches
  // as v = 1 tries them) and recomputation class r.
  units::Time At(const SearchState& st, bool every_v, int64_t v, int r) const {
    const int n = every_v ? every : interleaved;
    if (n == 0) return units::Seconds(std::numeric_limits<double>::infinity());  // nothing tried
    const double bubble =
        static_cast<double>(pp - 1) / static_cast<double>(std::max<int64_t>(v, 1));
    return (batch_per_replica * st.least_stage_per_sequence[n - 1][r] +
            bubble * st.least_stage[n - 1][r]) /
           static_cast<double>(pp);
  }
};

// Whether the bound rules out what it was worked out for: no step of it can be shorter than the
// best found (its relative margin covers the bound's rounding), so the answer stays the exhaustive
// search's.
inline bool RuledOut(units::Time bound, const SearchState& st) {
  return st.have && bound * (1.0 - 1e-9) >= st.best.estimate.step;
}

// The recomputation modes, virtual stages, ZeRO stages and micro-batches of one (tp, cp, pp, dp)
// in `shape`. ZeRO-3 (FSDP) against the framework's ZeRO-1 at the same point moves the same bytes
// per collective with as many or more collectives, 2 m gathers and m reduce-scatters a step against
// one of each, and no more room to hide them (per micro-batch it must hide one more gather in
// the same passes); its FP8 casts are as many or more; only its memory is smaller. So where ZeRO-1
// fits, ZeRO-3 is never faster, except under partial recomputation when ZeRO-1 recomputes some
// layers (less memory recomputes fewer): it is tried only from the first micro-batch ZeRO-1 does
// not fit, and under partial recomputation also where ZeRO-1 recomputes a layer. The answer is the
// exhaustive search's.
inline void SearchMicroBatches(const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus,
                               const ParallelConfig& shape, const GroupFigures& group,
                               const ShapeBound* bound, SearchState& st) {
  const int64_t pp = shape.pp;
  const int64_t per_rank = CeilDiv(w.global_batch, shape.dp);  // sequences per replica per step
  // ZeRO stages: the fixed one, else the framework's and, where the software offers it, FSDP.
  const int64_t base_zero = w.fixed_zero >= 0 ? w.fixed_zero : w.framework_zero;
  const bool try_fsdp = w.fixed_zero < 0 && w.fsdp_available && base_zero != 3;
  for (Recompute r : kRecomputes) {
    if (w.fixed_recompute != RECOMPUTE_UNSPECIFIED) {
      if (r != w.fixed_recompute) continue;
    } else if (r == RECOMPUTE_SELECTIVE &&
               (w.flash_attention || !w.selective_recompute_available)) {
      // Flash attention already keeps no scores (selective only adds FLOPs); 2021 software has no
      // selective recomputation.
      continue;
    }
    const int64_t v_max = MostVirtualStages(w, pp);
    for (int64_t v = 1; v <= v_max; ++v) {
      if (w.fixed_virtual_stages > 0 && v != w.fixed_virtual_stages) continue;
      // Interleaving tries only the micro-batches that leave at least pp of them (below).
      if (bound != nullptr && st.have &&
          RuledOut(
              bound->At(st, /*every_v=*/v == 1 || w.fixed_virtual_stages > 0, v, RecomputeClass(r)),
              st)) {
        continue;
      }
      const int64_t b_first = FirstMicroBatch(w);
      const int64_t b_last = LastMicroBatch(w, per_rank);
      int base_fit = 0;  // micro-batches b_first x 2^i, i < base_fit, the base stage handled
      // Under partial recomputation, the micro-batches whose base-stage estimate recomputed no
      // layer: ZeRO-3 cannot recompute fewer, so it is not faster there either.
      std::array<bool, 64> no_rerun{};
      for (int pass = 0; pass < (try_fsdp ? 2 : 1); ++pass) {
        const int64_t zero = pass == 0 ? base_zero : 3;
        const int skip = pass == 1 && base_zero == 1 && r != RECOMPUTE_PARTIAL ? base_fit : 0;
        int i = 0;  // b = b_first x 2^i
        for (int64_t b = b_first; b <= b_last; b *= 2, ++i) {
          // Interleaving needs at least pp micro-batches; larger ones only make fewer.
          if (v > 1 && w.fixed_virtual_stages == 0 && CeilDiv(per_rank, b) < pp) break;
          if (i < skip || (pass == 1 && base_zero == 1 && no_rerun[i])) continue;
          ParallelConfig c;
          c.tp = shape.tp;
          c.pp = pp;
          c.dp = shape.dp;
          c.micro_batch = b;
          c.virtual_stages = v;
          c.recompute = r;
          c.cp = shape.cp;
          c.ep = shape.ep;
          c.zero = zero;
          int64_t reruns = 0;
          if (!Evaluate(w, hw, gpus, c, st.KernelsFor(w, hw, c, b_first, i), group, st, &reruns)) {
            break;
          }
          if (pass == 0) {
            base_fit = i + 1;
            no_rerun[i] = r == RECOMPUTE_PARTIAL && reruns == 0;
          }
        }
      }
    }
  }
}

// The data-parallel degrees of one (tp, cp, pp): the most the cluster and the batch allow, and a
// few smaller ones that leave GPUs idle on purpose (powers of two and divisors of the batch, down
// to 1/16 of it): with a small batch on a big cluster, fewer replicas with more micro-batches each
// can beat a pipeline that is mostly bubble.
inline void SearchDataParallel(const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus,
                               const std::vector<int64_t>& batch_divisors, int64_t tp, int64_t cp,
                               int64_t pp, SearchState& st) {
  const int64_t tpc = tp * cp;
  const int64_t dp_max = std::min<int64_t>(gpus / (tpc * pp), w.global_batch);
  if (dp_max < 1) return;
  std::array<int64_t, kMaxDpCandidates> dps;
  ShapeBound bound;  // SearchMode::kBestOnly: each shape's, prepared before it is searched
  const int n_dp =
      w.fixed_dp > 0 ? (dps[0] = w.fixed_dp, 1) : DpCandidates(dp_max, batch_divisors, &dps);
  for (int i_dp = 0; i_dp < n_dp; ++i_dp) {
    ParallelConfig shape;
    shape.tp = tp;
    shape.cp = cp;
    shape.pp = pp;
    shape.dp = dps[i_dp];
    // Skipped when no configuration of it can beat the best found (the bound's relative margin
    // covers its rounding): the answer is the exhaustive search's.
    if (st.prune) {
      bound.Prepare(w, hw, shape, st);
      if (st.have) {
        // Every v up to v_max, every micro-batch (as v = 1 tries them), every class.
        const int64_t v_max = MostVirtualStages(w, pp);
        units::Time least = bound.At(st, /*every_v=*/true, v_max, 0);
        for (int r = 1; r < 3; ++r)
          least = std::min(least, bound.At(st, /*every_v=*/true, v_max, r));
        if (RuledOut(least, st)) continue;
      }
    }
    // What depends on (tp, cp, dp) alone, for every configuration below.
    const GroupFigures group = EstimateGroupFigures(w, hw, tp, cp, shape.dp);
    // Expert parallelism (a mixture of experts only): every ep dividing both dp and the experts
    // (the fixed one when given and it divides dp); the GPUs stay tp x cp x pp x dp.
    const int64_t ep_last = w.moe.enabled ? std::min(shape.dp, w.moe.experts) : 1;
    for (int64_t ep = 1; ep <= ep_last; ++ep) {
      if (w.fixed_ep > 0 ? ep != w.fixed_ep
                         : (ep > 1 && (shape.dp % ep != 0 || w.moe.experts % ep != 0))) {
        continue;
      }
      if (shape.dp % ep != 0) continue;
      shape.ep = ep;
      SearchMicroBatches(w, hw, gpus, shape, group, st.prune ? &bound : nullptr, st);
    }
  }
}

// Why no configuration was found.
absl::Status NothingFits(const WorkloadModel& w, const TrainingHardware& hw, int64_t gpus,
                         const SearchState& st) {
  const SearchResult& best = st.best;
  if (best.evaluated == 0) {
    return absl::FailedPreconditionError(
        absl::StrFormat("workload %s: no parallel configuration on %d GPUs satisfies the fixed "
                        "workload.parallelism fields",
                        w.name.empty() ? "(unnamed)" : w.name, gpus));
  }
  if (st.no_fabric == best.evaluated) {
    return absl::FailedPreconditionError(
        absl::StrFormat("workload %s on %d GPUs spans more than one scale-up domain of %d GPUs, "
                        "but the hardware has "
                        "no scale-out network (hardware.network.nics_per_gpu is 0); set one or use "
                        "--scale_out_gbps",
                        w.name.empty() ? "(unnamed)" : w.name, gpus, hw.scale_up_gpus));
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "workload %s fits in no parallel configuration on %d GPUs: the least memory any of the %d "
      "configurations tried needs is %.1f GB per GPU (%s), more than the %.1f GB usable "
      "(hardware.accelerator.hbm_bytes x hardware.calibration.hbm_usable_fraction)",
      w.name.empty() ? "(unnamed)" : w.name, gpus, best.evaluated, InGigabytes(st.least),
      DescribeConfig(st.least_config), InGigabytes(st.usable)));
}

}  // namespace

absl::StatusOr<SearchResult> SearchParallelism(const WorkloadModel& w, const TrainingHardware& hw,
                                               int64_t gpus, SearchMode mode,
                                               const ParallelConfig* first_shape) {
  if (absl::Status s = CheckFixed(w, hw, gpus); !s.ok()) return s;
  SearchState st;
  st.prune = mode == SearchMode::kBestOnly && !w.moe.enabled;
  st.model = MakeStepModel(w, hw);
  st.best.searched = !w.FullyFixed();
  const std::vector<int64_t> batch_divisors = Divisors(w.global_batch);
  const int64_t tp_max = std::min<int64_t>(hw.scale_up_gpus, gpus);
  // With tp, pp and dp fixed, cp is what the GPU count leaves (1 when the product is the count).
  const bool cp_follows = w.fixed_cp == 0 && w.fixed_tp > 0 && w.fixed_pp > 0 && w.fixed_dp > 0;
  const int64_t cp_first = w.fixed_cp > 0 ? w.fixed_cp : 1;
  const int64_t cp_last = w.fixed_cp > 0
                              ? w.fixed_cp
                              : (cp_follows || w.seq_len < kMinSeqLenForCp ? 1 : kMaxSearchedCp);
  // The (tp, cp, pp) the loops below search, in their order.
  auto tp_searched = [&](int64_t tp) {
    return tp >= 1 && tp <= tp_max &&
           (w.fixed_tp > 0 ? tp == w.fixed_tp
                           : (w.heads % tp == 0 && w.ffn_hidden % tp == 0 &&
                              (w.kv_heads % tp == 0 || tp % w.kv_heads == 0)));
  };
  auto cp_searched = [&](int64_t tp, int64_t cp) {
    // cp runs over cp_first x 2^i up to cp_last.
    if (cp < cp_first || cp > cp_last || tp * cp > gpus || cp % cp_first != 0) return false;
    const int64_t ratio = cp / cp_first;
    return (ratio & (ratio - 1)) == 0 && w.seq_len % cp == 0;
  };
  auto pp_searched = [&](int64_t tp, int64_t cp, int64_t pp) {
    const int64_t tpc = tp * cp;
    return pp >= 1 && pp <= std::min<int64_t>(w.layers, gpus / tpc) &&
           (w.fixed_pp > 0 ? pp == w.fixed_pp : IsPipelineCandidate(pp, w.layers)) &&
           w.fixed_dp <= gpus / (tpc * pp);
  };
  // A shape searched first when the caller names one the loops search (the best one of a
  // neighbouring size): its best is a good bound from the start, and the bound then rules out
  // more of the rest. The fastest step is the same; which of two equally fast splits is kept,
  // and how many were evaluated, may differ.
  const bool first = first_shape != nullptr && st.prune && tp_searched(first_shape->tp) &&
                     cp_searched(first_shape->tp, first_shape->cp) &&
                     pp_searched(first_shape->tp, first_shape->cp, first_shape->pp);
  if (first) {
    SearchDataParallel(w, hw, gpus, batch_divisors, first_shape->tp, first_shape->cp,
                       first_shape->pp, st);
  }
  for (int64_t tp = 1; tp <= tp_max; ++tp) {
    if (!tp_searched(tp)) continue;
    for (int64_t cp = cp_first; cp <= cp_last && tp * cp <= gpus; cp *= 2) {
      if (w.seq_len % cp != 0) continue;
      const int64_t pp_max = std::min<int64_t>(w.layers, gpus / (tp * cp));
      for (int64_t pp = 1; pp <= pp_max; ++pp) {
        if (!pp_searched(tp, cp, pp)) continue;
        if (first && tp == first_shape->tp && cp == first_shape->cp && pp == first_shape->pp) {
          continue;  // searched first
        }
        SearchDataParallel(w, hw, gpus, batch_divisors, tp, cp, pp, st);
      }
    }
  }
  if (st.have) return st.best;
  return NothingFits(w, hw, gpus, st);
}

}  // namespace dcplan

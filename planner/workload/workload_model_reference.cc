// File: planner/workload/workload_model_reference.cc
//
// EstimateStep as it was before the parallelism search reused the per-(tp, cp, micro-batch) kernel
// times (commit 435d80b's planner/workload/workload_model.cc, unchanged but for the name): the
// reference workload_model_equivalence_test compares the current EstimateStep with, field by
// field and bit for bit. Test-only. Issue 19's physics (block variants, FP8, the pipeline's fill
// and drain sends) was added to both, the same way, so the equivalence still checks the speed work.
#include "planner/workload/workload_model_reference.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/numbers.h"
#include "planner/workload/workload_defaults.h"

namespace dcplan::reference {
namespace {

using units::Compute;
using units::Data;
using units::DataRate;
using units::Ratio;
using units::Time;

inline double D(int64_t v) { return static_cast<double>(v); }

// A link as collectives see it: achieved bandwidth per GPU and latency per algorithm step.
struct Link {
  DataRate bandwidth;
  Time latency;
};

// The time of a collective, by level of the network.
struct Levels {
  Time scale_up = units::Seconds(0.0);
  Time scale_out = units::Seconds(0.0);
  Time Total() const { return scale_up + scale_out; }
};

Levels operator+(const Levels& a, const Levels& b) {
  return Levels{a.scale_up + b.scale_up, a.scale_out + b.scale_out};
}

// Megatron's gradient bucket before Megatron-Core 0.7 (DistributedDataParallel's bucket_size
// default, 40,000,000 parameters).
constexpr double kFixedBucketParams = 4e7;

// How a collective's latency grows with the n domains it spans: a ring takes n - 1 steps (NCCL's
// only algorithm for reduce-scatter and all-gather; its cost model, src/graph/tuning.cc, charges
// every inter-node ring step), a tree ceil(log2 n) (NCCL's all-reduce at scale).
enum class Steps { kTree, kRing };

// A reduce-scatter or all-gather of a `bytes` buffer over `ranks` ranks of which `per_domain` share
// a scale-up domain, issued as `collectives` calls (gradient buckets) that each pay the latency.
// Hierarchical: a ring inside the domain moves (k-1)/k of the buffer over the scale-up link in k-1
// steps; then the n = ceil(ranks / k) domains exchange, each GPU carrying its 1/k shard over its
// own NICs ((n-1)/n of it, with n - 1 or ceil(log2 n) latency steps). An all-reduce is a
// reduce-scatter plus an all-gather: twice this.
Levels OneWayCollective(Data bytes, int64_t ranks, int64_t per_domain, const Link& up,
                        const Link& out, Steps steps = Steps::kTree, double collectives = 1.0) {
  Levels c;
  if (ranks <= 1) return c;
  const int64_t k = std::clamp<int64_t>(per_domain, 1, ranks);
  const int64_t n = CeilDiv(ranks, k);
  if (k > 1) {
    c.scale_up = (D(k - 1) / D(k)) * bytes / up.bandwidth + collectives * D(k - 1) * up.latency;
  }
  if (n > 1) {
    const double out_steps = steps == Steps::kRing ? D(n - 1) : std::ceil(std::log2(D(n)));
    c.scale_out =
        (D(n - 1) / D(n)) * (bytes / D(k)) / out.bandwidth + collectives * out_steps * out.latency;
  }
  return c;
}

Levels AllReduce(Data bytes, int64_t ranks, int64_t per_domain, const Link& up, const Link& out) {
  const Levels one = OneWayCollective(bytes, ranks, per_domain, up, out);
  return one + one;
}

// --- Matrix multiplies from their shapes. ---
// cuBLAS/CUTLASS tile the output of a multiply in blocks; 128 x 128 is the common bf16 tile on
// A100 and H100 (CUTLASS's default threadblock shape for these GPUs).
constexpr double kTile = 128.0;

// Share of the compute units a multiply with a `rows` x `cols` output (`batch` of them) keeps busy:
// the useful tile area over the area of the waves it runs in (tile and wave quantization). 1 with
// no compute-unit count.
inline double WaveEfficiency(double rows, double cols, double batch, double units_count) {
  if (units_count <= 0) return 1.0;
  const double tiles = batch * std::ceil(rows / kTile) * std::ceil(cols / kTile);
  const double waves = std::ceil(tiles / units_count);
  return (batch * rows * cols / (kTile * kTile)) / (waves * units_count);
}

// What the multiplies of one layer need from the hardware.
struct GemmCost {
  units::ComputeRate ceiling;  // peak x kernel_efficiency
  units::FlopsPerByte knee;
  double compute_units = 0;
  Data element;  // bytes per operand element
};

// The time of one m x k by k x n multiply (`batch` of them) doing `flops` FLOPs, its output m x n:
// flops / (ceiling x wave) x (1 + knee / intensity), intensity = flops / (operand + result bytes).
inline Time KernelTime(Compute flops, Data traffic, double wave, const GemmCost& g) {
  return flops / (g.ceiling * wave) * (1.0 + units::InFraction(g.knee * traffic / flops));
}
inline Time GemmTime(Compute flops, double m, double n, double k, double batch, const GemmCost& g) {
  const Data traffic = batch * (m * k + k * n + m * n) * g.element;
  return KernelTime(flops, traffic, WaveEfficiency(m, n, batch, g.compute_units), g);
}

// A weight multiply of m tokens, k inputs and n outputs through training: `forwards` forward passes
// (2 with full recomputation), the input gradient (output m x k) and the weight gradient (output
// n x k), each 2 m n k FLOPs.
struct PassTimes {
  Time forward = units::Seconds(0.0);
  Time backward = units::Seconds(0.0);
};
inline PassTimes operator+(const PassTimes& a, const PassTimes& b) {
  return PassTimes{a.forward + b.forward, a.backward + b.backward};
}
inline PassTimes WeightGemm(double m, double n, double k, const GemmCost& g) {
  PassTimes r;
  if (m <= 0 || n <= 0 || k <= 0) return r;
  const Compute f = units::Flops(2.0 * m * n * k);
  r.forward = GemmTime(f, m, n, k, 1.0, g);
  r.backward = GemmTime(f, m, k, n, 1.0, g) + GemmTime(f, n, k, m, 1.0, g);
  return r;
}

// How the layers fall on pipeline stages.
struct StageSplit {
  int64_t heaviest_layers = 0;  // layers on the slowest stage
  bool heaviest_has_output = false;
  int64_t first_layers = 0;  // the first stage holds the most activations
  int64_t last_layers = 0;   // the last stage holds the output layer
};

// Splits l layers over p stages. Uniform: every stage ceil(l/p) layers, the last one also the
// output layer. Balanced: every stage but the last k layers, the last l - (p-1) k and the output
// layer, with k the integer nearest the crossing k* = (l w_layer + w_out) / (p w_layer) of the two
// (monotone) loads.
StageSplit SplitStages(int64_t l, int64_t p, int64_t v, Time w_layer, Time w_out, bool balance) {
  StageSplit s;
  if (p <= 1) return StageSplit{l, true, l, l};
  if (p > 2 && p * v > l) {
    // Fewer layers than chunks (at most two short, as pp x v <= layers + 2 allows): the middle
    // stages hold v chunks of ceil(l / (p v)) layers; the first and last share what is left, the
    // first taking the odd one, the last also the output layer.
    const int64_t middle = v * CeilDiv(l, p * v);
    const int64_t rest = std::max<int64_t>(0, l - (p - 2) * middle);
    const int64_t first = CeilDiv(rest, 2), last = rest / 2;
    const Time tail = D(last) * w_layer + w_out;
    const int64_t heavy_body = std::max(middle, first);
    const bool tail_heaviest = tail >= D(heavy_body) * w_layer;
    return StageSplit{tail_heaviest ? last : heavy_body, tail_heaviest, first, last};
  }
  if (!balance || w_layer <= units::Seconds(0.0)) {
    const int64_t k = CeilDiv(l, p);
    return StageSplit{k, true, k, k};
  }
  const int64_t k_max = CeilDiv(l, p - 1);  // beyond it the last stage is empty anyway
  const double k_star = units::InFraction((D(l) * w_layer + w_out) / (D(p) * w_layer));
  if (!std::isfinite(k_star)) {
    // An infinite layer time (a degenerate configuration): no balance to find; even stages.
    const int64_t k = CeilDiv(l, p);
    return StageSplit{k, true, k, k};
  }
  Time best = units::Seconds(0.0);
  bool have = false;
  for (double kd : {std::floor(k_star), std::ceil(k_star)}) {
    const int64_t k = std::clamp<int64_t>(static_cast<int64_t>(kd), 1, k_max);
    const int64_t last = std::max<int64_t>(0, l - (p - 1) * k);
    const int64_t first = std::min(k, l);
    const Time other = D(first) * w_layer;
    const Time tail = D(last) * w_layer + w_out;
    const Time load = std::max(other, tail);
    if (!have || load < best) {
      have = true;
      best = load;
      s.first_layers = first;
      s.last_layers = last;
      s.heaviest_has_output = tail >= other;
      s.heaviest_layers = s.heaviest_has_output ? last : first;
    }
  }
  return s;
}

}  // namespace

namespace {

// The configuration and the hardware as every part of the step model sees them.
struct StepContext {
  double t, p, d, v, cp;  // tp, pp, dp, virtual stages, cp
  double s, h, a, f, vocab, l;
  double kv;   // key (and value) width
  double tok;  // tokens per micro-batch on one GPU
  bool full, selective, partial;
  GemmCost gemm;
  GemmCost linear;
  DataRate hbm_rate;
  Link up, out;
  bool no_fabric;
  int64_t zero;  // the ZeRO stage
};

inline StepContext MakeStepContext(const WorkloadModel& w, const TrainingHardware& hw,
                                   const ParallelConfig& c) {
  const CalibrationModel& cal = hw.calibration;
  StepContext x;
  x.t = D(c.tp), x.p = D(c.pp), x.d = D(c.dp), x.v = D(c.virtual_stages), x.cp = D(c.cp);
  x.s = D(w.seq_len), x.h = D(w.hidden), x.a = D(w.heads), x.f = D(w.ffn_hidden);
  x.vocab = D(w.vocab), x.l = D(w.layers);
  x.kv = x.h * D(w.kv_heads) / x.a;
  // Tokens per micro-batch on one GPU: context parallelism splits each sequence cp ways.
  x.tok = D(c.micro_batch) * x.s / x.cp;
  x.full = c.recompute == RECOMPUTE_FULL;
  x.selective = c.recompute == RECOMPUTE_SELECTIVE;
  x.partial = c.recompute == RECOMPUTE_PARTIAL;
  x.gemm =
      GemmCost{hw.peak * cal.kernel_efficiency, cal.gemm_knee, D(cal.compute_units), w.precision};
  // FP8 multiplies at their measured speedup over BF16's rate, capped by the peaks' ratio.
  const double fp8_ratio =
      w.fp8 ? std::min(w.fp8_gemm_speedup, units::InFraction(hw.peak_fp8 / hw.peak)) : 0.0;
  x.linear = w.fp8 ? GemmCost{fp8_ratio * hw.peak * cal.kernel_efficiency, cal.gemm_knee,
                              D(cal.compute_units), units::Bytes(1.0)}
                   : x.gemm;
  x.hbm_rate = hw.hbm_bandwidth / cal.memory_bound_factor;
  x.up = Link{hw.scale_up_bandwidth * cal.scale_up_bandwidth_efficiency, cal.scale_up_latency};
  // The scale-out link slows by the leaf's oversubscription once a data-parallel group leaves its
  // leaf, and by each oversubscribed tier above whose block it outgrows (Meta's 1:7 above
  // 3,072-GPU pods): every GPU of the group sends at once, so the uplinks share out.
  const int64_t group = c.tp * c.cp * c.dp;
  const bool beyond_leaf = hw.leaf_gpus > 0 && group > hw.leaf_gpus;
  double slowdown = beyond_leaf ? units::InFraction(hw.leaf_oversubscription) : 1.0;
  for (int i = 0; beyond_leaf && i < hw.upper_tiers && group > hw.upper_block_gpus[i]; ++i) {
    slowdown *= hw.upper_oversubscription[i];
  }
  x.out = Link{hw.scale_out_bandwidth * cal.scale_out_bandwidth_efficiency / slowdown,
               cal.scale_out_latency};
  x.no_fabric = hw.scale_out_bandwidth <= units::BytesPerSecond(0.0);
  x.zero = c.zero >= 0 ? c.zero : (w.distributed_optimizer ? 1 : 0);
  return x;
}

// One layer's times on one GPU for one micro-batch, and the output layer's.
struct LayerTimes {
  Time dense_fwd;       // one forward pass of the weight multiplies
  Time dense;           // the weight multiplies through training
  Time backward_gemms;  // their backward pass
  Time attn_fwd;        // one forward pass of the attention core
  Time compute;
  Time memory;
  Time tp;
  Time tp_forward;  // one forward pass's share of tp (a rerun pays it again)
  Time cp;
  Time total;  // compute + memory + tp + cp
  Time out_compute;
  Time out_memory;
  Time out_total;
};

// The layer's multiplies and attention core: sets dense_fwd, dense, backward_gemms, attn_fwd and
// compute.
inline void LayerCompute(const WorkloadModel& w, const TrainingHardware& hw,
                         const ParallelConfig& c, const StepContext& x, LayerTimes& lt) {
  const CalibrationModel& cal = hw.calibration;
  const double t = x.t, cp = x.cp, s = x.s, h = x.h, a = x.a, f = x.f, kv = x.kv, tok = x.tok;
  const GemmCost& gemm = x.gemm;
  // Each weight multiply runs at its own shape after the tensor-parallel split: tok tokens by the
  // layer's input and output widths (q, k, v together; the MLP's up (and gate) projection; the
  // output projections). Full recomputation reruns the forward pass. When `params` overrides the
  // shape's count, the multiplies' FLOPs are scaled to it.
  const double forwards = x.full ? 2.0 : 1.0;
  const double up_width = (w.gated_mlp ? 2.0 : 1.0) * f;
  const GemmCost& linear = x.linear;
  const PassTimes gemms =
      WeightGemm(tok, (h + 2.0 * kv) / t, h, linear) + WeightGemm(tok, h, h / t, linear) +
      WeightGemm(tok, up_width / t, h, linear) + WeightGemm(tok, h, f / t, linear);
  const double shape_params = 2.0 * h * h + 2.0 * h * kv + (up_width + f) * h;
  const double params_scale = w.layer_params / shape_params;
  lt.dense_fwd = params_scale * gemms.forward;
  lt.dense = forwards * lt.dense_fwd + params_scale * gemms.backward;
  lt.backward_gemms = params_scale * gemms.backward;
  // The attention core: per head, scores Q K^T (tok x s by the head size) and their product with V,
  // 4 tok s h / t FLOPs forward over the heads of this GPU (keys span the whole sequence under
  // context parallelism). The backward pass is twice the forward; selective and full recomputation
  // rerun the forward. Without FlashAttention these are two multiplies with the head size as one
  // dimension, the s x s scores going through HBM, and the causal half is computed and masked.
  // FlashAttention fuses them: the scores stay on chip, so its traffic is Q, K, V and the output
  // (the fused kernel's intensity is about s / 2), and it skips the blocks the causal mask empties.
  const double head = h / a;
  const double heads_here = D(c.micro_batch) * a / t;
  const double s_q = s / cp;
  const Compute one_product = units::Flops(2.0 * tok * s * h / t);
  Time attn_fwd;
  if (w.flash_attention) {
    const double wave = WaveEfficiency(s_q, head, heads_here, D(cal.compute_units));
    // The attention kernel of the workload's software: FlashAttention-2 before SOFTWARE_CURRENT
    // when the hardware gives its efficiency (on pre-Hopper GPUs attention_efficiency already is
    // FlashAttention-2's: FlashAttention-3 is Hopper-only).
    const Ratio attention_efficiency =
        w.generation != SOFTWARE_CURRENT && cal.flash_attention_2_efficiency > units::Fraction(0.0)
            ? cal.flash_attention_2_efficiency
            : cal.attention_efficiency;
    if (attention_efficiency > units::Fraction(0.0)) {
      // The fused kernel at its own measured fraction of peak (its softmax between the products
      // keeps it below the multiplies' ceiling).
      const units::ComputeRate attention_peak = w.fp8_attention ? hw.peak_fp8 : hw.peak;
      attn_fwd = 0.5 * (2.0 * one_product) / (attention_peak * attention_efficiency * wave);
    } else {
      const Data traffic = heads_here * (2.0 * s_q * head + 2.0 * s * head) * w.precision;
      attn_fwd =
          0.5 * KernelTime(2.0 * one_product, traffic, wave, w.fp8_attention ? linear : gemm);
    }
  } else {
    attn_fwd = GemmTime(one_product, s_q, s, head, heads_here, gemm) +
               GemmTime(one_product, s_q, head, s, heads_here, gemm);
  }
  lt.attn_fwd = attn_fwd;
  const double attn_passes = 3.0 + (x.full || x.selective ? 1.0 : 0.0);
  lt.compute = lt.dense + attn_passes * attn_fwd;
}

// The layer's memory-bound HBM traffic and kernel overheads.
inline Time LayerMemory(const WorkloadModel& w, const CalibrationModel& cal, const StepContext& x) {
  const double t = x.t, s = x.s, h = x.h, a = x.a, f = x.f, tok = x.tok, kv = x.kv;
  const bool full = x.full;
  // Memory-bound HBM traffic of the forward pass, in elements per token: 10 h for the two norms and
  // the two dropout + residual adds (replicated over the tensor-parallel group unless sequence
  // parallel), 2 f (3 f gated) for the activation function and 6 h for reshapes and bias adds,
  // split over tp, and, without flash attention, 4.5 passes over the a x s attention scores
  // (the fused scale-mask-softmax reads and writes them, dropout reads and writes them and writes
  // a one-byte mask; their write by Q K^T and read by the product with V are the multiplies'
  // traffic, counted there). The backward pass moves twice as much; full recomputation adds one
  // forward pass.
  const double rep_div = w.sequence_parallel ? t : 1.0;
  const double replicated = 10.0 * h / rep_div;
  const double split = ((w.gated_mlp ? 3.0 : 2.0) * f + (w.biases ? 6.0 * h : 0.0) +
                        (w.rotary ? 2.0 * (h + kv) : 0.0)) /
                       t;
  const double scores = w.flash_attention ? 0.0 : (w.dropout ? 4.5 : 2.0) * a * s / t;
  double fp8_forward = 0, fp8_backward = 0;
  if (w.fp8) {
    const double up_width = (w.gated_mlp ? 2.0 : 1.0) * f;
    const double per_element = w.fp8_current_scaling ? 3.0 : 2.0;
    fp8_forward = per_element * (2.0 * h / rep_div + (h + f) / t);
    fp8_backward = per_element * ((h + 2.0 * kv + up_width) / t + 2.0 * h / rep_div);
  }
  const double layer_elements =
      tok * ((replicated + split + scores) * (full ? 4.0 : 3.0) + (x.selective ? scores : 0.0) +
             fp8_forward * (full ? 2.0 : 1.0) + fp8_backward);
  // Plus the fixed cost of the layer's kernels: 13 forward, 26 backward, 13 more when the forward
  // is recomputed.
  return layer_elements * w.precision / x.hbm_rate + (full ? 52.0 : 39.0) * cal.kernel_overhead;
}

// Tensor parallel: sets tp and tp_forward.
inline void LayerTensorParallel(const WorkloadModel& w, const TrainingHardware& hw,
                                const ParallelConfig& c, const StepContext& x, LayerTimes& lt) {
  const double t = x.t;
  const double forwards = x.full ? 2.0 : 1.0;
  // Per layer two all-reduces (or reduce-scatter + all-gather pairs) of the micro-batch's
  // activations forward, two backward, two more when the forward is recomputed.
  Time layer_tp = units::Seconds(0.0);
  Time layer_tp_forward = units::Seconds(0.0);  // one forward pass's share (a rerun pays it again)
  if (c.tp > 1) {
    const Data message = x.tok * x.h * w.precision;
    const Time all_reduce =
        AllReduce(message, c.tp, std::min(c.tp, hw.scale_up_gpus), x.up, x.out).Total();
    layer_tp = (x.full ? 6.0 : 4.0) * all_reduce;
    layer_tp_forward = 2.0 * all_reduce;
    if (w.overlap_tensor_parallel) {
      // Ring steps overlapped with slices of the multiplies: one step of tp shows, and whatever
      // the multiplies cannot cover.
      layer_tp = layer_tp / t + std::max(units::Seconds(0.0), layer_tp - lt.dense);
      layer_tp_forward = layer_tp_forward / t;
    } else if (w.sequence_parallel) {
      // Megatron's sequence-parallel linears (Korthikanti et al. 2022; tensor_parallel/layers.py):
      // the forward all-gathers and reduce-scatters (one all-reduce's worth per block) and the
      // backward all-gather of the output gradient wait on the stream; the backward re-gather of
      // the input runs behind the input-gradient multiply and the input gradient's reduce-scatter
      // behind the weight-gradient multiply (two all-reduces' worth, hidden while the backward
      // multiplies last).
      const Time backward_gemms = lt.backward_gemms;
      layer_tp = (2.0 * forwards + 1.0) * all_reduce +
                 std::max(units::Seconds(0.0), 2.0 * all_reduce - backward_gemms);
    }
  }
  lt.tp = layer_tp;
  lt.tp_forward = layer_tp_forward;
}

// Context parallel: a ring of cp ranks (tp apart; inside the scale-up domain while tp x cp fits
// in it) passes each rank's keys and values (2 tok kv / t elements) cp - 1 times forward; the
// backward pass passes them again with their gradients (twice the bytes). The transfers overlap
// the attention core they feed; only the excess shows.
inline Time LayerContextParallel(const WorkloadModel& w, const TrainingHardware& hw,
                                 const ParallelConfig& c, const StepContext& x, Time attn_fwd,
                                 StepEstimate& e) {
  const double forwards = x.full ? 2.0 : 1.0;
  Time layer_cp = units::Seconds(0.0);
  if (c.cp > 1) {
    const bool inside = c.tp * c.cp <= hw.scale_up_gpus;
    if (!inside && x.no_fabric) e.infeasible = Infeasible::kNoScaleOut;
    const Link& link = inside ? x.up : x.out;
    const Data kv_bytes = 2.0 * x.tok * x.kv / x.t * w.precision;
    const Time ring = (x.cp - 1.0) * (kv_bytes / link.bandwidth + link.latency);
    const Time zero = units::Seconds(0.0);
    layer_cp =
        forwards * std::max(zero, ring - attn_fwd) + std::max(zero, 2.0 * ring - 2.0 * attn_fwd);
  }
  return layer_cp;
}

// --- One layer, one micro-batch, one GPU. ---
inline LayerTimes EstimateLayer(const WorkloadModel& w, const TrainingHardware& hw,
                                const ParallelConfig& c, const StepContext& x, StepEstimate& e) {
  LayerTimes lt;
  LayerCompute(w, hw, c, x, lt);
  lt.memory = LayerMemory(w, hw.calibration, x);
  LayerTensorParallel(w, hw, c, x, lt);
  lt.cp = LayerContextParallel(w, hw, c, x, lt.attn_fwd, e);
  lt.total = lt.compute + lt.memory + lt.tp + lt.cp;
  // The output layer and loss (last stage): a tok x h by h x V / t multiply, forward and backward
  // (never recomputed), and the fp32 logits written and read forward and backward (16 V bytes per
  // token).
  const PassTimes out_gemm =
      WeightGemm(x.tok, x.vocab / x.t, x.h, w.fp8_output_layer ? x.linear : x.gemm);
  lt.out_compute = out_gemm.forward + out_gemm.backward;
  lt.out_memory = units::Bytes(16.0 * x.tok * x.vocab / x.t) / x.hbm_rate;
  lt.out_total = lt.out_compute + lt.out_memory;
  return lt;
}

// The slowest stage and what the pipeline adds to it.
struct PipelineTimes {
  StageSplit split;
  double heavy;     // layers on the slowest stage
  double with_out;  // 1 when the slowest stage holds the output layer
  Time stage;
  Time per_micro_batch;
  double m;  // micro-batches
};

// --- The slowest stage and the pipeline. ---
inline PipelineTimes EstimatePipeline(const WorkloadModel& w, const TrainingHardware& hw,
                                      const ParallelConfig& c, const StepContext& x,
                                      const LayerTimes& lt, StepEstimate& e) {
  const double t = x.t, p = x.p, v = x.v, h = x.h, tok = x.tok;
  const Link& up = x.up;
  const Link& out = x.out;
  PipelineTimes pl;
  pl.split = SplitStages(w.layers, c.pp, c.virtual_stages, lt.total, lt.out_total,
                         w.balance_pipeline_stages);
  const double heavy = D(pl.split.heaviest_layers);
  const double with_out = pl.split.heaviest_has_output ? 1.0 : 0.0;
  const Time stage = heavy * lt.total + with_out * lt.out_total;
  // Pipeline sends: each micro-batch's activation forward and its gradient backward, at every chunk
  // boundary (v per stage). Stages are tp x dp ranks apart (pipeline outermost), so they share a
  // scale-up domain only when tp x dp is smaller than the domain. With scatter-gather (or sequence
  // parallelism) each tensor-parallel rank sends 1/tp of the activation.
  Time p2p = units::Seconds(0.0);
  Time fill_send = units::Seconds(0.0);
  if (c.pp > 1) {
    const bool sliced = (w.pipeline_scatter_gather || w.sequence_parallel) && c.tp > 1;
    const Data full_message = tok * h * w.precision;
    const Data message = sliced ? full_message / t : full_message;
    const bool inside = c.tp * c.cp * c.dp < hw.scale_up_gpus;
    if (!inside && x.no_fabric) e.infeasible = Infeasible::kNoScaleOut;
    const Link& link = inside ? up : out;
    Time one = message / link.bandwidth + link.latency;
    if (sliced && !w.sequence_parallel) {
      // The receiving tensor-parallel group all-gathers the slices over the scale-up domain.
      one += OneWayCollective(full_message, c.tp, c.tp, up, out).Total();
    }
    p2p = 2.0 * v * one;
    fill_send = one;
    if (w.overlap_pipeline_sends) {
      // Each send hides behind the next chunk's compute (stage / v): its latency and any excess
      // show.
      const Time chunk = stage / v;
      const Time zero = units::Seconds(0.0);
      p2p = 2.0 * v * (link.latency + std::max(zero, one - link.latency - chunk));
    }
    // Each chunk's forward and backward of a micro-batch is its own step of the schedule: it
    // launches a send and a receive kernel and waits on the receive before its first kernel, two
    // kernel overheads a chunk boundary that no compute hides. Interleaving multiplies them by v.
    p2p += 2.0 * v * (2.0 * hw.calibration.kernel_overhead);
  }
  const Time per_micro_batch = stage + p2p;
  e.micro_batches = CeilDiv(w.global_batch, c.dp * c.micro_batch);
  const double m = D(e.micro_batches);
  e.compute = m * (heavy * lt.compute + with_out * lt.out_compute);
  e.memory_bound = m * (heavy * lt.memory + with_out * lt.out_memory);
  e.tensor_parallel = m * heavy * lt.tp;
  e.context_parallel = m * heavy * lt.cp;
  e.pipeline_p2p = m * p2p;
  e.pipeline_bubble = ((p - 1.0) / v) * stage + 2.0 * (p - 1.0) * fill_send;
  pl.heavy = heavy;
  pl.with_out = with_out;
  pl.stage = stage;
  pl.per_micro_batch = per_micro_batch;
  pl.m = m;
  return pl;
}

// The parameters of the most loaded stage on one GPU.
struct StageParams {
  double gpu_params;
  Data gradient_bytes;
  Data param_bytes;
  double shards;  // the distributed optimizer's shards of the optimizer state
};

// --- Parameters on the most loaded stage, data parallel and optimizer. --- ZeRO stage z
// (x.zero): z >= 1 shards the optimizer state, z >= 2 the gradients (reduced every micro-batch),
// z = 3 the weights (gathered per layer before the forward and the backward pass, gradients
// reduce-scattered per layer, hidden behind the passes).
inline StageParams EstimateDataParallel(const WorkloadModel& w, const TrainingHardware& hw,
                                        const ParallelConfig& c, const StepContext& x,
                                        const PipelineTimes& pl, StepEstimate& e) {
  const CalibrationModel& cal = hw.calibration;
  const double t = x.t, h = x.h, d = x.d, cp = x.cp, vocab = x.vocab;
  const bool full = x.full;
  const int64_t z = x.zero;
  const Link& up = x.up;
  const Link& out = x.out;
  const Time stage = pl.stage;
  const double m = pl.m;
  const double stage_layers = D(std::max(pl.split.first_layers, pl.split.last_layers));
  // The embedding (first stage) and the output layer (last stage) each add V h; one stage holding
  // both holds 2 V h when they are separate matrices.
  const double embeddings = (c.pp == 1 && w.untied_embeddings) ? 2.0 : 1.0;
  const double gpu_params = (stage_layers * w.layer_params + embeddings * vocab * h) / t;
  const Data gradient_bytes = gpu_params * w.gradient_element;
  const Data param_bytes = gpu_params * w.precision;
  // Gradient peers: the dp replicas and, holding the same weights, the cp ranks of each: dp x cp
  // ranks, tp apart, so a domain of D GPUs holds D / tp of them.
  const int64_t ranks = c.dp * c.cp;
  const int64_t per_domain = c.tp < hw.scale_up_gpus ? hw.scale_up_gpus / c.tp : 1;
  // One collective per gradient bucket; each pays its latency steps.
  const double bucket_params = w.gradient_bucket_params > 0
                                   ? w.gradient_bucket_params
                                   : std::max(kFixedBucketParams, 1e6 * D(ranks));
  const double step_buckets = std::max(1.0, std::ceil(gpu_params / bucket_params));
  const double buckets = z >= 3 ? std::max(stage_layers + 1.0, step_buckets) : step_buckets;
  const Steps steps = z >= 1 ? Steps::kRing : Steps::kTree;
  const Levels reduce =
      OneWayCollective(gradient_bytes, ranks, per_domain, up, out, steps, buckets);
  const Levels gather =
      z >= 1 ? OneWayCollective(param_bytes, ranks, per_domain, up, out, steps, buckets) : reduce;
  if (x.no_fabric && ranks > 1 && CeilDiv(ranks, std::clamp<int64_t>(per_domain, 1, ranks)) > 1) {
    e.infeasible = Infeasible::kNoScaleOut;
  }
  const double reduces = z >= 2 ? m : 1.0;
  const double gathers = z >= 3 ? 2.0 * m : 1.0;
  e.data_parallel_scale_up = reduces * reduce.scale_up + gathers * gather.scale_up;
  e.data_parallel_scale_out = reduces * reduce.scale_out + gathers * gather.scale_out;
  e.data_parallel = e.data_parallel_scale_up + e.data_parallel_scale_out;
  const Time backward_window = stage * ((full ? 3.0 : 2.0) / (full ? 4.0 : 3.0));
  const Time zero = units::Seconds(0.0);
  const Ratio overlap = cal.gradient_sync_overlap;
  Time hidden_sync = zero;
  if (w.overlap_gradient_sync) {
    if (z >= 3) {
      hidden_sync = m * (std::min(overlap * gather.Total(), stage - backward_window) +
                         std::min(overlap * (gather.Total() + reduce.Total()), backward_window));
    } else if (z >= 1) {
      const bool apart = w.overlap_pipeline_sends;
      const Time reduced = apart ? e.data_parallel - gather.Total() : e.data_parallel;
      hidden_sync = std::min(overlap * reduced, reduces * backward_window) +
                    (apart ? std::min(overlap * gather.Total(), stage - backward_window) : zero);
    } else {
      hidden_sync = std::min(overlap * e.data_parallel, backward_window);
    }
  }
  e.data_parallel_exposed = e.data_parallel - hidden_sync;
  // Adam: read the gradient and fp32 master weight, m and v; write the last three and the weight.
  const double shards = z >= 1 ? d * cp : 1.0;
  const double fp8_cast_params = w.fp8 ? stage_layers * w.layer_params / t : 0.0;
  const Data optimizer_traffic =
      (gpu_params / shards) * (w.gradient_element + units::Bytes(24.0) + w.precision) +
      (z >= 3 ? 2.0 * m : 1.0) * fp8_cast_params * units::Bytes(4.0);
  e.optimizer = optimizer_traffic / x.hbm_rate;
  e.step = pl.m * pl.per_micro_batch + e.pipeline_bubble + e.data_parallel_exposed + e.optimizer;
  const double layer_here = w.layer_params / t;
  Data weights = param_bytes + fp8_cast_params * units::Bytes(2.0);
  Data gradients = gradient_bytes;
  if (z >= 2) {
    const double whole = z >= 3 ? layer_here : std::min(gpu_params, bucket_params);
    gradients = std::min(gpu_params, gpu_params / shards + whole) * w.gradient_element;
  }
  if (z >= 3) {
    weights = std::min(gpu_params, gpu_params / shards + 2.0 * layer_here) * w.precision +
              (w.fp8 ? 2.0 * layer_here : 0.0) * units::Bytes(2.0);
  }
  return StageParams{gpu_params, gradients, weights, shards};
}

// Activations on the first and last stages.
struct StageMemory {
  Data layer_all;   // one layer's activations per micro-batch
  Data checkpoint;  // what a recomputed layer keeps
  double in_flight;
  Data first_stage;
  Data last_stage;
  Data states;  // weights, gradients and optimizer state
};

// Partial recomputation: on every stage the fewest layers (the same number k on each, as
// Megatron's --recompute-num-layers) keep only their input, so the most loaded stage fits. Each
// such layer saves (all - checkpoint) per micro-batch in flight and reruns its forward. Updates the
// stages' activations and the step; returns the share of layers recomputed.
inline double PartialRecompute(const StepContext& x, const LayerTimes& lt, const PipelineTimes& pl,
                               StageMemory& sm, StepEstimate& e) {
  const double p = x.p, v = x.v, m = pl.m, heavy = pl.heavy;
  const Data layer_all = sm.layer_all, checkpoint = sm.checkpoint, states = sm.states;
  Data& first_stage = sm.first_stage;
  Data& last_stage = sm.last_stage;
  const Data excess = std::max(first_stage, last_stage) + states - e.memory_usable;
  const int64_t most = std::max(pl.split.first_layers, pl.split.last_layers);
  const Data per_layer = sm.in_flight * (layer_all - checkpoint);
  int64_t k = 0;
  if (excess > units::Bytes(0.0)) {
    // The last stage holds one micro-batch per layer, the first in_flight: solve on each.
    const Data first_excess = first_stage + states - e.memory_usable;
    const Data last_excess = last_stage + states - e.memory_usable;
    const Data last_saving = layer_all - checkpoint;
    const int64_t k_first =
        first_excess > units::Bytes(0.0)
            ? static_cast<int64_t>(std::ceil(units::InFraction(first_excess / per_layer)))
            : 0;
    const int64_t k_last =
        last_excess > units::Bytes(0.0)
            ? static_cast<int64_t>(std::ceil(units::InFraction(last_excess / last_saving)))
            : 0;
    k = std::max(k_first, k_last);
  }
  if (k >= most) {
    // Every layer recomputed is full recomputation: that configuration is its own candidate.
    e.infeasible = e.infeasible == Infeasible::kNone ? Infeasible::kMemory : e.infeasible;
    k = most;
  }
  const double kd = D(k);
  first_stage = first_stage - kd * per_layer;
  last_stage = last_stage - kd * (layer_all - checkpoint);
  // The rerun forwards: k layers on the slowest stage, every micro-batch and in the bubble.
  const double rerun = std::min(kd, heavy);
  const Time fwd_compute = lt.dense_fwd + lt.attn_fwd;
  const Time fwd_memory = lt.memory / 3.0;
  const Time fwd_tp = lt.tp_forward;
  const Time fwd_layer = fwd_compute + fwd_memory + fwd_tp;
  e.compute += m * rerun * fwd_compute;
  e.memory_bound += m * rerun * fwd_memory;
  e.tensor_parallel += m * rerun * fwd_tp;
  e.pipeline_bubble += ((p - 1.0) / v) * rerun * fwd_layer;
  e.step += (m + (p - 1.0) / v) * rerun * fwd_layer;
  e.recomputed_layers = k;
  return most > 0 ? kd / D(most) : 0.0;
}

// --- Memory per GPU. --- Returns the share of layers recomputed (-1: the attention core only).
inline double EstimateMemory(const WorkloadModel& w, const TrainingHardware& hw,
                             const ParallelConfig& c, const StepContext& x, const LayerTimes& lt,
                             const PipelineTimes& pl, const StageParams& sp, StepEstimate& e) {
  const CalibrationModel& cal = hw.calibration;
  const double t = x.t, p = x.p, v = x.v, s = x.s, h = x.h, a = x.a, f = x.f;
  const double tok = x.tok, vocab = x.vocab, m = pl.m;
  const bool full = x.full, selective = x.selective, partial = x.partial;
  e.weights = sp.param_bytes;
  e.gradients = sp.gradient_bytes;
  e.optimizer_state = (sp.gpu_params / sp.shards) * units::Bytes(12.0);  // fp32 master, Adam m, v
  // Activations per layer and micro-batch (Korthikanti et al. 2022, counted at 2 bytes per element
  // and scaled to the precision): 10 h per token replicated over tp unless sequence parallel, 8 h +
  // 4 f (6 f gated) split over tp, and 5 a s for the attention scores unless flash attention or
  // selective recomputation drops them. Full recomputation keeps only the layer input (2 h) plus
  // one layer's worth while it recomputes.
  const double e_bytes = units::InBytes(w.precision);
  const double rep_div = w.sequence_parallel ? t : 1.0;
  const bool keep_scores = !w.flash_attention && !selective;
  const double fp8_saving = w.fp8_activations ? e_bytes - 1.0 : 0.0;
  const double replicated = 4.0 * h * e_bytes - 2.0 * h * fp8_saving +
                            2.0 * (w.rms_norm ? 4.0 : 8.0) + (w.dropout ? 2.0 * h : 0.0);
  const double kv = x.kv;
  const double attention = (2.0 * h + 2.0 * kv) * e_bytes + (w.fp8_activations ? h : 0.0);
  const double mlp = (w.gated_mlp ? 3.0 : 2.0) * f * e_bytes - f * fp8_saving;
  const double scores =
      keep_scores ? a * s * (e_bytes + (w.dropout ? 1.0 + e_bytes : 0.0)) / t : 0.0;
  StageMemory sm;
  sm.layer_all = units::Bytes(tok * (replicated / rep_div + (attention + mlp) / t + scores));
  sm.checkpoint = units::Bytes(tok * e_bytes * h / rep_div);
  const Data layer_kept = full ? sm.checkpoint : sm.layer_all;
  const Data working = (full || partial) ? sm.layer_all : units::Bytes(0.0);
  // 1F1B: the first stage holds min(m, p) micro-batches in flight, (1 + (p-1)/(p v)) times that
  // when interleaved; the last stage holds one, plus the fp32 logits and their gradient.
  sm.in_flight = std::min(m, p) * (c.virtual_stages > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0);
  const Data logits = units::Bytes(8.0 * tok * vocab / t);
  sm.first_stage = D(pl.split.first_layers) * sm.in_flight * layer_kept + working +
                   (c.pp == 1 ? logits : units::Bytes(0.0));
  sm.last_stage = D(pl.split.last_layers) * layer_kept + working + logits;
  e.memory_usable = hw.hbm * cal.hbm_usable_fraction;
  sm.states = e.weights + e.gradients + e.optimizer_state;
  double recomputed_share = full ? 1.0 : (selective ? -1.0 : 0.0);  // -1: attention core only
  if (partial) recomputed_share = PartialRecompute(x, lt, pl, sm, e);
  e.activations = std::max(sm.first_stage, sm.last_stage);
  e.memory = sm.states + e.activations;
  if (e.infeasible == Infeasible::kNone && e.memory > e.memory_usable) {
    e.infeasible = Infeasible::kMemory;
  }
  return recomputed_share;
}

// --- Utilization over the whole cluster. ---
inline void EstimateUtilization(const WorkloadModel& w, const TrainingHardware& hw,
                                const ParallelConfig& c, const StepContext& x,
                                double recomputed_share, int64_t cluster_gpus, StepEstimate& e) {
  const double s = x.s, h = x.h, l = x.l;
  const double tokens = D(w.global_batch) * s;
  e.model_flops_per_step = tokens * w.model_flops_per_token;
  const Compute recomputed = units::Flops(
      tokens * l *
      (recomputed_share < 0 ? 4.0 * s * h
                            : recomputed_share * (2.0 * w.layer_params + 4.0 * s * h)));
  const units::ComputeRate cluster_peak = D(std::max(cluster_gpus, c.Gpus())) * hw.peak;
  e.mfu = e.model_flops_per_step / (e.step * cluster_peak);
  e.hfu = (e.model_flops_per_step + recomputed) / (e.step * cluster_peak);
}

}  // namespace

StepEstimate ReferenceEstimateStep(const WorkloadModel& w, const TrainingHardware& hw,
                                   const ParallelConfig& c, int64_t cluster_gpus) {
  StepEstimate e;
  const StepContext x = MakeStepContext(w, hw, c);
  if (x.no_fabric && c.Gpus() > hw.scale_up_gpus) e.infeasible = Infeasible::kNoScaleOut;
  const LayerTimes lt = EstimateLayer(w, hw, c, x, e);
  const PipelineTimes pl = EstimatePipeline(w, hw, c, x, lt, e);
  const StageParams sp = EstimateDataParallel(w, hw, c, x, pl, e);
  const double recomputed_share = EstimateMemory(w, hw, c, x, lt, pl, sp, e);
  EstimateUtilization(w, hw, c, x, recomputed_share, cluster_gpus, e);
  return e;
}

}  // namespace dcplan::reference

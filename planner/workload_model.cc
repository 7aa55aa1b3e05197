// File: planner/workload_model.cc
//
// The step-time model. Per-layer figures are worked out per GPU and per micro-batch of b sequences
// of s tokens (tok = b s), with t = tp, p = pp, d = dp, v = virtual stages, h = hidden, a = heads,
// f = ffn_hidden, V = vocab, l = layers, P_L = one layer's parameters.
#include "planner/workload_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"
#include "planner/workload_defaults.h"

namespace dcplan {
namespace {

using units::Compute;
using units::Data;
using units::DataRate;
using units::Ratio;
using units::Time;

inline double D(int64_t v) { return static_cast<double>(v); }
inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

// A reduce-scatter or all-gather of a `bytes` buffer over `ranks` ranks of which `per_domain` share
// a scale-up domain. Hierarchical: a ring inside the domain moves (k-1)/k of the buffer over the
// scale-up link in k-1 steps; then the n = ceil(ranks / k) domains exchange, each GPU carrying its
// 1/k shard over its own NICs ((n-1)/n of it, with ceil(log2 n) latency steps as tree-style
// algorithms take at scale). An all-reduce is a reduce-scatter plus an all-gather: twice this.
Levels OneWayCollective(Data bytes, int64_t ranks, int64_t per_domain, const Link& up,
                        const Link& out) {
  Levels c;
  if (ranks <= 1) return c;
  const int64_t k = std::clamp<int64_t>(per_domain, 1, ranks);
  const int64_t n = CeilDiv(ranks, k);
  if (k > 1) c.scale_up = (D(k - 1) / D(k)) * bytes / up.bandwidth + D(k - 1) * up.latency;
  if (n > 1) {
    c.scale_out = (D(n - 1) / D(n)) * (bytes / D(k)) / out.bandwidth +
                  std::ceil(std::log2(D(n))) * out.latency;
  }
  return c;
}

Levels AllReduce(Data bytes, int64_t ranks, int64_t per_domain, const Link& up, const Link& out) {
  const Levels one = OneWayCollective(bytes, ranks, per_domain, up, out);
  return one + one;
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
StageSplit SplitStages(int64_t l, int64_t p, Time w_layer, Time w_out, bool balance) {
  StageSplit s;
  if (p <= 1) return StageSplit{l, true, l, l};
  if (!balance || w_layer <= units::Seconds(0.0)) {
    const int64_t k = CeilDiv(l, p);
    return StageSplit{k, true, k, k};
  }
  const int64_t k_max = CeilDiv(l, p - 1);  // beyond it the last stage is empty anyway
  const double k_star = units::InFraction((D(l) * w_layer + w_out) / (D(p) * w_layer));
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

double LayerParamsFromShape(const Workload& w) {
  const double h = w.hidden();
  const double heads = std::max<uint32_t>(w.heads(), 1);
  const double kv = w.kv_heads() > 0 ? w.kv_heads() : heads;
  const double f = w.ffn_hidden() > 0 ? w.ffn_hidden() : defaults::kFfnMultiple * h;
  // q and o: h x h each; k and v: h x (h kv / heads) each; MLP: 2 (or 3 when gated) h x f.
  return 2.0 * h * h + 2.0 * h * (h * kv / heads) + (w.gated_mlp() ? 3.0 : 2.0) * h * f;
}

double ParamsFromShape(const Workload& w) {
  return static_cast<double>(w.layers()) * LayerParamsFromShape(w) +
         static_cast<double>(w.vocab()) * static_cast<double>(w.hidden());
}

absl::StatusOr<WorkloadModel> BuildWorkloadModel(const Workload& p) {
  WorkloadModel w;
  w.name = p.name();
  w.layers = p.layers();
  w.hidden = p.hidden();
  w.heads = p.heads();
  w.kv_heads = p.kv_heads() > 0 ? p.kv_heads() : p.heads();
  w.ffn_hidden = p.ffn_hidden() > 0 ? p.ffn_hidden() : defaults::kFfnMultiple * int64_t{p.hidden()};
  w.vocab = p.vocab();
  w.seq_len = p.seq_len();
  w.gated_mlp = p.gated_mlp();
  const double output_params = D(w.vocab) * D(w.hidden);
  w.params = p.params() > 0 ? p.params() : ParamsFromShape(p);
  w.layer_params = (w.params - output_params) / D(w.layers);
  if (p.global_batch_sequences() > 0) {
    w.global_batch = static_cast<int64_t>(p.global_batch_sequences());
  } else {
    w.global_batch =
        static_cast<int64_t>(CeilDiv(static_cast<int64_t>(p.global_batch_tokens()), w.seq_len));
  }
  w.precision =
      units::Bytes(p.has_precision_bytes() ? p.precision_bytes() : defaults::kPrecisionBytes);
  w.gradient_element =
      units::Bytes(p.has_gradient_bytes() ? p.gradient_bytes() : defaults::kGradientBytes);
  w.has_train_tokens = p.train_tokens() > 0;
  w.train_tokens = p.train_tokens();
  const Framework& fw = p.framework();
  w.flash_attention = fw.has_flash_attention() ? fw.flash_attention() : defaults::kFlashAttention;
  w.sequence_parallel =
      fw.has_sequence_parallel() ? fw.sequence_parallel() : defaults::kSequenceParallel;
  w.distributed_optimizer =
      fw.has_distributed_optimizer() ? fw.distributed_optimizer() : defaults::kDistributedOptimizer;
  w.overlap_gradient_sync =
      fw.has_overlap_gradient_sync() ? fw.overlap_gradient_sync() : defaults::kOverlapGradientSync;
  w.pipeline_scatter_gather = fw.has_pipeline_scatter_gather() ? fw.pipeline_scatter_gather()
                                                               : defaults::kPipelineScatterGather;
  w.balance_pipeline_stages = fw.has_balance_pipeline_stages() ? fw.balance_pipeline_stages()
                                                               : defaults::kBalancePipelineStages;
  const Parallelism& par = p.parallelism();
  w.fixed_tp = par.tp();
  w.fixed_pp = par.pp();
  w.fixed_dp = par.dp();
  w.fixed_micro_batch = par.micro_batch();
  w.fixed_virtual_stages = par.virtual_stages();
  w.fixed_recompute = par.recompute();
  // PaLM: 6 N per token for the matrices (forward 2 N, backward 4 N) and 12 l s h for attention
  // scores and their weighted sum (forward 4 l s h, non-causal, as PaLM counts it).
  w.model_flops_per_token =
      units::Flops(6.0 * w.params + 12.0 * D(w.layers) * D(w.seq_len) * D(w.hidden));
  return w;
}

CalibrationModel BuildCalibration(const EfficiencyCalibration& c) {
  CalibrationModel m;
  m.kernel_efficiency = units::Fraction(c.has_kernel_efficiency() ? c.kernel_efficiency()
                                                                  : defaults::kKernelEfficiency);
  m.scale_up_bandwidth_efficiency = units::Fraction(c.has_scale_up_bandwidth_efficiency()
                                                        ? c.scale_up_bandwidth_efficiency()
                                                        : defaults::kScaleUpBandwidthEfficiency);
  m.scale_out_bandwidth_efficiency = units::Fraction(c.has_scale_out_bandwidth_efficiency()
                                                         ? c.scale_out_bandwidth_efficiency()
                                                         : defaults::kScaleOutBandwidthEfficiency);
  m.memory_bound_factor = units::Fraction(
      c.has_memory_bound_factor() ? c.memory_bound_factor() : defaults::kMemoryBoundFactor);
  m.gradient_sync_overlap = units::Fraction(
      c.has_gradient_sync_overlap() ? c.gradient_sync_overlap() : defaults::kGradientSyncOverlap);
  m.scale_up_latency =
      units::Seconds(c.has_scale_up_latency_seconds() ? c.scale_up_latency_seconds()
                                                      : defaults::kScaleUpLatencySeconds);
  m.scale_out_latency =
      units::Seconds(c.has_scale_out_latency_seconds() ? c.scale_out_latency_seconds()
                                                       : defaults::kScaleOutLatencySeconds);
  m.hbm_usable_fraction = units::Fraction(
      c.has_hbm_usable_fraction() ? c.hbm_usable_fraction() : defaults::kHbmUsableFraction);
  return m;
}

TrainingHardware BuildTrainingHardware(const Hardware& p) {
  TrainingHardware hw;
  hw.peak = units::FlopsPerSecond(p.accelerator().peak_flops_per_second());
  hw.hbm = units::Bytes(p.accelerator().hbm_bytes());
  hw.hbm_bandwidth = units::BytesPerSecond(p.accelerator().hbm_bandwidth_bytes_per_second());
  const Network& net = p.network();
  hw.scale_up_gpus = net.scale_up_domain_gpus() > 0
                         ? net.scale_up_domain_gpus()
                         : std::max<uint32_t>(p.server().gpus_per_server(), 1);
  hw.scale_up_bandwidth = units::BytesPerSecond(net.scale_up_bandwidth_bytes_per_second());
  // Bits per second on the wire; 8 bits a byte.
  hw.scale_out_bandwidth =
      units::BytesPerSecond(D(net.nics_per_gpu()) * net.port_bits_per_second() / 8.0);
  const double oversub = net.has_leaf_oversubscription() ? net.leaf_oversubscription() : 1.0;
  hw.leaf_oversubscription = units::Fraction(oversub);
  if (net.nics_per_gpu() > 0 && net.switch_radix() > 0) {
    // A leaf of radix k with oversubscription o = down/up gives k o / (1 + o) ports to endpoints
    // (as planner/model.cc sizes the fabric).
    const double down = std::floor(D(net.switch_radix()) * oversub / (1.0 + oversub) + 1e-9);
    hw.leaf_gpus = std::max<int64_t>(1, static_cast<int64_t>(down) / net.nics_per_gpu());
  }
  hw.calibration = BuildCalibration(p.calibration());
  return hw;
}

StepEstimate EstimateStep(const WorkloadModel& w, const TrainingHardware& hw,
                          const ParallelConfig& c, int64_t cluster_gpus) {
  StepEstimate e;
  const CalibrationModel& cal = hw.calibration;
  const double t = D(c.tp), p = D(c.pp), d = D(c.dp), v = D(c.virtual_stages);
  const double s = D(w.seq_len), h = D(w.hidden), a = D(w.heads), f = D(w.ffn_hidden);
  const double vocab = D(w.vocab), l = D(w.layers);
  const double tok = D(c.micro_batch) * s;  // tokens per micro-batch
  const bool full = c.recompute == RECOMPUTE_FULL;
  const bool selective = c.recompute == RECOMPUTE_SELECTIVE;
  const units::ComputeRate achieved = hw.peak * cal.kernel_efficiency;
  const DataRate hbm_rate = hw.hbm_bandwidth / cal.memory_bound_factor;
  const Link up{hw.scale_up_bandwidth * cal.scale_up_bandwidth_efficiency, cal.scale_up_latency};
  // The scale-out link slows by the leaf's oversubscription once a data-parallel group leaves its
  // leaf.
  const bool beyond_leaf = hw.leaf_gpus > 0 && c.tp * c.dp > hw.leaf_gpus;
  const Link out{hw.scale_out_bandwidth * cal.scale_out_bandwidth_efficiency /
                     (beyond_leaf ? hw.leaf_oversubscription : units::Fraction(1.0)),
                 cal.scale_out_latency};
  const bool no_fabric = hw.scale_out_bandwidth <= units::BytesPerSecond(0.0);
  if (no_fabric && c.Gpus() > hw.scale_up_gpus) e.infeasible = Infeasible::kNoScaleOut;

  // --- One layer, one micro-batch, one GPU. ---
  // Matrix FLOPs of the forward pass: 2 P_L per token for the weights, 4 s h for the attention core
  // (QK^T and the weighted sum of V); the backward pass is twice the forward. Full recomputation
  // reruns the forward, selective recomputation only the attention core.
  const Compute fwd_dense = units::Flops(tok * 2.0 * w.layer_params / t);
  const Compute fwd_attn = units::Flops(tok * 4.0 * s * h / t);
  const Compute layer_flops = 3.0 * (fwd_dense + fwd_attn) +
                              (full ? fwd_dense + fwd_attn : units::Flops(0.0)) +
                              (selective ? fwd_attn : units::Flops(0.0));
  const Time layer_compute = layer_flops / achieved;
  // Memory-bound HBM traffic of the forward pass, in elements per token: 10 h for the two norms and
  // the two dropout + residual adds (replicated over the tensor-parallel group unless sequence
  // parallel), 2 f (3 f gated) for the activation function and 6 h for reshapes and bias adds,
  // split over tp, and, without flash attention, 6.5 passes over the a x s attention scores
  // (written by QK^T, softmax read and written, dropout read, written and masked, read by the
  // product with V). The backward pass moves twice as much; full recomputation adds one forward
  // pass.
  const double replicated = 10.0 * h / (w.sequence_parallel ? t : 1.0);
  const double split = ((w.gated_mlp ? 3.0 : 2.0) * f + 6.0 * h) / t;
  const double scores = w.flash_attention ? 0.0 : 6.5 * a * s / t;
  const double layer_elements =
      tok * ((replicated + split + scores) * (full ? 4.0 : 3.0) + (selective ? scores : 0.0));
  const Time layer_memory = layer_elements * w.precision / hbm_rate;
  // Tensor parallel: per layer two all-reduces (or reduce-scatter + all-gather pairs) of the
  // micro-batch's activations forward, two backward, two more when the forward is recomputed.
  Time layer_tp = units::Seconds(0.0);
  if (c.tp > 1) {
    const Data message = tok * h * w.precision;
    layer_tp = (full ? 6.0 : 4.0) *
               AllReduce(message, c.tp, std::min(c.tp, hw.scale_up_gpus), up, out).Total();
  }
  const Time w_layer = layer_compute + layer_memory + layer_tp;
  // The output layer and loss (last stage): 2 V h FLOPs per token forward, 3x with the backward
  // (never recomputed), and the fp32 logits written and read forward and backward (16 V bytes per
  // token).
  const Compute out_flops = units::Flops(3.0 * tok * 2.0 * vocab * h / t);
  const Time out_compute = out_flops / achieved;
  const Time out_memory = units::Bytes(16.0 * tok * vocab / t) / hbm_rate;
  const Time w_out = out_compute + out_memory;

  // --- The slowest stage and the pipeline. ---
  const StageSplit split_stages =
      SplitStages(w.layers, c.pp, w_layer, w_out, w.balance_pipeline_stages);
  const double heavy = D(split_stages.heaviest_layers);
  const double with_out = split_stages.heaviest_has_output ? 1.0 : 0.0;
  const Time stage = heavy * w_layer + with_out * w_out;
  // Pipeline sends: each micro-batch's activation forward and its gradient backward, at every chunk
  // boundary (v per stage). Stages are tp x dp ranks apart (pipeline outermost), so they share a
  // scale-up domain only when tp x dp is smaller than the domain. With scatter-gather (or sequence
  // parallelism) each tensor-parallel rank sends 1/tp of the activation.
  Time p2p = units::Seconds(0.0);
  if (c.pp > 1) {
    const bool sliced = (w.pipeline_scatter_gather || w.sequence_parallel) && c.tp > 1;
    const Data full_message = tok * h * w.precision;
    const Data message = sliced ? full_message / t : full_message;
    const bool inside = c.tp * c.dp < hw.scale_up_gpus;
    if (!inside && no_fabric) e.infeasible = Infeasible::kNoScaleOut;
    const Link& link = inside ? up : out;
    Time one = message / link.bandwidth + link.latency;
    if (sliced && !w.sequence_parallel) {
      // The receiving tensor-parallel group all-gathers the slices over the scale-up domain.
      one += OneWayCollective(full_message, c.tp, c.tp, up, out).Total();
    }
    p2p = 2.0 * v * one;
  }
  const Time per_micro_batch = stage + p2p;
  e.micro_batches = CeilDiv(w.global_batch, c.dp * c.micro_batch);
  const double m = D(e.micro_batches);
  e.compute = m * (heavy * layer_compute + with_out * out_compute);
  e.memory_bound = m * (heavy * layer_memory + with_out * out_memory);
  e.tensor_parallel = m * heavy * layer_tp;
  e.pipeline_p2p = m * p2p;
  e.pipeline_bubble = ((p - 1.0) / v) * per_micro_batch;

  // --- Parameters on the most loaded stage, data parallel and optimizer. ---
  const double stage_layers = D(std::max(split_stages.first_layers, split_stages.last_layers));
  // The embedding (first stage) and the output layer (last stage) each add V h.
  const double gpu_params = (stage_layers * w.layer_params + vocab * h) / t;
  const Data gradient_bytes = gpu_params * w.gradient_element;
  const Data param_bytes = gpu_params * w.precision;
  // Data-parallel peers sit tp ranks apart, so a domain of D GPUs holds D / tp of them.
  const int64_t per_domain = c.tp < hw.scale_up_gpus ? hw.scale_up_gpus / c.tp : 1;
  Levels sync;
  if (w.distributed_optimizer) {
    sync = OneWayCollective(gradient_bytes, c.dp, per_domain, up, out) +
           OneWayCollective(param_bytes, c.dp, per_domain, up, out);
  } else {
    sync = AllReduce(gradient_bytes, c.dp, per_domain, up, out);
  }
  if (no_fabric && c.dp > 1 && CeilDiv(c.dp, std::clamp<int64_t>(per_domain, 1, c.dp)) > 1) {
    e.infeasible = Infeasible::kNoScaleOut;
  }
  e.data_parallel_scale_up = sync.scale_up;
  e.data_parallel_scale_out = sync.scale_out;
  e.data_parallel = sync.Total();
  // The sync can run during the last micro-batch's backward pass (2 of 3 passes, 3 of 4 with full
  // recomputation), never longer.
  const Time window = stage * ((full ? 3.0 : 2.0) / (full ? 4.0 : 3.0));
  const Time hidden_sync = w.overlap_gradient_sync
                               ? std::min(cal.gradient_sync_overlap * e.data_parallel, window)
                               : units::Seconds(0.0);
  e.data_parallel_exposed = e.data_parallel - hidden_sync;
  // Adam: read the gradient and fp32 master weight, m and v; write the last three and the weight.
  const double shards = w.distributed_optimizer ? d : 1.0;
  const Data optimizer_traffic =
      (gpu_params / shards) * (w.gradient_element + units::Bytes(24.0) + w.precision);
  e.optimizer = optimizer_traffic / hbm_rate;
  e.step = m * per_micro_batch + e.pipeline_bubble + e.data_parallel_exposed + e.optimizer;

  // --- Memory per GPU. ---
  e.weights = param_bytes;
  e.gradients = gradient_bytes;
  e.optimizer_state = (gpu_params / shards) * units::Bytes(12.0);  // fp32 master, Adam m and v
  // Activations per layer and micro-batch (Korthikanti et al. 2022, counted at 2 bytes per element
  // and scaled to the precision): 10 h per token replicated over tp unless sequence parallel, 8 h +
  // 4 f (6 f gated) split over tp, and 5 a s for the attention scores unless flash attention or
  // selective recomputation drops them. Full recomputation keeps only the layer input (2 h) plus
  // one layer's worth while it recomputes.
  const double scale = units::InBytes(w.precision) / 2.0;
  const double rep_div = w.sequence_parallel ? t : 1.0;
  const bool keep_scores = !w.flash_attention && !selective;
  const Data layer_all =
      units::Bytes(tok * scale *
                   (10.0 * h / rep_div + (8.0 * h + (w.gated_mlp ? 6.0 : 4.0) * f) / t +
                    (keep_scores ? 5.0 * a * s / t : 0.0)));
  const Data layer_kept = full ? units::Bytes(tok * scale * 2.0 * h / rep_div) : layer_all;
  const Data working = full ? layer_all : units::Bytes(0.0);
  // 1F1B: the first stage holds min(m, p) micro-batches in flight, (1 + (p-1)/(p v)) times that
  // when interleaved; the last stage holds one, plus the fp32 logits and their gradient.
  const double in_flight =
      std::min(m, p) * (c.virtual_stages > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0);
  const Data logits = units::Bytes(8.0 * tok * vocab / t);
  const Data first_stage = D(split_stages.first_layers) * in_flight * layer_kept + working +
                           (c.pp == 1 ? logits : units::Bytes(0.0));
  const Data last_stage = D(split_stages.last_layers) * layer_kept + working + logits;
  e.activations = std::max(first_stage, last_stage);
  e.memory = e.weights + e.gradients + e.optimizer_state + e.activations;
  e.memory_usable = hw.hbm * cal.hbm_usable_fraction;
  if (e.infeasible == Infeasible::kNone && e.memory > e.memory_usable) {
    e.infeasible = Infeasible::kMemory;
  }

  // --- Utilization over the whole cluster. ---
  const double tokens = D(w.global_batch) * s;
  e.model_flops_per_step = tokens * w.model_flops_per_token;
  const Compute recomputed = units::Flops(
      tokens * l * (full ? 2.0 * w.layer_params + 4.0 * s * h : (selective ? 4.0 * s * h : 0.0)));
  const units::ComputeRate cluster_peak = D(std::max(cluster_gpus, c.Gpus())) * hw.peak;
  e.mfu = e.model_flops_per_step / (e.step * cluster_peak);
  e.hfu = (e.model_flops_per_step + recomputed) / (e.step * cluster_peak);
  return e;
}

std::string DescribeConfig(const ParallelConfig& c) {
  const char* r = c.recompute == RECOMPUTE_FULL        ? "full"
                  : c.recompute == RECOMPUTE_SELECTIVE ? "selective"
                                                       : "none";
  return absl::StrFormat("tp=%d pp=%d dp=%d micro_batch=%d virtual_stages=%d recompute=%s", c.tp,
                         c.pp, c.dp, c.micro_batch, c.virtual_stages, r);
}

}  // namespace dcplan

// File: planner/workload/workload_model.cc
//
// The step-time model. Per-layer figures are worked out per GPU and per micro-batch of b sequences
// of s tokens (tok = b s), with t = tp, p = pp, d = dp, v = virtual stages, h = hidden, a = heads,
// f = ffn_hidden, V = vocab, l = layers, P_L = one layer's parameters.
#include "planner/workload/workload_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"
#include "base/numbers.h"
#include "planner/workload/power_limit.h"
#include "planner/workload/workload_defaults.h"

namespace dcplan {
namespace {

using units::Compute;
using units::Data;
using units::DataRate;
using units::Ratio;
using units::Time;

inline double D(int64_t v) { return static_cast<double>(v); }

// std::floor and std::ceil, bit for bit (signed zeros, NaNs and infinities included), without the
// library call that x86-64 before SSE4.1 makes of them: below 2^52 in magnitude the truncation to
// int64 is exact, one step corrects it, and the result has the argument's sign
// (a zero too); beyond that every double is already whole (or not finite) and goes to the library.
// For the step's pipeline split, buckets and partial recomputation; the multiplies' wave
// quantization (a chain of three) keeps the library's, faster there.
constexpr double kTwo52 = 4503599627370496.0;
inline double Floor(double x) {
  if (!(std::fabs(x) < kTwo52)) return std::floor(x);
  double t = static_cast<double>(static_cast<int64_t>(x));
  if (t > x) t -= 1.0;
  return std::copysign(t, x);
}
inline double Ceil(double x) {
  if (!(std::fabs(x) < kTwo52)) return std::ceil(x);
  double t = static_cast<double>(static_cast<int64_t>(x));
  if (t < x) t += 1.0;
  return std::copysign(t, x);
}

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

// ceil(log2(n)) for n >= 1, as std::ceil(std::log2(double(n))) gives it: by the bit width of n - 1
// below 2^32 (where log2 of a non-power of two is at least 3e-10 from the integer below, far
// more than its rounding), else by the library.
inline double CeilLog2(int64_t n) {
  if (n <= 1) return 0.0;
  if (n <= (int64_t{1} << 32)) {
    return D(64 - __builtin_clzll(static_cast<unsigned long long>(n - 1)));  // NOLINT
  }
  return std::ceil(std::log2(D(n)));
}

// A reduce-scatter or all-gather of a `bytes` buffer over `ranks` ranks of which `per_domain` share
// a scale-up domain, issued as `collectives` calls (gradient buckets) that each pay the latency.
// Hierarchical: a ring inside the domain moves (k-1)/k of the buffer over the scale-up link in k-1
// steps; then the n = ceil(ranks / k) domains exchange, each GPU carrying its 1/k shard over its
// own NICs ((n-1)/n of it, with n - 1 or ceil(log2 n) latency steps). An all-reduce is a
// reduce-scatter plus an all-gather: twice this.
// The collective's shape (what depends on ranks and per_domain alone) is GroupFigures': k =
// per_domain, n = domains, (k-1)/k = up_share, (n-1)/n = out_share, ceil(log2 n) = tree_steps.
inline GroupFigures CollectiveShape(int64_t ranks, int64_t per_domain) {
  GroupFigures g;
  g.ranks = ranks;
  if (ranks <= 1) return g;
  const int64_t k = std::clamp<int64_t>(per_domain, 1, ranks);
  const int64_t n = CeilDiv(ranks, k);
  g.per_domain = k;
  g.domains = n;
  g.up_share = D(k - 1) / D(k);
  g.out_share = D(n - 1) / D(n);
  g.tree_steps = CeilLog2(n);
  return g;
}

Levels OneWayCollective(Data bytes, const GroupFigures& g, const Link& up, const Link& out,
                        Steps steps = Steps::kTree, double collectives = 1.0) {
  Levels c;
  if (g.ranks <= 1) return c;
  const int64_t k = g.per_domain;
  const int64_t n = g.domains;
  if (k > 1) {
    c.scale_up = g.up_share * bytes / up.bandwidth + collectives * D(k - 1) * up.latency;
  }
  if (n > 1) {
    const double out_steps = steps == Steps::kRing ? D(n - 1) : g.tree_steps;
    c.scale_out =
        g.out_share * (bytes / D(k)) / out.bandwidth + collectives * out_steps * out.latency;
  }
  return c;
}

Levels OneWayCollective(Data bytes, int64_t ranks, int64_t per_domain, const Link& up,
                        const Link& out, Steps steps = Steps::kTree, double collectives = 1.0) {
  return OneWayCollective(bytes, CollectiveShape(ranks, per_domain), up, out, steps, collectives);
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
inline PassTimes operator*(double a, const PassTimes& b) {
  return PassTimes{a * b.forward, a * b.backward};
}
// `batch` weight multiplies of the same shape run as one grouped kernel (a mixture of experts'
// local experts: Megatron-Core's grouped GEMM), each m x k by k x n.
inline PassTimes GroupedWeightGemm(double m, double n, double k, double batch, const GemmCost& g) {
  PassTimes r;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return r;
  const Compute f = units::Flops(2.0 * m * n * k * batch);
  r.forward = GemmTime(f, m, n, k, batch, g);
  r.backward = GemmTime(f, m, k, n, batch, g) + GemmTime(f, n, k, m, batch, g);
  return r;
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
  const double candidates[2] = {Floor(k_star), Ceil(k_star)};
  for (double kd : candidates) {
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
  // The block's variant: the style's defaults (proto BlockStyle), explicit fields win.
  const Block& block = p.block();
  const bool llama = block.style() == BLOCK_STYLE_LLAMA;
  w.biases = block.has_biases() ? block.biases() : !llama;
  w.dropout = block.has_dropout() ? block.dropout() : !llama;
  w.rotary = block.has_rotary() ? block.rotary() : llama;
  w.rms_norm = block.norm() == NORM_UNSPECIFIED ? llama : block.norm() == NORM_RMS_NORM;
  w.fp8 = p.precision() == TRAINING_PRECISION_FP8;
  const Fp8Recipe& fp8 = p.fp8();
  w.fp8_attention = w.fp8 && fp8.attention_in_fp8();
  w.fp8_output_layer = w.fp8 && fp8.output_layer_in_fp8();
  w.fp8_current_scaling = w.fp8 && fp8.current_scaling();
  w.fp8_activations = w.fp8 && (fp8.has_activations_in_fp8() ? fp8.activations_in_fp8() : true);
  w.fp8_gemm_speedup = fp8.has_gemm_speedup_over_bf16() ? fp8.gemm_speedup_over_bf16()
                                                        : defaults::kFp8GemmSpeedupOverBf16;
  w.untied_embeddings = p.untied_embeddings();
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
  w.has_train_tokens = p.train_tokens() > 0;
  w.train_tokens = p.train_tokens();
  const Framework& fw = p.framework();
  w.generation =
      fw.generation() == SOFTWARE_GENERATION_UNSPECIFIED ? SOFTWARE_CURRENT : fw.generation();
  // SOFTWARE_MEGATRON_2024 is SOFTWARE_CURRENT's feature set with FlashAttention-2, no
  // tensor-parallel overlap and FP32 gradient reduction.
  const bool latest = w.generation == SOFTWARE_CURRENT;
  const bool current = latest || w.generation == SOFTWARE_MEGATRON_2024;
  const bool since_2022 = current || w.generation == SOFTWARE_MEGATRON_2022;
  w.gradient_element = units::Bytes(p.has_gradient_bytes() ? p.gradient_bytes()
                                    : latest               ? defaults::kCurrentGradientBytes
                                                           : defaults::kGradientBytes);
  // The generation's defaults (proto/workload.proto, SoftwareGeneration); explicit fields win.
  w.flash_attention = fw.has_flash_attention() ? fw.flash_attention() : current;
  w.sequence_parallel = fw.has_sequence_parallel() ? fw.sequence_parallel() : since_2022;
  w.distributed_optimizer = fw.has_distributed_optimizer() ? fw.distributed_optimizer() : current;
  w.selective_recompute_available = since_2022;
  w.overlap_tensor_parallel =
      fw.has_overlap_tensor_parallel() ? fw.overlap_tensor_parallel() : latest;
  w.overlap_pipeline_sends =
      fw.has_overlap_pipeline_sends() ? fw.overlap_pipeline_sends() : current;
  w.overlap_gradient_sync =
      fw.has_overlap_gradient_sync() ? fw.overlap_gradient_sync() : defaults::kOverlapGradientSync;
  w.gradient_bucket_params = fw.gradient_bucket_params() > 0 ? D(fw.gradient_bucket_params())
                             : current                       ? 0.0
                                                             : kFixedBucketParams;
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
  w.fixed_cp = par.cp();
  w.fixed_zero = par.has_zero_stage() ? static_cast<int64_t>(par.zero_stage()) : -1;
  w.framework_zero = w.distributed_optimizer ? 1 : 0;
  w.fsdp_available = latest;
  // PaLM: 6 N per token for the matrices (forward 2 N, backward 4 N) and 12 l s h for attention
  // scores and their weighted sum (forward 4 l s h, non-causal, as PaLM counts it).
  w.model_flops_per_token =
      units::Flops(6.0 * w.params + 12.0 * D(w.layers) * D(w.seq_len) * D(w.hidden));
  w.fixed_ep = par.ep();
  if (p.has_moe()) {
    // Mixture of experts (moe.h): params stays the total (memory, checkpoints); the FLOPs and the
    // recomputation count the active parameters.
    w.moe = BuildMoeModel(p);
    w.params = w.moe.total_params;  // params, or every expert's from the shape
    w.layer_params = (w.moe.active_params - output_params) / D(w.layers);
    w.model_flops_per_token =
        units::Flops(6.0 * w.moe.active_params + 12.0 * D(w.layers) * D(w.seq_len) * D(w.hidden));
  }
  const Reliability& r = p.reliability();
  ReliabilityModel& rel = w.reliability;
  rel.gpu_mtbi =
      units::Hours(r.has_gpu_mtbi_hours() ? r.gpu_mtbi_hours() : defaults::kGpuMtbiHours);
  rel.server_mtbi =
      units::Hours(r.has_server_mtbi_hours() ? r.server_mtbi_hours() : defaults::kServerMtbiHours);
  rel.checkpoint_write = units::BytesPerSecond(r.has_checkpoint_write_bytes_per_second()
                                                   ? r.checkpoint_write_bytes_per_second()
                                                   : defaults::kCheckpointWriteBytesPerSecond);
  rel.checkpoint_per_param =
      units::Bytes(r.has_checkpoint_bytes_per_param() ? r.checkpoint_bytes_per_param()
                                                      : defaults::kCheckpointBytesPerParam);
  rel.restart =
      units::Seconds(r.has_restart_seconds() ? r.restart_seconds() : defaults::kRestartSeconds);
  rel.checkpoint_interval = units::Seconds(r.checkpoint_interval_seconds());
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
  m.gemm_knee =
      units::FlopsPerByteOf(c.has_gemm_knee_flops_per_byte() ? c.gemm_knee_flops_per_byte()
                                                             : defaults::kGemmKneeFlopsPerByte);
  m.compute_units = c.has_compute_units() ? c.compute_units() : defaults::kComputeUnits;
  m.kernel_overhead =
      units::Seconds(c.has_kernel_overhead_seconds() ? c.kernel_overhead_seconds()
                                                     : defaults::kKernelOverheadSeconds);
  m.attention_efficiency = units::Fraction(c.attention_efficiency());
  m.flash_attention_2_efficiency = units::Fraction(c.flash_attention_2_efficiency());
  return m;
}

TrainingHardware BuildTrainingHardware(const Hardware& rated) {
  // Under a GPU power limit every peak rate is the curve's share of the rated one.
  Hardware limited;
  const Hardware& p = WithPowerLimitedPeaks(rated, &limited);
  TrainingHardware hw;
  hw.peak = units::FlopsPerSecond(p.accelerator().peak_flops_per_second());
  hw.peak_fp8 = units::FlopsPerSecond(p.accelerator().peak_fp8_flops_per_second());
  hw.hbm = units::Bytes(p.accelerator().hbm_bytes());
  hw.hbm_bandwidth = units::BytesPerSecond(p.accelerator().hbm_bandwidth_bytes_per_second());
  const Network& net = p.network();
  hw.scale_up_gpus = net.scale_up_domain_gpus() > 0
                         ? net.scale_up_domain_gpus()
                         : std::max<uint32_t>(p.server().gpus_per_server(), 1);
  hw.gpus_per_server = std::max<int64_t>(p.server().gpus_per_server(), 1);
  hw.scale_up_bandwidth = units::BytesPerSecond(net.scale_up_bandwidth_bytes_per_second());
  // NICs x their port speed (quoted in bits per second on the wire).
  hw.scale_out_bandwidth = D(net.nics_per_gpu()) * units::BitsPerSecond(net.port_bits_per_second());
  const double oversub = net.has_leaf_oversubscription() ? net.leaf_oversubscription() : 1.0;
  hw.leaf_oversubscription = units::Fraction(oversub);
  if (net.nics_per_gpu() > 0 && net.switch_radix() > 0) {
    // A leaf of radix k with oversubscription o = down/up gives k o / (1 + o) ports to endpoints
    // (as planner/model.cc sizes the fabric).
    const double down = std::floor(D(net.switch_radix()) * oversub / (1.0 + oversub) + 1e-9);
    hw.leaf_gpus = std::max<int64_t>(1, static_cast<int64_t>(down) / net.nics_per_gpu());
    // A tier-(i + 2) block holds d_(i + 2) blocks of the tier below (planner/fabric.h).
    double block = D(hw.leaf_gpus);
    const int upper = std::min(net.upper_tier_oversubscription_size(),
                               static_cast<int>(hw.upper_block_gpus.size()));
    for (int i = 0; i < upper; ++i) {
      const double o = net.upper_tier_oversubscription(i);
      block *= std::floor(D(net.switch_radix()) * o / (1.0 + o) + 1e-9);
      hw.upper_block_gpus[i] = block < 9e18 ? static_cast<int64_t>(block) : INT64_MAX;
      hw.upper_oversubscription[i] = o;
    }
    hw.upper_tiers = upper;
  }
  hw.calibration = BuildCalibration(p.calibration());
  return hw;
}

namespace {

// The configuration and the hardware as every part of the step model sees them.
struct StepContext {
  double t, p, d, v, cp;  // tp, pp, dp, virtual stages, cp
  double ep;              // expert parallel (mixture of experts)
  double s, h, a, f, vocab, l;
  double kv;   // key (and value) width
  double tok;  // tokens per micro-batch on one GPU
  bool full, selective, partial;
  GemmCost gemm;
  GemmCost linear;  // the weight multiplies: gemm, or at the FP8 peak with 1-byte operands
  DataRate hbm_rate;
  Link up, out;
  bool no_fabric;
  int64_t zero;  // the ZeRO stage, resolved
};

// The FP8 multiplies' ceiling: the BF16 multiplies' (peak x kernel_efficiency) times the FP8
// kernels' measured speedup over BF16 at the same shape, never above the FP8 peak's ratio to
// BF16's (FP8 tensor cores reach a smaller fraction of their peak: 1.75 / 2 of BF16's fraction).
inline units::ComputeRate Fp8GemmCeiling(const WorkloadModel& w, const TrainingHardware& hw) {
  const double ratio = std::min(w.fp8_gemm_speedup, units::InFraction(hw.peak_fp8 / hw.peak));
  return ratio * hw.peak * hw.calibration.kernel_efficiency;
}

// The scale-out link's slowdown for a group of `group` consecutive GPUs: the leaf's
// oversubscription once the group leaves its leaf, and each oversubscribed tier's above whose
// block it outgrows (Meta's 1:7 above 3,072-GPU pods): every GPU of the group sends at once, so the
// uplinks share out.
inline double ScaleOutSlowdown(const TrainingHardware& hw, int64_t group) {
  const bool beyond_leaf = hw.leaf_gpus > 0 && group > hw.leaf_gpus;
  double slowdown = beyond_leaf ? units::InFraction(hw.leaf_oversubscription) : 1.0;
  for (int i = 0; beyond_leaf && i < hw.upper_tiers && group > hw.upper_block_gpus[i]; ++i) {
    slowdown *= hw.upper_oversubscription[i];
  }
  return slowdown;
}

// The fields of the context that depend on the configuration beyond (tp, cp, micro-batch), and
// the workload's counts: cheap, worked out per configuration. The scale-out link is the
// data-parallel group's (GroupFigures).
inline void SetConfigContext(const WorkloadModel& w, const TrainingHardware& hw,
                             const ParallelConfig& c, DataRate scale_out_bandwidth,
                             StepContext& x) {
  x.t = D(c.tp), x.p = D(c.pp), x.d = D(c.dp), x.v = D(c.virtual_stages), x.cp = D(c.cp);
  x.ep = D(c.ep);
  x.s = D(w.seq_len), x.h = D(w.hidden), x.a = D(w.heads), x.f = D(w.ffn_hidden);
  x.vocab = D(w.vocab), x.l = D(w.layers);
  x.full = c.recompute == RECOMPUTE_FULL;
  x.selective = c.recompute == RECOMPUTE_SELECTIVE;
  x.partial = c.recompute == RECOMPUTE_PARTIAL;
  x.out = Link{scale_out_bandwidth, hw.calibration.scale_out_latency};
  x.no_fabric = hw.scale_out_bandwidth <= units::BytesPerSecond(0.0);
  x.zero = c.zero >= 0 ? c.zero : w.framework_zero;
}

inline StepContext MakeStepContext(const WorkloadModel& w, const TrainingHardware& hw,
                                   const ParallelConfig& c) {
  const CalibrationModel& cal = hw.calibration;
  StepContext x;
  SetConfigContext(w, hw, c,
                   hw.scale_out_bandwidth * cal.scale_out_bandwidth_efficiency /
                       ScaleOutSlowdown(hw, c.tp * c.cp * c.dp),
                   x);
  x.kv = x.h * D(w.kv_heads) / x.a;
  // Tokens per micro-batch on one GPU: context parallelism splits each sequence cp ways.
  x.tok = D(c.micro_batch) * x.s / x.cp;
  x.gemm =
      GemmCost{hw.peak * cal.kernel_efficiency, cal.gemm_knee, D(cal.compute_units), w.precision};
  x.linear = w.fp8 ? GemmCost{Fp8GemmCeiling(w, hw), cal.gemm_knee, D(cal.compute_units),
                              units::Bytes(1.0)}
                   : x.gemm;
  x.hbm_rate = hw.hbm_bandwidth / cal.memory_bound_factor;
  x.up = Link{hw.scale_up_bandwidth * cal.scale_up_bandwidth_efficiency, cal.scale_up_latency};
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
  Time ep;          // mixture of experts: the expert-parallel all-to-all
  Time ep_forward;  // one forward pass's share of ep (a rerun pays it again)
  Time total;       // compute + memory + tp + cp + ep
  Time out_compute;
  Time out_memory;
  Time out_total;
};

// The layer's memory-bound HBM traffic and kernel overheads under recomputation `full` or
// `selective`, from the kernels' elements per token.
inline Time LayerMemory(const WorkloadModel& w, const CalibrationModel& cal, const StepContext& x,
                        const LayerKernels& k, bool full, bool selective) {
  const double tok = x.tok;
  // One forward pass's traffic per token (LayerKernels); the backward pass moves twice as much;
  // full recomputation adds one forward pass, selective the attention scores again.
  const double layer_elements = tok * (k.memory_elements_per_token * (full ? 4.0 : 3.0) +
                                       (selective ? k.score_elements_per_token : 0.0) +
                                       k.fp8_forward_elements_per_token * (full ? 2.0 : 1.0) +
                                       k.fp8_backward_elements_per_token);
  // Plus the fixed cost of the layer's kernels: 13 forward, 26 backward, 13 more when the forward
  // is recomputed.
  return layer_elements * w.precision / x.hbm_rate + (full ? 52.0 : 39.0) * cal.kernel_overhead;
}

// Activations per layer and micro-batch, bytes per token (Korthikanti et al. 2022, by block
// variant; e = bytes per element). Replicated over tp unless sequence parallel: the two norms'
// inputs and the QKV and MLP-up inputs (4 h e; the last two 1 byte each with FP8 activations),
// the norms' fp32 statistics (2 x 8 LayerNorm, 2 x 4 RMSNorm) and, with dropout, the two 1-byte
// masks (2 h). Split over tp: queries, keys and values (h + 2 kv) and the attention output (h)
// e, plus an FP8 copy of it (h) with FP8 activations; the MLP's activation input and the MLP-down
// input (2 f e; gated: the gate and up outputs and the down input, 3 f e; the down input 1 byte
// with FP8 activations). Without FlashAttention, unless selective recomputation drops them, the
// softmax output (a s e) and, with dropout, its mask and output (a s (1 + e)). Full
// recomputation keeps only the layer input (h e) plus one layer's worth while it recomputes.
// A GPT block at 2 bytes is Korthikanti's 10 h + (8 h + 4 f) + 5 a s (plus the statistics).
// `keep_scores`: no FlashAttention and no selective recomputation.
inline Data LayerActivations(const WorkloadModel& w, const StepContext& x, bool keep_scores) {
  const double t = x.t, s = x.s, h = x.h, a = x.a, f = x.f, tok = x.tok;
  const double e_bytes = units::InBytes(w.precision);
  const double rep_div = w.sequence_parallel ? t : 1.0;
  const double fp8_saving = w.fp8_activations ? e_bytes - 1.0 : 0.0;  // per element kept in FP8
  const double replicated = 4.0 * h * e_bytes - 2.0 * h * fp8_saving +
                            2.0 * (w.rms_norm ? 4.0 : 8.0) + (w.dropout ? 2.0 * h : 0.0);
  const double kv = x.kv;
  const double attention = (2.0 * h + 2.0 * kv) * e_bytes + (w.fp8_activations ? h : 0.0);
  const double mlp = (w.gated_mlp ? 3.0 : 2.0) * f * e_bytes - f * fp8_saving;
  const double scores =
      keep_scores ? a * s * (e_bytes + (w.dropout ? 1.0 + e_bytes : 0.0)) / t : 0.0;
  Data layer_all = units::Bytes(tok * (replicated / rep_div + (attention + mlp) / t + scores));
  // A mixture of experts keeps each token copy's expert activations and the permuted tokens
  // (moe.h; counted at 2 bytes per element, scaled to the precision).
  if (w.moe.enabled) {
    layer_all += units::Bytes(tok * (e_bytes / 2.0) * w.moe.activation_bytes_delta / t);
  }
  return layer_all;
}

// The kernels of one layer and of the output layer that depend on (tp, cp, micro-batch) alone:
// each weight multiply at its own shape after the tensor-parallel split, tok tokens by the layer's
// input and output widths (q, k, v together; the MLP's up (and gate) projection; the output
// projections), and one forward pass of the attention core; and the rest of LayerKernels, the
// figures by recomputation for every mode (`every_recompute`, for EstimateLayerKernels) or only for
// c's (a single estimate).
inline LayerKernels Kernels(const WorkloadModel& w, const TrainingHardware& hw,
                            const ParallelConfig& c, const StepContext& x, bool every_recompute) {
  const CalibrationModel& cal = hw.calibration;
  const double t = x.t, cp = x.cp, s = x.s, h = x.h, a = x.a, f = x.f, kv = x.kv, tok = x.tok;
  const GemmCost& gemm = x.gemm;
  const GemmCost& linear = x.linear;
  LayerKernels k;
  const double up_width = (w.gated_mlp ? 2.0 : 1.0) * f;
  // A mixture of experts keeps the dense MLP in its dense layers only; its experts' multiplies
  // depend on ep and are added per configuration (ExpertGemms).
  PassTimes gemms =
      WeightGemm(tok, (h + 2.0 * kv) / t, h, linear) + WeightGemm(tok, h, h / t, linear);
  if (w.moe.enabled) {
    gemms = gemms + w.moe.dense_layer_share * (WeightGemm(tok, up_width / t, h, linear) +
                                               WeightGemm(tok, h, f / t, linear));
  } else {
    gemms = gemms + WeightGemm(tok, up_width / t, h, linear) + WeightGemm(tok, h, f / t, linear);
  }
  k.dense_forward = gemms.forward;
  k.dense_backward = gemms.backward;
  // The attention core: per head, scores Q K^T (tok x s by the head size) and their product with V,
  // 4 tok s h / t FLOPs forward over the heads of this GPU (keys span the whole sequence under
  // context parallelism). Without FlashAttention these are two multiplies with the head size as one
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
      // keeps it below the multiplies' ceiling); FP8 attention at that fraction of the FP8 peak.
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
  k.attention_forward = attn_fwd;
  // The output layer and loss (last stage): a tok x h by h x V / t multiply.
  const PassTimes out_gemm =
      WeightGemm(x.tok, x.vocab / x.t, x.h, w.fp8_output_layer ? x.linear : x.gemm);
  k.output_forward = out_gemm.forward;
  k.output_backward = out_gemm.backward;
  // The fp32 logits written and read forward and backward (16 V bytes per token).
  k.output_memory = units::Bytes(16.0 * x.tok * x.vocab / x.t) / x.hbm_rate;
  // Memory-bound HBM traffic of the forward pass, in elements per token: 10 h for the two norms and
  // the two dropout + residual adds (replicated over the tensor-parallel group unless sequence
  // parallel), 2 f (3 f gated) for the activation function and 6 h for reshapes and bias adds,
  // split over tp, and, without flash attention, 4.5 passes over the a x s attention scores
  // (the fused scale-mask-softmax reads and writes them, dropout reads and writes them and writes
  // a one-byte mask; their write by Q K^T and read by the product with V are the multiplies'
  // traffic, counted there).
  // By block variant: RMSNorm moves the same bytes as LayerNorm (a read and a write of h); a block
  // without biases has no bias-add passes (the 6 h), a rotary one reads and writes its queries and
  // keys (2 (h + kv)); the softmax without dropout reads and writes the scores (2 passes, not 4.5).
  const double rep_div = w.sequence_parallel ? t : 1.0;
  const double replicated = 10.0 * h / rep_div;
  const double split = ((w.gated_mlp ? 3.0 : 2.0) * f + (w.biases ? 6.0 * h : 0.0) +
                        (w.rotary ? 2.0 * (h + kv) : 0.0)) /
                       t;
  const double scores = w.flash_attention ? 0.0 : (w.dropout ? 4.5 : 2.0) * a * s / t;
  k.memory_elements_per_token = replicated + split + scores;
  // Mixture of experts: the experts' activation functions and the token permutations (moe.h).
  if (w.moe.enabled) k.memory_elements_per_token += w.moe.memory_elements_delta / t;
  k.score_elements_per_token = scores;
  if (w.fp8) {
    // Transformer Engine's cast_transpose: each FP8 multiply's input (forward) and output gradient
    // (backward) is read once and written twice at 1 byte (the FP8 copy and its transpose, for
    // the weight gradient): 2 elements of traffic per element; current scaling reads it once more
    // for the amax. Inputs: QKV and MLP-up (h, sequence-split under sequence parallelism, cast
    // before the all-gather), attention output (h / t), MLP-down (f / t); output gradients: QKV
    // ((h + 2 kv) / t), attention output and MLP-down (h, sequence-split), MLP-up (up / t).
    const double per_element = w.fp8_current_scaling ? 3.0 : 2.0;
    k.fp8_forward_elements_per_token = per_element * (2.0 * h / rep_div + (h + f) / t);
    k.fp8_backward_elements_per_token =
        per_element * ((h + 2.0 * kv + up_width) / t + 2.0 * h / rep_div);
  }
  // A tensor-parallel group inside the domain never reaches the scale-out link, so its all-reduce
  // does not depend on the data-parallel degree (which slows that link).
  if (c.tp > 1 && c.tp <= hw.scale_up_gpus) {
    k.has_tensor_parallel = true;
    const Data message = x.tok * x.h * w.precision;
    k.tensor_parallel_all_reduce =
        AllReduce(message, c.tp, std::min(c.tp, hw.scale_up_gpus), x.up, x.out).Total();
  }
  // The rest of the step's figures that depend on (tp, cp, micro-batch) alone.
  k.tokens = x.tok;
  k.kv_width = x.kv;
  k.gemm_ceiling = x.gemm.ceiling;
  k.linear_ceiling = x.linear.ceiling;
  k.hbm_rate = x.hbm_rate;
  k.scale_up_bandwidth = x.up.bandwidth;
  k.scale_out_bandwidth = hw.scale_out_bandwidth * cal.scale_out_bandwidth_efficiency;
  // The multiplies above are at the shape's parameter count; the layer's own count rescales them
  // (a mixture of experts: its active parameters over the shape's).
  const double shape_params = 2.0 * h * h + 2.0 * h * kv + (up_width + f) * h;
  k.params_scale = w.moe.enabled ? w.moe.active_scale : w.layer_params / shape_params;
  // By recomputation (none or partial, selective, full) and attention scores kept or not: every
  // case for the search to reuse, or only this configuration's.
  const int mode = x.full ? 2 : (x.selective ? 1 : 0);
  for (int i = 0; i < 3; ++i) {
    if (every_recompute || i == mode) {
      k.layer_memory[i] = LayerMemory(w, cal, x, k, /*full=*/i == 2, /*selective=*/i == 1);
    }
  }
  const int keep = !w.flash_attention && !x.selective ? 1 : 0;
  for (int i = 0; i < 2; ++i) {
    if (every_recompute || i == keep) k.layer_activations[i] = LayerActivations(w, x, i == 1);
  }
  const double e_bytes = units::InBytes(w.precision);
  k.checkpoint_activations = units::Bytes(tok * e_bytes * h / rep_div);
  k.logits = units::Bytes(8.0 * tok * x.vocab / t);
  // A pipeline send: the micro-batch's activation, 1/tp of it per rank with scatter-gather (or
  // sequence parallelism); without sequence parallelism the receiving tensor-parallel group
  // all-gathers the slices over the scale-up domain.
  const bool sliced = (w.pipeline_scatter_gather || w.sequence_parallel) && c.tp > 1;
  k.pipeline_full_message = tok * h * w.precision;
  k.pipeline_message = sliced ? k.pipeline_full_message / t : k.pipeline_full_message;
  if (sliced && !w.sequence_parallel) {
    k.pipeline_gather = OneWayCollective(k.pipeline_full_message, c.tp, c.tp, x.up, x.out).Total();
  }
  return k;
}

// --- Mixture of experts (moe.h). ---
// The experts' multiplies of the mean layer on one GPU, one micro-batch: the router (its tensor-
// parallel slice of tokens by h x E), the routed experts as one grouped multiply of the E / ep
// local experts, each getting the ep ranks' tok x k tokens over E, times load_imbalance on the
// busiest rank (experts split over tp as the dense MLP is: Megatron's expert tensor parallelism
// equal to tp), and the shared experts as one dense MLP of S x f_e. Weighted by the MoE layers'
// share.
inline PassTimes ExpertGemms(const WorkloadModel& w, const StepContext& x) {
  const MoeModel& m = w.moe;
  const double t = x.t, h = x.h, tok = x.tok, fe = D(m.expert_ffn);
  const double gate = w.gated_mlp ? 2.0 : 1.0;
  const double local = D(m.experts) / x.ep;
  const double rows = tok * D(m.top_k) * m.load_imbalance / local;
  PassTimes r = WeightGemm(tok / t, D(m.experts), h, x.gemm) +
                GroupedWeightGemm(rows, gate * fe / t, h, local, x.gemm) +
                GroupedWeightGemm(rows, h, fe / t, local, x.gemm);
  if (m.shared > 0) {
    const double fs = D(m.shared) * fe;
    r = r + WeightGemm(tok, gate * fs / t, h, x.gemm) + WeightGemm(tok, h, fs / t, x.gemm);
  }
  return m.moe_layer_share * r;
}

// The scale-out link an all-to-all of `group` consecutive GPUs sees: the leaf's oversubscription
// once the group leaves its leaf, and each oversubscribed tier above whose block it outgrows (as
// MakeStepContext does for the data-parallel group).
inline Link GroupScaleOut(const TrainingHardware& hw, int64_t group) {
  const CalibrationModel& cal = hw.calibration;
  return Link{
      hw.scale_out_bandwidth * cal.scale_out_bandwidth_efficiency / ScaleOutSlowdown(hw, group),
      cal.scale_out_latency};
}

// The expert-parallel all-to-all of the mean layer: sets ep and ep_forward. The ep ranks are tp x
// cp GPUs apart, so a scale-up domain of D GPUs holds n = min(ep, D / (tp cp)) of them. Each GPU
// sends AllToAllBytes B: B (n - 1) / ep to the ranks in its domain over the scale-up links and B
// (ep - n) / ep to the others over its NICs, both at once (the slower sets the time), plus one
// latency of the slowest link crossed. An ep group inside one NVLink domain (an NVL72 rack holds ep
// 64 at tp 1) never touches the NICs, whose per-GPU bandwidth is a tenth or less of NVLink's. Four
// per layer (dispatch and combine, forward and backward), six with full recomputation; overlapped
// (moe.overlap_all_to_all), only what exceeds the layer's multiplies shows.
inline void LayerExpertParallel(const WorkloadModel& w, const TrainingHardware& hw,
                                const ParallelConfig& c, const StepContext& x, LayerTimes& lt,
                                StepEstimate& e) {
  if (!w.moe.enabled || c.ep <= 1) return;
  const Data bytes = AllToAllBytes(w.moe, x.tok / x.t, x.h, w.precision);
  const int64_t span = c.tp * c.cp;
  const int64_t in_domain = std::clamp<int64_t>(hw.scale_up_gpus / span, 1, c.ep);
  const Time zero = units::Seconds(0.0);
  Time up_time = zero, out_time = zero;
  Time latency = x.up.latency;
  if (in_domain > 1) up_time = (D(in_domain - 1) / x.ep) * bytes / x.up.bandwidth;
  if (in_domain < c.ep) {
    if (x.no_fabric) e.infeasible = Infeasible::kNoScaleOut;
    const Link out = GroupScaleOut(hw, span * c.ep);
    out_time = (D(c.ep - in_domain) / x.ep) * bytes / out.bandwidth;
    latency = out.latency;
  }
  const Time one = w.moe.moe_layer_share * (std::max(up_time, out_time) + latency);
  lt.ep_forward = 2.0 * one;
  lt.ep = (x.full ? 6.0 : 4.0) * one;
  if (w.moe.overlap_all_to_all) {
    lt.ep = std::max(zero, lt.ep - lt.dense);
    lt.ep_forward = std::max(zero, lt.ep_forward - lt.dense_fwd);
  }
}

// The layer's multiplies and attention core: sets dense_fwd, dense, backward_gemms, attn_fwd and
// compute. Full recomputation reruns the forward pass. When `params` overrides the shape's count,
// the multiplies' FLOPs are scaled to it. The backward pass of the attention core is twice the
// forward; selective and full recomputation rerun the forward.
inline void LayerCompute(const WorkloadModel& w, const ParallelConfig& c, const StepContext& x,
                         const LayerKernels& k, LayerTimes& lt) {
  const double forwards = x.full ? 2.0 : 1.0;
  // A mixture of experts adds its experts' multiplies (per configuration: their shapes depend on
  // ep) and scales by its active parameters over the shape's (LayerKernels' params_scale).
  const double params_scale = k.params_scale;
  // (LayerKernels carries them when it has this ep's.)
  const PassTimes experts = !w.moe.enabled ? PassTimes{}
                            : k.experts_ep == c.ep
                                ? PassTimes{k.experts_forward, k.experts_backward}
                                : ExpertGemms(w, x);
  lt.dense_fwd = params_scale * (k.dense_forward + experts.forward);
  lt.dense = forwards * lt.dense_fwd + params_scale * (k.dense_backward + experts.backward);
  lt.backward_gemms = params_scale * (k.dense_backward + experts.backward);
  lt.attn_fwd = k.attention_forward;
  const double attn_passes = 3.0 + (x.full || x.selective ? 1.0 : 0.0);
  lt.compute = lt.dense + attn_passes * k.attention_forward;
}

// Tensor parallel: sets tp and tp_forward.
inline void LayerTensorParallel(const WorkloadModel& w, const TrainingHardware& hw,
                                const ParallelConfig& c, const StepContext& x,
                                const LayerKernels& k, LayerTimes& lt) {
  const double t = x.t;
  const double forwards = x.full ? 2.0 : 1.0;
  // Per layer two all-reduces (or reduce-scatter + all-gather pairs) of the micro-batch's
  // activations forward, two backward, two more when the forward is recomputed.
  Time layer_tp = units::Seconds(0.0);
  Time layer_tp_forward = units::Seconds(0.0);  // one forward pass's share (a rerun pays it again)
  if (c.tp > 1) {
    const Time all_reduce = k.has_tensor_parallel
                                ? k.tensor_parallel_all_reduce
                                : AllReduce(x.tok * x.h * w.precision, c.tp,
                                            std::min(c.tp, hw.scale_up_gpus), x.up, x.out)
                                      .Total();
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
inline LayerTimes EstimateLayer(const StepConstants& m, const ParallelConfig& c,
                                const StepContext& x, const LayerKernels& k, StepEstimate& e) {
  const WorkloadModel& w = *m.workload;
  const TrainingHardware& hw = *m.hardware;
  LayerTimes lt;
  LayerCompute(w, c, x, k, lt);
  lt.memory = k.layer_memory[x.full ? 2 : (x.selective ? 1 : 0)];
  LayerTensorParallel(w, hw, c, x, k, lt);
  lt.cp = LayerContextParallel(w, hw, c, x, lt.attn_fwd, e);
  if (w.moe.enabled) {
    LayerExpertParallel(w, hw, c, x, lt, e);
    // The MoE layer's extra kernels: router, top-k, permute, unpermute, the shared experts' and
    // the grouped multiplies, forward, and twice that backward.
    lt.memory += m.moe_layer_kernels;  // moe_layer_share x 18 x kernel_overhead
  }
  lt.total = lt.compute + lt.memory + lt.tp + lt.cp + lt.ep;
  // The output layer and loss (last stage): a tok x h by h x V / t multiply, forward and backward
  // (never recomputed), and the fp32 logits written and read forward and backward (16 V bytes per
  // token).
  lt.out_compute = k.output_forward + k.output_backward;
  lt.out_memory = k.output_memory;
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
inline PipelineTimes EstimatePipeline(const StepConstants& model, const ParallelConfig& c,
                                      const StepContext& x, const LayerKernels& k,
                                      const LayerTimes& lt, StepEstimate& e) {
  const WorkloadModel& w = *model.workload;
  const TrainingHardware& hw = *model.hardware;
  const double p = x.p, v = x.v;
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
  Time fill_send = units::Seconds(0.0);  // one send on the fill and drain path, never hidden
  if (c.pp > 1) {
    const bool sliced = (w.pipeline_scatter_gather || w.sequence_parallel) && c.tp > 1;
    const Data message = k.pipeline_message;
    const bool inside = c.tp * c.cp * c.dp < hw.scale_up_gpus;
    if (!inside && x.no_fabric) e.infeasible = Infeasible::kNoScaleOut;
    const Link& link = inside ? up : out;
    Time one = message / link.bandwidth + link.latency;
    if (sliced && !w.sequence_parallel) {
      // The receiving tensor-parallel group all-gathers the slices over the scale-up domain.
      one += k.pipeline_gather;
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
    p2p += 2.0 * v * model.chunk_sync;  // 2 x kernel_overhead
  }
  const Time per_micro_batch = stage + p2p;
  e.micro_batches = CeilDiv(w.global_batch, c.dp * c.micro_batch);
  const double m = D(e.micro_batches);
  e.compute = m * (heavy * lt.compute + with_out * lt.out_compute);
  e.memory_bound = m * (heavy * lt.memory + with_out * lt.out_memory);
  e.tensor_parallel = m * heavy * lt.tp;
  e.context_parallel = m * heavy * lt.cp;
  e.expert_parallel = m * heavy * lt.ep;
  e.pipeline_p2p = m * p2p;
  // The bubble: (p - 1) / v micro-batches of the stage's work, and on the fill and drain path the
  // first micro-batch's activation crosses p - 1 stage boundaries forward and its gradient p - 1
  // back, each receiver waiting for the whole send (nothing to overlap it with yet).
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
  // Parameters whose optimizer state this GPU keeps: gpu_params / shards for a dense model; a
  // mixture of experts shards its experts over the expert data-parallel group (shards / ep).
  double optimizer_params;
  // What the data-parallel collectives and the optimizer step need besides.
  double stage_layers;
  double gpu_expert_params;
  Data shared_gradient_bytes;  // the gradients reduced over dp x cp (the experts' apart)
  Data shared_param_bytes;
  double buckets;
  double fp8_cast_params;
};

// --- Parameters on the most loaded stage, data parallel and optimizer. ---
// The ZeRO stage z (x.zero) over the dp x cp ranks: z >= 1 shards the optimizer state, z >= 2 the
// gradients, z = 3 the weights.
//   z 0: one all-reduce of the gradients a step (a reduce-scatter and an all-gather, tree steps).
//   z 1: a reduce-scatter of the gradients and an all-gather of the updated weights a step (rings).
//   z 2: the reduce-scatter every micro-batch (the accumulated gradient is sharded, so each
//        micro-batch's must be reduced before the next overwrites the buffer), the all-gather once.
//   z 3: per micro-batch and layer, the layer's weights all-gathered before its forward and again
//        before its backward (the recomputed forward reuses the backward's gather) and its
//        gradients reduce-scattered after: 2 W + G bytes a micro-batch, one collective per layer
//        (and one for the embedding or output layer). Each gather is prefetched behind the
//        layer before: the forward gathers hide behind the forward pass, the backward gathers and
//        reduce-scatters behind the backward pass, up to gradient_sync_overlap of their time
//        and never longer than the pass.
// Memory: the sharded states divided over the ranks; ZeRO-3 also holds two layers' whole weights
// (the running and the prefetched one) and ZeRO-2 and 3 one bucket (a layer under ZeRO-3) of
// whole gradients, never more than the unsharded copy.
inline StageParams EstimateStageParams(const StepConstants& m, const ParallelConfig& c,
                                       const StepContext& x, const GroupFigures& g,
                                       const PipelineTimes& pl, StepEstimate& e) {
  const WorkloadModel& w = *m.workload;
  const double t = x.t, d = x.d, cp = x.cp;
  const int64_t z = x.zero;
  const double stage_layers = D(std::max(pl.split.first_layers, pl.split.last_layers));
  // The embedding (first stage) and the output layer (last stage) each add V h; one stage holding
  // both holds 2 V h when they are separate matrices.
  const double embedding_params = c.pp == 1 ? m.output_params_one_stage : m.output_params;
  // A mixture of experts: every rank holds the replicated part of a layer and 1/ep of its routed
  // experts (moe.h); the experts' gradients are reduced apart, below.
  const double layer_params_here =
      w.moe.enabled ? w.moe.replicated_layer_params + w.moe.expert_layer_params / x.ep
                    : w.layer_params;
  const double gpu_params = (stage_layers * layer_params_here + embedding_params) / t;
  const double gpu_expert_params =
      w.moe.enabled ? stage_layers * w.moe.expert_layer_params / x.ep / t : 0.0;
  const double gpu_shared_params = gpu_params - gpu_expert_params;
  const Data gradient_bytes = gpu_shared_params * w.gradient_element;
  const Data param_bytes = gpu_shared_params * w.precision;
  // Gradient peers: the dp replicas and, holding the same weights, the cp ranks of each: dp x cp
  // ranks, tp apart, so a domain of D GPUs holds D / tp of them.
  const int64_t ranks = c.dp * c.cp;
  // One collective per gradient bucket; each pays its latency steps. ZeRO-3: one per layer.
  const double bucket_params = g.bucket_params;
  const double layer_units = stage_layers + 1.0;  // the layers and the embedding or output layer
  // ZeRO-3 gathers and reduces layer by layer, a layer larger than a bucket in bucket-sized
  // pieces (Megatron-FSDP's buckets): never fewer collectives than ZeRO-1's buckets.
  const double step_buckets = std::max(1.0, Ceil(gpu_params / bucket_params));
  const double buckets = z >= 3 ? std::max(layer_units, step_buckets) : step_buckets;
  const double shards = z >= 1 ? d * cp : 1.0;
  const double expert_shards = z >= 1 ? std::max(1.0, shards / x.ep) : 1.0;
  const double optimizer_params = gpu_shared_params / shards + gpu_expert_params / expert_shards;
  const double fp8_cast_params = w.fp8 ? stage_layers * w.layer_params / t : 0.0;
  if (x.no_fabric && ranks > 1 && g.domains > 1) {
    e.infeasible = Infeasible::kNoScaleOut;
  }
  // HBM: the weights (and their FP8 copies, cached across the step's micro-batches), gradients
  // and optimizer state as the stage shards them.
  const double layer_here = layer_params_here / t;
  Data weights = gpu_params * w.precision;
  Data gradients = gpu_params * w.gradient_element;
  if (z >= 2) {
    const double whole = z >= 3 ? layer_here : std::min(gpu_params, bucket_params);
    gradients = std::min(gpu_params, optimizer_params + whole) * w.gradient_element;
  }
  Data fp8_copies = fp8_cast_params * units::Bytes(2.0);
  if (z >= 3) {
    weights = std::min(gpu_params, optimizer_params + 2.0 * layer_here) * w.precision;
    fp8_copies = (w.fp8 ? 2.0 * layer_here : 0.0) * units::Bytes(2.0);
  }
  return StageParams{gpu_params,       gradients,    weights + fp8_copies, shards,
                     optimizer_params, stage_layers, gpu_expert_params,    gradient_bytes,
                     param_bytes,      buckets,      fp8_cast_params};
}

// The data-parallel collectives and the optimizer step of the stage `sp` (EstimateStageParams);
// sets the step.
inline void EstimateDataParallel(const StepConstants& model, const ParallelConfig& c,
                                 const StepContext& x, const GroupFigures& g,
                                 const PipelineTimes& pl, const StageParams& sp, StepEstimate& e) {
  const WorkloadModel& w = *model.workload;
  const TrainingHardware& hw = *model.hardware;
  const CalibrationModel& cal = hw.calibration;
  const bool full = x.full;
  const int64_t z = x.zero;
  const Link& up = x.up;
  const Link& out = x.out;
  const Time stage = pl.stage;
  const double m = pl.m;
  const double stage_layers = sp.stage_layers;
  const double gpu_expert_params = sp.gpu_expert_params;
  const Data gradient_bytes = sp.shared_gradient_bytes;
  const Data param_bytes = sp.shared_param_bytes;
  const int64_t ranks = c.dp * c.cp;
  const double bucket_params = g.bucket_params;
  const double buckets = sp.buckets;
  // The collectives of one step (z <= 1) or of one micro-batch (z >= 2: `reduce` per micro-batch;
  // z 3: `gather` twice per micro-batch).
  Levels reduce;
  Levels gather;
  const Steps steps = z >= 1 ? Steps::kRing : Steps::kTree;
  // ZeRO-0's all-reduce is a reduce-scatter and an all-gather of the gradients.
  reduce = OneWayCollective(gradient_bytes, g, up, out, steps, buckets);
  gather = z >= 1 ? OneWayCollective(param_bytes, g, up, out, steps, buckets) : reduce;
  if (gpu_expert_params > 0) {
    // The experts' gradients: over the dp x cp / ep ranks holding the same experts, tp x ep apart.
    const int64_t expert_ranks = std::max<int64_t>(1, ranks / c.ep);
    const int64_t expert_per_domain =
        c.tp * c.ep < hw.scale_up_gpus ? hw.scale_up_gpus / (c.tp * c.ep) : 1;
    const double expert_step_buckets = std::max(1.0, Ceil(gpu_expert_params / bucket_params));
    const double expert_buckets =
        z >= 3 ? std::max(stage_layers, expert_step_buckets) : expert_step_buckets;
    const Levels expert_reduce =
        OneWayCollective(gpu_expert_params * w.gradient_element, expert_ranks, expert_per_domain,
                         up, out, steps, expert_buckets);
    reduce = reduce + expert_reduce;
    gather = gather + (z >= 1 ? OneWayCollective(gpu_expert_params * w.precision, expert_ranks,
                                                 expert_per_domain, up, out, steps, expert_buckets)
                              : expert_reduce);
  }
  const double reduces = z >= 2 ? m : 1.0;
  const double gathers = z >= 3 ? 2.0 * m : 1.0;
  const Levels sync{reduces * reduce.scale_up + gathers * gather.scale_up,
                    reduces * reduce.scale_out + gathers * gather.scale_out};
  e.data_parallel_scale_up = sync.scale_up;
  e.data_parallel_scale_out = sync.scale_out;
  e.data_parallel = sync.Total();
  const Time backward_window = stage * ((full ? 3.0 : 2.0) / (full ? 4.0 : 3.0));
  const Time forward_window = stage - backward_window;
  const Time zero = units::Seconds(0.0);
  const Ratio overlap = cal.gradient_sync_overlap;
  Time hidden_sync = zero;
  if (z >= 3) {
    // Per micro-batch: the forward gathers behind the forward pass, the backward gathers and the
    // reduce-scatters behind the backward pass.
    if (w.overlap_gradient_sync) {
      hidden_sync = m * (std::min(overlap * gather.Total(), forward_window) +
                         std::min(overlap * (gather.Total() + reduce.Total()), backward_window));
    }
  } else if (z >= 1) {
    // The gradient reduction runs during the backward pass (the last micro-batch's, or under
    // ZeRO-2 each micro-batch's: 2 of 3 passes, 3 of 4 with full recomputation), never longer.
    // With overlapped sends the parameter all-gather runs apart from it, behind the next step's
    // first forward pass (the rest of the micro-batch time); otherwise it shares the backward
    // window.
    const bool gather_apart = w.overlap_pipeline_sends;
    const Time reduced = gather_apart ? e.data_parallel - gather.Total() : e.data_parallel;
    if (w.overlap_gradient_sync) {
      hidden_sync = std::min(overlap * reduced, reduces * backward_window) +
                    (gather_apart ? std::min(overlap * gather.Total(), forward_window) : zero);
    }
  } else if (w.overlap_gradient_sync) {
    hidden_sync = std::min(overlap * e.data_parallel, backward_window);
  }
  e.data_parallel_exposed = e.data_parallel - hidden_sync;
  // Adam: read the gradient and fp32 master weight, m and v; write the last three and the weight.
  const double optimizer_params = sp.optimizer_params;
  // FP8: the layers' weights are cast once a step (read 2 bytes, write the FP8 copy and its
  // transpose, 1 byte each) and the copies kept across the micro-batches; under ZeRO-3 each
  // gathered layer is cast where it is used (2 m times a step) and only the two gathered layers'
  // copies are held.
  const double fp8_cast_params = sp.fp8_cast_params;
  const double fp8_casts = z >= 3 ? 2.0 * m : 1.0;
  const Data optimizer_traffic = optimizer_params * model.optimizer_bytes_per_param +
                                 fp8_casts * fp8_cast_params * units::Bytes(4.0);
  e.optimizer = optimizer_traffic / x.hbm_rate;
  e.step = pl.m * pl.per_micro_batch + e.pipeline_bubble + e.data_parallel_exposed + e.optimizer;
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

// Partial recomputation's rerun forwards, added to the step's times after them (AddRerun).
struct Rerun {
  double m = 0, p = 0, v = 0;
  double layers = 0;  // on the slowest stage
  Time fwd_compute, fwd_memory, fwd_tp, ep_forward, fwd_layer;
};

// Partial recomputation: on every stage the fewest layers (the same number k on each, as
// Megatron's --recompute-num-layers) keep only their input, so the most loaded stage fits. Each
// such layer saves (all - checkpoint) per micro-batch in flight and reruns its forward. Updates the
// stages' activations and sets `rerun` (the step's added times); returns the share of layers
// recomputed.
inline double PartialRecompute(const StepContext& x, const LayerTimes& lt, const PipelineTimes& pl,
                               StageMemory& sm, Rerun& rerun, StepEstimate& e) {
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
            ? static_cast<int64_t>(Ceil(units::InFraction(first_excess / per_layer)))
            : 0;
    const int64_t k_last =
        last_excess > units::Bytes(0.0)
            ? static_cast<int64_t>(Ceil(units::InFraction(last_excess / last_saving)))
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
  rerun.m = m;
  rerun.p = p;
  rerun.v = v;
  rerun.layers = std::min(kd, heavy);
  rerun.fwd_compute = lt.dense_fwd + lt.attn_fwd;
  rerun.fwd_memory = lt.memory / 3.0;
  rerun.fwd_tp = lt.tp_forward;
  rerun.ep_forward = lt.ep_forward;
  rerun.fwd_layer = rerun.fwd_compute + rerun.fwd_memory + rerun.fwd_tp + lt.ep_forward;
  e.recomputed_layers = k;
  return most > 0 ? kd / D(most) : 0.0;
}

// Adds partial recomputation's rerun forwards (PartialRecompute) to the step's times, once they
// are set.
inline void AddRerun(const Rerun& r, StepEstimate& e) {
  const double m = r.m, p = r.p, v = r.v, rerun = r.layers;
  e.compute += m * rerun * r.fwd_compute;
  e.memory_bound += m * rerun * r.fwd_memory;
  e.tensor_parallel += m * rerun * r.fwd_tp;
  e.expert_parallel += m * rerun * r.ep_forward;
  e.pipeline_bubble += ((p - 1.0) / v) * rerun * r.fwd_layer;
  e.step += (m + (p - 1.0) / v) * rerun * r.fwd_layer;
}

// --- Memory per GPU. --- Returns the share of layers recomputed (-1: the attention core only).
inline double EstimateMemory(const StepConstants& model, const ParallelConfig& c,
                             const StepContext& x, const LayerKernels& k, const LayerTimes& lt,
                             const PipelineTimes& pl, const StageParams& sp, Rerun& rerun,
                             StepEstimate& e) {
  const WorkloadModel& w = *model.workload;
  const double p = x.p, v = x.v, m = pl.m;
  const bool full = x.full, selective = x.selective, partial = x.partial;
  e.weights = sp.param_bytes;
  e.gradients = sp.gradient_bytes;
  e.optimizer_state = sp.optimizer_params * units::Bytes(12.0);  // fp32 master, Adam m, v
  // One layer's activations (LayerActivations) and what a recomputed layer keeps, from the
  // kernels.
  StageMemory sm;
  sm.layer_all = k.layer_activations[!w.flash_attention && !selective ? 1 : 0];
  sm.checkpoint = k.checkpoint_activations;
  const Data layer_kept = full ? sm.checkpoint : sm.layer_all;
  const Data working = (full || partial) ? sm.layer_all : units::Bytes(0.0);
  // 1F1B: the first stage holds min(m, p) micro-batches in flight, (1 + (p-1)/(p v)) times that
  // when interleaved; the last stage holds one, plus the fp32 logits and their gradient.
  sm.in_flight = std::min(m, p) * (c.virtual_stages > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0);
  const Data logits = k.logits;
  sm.first_stage = D(pl.split.first_layers) * sm.in_flight * layer_kept + working +
                   (c.pp == 1 ? logits : units::Bytes(0.0));
  sm.last_stage = D(pl.split.last_layers) * layer_kept + working + logits;
  e.memory_usable = model.memory_usable;
  sm.states = e.weights + e.gradients + e.optimizer_state;
  double recomputed_share = full ? 1.0 : (selective ? -1.0 : 0.0);  // -1: attention core only
  if (partial) recomputed_share = PartialRecompute(x, lt, pl, sm, rerun, e);
  e.activations = std::max(sm.first_stage, sm.last_stage);
  e.memory = sm.states + e.activations;
  if (e.infeasible == Infeasible::kNone && e.memory > e.memory_usable) {
    e.infeasible = Infeasible::kMemory;
  }
  return recomputed_share;
}

// --- Utilization over the whole cluster. ---
inline void EstimateUtilization(const StepConstants& m, const ParallelConfig& c,
                                double recomputed_share, int64_t cluster_gpus, StepEstimate& e) {
  const WorkloadModel& w = *m.workload;
  const TrainingHardware& hw = *m.hardware;
  // tokens = global batch x s; model FLOPs = tokens x model_flops_per_token; recomputed = tokens x
  // l x (4 s h for the attention core alone, else the share of 2 layer_params + 4 s h).
  e.model_flops_per_step = m.model_flops_per_step;
  const Compute recomputed =
      units::Flops(m.layer_tokens_per_step * (recomputed_share < 0
                                                  ? m.attention_core_flops
                                                  : recomputed_share * m.recomputed_layer_flops));
  const units::ComputeRate cluster_peak = D(std::max(cluster_gpus, c.Gpus())) * hw.peak;
  e.mfu = e.model_flops_per_step / (e.step * cluster_peak);
  e.mfu_at_precision_peak =
      w.fp8 ? e.model_flops_per_step / (e.step * D(std::max(cluster_gpus, c.Gpus())) * hw.peak_fp8)
            : e.mfu;
  e.hfu = (e.model_flops_per_step + recomputed) / (e.step * cluster_peak);
}

}  // namespace

namespace {

// The context of configuration c from the model's constants, the kernels' and the group's figures:
// MakeStepContext's, bit for bit.
inline StepContext ContextFromModel(const StepConstants& m, const ParallelConfig& c,
                                    const LayerKernels& k, const GroupFigures& g) {
  const WorkloadModel& w = *m.workload;
  const CalibrationModel& cal = m.hardware->calibration;
  StepContext x;
  x.t = D(c.tp), x.p = D(c.pp), x.d = D(c.dp), x.v = D(c.virtual_stages), x.cp = D(c.cp);
  x.ep = D(c.ep);
  x.s = m.s, x.h = m.h, x.a = m.a, x.f = m.f, x.vocab = m.vocab, x.l = m.l;
  x.full = c.recompute == RECOMPUTE_FULL;
  x.selective = c.recompute == RECOMPUTE_SELECTIVE;
  x.partial = c.recompute == RECOMPUTE_PARTIAL;
  x.out = Link{g.scale_out_bandwidth, cal.scale_out_latency};
  x.no_fabric = m.no_fabric;
  x.zero = c.zero >= 0 ? c.zero : w.framework_zero;
  x.kv = k.kv_width;
  x.tok = k.tokens;
  x.gemm = GemmCost{k.gemm_ceiling, cal.gemm_knee, m.compute_units, w.precision};
  x.linear = w.fp8 ? GemmCost{k.linear_ceiling, cal.gemm_knee, m.compute_units, units::Bytes(1.0)}
                   : x.gemm;
  x.hbm_rate = k.hbm_rate;
  x.up = Link{k.scale_up_bandwidth, cal.scale_up_latency};
  return x;
}

inline StepEstimate EstimateStepIn(const StepConstants& m, const ParallelConfig& c,
                                   const StepContext& x, const LayerKernels& k,
                                   const GroupFigures& g, int64_t cluster_gpus,
                                   bool stop_when_out_of_memory) {
  StepEstimate e;
  if (x.no_fabric && c.Gpus() > m.hardware->scale_up_gpus) e.infeasible = Infeasible::kNoScaleOut;
  const LayerTimes lt = EstimateLayer(m, c, x, k, e);
  const PipelineTimes pl = EstimatePipeline(m, c, x, k, lt, e);
  // Memory reads none of the data-parallel and optimizer times, and they none of it: it comes
  // first, so that a search can stop at a configuration that does not fit.
  const StageParams sp = EstimateStageParams(m, c, x, g, pl, e);
  Rerun rerun;
  const double recomputed_share = EstimateMemory(m, c, x, k, lt, pl, sp, rerun, e);
  if (stop_when_out_of_memory && e.infeasible == Infeasible::kMemory) return e;
  EstimateDataParallel(m, c, x, g, pl, sp, e);
  if (x.partial) AddRerun(rerun, e);
  EstimateUtilization(m, c, recomputed_share, cluster_gpus, e);
  return e;
}

}  // namespace

LayerKernels EstimateLayerKernels(const WorkloadModel& w, const TrainingHardware& hw, int64_t tp,
                                  int64_t cp, int64_t micro_batch) {
  ParallelConfig c;
  c.tp = tp;
  c.cp = cp;
  c.micro_batch = micro_batch;
  return Kernels(w, hw, c, MakeStepContext(w, hw, c), /*every_recompute=*/true);
}

void AddExpertKernels(const WorkloadModel& w, const TrainingHardware& hw, int64_t tp, int64_t ep,
                      LayerKernels& k) {
  if (!w.moe.enabled) return;
  const CalibrationModel& cal = hw.calibration;
  // The context ExpertGemms reads (tp, ep, hidden, tokens, the multiplies' cost), as EstimateStep
  // builds it from the kernels.
  StepContext x;
  x.t = D(tp);
  x.ep = D(ep);
  x.h = D(w.hidden);
  x.tok = k.tokens;
  x.gemm = GemmCost{k.gemm_ceiling, cal.gemm_knee, D(cal.compute_units), w.precision};
  const PassTimes experts = ExpertGemms(w, x);
  k.experts_ep = ep;
  k.experts_forward = experts.forward;
  k.experts_backward = experts.backward;
}

namespace {

inline GroupFigures GroupFiguresOf(const WorkloadModel& w, const TrainingHardware& hw, int64_t tp,
                                   int64_t cp, int64_t dp) {
  // Gradient peers: the dp replicas and, holding the same weights, the cp ranks of each: dp x cp
  // ranks, tp apart, so a domain of D GPUs holds D / tp of them. One collective per gradient
  // bucket.
  const int64_t ranks = dp * cp;
  GroupFigures g = CollectiveShape(ranks, tp < hw.scale_up_gpus ? hw.scale_up_gpus / tp : 1);
  g.scale_out_bandwidth = hw.scale_out_bandwidth * hw.calibration.scale_out_bandwidth_efficiency /
                          ScaleOutSlowdown(hw, tp * cp * dp);
  g.bucket_params = w.gradient_bucket_params > 0 ? w.gradient_bucket_params
                                                 : std::max(kFixedBucketParams, 1e6 * D(ranks));
  return g;
}

}  // namespace

GroupFigures EstimateGroupFigures(const WorkloadModel& w, const TrainingHardware& hw, int64_t tp,
                                  int64_t cp, int64_t dp) {
  return GroupFiguresOf(w, hw, tp, cp, dp);
}

namespace {

inline StepConstants MakeStepConstants(const WorkloadModel& w, const TrainingHardware& hw) {
  const CalibrationModel& cal = hw.calibration;
  StepConstants m;
  m.workload = &w;
  m.hardware = &hw;
  m.s = D(w.seq_len), m.h = D(w.hidden), m.a = D(w.heads), m.f = D(w.ffn_hidden);
  m.vocab = D(w.vocab), m.l = D(w.layers);
  m.compute_units = D(cal.compute_units);
  m.no_fabric = hw.scale_out_bandwidth <= units::BytesPerSecond(0.0);
  m.memory_usable = hw.hbm * cal.hbm_usable_fraction;
  m.chunk_sync = 2.0 * cal.kernel_overhead;
  m.moe_layer_kernels = w.moe.moe_layer_share * 18.0 * cal.kernel_overhead;
  m.output_params = 1.0 * m.vocab * m.h;
  m.output_params_one_stage = (w.untied_embeddings ? 2.0 : 1.0) * m.vocab * m.h;
  m.optimizer_bytes_per_param = w.gradient_element + units::Bytes(24.0) + w.precision;
  m.tokens_per_step = D(w.global_batch) * m.s;
  m.layer_tokens_per_step = m.tokens_per_step * m.l;
  m.attention_core_flops = 4.0 * m.s * m.h;
  m.recomputed_layer_flops = 2.0 * w.layer_params + 4.0 * m.s * m.h;
  m.model_flops_per_step = m.tokens_per_step * w.model_flops_per_token;
  return m;
}

}  // namespace

StepModel MakeStepModel(const WorkloadModel& w, const TrainingHardware& hw) {
  StepModel m;
  m.constants = MakeStepConstants(w, hw);
  return m;
}

StepEstimate EstimateStep(StepModel& model, const ParallelConfig& c, int64_t cluster_gpus) {
  StepModel& m = model;
  const StepConstants& k = model.constants;
  if (c.tp != m.kernels_tp || c.cp != m.kernels_cp || c.micro_batch != m.kernels_micro_batch) {
    m.kernels = EstimateLayerKernels(*k.workload, *k.hardware, c.tp, c.cp, c.micro_batch);
    m.kernels_tp = c.tp;
    m.kernels_cp = c.cp;
    m.kernels_micro_batch = c.micro_batch;
  }
  if (k.workload->moe.enabled && m.kernels.experts_ep != c.ep) {
    AddExpertKernels(*k.workload, *k.hardware, c.tp, c.ep, m.kernels);
  }
  if (c.tp != m.group_tp || c.cp != m.group_cp || c.dp != m.group_dp) {
    m.group = GroupFiguresOf(*k.workload, *k.hardware, c.tp, c.cp, c.dp);
    m.group_tp = c.tp;
    m.group_cp = c.cp;
    m.group_dp = c.dp;
  }
  return EstimateStepIn(k, c, ContextFromModel(k, c, m.kernels, m.group), m.kernels, m.group,
                        cluster_gpus, /*stop_when_out_of_memory=*/false);
}

StepEstimate EstimateStepIfItFits(const StepModel& model, const ParallelConfig& c,
                                  int64_t cluster_gpus, const LayerKernels& kernels,
                                  const GroupFigures& group) {
  const StepConstants& m = model.constants;
  return EstimateStepIn(m, c, ContextFromModel(m, c, kernels, group), kernels, group, cluster_gpus,
                        /*stop_when_out_of_memory=*/true);
}

StepEstimate EstimateStep(const WorkloadModel& w, const TrainingHardware& hw,
                          const ParallelConfig& c, int64_t cluster_gpus) {
  const StepConstants m = MakeStepConstants(w, hw);
  const StepContext x = MakeStepContext(w, hw, c);
  return EstimateStepIn(m, c, x, Kernels(w, hw, c, x, /*every_recompute=*/false),
                        GroupFiguresOf(w, hw, c.tp, c.cp, c.dp), cluster_gpus,
                        /*stop_when_out_of_memory=*/false);
}

StepEstimate EstimateStep(const WorkloadModel& w, const TrainingHardware& hw,
                          const ParallelConfig& c, int64_t cluster_gpus,
                          const LayerKernels& kernels) {
  const StepConstants m = MakeStepConstants(w, hw);
  const GroupFigures g = GroupFiguresOf(w, hw, c.tp, c.cp, c.dp);
  return EstimateStepIn(m, c, ContextFromModel(m, c, kernels, g), kernels, g, cluster_gpus,
                        /*stop_when_out_of_memory=*/false);
}

StepEstimate EstimateStep(const WorkloadModel& w, const TrainingHardware& hw,
                          const ParallelConfig& c, int64_t cluster_gpus,
                          const LayerKernels& kernels, const GroupFigures& group) {
  const StepConstants m = MakeStepConstants(w, hw);
  return EstimateStepIn(m, c, ContextFromModel(m, c, kernels, group), kernels, group, cluster_gpus,
                        /*stop_when_out_of_memory=*/false);
}

StepEstimate EstimateStepIfItFits(const WorkloadModel& w, const TrainingHardware& hw,
                                  const ParallelConfig& c, int64_t cluster_gpus,
                                  const LayerKernels& kernels, const GroupFigures& group) {
  const StepConstants m = MakeStepConstants(w, hw);
  return EstimateStepIn(m, c, ContextFromModel(m, c, kernels, group), kernels, group, cluster_gpus,
                        /*stop_when_out_of_memory=*/true);
}

int64_t MaxVirtualStages(int64_t layers, int64_t pp) {
  if (pp <= 1) return 1;
  return std::max<int64_t>(1, (layers + (pp > 2 ? 2 : 0)) / pp);
}

std::string DescribeConfig(const ParallelConfig& c) {
  const char* r = c.recompute == RECOMPUTE_FULL        ? "full"
                  : c.recompute == RECOMPUTE_PARTIAL   ? "partial"
                  : c.recompute == RECOMPUTE_SELECTIVE ? "selective"
                                                       : "none";
  return absl::StrFormat(
      "tp=%d cp=%d pp=%d dp=%d micro_batch=%d virtual_stages=%d recompute=%s%s%s", c.tp, c.cp, c.pp,
      c.dp, c.micro_batch, c.virtual_stages, r, c.ep > 1 ? absl::StrFormat(" ep=%d", c.ep) : "",
      c.zero >= 2 ? absl::StrFormat(" zero=%d", c.zero) : "");
}

}  // namespace dcplan

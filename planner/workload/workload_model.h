// File: planner/workload/workload_model.h
//
// The first-principles step-time model of one training job (a dense decoder-only transformer) on
// one parallel configuration: what the seed's MFU curve stands in for. Given the model, the split
// over GPUs (tensor, pipeline, data parallel; micro-batch; interleaving; recomputation) and the
// hardware (peak FLOP/s, HBM, the scale-up domain and the scale-out fabric), one step of training
// takes, on the slowest pipeline stage:
//
//   step = m x T_mb                              m = ceil(batch / (dp x micro_batch)) micro-batches
//        + (pp - 1) / v x T_mb                   the pipeline bubble (v = virtual stages)
//        + exposed data-parallel gradient sync   inside the scale-up domain, then across it
//          (ZeRO-2: per micro-batch; ZeRO-3 / FSDP: weights gathered per layer, forward and
//          backward, gradients reduce-scattered per layer, prefetched behind the compute)
//        + optimizer step                        (memory-bound)
//   T_mb = layers on the stage x (compute + memory-bound kernels + tensor-parallel collectives
//                                 + expert-parallel all-to-all, for a mixture of experts: moe.h)
//        + output layer and loss (on the last stage) + pipeline sends
//
// compute = FLOPs / (peak x kernel efficiency) per multiply shape (FlashAttention at its own
// attention_efficiency); memory-bound kernels = counted HBM traffic x factor / HBM bandwidth; a
// collective of M bytes over n ranks costs 2 (n-1)/n x M / bandwidth plus latency per step, inside
// the domain first and then over the NICs. The data-parallel reduce-scatter and all-gather are
// rings: n - 1 latency steps per gradient bucket, so their cost grows with the data-parallel size;
// the reduce-scatter hides behind the last backward pass, the all-gather behind the next forward.
// With sequence parallelism the backward tensor-parallel collectives hide behind the backward
// multiplies; the forward ones wait (unless userbuffers' overlap_tensor_parallel). Memory per GPU
// (weights, gradients, optimizer state, activations in flight) must fit in the usable HBM.
//
// MFU is reported in the PaLM convention: model FLOPs per token = 6 x params + 12 x layers x
// seq_len x hidden (no recomputation), over every GPU of the cluster at peak; HFU counts the
// recomputation too.
//
// The few constants the physics cannot give (kernel efficiency, achieved link bandwidth, the
// memory-bound factor, the overlap) come from EfficiencyCalibration;
// examples/calibrate_efficiency.cc fits them to published runs. EstimateStep is O(1) and never
// allocates: the parallelism search (parallelism_search.h) calls it millions of times per
// second, with what depends on (tp, cp, micro-batch) alone (LayerKernels) and on (tp, cp, dp) alone
// (GroupFigures) worked out once for many configurations. A caller estimating many configurations
// of one job holds a StepModel (MakeStepModel): what depends on the workload and hardware alone,
// and the last configuration's kernels and group figures.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(WorkloadModel w, BuildWorkloadModel(request.workload()));
//   TrainingHardware hw = BuildTrainingHardware(request.hardware());
//   ParallelConfig c;
//   c.tp = 8;
//   c.pp = 16;
//   c.dp = 64;
//   StepEstimate e = EstimateStep(w, hw, c, /*cluster_gpus=*/8192);
//   StepModel model = MakeStepModel(w, hw);  // many configurations: the same estimates, faster
//   StepEstimate same = EstimateStep(model, c, /*cluster_gpus=*/8192);
//   double mfu = units::InFraction(e.mfu);
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "planner/workload/moe.h"
#include "proto/request.pb.h"
#include "proto/workload.pb.h"
#include "units/units.h"

namespace dcplan {

// One parallel configuration. Counts are >= 1.
struct ParallelConfig {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t dp = 1;
  int64_t micro_batch = 1;
  int64_t virtual_stages = 1;
  Recompute recompute = RECOMPUTE_NONE;
  int64_t cp = 1;  // context parallel: each sequence split over cp GPUs
  // Expert parallel (mixture of experts): the routed experts split over ep of the dp replicas;
  // divides dp, so it adds no GPUs.
  int64_t ep = 1;
  // ZeRO stage over the dp x cp ranks (proto Parallelism.zero_stage): 0 replicated, 1 optimizer
  // state sharded, 2 and gradients, 3 and weights (FSDP); -1 = the framework's (1 with the
  // distributed optimizer, else 0).
  int64_t zero = -1;

  int64_t Gpus() const { return tp * cp * pp * dp; }
};

// The constants of the model, defaults applied (workload_defaults.h).
struct CalibrationModel {
  units::Ratio kernel_efficiency;
  units::Ratio scale_up_bandwidth_efficiency;
  units::Ratio scale_out_bandwidth_efficiency;
  units::Ratio memory_bound_factor;
  units::Ratio gradient_sync_overlap;
  units::Time scale_up_latency;
  units::Time scale_out_latency;
  units::Ratio hbm_usable_fraction;
  // Matrix multiplies: time = FLOPs / (peak x kernel_efficiency x wave) x (1 + knee / intensity);
  // a knee of 0 means every multiply at kernel_efficiency.
  units::FlopsPerByte gemm_knee;
  int64_t compute_units = 0;    // 0 = no tile/wave quantization
  units::Time kernel_overhead;  // per kernel launch
  // Fused attention's fraction of peak; 0 = the multiplies' curve.
  units::Ratio attention_efficiency;
  // FlashAttention-2's fraction of peak, for software before SOFTWARE_CURRENT; 0 = the above.
  units::Ratio flash_attention_2_efficiency;
};

// The hardware as the workload model sees it.
struct TrainingHardware {
  units::ComputeRate peak;      // dense BF16 (the peak MFU is reported against)
  units::ComputeRate peak_fp8;  // dense FP8; 0 = unknown
  units::Data hbm;              // per GPU
  units::DataRate hbm_bandwidth;
  int64_t scale_up_gpus = 1;            // GPUs per scale-up (NVLink) domain
  int64_t gpus_per_server = 1;          // for the failure model
  units::DataRate scale_up_bandwidth;   // per GPU, per direction
  units::DataRate scale_out_bandwidth;  // per GPU: NICs x port speed; 0 = no scale-out fabric
  int64_t leaf_gpus = 0;                // GPUs under one leaf switch; 0 = no fabric
  units::Ratio leaf_oversubscription;   // downlinks per uplink at the leaf (1 = full bisection)
  // The oversubscribed tiers above the leaf (hardware.network.upper_tier_oversubscription): the
  // GPUs under one block of tier i + 2 (a spine's pod, ...) and that tier's downlinks per uplink.
  // A data-parallel group larger than a block crosses its uplinks.
  int upper_tiers = 0;
  std::array<int64_t, 11> upper_block_gpus{};
  std::array<double, 11> upper_oversubscription{};
  CalibrationModel calibration;
};

// Interruptions, checkpoints and restarts (proto Reliability), defaults applied.
struct ReliabilityModel {
  units::Time gpu_mtbi;
  units::Time server_mtbi;
  units::DataRate checkpoint_write;  // aggregate
  units::Data checkpoint_per_param;
  units::Time restart;
  units::Time checkpoint_interval;  // 0 = Young/Daly
};

// The training job, typed, defaults applied. Counts are plain numbers; sizes carry units.
struct WorkloadModel {
  std::string name;
  int64_t layers = 1;
  int64_t hidden = 1;
  int64_t heads = 1;
  int64_t kv_heads = 1;
  int64_t ffn_hidden = 4;
  int64_t vocab = 1;
  int64_t seq_len = 1;
  bool gated_mlp = false;
  // The block's variant (proto Block), defaults applied.
  bool biases = true;
  bool dropout = true;
  bool rotary = false;
  bool rms_norm = false;
  // FP8 multiplies (proto TrainingPrecision, Fp8Recipe), defaults applied.
  bool fp8 = false;
  bool fp8_attention = false;
  bool fp8_output_layer = false;
  bool fp8_current_scaling = false;
  bool fp8_activations = true;
  double fp8_gemm_speedup = 1.75;  // Fp8Recipe.gemm_speedup_over_bf16, default applied
  bool untied_embeddings = false;  // input embedding and output layer apart
  double params = 0;               // N: workload.params, or derived from the shape
  double layer_params = 0;         // one layer's matrices: (N - vocab x hidden) / layers
  int64_t global_batch = 1;        // sequences
  units::Data precision;           // bytes per weight / activation element
  units::Data gradient_element;
  bool has_train_tokens = false;
  double train_tokens = 0;
  // Framework features (proto Framework), defaults applied.
  bool flash_attention = true;
  bool sequence_parallel = true;
  bool distributed_optimizer = true;
  bool overlap_gradient_sync = true;
  bool pipeline_scatter_gather = true;
  bool balance_pipeline_stages = true;
  bool overlap_tensor_parallel = false;
  bool overlap_pipeline_sends = true;
  SoftwareGeneration generation = SOFTWARE_CURRENT;
  // Parameters per data-parallel gradient bucket; 0 = max(40M, 1M x data-parallel ranks).
  double gradient_bucket_params = 0;
  // Selective recomputation exists (Megatron 2022 on).
  bool selective_recompute_available = true;
  // The parallelism the workload fixes; 0 (or RECOMPUTE_UNSPECIFIED) = searched.
  int64_t fixed_tp = 0;
  int64_t fixed_pp = 0;
  int64_t fixed_dp = 0;
  int64_t fixed_micro_batch = 0;
  int64_t fixed_virtual_stages = 0;
  Recompute fixed_recompute = RECOMPUTE_UNSPECIFIED;
  int64_t fixed_cp = 0;
  int64_t fixed_ep = 0;
  int64_t fixed_zero = -1;  // -1 = searched
  // The ZeRO stage the framework runs by default (1 with the distributed optimizer, else 0) and
  // whether fully sharded data parallelism is offered to the search (SOFTWARE_CURRENT).
  int64_t framework_zero = 1;
  bool fsdp_available = true;
  // The mixture of experts (moe.h); enabled false for a dense model. With it, `params` is the
  // total, `layer_params` the active parameters of the mean layer, and the model FLOPs count the
  // active parameters.
  MoeModel moe;
  // PaLM model FLOPs per token: 6 N + 12 x layers x seq_len x hidden (N active for a mixture of
  // experts).
  units::Compute model_flops_per_token;
  ReliabilityModel reliability;

  // True when tp, pp, dp, micro-batch, virtual stages, recomputation and (when the search has a
  // choice) the ZeRO stage are all fixed (cp then follows: given, or 1).
  bool FullyFixed() const {
    return fixed_tp > 0 && fixed_pp > 0 && fixed_dp > 0 && fixed_micro_batch > 0 &&
           fixed_virtual_stages > 0 && fixed_recompute != RECOMPUTE_UNSPECIFIED &&
           (fixed_zero >= 0 || !fsdp_available);
  }
};

// Why a configuration cannot run.
enum class Infeasible {
  kNone = 0,
  kMemory,      // needs more HBM than is usable
  kNoScaleOut,  // spans more than one scale-up domain with no scale-out fabric
};

// One configuration's step, on the slowest pipeline stage. The time terms add up to `step`.
struct StepEstimate {
  Infeasible infeasible = Infeasible::kNone;
  int64_t micro_batches = 0;      // per pipeline per step
  int64_t recomputed_layers = 0;  // RECOMPUTE_PARTIAL: layers per stage that keep only their input
  units::Time step;
  units::Time compute;
  units::Time memory_bound;
  units::Time tensor_parallel;
  units::Time pipeline_p2p;
  units::Time pipeline_bubble;
  units::Time data_parallel_exposed;
  units::Time optimizer;
  units::Time context_parallel;  // ring-attention traffic left after overlap
  units::Time expert_parallel;   // mixture of experts: all-to-all left after overlap
  // The data-parallel sync before overlap, and its two levels.
  units::Time data_parallel;
  units::Time data_parallel_scale_up;
  units::Time data_parallel_scale_out;
  // HBM per GPU on the most loaded stage.
  units::Data weights;
  units::Data gradients;
  units::Data optimizer_state;
  units::Data activations;
  units::Data memory;
  units::Data memory_usable;
  // Over every GPU of the cluster, idle ones included.
  units::Ratio mfu;  // against the BF16 peak, as published tables report it
  units::Ratio hfu;
  // Model FLOPs against the peak of the precision the multiplies run at (FP8's with
  // TRAINING_PRECISION_FP8; equal to mfu with BF16).
  units::Ratio mfu_at_precision_peak;
  units::Compute model_flops_per_step;

  bool Feasible() const { return infeasible == Infeasible::kNone; }
};

// Derived shape figures, for tests and reports.
// Parameters of one layer from the shape alone: attention (q, k, v, o) + MLP matrices.
double LayerParamsFromShape(const Workload& workload);
// Parameters from the shape alone: layers x LayerParamsFromShape + vocab x hidden.
double ParamsFromShape(const Workload& workload);

// Builds the typed job from a workload that passed ValidateWorkload (workload_validate.h).
// Fails only on what validation cannot see alone (none today; kept for symmetry with BuildModel).
absl::StatusOr<WorkloadModel> BuildWorkloadModel(const Workload& workload);

// The calibration with its defaults applied.
CalibrationModel BuildCalibration(const EfficiencyCalibration& calibration);

// The hardware the workload model needs, from a validated request's hardware. Under a GPU power
// limit (hardware.accelerator.power_limit_watts) every peak is scaled by the power curve
// (planner/workload/power_limit.h).
TrainingHardware BuildTrainingHardware(const Hardware& hardware);

// The kernel times of one layer and of the output layer that depend on the configuration only
// through (tp, cp, micro-batch): the weight multiplies (at the shape's parameter count, before
// `params` rescales them), one forward pass of the attention core, and the output layer's
// multiply. The parallelism search works them out once per (tp, cp, micro-batch) and reuses them
// across pipeline depths, data-parallel degrees, virtual stages and recomputation modes.
struct LayerKernels {
  units::Time dense_forward;
  units::Time dense_backward;  // input and weight gradients
  units::Time attention_forward;
  units::Time output_forward;
  units::Time output_backward;
  units::Time output_memory;  // the output layer's logits through HBM
  // The layer's memory-bound HBM traffic of one pass, in elements per token, and its attention
  // scores' share (0 with FlashAttention).
  double memory_elements_per_token = 0;
  double score_elements_per_token = 0;
  // FP8: the casts (with transposes) of the multiplies' inputs in one forward pass and of their
  // output gradients in one backward pass, in elements per token; 0 with BF16.
  double fp8_forward_elements_per_token = 0;
  double fp8_backward_elements_per_token = 0;
  // One tensor-parallel all-reduce of the micro-batch's activations, when tp > 1 and the tp group
  // fits in the scale-up domain (`has_tensor_parallel`); else worked out per configuration.
  bool has_tensor_parallel = false;
  units::Time tensor_parallel_all_reduce;
  // The rest of what the step works out from (tp, cp, micro-batch) alone, so that EstimateStep
  // with these kernels repeats none of it per configuration: the tokens per micro-batch on one
  // GPU and the key width, the multiplies' ceilings, the memory-bound rate, the achieved link
  // bandwidths (scale-out before any oversubscription), the share the layer's parameters scale
  // the shape's multiplies by, the layer's memory-bound time by recomputation (none or partial,
  // selective, full), one layer's activations (without and with its attention scores), what a
  // recomputed layer keeps, the output layer's logits and a pipeline send's message (and its
  // tensor-parallel all-gather).
  double tokens = 0;
  double kv_width = 0;
  units::ComputeRate gemm_ceiling;
  units::ComputeRate linear_ceiling;
  units::DataRate hbm_rate;
  units::DataRate scale_up_bandwidth;
  units::DataRate scale_out_bandwidth;
  double params_scale = 1;
  std::array<units::Time, 3> layer_memory{};
  std::array<units::Data, 2> layer_activations{};
  units::Data checkpoint_activations;
  units::Data logits;
  units::Data pipeline_message;
  units::Data pipeline_full_message;
  units::Time pipeline_gather;
  // A mixture of experts: the experts' multiplies of the mean layer (router, routed and shared
  // experts, weighted by the MoE layers' share; forward, and input and weight gradients) at expert
  // parallelism `experts_ep` (0: none worked out; EstimateStep then works them out itself).
  // AddExpertKernels sets them.
  int64_t experts_ep = 0;
  units::Time experts_forward;
  units::Time experts_backward;
};

// The LayerKernels of `workload` for (tp, cp, micro_batch). O(1), no allocation.
LayerKernels EstimateLayerKernels(const WorkloadModel& workload, const TrainingHardware& hardware,
                                  int64_t tp, int64_t cp, int64_t micro_batch);

// Sets the experts' multiplies of `kernels` (EstimateLayerKernels(workload, hardware, tp, ...)) for
// expert parallelism `ep`; nothing for a dense model. O(1), no allocation.
void AddExpertKernels(const WorkloadModel& workload, const TrainingHardware& hardware, int64_t tp,
                      int64_t ep, LayerKernels& kernels);

// What the step works out from (tp, cp, dp) alone: the scale-out link the data-parallel group
// sees (slowed by the oversubscription it crosses), the shape of its gradient collectives over the
// dp x cp ranks (the ranks per scale-up domain, the domains, their ring shares and tree steps) and
// the gradient bucket. The parallelism search works it out once per (tp, cp, pp, dp) and reuses it
// across micro-batches, virtual stages, recomputation modes, ZeRO stages and expert parallelism.
struct GroupFigures {
  units::DataRate scale_out_bandwidth;  // achieved, per GPU
  int64_t ranks = 1;                    // dp x cp
  int64_t per_domain = 1;               // of them in one scale-up domain, in [1, ranks]
  int64_t domains = 1;                  // ceil(ranks / per_domain)
  double up_share = 0;                  // (per_domain - 1) / per_domain
  double out_share = 0;                 // (domains - 1) / domains
  double tree_steps = 0;                // ceil(log2(domains))
  double bucket_params = 0;             // parameters per gradient bucket
};

// The GroupFigures of `workload` for (tp, cp, dp). O(1), no allocation.
GroupFigures EstimateGroupFigures(const WorkloadModel& workload, const TrainingHardware& hardware,
                                  int64_t tp, int64_t cp, int64_t dp);

// One step of `workload` on configuration `config` in a cluster of `cluster_gpus` GPUs (>=
// config.Gpus(); the others idle and count in MFU). O(1), no allocation. A configuration that
// cannot run still gets its figures, with `infeasible` saying why.
StepEstimate EstimateStep(const WorkloadModel& workload, const TrainingHardware& hardware,
                          const ParallelConfig& config, int64_t cluster_gpus);

// EstimateStep with the kernels already worked out: `kernels` must be EstimateLayerKernels(
// workload, hardware, config.tp, config.cp, config.micro_batch). The same estimate, bit for bit.
StepEstimate EstimateStep(const WorkloadModel& workload, const TrainingHardware& hardware,
                          const ParallelConfig& config, int64_t cluster_gpus,
                          const LayerKernels& kernels);

// EstimateStep with the kernels and the group's figures already worked out: `group` must be
// EstimateGroupFigures(workload, hardware, config.tp, config.cp, config.dp). The same estimate, bit
// for bit.
StepEstimate EstimateStep(const WorkloadModel& workload, const TrainingHardware& hardware,
                          const ParallelConfig& config, int64_t cluster_gpus,
                          const LayerKernels& kernels, const GroupFigures& group);

// The same, for a search that drops what does not fit: when the configuration needs more memory
// than is usable (infeasible == Infeasible::kMemory) it stops there, and only infeasible,
// micro_batches, recomputed_layers and the memory figures (weights, gradients, optimizer_state,
// activations, memory, memory_usable) are EstimateStep's; otherwise the whole estimate is, bit for
// bit.
StepEstimate EstimateStepIfItFits(const WorkloadModel& workload, const TrainingHardware& hardware,
                                  const ParallelConfig& config, int64_t cluster_gpus,
                                  const LayerKernels& kernels, const GroupFigures& group);

// What EstimateStep works out from the workload and the hardware alone: the shape's counts as
// numbers and the constants of the memory, pipeline, optimizer and utilization terms. It points at
// the workload and the hardware, which must outlive it unchanged.
struct StepConstants {
  const WorkloadModel* workload = nullptr;
  const TrainingHardware* hardware = nullptr;
  // seq_len, hidden, heads, ffn_hidden, vocab and layers as numbers; the calibration's compute
  // units.
  double s = 0, h = 0, a = 0, f = 0, vocab = 0, l = 0;
  double compute_units = 0;
  bool no_fabric = false;         // no scale-out fabric
  units::Data memory_usable;      // HBM x hbm_usable_fraction
  units::Time chunk_sync;         // a pipeline chunk boundary's two kernel overheads
  units::Time moe_layer_kernels;  // a mixture of experts: its extra kernels, per mean layer
  // The embedding and the output layer's parameters, V h, and with both on one stage (pp 1) as
  // separate matrices 2 V h.
  double output_params = 0;
  double output_params_one_stage = 0;
  units::Data optimizer_bytes_per_param;  // Adam's traffic: gradient + 24 bytes + weight
  double tokens_per_step = 0;             // global batch x seq_len
  double layer_tokens_per_step = 0;       // and x layers (the recomputed FLOPs)
  double attention_core_flops = 0;        // 4 s h per token and layer
  double recomputed_layer_flops = 0;      // 2 layer_params + 4 s h
  units::Compute model_flops_per_step;
};

// A caller-held step model: the StepConstants, and the LayerKernels and GroupFigures of the last
// configuration its EstimateStep saw. A caller that estimates many configurations of one job (the
// parallelism search, a sweep over configurations) makes one with MakeStepModel and passes it to
// every call. Not thread-safe: one per thread.
struct StepModel {
  StepConstants constants;
  // The kernels of the last (tp, cp, micro-batch) and the figures of the last (tp, cp, dp) (0:
  // none yet).
  int64_t kernels_tp = 0, kernels_cp = 0, kernels_micro_batch = 0;
  LayerKernels kernels;
  int64_t group_tp = 0, group_cp = 0, group_dp = 0;
  GroupFigures group;
};

// The StepModel of `workload` on `hardware` (both must outlive it). O(1), no allocation.
StepModel MakeStepModel(const WorkloadModel& workload, const TrainingHardware& hardware);

// EstimateStep with what the model holds: the same estimate, bit for bit. Reuses the model's
// kernels and group figures when (tp, cp, micro-batch) and (tp, cp, dp) are the last call's, else
// works them out and keeps them.
StepEstimate EstimateStep(StepModel& model, const ParallelConfig& config, int64_t cluster_gpus);

// EstimateStepIfItFits with the model's constants and the caller's kernels and group figures (the
// parallelism search keeps many of them): the same estimate, bit for bit.
StepEstimate EstimateStepIfItFits(const StepModel& model, const ParallelConfig& config,
                                  int64_t cluster_gpus, const LayerKernels& kernels,
                                  const GroupFigures& group);

// The most virtual stages pp pipeline stages allow for `layers` layers: every chunk holds a layer,
// except that the first and the last chunk may hold only the embedding or the output layer (as
// Llama 3 405B runs 126 layers on 16 stages x 8 chunks), so pp x v <= layers + 2 when pp > 1.
int64_t MaxVirtualStages(int64_t layers, int64_t pp);

// "tp=8 pp=16 dp=64 micro_batch=1 v=1 recompute=none" (and " ep=8" when ep > 1, " zero=3" for
// ZeRO stages 2 and 3), for messages.
std::string DescribeConfig(const ParallelConfig& config);

}  // namespace dcplan

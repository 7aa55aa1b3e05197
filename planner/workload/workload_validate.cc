// File: planner/workload/workload_validate.cc
//
// One function per message of proto/workload.proto, in field order. Paths are built only when an
// error is reported.
#include "planner/workload/workload_validate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/field_checks.h"
#include "base/status_macros.h"
#include "base/text.h"

namespace dcplan {
namespace {

// lo < v <= hi (open_low) or lo <= v <= hi.
absl::Status InRange(absl::string_view prefix, absl::string_view field, double v, double lo,
                     double hi, bool open_low) {
  return CheckInRange(prefix, field, v, lo, hi, open_low ? kOpenLow : kClosedLow);
}

absl::Status Count(absl::string_view prefix, absl::string_view field, uint64_t v, uint64_t min,
                   uint64_t max) {
  DCPLAN_RETURN_IF_ERROR(CheckCountAtLeast(prefix, field, v, min));
  return CheckCountAtMost(prefix, field, v, max);
}

absl::Status ValidateParallelism(const Parallelism& p, const Workload& w, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "tp", p.tp(), limits::kMaxDegree));
  const uint32_t ffn = w.ffn_hidden() > 0 ? w.ffn_hidden() : 4 * w.hidden();
  if (p.tp() > 0 && (w.heads() % p.tp() != 0 || ffn % p.tp() != 0)) {
    return absl::FailedPreconditionError(absl::StrCat(FieldPath(path, "tp"), " ", p.tp(),
                                                      " must divide workload.heads (", w.heads(),
                                                      ") and the ffn hidden size (", ffn, ")"));
  }
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "pp", p.pp(), limits::kMaxDegree));
  if (p.pp() > w.layers()) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "pp"), " ", p.pp(), " must be <= workload.layers (", w.layers(), ")"));
  }
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "dp", p.dp(), limits::kMaxDegree));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "micro_batch", p.micro_batch(), limits::kMaxMicroBatch));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "virtual_stages", p.virtual_stages(), limits::kMaxLayers));
  const uint64_t pp = p.pp() > 0 ? p.pp() : 1;
  // The first and the last chunk may hold only the embedding or the output layer when pp > 2.
  const uint64_t slack = pp > 2 ? 2 : 0;
  if (p.virtual_stages() > 0 && pp * p.virtual_stages() > w.layers() + slack) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "virtual_stages"), " ", p.virtual_stages(), " x pp ", pp,
        " must be <= workload.layers (", w.layers(), ")", slack > 0 ? " + 2" : "",
        ": every chunk needs a layer",
        slack > 0 ? " (the first and last may hold only the embedding or the output layer)" : ""));
  }
  if (!Recompute_IsValid(p.recompute())) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldPath(path, "recompute"), " must be a known Recompute value, got ", p.recompute()));
  }
  if (p.recompute() == RECOMPUTE_SELECTIVE &&
      w.framework().generation() == SOFTWARE_MEGATRON_2021) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "recompute"),
        " RECOMPUTE_SELECTIVE needs workload.framework.generation SOFTWARE_MEGATRON_2022 or later, "
        "got SOFTWARE_MEGATRON_2021"));
  }
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "cp", p.cp(), limits::kMaxContextParallel));
  if (p.cp() > 0 && w.seq_len() % p.cp() != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(path, "cp"), " ", p.cp(), " must divide workload.seq_len (", w.seq_len(), ")"));
  }
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "ep", p.ep(), limits::kMaxExperts));
  if (p.ep() > 1 && !w.has_moe()) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(path, "ep"), " ", p.ep(),
                     " needs a mixture of experts (workload.moe): a dense model has no experts "
                     "to split"));
  }
  if (p.ep() > 0 && w.has_moe() && w.moe().experts() % p.ep() != 0) {
    return absl::FailedPreconditionError(absl::StrCat(FieldPath(path, "ep"), " ", p.ep(),
                                                      " must divide workload.moe.experts (",
                                                      w.moe().experts(), ")"));
  }
  if (p.has_zero_stage() && p.zero_stage() > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, "zero_stage"), " must be 0, 1, 2 or 3, got ", p.zero_stage()));
  }
  return absl::OkStatus();
}

absl::Status ValidateReliability(const Reliability& r, absl::string_view path) {
  if (r.has_gpu_mtbi_hours()) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(path, "gpu_mtbi_hours", r.gpu_mtbi_hours(), 0, limits::kMaxMtbiHours, true));
  }
  if (r.has_server_mtbi_hours()) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(path, "server_mtbi_hours", r.server_mtbi_hours(), 0, limits::kMaxMtbiHours, true));
  }
  if (r.has_checkpoint_write_bytes_per_second()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "checkpoint_write_bytes_per_second",
                                   r.checkpoint_write_bytes_per_second(), 0,
                                   limits::kMaxCheckpointBytesPerSecond, true));
  }
  if (r.has_checkpoint_bytes_per_param()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "checkpoint_bytes_per_param",
                                   r.checkpoint_bytes_per_param(), 0,
                                   limits::kMaxCheckpointBytesPerParam, true));
  }
  if (r.has_restart_seconds()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "restart_seconds", r.restart_seconds(), 0,
                                   limits::kMaxRestartSeconds, false));
  }
  if (r.has_checkpoint_interval_seconds()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "checkpoint_interval_seconds",
                                   r.checkpoint_interval_seconds(), 0,
                                   limits::kMaxCheckpointIntervalSeconds, false));
  }
  return absl::OkStatus();
}

// The required fields, all at once: `workload is missing layers, hidden and a global batch
// (global_batch_tokens or global_batch_sequences)`. A required count is missing when it is 0.
absl::Status CheckRequiredFields(const Workload& w, absl::string_view path) {
  std::vector<std::string> missing;
  for (const auto& [field, value] : {std::pair<const char*, uint32_t>{"layers", w.layers()},
                                     {"hidden", w.hidden()},
                                     {"heads", w.heads()},
                                     {"vocab", w.vocab()},
                                     {"seq_len", w.seq_len()}}) {
    if (value == 0) missing.emplace_back(field);
  }
  if (w.global_batch_tokens() == 0 && w.global_batch_sequences() == 0) {
    missing.emplace_back("a global batch (global_batch_tokens or global_batch_sequences)");
  }
  if (missing.empty()) return absl::OkStatus();
  std::string list = missing.back();
  if (missing.size() > 1) {
    missing.pop_back();
    list = absl::StrCat(absl::StrJoin(missing, ", "), " and ", list);
  }
  return absl::InvalidArgumentError(absl::StrCat(path, " is missing ", list));
}

// A mixture of experts (Workload.moe): each field's own limit first, so an error names the field.
absl::Status CheckMoe(const Workload& w, absl::string_view path) {
  if (!w.has_moe()) return absl::OkStatus();
  const MixtureOfExperts& moe = w.moe();
  const std::string moe_path = FieldPath(path, "moe");
  // A non-finite double is named first, whatever else is missing.
  DCPLAN_RETURN_IF_ERROR(CheckFinite(moe_path, "load_imbalance", moe.load_imbalance()));
  DCPLAN_RETURN_IF_ERROR(CheckFinite(moe_path, "active_params", moe.active_params()));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(moe_path, "experts", moe.experts(), limits::kMaxExperts));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(moe_path, "experts_per_token", moe.experts_per_token(),
                                          limits::kMaxExperts));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(moe_path, "expert_ffn_hidden", moe.expert_ffn_hidden(),
                                          limits::kMaxFfnHidden));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(moe_path, "shared_experts", moe.shared_experts(), limits::kMaxExperts));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(moe_path, "dense_layers", moe.dense_layers(), limits::kMaxLayers));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtLeast(moe_path, "experts", moe.experts(), 2));
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtLeast(moe_path, "experts_per_token", moe.experts_per_token(), 1));
  if (moe.experts_per_token() > moe.experts()) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(moe_path, "experts_per_token"), " ", moe.experts_per_token(),
                     " must be <= ", FieldPath(moe_path, "experts"), " (", moe.experts(), ")"));
  }
  if (moe.dense_layers() > 0 && moe.dense_layers() >= w.layers()) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(moe_path, "dense_layers"), " ", moe.dense_layers(), " must be < ",
                     FieldPath(path, "layers"), " (", w.layers(), ")"));
  }
  if (moe.has_load_imbalance()) {
    DCPLAN_RETURN_IF_ERROR(
        CheckInRange(moe_path, "load_imbalance", moe.load_imbalance(), 1, 100, kClosedLow));
  }
  if (moe.active_params() != 0) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(moe_path, "active_params", moe.active_params(), 0, limits::kMaxParams, true));
    const double output = static_cast<double>(w.vocab()) * static_cast<double>(w.hidden());
    if (moe.active_params() <= output) {
      return absl::FailedPreconditionError(absl::StrCat(
          FieldPath(moe_path, "active_params"), " ", FormatDouble(moe.active_params()),
          " must be more than the output layer alone (vocab x hidden = ", FormatDouble(output),
          "); leave it 0 to derive it from the shape"));
    }
    if (w.params() > 0 && moe.active_params() > w.params()) {
      return absl::FailedPreconditionError(
          absl::StrCat(FieldPath(moe_path, "active_params"), " ", FormatDouble(moe.active_params()),
                       " must be <= ", FieldPath(path, "params"), " (", FormatDouble(w.params()),
                       "): the active parameters are part of the total"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateWorkload(const Workload& w, absl::string_view path) {
  DCPLAN_RETURN_IF_ERROR(CheckRequiredFields(w, path));
  DCPLAN_RETURN_IF_ERROR(Count(path, "layers", w.layers(), 1, limits::kMaxLayers));
  DCPLAN_RETURN_IF_ERROR(Count(path, "hidden", w.hidden(), 1, limits::kMaxHidden));
  DCPLAN_RETURN_IF_ERROR(Count(path, "heads", w.heads(), 1, limits::kMaxHidden));
  if (w.hidden() % w.heads() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(path, "hidden"), " ", w.hidden(), " must be divisible by ",
                     FieldPath(path, "heads"), " (", w.heads(), ")"));
  }
  if (w.kv_heads() > 0 && w.heads() % w.kv_heads() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(FieldPath(path, "kv_heads"), " ", w.kv_heads(), " must divide ",
                     FieldPath(path, "heads"), " (", w.heads(), ")"));
  }
  DCPLAN_RETURN_IF_ERROR(
      CheckCountAtMost(path, "ffn_hidden", w.ffn_hidden(), limits::kMaxFfnHidden));
  DCPLAN_RETURN_IF_ERROR(Count(path, "vocab", w.vocab(), 1, limits::kMaxVocab));
  DCPLAN_RETURN_IF_ERROR(Count(path, "seq_len", w.seq_len(), 1, limits::kMaxSeqLen));
  DCPLAN_RETURN_IF_ERROR(CheckFinite(path, "params", w.params()));
  if (w.params() != 0) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "params", w.params(), 0, limits::kMaxParams, true));
    const double output = static_cast<double>(w.vocab()) * static_cast<double>(w.hidden());
    if (w.params() <= output) {
      return absl::FailedPreconditionError(absl::StrCat(
          FieldPath(path, "params"), " ", FormatDouble(w.params()),
          " must be more than the output layer alone (vocab x hidden = ", FormatDouble(output),
          "); leave it 0 to derive it from the shape"));
    }
  }
  const bool tokens = w.global_batch_tokens() > 0;
  const bool sequences = w.global_batch_sequences() > 0;
  if (tokens && sequences) {  // neither: CheckRequiredFields
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": set exactly one of global_batch_tokens and global_batch_sequences, got both"));
  }
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "global_batch_tokens", w.global_batch_tokens(),
                                          limits::kMaxBatchTokens));
  DCPLAN_RETURN_IF_ERROR(CheckCountAtMost(path, "global_batch_sequences",
                                          w.global_batch_sequences(),
                                          limits::kMaxBatchTokens / w.seq_len()));
  if (w.has_precision_bytes()) {
    DCPLAN_RETURN_IF_ERROR(
        Count(path, "precision_bytes", w.precision_bytes(), 1, limits::kMaxElementBytes));
  }
  if (w.has_gradient_bytes()) {
    DCPLAN_RETURN_IF_ERROR(
        Count(path, "gradient_bytes", w.gradient_bytes(), 1, limits::kMaxElementBytes));
  }
  DCPLAN_RETURN_IF_ERROR(
      InRange(path, "train_tokens", w.train_tokens(), 0, limits::kMaxTrainTokens, false));
  if (!SoftwareGeneration_IsValid(w.framework().generation())) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldPath(path, "framework.generation"), " must be a known SoftwareGeneration value, got ",
        w.framework().generation()));
  }
  if (!BlockStyle_IsValid(w.block().style())) {
    return absl::InvalidArgumentError(absl::StrCat(FieldPath(path, "block.style"),
                                                   " must be a known BlockStyle value, got ",
                                                   w.block().style()));
  }
  if (!Norm_IsValid(w.block().norm())) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldPath(path, "block.norm"), " must be a known Norm value, got ", w.block().norm()));
  }
  if (!TrainingPrecision_IsValid(w.precision())) {
    return absl::InvalidArgumentError(absl::StrCat(FieldPath(path, "precision"),
                                                   " must be a known TrainingPrecision value, got ",
                                                   w.precision()));
  }
  DCPLAN_RETURN_IF_ERROR(CheckMoe(w, path));
  if (w.fp8().has_gemm_speedup_over_bf16()) {
    const std::string fp8_path = FieldPath(path, "fp8");
    DCPLAN_RETURN_IF_ERROR(
        CheckFinite(fp8_path, "gemm_speedup_over_bf16", w.fp8().gemm_speedup_over_bf16()));
    DCPLAN_RETURN_IF_ERROR(CheckInRange(fp8_path, "gemm_speedup_over_bf16",
                                        w.fp8().gemm_speedup_over_bf16(), 1, 4, kClosedLow));
  }
  DCPLAN_RETURN_IF_ERROR(ValidateParallelism(w.parallelism(), w, FieldPath(path, "parallelism")));
  return ValidateReliability(w.reliability(), FieldPath(path, "reliability"));
}

absl::Status ValidateCalibration(const EfficiencyCalibration& c, absl::string_view path) {
  if (c.has_kernel_efficiency()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "kernel_efficiency", c.kernel_efficiency(), 0, 1, true));
  }
  if (c.has_scale_up_bandwidth_efficiency()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "scale_up_bandwidth_efficiency",
                                   c.scale_up_bandwidth_efficiency(), 0, 1, true));
  }
  if (c.has_scale_out_bandwidth_efficiency()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "scale_out_bandwidth_efficiency",
                                   c.scale_out_bandwidth_efficiency(), 0, 1, true));
  }
  if (c.has_memory_bound_factor()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "memory_bound_factor", c.memory_bound_factor(), 0,
                                   limits::kMaxMemoryBoundFactor, true));
  }
  if (c.has_gradient_sync_overlap()) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(path, "gradient_sync_overlap", c.gradient_sync_overlap(), 0, 1, false));
  }
  if (c.has_scale_up_latency_seconds()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "scale_up_latency_seconds", c.scale_up_latency_seconds(),
                                   0, limits::kMaxLatencySeconds, false));
  }
  if (c.has_scale_out_latency_seconds()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "scale_out_latency_seconds", c.scale_out_latency_seconds(),
                                   0, limits::kMaxLatencySeconds, false));
  }
  if (c.has_hbm_usable_fraction()) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(path, "hbm_usable_fraction", c.hbm_usable_fraction(), 0, 1, true));
  }
  if (c.has_gemm_knee_flops_per_byte()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "gemm_knee_flops_per_byte", c.gemm_knee_flops_per_byte(),
                                   0, limits::kMaxGemmKneeFlopsPerByte, false));
  }
  if (c.has_kernel_overhead_seconds()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "kernel_overhead_seconds", c.kernel_overhead_seconds(), 0,
                                   limits::kMaxLatencySeconds, false));
  }
  if (c.has_attention_efficiency()) {
    DCPLAN_RETURN_IF_ERROR(
        InRange(path, "attention_efficiency", c.attention_efficiency(), 0, 1, false));
  }
  if (c.has_flash_attention_2_efficiency()) {
    DCPLAN_RETURN_IF_ERROR(InRange(path, "flash_attention_2_efficiency",
                                   c.flash_attention_2_efficiency(), 0, 1, false));
  }
  if (c.has_compute_units()) {
    DCPLAN_RETURN_IF_ERROR(
        CheckCountAtMost(path, "compute_units", c.compute_units(), limits::kMaxComputeUnits));
  }
  return absl::OkStatus();
}

absl::Status ValidateWorkloadHardware(const Hardware& h, absl::string_view path) {
  if (!(h.accelerator().hbm_bytes() > 0)) {
    return absl::FailedPreconditionError(
        absl::StrCat("a workload needs ", FieldPath(path, "accelerator.hbm_bytes"),
                     " (HBM per GPU, for the memory check), got 0 (unknown)"));
  }
  if (!(h.accelerator().hbm_bandwidth_bytes_per_second() > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a workload needs ", FieldPath(path, "accelerator.hbm_bandwidth_bytes_per_second"),
        " (for the memory-bound kernels), got 0 (unknown)"));
  }
  const uint32_t domain = h.network().scale_up_domain_gpus() > 0
                              ? h.network().scale_up_domain_gpus()
                              : h.server().gpus_per_server();
  if (domain > 1 && !(h.network().scale_up_bandwidth_bytes_per_second() > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a workload needs ", FieldPath(path, "network.scale_up_bandwidth_bytes_per_second"),
        " (for tensor-parallel collectives in the ", domain,
        "-GPU scale-up domain), got 0 (unknown)"));
  }
  return absl::OkStatus();
}

absl::Status ValidatePrecisionOnHardware(const Workload& w, const Hardware& h,
                                         absl::string_view workload_path,
                                         absl::string_view hardware_path) {
  if (w.precision() == TRAINING_PRECISION_FP8 &&
      !(h.accelerator().peak_fp8_flops_per_second() > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        FieldPath(workload_path, "precision"), " FP8 needs ",
        FieldPath(hardware_path, "accelerator.peak_fp8_flops_per_second"), " > 0, got ",
        FormatDouble(h.accelerator().peak_fp8_flops_per_second()), " (unknown)"));
  }
  return absl::OkStatus();
}

}  // namespace dcplan

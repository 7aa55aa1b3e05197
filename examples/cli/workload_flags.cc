// File: examples/cli/workload_flags.cc
#include "examples/cli/workload_flags.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "proto/io.h"
#include "units/parse.h"

ABSL_FLAG(std::string, workload, "",
          "training job file (a dcplan.Workload: .textproto, .json or .pb); the flags below "
          "override its fields");
ABSL_FLAG(std::string, params, "",
          "parameter count, e.g. 405e9 or 70B (workload.params; default: derived from the shape)");
ABSL_FLAG(std::string, layers, "", "transformer layers (workload.layers)");
ABSL_FLAG(std::string, hidden, "", "hidden size (workload.hidden)");
ABSL_FLAG(std::string, heads, "", "attention heads (workload.heads)");
ABSL_FLAG(std::string, kv_heads, "", "key/value heads, grouped-query attention (default: heads)");
ABSL_FLAG(std::string, ffn_hidden, "", "MLP hidden size (default: 4 x hidden)");
ABSL_FLAG(std::string, gated_mlp, "", "true for a gated (SwiGLU) MLP with three ffn matrices");
ABSL_FLAG(std::string, vocab, "", "vocabulary size (workload.vocab)");
ABSL_FLAG(std::string, seq_len, "", "sequence length in tokens (workload.seq_len)");
ABSL_FLAG(std::string, global_batch_tokens, "",
          "global batch in tokens, e.g. 16M (rounded up to whole sequences)");
ABSL_FLAG(std::string, global_batch, "", "global batch in sequences (instead of tokens)");
ABSL_FLAG(std::string, tp, "", "tensor-parallel degree (default: searched)");
ABSL_FLAG(std::string, pp, "", "pipeline-parallel stages (default: searched)");
ABSL_FLAG(std::string, dp, "",
          "data-parallel replicas (default: searched); with --tp and --pp, tp x pp x dp must equal "
          "--gpus");
ABSL_FLAG(std::string, micro_batch, "", "sequences per micro-batch (default: searched)");
ABSL_FLAG(std::string, cp, "",
          "context-parallel degree: each sequence split over cp GPUs, ring attention (default: "
          "searched; with --tp --pp --dp all set, 1 unless given)");
ABSL_FLAG(std::string, software, "",
          "training software generation: megatron_2021, megatron_2022 or current (default: "
          "current; workload.framework.generation)");
ABSL_FLAG(std::string, gpu_mtbi_hours, "",
          "mean time between job interruptions per GPU, in hours (workload.reliability; default "
          "86000, from Llama 3)");
ABSL_FLAG(std::string, server_mtbi_hours, "",
          "mean time between job interruptions per server, in hours (default 15300, from Llama 3)");
ABSL_FLAG(std::string, checkpoint_write_gbps, "",
          "aggregate checkpoint write bandwidth in GB/s (bytes, not bits; default 2000)");
ABSL_FLAG(std::string, virtual_stages, "",
          "model chunks per pipeline stage, interleaved schedule (default: searched)");
ABSL_FLAG(std::string, recompute, "",
          "activation recomputation: none, selective, partial or full (default: searched)");
ABSL_FLAG(std::string, train_tokens, "", "tokens to train on, e.g. 15T, for the time to train");
ABSL_FLAG(
    std::string, kernel_efficiency, "",
    "fraction of peak the matrix multiplications reach (hardware.calibration.kernel_efficiency)");
ABSL_FLAG(std::string, scale_out_gbps, "",
          "scale-out bandwidth per GPU in Gb/s, e.g. 400 (kept NIC count, port speed adjusted)");
ABSL_FLAG(std::string, scale_up_gpus, "",
          "GPUs per scale-up (NVLink) domain (hardware.network.scale_up_domain_gpus)");

namespace dcplan::cli {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": expected ", what, ", got \"", Clip(text), "\""));
}

// A whole number in [min, max], with ParseCount's suffixes ("16M", "15T", "405e9").
absl::StatusOr<double> Whole(absl::string_view flag, absl::string_view text, double min,
                             double max) {
  auto v = units::ParseCount(text);
  if (!v.ok() || *v != std::floor(*v) || *v < min || *v > max) {
    // The bounds as whole numbers ("4294967295", not StrCat's "4.29497e+09").
    return FlagError(flag, absl::StrFormat("a whole number in [%.0f, %.0f]", min, max), text);
  }
  return *v;
}

// Sets a uint32 field from a flag when the flag is given.
absl::Status SetCount(absl::string_view flag, const std::string& text, double min,
                      void (*set)(PlanRequest*, uint32_t), PlanRequest* r) {
  if (text.empty()) return absl::OkStatus();
  DCPLAN_ASSIGN_OR_RETURN(double v, Whole(flag, text, min, 4294967295.0));
  set(r, static_cast<uint32_t>(v));
  return absl::OkStatus();
}

Workload* W(PlanRequest* r) { return r->mutable_workload(); }
Parallelism* P(PlanRequest* r) { return r->mutable_workload()->mutable_parallelism(); }

// --workload (a Workload file) and the model's shape: --layers ... --seq_len.
absl::Status ApplyShapeFlags(PlanRequest* r) {
  if (std::string file = absl::GetFlag(FLAGS_workload); !file.empty()) {
    Workload w;
    absl::Status read = ReadMessageFile(file, std::nullopt, &w);
    if (!read.ok()) return absl::Status(read.code(), absl::StrCat("--workload: ", read.message()));
    *r->mutable_workload() = w;
  }
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "layers", absl::GetFlag(FLAGS_layers), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_layers(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "hidden", absl::GetFlag(FLAGS_hidden), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_hidden(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "heads", absl::GetFlag(FLAGS_heads), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_heads(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "kv_heads", absl::GetFlag(FLAGS_kv_heads), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_kv_heads(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "ffn_hidden", absl::GetFlag(FLAGS_ffn_hidden), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_ffn_hidden(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "vocab", absl::GetFlag(FLAGS_vocab), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_vocab(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "seq_len", absl::GetFlag(FLAGS_seq_len), 1,
      [](PlanRequest* q, uint32_t v) { W(q)->set_seq_len(v); }, r));
  return absl::OkStatus();
}

// Fixed parallelism (--tp, --pp, --dp, --micro_batch, --virtual_stages, --recompute, --cp), and
// --gated_mlp, which is checked among them so that errors keep their order.
absl::Status ApplyParallelismFlags(PlanRequest* r) {
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "tp", absl::GetFlag(FLAGS_tp), 1, [](PlanRequest* q, uint32_t v) { P(q)->set_tp(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "pp", absl::GetFlag(FLAGS_pp), 1, [](PlanRequest* q, uint32_t v) { P(q)->set_pp(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "dp", absl::GetFlag(FLAGS_dp), 1, [](PlanRequest* q, uint32_t v) { P(q)->set_dp(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "micro_batch", absl::GetFlag(FLAGS_micro_batch), 1,
      [](PlanRequest* q, uint32_t v) { P(q)->set_micro_batch(v); }, r));
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "virtual_stages", absl::GetFlag(FLAGS_virtual_stages), 1,
      [](PlanRequest* q, uint32_t v) { P(q)->set_virtual_stages(v); }, r));
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_gated_mlp)); !s.empty()) {
    if (s != "true" && s != "false") return FlagError("gated_mlp", "true or false", s);
    W(r)->set_gated_mlp(s == "true");
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_recompute)); !s.empty()) {
    if (s == "none") {
      P(r)->set_recompute(RECOMPUTE_NONE);
    } else if (s == "selective") {
      P(r)->set_recompute(RECOMPUTE_SELECTIVE);
    } else if (s == "full") {
      P(r)->set_recompute(RECOMPUTE_FULL);
    } else if (s == "partial") {
      P(r)->set_recompute(RECOMPUTE_PARTIAL);
    } else {
      return FlagError("recompute", "none, selective, partial or full", s);
    }
  }
  DCPLAN_RETURN_IF_ERROR(SetCount(
      "cp", absl::GetFlag(FLAGS_cp), 1, [](PlanRequest* q, uint32_t v) { P(q)->set_cp(v); }, r));
  return absl::OkStatus();
}

// --software (the framework generation) and the reliability figures (MTBIs, checkpoint writes).
absl::Status ApplySoftwareAndReliabilityFlags(PlanRequest* r) {
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_software)); !s.empty()) {
    Framework* fw = W(r)->mutable_framework();
    if (s == "megatron_2021") {
      fw->set_generation(SOFTWARE_MEGATRON_2021);
    } else if (s == "megatron_2022") {
      fw->set_generation(SOFTWARE_MEGATRON_2022);
    } else if (s == "current") {
      fw->set_generation(SOFTWARE_CURRENT);
    } else {
      return FlagError("software", "megatron_2021, megatron_2022 or current", s);
    }
  }
  struct PositiveFlag {
    const char* name;
    std::string text;
    double scale;
    void (Reliability::*set)(double);
  };
  for (const PositiveFlag& f :
       {PositiveFlag{"gpu_mtbi_hours", absl::GetFlag(FLAGS_gpu_mtbi_hours), 1.0,
                     &Reliability::set_gpu_mtbi_hours},
        PositiveFlag{"server_mtbi_hours", absl::GetFlag(FLAGS_server_mtbi_hours), 1.0,
                     &Reliability::set_server_mtbi_hours},
        PositiveFlag{"checkpoint_write_gbps", absl::GetFlag(FLAGS_checkpoint_write_gbps), 1e9,
                     &Reliability::set_checkpoint_write_bytes_per_second}}) {
    if (f.text.empty()) continue;
    double v = 0;
    if (!absl::SimpleAtod(f.text, &v) || !std::isfinite(v) || !(v > 0)) {
      return FlagError(f.name, "a positive number", f.text);
    }
    (W(r)->mutable_reliability()->*f.set)(v * f.scale);
  }
  return absl::OkStatus();
}

// The training run: --params, --global_batch_tokens or --global_batch, --train_tokens.
absl::Status ApplyRunFlags(PlanRequest* r) {
  if (std::string s = absl::GetFlag(FLAGS_params); !s.empty()) {
    auto v = units::ParseCount(s);
    if (!v.ok() || !(*v > 0)) return FlagError("params", "a parameter count such as 405e9", s);
    W(r)->set_params(*v);
  }
  if (std::string s = absl::GetFlag(FLAGS_global_batch_tokens); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, Whole("global_batch_tokens", s, 1, 1e12));
    W(r)->set_global_batch_tokens(static_cast<uint64_t>(v));
    W(r)->clear_global_batch_sequences();
  }
  if (std::string s = absl::GetFlag(FLAGS_global_batch); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, Whole("global_batch", s, 1, 1e12));
    W(r)->set_global_batch_sequences(static_cast<uint64_t>(v));
    W(r)->clear_global_batch_tokens();
  }
  if (std::string s = absl::GetFlag(FLAGS_train_tokens); !s.empty()) {
    auto v = units::ParseCount(s);
    if (!v.ok() || !(*v >= 0)) return FlagError("train_tokens", "a token count such as 15T", s);
    W(r)->set_train_tokens(*v);
  }
  return absl::OkStatus();
}

// The hardware the job sees: --kernel_efficiency, --scale_up_gpus, --scale_out_gbps.
absl::Status ApplyHardwareFlags(PlanRequest* r) {
  if (std::string s = absl::GetFlag(FLAGS_kernel_efficiency); !s.empty()) {
    double v = 0;
    if (!absl::SimpleAtod(s, &v) || !std::isfinite(v)) {
      return FlagError("kernel_efficiency", "a fraction such as 0.6", s);
    }
    r->mutable_hardware()->mutable_calibration()->set_kernel_efficiency(v);
  }
  if (std::string s = absl::GetFlag(FLAGS_scale_up_gpus); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, Whole("scale_up_gpus", s, 1, 1e6));
    r->mutable_hardware()->mutable_network()->set_scale_up_domain_gpus(static_cast<uint32_t>(v));
  }
  if (std::string s = absl::GetFlag(FLAGS_scale_out_gbps); !s.empty()) {
    double v = 0;
    if (!absl::SimpleAtod(s, &v) || !std::isfinite(v) || !(v > 0)) {
      return FlagError("scale_out_gbps", "a bandwidth per GPU in Gb/s such as 400", s);
    }
    Network* net = r->mutable_hardware()->mutable_network();
    if (net->nics_per_gpu() == 0) {
      return absl::FailedPreconditionError(
          "--scale_out_gbps: the preset has no scale-out network (hardware.network.nics_per_gpu "
          "is 0); start from a preset or request that has one");
    }
    // Per GPU = NICs x port speed: keep the NICs (and so the fabric's size), change the speed.
    net->set_port_bits_per_second(v * 1e9 / net->nics_per_gpu());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyWorkloadFlags(PlanRequest* r) {
  DCPLAN_RETURN_IF_ERROR(ApplyShapeFlags(r));
  DCPLAN_RETURN_IF_ERROR(ApplyParallelismFlags(r));
  DCPLAN_RETURN_IF_ERROR(ApplySoftwareAndReliabilityFlags(r));
  DCPLAN_RETURN_IF_ERROR(ApplyRunFlags(r));
  DCPLAN_RETURN_IF_ERROR(ApplyHardwareFlags(r));
  return absl::OkStatus();
}

}  // namespace dcplan::cli

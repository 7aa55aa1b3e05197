// File: examples/cli/workload_flags.cc
#include "examples/cli/workload_flags.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "examples/cli/flags.h"
#include "planner/presets/models.h"
#include "planner/request_edit.h"
#include "proto/io.h"
#include "units/parse.h"

ABSL_FLAG(std::string, workload, "",
          "training job file (a dcplan.Workload: .textproto, .json or .pb); the flags below "
          "override its fields");
ABSL_FLAG(std::string, model, "",
          "a compiled-in model preset as the training job (dcplan presets --models lists them: "
          "llama3-8b, llama3-70b, llama3-405b, gpt3-175b, nemotron4-340b, ...); the flags below "
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
          "global batch in tokens, e.g. 16M (decimal: 16,000,000) or 16Mi (binary: 2^24 = "
          "16,777,216); rounded up to whole sequences");
ABSL_FLAG(std::string, global_batch_sequences, "",
          "global batch in sequences (instead of tokens; workload.global_batch_sequences)");
ABSL_FLAG(std::string, global_batch, "", "the same as --global_batch_sequences");
ABSL_FLAG(std::string, tp, "", "tensor-parallel degree (default: searched)");
ABSL_FLAG(std::string, pp, "", "pipeline-parallel stages (default: searched)");
ABSL_FLAG(std::string, dp, "",
          "data-parallel replicas (default: searched); with --tp and --pp, tp x pp x dp must equal "
          "--gpus");
ABSL_FLAG(std::string, micro_batch, "", "sequences per micro-batch (default: searched)");
ABSL_FLAG(std::string, cp, "",
          "context-parallel degree: each sequence split over cp GPUs, ring attention (default: "
          "searched; with --tp --pp --dp all set, 1 unless given)");
ABSL_FLAG(std::string, ep, "",
          "expert-parallel degree of a mixture of experts: divides dp and workload.moe.experts "
          "(default: searched)");
ABSL_FLAG(std::string, software, "",
          "training software generation: megatron_2021, megatron_2022, megatron_2024 or current "
          "(default: "
          "current; workload.framework.generation)");
ABSL_FLAG(std::string, precision, "",
          "precision of the weight multiplies: bf16 or fp8 (default: bf16; workload.precision; fp8 "
          "needs the accelerator's FP8 peak)");
ABSL_FLAG(std::string, block, "",
          "block style: gpt (LayerNorm, biases, dropout) or llama (RMSNorm, no biases or dropout, "
          "rotary) (default: gpt; workload.block.style)");
ABSL_FLAG(std::string, gpu_mtbi_hours, "",
          "mean time between job interruptions per GPU, in hours (workload.reliability; default "
          "86000, from Llama 3)");
ABSL_FLAG(std::string, server_mtbi_hours, "",
          "mean time between job interruptions per server, in hours (default 15300, from Llama 3)");
ABSL_FLAG(std::string, checkpoint_write_gbps, "",
          "aggregate checkpoint write bandwidth in GB/s (bytes, not bits; default 2000)");
ABSL_FLAG(std::string, virtual_stages, "",
          "model chunks per pipeline stage, interleaved schedule (default: searched)");
ABSL_FLAG(
    std::string, zero, "",
    "ZeRO stage over the data-parallel group: 0, 1 (sharded optimizer state), 2 (and "
    "gradients) or 3 (and weights: FSDP) (default: searched; workload.parallelism.zero_stage)");
ABSL_FLAG(std::string, recompute, "",
          "activation recomputation: none, selective, partial or full (default: searched)");
ABSL_FLAG(std::string, train_tokens, "",
          "tokens to train on, e.g. 15T (decimal: 15e12; Ti for 2^40), for the time to train");
ABSL_FLAG(
    std::string, kernel_efficiency, "",
    "fraction of peak the matrix multiplications reach (hardware.calibration.kernel_efficiency)");
ABSL_FLAG(std::string, scale_out_gbps, "",
          "scale-out bandwidth per GPU in Gb/s, e.g. 400 (kept NIC count, port speed adjusted)");
ABSL_FLAG(std::string, scale_up_gpus, "",
          "GPUs per scale-up (NVLink) domain (hardware.network.scale_up_domain_gpus)");

namespace dcplan::cli {

// The training job's flags, in the order they apply; each sets the path its alias names
// (planner/request_edit.h Aliases()), so they parse as --set does.
const std::vector<std::string>& WorkloadFlagNames() {
  static const auto* names = new std::vector<std::string>{"layers",
                                                          "hidden",
                                                          "heads",
                                                          "kv_heads",
                                                          "ffn_hidden",
                                                          "vocab",
                                                          "seq_len",
                                                          "tp",
                                                          "pp",
                                                          "dp",
                                                          "micro_batch",
                                                          "virtual_stages",
                                                          "gated_mlp",
                                                          "recompute",
                                                          "zero",
                                                          "cp",
                                                          "ep",
                                                          "software",
                                                          "precision",
                                                          "block",
                                                          "gpu_mtbi_hours",
                                                          "server_mtbi_hours",
                                                          "params",
                                                          "global_batch_tokens",
                                                          "global_batch_sequences",
                                                          "global_batch",
                                                          "train_tokens",
                                                          "kernel_efficiency",
                                                          "scale_up_gpus"};
  return *names;
}

absl::Status ApplyWorkloadFile(PlanRequest* r) {
  const std::string model = absl::GetFlag(FLAGS_model);
  if (!model.empty()) {
    if (!absl::GetFlag(FLAGS_workload).empty()) {
      return absl::InvalidArgumentError(
          "--model and --workload both name the training job: give one (flags such as --layers "
          "override either)");
    }
    auto w = LoadModel(model);
    if (!w.ok())
      return absl::Status(w.status().code(), absl::StrCat("--model: ", w.status().message()));
    *r->mutable_workload() = *std::move(w);
  }
  if (std::string file = absl::GetFlag(FLAGS_workload); !file.empty()) {
    Workload w;
    absl::Status read = ReadMessageFile(file, std::nullopt, &w);
    if (!read.ok()) return absl::Status(read.code(), absl::StrCat("--workload: ", read.message()));
    *r->mutable_workload() = w;
  }
  return absl::OkStatus();
}

absl::Status ApplySpecialWorkloadFlags(PlanRequest* r) {
  // Aggregate checkpoint writes in GB/s (bytes): a bare number is GB/s, or give the unit.
  if (std::string s = absl::GetFlag(FLAGS_checkpoint_write_gbps); !s.empty()) {
    double v = 0;
    const bool bare = absl::SimpleAtod(s, &v);
    DCPLAN_RETURN_IF_ERROR(SetField("workload.reliability.checkpoint_write_bytes_per_second",
                                    bare ? absl::StrCat(s, " GB/s") : s, "--checkpoint_write_gbps",
                                    r));
    RecordUserName("workload.reliability.checkpoint_write_bytes_per_second",
                   "--checkpoint_write_gbps");
  }
  if (std::string s = absl::GetFlag(FLAGS_scale_out_gbps); !s.empty()) {
    double v = 0;
    if (!absl::SimpleAtod(s, &v) || !std::isfinite(v) || !(v > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--scale_out_gbps: expected a bandwidth per GPU in Gb/s such as 400, got \"",
                       Clip(s), "\""));
    }
    Network* net = r->mutable_hardware()->mutable_network();
    if (net->nics_per_gpu() == 0) {
      return absl::FailedPreconditionError(
          "--scale_out_gbps: the preset has no scale-out network (hardware.network.nics_per_gpu "
          "is 0); start from a preset or request that has one");
    }
    // Per GPU = NICs x port speed: keep the NICs (and so the fabric's size), change the speed.
    net->set_port_bits_per_second(v * 1e9 / net->nics_per_gpu());
    RecordUserSource("hardware.network.port_bits_per_second", "--scale_out_gbps", r);
    RecordUserName("hardware.network.port_bits_per_second", "--scale_out_gbps");
  }
  return absl::OkStatus();
}

}  // namespace dcplan::cli

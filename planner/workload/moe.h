// File: planner/workload/moe.h
//
// Mixture of experts (Workload.moe): what changes when each token's MLP is experts_per_token (k)
// of E routed experts plus S shared ones. The step model (workload_model.cc) asks this header
// for the figures that depend on the model alone; the pieces that depend on the configuration
// (the experts' multiplies at their per-expert shapes, the all-to-all over the scale-up domain or
// the fabric) are worked out there per configuration, with the expert-parallel degree ep.
//
// Per MoE layer (h = hidden, f_e = expert_ffn_hidden, g = 3 for a gated MLP else 2):
//   routed experts   E x g h f_e parameters, k x g h f_e active per token
//   shared experts   S x g h f_e, all active
//   router           h x E, active
// The first dense_layers layers keep the dense MLP (g h ffn_hidden). Active parameters = layers x
// attention + sum over layers of the active MLP + vocab x hidden (the output layer; the input
// embedding costs no model FLOPs): model FLOPs per token = 6 x active + 12 x layers x seq_len x
// hidden, the PaLM convention with active parameters in place of the total.
//
// Expert parallelism: the routed experts of a layer are split over ep GPUs of the data-parallel
// group (ep divides dp); each GPU holds E / ep of them. Tokens travel to their experts and back by
// all-to-all: per MoE layer and micro-batch, a dispatch and a combine forward and their gradients
// backward, each GPU sending its tokens' k copies (of its tensor-parallel slice of tokens, as with
// sequence parallelism) x hidden x bytes, (ep - 1) / ep of them to other GPUs (AllToAllBytes). The
// busiest GPU receives load_imbalance times the mean. Expert gradients are reduced over the
// data-parallel group divided by ep (the GPUs holding the same experts).
#pragma once

#include <cstdint>

#include "proto/workload.pb.h"
#include "units/units.h"

namespace dcplan {

// The mixture of experts, typed, defaults applied. `enabled` false for a dense model.
struct MoeModel {
  bool enabled = false;
  int64_t experts = 0;  // routed, per MoE layer
  int64_t top_k = 0;    // routed experts per token
  int64_t expert_ffn = 0;
  int64_t shared = 0;
  int64_t dense_layers = 0;
  double load_imbalance = 1.0;
  bool overlap_all_to_all = false;
  // Shares of the layers: MoE layers and dense-MLP layers (they add up to 1). The step model works
  // on the mean layer.
  double moe_layer_share = 0;
  double dense_layer_share = 1;
  // Parameters of the mean layer, scaled so that layers x (replicated + expert) + vocab x hidden is
  // the total (workload.params when given): what every expert-parallel rank holds (attention,
  // router, shared experts, dense MLPs) and the routed experts, which ep ranks split.
  double replicated_layer_params = 0;
  double expert_layer_params = 0;
  double total_params = 0;
  double active_params = 0;  // model FLOPs: 6 x active_params per token (+ attention)
  // active_params over what the shape gives (1 unless moe.active_params overrides it): scales the
  // layer's multiplies.
  double active_scale = 1;
  // Per token, forward, of the mean layer, against a dense MLP of ffn_hidden in its place (before
  // the tensor-parallel split): extra memory-bound HBM traffic in elements (the experts' activation
  // functions for k x load_imbalance + S copies, the permutation of the k token copies into expert
  // order and back: 2 k h) and extra stored activations in bytes at 2-byte precision (each copy's
  // MLP activations, (6 or 4) f_e, and the permuted inputs and expert outputs, 4 k h).
  double memory_elements_delta = 0;
  double activation_bytes_delta = 0;
};

// Parameter counts from the shape alone (no params / active_params override).
struct MoeShapeParams {
  double attention = 0;         // per layer: q, k, v, o
  double expert = 0;            // one expert's MLP: g h f_e
  double dense_mlp = 0;         // a dense layer's MLP: g h ffn_hidden
  double router = 0;            // h x E
  double moe_layer_total = 0;   // attention + router + (E + S) experts
  double moe_layer_active = 0;  // attention + router + (k + S) experts
  double dense_layer = 0;       // attention + dense MLP
  double total = 0;             // all layers + vocab x hidden
  double active = 0;            // active per token, all layers + vocab x hidden
};
MoeShapeParams MoeParamsFromShape(const Workload& workload);

// The typed mixture of experts of a validated workload (enabled false without Workload.moe).
MoeModel BuildMoeModel(const Workload& workload);

// Bytes one GPU sends into one all-to-all (dispatch or combine) for a micro-batch of `tokens`
// tokens on the GPU (its tensor-parallel slice), its own share included: tokens x k x hidden x
// element x load_imbalance (the busiest rank). (ep - 1) / ep of it leaves the GPU.
units::Data AllToAllBytes(const MoeModel& moe, double tokens, double hidden, units::Data element);

}  // namespace dcplan

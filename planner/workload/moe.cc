// File: planner/workload/moe.cc
#include "planner/workload/moe.h"

#include <algorithm>

#include "planner/workload/workload_defaults.h"

namespace dcplan {

MoeShapeParams MoeParamsFromShape(const Workload& w) {
  MoeShapeParams p;
  const MixtureOfExperts& m = w.moe();
  const double h = w.hidden();
  const double heads = std::max<uint32_t>(w.heads(), 1);
  const double kv = w.kv_heads() > 0 ? w.kv_heads() : heads;
  const double f = w.ffn_hidden() > 0 ? w.ffn_hidden() : defaults::kFfnMultiple * h;
  const double fe = m.expert_ffn_hidden() > 0 ? m.expert_ffn_hidden() : f;
  const double g = w.gated_mlp() ? 3.0 : 2.0;
  p.attention = 2.0 * h * h + 2.0 * h * (h * kv / heads);
  p.expert = g * h * fe;
  p.dense_mlp = g * h * f;
  p.router = h * m.experts();
  const double routed = m.experts(), active = m.experts_per_token(), shared = m.shared_experts();
  p.moe_layer_total = p.attention + p.router + (routed + shared) * p.expert;
  p.moe_layer_active = p.attention + p.router + (active + shared) * p.expert;
  p.dense_layer = p.attention + p.dense_mlp;
  const double dense_layers = m.dense_layers();
  const double moe_layers = static_cast<double>(w.layers()) - dense_layers;
  const double output = static_cast<double>(w.vocab()) * h;
  p.total = moe_layers * p.moe_layer_total + dense_layers * p.dense_layer + output;
  p.active = moe_layers * p.moe_layer_active + dense_layers * p.dense_layer + output;
  return p;
}

MoeModel BuildMoeModel(const Workload& w) {
  MoeModel m;
  if (!w.has_moe()) return m;
  const MixtureOfExperts& pm = w.moe();
  const MoeShapeParams shape = MoeParamsFromShape(w);
  m.enabled = true;
  m.experts = pm.experts();
  m.top_k = pm.experts_per_token();
  const int64_t f =
      w.ffn_hidden() > 0 ? int64_t{w.ffn_hidden()} : defaults::kFfnMultiple * int64_t{w.hidden()};
  m.expert_ffn = pm.expert_ffn_hidden() > 0 ? int64_t{pm.expert_ffn_hidden()} : f;
  m.shared = pm.shared_experts();
  m.dense_layers = pm.dense_layers();
  m.load_imbalance = pm.has_load_imbalance() ? pm.load_imbalance() : defaults::kMoeLoadImbalance;
  m.overlap_all_to_all = pm.has_overlap_all_to_all() && pm.overlap_all_to_all();
  const double layers = w.layers();
  m.dense_layer_share = static_cast<double>(m.dense_layers) / layers;
  m.moe_layer_share = 1.0 - m.dense_layer_share;
  const double output = static_cast<double>(w.vocab()) * static_cast<double>(w.hidden());
  // The total: workload.params when given (the shape's split kept), else the shape's.
  m.total_params = w.params() > 0 ? w.params() : shape.total;
  const double total_scale = (m.total_params - output) / (shape.total - output);
  const double routed_experts = m.moe_layer_share * static_cast<double>(m.experts) * shape.expert;
  const double mean_layer = (shape.total - output) / layers;
  m.expert_layer_params = total_scale * routed_experts;
  m.replicated_layer_params = total_scale * (mean_layer - routed_experts);
  m.active_params = pm.active_params() > 0 ? pm.active_params() : shape.active;
  m.active_scale = (m.active_params - output) / (shape.active - output);
  // The mean layer against a dense MLP of ffn_hidden (see moe.h).
  const double h = w.hidden(), fe = static_cast<double>(m.expert_ffn), fd = static_cast<double>(f);
  const double copies = static_cast<double>(m.top_k) * m.load_imbalance;
  const double experts_through = copies + static_cast<double>(m.shared);
  // The fused permutation writes the k copies in expert order and the unpermutation reads them
  // back (2 k h elements); the stored permuted inputs and expert outputs are 2 x k h elements, 4 k
  // h bytes at 2 bytes.
  const double permute_traffic = 2.0 * copies * h;
  const double permute_stored = 4.0 * copies * h;
  const double act_elements = w.gated_mlp() ? 3.0 : 2.0;  // activation function, elements/token
  const double act_bytes = w.gated_mlp() ? 6.0 : 4.0;     // stored, bytes/token at 2 bytes
  m.memory_elements_delta = m.moe_layer_share * (experts_through * act_elements * fe +
                                                 permute_traffic - act_elements * fd);
  m.activation_bytes_delta =
      m.moe_layer_share * (experts_through * act_bytes * fe + permute_stored - act_bytes * fd);
  return m;
}

units::Data AllToAllBytes(const MoeModel& moe, double tokens, double hidden, units::Data element) {
  return tokens * static_cast<double>(moe.top_k) * hidden * moe.load_imbalance * element;
}

}  // namespace dcplan

// The step model on the shipped presets and model presets, against published layouts and kernels:
// what planner/workload's own tests (which may not depend on the presets) cannot check.
#include <string>

#include "gtest/gtest.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "units/units.h"

namespace dcplan {
namespace {

// Interleaving as published: Llama 3 405B trained on 16,384 H100s with pp 16 and 8 chunks of one
// layer per stage (Dubey et al. 2024, section 3.3.2: 126 layers = 16 x 8 - 2); NVIDIA's NeMo
// recipes for the same model run pp 8 x 8 chunks on H100 (Megatron-Bridge performance summary).
// With each chunk's sends, their synchronisation and the larger in-flight activations charged,
// the search on the h100-dgx preset and the llama3-405b model picks a depth and interleaving of
// that kind: 8 chunks, one or two layers each.
TEST(SearchParallelism, InterleavesLlama3405bAsPublishedRunsDo) {
  const PlanRequest h100 = LoadPreset("h100-dgx").value();
  const WorkloadModel w = BuildWorkloadModel(LoadModel("llama3-405b").value()).value();
  const auto r = SearchParallelism(w, BuildTrainingHardware(h100.hardware()), 16384);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->config.tp, 8);
  EXPECT_EQ(r->config.pp, 16);
  EXPECT_EQ(r->config.virtual_stages, 8);
  const double layers_per_chunk =
      static_cast<double>(w.layers) / static_cast<double>(r->config.pp * r->config.virtual_stages);
  EXPECT_GE(layers_per_chunk, 0.9);
  EXPECT_LE(layers_per_chunk, 2.0);
}

// FlashAttention-3 is Hopper-only (Shah et al. 2024): on the a100-dgx preset current software
// runs attention at FlashAttention-2's efficiency, as 2024 software does (the preset's 0.6 both
// ways); on h100-dgx 2024 software runs FlashAttention-2 (0.35) and current software FA3 / cuDNN
// (0.525): the attention core takes 0.525 / 0.35 = 1.5 times as long. Wave quantization is the
// same for both, so the ratio is exact.
TEST(SearchParallelism, AttentionIsFlashAttention2BeforeHopper) {
  const Workload current = LoadModel("llama3-70b").value();
  Workload older = current;
  older.mutable_framework()->set_generation(SOFTWARE_MEGATRON_2024);
  for (const char* preset : {"a100-dgx", "h100-dgx"}) {
    const TrainingHardware hw = BuildTrainingHardware(LoadPreset(preset).value().hardware());
    const LayerKernels now = EstimateLayerKernels(BuildWorkloadModel(current).value(), hw, 8, 1, 1);
    const LayerKernels then = EstimateLayerKernels(BuildWorkloadModel(older).value(), hw, 8, 1, 1);
    const double ratio =
        units::InSeconds(then.attention_forward) / units::InSeconds(now.attention_forward);
    EXPECT_NEAR(ratio, std::string(preset) == "a100-dgx" ? 1.0 : 0.525 / 0.35, 1e-12) << preset;
  }
}

}  // namespace
}  // namespace dcplan

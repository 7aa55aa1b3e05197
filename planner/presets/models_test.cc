// File: planner/presets/models_test.cc
//
// Tests the compiled-in model presets: the list, lookup errors, that each file parses and is
// embedded verbatim, that each dense model validates and its shape gives its published parameter
// count, that the mixtures of experts validate and count their published total and active
// parameters, and that every figure a model sets is cited in its `sources`.
#include "planner/presets/models.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/presets/presets.h"
#include "planner/presets/provenance_testing.h"
#include "planner/validate.h"
#include "planner/workload/moe.h"
#include "planner/workload/workload_validate.h"
#include "proto/request.pb.h"
#include "proto/workload.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::NamesAScalarField;
using ::dcplan::testing::SetFieldPaths;
using ::dcplan::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kKnownModels[] =
    "known models: deepseek-v3, gpt3-175b, llama3-405b, llama3-70b, llama3-8b, mixtral-8x22b, "
    "nemotron4-340b";

// The model file as the test's runfiles hold it, byte for byte.
std::string ReadModelFile(const std::string& name) {
  std::ifstream in(absl::StrCat("planner/presets/models/", name, ".textproto"), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Workload MustLoad(const std::string& name) {
  absl::StatusOr<Workload> workload = LoadModel(name);
  EXPECT_THAT(workload, IsOk()) << name;
  return workload.ok() ? *workload : Workload();
}

TEST(ModelNames, ListsTheSevenModelsSorted) {
  EXPECT_THAT(ModelNames(), ElementsAre("deepseek-v3", "gpt3-175b", "llama3-405b", "llama3-70b",
                                        "llama3-8b", "mixtral-8x22b", "nemotron4-340b"));
}

TEST(LoadModel, ParsesEveryModelNamedAfterItsFile) {
  for (const std::string& name : ModelNames()) {
    EXPECT_EQ(MustLoad(name).name(), name);
  }
}

TEST(LoadModel, RejectsAnUnknownNameListingTheKnownOnes) {
  EXPECT_THAT(LoadModel("llama9"),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("unknown model \"llama9\"; ", kKnownModels))));
  EXPECT_THAT(ModelText("llama9"),
              StatusIs(absl::StatusCode::kNotFound,
                       Eq(absl::StrCat("unknown model \"llama9\"; ", kKnownModels))));
  // Lookup is exact; a preset is not a model.
  EXPECT_THAT(LoadModel("Llama3-8B"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(kKnownModels)));
  EXPECT_THAT(LoadModel("h100-dgx"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(kKnownModels)));
  EXPECT_THAT(LoadModel("a\nb"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("unknown model \"a\\nb\"")));
}

TEST(ModelText, IsEachFileVerbatimWithItsComments) {
  for (const std::string& name : ModelNames()) {
    absl::StatusOr<absl::string_view> text = ModelText(name);
    ASSERT_THAT(text, IsOk()) << name;
    const std::string file = ReadModelFile(name);
    ASSERT_FALSE(file.empty()) << "cannot read the runfile for " << name;
    EXPECT_EQ(*text, file) << name;
    EXPECT_THAT(std::string(*text), StartsWith("# proto-file: proto/workload.proto\n")) << name;
  }
}

// One dense model's published parameter count.
struct Published {
  const char* model;
  double params;
};

// The counts each paper gives (the files' `params`):
constexpr Published kDense[] = {
    // Brown et al. 2020 (arXiv 2005.14165) Table 2.1: 175.0B.
    {"gpt3-175b", 175e9},
    // Dubey et al. 2024 (arXiv 2407.21783): 8B, 70B, 405B.
    {"llama3-8b", 8e9},
    {"llama3-70b", 70e9},
    {"llama3-405b", 405e9},
    // NVIDIA 2024 (arXiv 2406.11704): 340B.
    {"nemotron4-340b", 340e9},
};

// Parameters from the shape alone, worked out here apart from the workload model: per layer q and
// o (h x h each), k and v (h x h kv / heads each) and the MLP (2 or, gated, 3 matrices of h x
// ffn); the embeddings, once when tied and twice when not. Biases and norms are left out.
double ShapeParams(const Workload& w) {
  const double h = w.hidden();
  const double kv = w.kv_heads() > 0 ? w.kv_heads() : w.heads();
  const double ffn = w.ffn_hidden() > 0 ? w.ffn_hidden() : 4 * h;
  const double layer = 2 * h * h + 2 * h * (h * kv / w.heads()) + (w.gated_mlp() ? 3 : 2) * h * ffn;
  return w.layers() * layer + (w.untied_embeddings() ? 2 : 1) * w.vocab() * h;
}

TEST(DenseModels, ValidateAndTheirShapesGiveThePublishedParameterCounts) {
  for (const Published& p : kDense) {
    SCOPED_TRACE(p.model);
    const Workload w = MustLoad(p.model);
    EXPECT_THAT(ValidateWorkload(w, "workload"), IsOk());
    EXPECT_FALSE(w.has_moe());
    EXPECT_EQ(w.params(), p.params);
    // Hand figures (the files' comments): GPT-3 174.56B, Llama 3 8.03B, 70.55B, 405.85B,
    // Nemotron-4 341.0B: each within 2% of the published count.
    EXPECT_NEAR(ShapeParams(w), p.params, 0.02 * p.params);
  }
}

TEST(DenseModels, ValidateAsTheWorkloadOfEveryGpuPreset) {
  // The workload validator's hardware checks too (HBM size and bandwidth, the scale-up link):
  // every preset with a real GPU (not the seed's toy one, which has no HBM) takes every dense
  // model.
  for (const std::string& preset : PresetNames()) {
    if (preset == "seed") continue;
    absl::StatusOr<PlanRequest> request = LoadPreset(preset);
    ASSERT_THAT(request, IsOk()) << preset;
    for (const Published& p : kDense) {
      *request->mutable_workload() = MustLoad(p.model);
      EXPECT_THAT(ValidateRequest(*request), IsOk()) << preset << " + " << p.model;
    }
  }
}

TEST(DenseModels, Llama3405bHasTheShapeTheMeasuredRunsUse) {
  // tests/data/measured_training_runs_setup.csv, llama3_2024: 126 layers, hidden 16,384, FFN 53,248
  // (SwiGLU), 128 heads, 8 KV heads, vocabulary 128,256, sequences of 8,192; 405.85B by hand.
  const Workload w = MustLoad("llama3-405b");
  EXPECT_EQ(w.layers(), 126u);
  EXPECT_EQ(w.hidden(), 16384u);
  EXPECT_EQ(w.ffn_hidden(), 53248u);
  EXPECT_EQ(w.heads(), 128u);
  EXPECT_EQ(w.kv_heads(), 8u);
  EXPECT_EQ(w.vocab(), 128256u);
  EXPECT_EQ(w.seq_len(), 8192u);
  EXPECT_TRUE(w.gated_mlp());
  EXPECT_TRUE(w.untied_embeddings());
  EXPECT_NEAR(ShapeParams(w), 405.85e9, 0.01e9);
}

TEST(MixtureOfExpertsModels, ValidateOnceGivenABatchAndCountTheirPublishedParameters) {
  // Mixtral 8x22B publishes no batch: it is named missing; with one it validates. Its shape gives
  // 140.42B total and 38.95B active (planner/workload/moe_test.cc derives both by hand), the
  // published 141B and 39B.
  Workload mixtral = MustLoad("mixtral-8x22b");
  EXPECT_THAT(ValidateWorkload(mixtral, "workload"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "workload is missing a global batch (global_batch_tokens or "
                       "global_batch_sequences)"));
  mixtral.set_global_batch_sequences(256);
  EXPECT_THAT(ValidateWorkload(mixtral, "workload"), IsOk());
  EXPECT_NEAR(MoeParamsFromShape(mixtral).total, 141e9, 0.6e9);
  EXPECT_NEAR(MoeParamsFromShape(mixtral).active, mixtral.moe().active_params(), 0.1e9);
  // DeepSeek-V3 publishes its batch. Its shape's attention is standard multi-head attention in
  // place of MLA (moe.h): the shape's total lands within 1% of 671B and its active count within 5%
  // of the 37B it carries as active_params.
  const Workload deepseek = MustLoad("deepseek-v3");
  EXPECT_THAT(ValidateWorkload(deepseek, "workload"), IsOk());
  EXPECT_NEAR(MoeParamsFromShape(deepseek).total, 671e9, 0.01 * 671e9);
  EXPECT_NEAR(MoeParamsFromShape(deepseek).active, 37e9, 0.05 * 37e9);
}

TEST(Models, CiteEveryFieldTheySet) {
  for (const std::string& name : ModelNames()) {
    SCOPED_TRACE(name);
    const Workload w = MustLoad(name);
    std::set<std::string> cited;
    for (const FieldSource& source : w.sources()) {
      EXPECT_TRUE(NamesAScalarField(*Workload::descriptor(), source.path())) << source.path();
      EXPECT_TRUE(cited.insert(source.path()).second) << "cited twice: " << source.path();
      EXPECT_FALSE(source.source().empty()) << source.path();
      EXPECT_THAT(source.origin(), ::testing::AnyOf(ORIGIN_PRESET, ORIGIN_ESTIMATE))
          << source.path();
      if (source.origin() == ORIGIN_ESTIMATE) {
        EXPECT_THAT(source.source(),
                    ::testing::AnyOf(StartsWith("estimate:"), StartsWith("judgement:")))
            << source.path();
      }
    }
    for (const std::string& path : SetFieldPaths(w, {"sources"})) {
      EXPECT_EQ(cited.count(path), 1u) << "no source for " << path;
    }
  }
}

TEST(Models, CiteOnlyRowsThatSourcesMdHas) {
  std::ifstream in("planner/presets/SOURCES.md", std::ios::binary);
  std::ostringstream table;
  table << in.rdbuf();
  ASSERT_FALSE(table.str().empty()) << "cannot read planner/presets/SOURCES.md";
  for (const std::string& name : ModelNames()) {
    const Workload w = MustLoad(name);
    for (const FieldSource& source : w.sources()) {
      const size_t at = source.source().find("SOURCES.md#");
      ASSERT_NE(at, std::string::npos) << name << " " << source.path();
      const std::string id = source.source().substr(at + 11);
      EXPECT_TRUE(absl::StrContains(table.str(), absl::StrCat("<a id=\"", id, "\"></a>")))
          << name << " cites SOURCES.md#" << id;
    }
  }
}

}  // namespace
}  // namespace dcplan

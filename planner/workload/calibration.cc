// File: planner/workload/calibration.cc
#include "planner/workload/calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_validate.h"

namespace dcplan {
namespace {

// One CSV table: a header naming the columns, then rows; '#' lines are comments. Fields hold no
// commas (the data files use ';' inside text).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> line_numbers;
};

absl::StatusOr<Table> ParseCsv(absl::string_view text, absl::string_view name) {
  Table t;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (absl::string_view f : absl::StrSplit(line, ',')) {
      fields.emplace_back(absl::StripAsciiWhitespace(f));
    }
    if (t.columns.empty()) {
      t.columns = std::move(fields);
      continue;
    }
    if (fields.size() != t.columns.size()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s line %d: %d fields, the header has %d",
                                                        name, line_number, fields.size(),
                                                        t.columns.size()));
    }
    t.rows.push_back(std::move(fields));
    t.line_numbers.push_back(line_number);
  }
  if (t.columns.empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": no header line"));
  return t;
}

// Field access by column name, with errors naming the file, line and column.
class Row {
 public:
  Row(const Table& t, size_t i, absl::string_view name) : t_(t), i_(i), name_(name) {}

  absl::StatusOr<std::string> Text(absl::string_view column) const {
    for (size_t c = 0; c < t_.columns.size(); ++c) {
      if (t_.columns[c] == column) return t_.rows[i_][c];
    }
    return absl::InvalidArgumentError(absl::StrCat(name_, ": no column \"", column, "\""));
  }
  bool Has(absl::string_view column) const {
    return std::find(t_.columns.begin(), t_.columns.end(), column) != t_.columns.end();
  }
  absl::StatusOr<double> Number(absl::string_view column) const {
    DCPLAN_ASSIGN_OR_RETURN(std::string s, Text(column));
    double v = 0;
    if (!absl::SimpleAtod(s, &v) || !std::isfinite(v)) {
      return Error(column, absl::StrCat("expected a number, got \"", s, "\""));
    }
    return v;
  }
  absl::StatusOr<uint32_t> Count(absl::string_view column) const {
    DCPLAN_ASSIGN_OR_RETURN(double v, Number(column));
    if (v < 0 || v != std::floor(v) || v > 4e9) {
      return Error(column, absl::StrCat("expected a whole number, got ", v));
    }
    return static_cast<uint32_t>(v);
  }
  absl::StatusOr<bool> Bool(absl::string_view column) const {
    DCPLAN_ASSIGN_OR_RETURN(std::string s, Text(column));
    if (s == "true") return true;
    if (s == "false") return false;
    return Error(column, absl::StrCat("expected true or false, got \"", s, "\""));
  }
  absl::Status Error(absl::string_view column, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, " line ", t_.line_numbers[i_], ", column ", column, ": ", what));
  }

 private:
  const Table& t_;
  size_t i_;
  std::string name_;
};

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<Recompute> ParseRecompute(const Row& row) {
  DCPLAN_ASSIGN_OR_RETURN(std::string s, row.Text("recompute"));
  if (s == "searched") return RECOMPUTE_UNSPECIFIED;  // not published: the least that fits
  if (s == "none") return RECOMPUTE_NONE;
  if (s == "selective") return RECOMPUTE_SELECTIVE;
  if (s == "full") return RECOMPUTE_FULL;
  if (s == "partial") return RECOMPUTE_PARTIAL;
  return row.Error("recompute",
                   absl::StrCat("expected none, selective, full or searched, got \"", s, "\""));
}

absl::StatusOr<SoftwareGeneration> ParseGeneration(const Row& row) {
  DCPLAN_ASSIGN_OR_RETURN(std::string s, row.Text("software"));
  if (s == "megatron_2021") return SOFTWARE_MEGATRON_2021;
  if (s == "megatron_2022") return SOFTWARE_MEGATRON_2022;
  if (s == "current") return SOFTWARE_CURRENT;
  if (s == "megatron_2024") return SOFTWARE_MEGATRON_2024;
  return row.Error(
      "software",
      absl::StrCat("expected megatron_2021, megatron_2022, megatron_2024 or current, got \"", s,
                   "\""));
}

// The setup row's fields go into the run's workload and hardware.
absl::Status ApplySetup(const Row& row, MeasuredRun* run) {
  Parallelism* p = run->workload.mutable_parallelism();
  DCPLAN_ASSIGN_OR_RETURN(uint32_t micro_batch, row.Count("micro_batch"));
  p->set_micro_batch(micro_batch);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t virtual_stages, row.Count("virtual_stages"));
  p->set_virtual_stages(virtual_stages);
  DCPLAN_ASSIGN_OR_RETURN(Recompute recompute, ParseRecompute(row));
  p->set_recompute(recompute);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t cp, row.Count("cp"));
  p->set_cp(cp);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t kv_heads, row.Count("kv_heads"));
  run->workload.set_kv_heads(kv_heads);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t ffn_hidden, row.Count("ffn_hidden"));
  run->workload.set_ffn_hidden(ffn_hidden);
  DCPLAN_ASSIGN_OR_RETURN(bool gated, row.Bool("gated_mlp"));
  run->workload.set_gated_mlp(gated);
  DCPLAN_ASSIGN_OR_RETURN(run->compute_units, row.Count("compute_units"));
  // Optional columns (0 when absent): the fused attention's fraction of peak, the gradient bucket.
  if (row.Has("attention_efficiency")) {
    DCPLAN_ASSIGN_OR_RETURN(run->attention_efficiency, row.Number("attention_efficiency"));
  }
  if (run->attention_efficiency < 0 || run->attention_efficiency > 1) {
    return row.Error("attention_efficiency", absl::StrCat("expected a fraction in [0, 1], got ",
                                                          run->attention_efficiency));
  }
  Framework* f = run->workload.mutable_framework();
  DCPLAN_ASSIGN_OR_RETURN(SoftwareGeneration generation, ParseGeneration(row));
  f->set_generation(generation);
  DCPLAN_ASSIGN_OR_RETURN(bool flash, row.Bool("flash_attention"));
  f->set_flash_attention(flash);
  DCPLAN_ASSIGN_OR_RETURN(bool sp, row.Bool("sequence_parallel"));
  f->set_sequence_parallel(sp);
  DCPLAN_ASSIGN_OR_RETURN(bool dist, row.Bool("distributed_optimizer"));
  f->set_distributed_optimizer(dist);
  DCPLAN_ASSIGN_OR_RETURN(bool overlap, row.Bool("overlap_gradient_sync"));
  f->set_overlap_gradient_sync(overlap);
  DCPLAN_ASSIGN_OR_RETURN(bool sg, row.Bool("pipeline_scatter_gather"));
  f->set_pipeline_scatter_gather(sg);
  // Optional: the block's style (gpt or llama) and norm (layer_norm or rms_norm; "" = the style's).
  if (row.Has("block")) {
    DCPLAN_ASSIGN_OR_RETURN(std::string block, row.Text("block"));
    if (block == "llama") {
      run->workload.mutable_block()->set_style(BLOCK_STYLE_LLAMA);
    } else if (block == "gpt") {
      run->workload.mutable_block()->set_style(BLOCK_STYLE_GPT);
    } else {
      return row.Error("block", absl::StrCat("expected gpt or llama, got \"", block, "\""));
    }
  }
  if (row.Has("norm")) {
    DCPLAN_ASSIGN_OR_RETURN(std::string norm, row.Text("norm"));
    if (norm == "layer_norm") {
      run->workload.mutable_block()->set_norm(NORM_LAYER_NORM);
    } else if (norm == "rms_norm") {
      run->workload.mutable_block()->set_norm(NORM_RMS_NORM);
    } else if (!norm.empty()) {
      return row.Error("norm", absl::StrCat("expected layer_norm or rms_norm, got \"", norm, "\""));
    }
  }
  // Optional: the multiplies' precision (bf16 or fp8), the FP8 peak and the FP8 scaling.
  if (row.Has("precision")) {
    DCPLAN_ASSIGN_OR_RETURN(std::string precision, row.Text("precision"));
    if (precision == "fp8") {
      run->workload.set_precision(TRAINING_PRECISION_FP8);
    } else if (precision != "bf16") {
      return row.Error("precision", absl::StrCat("expected bf16 or fp8, got \"", precision, "\""));
    }
  }
  if (row.Has("peak_fp8_flops_per_second")) {
    DCPLAN_ASSIGN_OR_RETURN(double fp8_peak, row.Number("peak_fp8_flops_per_second"));
    run->hardware.mutable_accelerator()->set_peak_fp8_flops_per_second(fp8_peak);
  }
  if (row.Has("fp8_current_scaling")) {
    DCPLAN_ASSIGN_OR_RETURN(bool current_scaling, row.Bool("fp8_current_scaling"));
    if (current_scaling) run->workload.mutable_fp8()->set_current_scaling(true);
  }
  if (row.Has("untied_embeddings")) {
    DCPLAN_ASSIGN_OR_RETURN(bool untied, row.Bool("untied_embeddings"));
    run->workload.set_untied_embeddings(untied);
  }
  // Optional: a mixture of experts (experts 0 or absent = dense): routed experts, top-k, the
  // expert MLP's width (0 = ffn_hidden) and the expert-parallel degree.
  if (row.Has("experts")) {
    DCPLAN_ASSIGN_OR_RETURN(uint32_t experts, row.Count("experts"));
    if (experts > 0) {
      MixtureOfExperts* moe = run->workload.mutable_moe();
      moe->set_experts(experts);
      DCPLAN_ASSIGN_OR_RETURN(uint32_t top_k, row.Count("experts_per_token"));
      moe->set_experts_per_token(top_k);
      DCPLAN_ASSIGN_OR_RETURN(uint32_t expert_ffn, row.Count("expert_ffn_hidden"));
      moe->set_expert_ffn_hidden(expert_ffn);
      DCPLAN_ASSIGN_OR_RETURN(uint32_t ep, row.Count("ep"));
      p->set_ep(ep);
    }
  }
  if (row.Has("gradient_bucket_params")) {
    DCPLAN_ASSIGN_OR_RETURN(uint32_t bucket, row.Count("gradient_bucket_params"));
    if (bucket > 0) f->set_gradient_bucket_params(bucket);
  }
  DCPLAN_ASSIGN_OR_RETURN(bool balance, row.Bool("balance_pipeline_stages"));
  f->set_balance_pipeline_stages(balance);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t precision, row.Count("precision_bytes"));
  run->workload.set_precision_bytes(precision);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t gradient, row.Count("gradient_bytes"));
  run->workload.set_gradient_bytes(gradient);
  Accelerator* acc = run->hardware.mutable_accelerator();
  DCPLAN_ASSIGN_OR_RETURN(double hbm, row.Number("hbm_bytes"));
  acc->set_hbm_bytes(hbm);
  DCPLAN_ASSIGN_OR_RETURN(double hbm_rate, row.Number("hbm_bytes_per_second"));
  acc->set_hbm_bandwidth_bytes_per_second(hbm_rate);
  Network* net = run->hardware.mutable_network();
  DCPLAN_ASSIGN_OR_RETURN(uint32_t domain, row.Count("scale_up_gpus"));
  net->set_scale_up_domain_gpus(domain);
  run->hardware.mutable_server()->set_gpus_per_server(domain);
  DCPLAN_ASSIGN_OR_RETURN(double up, row.Number("scale_up_bytes_per_second"));
  net->set_scale_up_bandwidth_bytes_per_second(up);
  DCPLAN_ASSIGN_OR_RETURN(double out, row.Number("scale_out_bits_per_second_per_gpu"));
  net->set_nics_per_gpu(1);
  net->set_port_bits_per_second(out);
  return absl::OkStatus();
}

absl::StatusOr<MeasuredRun> ParseRun(const Row& row) {
  MeasuredRun run;
  DCPLAN_ASSIGN_OR_RETURN(run.source, row.Text("source"));
  DCPLAN_ASSIGN_OR_RETURN(uint32_t gpus, row.Count("gpus"));
  run.gpus = gpus;
  DCPLAN_ASSIGN_OR_RETURN(run.interconnect, row.Text("interconnect"));
  Workload& w = run.workload;
  DCPLAN_ASSIGN_OR_RETURN(uint32_t layers, row.Count("layers"));
  w.set_layers(layers);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t hidden, row.Count("hidden"));
  w.set_hidden(hidden);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t heads, row.Count("heads"));
  w.set_heads(heads);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t seq_len, row.Count("seq_len"));
  w.set_seq_len(seq_len);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t vocab, row.Count("vocab"));
  w.set_vocab(vocab);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t batch, row.Count("global_batch"));
  w.set_global_batch_sequences(batch);
  // params_b is the paper's rounded count; the shape's own count matches the FLOP formula the
  // sources used, so the workload derives it (params = 0).
  Parallelism* p = w.mutable_parallelism();
  DCPLAN_ASSIGN_OR_RETURN(uint32_t tp, row.Count("tp"));
  p->set_tp(tp);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t pp, row.Count("pp"));
  p->set_pp(pp);
  DCPLAN_ASSIGN_OR_RETURN(uint32_t dp, row.Count("dp"));
  p->set_dp(dp);
  w.set_name(absl::StrCat(run.source, "-", gpus));
  DCPLAN_ASSIGN_OR_RETURN(double peak_tflops, row.Number("peak_tflops"));
  run.hardware.mutable_accelerator()->set_name(row.Text("gpu").value_or(""));
  run.hardware.mutable_accelerator()->set_peak_flops_per_second(peak_tflops * 1e12);
  DCPLAN_ASSIGN_OR_RETURN(double tflops, row.Number("tflops_per_gpu"));
  run.reported_flops_per_gpu = tflops * 1e12;
  DCPLAN_ASSIGN_OR_RETURN(run.flops_convention, row.Text("flops_convention"));
  return run;
}

}  // namespace

FitBounds BoundsForGpu(absl::string_view gpu) {
  FitBounds b;
  if (gpu == "H100-SXM5" || gpu == "A100-80GB") {
    // One fitted constant per family: the multiplies' ceiling. The knee is held at 0 (every
    // multiply of these large shapes at the ceiling), the memory-bound factor at 1 (the counted
    // passes at the full HBM bandwidth: the block variant says what moves), the links at NCCL's
    // measured 0.8 (issue 19: with five constants the A100 fit's leave-one-source-out RMS was 4.03
    // points, with one 3.62; H100: 2.41 before, 1.88 now).
    b.lower[1] = b.upper[1] = 0.0;
    b.lower[2] = b.upper[2] = 0.8;
    b.lower[3] = b.upper[3] = 0.8;
    b.lower[4] = b.upper[4] = 1.0;
  }
  return b;
}

bool IsCheckOnlyRun(const MeasuredRun& run) {
  return run.source == "llama3_2024_131k" || absl::StartsWith(run.source, "mcore_moe") ||
         (absl::StartsWith(run.source, "nemo25") && absl::StrContains(run.source, "_fp8"));
}

std::vector<MeasuredRun> RunsOnGpu(const std::vector<MeasuredRun>& runs, absl::string_view gpu) {
  std::vector<MeasuredRun> out;
  for (const MeasuredRun& r : runs) {
    if (r.hardware.accelerator().name() == gpu) out.push_back(r);
  }
  return out;
}

double ModelOverMegatronRecomputeFlops(const Workload& w) {
  const double s = w.seq_len(), h = w.hidden(), l = w.layers(), v = w.vocab();
  const double model = 6.0 * ParamsFromShape(w) + 12.0 * l * s * h;
  const double megatron = 96.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
  return model / megatron;
}

absl::StatusOr<double> PublishedMfu(double reported, absl::string_view convention,
                                    const Workload& w, double peak) {
  if (convention == "model") return reported / peak;
  if (convention == "megatron_recompute") {
    return reported * ModelOverMegatronRecomputeFlops(w) / peak;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "flops_convention must be megatron_recompute or model, got \"", convention, "\""));
}

absl::StatusOr<std::vector<MeasuredRun>> ParseMeasuredRuns(absl::string_view runs_csv,
                                                           absl::string_view setup_csv) {
  DCPLAN_ASSIGN_OR_RETURN(Table runs, ParseCsv(runs_csv, "measured_training_runs.csv"));
  DCPLAN_ASSIGN_OR_RETURN(Table setup, ParseCsv(setup_csv, "measured_training_runs_setup.csv"));
  std::map<std::pair<std::string, int64_t>, size_t> setup_rows;
  for (size_t i = 0; i < setup.rows.size(); ++i) {
    Row row(setup, i, "measured_training_runs_setup.csv");
    DCPLAN_ASSIGN_OR_RETURN(std::string source, row.Text("source"));
    DCPLAN_ASSIGN_OR_RETURN(uint32_t gpus, row.Count("gpus"));
    if (!setup_rows.emplace(std::make_pair(source, int64_t{gpus}), i).second) {
      return row.Error("gpus",
                       absl::StrCat("a second setup row for ", source, " on ", gpus, " GPUs"));
    }
  }
  std::vector<MeasuredRun> out;
  for (size_t i = 0; i < runs.rows.size(); ++i) {
    Row row(runs, i, "measured_training_runs.csv");
    DCPLAN_ASSIGN_OR_RETURN(MeasuredRun run, ParseRun(row));
    auto it = setup_rows.find({run.source, run.gpus});
    if (it == setup_rows.end()) {
      return row.Error("source", absl::StrCat("no setup row for ", run.source, " on ", run.gpus,
                                              " GPUs in measured_training_runs_setup.csv"));
    }
    DCPLAN_RETURN_IF_ERROR(
        ApplySetup(Row(setup, it->second, "measured_training_runs_setup.csv"), &run));
    DCPLAN_RETURN_IF_ERROR(ValidateWorkload(run.workload, "workload"));
    DCPLAN_ASSIGN_OR_RETURN(
        run.published_mfu,
        PublishedMfu(run.reported_flops_per_gpu, run.flops_convention, run.workload,
                     run.hardware.accelerator().peak_flops_per_second()));
    out.push_back(std::move(run));
  }
  return out;
}

absl::StatusOr<std::vector<MeasuredRun>> ReadMeasuredRuns(const std::string& runs_path,
                                                          const std::string& setup_path) {
  DCPLAN_ASSIGN_OR_RETURN(std::string runs, ReadFile(runs_path));
  DCPLAN_ASSIGN_OR_RETURN(std::string setup, ReadFile(setup_path));
  return ParseMeasuredRuns(runs, setup);
}

namespace {
absl::StatusOr<SearchResult> SearchRun(const MeasuredRun& run,
                                       const EfficiencyCalibration& calibration) {
  DCPLAN_ASSIGN_OR_RETURN(WorkloadModel w, BuildWorkloadModel(run.workload));
  Hardware hardware = run.hardware;
  *hardware.mutable_calibration() = calibration;
  // The SM count is a fact of the run's GPU, not a fitted constant.
  hardware.mutable_calibration()->set_compute_units(run.compute_units);
  // So is the fused attention kernel's speed on it (the run's FlashAttention version).
  if (run.attention_efficiency > 0) {
    hardware.mutable_calibration()->set_attention_efficiency(run.attention_efficiency);
  }
  const TrainingHardware hw = BuildTrainingHardware(hardware);
  return SearchParallelism(w, hw, run.gpus);
}
}  // namespace

absl::StatusOr<StepEstimate> PredictRun(const MeasuredRun& run,
                                        const EfficiencyCalibration& calibration) {
  DCPLAN_ASSIGN_OR_RETURN(SearchResult r, SearchRun(run, calibration));
  return r.estimate;
}

absl::StatusOr<ParallelConfig> PredictRunConfig(const MeasuredRun& run,
                                                const EfficiencyCalibration& calibration) {
  DCPLAN_ASSIGN_OR_RETURN(SearchResult r, SearchRun(run, calibration));
  return r.config;
}

absl::StatusOr<FitResult> ScoreCalibration(const std::vector<MeasuredRun>& runs,
                                           const EfficiencyCalibration& calibration) {
  if (runs.empty()) return absl::InvalidArgumentError("no measured runs to score against");
  FitResult r;
  r.calibration = calibration;
  double sum = 0;
  for (const MeasuredRun& run : runs) {
    DCPLAN_ASSIGN_OR_RETURN(StepEstimate e, PredictRun(run, calibration));
    const double err = 100.0 * (units::InFraction(e.mfu) - run.published_mfu);
    r.error_points.push_back(err);
    sum += err * err;
    r.max_abs_points = std::max(r.max_abs_points, std::abs(err));
  }
  r.rms_points = std::sqrt(sum / static_cast<double>(runs.size()));
  return r;
}

absl::StatusOr<FitResult> FitCalibration(const std::vector<MeasuredRun>& runs,
                                         const EfficiencyCalibration& base,
                                         const FitBounds& bounds) {
  // The constants in FitBounds order, from `base` (or the defaults) for the held ones.
  const CalibrationModel b = BuildCalibration(base);
  const std::vector<double> held = {units::InFraction(b.kernel_efficiency),
                                    units::InFlopsPerByte(b.gemm_knee),
                                    units::InFraction(b.scale_up_bandwidth_efficiency),
                                    units::InFraction(b.scale_out_bandwidth_efficiency),
                                    units::InFraction(b.memory_bound_factor)};
  // The knee is at most the runs' HBM ridge point, peak / HBM bandwidth: a multiply is never more
  // memory-bound than one streaming its operands from HBM once (on-chip reuse only lowers it).
  FitBounds b2 = bounds;
  for (const MeasuredRun& run : runs) {
    const double ridge = run.hardware.accelerator().peak_flops_per_second() /
                         run.hardware.accelerator().hbm_bandwidth_bytes_per_second();
    if (ridge > 0 && b2.lower[1] < b2.upper[1]) b2.upper[1] = std::min(b2.upper[1], ridge);
  }
  b2.upper[1] = std::max(b2.upper[1], b2.lower[1]);
  std::vector<size_t> free;
  for (size_t i = 0; i < held.size(); ++i) {
    if (b2.lower[i] < b2.upper[i]) free.push_back(i);
  }
  auto with = [&](const std::vector<double>& y) {
    std::vector<double> x = held;
    for (size_t i = 0; i < held.size(); ++i) {
      if (b2.lower[i] == b2.upper[i]) x[i] = b2.lower[i];
    }
    for (size_t j = 0; j < free.size(); ++j) x[free[j]] = y[j];
    EfficiencyCalibration c = base;
    c.set_kernel_efficiency(x[0]);
    c.set_gemm_knee_flops_per_byte(x[1]);
    c.set_scale_up_bandwidth_efficiency(x[2]);
    c.set_scale_out_bandwidth_efficiency(x[3]);
    c.set_memory_bound_factor(x[4]);
    return c;
  };
  auto pick = [&](const std::vector<double>& full) {
    std::vector<double> y;
    for (size_t i : free) y.push_back(full[i]);
    return y;
  };
  // Fails early (not inside the minimizer) when a run cannot be predicted at all.
  DCPLAN_RETURN_IF_ERROR(ScoreCalibration(runs, with(pick({0.7, 100, 0.8, 0.8, 1.0}))).status());
  if (free.empty()) return ScoreCalibration(runs, with({}));
  auto objective = [&](const std::vector<double>& y) {
    absl::StatusOr<FitResult> s = ScoreCalibration(runs, with(y));
    return s.ok() ? s->rms_points : 1e9;  // a calibration under which a run no longer fits
  };
  // A few starts across the box; Nelder-Mead from each; the best wins.
  const std::vector<std::vector<double>> starts = {
      {0.7, 100, 0.8, 0.8, 1.0}, {0.8, 300, 0.9, 0.6, 0.8}, {0.6, 30, 0.7, 0.9, 1.5}};
  const std::vector<double> step = pick({0.05, 50, 0.1, 0.1, 0.3});
  const std::vector<double> lower = pick(b2.lower), upper = pick(b2.upper);
  std::vector<double> best_y;
  double best = 0;
  for (const std::vector<double>& s : starts) {
    std::vector<double> y = MinimizeInBox(objective, pick(s), step, lower, upper, 300);
    // Restart once from the result: Nelder-Mead's simplex can collapse early.
    y = MinimizeInBox(objective, y, step, lower, upper, 300);
    const double v = objective(y);
    if (best_y.empty() || v < best) {
      best = v;
      best_y = y;
    }
  }
  return ScoreCalibration(runs, with(best_y));
}

absl::StatusOr<FitResult> LeaveOneOut(const std::vector<MeasuredRun>& runs,
                                      const EfficiencyCalibration& base, const FitBounds& bounds) {
  if (runs.size() < 2) return absl::InvalidArgumentError("leave-one-out needs at least two runs");
  FitResult r;
  double sum = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::vector<MeasuredRun> others;
    for (size_t j = 0; j < runs.size(); ++j) {
      if (j != i) others.push_back(runs[j]);
    }
    DCPLAN_ASSIGN_OR_RETURN(FitResult fit, FitCalibration(others, base, bounds));
    DCPLAN_ASSIGN_OR_RETURN(FitResult one, ScoreCalibration({runs[i]}, fit.calibration));
    const double err = one.error_points[0];
    r.folds.push_back(fit.calibration);
    r.error_points.push_back(err);
    sum += err * err;
    r.max_abs_points = std::max(r.max_abs_points, std::abs(err));
  }
  r.rms_points = std::sqrt(sum / static_cast<double>(runs.size()));
  return r;
}

absl::StatusOr<FitResult> LeaveOneSourceOut(const std::vector<MeasuredRun>& runs,
                                            const EfficiencyCalibration& base,
                                            const FitBounds& bounds) {
  std::vector<std::string> sources;
  for (const MeasuredRun& run : runs) {
    if (std::find(sources.begin(), sources.end(), run.source) == sources.end()) {
      sources.push_back(run.source);
    }
  }
  if (sources.size() < 2) {
    return absl::InvalidArgumentError("leave-one-source-out needs runs from at least two sources");
  }
  FitResult r;
  r.error_points.assign(runs.size(), 0.0);
  double sum = 0;
  for (const std::string& source : sources) {
    std::vector<MeasuredRun> others;
    for (const MeasuredRun& run : runs) {
      if (run.source != source) others.push_back(run);
    }
    DCPLAN_ASSIGN_OR_RETURN(FitResult fit, FitCalibration(others, base, bounds));
    r.folds.push_back(fit.calibration);
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].source != source) continue;
      DCPLAN_ASSIGN_OR_RETURN(FitResult one, ScoreCalibration({runs[i]}, fit.calibration));
      const double err = one.error_points[0];
      r.error_points[i] = err;
      sum += err * err;
      r.max_abs_points = std::max(r.max_abs_points, std::abs(err));
    }
  }
  r.rms_points = std::sqrt(sum / static_cast<double>(runs.size()));
  return r;
}

}  // namespace dcplan

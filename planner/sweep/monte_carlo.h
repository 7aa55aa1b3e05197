// File: planner/sweep/monte_carlo.h
//
// Monte Carlo over a request's uncertain inputs (PlanRequest.uncertain, proto/uncertainty.proto):
// sample every uncertain input (inverse transform of a counter-based random stream, so sample i is
// the same whatever the thread count or the order samples are solved in), solve the sampled
// request, and reduce each headline output to percentiles (Distributions) and how often each cap
// binds. Like the sweep, it is a grid over request fields, only of random points.
//
// The efficiency model's own error is sampled too (unless monte_carlo.model_mfu_error is false):
// each sample's MFU, realized compute and time to train carry a lognormal factor with the spread of
// planner/mfu_error.h, from a random stream of its own.
//
// Speed: a sample patches a copy of the typed model built once at the inputs' medians instead of
// rebuilding it, for the fields that only the caps, the site's PUE, the costs and the prices read:
// constraints.*, site.pue, site.annual_pue, costs.*, hardware.accelerator.price_usd,
// hardware.server.price_usd and hardware.server.non_gpu_price_usd. Any other uncertain field
// rebuilds the model per sample (validated, like SolvePlan). Either way the answer is the one
// SolvePlan gives for the sampled request (monte_carlo_test checks it sample by sample). With a
// workload, patched samples share the model's efficiency model, whose parallelism search is cached
// per cluster size, and the training figures (time to train, goodput) are cached per size too.
//
// Example:
//   request.add_uncertain()->CopyFrom(*ParseUncertain("pue=uniform(1.0, 2.0)"));
//   DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun mc, MonteCarloRun::Create(request));
//   DCPLAN_ASSIGN_OR_RETURN(Distributions d, mc.Summarize({}));
//   d.gpu_count().p50();   // 6,664 for the seed preset at 14 MW
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "planner/uncertain.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

class ThreadPool;

// The outputs each sample reports, in Distributions' field order; OutputName gives each one's
// Distributions (and Plan) field name.
enum SampleOutput : int {
  kOutGpuCount,
  kOutRealizedFlopsPerSecond,
  kOutItPowerWatts,
  kOutFacilityPowerWatts,
  kOutCapexUsd,
  kOutTcoUsd,
  kOutUsdPerGpuHour,
  kOutMfu,
  kOutTimeToTrainSeconds,
  kOutGoodput,
  kNumSampleOutputs,
};
const char* OutputName(int output);

// One output of a Plan by name: a Distributions field name ("gpu_count", "tco_usd", ...) or any
// numeric field of Plan by its path ("cost.energy_usd_per_year", "training.mfu").
// InvalidArgument naming the choices when there is no such output.
absl::StatusOr<double> PlanOutput(const Plan& plan, absl::string_view name);
// Whether `name` is an output PlanOutput knows (checked against the schema, no plan needed).
absl::Status CheckOutputName(absl::string_view name);

// What one sample gives.
struct SampleResult {
  bool ok = false;  // false: the sampled request has no plan (the validator refused it)
  BindingConstraint binding = BINDING_CONSTRAINT_UNSPECIFIED;
  std::array<double, kNumSampleOutputs> outputs{};
};

struct MonteCarloOptions {
  // Threads in all, the caller's included; 0 = one per core. Unused when `pool` is given.
  int threads = 0;
  ThreadPool* pool = nullptr;
  // Samples solved between two calls of the consumer.
  int64_t block_samples = 1 << 15;
  // Called before each block; an error stops the run with it (a server's deadline or cancellation).
  // Empty: never stops.
  std::function<absl::Status()> check;
  // > 0: every sample is a cluster of exactly this many GPUs, whatever the caps (`dcplan scale`):
  // EvaluateCluster of the sampled model instead of the solve; the caps are not applied and no
  // binding share is reported.
  int64_t fixed_gpus = 0;
};

// The thread pool a Monte Carlo caller runs on: options.pool when given, else one of
// options.threads threads owned by this holder (check status() before use).
class MonteCarloPool {
 public:
  explicit MonteCarloPool(const MonteCarloOptions& options);
  ~MonteCarloPool();
  ThreadPool* get() const { return pool_; }
  absl::Status status() const;

 private:
  std::unique_ptr<ThreadPool> own_;
  ThreadPool* pool_;
};

// The most runs x samples one request may ask for (compare's options, scale's sizes, a sweep's
// points): 10^8 solves, seconds to minutes of work.
inline constexpr int64_t kMaxMonteCarloWork = 100'000'000;
// OutOfRange when runs x samples exceeds kMaxMonteCarloWork: "<runs_text> x monte_carlo.samples
// (<samples>) = <product> <what>, more than 10^8: <advice>". Compared in doubles (the product of
// two large counts may overflow int64).
absl::Status CheckMonteCarloWork(int64_t runs, int64_t samples, absl::string_view runs_text,
                                 absl::string_view what, absl::string_view advice);

// Percentiles (nearest rank: p10 is the ceil(0.1 n)-th smallest), mean, min and max of `values`
// (reordered).
Percentiles SummarizeValues(std::vector<double>* values);

class MonteCarloRun {
 public:
  // Validates the request, resolves its uncertain inputs (the normal and lognormal truncated to the
  // field's valid range, found with the validator) and builds the model at the inputs' medians.
  // InvalidArgument when the request has no uncertain input.
  static absl::StatusOr<MonteCarloRun> Create(const PlanRequest& request);

  MonteCarloRun(MonteCarloRun&&) noexcept;
  MonteCarloRun& operator=(MonteCarloRun&&) noexcept;
  ~MonteCarloRun();

  int64_t samples() const;
  uint64_t seed() const;
  const std::vector<UncertainInput>& inputs() const;
  // Whether samples patch the model (every uncertain field is one the model is patched for).
  bool patched() const;

  // The request with every uncertain input at its median (quantile 0.5) and `uncertain` and
  // `monte_carlo` cleared: what the plan around the distributions describes.
  const PlanRequest& median_request() const;
  // Uniform draw u in (0, 1) of input `input` for sample `sample`, and the input's value there.
  double Draw(int64_t sample, int input) const;
  double InputValue(int64_t sample, int input) const;
  // The efficiency model's error (monte_carlo.model_mfu_error, planner/mfu_error.h): its sd of
  // ln(MFU) (0 when not sampled) and sample `sample`'s factor on MFU, exp(sigma Z), before the cap
  // at MFU 1. A sample's MFU and realized compute are SolvePlan's times min(factor, 1 / MFU), its
  // time to train SolvePlan's divided by that.
  double mfu_error_sigma() const;
  double MfuFactor(int64_t sample) const;
  // The request sample `sample` solves (the median request with the sampled values set).
  PlanRequest RequestAt(int64_t sample) const;

  // Solves samples [first, first + out.size()) on the calling thread (with fixed_gpus > 0:
  // evaluates clusters of that size, as MonteCarloOptions::fixed_gpus says).
  void SolveSamples(int64_t first, absl::Span<SampleResult> out, int64_t fixed_gpus = 0) const;

  // Solves every sample in parallel and hands them to `consume` in sample order, a block at a time
  // (consume(first, results)), from the calling thread. Stops at consume's first error.
  absl::Status Run(
      const MonteCarloOptions& options,
      absl::FunctionRef<absl::Status(int64_t first, absl::Span<const SampleResult>)> consume) const;

  // Run, reduced to the Distributions (training outputs only when the request has a workload).
  absl::StatusOr<Distributions> Summarize(const MonteCarloOptions& options) const;

 private:
  struct Impl;
  explicit MonteCarloRun(std::unique_ptr<Impl> impl);
  static absl::Status SetUpCorrelations(const MonteCarlo& mc, Impl* impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dcplan

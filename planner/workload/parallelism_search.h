// File: planner/workload/parallelism_search.h
//
// The parallelism search: for a workload on a cluster of G GPUs, every valid configuration (tensor,
// pipeline and data parallel degrees, micro-batch, virtual pipeline stages, recomputation) is
// evaluated with EstimateStep (workload_model.h) and the fastest one that fits in memory is
// returned, with its breakdown. Fields the workload fixes (Workload.parallelism) are kept; the rest
// are searched.
//
// The space:
//   - tp: 1 .. scale-up domain size, dividing heads and ffn_hidden (and kv_heads, or a multiple);
//   - cp: powers of two up to 32 dividing seq_len, for sequences of 16,384 tokens or more (1
//   below);
//   - pp: 1 .. min(layers, G / tp), beyond 128 only the divisors of layers and the powers of two;
//   - dp: floor(G / (tp pp)) capped at the global batch in sequences, and a few smaller degrees
//     down to 1/16 of it (powers of two, divisors of the batch): GPUs left over idle and still
//     count in MFU, so idling pays only when the batch is too small to keep the cluster busy;
//   - recompute: none, selective (only without flash attention, and from the 2022 software on),
//     partial (the fewest layers per stage that fit), full;
//   - virtual stages: 1 .. 8 with pp x v <= layers + 2 when pp > 2 (the first and last chunk may
//   hold
//     only the embedding or the output layer), pp x v <= layers otherwise, 1 when pp is 1; v > 1
//     only with at least pp micro-batches;
//   - micro-batch: 1, 2, 4, ... up to the sequences per data-parallel replica; the loop stops at
//     the first micro-batch that does not fit (memory grows with it).
//   - zero: the workload's ZeRO stage when given, else the framework's (1 with the distributed
//     optimizer, else 0) and, with SOFTWARE_CURRENT, 3 (FSDP: the weights sharded too, gathered
//     per layer);
//   - ep (a mixture of experts only; 1 for a dense model): every divisor of the experts that
//     divides dp. Expert parallelism lives inside the data-parallel group (Megatron-Core's
//     expert_model_parallel_size dividing the data-parallel size, as the published Mixtral and
//     DeepSeek-V3 layouts use): it adds no GPUs, it trades expert weights and gradient sync for
//     the all-to-all.
// Each configuration costs one O(1) evaluation and nothing is allocated in the loop (the batch's
// divisors are listed once per search): millions of configurations per second
// (planner/parallelism_search_benchmark.cc). What the estimate needs from (tp, cp, micro-batch)
// alone (LayerKernels) is worked out once per (tp, cp, micro-batch), what it needs from (tp, cp,
// dp) alone (GroupFigures) once per (tp, cp, pp, dp), and a configuration that does not fit in
// memory is estimated only up to its memory (EstimateStepIfItFits). One StepModel holds what every
// estimate works out from the workload and the hardware alone; a mixture of experts' expert
// multiplies (AddExpertKernels) are worked out once per (tp, cp, micro-batch, ep) in the kernels.
// SearchMode::kBestOnly (for callers that read only the answer) also skips what cannot beat the
// best found: a (tp, cp, pp, dp), and inside it a (recomputation, virtual stages), whose step has a
// lower bound no shorter than the best step. The bound, (batch / dp x S_min per sequence + (pp - 1)
// / v x S_min) / pp, with S the stage's layers' multiplies, attention core and memory-bound time
// plus the output layer over the micro-batches tried, is the sum of parts of EstimateStep's step
// that are each at least that (parallelism_search.cc, ShapeBound). It evaluates about one
// configuration in seven of the full search's (tests/step_model_equivalence_test holds its answers
// to the full search's, bit for bit, on every preset).
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(SearchResult best, SearchParallelism(workload, hardware, 8192));
//   std::cout << DescribeConfig(best.config) << " MFU " << units::InFraction(best.estimate.mfu);
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "planner/workload/workload_model.h"

namespace dcplan {

struct SearchResult {
  ParallelConfig config;
  StepEstimate estimate;
  int64_t evaluated = 0;  // configurations evaluated
  int64_t feasible = 0;   // of which fit in memory (and the network)
  bool searched = false;  // false when the workload fixed every field
};

// The most GPUs any configuration of `workload` can keep busy on this hardware: the largest tensor-
// parallel degree the heads and the scale-up domain allow x the largest context-parallel degree
// searched x one pipeline stage per layer x one data-parallel replica per sequence of the batch
// (the workload's fixed degrees in their place). Beyond it GPUs can only idle: realized compute is
// flat. `why` (when not null) names what limits it.
int64_t LargestUsefulGpus(const WorkloadModel& workload, const TrainingHardware& hardware,
                          std::string* why);

// What a search must report besides the fastest configuration.
enum class SearchMode {
  // Every configuration in the space is evaluated: SearchResult's counts are the space's.
  kEveryConfiguration,
  // The same fastest configuration and estimate, bit for bit, and the same errors, but a
  // (tp, cp, pp, dp) whose step has a lower bound no shorter than the best found so far is not
  // evaluated, so `evaluated` and `feasible` count only what was (a dense model; a mixture of
  // experts is searched in full). For callers that read only the answer (the reference table).
  kBestOnly,
};

// The fastest feasible configuration of `workload` on `gpus` GPUs (>= 1).
// Errors (naming fields):
//   - InvalidArgument: a fixed field that cannot hold on this hardware (tp not dividing heads, tp
//     above the scale-up domain, pp above layers, tp x pp x dp differing from `gpus` when all
//     three are fixed, dp above the global batch ...).
//   - FailedPrecondition: no configuration fits; the message gives the least memory any needed, or
//     says the cluster spans several scale-up domains with no scale-out fabric.
//
// `first_shape` (SearchMode::kBestOnly only; optional): a split whose (tp, cp, pp) is searched
// before the others, e.g. the best of a neighbouring cluster size. Its best bounds the rest from
// the start, so fewer configurations are evaluated; the fastest step (and so the MFU) is the
// same, but `evaluated` differs and of two equally fast splits another may be kept.
absl::StatusOr<SearchResult> SearchParallelism(const WorkloadModel& workload,
                                               const TrainingHardware& hardware, int64_t gpus,
                                               SearchMode mode = SearchMode::kEveryConfiguration,
                                               const ParallelConfig* first_shape = nullptr);

}  // namespace dcplan

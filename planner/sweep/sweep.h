// File: planner/sweep/sweep.h
//
// Sweeps: one request solved over a grid of values of its fields, for the curve rather than one
// number: how the answer moves with the power cap, the PUE, the electricity price, the GPU count,
// the preset. A grid is a list of axes; each axis is a field of PlanRequest named by its path (or
// an alias: `power`, `pue`, `budget`, `electricity`, `gpus`) with its values, or the preset itself.
// Points are ordered like nested loops, the first axis outermost, and every result comes out in
// that order whatever the thread count.
//
// Axis text is `PATH=VALUES`, where VALUES is
//   a:b:step   a, a + step, ... up to b (inclusive): `site.pue=1.1:1.6:0.05`
//   a:b:logN   N points spaced evenly in log from a to b: `power=10MW:500MW:log20`
//   a,b,c      a list: `preset=h100-dgx,b200-dgx`, `budget=$1B,$2B`
// and every value is read in the field's unit: `_watts` fields take power text ("50MW"), `_usd`
// money ("$2.5B"), `_usd_per_kwh` an energy price ("0.08 USD/kWh"), `_bits_per_second` and
// `_bytes_per_second` a data rate, `_flops_per_second` a compute rate; a plain number is the
// field's own unit, and count fields also take suffixes ("8K"). Whole-number fields take whole
// numbers only (1.5 is refused); a log range over one takes the nearest whole numbers. Range values
// that would repeat (a step finer than a double, more log points than whole numbers) are refused.
//
// Speed: axes over the power cap, PUE, electricity price, GPU cap and budget patch the typed model
// directly (each value is validated once, not per point); any other field rebuilds the model, once
// per combination of those axes' values. Put such axes first (outermost) for the fastest sweeps.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(PlanRequest base, LoadPreset("seed"));
//   DCPLAN_ASSIGN_OR_RETURN(SweepAxis power, ParseSweepAxis("power=10MW:500MW:log20"));
//   DCPLAN_ASSIGN_OR_RETURN(Sweep sweep, Sweep::Create(base, {power}));
//   DCPLAN_RETURN_IF_ERROR(sweep.Run({}, [&](int64_t first, absl::Span<const SweepRow> rows) {
//     for (const SweepRow& row : rows) std::cout << row.gpus << "\n";   // 7,136 GPUs at 10 MW ...
//     return absl::OkStatus();
//   }));
#pragma once

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
#include "planner/sweep/axis.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

// What a sweep keeps of each point's plan: the solved cluster's headline figures.
struct SweepRow {
  // Why the point has no plan (an invalid value, a request without any cap ...); when not OK the
  // other fields are zero.
  absl::Status status;
  int64_t gpus = 0;
  int64_t servers = 0;
  int64_t racks = 0;
  int64_t pods = 0;
  int64_t buildings = 0;
  units::Power it_power;
  units::Power facility_power;
  units::ComputeRate peak;
  units::Ratio mfu;
  units::ComputeRate realized;
  units::Money capex;
  units::MoneyPerTime opex_rate;
  units::Money tco;
  BindingConstraint binding = BINDING_CONSTRAINT_UNSPECIFIED;
};

class ThreadPool;

struct SweepOptions {
  // Threads in all, the caller's included; 0 = one per core.
  int threads = 0;
  // Run on this pool instead of starting one (`threads` is then unused): a caller that also works
  // in parallel on the rows, such as the CLI formatting CSV, shares its threads.
  ThreadPool* pool = nullptr;
  // Points solved between two calls of the consumer (and two progress reports).
  int64_t block_points = 1 << 16;
  // Points a thread solves at a time (0: Run picks, a sixteenth of a block per thread).
  int64_t chunk_points = 0;
  // When set, called for each chunk of a block as soon as it is solved, on the thread that solved
  // it (chunks run concurrently, in any order): `chunk` numbers it within its block (chunk c
  // starts at the block's first point + c x the chunk size). A caller that turns rows into text
  // does so here, while they are in the thread's cache, instead of in a second pass over the
  // block after it; Run calls the consumer once every chunk of the block is through.
  std::function<void(int64_t first, int chunk, absl::Span<const SweepRow> rows)> on_chunk;
  // Patch the typed model for the power cap, PUE, electricity price, GPU cap and budget instead of
  // rebuilding it from a request for every point. Off only to check the two agree.
  bool patch_models = true;
};

// A grid over a base request, ready to solve.
class Sweep {
 public:
  // Loads the request a preset name stands for (the CLI's applies its flag overrides on top).
  using PresetLoader = std::function<absl::StatusOr<PlanRequest>(absl::string_view name)>;

  // Checks the axes against PlanRequest (fields exist and are numeric, at most one preset axis, at
  // most kMaxSweepPoints points). Every point starts from `base`, or from the preset its preset
  // axis names (loaded by `load_preset`, LoadPreset when null), with the axes' values set on top.
  static absl::StatusOr<Sweep> Create(PlanRequest base, std::vector<SweepAxis> axes,
                                      PresetLoader load_preset = nullptr);

  Sweep(Sweep&&) noexcept;
  Sweep& operator=(Sweep&&) noexcept;
  ~Sweep();

  // Points in the grid: the product of the axes' sizes.
  int64_t size() const;
  const std::vector<SweepAxis>& axes() const;
  // Where point `point` sits along axis `axis` (0-based).
  int64_t IndexAlong(int64_t point, int axis) const;

  // The request point `point` solves, built field by field (a preset that fails to load, or a
  // value out of the field's range, is an error).
  absl::StatusOr<PlanRequest> RequestAt(int64_t point) const;

  // Solves every point and hands the rows to `consume` in grid order, a block at a time, from the
  // calling thread: consume(first, rows) gets points first .. first + rows.size() - 1. A point's
  // own failure is in its row's status; Run stops early only when `consume` returns an error,
  // which it returns.
  absl::Status Run(const SweepOptions& options,
                   absl::FunctionRef<absl::Status(int64_t first, absl::Span<const SweepRow> rows)>
                       consume) const;

 private:
  struct Impl;
  explicit Sweep(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dcplan

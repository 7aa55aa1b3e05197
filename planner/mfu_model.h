// File: planner/mfu_model.h
//
// Efficiency models: how much of its peak rate a cluster of G GPUs realizes (model FLOPs
// utilization). They are values behind one small interface, so the seed's curve, a measured table
// and a constant plug into the same solver:
//   - LogLinearMfuModel: MFU(G) = a - b log2(G), floored (the chapter's toy model, a = 0.62, b =
//   0.02).
//   - TableMfuModel:     measured (G, MFU) points, interpolated linearly in log2(G), constant
//   beyond the ends.
//   - ConstantMfuModel:  the same MFU at every size.
// Realized compute = GPUs x peak per GPU x MFU(GPUs).
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::shared_ptr<const MfuModel> mfu,
//   MakeMfuModel(request.efficiency())); units::Ratio m = mfu->MfuAt(32768);   // 0.32 for the seed
//   curve
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

// The interface every efficiency model implements. Implementations are immutable and thread-safe.
class MfuModel {
 public:
  virtual ~MfuModel() = default;
  // MFU of a cluster of `gpus` GPUs, in (0, 1]; 0 for an empty cluster. O(1) or O(log points), no
  // allocation.
  virtual units::Ratio MfuAt(int64_t gpus) const = 0;
  // A one-line description for people, e.g. "log_linear: 0.62 - 0.02 log2(G), floor 0.01".
  virtual std::string Describe() const = 0;
  // GPU counts (ascending) at which G x MFU(G) may have a local maximum besides the ends of a
  // range: breakpoints and stationary points of the curve. The solver checks them when it maximizes
  // realized compute, which need not grow with G.
  virtual std::vector<double> RealizedComputeCandidates() const = 0;
};

// MFU(G) = max(floor, intercept - slope_per_doubling x log2(G)).
class LogLinearMfuModel final : public MfuModel {
 public:
  LogLinearMfuModel(double intercept, double slope_per_doubling, double floor);
  units::Ratio MfuAt(int64_t gpus) const override;
  std::string Describe() const override;
  std::vector<double> RealizedComputeCandidates() const override;

 private:
  double intercept_;
  double slope_;
  double floor_;
};

// Linear interpolation of MFU in log2(G) between measured points, constant beyond the ends.
class TableMfuModel final : public MfuModel {
 public:
  struct Point {
    double gpus;
    double mfu;
  };
  // `points` must be non-empty and strictly increasing in gpus (the validator guarantees it).
  explicit TableMfuModel(std::vector<Point> points);
  units::Ratio MfuAt(int64_t gpus) const override;
  std::string Describe() const override;
  std::vector<double> RealizedComputeCandidates() const override;

 private:
  std::vector<Point> points_;
  std::vector<double> log2_gpus_;
};

// The same MFU at every cluster size.
class ConstantMfuModel final : public MfuModel {
 public:
  explicit ConstantMfuModel(double mfu);
  units::Ratio MfuAt(int64_t gpus) const override;
  std::string Describe() const override;
  std::vector<double> RealizedComputeCandidates() const override;

 private:
  double mfu_;
};

// Builds the model a (validated) request's `efficiency` field describes; the seed's curve with its
// defaults when the field is empty.
absl::StatusOr<std::shared_ptr<const MfuModel>> MakeMfuModel(const EfficiencyModel& proto);

}  // namespace dcplan

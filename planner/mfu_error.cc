// File: planner/mfu_error.cc
#include "planner/mfu_error.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "planner/mfu_error_data.h"

namespace dcplan {

MfuFamily FamilyOfAccelerator(const std::string& accelerator_name) {
  const std::string name = absl::AsciiStrToUpper(accelerator_name);
  if (absl::StrContains(name, "A100")) return MfuFamily::kA100;
  if (absl::StrContains(name, "H100")) return MfuFamily::kH100;
  return MfuFamily::kCarried;
}

MfuErrorSpread MfuErrorFor(const PlanRequest& request) {
  MfuErrorSpread e;
  // MakeMfuModel (planner/mfu_model.h): no workload and no efficiency model is the seed's curve.
  const bool toy = !request.has_workload() &&
                   (request.efficiency().has_log_linear() ||
                    request.efficiency().model_case() == EfficiencyModel::MODEL_NOT_SET);
  if (toy) {
    e.sigma = kMfuErrorSigmaLogLinear;
    e.basis = absl::StrFormat(
        "log-linear curve vs %d published runs (A100, H100; fitted to none of them)",
        kMfuErrorRunsLogLinear);
    return e;
  }
  switch (FamilyOfAccelerator(request.hardware().accelerator().name())) {
    case MfuFamily::kA100:
      e.sigma = kMfuErrorSigmaA100;
      e.basis = absl::StrFormat("leave-one-source-out on %d published A100 runs from %d sources",
                                kMfuErrorRunsA100, kMfuErrorSourcesA100);
      break;
    case MfuFamily::kH100:
      e.sigma = kMfuErrorSigmaH100;
      e.basis = absl::StrFormat("leave-one-source-out on %d published H100 runs from %d sources",
                                kMfuErrorRunsH100, kMfuErrorSourcesH100);
      break;
    case MfuFamily::kCarried:
      // Independent errors add in quadrature: the H100 fit's own, and carrying a fit to another
      // GPU.
      e.sigma = std::hypot(kMfuErrorSigmaH100, kMfuErrorSigmaTransfer);
      e.basis = absl::StrFormat(
          "carried over from the H100 fit: its leave-one-source-out spread widened by the "
          "A100<->H100 transfer error (%d runs)",
          kMfuErrorRunsTransfer);
      e.carried_over = true;
      break;
  }
  return e;
}

MfuInterval MfuIntervalOf(double mfu, const MfuErrorSpread& spread) {
  MfuInterval i;
  if (!(mfu > 0) || !std::isfinite(mfu)) return i;
  i.set_p10(std::min(1.0, mfu * std::exp(-kZ90 * spread.sigma)));
  i.set_p90(std::min(1.0, mfu * std::exp(kZ90 * spread.sigma)));
  i.set_basis(spread.basis);
  i.set_carried_over(spread.carried_over);
  return i;
}

}  // namespace dcplan

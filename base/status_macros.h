// File: base/status_macros.h
//
// Debian's Abseil (20220623) has no ABSL_RETURN_IF_ERROR / ASSIGN_OR_RETURN; these are the small
// equivalents dcplan uses.
//
// Example:
//   DCPLAN_RETURN_IF_ERROR(ValidateRequest(request));
//   DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define DCPLAN_STATUS_CONCAT_INNER_(a, b) a##b
#define DCPLAN_STATUS_CONCAT_(a, b) DCPLAN_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define DCPLAN_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status dcplan_status_ = (expr);          \
    if (!dcplan_status_.ok()) return dcplan_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); returns its status when not OK, else moves its value
// into `lhs` (a declaration such as `Model model` or an existing variable).
#define DCPLAN_ASSIGN_OR_RETURN(lhs, rexpr) \
  DCPLAN_ASSIGN_OR_RETURN_IMPL_(DCPLAN_STATUS_CONCAT_(dcplan_statusor_, __LINE__), lhs, rexpr)

#define DCPLAN_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

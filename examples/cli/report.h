// File: examples/cli/report.h
//
// Readable summaries of plans for people (`--format=table`): the counts, the power from the GPUs to the
// meter, compute, money, and which cap bound. Numbers come from the Plan proto and are printed through
// units/format so every figure carries its unit.
#pragma once

#include <string>
#include <vector>

#include "proto/plan.pb.h"

namespace dcplan::cli {

// A multi-line summary of one plan.
std::string PlanTable(const Plan& plan);

// The `scale` table: one row per cluster size.
std::string ScaleTable(const ScaleReport& report);

// The `scale` rows as CSV with a header line.
std::string ScaleCsv(const ScaleReport& report);

// A short name for a binding constraint ("facility power", "budget", ...).
std::string BindingName(BindingConstraint b);

}  // namespace dcplan::cli

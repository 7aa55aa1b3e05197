// File: examples/cli/report.h
//
// Readable summaries of plans for people (`--format=table`): the counts, the power from the GPUs to
// the meter, compute, money, and which cap bound. Numbers come from the Plan proto and are printed
// through units/format so every figure carries its unit.
#pragma once

#include <string>
#include <vector>

#include "proto/plan.pb.h"

namespace dcplan::cli {

// A multi-line summary of one plan.
std::string PlanTable(const Plan& plan);

// The `scale` table, a row at a time (so that many sizes stream): its header line, and one line per
// cluster size appended to `out`.
std::string ScaleTableHeader();
void AppendScaleTableRow(const ScaleRow& row, std::string* out);

// The `scale` rows as CSV: the header line, and one line per cluster size.
std::string ScaleCsvHeader();
void AppendScaleCsvRow(const ScaleRow& row, std::string* out);

// An assumption's value for a table: "1.55", "$27.50k", "air" (enums by their short name).
std::string AssumptionText(const Assumption& a);

// A short name for a binding constraint ("facility power", "budget", ...).
std::string BindingName(BindingConstraint b);

// " (P10-P90 36-44%)" for a plan's or training plan's mfu_interval (", carried over" inside the
// parentheses for a GPU with no published runs); "" when the interval is not set.
std::string MfuIntervalNote(const MfuInterval& interval);

}  // namespace dcplan::cli

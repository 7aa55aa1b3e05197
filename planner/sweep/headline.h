// File: planner/sweep/headline.h
//
// The headline row, defined once: the columns every tabular output of a plan shares (the sweep's
// CSV and JSON lines, `dcplan fit --format=csv`, the API's POST /v1/csv and GET /v1/columns, the
// page's CSV export). Each column has its name (as in the Plan's JSON), its unit, where it sits in
// the Plan's JSON, and how to read it from a Plan and from a SweepRow; a new column is one line in
// headline.cc. Numbers are written in their shortest exact form (base/numbers.h), counts as whole
// numbers, the binding cap by its enum name.
//
// Example:
//   std::string csv = HeadlineCsvHeader() + "\n";      // gpu_count,server_count,...
//   AppendHeadlineCsvRow(plan, &csv);                   // 22312,2789,...,BINDING_CONSTRAINT_...
#pragma once

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "planner/sweep/sweep.h"
#include "proto/plan.pb.h"

namespace dcplan {

struct HeadlineColumn {
  enum class Kind { kCount, kNumber, kBinding };
  const char* name;       // "gpu_count": the CSV header, the JSON key
  const char* unit;       // "GPUs", "W", "FLOP/s", "1" (a fraction), "USD", "USD/year", ""
  const char* plan_path;  // in the Plan's JSON: "counts.gpu_count"
  Kind kind;
  // The value (a count as a double, exact below 2^53; the binding cap's enum number).
  double (*from_plan)(const Plan& plan);
  double (*from_row)(const SweepRow& row);
};

// The columns, in order.
absl::Span<const HeadlineColumn> HeadlineColumns();

// The names joined by commas (no newline).
std::string HeadlineCsvHeader();

// Appends one column's value as the CSV and JSON lines write it.
void AppendHeadlineValue(const HeadlineColumn& column, double value, std::string* out);

// Appends the plan's row, comma-separated (no newline).
void AppendHeadlineCsvRow(const Plan& plan, std::string* out);

}  // namespace dcplan

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

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/message.h"
#include "planner/sweep/sweep.h"
#include "proto/plan.pb.h"
#include "proto/service.pb.h"

namespace dcplan {

struct HeadlineColumn {
  enum class Kind { kCount, kNumber, kBinding };
  const char* name;       // "gpu_count": the CSV header, the JSON key
  const char* unit;       // "GPUs", "W", "FLOP/s", "1" (a fraction), "USD", "USD/year", ""
  const char* plan_path;  // in the Plan's JSON: "counts.gpu_count"
  Kind kind;
  // A value that is the same for every point landing on the same cluster while only caps, the
  // PUE or the energy price move (the counts, IT power, compute, capex): `dcplan sweep` keeps the
  // text of each run of such columns by server count (a hint: the values are compared bit for bit
  // before their text is reused).
  bool by_cluster;
  // The value (a count as a double, exact below 2^53; the binding cap's enum number).
  double (*from_plan)(const Plan& plan);
  double (*from_row)(const SweepRow& row);
};

// The columns, in order.
absl::Span<const HeadlineColumn> HeadlineColumns();

// How many columns there are.
inline constexpr size_t kHeadlineColumnCount = 14;

// Every column's from_row value of `row`, in the columns' order, into out[0 ..
// kHeadlineColumnCount - 1]: what a sweep's CSV reads for each of a million rows, in one call
// instead of one per column (headline_test holds it to from_row, column by column).
void HeadlineRowValues(const SweepRow& row, double* out);

// The names joined by commas (no newline).
std::string HeadlineCsvHeader();

// Appends one column's value as the CSV and JSON lines write it.
void AppendHeadlineValue(const HeadlineColumn& column, double value, std::string* out);

// BindingConstraint_Name(b) from a table made once: the binding column is written on every row of
// a sweep, and the generated function looks the value up in the enum's descriptor.
absl::string_view BindingText(BindingConstraint b);

// Appends the plan's row, comma-separated (no newline).
void AppendHeadlineCsvRow(const Plan& plan, std::string* out);

// The column named `name`; null when there is none.
const HeadlineColumn* FindHeadlineColumn(absl::string_view name);

// The column's value read through its plan_path from any message that has that path: a Plan, or a
// ScaleRow (counts, compute, power, cost as in a Plan). 0 when the path is not in the message.
double HeadlineValueAt(const HeadlineColumn& column, const google::protobuf::Message& message);

// SweepPoint (proto/service.proto) carries the headline columns as fields of the same names: these
// set each of them from a sweep's row or a plan (values, error and distribution are the caller's).
void SetSweepPointFigures(const SweepRow& row, SweepPoint* point);
void SetSweepPointFigures(const Plan& plan, SweepPoint* point);

// `dcplan scale`'s CSV: a selection of the headline columns, in its own order (the sizes' figures,
// without the caps' binding constraint), read from each ScaleRow by the column's plan_path.
absl::Span<const HeadlineColumn* const> ScaleCsvColumns();

}  // namespace dcplan

// File: planner/request_edit.h
//
// The one request-editing layer: get and set any PlanRequest field (Workload fields included, under
// `workload.`) by its path, with one value grammar that every front end shares: the CLI's flags
// and `--set`, a sweep's `--vary`, the HTTP API and the page. Numbers are read in the unit the
// field's name gives (`_watts` takes "50MW", `_usd` "$2.5B", `_usd_per_kwh` "0.08 USD/kWh"),
// fractions also as percentages ("10%"), counts with suffixes ("16M", "16Mi"), enums by name
// (`COOLING_DIRECT_LIQUID`, `direct_liquid` or `liquid`), booleans as true/false, repeated fields
// by index (`a.b[2]=7`) or whole (`a.b=[7, 3]`). A short alias stands for a full path ("pue" for
// "site.pue"); the table is Aliases().
//
// Every value set through this layer is recorded in the request's `sources` as the user's
// (ORIGIN_USER, with what set it), which is how the assumptions ledger (planner/ledger.h) tells a
// preset's figure from the user's own. Ranges are the validator's job (planner/validate.h): this
// layer checks only what the grammar and the field's type can hold.
//
// Errors are InvalidArgument (OutOfRange when a whole-number field cannot hold the value) and carry
// the path as a payload (base/field_checks.h FieldPathOf).
//
// Example:
//   DCPLAN_RETURN_IF_ERROR(SetField("hardware.accelerator.price_usd", "35000", "--set", &request));
//   DCPLAN_RETURN_IF_ERROR(ApplyAssignment("costs.wacc=10%", "--set", &request));
//   DCPLAN_ASSIGN_OR_RETURN(FieldRef pue, ResolveField("pue"));     // site.pue
//   DCPLAN_RETURN_IF_ERROR(SetNumber(pue, 1.2, &request));           // sweeps: no text, no record
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/descriptor.h"
#include "proto/request.pb.h"
#include "proto/request_access.h"

namespace dcplan {

// One step of a path: a field, and for a repeated field the element (-1: the whole list).
struct FieldStep {
  const google::protobuf::FieldDescriptor* field = nullptr;
  int index = -1;
  // The field's generated accessors (proto/request_access.h) when it is singular: the reads below
  // call them instead of reflection.
  const FieldAccess* access = nullptr;
};

// A path resolved against PlanRequest's schema.
struct FieldRef {
  std::vector<FieldStep> steps;
  // The canonical path ("site.pue", "efficiency.table.points[1].mfu"): aliases resolved.
  std::string path;
  const google::protobuf::FieldDescriptor* leaf() const { return steps.back().field; }
  // The last field is repeated and no element is named: the value is a whole list.
  bool whole_list() const { return leaf()->is_repeated() && steps.back().index < 0; }
  // A single number (the leaf is a numeric field, not a whole list).
  bool numeric() const;
};

// A short name for a field path.
struct FieldAlias {
  const char* name;
  const char* path;
};

// The aliases: "power" -> "constraints.power_cap_watts", "gpu_price" ->
// "hardware.accelerator.price_usd", "wacc" -> "costs.wacc", ... (the CLI's flags of the same
// names set these paths).
absl::Span<const FieldAlias> Aliases();

// The full path an alias stands for; other text is returned as it is.
std::string ResolveAlias(absl::string_view name);

// Resolves `path` (or an alias). InvalidArgument naming the path, with the nearest known path when
// one is close ("no field "site.peu" in PlanRequest; did you mean site.pue?"), when a part does not
// exist, a part that is not the last is not a message, or an index is out of the list (setting may
// append: index == size).
absl::StatusOr<FieldRef> ResolveField(absl::string_view path);

// The resolved field of a path in AllScalarPaths() as written there (no alias, no index), or
// nullptr for any other text: a table built once, for the loops that walk the schema (the ledger)
// or check many paths (a request's sources), with no copy and no lock.
const FieldRef* FindScalarField(absl::string_view path);

// The unit a field's values are in, from its name: "W", "VA", "USD", "USD/kWh", "USD/W", "bit/s",
// "B/s", "FLOP/s", "B", "y", "h", "1" for other numbers, "" for enums, booleans and strings.
std::string FieldUnit(const google::protobuf::FieldDescriptor* field);

// Parses one number for `field` in its unit (see the header comment). A bare number is read in
// the field's own unit; `strict_units` (aliases whose name hides the unit: "power",
// "electricity") requires the unit except for 0. A cap whose 0 means "none"
// (constraints.power_cap_watts, constraints.budget_usd) refuses 0 given as text.
absl::StatusOr<double> ParseNumber(const FieldRef& field, absl::string_view text,
                                   bool strict_units = false);

// Sets the field to the value `text` and records it as the user's (`source` says what set it:
// "--set", "--pue", "API"). Whole lists: "[1, 2]" or "1,2"; "[]" clears.
absl::Status SetField(absl::string_view path, absl::string_view text, absl::string_view source,
                      PlanRequest* request);
absl::Status SetField(const FieldRef& field, absl::string_view text, absl::string_view source,
                      PlanRequest* request);

// "PATH=VALUE" (or "ALIAS=VALUE") through SetField.
absl::Status ApplyAssignment(absl::string_view assignment, absl::string_view source,
                             PlanRequest* request);

// Sets a numeric field to `v` with no parsing and no record (the sweeps' and samplers' fast path).
// OutOfRange when a whole-number field cannot hold `v`.
absl::Status SetNumber(const FieldRef& field, double v, PlanRequest* request);

// The numeric value of a field (0 when unset; an enum's number, a bool as 0/1).
double GetNumber(const PlanRequest& request, const FieldRef& field);

// GetNumber and SetNumber with the message holding the field's leaf found already (the ledger's
// ~25 moves of one request walk each path once): `parent` is that message of a PlanRequest.
double GetNumberIn(const google::protobuf::Message& parent, const FieldRef& field);
absl::Status SetNumberIn(const FieldRef& field, double v, google::protobuf::Message* parent);

// The value as text that SetField reads back to the same value ("1.2", "COOLING_AIR", "true",
// "[7, 3]", a string as it is).
std::string GetText(const PlanRequest& request, const FieldRef& field);

// Whether the field is set: present (optional and message fields), non-zero / non-empty
// (plain scalars) or a non-empty list.
bool IsSet(const PlanRequest& request, const FieldRef& field);

// Clears the field (and drops its sources entry).
void ClearField(const FieldRef& field, PlanRequest* request);

// Records `path` as set by the user: replaces any sources entry of that path with one of origin
// ORIGIN_USER and the given source.
void RecordUserSource(absl::string_view path, absl::string_view source, PlanRequest* request);

// Levenshtein distance between two names, for "did you mean" (paths here, flags in the CLI).
size_t EditDistance(absl::string_view a, absl::string_view b);

// Every scalar field's path (repeated fields without an index; repeated messages left out),
// from the schema: what the generated tests and the ledger walk.
const std::vector<std::string>& AllScalarPaths();

}  // namespace dcplan

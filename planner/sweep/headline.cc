#include "planner/sweep/headline.h"

#include <charconv>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "base/numbers.h"
#include "units/units.h"

namespace dcplan {
namespace {

using K = HeadlineColumn::Kind;

constexpr HeadlineColumn kColumns[] = {
    {"gpu_count", "GPUs", "counts.gpu_count", K::kCount,
     [](const Plan& p) { return static_cast<double>(p.counts().gpu_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.gpus); }},
    {"server_count", "servers", "counts.server_count", K::kCount,
     [](const Plan& p) { return static_cast<double>(p.counts().server_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.servers); }},
    {"rack_count", "racks", "counts.rack_count", K::kCount,
     [](const Plan& p) { return static_cast<double>(p.counts().rack_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.racks); }},
    {"pod_count", "pods", "counts.pod_count", K::kCount,
     [](const Plan& p) { return static_cast<double>(p.counts().pod_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.pods); }},
    {"building_count", "buildings", "counts.building_count", K::kCount,
     [](const Plan& p) { return static_cast<double>(p.counts().building_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.buildings); }},
    {"it_power_watts", "W", "power.it_power_watts", K::kNumber,
     [](const Plan& p) { return p.power().it_power_watts(); },
     [](const SweepRow& r) { return units::InWatts(r.it_power); }},
    {"facility_power_watts", "W", "power.facility_power_watts", K::kNumber,
     [](const Plan& p) { return p.power().facility_power_watts(); },
     [](const SweepRow& r) { return units::InWatts(r.facility_power); }},
    {"peak_flops_per_second", "FLOP/s", "compute.peak_flops_per_second", K::kNumber,
     [](const Plan& p) { return p.compute().peak_flops_per_second(); },
     [](const SweepRow& r) { return units::InFlopsPerSecond(r.peak); }},
    {"mfu", "1", "compute.mfu", K::kNumber, [](const Plan& p) { return p.compute().mfu(); },
     [](const SweepRow& r) { return units::InFraction(r.mfu); }},
    {"realized_flops_per_second", "FLOP/s", "compute.realized_flops_per_second", K::kNumber,
     [](const Plan& p) { return p.compute().realized_flops_per_second(); },
     [](const SweepRow& r) { return units::InFlopsPerSecond(r.realized); }},
    {"capex_usd", "USD", "cost.capex_usd", K::kNumber,
     [](const Plan& p) { return p.cost().capex_usd(); },
     [](const SweepRow& r) { return units::InUsd(r.capex); }},
    {"opex_usd_per_year", "USD/year", "cost.opex_usd_per_year", K::kNumber,
     [](const Plan& p) { return p.cost().opex_usd_per_year(); },
     [](const SweepRow& r) { return units::InUsdPerYear(r.opex_rate); }},
    {"tco_usd", "USD", "cost.tco_usd", K::kNumber, [](const Plan& p) { return p.cost().tco_usd(); },
     [](const SweepRow& r) { return units::InUsd(r.tco); }},
    {"binding_constraint", "", "binding_constraint", K::kBinding,
     [](const Plan& p) { return static_cast<double>(p.binding_constraint()); },
     [](const SweepRow& r) { return static_cast<double>(r.binding); }},
};

}  // namespace

absl::Span<const HeadlineColumn> HeadlineColumns() { return kColumns; }

std::string HeadlineCsvHeader() {
  std::string s;
  for (size_t i = 0; i < std::size(kColumns); ++i)
    absl::StrAppend(&s, i ? "," : "", kColumns[i].name);
  return s;
}

void AppendHeadlineValue(const HeadlineColumn& column, double value, std::string* out) {
  switch (column.kind) {
    case K::kCount: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(value));
      out->append(buf, ec == std::errc() ? end : buf);
      return;
    }
    case K::kNumber:
      AppendShortestDouble(value, out);
      return;
    case K::kBinding:
      out->append(BindingConstraint_Name(static_cast<BindingConstraint>(static_cast<int>(value))));
      return;
  }
}

void AppendHeadlineCsvRow(const Plan& plan, std::string* out) {
  for (size_t i = 0; i < std::size(kColumns); ++i) {
    if (i) out->push_back(',');
    AppendHeadlineValue(kColumns[i], kColumns[i].from_plan(plan), out);
  }
}

}  // namespace dcplan

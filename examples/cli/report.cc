#include "examples/cli/report.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/field_checks.h"
#include "base/text.h"
#include "examples/cli/flags.h"
#include "planner/ledger.h"
#include "planner/plan.h"
#include "planner/sweep/headline.h"
#include "units/format.h"
#include "units/units.h"

namespace dcplan::cli {
namespace {
std::string AssumptionValue(const Assumption& a);
void AppendMarginal(const Plan& p, std::string* s);
void AppendAssumptions(const Plan& p, std::string* s);
}  // namespace

namespace {

using units::FormatCount;
using units::FormatMoney;
using units::FormatPower;

std::string W(double watts) { return FormatPower(units::Watts(watts), 1); }
std::string Usd(double usd) { return FormatMoney(units::Usd(usd), 2); }
std::string Rate(double flops, int decimals = 2) {
  return units::FormatComputeRate(units::FlopsPerSecond(flops), decimals);
}
std::string Pct(double f) { return units::FormatPercent(units::Fraction(f), 1); }

}  // namespace

std::string BindingName(BindingConstraint b) { return BindingLabel(b); }

std::string PlanTable(const Plan& p) {
  const Counts& c = p.counts();
  const PowerBreakdown& pw = p.power();
  const ComputePlan& cp = p.compute();
  const CostPlan& cost = p.cost();
  std::string s;
  absl::StrAppend(&s, "plan: ", p.name().empty() ? "(unnamed)" : Printable(p.name()), "\n");
  absl::StrAppendFormat(&s, "  GPUs          %s\n", FormatCount(c.gpu_count()));
  // GPUs the workload cannot use are said in the headline, not only in the training section.
  if (p.has_training()) {
    const TrainingPlan& t = p.training();
    if (t.largest_useful_gpus() > 0 && c.gpu_count() > t.largest_useful_gpus()) {
      absl::StrAppendFormat(&s,
                            "  IDLE GPUs     %s of them: the workload keeps at most %s busy (%s)\n",
                            FormatCount(c.gpu_count() - t.largest_useful_gpus()),
                            FormatCount(t.largest_useful_gpus()), t.largest_useful_reason());
    } else if (t.idle_gpus() > 0) {
      absl::StrAppendFormat(
          &s, "  IDLE GPUs     %s of them: the parallel split does not divide the cluster\n",
          FormatCount(t.idle_gpus()));
    }
  }
  const uint64_t training_servers = c.server_count() - c.spare_server_count();
  absl::StrAppendFormat(
      &s, "  servers       %s (%d GPUs, %s each%s)\n", FormatCount(c.server_count()),
      training_servers ? c.gpu_count() / training_servers : 0, W(pw.server_power_watts()),
      c.spare_server_count()
          ? absl::StrCat("; ", FormatCount(c.spare_server_count()), " of them hot spares")
          : "");
  absl::StrAppendFormat(&s, "  racks         %s (%d servers, %s each)\n",
                        FormatCount(c.rack_count()), c.servers_per_rack(),
                        W(pw.rack_power_watts()));
  absl::StrAppendFormat(&s, "  pods          %s\n", FormatCount(c.pod_count()));
  absl::StrAppendFormat(&s, "  buildings     %s%s\n", FormatCount(c.building_count()),
                        c.pods_per_building()
                            ? absl::StrCat(" (", FormatCount(c.pods_per_building()), " pods each)")
                            : "");
  if (p.network().tiers() > 0) {
    std::string tiers;
    for (int i = 0; i < p.network().switches_per_tier_size(); ++i) {
      absl::StrAppend(&tiers, i ? " + " : "", FormatCount(p.network().switches_per_tier(i)));
    }
    absl::StrAppendFormat(
        &s, "  network       %d-tier fat tree, %s switches (%s), %s optics%s\n",
        p.network().tiers(), FormatCount(p.network().switch_count()), tiers,
        FormatCount(p.network().optic_count()),
        p.network().copper_cable_end_count()
            ? absl::StrCat(", ", FormatCount(p.network().copper_cable_end_count()),
                           " copper cable ends")
            : "");
  }
  absl::StrAppend(&s, "power\n");
  absl::StrAppendFormat(&s, "  accelerators  %s\n", W(pw.gpu_power_watts()));
  absl::StrAppendFormat(&s, "  server rest   %s\n", W(pw.server_overhead_power_watts()));
  absl::StrAppendFormat(&s, "  rack overhead %s\n", W(pw.rack_overhead_power_watts()));
  absl::StrAppendFormat(&s, "  network       %s\n", W(pw.network_power_watts()));
  if (pw.storage_power_watts() > 0) {
    absl::StrAppendFormat(&s, "  storage       %s\n", W(pw.storage_power_watts()));
  }
  if (pw.frontend_network_power_watts() > 0) {
    absl::StrAppendFormat(&s, "  frontend net  %s\n", W(pw.frontend_network_power_watts()));
  }
  if (pw.head_node_power_watts() > 0) {
    absl::StrAppendFormat(&s, "  head nodes    %s (%s)\n", W(pw.head_node_power_watts()),
                          FormatCount(c.head_node_count()));
  }
  absl::StrAppendFormat(&s, "  IT            %s\n", W(pw.it_power_watts()));
  if (pw.provisioning_basis() == PROVISIONING_BASIS_MEASURED) {
    absl::StrAppendFormat(&s,
                          "  provisioned   for the measured draw: nameplate %s, under load %s "
                          "(nameplate oversubscribed %.2fx)\n",
                          W(pw.nameplate_it_power_watts()), W(pw.measured_it_power_watts()),
                          pw.power_oversubscription());
  }
  if (pw.annual_pue() > 0 && pw.annual_pue() != pw.pue()) {  // 0: a plan from before annual_pue
    absl::StrAppendFormat(&s, "  facility      %s (PUE %.2f on the design day, %.2f annual)\n",
                          W(pw.facility_power_watts()), pw.pue(), pw.annual_pue());
  } else {
    absl::StrAppendFormat(&s, "  facility      %s (PUE %.2f)\n", W(pw.facility_power_watts()),
                          pw.pue());
  }
  if (pw.substation_capacity_watts() > 0) {
    absl::StrAppendFormat(&s, "  substation    %s usable\n", W(pw.substation_capacity_watts()));
  }
  absl::StrAppend(&s, "compute\n");
  absl::StrAppendFormat(&s, "  peak          %s\n", Rate(cp.peak_flops_per_second()));
  absl::StrAppendFormat(&s, "  MFU           %s%s (%s)\n", Pct(cp.mfu()),
                        MfuIntervalNote(p.mfu_interval()), cp.efficiency_model());
  absl::StrAppendFormat(&s, "  realized      %s\n", Rate(cp.realized_flops_per_second()));
  if (cost.capex_usd() > 0) {
    absl::StrAppend(&s, "money\n");
    absl::StrAppendFormat(&s, "  capex         %s (servers %s, racks %s, network %s, facility %s",
                          Usd(cost.capex_usd()), Usd(cost.capex().servers_usd()),
                          Usd(cost.capex().racks_usd()), Usd(cost.capex().network_usd()),
                          Usd(cost.capex().facility_usd()));
    if (cost.capex().site_fixed_usd() > 0) {
      absl::StrAppend(&s, ", site ", Usd(cost.capex().site_fixed_usd()));
    }
    const double aux_capex = cost.capex().storage_usd() + cost.capex().frontend_network_usd() +
                             cost.capex().head_nodes_usd();
    if (aux_capex > 0) absl::StrAppend(&s, ", storage and frontend ", Usd(aux_capex));
    absl::StrAppend(&s, ")\n");
    // Capital charged as annuities (a cost of capital, or lives other than the horizon).
    const double charged = cost.capital_usd_per_year() * cost.horizon_years();
    if (std::fabs(charged - cost.capex_usd()) > 1e-9 * cost.capex_usd()) {
      absl::StrAppendFormat(&s, "  capital       %s a year (IT %s, building and plant %s)\n",
                            Usd(cost.capital_usd_per_year()), Usd(cost.it_capital_usd_per_year()),
                            Usd(cost.facility_capital_usd_per_year()));
    }
    absl::StrAppendFormat(&s, "  opex          %s a year (energy %s for %s MWh, maintenance %s)\n",
                          Usd(cost.opex_usd_per_year()), Usd(cost.energy_usd_per_year()),
                          FormatCount(static_cast<uint64_t>(cost.energy_mwh_per_year() + 0.5)),
                          Usd(cost.maintenance_usd_per_year()));
    absl::StrAppendFormat(&s, "  TCO           %s over %g years (%s per GPU-hour)\n",
                          Usd(cost.tco_usd()), cost.horizon_years(),
                          FormatMoney(units::Usd(cost.usd_per_gpu_hour()), 2));
  }
  absl::StrAppendFormat(&s, "binding         %s\n", BindingName(p.binding_constraint()));
  const Headroom& h = p.headroom();
  std::string head;
  if (h.has_facility_power_watts()) {
    absl::StrAppend(&head, " facility power ", W(h.facility_power_watts()), ";");
  }
  if (h.has_it_power_watts()) absl::StrAppend(&head, " IT power ", W(h.it_power_watts()), ";");
  if (h.has_substation_watts()) {
    absl::StrAppend(&head, " substation ", W(h.substation_watts()), ";");
  }
  if (h.has_gpus()) absl::StrAppend(&head, " GPUs ", FormatCount(h.gpus()), ";");
  if (h.has_buildings()) absl::StrAppend(&head, " buildings ", h.buildings(), ";");
  if (h.has_budget_usd()) absl::StrAppend(&head, " budget ", Usd(h.budget_usd()), ";");
  if (!head.empty()) {
    head.pop_back();
    absl::StrAppend(&s, "headroom       ", head, "\n");
  }
  for (const std::string& note : p.notes()) absl::StrAppend(&s, "note: ", note, "\n");
  AppendMarginal(p, &s);
  AppendAssumptions(p, &s);
  return s;
}

namespace {

// An enum's name as a person types it: COOLING_DIRECT_LIQUID -> direct_liquid.
std::string ShortEnum(absl::string_view name) {
  for (absl::string_view prefix :
       {"COOLING_", "PROVISIONING_BASIS_", "POWER_CAP_AT_", "BUDGET_ON_", "OBJECTIVE_",
        "RECOMPUTE_", "SOFTWARE_", "LEAF_PLACEMENT_", "REDUNDANCY_"}) {
    if (absl::ConsumePrefix(&name, prefix)) return absl::AsciiStrToLower(name);
  }
  return std::string(name);
}

// `text` cut to `width` characters with "..." when longer.
std::string Cut(absl::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  return absl::StrCat(text.substr(0, width - 3), "...");
}

std::string AssumptionValue(const Assumption& a) {
  if (!a.text_value().empty() || a.unit().empty()) return ShortEnum(Printable(a.text_value()));
  if (a.unit() == "W") return W(a.value());
  if (a.unit() == "USD") return Usd(a.value());
  if (a.unit() == "1") return FormatDouble(a.value());
  return absl::StrCat(FormatDouble(a.value()), " ", a.unit());
}

std::string OriginWord(Origin origin) {
  switch (origin) {
    case ORIGIN_PRESET:
      return "preset";
    case ORIGIN_USER:
      return "user-set";
    case ORIGIN_DERIVED:
      return "derived";
    case ORIGIN_ESTIMATE:
      return "estimate";
    case ORIGIN_DEFAULT:
      return "default";
    default:
      return "?";
  }
}

void AppendMarginal(const Plan& p, std::string* s) {
  const Marginal& m = p.marginal();
  std::vector<std::string> parts;
  if (m.has_gpus_per_megawatt()) {
    parts.push_back(absl::StrFormat("+%s GPUs (+%s) per MW more",
                                    FormatCount(static_cast<uint64_t>(m.gpus_per_megawatt())),
                                    Rate(m.realized_flops_per_second_per_megawatt())));
  }
  if (m.has_gpus_per_100m_usd()) {
    parts.push_back(absl::StrFormat("+%s GPUs (+%s) per $100M more",
                                    FormatCount(static_cast<uint64_t>(m.gpus_per_100m_usd())),
                                    Rate(m.realized_flops_per_second_per_100m_usd())));
  }
  if (!parts.empty()) absl::StrAppend(s, "marginal        ", absl::StrJoin(parts, "; "), "\n");
}

void AppendAssumptions(const Plan& p, std::string* s) {
  if (p.assumptions().empty()) return;
  absl::StrAppendFormat(
      s, "assumptions     (what moves this answer most; all %d with --format=json)\n",
      p.assumptions_size());
  for (const Assumption* a : HeadlineAssumptions(p)) {
    absl::StrAppendFormat(
        s, "  %-34s %-14s %-9s %6s  %s\n", a->path(), Cut(AssumptionValue(*a), 14),
        OriginWord(a->origin()),
        a->influence() > 0 ? absl::StrFormat("%.1f%%", 100 * a->influence()) : "-",
        Cut(Printable(a->source()), 80));
  }
}

}  // namespace

std::string AssumptionText(const Assumption& a) { return AssumptionValue(a); }

std::string ScaleTableHeader() {
  return absl::StrFormat("%12s %12s %8s %14s %10s %10s\n", "GPUs", "peak EF/s", "MFU",
                         "realized EF/s", "IT MW", "meter MW");
}

void AppendScaleTableRow(const ScaleRow& row, std::string* s) {
  absl::StrAppendFormat(
      s, "%12s %12.2f %7.1f%% %14.2f %10.1f %10.1f\n", FormatCount(row.counts().gpu_count()),
      row.compute().peak_flops_per_second() / 1e18, 100.0 * row.compute().mfu(),
      row.compute().realized_flops_per_second() / 1e18, row.power().it_power_watts() / 1e6,
      row.power().facility_power_watts() / 1e6);
}

// The scale CSV's columns are a selection of the headline row's (planner/sweep/headline.h), read
// from each row by the column's path; counts as whole numbers, other figures with 17 digits.
std::string ScaleCsvHeader() {
  std::string s;
  for (const HeadlineColumn* c : ScaleCsvColumns())
    absl::StrAppend(&s, s.empty() ? "" : ",", c->name);
  return s + "\n";
}

void AppendScaleCsvRow(const ScaleRow& row, std::string* s) {
  bool first = true;
  for (const HeadlineColumn* c : ScaleCsvColumns()) {
    if (!first) s->push_back(',');
    first = false;
    const double v = HeadlineValueAt(*c, row);
    if (c->kind == HeadlineColumn::Kind::kNumber) {
      absl::StrAppendFormat(s, "%.17g", v);
    } else {
      absl::StrAppend(s, static_cast<int64_t>(v));
    }
  }
  s->push_back('\n');
}

std::string MfuIntervalNote(const MfuInterval& interval) {
  if (!(interval.p90() > 0)) return "";
  // Whole percents unless the interval is narrower than that shows.
  const double lo = 100 * interval.p10(), hi = 100 * interval.p90();
  const int digits = hi - lo < 4 || lo < 10 ? 1 : 0;
  return absl::StrFormat(" (P10-P90 %.*f-%.*f%%%s)", digits, lo, digits, hi,
                         interval.carried_over() ? ", carried over" : "");
}

}  // namespace dcplan::cli

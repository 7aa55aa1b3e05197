#include "planner/sweep/headline.h"

#include <charconv>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/numbers.h"
#include "google/protobuf/descriptor.h"
#include "units/units.h"

namespace dcplan {
namespace {

using K = HeadlineColumn::Kind;

constexpr HeadlineColumn kColumns[] = {
    {"gpu_count", "GPUs", "counts.gpu_count", K::kCount, true,
     [](const Plan& p) { return static_cast<double>(p.counts().gpu_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.gpus); }},
    {"server_count", "servers", "counts.server_count", K::kCount, true,
     [](const Plan& p) { return static_cast<double>(p.counts().server_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.servers); }},
    {"rack_count", "racks", "counts.rack_count", K::kCount, true,
     [](const Plan& p) { return static_cast<double>(p.counts().rack_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.racks); }},
    {"pod_count", "pods", "counts.pod_count", K::kCount, true,
     [](const Plan& p) { return static_cast<double>(p.counts().pod_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.pods); }},
    {"building_count", "buildings", "counts.building_count", K::kCount, true,
     [](const Plan& p) { return static_cast<double>(p.counts().building_count()); },
     [](const SweepRow& r) { return static_cast<double>(r.buildings); }},
    {"it_power_watts", "W", "power.it_power_watts", K::kNumber, true,
     [](const Plan& p) { return p.power().it_power_watts(); },
     [](const SweepRow& r) { return units::InWatts(r.it_power); }},
    {"facility_power_watts", "W", "power.facility_power_watts", K::kNumber, false,
     [](const Plan& p) { return p.power().facility_power_watts(); },
     [](const SweepRow& r) { return units::InWatts(r.facility_power); }},
    {"peak_flops_per_second", "FLOP/s", "compute.peak_flops_per_second", K::kNumber, true,
     [](const Plan& p) { return p.compute().peak_flops_per_second(); },
     [](const SweepRow& r) { return units::InFlopsPerSecond(r.peak); }},
    {"mfu", "1", "compute.mfu", K::kNumber, true, [](const Plan& p) { return p.compute().mfu(); },
     [](const SweepRow& r) { return units::InFraction(r.mfu); }},
    {"realized_flops_per_second", "FLOP/s", "compute.realized_flops_per_second", K::kNumber, true,
     [](const Plan& p) { return p.compute().realized_flops_per_second(); },
     [](const SweepRow& r) { return units::InFlopsPerSecond(r.realized); }},
    {"capex_usd", "USD", "cost.capex_usd", K::kNumber, true,
     [](const Plan& p) { return p.cost().capex_usd(); },
     [](const SweepRow& r) { return units::InUsd(r.capex); }},
    {"opex_usd_per_year", "USD/year", "cost.opex_usd_per_year", K::kNumber, false,
     [](const Plan& p) { return p.cost().opex_usd_per_year(); },
     [](const SweepRow& r) { return units::InUsdPerYear(r.opex_rate); }},
    {"tco_usd", "USD", "cost.tco_usd", K::kNumber, false,
     [](const Plan& p) { return p.cost().tco_usd(); },
     [](const SweepRow& r) { return units::InUsd(r.tco); }},
    {"binding_constraint", "", "binding_constraint", K::kBinding, false,
     [](const Plan& p) { return static_cast<double>(p.binding_constraint()); },
     [](const SweepRow& r) { return static_cast<double>(r.binding); }},
};

// `dcplan scale --format=csv`'s columns, by name, in its order.
constexpr const char* kScaleCsvColumns[] = {"gpu_count",
                                            "server_count",
                                            "rack_count",
                                            "peak_flops_per_second",
                                            "mfu",
                                            "realized_flops_per_second",
                                            "it_power_watts",
                                            "facility_power_watts",
                                            "capex_usd",
                                            "tco_usd"};

using google::protobuf::FieldDescriptor;

// Each column's field in SweepPoint, by name, in the table's order.
const std::vector<const FieldDescriptor*>& SweepPointFields() {
  static const auto* fields = [] {
    auto* out = new std::vector<const FieldDescriptor*>();
    for (const HeadlineColumn& c : kColumns) {
      out->push_back(SweepPoint::descriptor()->FindFieldByName(c.name));
    }
    return out;
  }();
  return *fields;
}

void SetField(const FieldDescriptor* f, double v, SweepPoint* point) {
  if (f == nullptr) return;
  const google::protobuf::Reflection* r = point->GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(point, f, static_cast<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(point, f, static_cast<int64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(point, f, v);
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(point, f, static_cast<int>(v));
      break;
    default:
      break;
  }
}

}  // namespace

absl::Span<const HeadlineColumn> HeadlineColumns() { return kColumns; }

static_assert(std::size(kColumns) == kHeadlineColumnCount, "kHeadlineColumnCount is the table's");

void HeadlineRowValues(const SweepRow& r, double* out) {
  out[0] = static_cast<double>(r.gpus);
  out[1] = static_cast<double>(r.servers);
  out[2] = static_cast<double>(r.racks);
  out[3] = static_cast<double>(r.pods);
  out[4] = static_cast<double>(r.buildings);
  out[5] = units::InWatts(r.it_power);
  out[6] = units::InWatts(r.facility_power);
  out[7] = units::InFlopsPerSecond(r.peak);
  out[8] = units::InFraction(r.mfu);
  out[9] = units::InFlopsPerSecond(r.realized);
  out[10] = units::InUsd(r.capex);
  out[11] = units::InUsdPerYear(r.opex_rate);
  out[12] = units::InUsd(r.tco);
  out[13] = static_cast<double>(r.binding);
}

const HeadlineColumn* FindHeadlineColumn(absl::string_view name) {
  for (const HeadlineColumn& c : kColumns) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

double HeadlineValueAt(const HeadlineColumn& column, const google::protobuf::Message& message) {
  const google::protobuf::Message* m = &message;
  const std::vector<absl::string_view> parts = absl::StrSplit(column.plan_path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(std::string(parts[i]));
    if (f == nullptr || f->is_repeated()) return 0.0;
    const google::protobuf::Reflection* r = m->GetReflection();
    if (i + 1 < parts.size()) {
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return 0.0;
      m = &r->GetMessage(*m, f);
      continue;
    }
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT64:
        return static_cast<double>(r->GetUInt64(*m, f));
      case FieldDescriptor::CPPTYPE_INT64:
        return static_cast<double>(r->GetInt64(*m, f));
      case FieldDescriptor::CPPTYPE_UINT32:
        return static_cast<double>(r->GetUInt32(*m, f));
      case FieldDescriptor::CPPTYPE_INT32:
        return static_cast<double>(r->GetInt32(*m, f));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->GetDouble(*m, f);
      case FieldDescriptor::CPPTYPE_ENUM:
        return static_cast<double>(r->GetEnumValue(*m, f));
      default:
        return 0.0;
    }
  }
  return 0.0;
}

void SetSweepPointFigures(const SweepRow& row, SweepPoint* point) {
  const std::vector<const FieldDescriptor*>& fields = SweepPointFields();
  for (size_t i = 0; i < std::size(kColumns); ++i) {
    SetField(fields[i], kColumns[i].from_row(row), point);
  }
}

void SetSweepPointFigures(const Plan& plan, SweepPoint* point) {
  const std::vector<const FieldDescriptor*>& fields = SweepPointFields();
  for (size_t i = 0; i < std::size(kColumns); ++i) {
    SetField(fields[i], kColumns[i].from_plan(plan), point);
  }
}

absl::Span<const HeadlineColumn* const> ScaleCsvColumns() {
  static const auto* columns = [] {
    auto* out = new std::vector<const HeadlineColumn*>();
    for (const char* name : kScaleCsvColumns) out->push_back(FindHeadlineColumn(name));
    return out;
  }();
  return *columns;
}

std::string HeadlineCsvHeader() {
  std::string s;
  for (size_t i = 0; i < std::size(kColumns); ++i)
    absl::StrAppend(&s, i ? "," : "", kColumns[i].name);
  return s;
}

absl::string_view BindingText(BindingConstraint b) {
  static const auto* names = [] {
    auto* out = new std::vector<std::string>(BindingConstraint_MAX + 1);
    for (int i = 0; i <= BindingConstraint_MAX; ++i) {
      if (BindingConstraint_IsValid(i)) {
        (*out)[static_cast<size_t>(i)] = BindingConstraint_Name(static_cast<BindingConstraint>(i));
      }
    }
    return out;
  }();
  const int i = static_cast<int>(b);
  return i >= 0 && i <= BindingConstraint_MAX ? absl::string_view((*names)[static_cast<size_t>(i)])
                                              : absl::string_view(BindingConstraint_Name(b));
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
    case K::kBinding: {
      const absl::string_view name =
          BindingText(static_cast<BindingConstraint>(static_cast<int>(value)));
      out->append(name.data(), name.size());
      return;
    }
  }
}

void AppendHeadlineCsvRow(const Plan& plan, std::string* out) {
  for (size_t i = 0; i < std::size(kColumns); ++i) {
    if (i) out->push_back(',');
    AppendHeadlineValue(kColumns[i], kColumns[i].from_plan(plan), out);
  }
}

}  // namespace dcplan

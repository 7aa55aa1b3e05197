// File: planner/request_edit.cc
#include "planner/request_edit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "base/field_checks.h"
#include "base/string_table.h"
#include "base/text.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "units/parse.h"

namespace dcplan {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr FieldAlias kAliases[] = {
    // Caps and objective.
    {"power", "constraints.power_cap_watts"},
    {"power_cap", "constraints.power_cap_watts"},
    {"power_at", "constraints.power_cap_at"},
    {"budget", "constraints.budget_usd"},
    {"budget_on", "constraints.budget_on"},
    {"max_gpus", "constraints.max_gpus"},
    {"gpus", "constraints.max_gpus"},
    {"objective", "constraints.objective"},
    // Site.
    {"pue", "site.pue"},
    {"annual_pue", "site.annual_pue"},
    {"cooling", "site.cooling"},
    {"provisioning", "site.provisioning.basis"},
    {"provisioning_margin", "site.provisioning.margin"},
    {"max_buildings", "site.max_buildings"},
    // Money.
    {"electricity", "costs.electricity_usd_per_kwh"},
    {"horizon_years", "costs.horizon_years"},
    {"wacc", "costs.wacc"},
    {"facility_cost", "costs.facility_usd_per_it_watt"},
    {"it_life", "costs.it_life_years"},
    {"facility_life", "costs.facility_life_years"},
    {"gpu_price", "hardware.accelerator.price_usd"},
    {"server_price", "hardware.server.price_usd"},
    // Hardware the training job sees.
    {"kernel_efficiency", "hardware.calibration.kernel_efficiency"},
    {"scale_up_gpus", "hardware.network.scale_up_domain_gpus"},
    // A power in watts ("960W"), or "auto": hardware.accelerator.power_limit_auto (see SetField).
    {"gpu_power_limit", "hardware.accelerator.power_limit_watts"},
    // The training job.
    {"params", "workload.params"},
    {"layers", "workload.layers"},
    {"hidden", "workload.hidden"},
    {"heads", "workload.heads"},
    {"kv_heads", "workload.kv_heads"},
    {"ffn_hidden", "workload.ffn_hidden"},
    {"gated_mlp", "workload.gated_mlp"},
    {"vocab", "workload.vocab"},
    {"seq_len", "workload.seq_len"},
    {"global_batch_tokens", "workload.global_batch_tokens"},
    {"global_batch_sequences", "workload.global_batch_sequences"},
    {"global_batch", "workload.global_batch_sequences"},
    {"train_tokens", "workload.train_tokens"},
    {"tp", "workload.parallelism.tp"},
    {"pp", "workload.parallelism.pp"},
    {"dp", "workload.parallelism.dp"},
    {"cp", "workload.parallelism.cp"},
    {"ep", "workload.parallelism.ep"},
    {"micro_batch", "workload.parallelism.micro_batch"},
    {"virtual_stages", "workload.parallelism.virtual_stages"},
    {"recompute", "workload.parallelism.recompute"},
    {"zero", "workload.parallelism.zero_stage"},
    {"software", "workload.framework.generation"},
    {"precision", "workload.precision"},
    {"block", "workload.block.style"},
    {"gpu_mtbi_hours", "workload.reliability.gpu_mtbi_hours"},
    {"server_mtbi_hours", "workload.reliability.server_mtbi_hours"},
};

// Aliases whose name hides the unit of a field where a bare number is a likely slip (50000000 W
// or 50 MW? 0.08 USD/kWh or USD/MWh?): a bare number other than 0 is refused there.
bool HidesUnit(absl::string_view name) {
  return name == "power" || name == "power_cap" || name == "electricity";
}

// Fields set as a pair where one replaces the other.
struct Exclusive {
  const char* path;
  const char* clears;
};
constexpr Exclusive kExclusive[] = {
    {"workload.global_batch_tokens", "workload.global_batch_sequences"},
    {"workload.global_batch_sequences", "workload.global_batch_tokens"},
    // A limit given replaces a search for one.
    {"hardware.accelerator.power_limit_watts", "hardware.accelerator.power_limit_auto"},
};

constexpr char kPowerLimitPath[] = "hardware.accelerator.power_limit_watts";
constexpr char kPowerLimitAutoPath[] = "hardware.accelerator.power_limit_auto";

// Caps whose 0 means "none": 0 typed by a person is refused (it would read as "no cap").
bool IsZeroMeansNoneCap(absl::string_view path) {
  return path == "constraints.power_cap_watts" || path == "constraints.budget_usd";
}

absl::Status PathError(absl::StatusCode code, absl::string_view path, absl::string_view message) {
  return WithFieldPath(absl::Status(code, message), path);
}

bool IsInteger(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

bool IsNumber(const FieldDescriptor* f) {
  return IsInteger(f) || f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE ||
         f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT;
}

void CollectPaths(const Descriptor* d, const std::string& prefix, std::vector<std::string>* out) {
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string path = prefix.empty() ? f->name() : absl::StrCat(prefix, ".", f->name());
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!f->is_repeated()) CollectPaths(f->message_type(), path, out);
      continue;
    }
    out->push_back(path);
  }
}

// The known path or alias nearest to `path`, or "" when none is close.
std::string Nearest(absl::string_view path) {
  std::string best;
  size_t best_distance = std::max<size_t>(3, path.size() / 4) + 1;
  auto consider = [&](absl::string_view candidate) {
    const size_t d = EditDistance(path, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
    }
  };
  for (const std::string& p : AllScalarPaths()) {
    consider(p);
    // A wrong prefix with the right last name ("site.price_usd").
    const size_t dot = p.rfind('.');
    if (dot != std::string::npos && absl::EndsWith(path, p.substr(dot))) consider(p);
  }
  for (const FieldAlias& a : kAliases) consider(a.name);
  return best;
}

// The common prefix of an enum's value names, up to and including an underscore ("COOLING_").
std::string EnumPrefix(const EnumDescriptor* e) {
  std::string prefix = e->value(0)->name();
  for (int i = 1; i < e->value_count(); ++i) {
    const std::string& n = e->value(i)->name();
    size_t k = 0;
    while (k < prefix.size() && k < n.size() && prefix[k] == n[k]) ++k;
    prefix.resize(k);
  }
  const size_t underscore = prefix.rfind('_');
  return underscore == std::string::npos ? "" : prefix.substr(0, underscore + 1);
}

// Synonyms people type for an enum value that its name does not contain.
struct EnumSynonym {
  const char* enum_name;
  const char* text;
  const char* value;
};
constexpr EnumSynonym kEnumSynonyms[] = {
    {"dcplan.PowerCapAt", "meter", "POWER_CAP_AT_FACILITY"},
};

absl::StatusOr<const EnumValueDescriptor*> ParseEnum(const FieldRef& field,
                                                     absl::string_view text) {
  const EnumDescriptor* e = field.leaf()->enum_type();
  const std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  const std::string prefix = EnumPrefix(e);
  for (const EnumSynonym& s : kEnumSynonyms) {
    if (e->full_name() == s.enum_name && absl::AsciiStrToUpper(s.text) == upper) {
      return e->FindValueByName(s.value);
    }
  }
  const EnumValueDescriptor* match = nullptr;
  int matches = 0;
  std::vector<std::string> names;
  for (int i = 0; i < e->value_count(); ++i) {
    const EnumValueDescriptor* v = e->value(i);
    if (v->name() == upper) return v;
    const bool unspecified = absl::EndsWith(v->name(), "_UNSPECIFIED");
    const std::string short_name = v->name().substr(prefix.size());
    if (!unspecified) names.push_back(absl::AsciiStrToLower(short_name));
    if (unspecified || upper.empty()) continue;
    if (short_name == upper) return v;
    if (absl::EndsWith(short_name, absl::StrCat("_", upper))) {
      match = v;
      ++matches;
    }
  }
  if (matches == 1) return match;
  return PathError(absl::StatusCode::kInvalidArgument, field.path,
                   absl::StrCat(field.path, " must be one of ", absl::StrJoin(names, ", "),
                                "; got \"", Clip(text), "\""));
}

absl::StatusOr<bool> ParseBool(const FieldRef& field, absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "true" || t == "1" || t == "yes") return true;
  if (t == "false" || t == "0" || t == "no") return false;
  return PathError(absl::StatusCode::kInvalidArgument, field.path,
                   absl::StrCat(field.path, " must be true or false; got \"", Clip(text), "\""));
}

// The message holding the leaf, created on the way (mutable) .
Message* MutableParent(const FieldRef& field, PlanRequest* request) {
  Message* msg = request;
  for (size_t i = 0; i + 1 < field.steps.size(); ++i) {
    const FieldStep& s = field.steps[i];
    if (s.access != nullptr) {
      msg = s.access->mutable_message(msg);
      continue;
    }
    const Reflection* r = msg->GetReflection();
    if (s.field->is_repeated()) {
      while (r->FieldSize(*msg, s.field) <= s.index) r->AddMessage(msg, s.field);
      msg = r->MutableRepeatedMessage(msg, s.field, s.index);
    } else {
      msg = r->MutableMessage(msg, s.field);
    }
  }
  return msg;
}

// The message holding the leaf, or null when a message on the way is absent.
const Message* Parent(const FieldRef& field, const PlanRequest& request) {
  const Message* msg = &request;
  for (size_t i = 0; i + 1 < field.steps.size(); ++i) {
    const FieldStep& s = field.steps[i];
    if (s.access != nullptr) {
      msg = s.access->message(*msg);
      if (msg == nullptr) return nullptr;
    } else if (s.field->is_repeated()) {
      const Reflection* r = msg->GetReflection();
      if (s.index >= r->FieldSize(*msg, s.field)) return nullptr;
      msg = &r->GetRepeatedMessage(*msg, s.field, s.index);
    } else {
      const Reflection* r = msg->GetReflection();
      if (!r->HasField(*msg, s.field)) return nullptr;
      msg = &r->GetMessage(*msg, s.field);
    }
  }
  return msg;
}

// Sets a singular numeric (or enum, bool) field of `msg` to `v`.
absl::Status SetNumberOn(const FieldRef& field, Message* msg, double v) {
  const FieldDescriptor* f = field.leaf();
  const Reflection* r = msg->GetReflection();
  auto out_of_range = [&](double lo, double hi) {
    return PathError(
        absl::StatusCode::kOutOfRange, field.path,
        absl::StrFormat("%s must be a whole number in [%.0f, %.0f], got %s", field.path, lo, hi,
                        v == std::floor(v) && std::fabs(v) < 1e21 ? absl::StrFormat("%.0f", v)
                                                                  : FormatDouble(v)));
  };
  auto in = [&](double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); };
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      if (const FieldAccess* access = field.steps.back().access) {
        access->set_double(msg, v);  // the generated setter (proto/request_access.h)
      } else {
        r->SetDouble(msg, f, v);
      }
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(msg, f, static_cast<float>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      if (!in(-2147483648.0, 2147483647.0)) return out_of_range(-2147483648.0, 2147483647.0);
      r->SetInt32(msg, f, static_cast<int32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      if (!in(0, 4294967295.0)) return out_of_range(0, 4294967295.0);
      r->SetUInt32(msg, f, static_cast<uint32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      if (!in(-9.0e18, 9.0e18)) return out_of_range(-9.0e18, 9.0e18);
      r->SetInt64(msg, f, static_cast<int64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      if (!in(0, 1.8e19)) return out_of_range(0, 1.8e19);
      r->SetUInt64(msg, f, static_cast<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      if (f->enum_type()->FindValueByNumber(static_cast<int>(v)) == nullptr || v != std::floor(v)) {
        return PathError(absl::StatusCode::kInvalidArgument, field.path,
                         absl::StrCat(field.path, " has no value ", FormatDouble(v)));
      }
      r->SetEnumValue(msg, f, static_cast<int>(v));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(msg, f, v != 0);
      break;
    default:
      return PathError(absl::StatusCode::kInvalidArgument, field.path,
                       absl::StrCat(field.path, " is not a number"));
  }
  return absl::OkStatus();
}

// Sets one scalar value (element `index` of a repeated field, -1 for a singular one; index ==
// size appends).
absl::Status SetScalar(const FieldRef& field, Message* msg, int index, absl::string_view text,
                       bool strict_units) {
  const FieldDescriptor* f = field.leaf();
  const Reflection* r = msg->GetReflection();
  const bool append = f->is_repeated() && index >= r->FieldSize(*msg, f);
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_ENUM: {
      auto v = ParseEnum(field, text);
      if (!v.ok()) return v.status();
      if (!f->is_repeated()) {
        r->SetEnum(msg, f, *v);
      } else if (append) {
        r->AddEnum(msg, f, *v);
      } else {
        r->SetRepeatedEnum(msg, f, index, *v);
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      auto v = ParseBool(field, text);
      if (!v.ok()) return v.status();
      if (!f->is_repeated()) {
        r->SetBool(msg, f, *v);
      } else if (append) {
        r->AddBool(msg, f, *v);
      } else {
        r->SetRepeatedBool(msg, f, index, *v);
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      if (text.size() > 1000) {
        return PathError(
            absl::StatusCode::kInvalidArgument, field.path,
            absl::StrCat(field.path, " must be at most 1,000 bytes, got ", text.size()));
      }
      if (!f->is_repeated()) {
        r->SetString(msg, f, std::string(text));
      } else if (append) {
        r->AddString(msg, f, std::string(text));
      } else {
        r->SetRepeatedString(msg, f, index, std::string(text));
      }
      return absl::OkStatus();
    }
    default:
      break;
  }
  auto v = ParseNumber(field, text, strict_units);
  if (!v.ok()) return v.status();
  if (!f->is_repeated()) return SetNumberOn(field, msg, *v);
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE) {
    return absl::InternalError(absl::StrCat(field.path, ": a repeated whole-number field"));
  }
  if (append) {
    r->AddDouble(msg, f, *v);
  } else {
    r->SetRepeatedDouble(msg, f, index, *v);
  }
  return absl::OkStatus();
}

}  // namespace

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

bool FieldRef::numeric() const { return !leaf()->is_repeated() && IsNumber(leaf()); }

absl::Span<const FieldAlias> Aliases() { return kAliases; }

std::string ResolveAlias(absl::string_view name) {
  for (const FieldAlias& a : kAliases) {
    if (name == a.name) return a.path;
  }
  return std::string(name);
}

const std::vector<std::string>& AllScalarPaths() {
  static const std::vector<std::string>* paths = [] {
    auto* out = new std::vector<std::string>();
    CollectPaths(PlanRequest::descriptor(), "", out);
    return out;
  }();
  return *paths;
}

namespace {

absl::StatusOr<FieldRef> ResolveFieldUncached(absl::string_view text) {
  const std::string path = ResolveAlias(absl::StripAsciiWhitespace(text));
  FieldRef ref;
  const Descriptor* d = PlanRequest::descriptor();
  auto unknown = [&](absl::string_view why) {
    std::string message = absl::StrCat("no field \"", Clip(path), "\" in PlanRequest", why);
    if (const std::string near = why.empty() ? Nearest(path) : ""; !near.empty()) {
      absl::StrAppend(&message, "; did you mean ", near, "?");
    }
    return PathError(absl::StatusCode::kInvalidArgument, path, message);
  };
  if (path.empty()) return unknown("");
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view part = parts[i];
    int index = -1;
    if (const size_t bracket = part.find('['); bracket != absl::string_view::npos) {
      absl::string_view inside = part.substr(bracket + 1);
      if (!absl::ConsumeSuffix(&inside, "]") || !absl::SimpleAtoi(inside, &index) || index < 0 ||
          index > 100000) {
        return PathError(absl::StatusCode::kInvalidArgument, path,
                         absl::StrCat("bad index in \"", Clip(path),
                                      "\": write name[N] with N a whole number from 0"));
      }
      part = part.substr(0, bracket);
    }
    const FieldDescriptor* f = d == nullptr ? nullptr : d->FindFieldByName(std::string(part));
    if (f == nullptr) return unknown("");
    if (index >= 0 && !f->is_repeated()) {
      return unknown(absl::StrCat(": ", f->name(), " is not a list"));
    }
    const bool last = i + 1 == parts.size();
    if (!last && f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      return unknown(absl::StrCat(": ", f->name(), " is not a message"));
    }
    if (!last && f->is_repeated() && index < 0) {
      return unknown(
          absl::StrCat(": ", f->name(), " is a list; name an element, ", f->name(), "[0]"));
    }
    if (last && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      return unknown(absl::StrCat(": ", f->name(), " is a message; name one of its fields"));
    }
    ref.steps.push_back({f, index, f->is_repeated() ? nullptr : AccessFor(f)});
    d = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? f->message_type() : nullptr;
  }
  ref.path = path;
  return ref;
}

}  // namespace

absl::StatusOr<FieldRef> ResolveField(absl::string_view text) {
  // Paths resolve the same way every time (the schema is fixed), and the ledger resolves ~150 a
  // plan: resolved paths are kept (errors are not; the cache starts over past 4,096 texts).
  static absl::Mutex mu(absl::kConstInit);
  static auto* cache = new std::unordered_map<std::string, FieldRef>();
  {
    absl::MutexLock lock(&mu);
    auto it = cache->find(std::string(text));
    if (it != cache->end()) return it->second;
  }
  absl::StatusOr<FieldRef> ref = ResolveFieldUncached(text);
  if (ref.ok()) {
    absl::MutexLock lock(&mu);
    if (cache->size() >= 4096) cache->clear();
    cache->emplace(std::string(text), *ref);
  }
  return ref;
}

const FieldRef* FindScalarField(absl::string_view path) {
  // Each scalar field by its canonical path (base/string_table.h: a plan looks up its ~65
  // sources' paths here when it is validated).
  struct Table {
    std::vector<FieldRef> fields;
    StringTable index;
  };
  static const auto* table = [] {
    auto* out = new Table();
    for (const std::string& p : AllScalarPaths()) {
      absl::StatusOr<FieldRef> ref = ResolveFieldUncached(p);
      if (ref.ok() && ref->path == p && out->index.Find(p) < 0) {
        out->index.Insert(p, static_cast<int>(out->fields.size()));
        out->fields.push_back(*std::move(ref));
      }
    }
    return out;
  }();
  const int i = table->index.Find(path);
  return i < 0 ? nullptr : &table->fields[static_cast<size_t>(i)];
}

std::string FieldUnit(const FieldDescriptor* f) {
  if (!IsNumber(f)) return "";
  const std::string& name = f->name();
  if (absl::EndsWith(name, "_watts")) return "W";
  if (absl::EndsWith(name, "_va")) return "VA";
  if (absl::EndsWith(name, "_usd_per_kwh")) return "USD/kWh";
  if (absl::EndsWith(name, "_usd_per_it_watt")) return "USD/W";
  if (absl::EndsWith(name, "_usd") || absl::EndsWith(name, "_usd_per_year")) {
    return absl::EndsWith(name, "_per_year") ? "USD/y" : "USD";
  }
  if (absl::EndsWith(name, "_bits_per_second")) return "bit/s";
  if (absl::EndsWith(name, "_bytes_per_second")) return "B/s";
  if (absl::EndsWith(name, "_flops_per_second")) return "FLOP/s";
  if (absl::EndsWith(name, "_flops_per_byte")) return "FLOP/B";
  if (absl::EndsWith(name, "_bytes")) return "B";
  if (absl::EndsWith(name, "_years")) return "y";
  if (absl::EndsWith(name, "_hours")) return "h";
  if (absl::EndsWith(name, "_seconds")) return "s";
  return "1";
}

namespace {

absl::StatusOr<double> ParseNumberInUnit(const FieldRef& field, absl::string_view raw,
                                         bool strict_units) {
  const absl::string_view text = absl::StripAsciiWhitespace(raw);
  const std::string unit = FieldUnit(field.leaf());
  double plain = 0;
  const bool is_plain = absl::SimpleAtod(text, &plain) && std::isfinite(plain);
  auto fail = [&](const absl::Status& s) {
    return PathError(s.code(), field.path, absl::StrCat(field.path, ": ", s.message()));
  };
  // A bare number is in the field's own unit, except where an alias hides the unit.
  if (is_plain && !(strict_units && unit != "1" && plain != 0)) {
    if (IsInteger(field.leaf()) && plain != std::floor(plain)) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("expected a whole number, got \"", Clip(text), "\"")));
    }
    return plain;
  }
  auto either = [&](auto parsed, auto read) -> absl::StatusOr<double> {
    if (parsed.ok()) return read(*parsed);
    if (strict_units && is_plain) {
      return fail(absl::InvalidArgumentError(absl::StrCat(
          parsed.status().message(), " (a number needs its unit here",
          unit == "W" ? absl::StrCat(": ", Clip(text), "W or ", FormatDouble(plain / 1e6), "MW?")
                      : std::string(),
          ")")));
    }
    return fail(parsed.status());
  };
  if (unit == "W") return either(units::ParsePower(text), units::InWatts);
  if (unit == "VA") {
    std::string as_watts(text);
    if (absl::EndsWith(as_watts, "VA")) as_watts.replace(as_watts.size() - 2, 2, "W");
    auto p = units::ParsePower(as_watts);
    if (!p.ok()) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("expected an apparent power such as 100MVA, got \"", Clip(text), "\"")));
    }
    return units::InWatts(*p);
  }
  if (unit == "USD/kWh") {
    return either(units::ParseMoneyPerEnergy(text), units::InUsdPerKilowattHour);
  }
  if (unit == "USD/W") return either(units::ParseMoneyPerPower(text), units::InUsdPerWatt);
  if (unit == "USD" || unit == "USD/y") {
    std::string money(text);
    if (unit == "USD/y") {
      for (absl::string_view suffix : {"/year", "/yr", "/y", " a year", " per year"}) {
        if (absl::EndsWith(money, suffix)) money.resize(money.size() - suffix.size());
      }
    }
    return either(units::ParseMoney(money), units::InUsd);
  }
  if (unit == "bit/s") {
    return either(units::ParseDataRate(text),
                  [](units::DataRate r) { return units::InBitsPerSecond(r); });
  }
  if (unit == "B/s") return either(units::ParseDataRate(text), units::InBytesPerSecond);
  if (unit == "FLOP/s") return either(units::ParseComputeRate(text), units::InFlopsPerSecond);
  if (unit == "y" || unit == "h" || unit == "s") {
    const double per = unit == "y"   ? units::InSeconds(units::Years(1.0))
                       : unit == "h" ? 3600.0
                                     : 1.0;
    return either(units::ParseTime(text),
                  [per](units::Time t) { return units::InSeconds(t) / per; });
  }
  if (unit == "B") {
    // "80GB", "80 GiB", "1.5TB": a count with its suffix, then the byte.
    std::string count(text);
    if (absl::EndsWith(count, "B")) count.pop_back();
    auto v = units::ParseCount(absl::StripAsciiWhitespace(count));
    if (v.ok()) return *v;
    return fail(absl::InvalidArgumentError(
        absl::StrCat("expected a size in bytes such as 80GB, got \"", Clip(text), "\"")));
  }
  if (absl::EndsWith(text, "%")) {
    double percent = 0;
    if (absl::SimpleAtod(text.substr(0, text.size() - 1), &percent) && std::isfinite(percent) &&
        !IsInteger(field.leaf())) {
      return percent / 100;
    }
  }
  auto count = units::ParseCount(text);
  if (!count.ok()) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "expected a number", IsInteger(field.leaf()) ? " (a count such as 8, 16K or 16Mi)" : "",
        ", got \"", Clip(text), "\"")));
  }
  if (IsInteger(field.leaf()) && *count != std::floor(*count)) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("expected a whole number, got \"", Clip(text), "\"")));
  }
  return *count;
}

}  // namespace

absl::StatusOr<double> ParseNumber(const FieldRef& field, absl::string_view raw,
                                   bool strict_units) {
  auto v = ParseNumberInUnit(field, raw, strict_units);
  if (v.ok() && *v == 0 && IsZeroMeansNoneCap(field.path)) {
    const absl::string_view text = absl::StripAsciiWhitespace(raw);
    return PathError(
        absl::StatusCode::kInvalidArgument, field.path,
        absl::StrCat(field.path, "=", Clip(text), ": a cap of zero fits no server (and 0 in a ",
                     "request means no cap); leave it out to solve without this cap"));
  }
  return v;
}

absl::Status SetNumber(const FieldRef& field, double v, PlanRequest* request) {
  return SetNumberIn(field, v, MutableParent(field, request));
}

absl::Status SetNumberIn(const FieldRef& field, double v, Message* msg) {
  const FieldDescriptor* f = field.leaf();
  if (f->is_repeated()) {
    const Reflection* r = msg->GetReflection();
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE || field.steps.back().index < 0) {
      return PathError(
          absl::StatusCode::kInvalidArgument, field.path,
          absl::StrCat(field.path, " is a list: name an element, ", field.path, "[0]"));
    }
    const int index = field.steps.back().index;
    while (r->FieldSize(*msg, f) <= index) r->AddDouble(msg, f, 0);
    r->SetRepeatedDouble(msg, f, index, v);
    return absl::OkStatus();
  }
  return SetNumberOn(field, msg, v);
}

double GetNumber(const PlanRequest& request, const FieldRef& field) {
  const Message* msg = Parent(field, request);
  return msg == nullptr ? 0 : GetNumberIn(*msg, field);
}

double GetNumberIn(const Message& parent, const FieldRef& field) {
  if (const FieldAccess* access = field.steps.back().access) return access->number(parent);
  const Message* msg = &parent;
  const FieldDescriptor* f = field.leaf();
  const Reflection* r = msg->GetReflection();
  if (f->is_repeated()) {
    const int index = field.steps.back().index;
    if (index < 0 || index >= r->FieldSize(*msg, f) ||
        f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE) {
      return 0;
    }
    return r->GetRepeatedDouble(*msg, f, index);
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return r->GetDouble(*msg, f);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return r->GetFloat(*msg, f);
    case FieldDescriptor::CPPTYPE_INT32:
      return r->GetInt32(*msg, f);
    case FieldDescriptor::CPPTYPE_UINT32:
      return r->GetUInt32(*msg, f);
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<double>(r->GetInt64(*msg, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return static_cast<double>(r->GetUInt64(*msg, f));
    case FieldDescriptor::CPPTYPE_ENUM:
      return r->GetEnumValue(*msg, f);
    case FieldDescriptor::CPPTYPE_BOOL:
      return r->GetBool(*msg, f) ? 1 : 0;
    default:
      return 0;
  }
}

namespace {

std::string ElementText(const Message& msg, const FieldDescriptor* f, int index) {
  const Reflection* r = msg.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return FormatDouble(rep ? r->GetRepeatedDouble(msg, f, index) : r->GetDouble(msg, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return FormatDouble(rep ? r->GetRepeatedFloat(msg, f, index) : r->GetFloat(msg, f));
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(rep ? r->GetRepeatedInt32(msg, f, index) : r->GetInt32(msg, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(rep ? r->GetRepeatedUInt32(msg, f, index) : r->GetUInt32(msg, f));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(rep ? r->GetRepeatedInt64(msg, f, index) : r->GetInt64(msg, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(rep ? r->GetRepeatedUInt64(msg, f, index) : r->GetUInt64(msg, f));
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(msg, f, index) : r->GetEnum(msg, f))->name();
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(msg, f, index) : r->GetBool(msg, f)) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(msg, f, index) : r->GetString(msg, f);
    default:
      return "";
  }
}

}  // namespace

std::string GetText(const PlanRequest& request, const FieldRef& field) {
  const Message* msg = Parent(field, request);
  const FieldDescriptor* f = field.leaf();
  if (msg == nullptr) {
    // Absent on the way: the field's default.
    if (f->is_repeated()) return field.whole_list() ? "[]" : "";
    msg = google::protobuf::MessageFactory::generated_factory()->GetPrototype(f->containing_type());
  }
  if (!f->is_repeated()) return ElementText(*msg, f, -1);
  const int size = msg->GetReflection()->FieldSize(*msg, f);
  if (!field.whole_list()) {
    const int index = field.steps.back().index;
    return index < size ? ElementText(*msg, f, index) : "";
  }
  std::vector<std::string> items;
  for (int i = 0; i < size; ++i) items.push_back(ElementText(*msg, f, i));
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

bool IsSet(const PlanRequest& request, const FieldRef& field) {
  const Message* msg = Parent(field, request);
  if (msg == nullptr) return false;
  if (const FieldAccess* access = field.steps.back().access) return access->has(*msg);
  const FieldDescriptor* f = field.leaf();
  const Reflection* r = msg->GetReflection();
  if (f->is_repeated()) {
    const int size = r->FieldSize(*msg, f);
    return field.whole_list() ? size > 0 : field.steps.back().index < size;
  }
  return r->HasField(*msg, f);
}

void RecordUserSource(absl::string_view path, absl::string_view source, PlanRequest* request) {
  auto* sources = request->mutable_sources();
  for (int i = sources->size() - 1; i >= 0; --i) {
    if ((*sources)[i].path() == path) sources->DeleteSubrange(i, 1);
  }
  FieldSource* s = request->add_sources();
  s->set_path(std::string(path));
  s->set_origin(ORIGIN_USER);
  s->set_source(std::string(source));
}

void ClearField(const FieldRef& field, PlanRequest* request) {
  auto* sources = request->mutable_sources();
  for (int i = sources->size() - 1; i >= 0; --i) {
    if ((*sources)[i].path() == field.path) sources->DeleteSubrange(i, 1);
  }
  if (Parent(field, *request) == nullptr) return;
  Message* msg = MutableParent(field, request);
  const FieldDescriptor* f = field.leaf();
  if (f->is_repeated() && !field.whole_list()) return;
  msg->GetReflection()->ClearField(msg, f);
}

absl::Status SetField(absl::string_view path, absl::string_view text, absl::string_view source,
                      PlanRequest* request) {
  auto field = ResolveField(path);
  if (!field.ok()) return field.status();
  // "auto" for the power limit asks the solver to search it: power_limit_auto, and no fixed limit.
  if (field->path == kPowerLimitPath &&
      absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(text), "auto")) {
    auto automatic = ResolveField(kPowerLimitAutoPath);
    if (!automatic.ok()) return automatic.status();
    ClearField(*field, request);
    return SetField(*automatic, "true", source, request);
  }
  absl::string_view name = absl::StripAsciiWhitespace(path);
  const bool strict = HidesUnit(name);
  if (strict) {
    // Parsed strictly here; SetField below re-parses leniently, so check first.
    if (field->numeric()) {
      auto v = ParseNumber(*field, text, /*strict_units=*/true);
      if (!v.ok()) return v.status();
    }
  }
  return SetField(*field, text, source, request);
}

absl::Status SetField(const FieldRef& field, absl::string_view text, absl::string_view source,
                      PlanRequest* request) {
  const FieldDescriptor* f = field.leaf();
  if (field.whole_list()) {
    absl::string_view list = absl::StripAsciiWhitespace(text);
    absl::ConsumePrefix(&list, "[");
    absl::ConsumeSuffix(&list, "]");
    std::vector<absl::string_view> items;
    if (!absl::StripAsciiWhitespace(list).empty()) items = absl::StrSplit(list, ',');
    if (items.size() > 1000) {
      return PathError(absl::StatusCode::kOutOfRange, field.path,
                       absl::StrCat(field.path, ": at most 1,000 elements, got ", items.size()));
    }
    // Every element is parsed (on a scratch copy) before the request changes.
    PlanRequest scratch;
    for (int pass = 0; pass < 2; ++pass) {
      Message* msg = MutableParent(field, pass == 0 ? &scratch : request);
      msg->GetReflection()->ClearField(msg, f);
      for (size_t i = 0; i < items.size(); ++i) {
        FieldRef element = field;
        element.steps.back().index = static_cast<int>(i);
        element.path = absl::StrCat(field.path, "[", i, "]");
        absl::Status s = SetScalar(element, msg, static_cast<int>(i),
                                   absl::StripAsciiWhitespace(items[i]), false);
        if (!s.ok()) return s;
      }
    }
  } else {
    Message* msg = MutableParent(field, request);
    absl::Status s = SetScalar(field, msg, field.steps.back().index, text, false);
    if (!s.ok()) return s;
  }
  RecordUserSource(field.path, source, request);
  for (const Exclusive& e : kExclusive) {
    if (field.path == e.path) {
      auto other = ResolveField(e.clears);
      if (other.ok()) ClearField(*other, request);
    }
  }
  // A new cooling type brings its own PUEs, unless the user gave them.
  if (field.path == "site.cooling") {
    for (const char* pue : {"site.pue", "site.annual_pue"}) {
      bool user = false;
      for (const FieldSource& s : request->sources()) {
        user |= s.path() == pue && s.origin() == ORIGIN_USER;
      }
      if (!user) {
        auto other = ResolveField(pue);
        if (other.ok()) ClearField(*other, request);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyAssignment(absl::string_view assignment, absl::string_view source,
                             PlanRequest* request) {
  const size_t eq = assignment.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected PATH=VALUE (e.g. site.pue=1.2), got \"", Clip(assignment), "\""));
  }
  return SetField(assignment.substr(0, eq), assignment.substr(eq + 1), source, request);
}

}  // namespace dcplan

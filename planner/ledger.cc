// File: planner/ledger.cc
#include "planner/ledger.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/string_table.h"
#include "google/protobuf/arena.h"
#include "planner/cluster.h"
#include "planner/defaults.h"
#include "planner/request_edit.h"
#include "planner/validate.h"
#include "units/format.h"
#include "units/units.h"

namespace dcplan {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Fields that describe the request rather than enter the answer.
bool IsBookkeeping(absl::string_view path) {
  return path == "name" || path == "schema_version" || absl::StartsWith(path, "sources") ||
         path == "workload.name" || absl::StrContains(path, ".name") ||
         absl::StartsWith(path, "workload.sources");
}

// An input whose default the model applies when the request leaves it unset, with where the default
// comes from.
struct Default {
  const char* path;
  // Whether the default matters for this request.
  bool (*applies)(const PlanRequest&);
  // The value in effect (a number; enums are read from the request as they are).
  double (*value)(const PlanRequest&);
  const char* source;
};

bool Always(const PlanRequest&) { return true; }
bool Priced(const PlanRequest& r) {
  return r.costs().facility_usd_per_it_watt() > 0 || r.hardware().accelerator().price_usd() > 0 ||
         r.hardware().server().price_usd() > 0;
}
bool LogLinear(const PlanRequest& r) {
  return !r.has_workload() && (r.efficiency().model_case() == EfficiencyModel::MODEL_NOT_SET ||
                               r.efficiency().has_log_linear());
}
bool Reference(const PlanRequest& r) {
  return !r.has_workload() && r.efficiency().has_reference_workload();
}
bool GrowingBatch(const PlanRequest& r) {
  return Reference(r) && !r.efficiency().reference_workload().fixed_batch();
}
double Horizon(const PlanRequest& r) {
  return r.costs().has_horizon_years() ? r.costs().horizon_years() : defaults::kHorizonYears;
}

const char* PueSource(Cooling cooling) {
  switch (cooling) {
    case COOLING_AIR:
      return "derived from site.cooling (air): design day 1.55 is a judgement (economizers stop "
             "and "
             "chillers run at full lift on the hottest hours); annual 1.44 is Uptime Institute's "
             "Global Data Center Survey 2023 for sites of 20 MW and above (planner/defaults.h)";
    case COOLING_DIRECT_LIQUID:
      return "derived from site.cooling (direct liquid): design day 1.2 is a judgement (dry "
             "coolers "
             "with chiller trim; also Germany's EnEfG ceiling for new sites); annual 1.14 is "
             "LBNL's "
             "2024 US Data Center Energy Usage Report for specialized AI data centers in 2023 "
             "(planner/defaults.h)";
    default:
      return "default: 1.3 for both PUEs when no cooling type is given (planner/defaults.h); set "
             "site.cooling or site.pue";
  }
}

constexpr Default kDefaults[] = {
    {"site.cooling", Always, nullptr,
     "default: no cooling type given (PUE 1.3); set site.cooling to air or direct liquid"},
    {"site.pue", Always, [](const PlanRequest& r) { return defaults::PeakPue(r.site()); }, nullptr},
    {"site.annual_pue", Always, [](const PlanRequest& r) { return defaults::AnnualPue(r.site()); },
     nullptr},
    {"site.provisioning.basis", Always, nullptr,
     "default: every device provisioned at its nameplate (PROVISIONING_BASIS_NAMEPLATE)"},
    {"site.provisioning.margin",
     [](const PlanRequest& r) {
       return r.site().provisioning().basis() == PROVISIONING_BASIS_MEASURED;
     },
     [](const PlanRequest&) { return defaults::kProvisioningMargin; },
     "default: 0.08, an HGX H100's 8.4 kW peak over its 7.75 kW average while training (IEEE "
     "Access 13 (2025) 61740; arXiv 2506.14551)"},
    {"site.substation.power_factor",
     [](const PlanRequest& r) { return r.site().substation().transformer_rating_va() > 0; },
     [](const PlanRequest&) { return defaults::kPowerFactor; },
     "default: 0.95, a typical power factor for a data-center load with corrected supplies "
     "(judgement)"},
    {"hardware.network.leaf_oversubscription",
     [](const PlanRequest& r) { return r.hardware().network().nics_per_gpu() > 0; },
     [](const PlanRequest&) { return defaults::kLeafOversubscription; },
     "default: 1, full bisection at the leaf"},
    {"costs.average_utilization", Priced,
     [](const PlanRequest&) { return defaults::kAverageUtilization; },
     "default: 0.8 of the draw under load on average (idle time, checkpoints, restarts; "
     "judgement)"},
    {"costs.horizon_years", Priced, Horizon, "default: 4 years, the usual GPU depreciation"},
    {"costs.wacc", Priced, [](const PlanRequest&) { return defaults::kWacc; },
     "default: 0, capital charged with no cost of money; set costs.wacc"},
    {"costs.it_life_years", Priced, Horizon, "default: the TCO horizon"},
    {"costs.facility_life_years", Priced, Horizon, "default: the TCO horizon"},
    {"efficiency.reference_workload.model", Reference, nullptr,
     "default: llama3-405b, the reference job every real preset's MFU comes from: a dense model "
     "with a published recipe (2,048 sequences of 8,192 tokens; Dubey et al. 2024, arXiv "
     "2407.21783) and a published MFU at scale (38-41% on 16,384 H100s) that the step model is "
     "calibrated against; SOURCES.md#llama3-recipe"},
    {"efficiency.reference_workload.fixed_batch", Reference, nullptr,
     "default: false, the batch grows with the cluster beyond the published one (frontier runs "
     "grow it: DeepSeek-V3 trained with 15,360 sequences of 4,096 tokens, arXiv 2412.19437); "
     "true keeps 2,048 sequences at every size"},
    {"efficiency.reference_workload.batch_tokens_per_gpu", GrowingBatch,
     [](const PlanRequest&) { return defaults::kBatchTokensPerGpu; },
     "default: 1,024 tokens a GPU, Llama 3 405B's 16M-token batch on 16,384 H100s (arXiv "
     "2407.21783 section 3.3); the batch is the published one up to 16,384 GPUs"},
    {"efficiency.log_linear.intercept", LogLinear,
     [](const PlanRequest&) { return defaults::kMfuIntercept; },
     "default: the seed chapter's MFU curve 0.62 - 0.02 log2(G) (a teaching model, not a "
     "measurement); give a workload for the step model"},
    {"efficiency.log_linear.slope_per_doubling", LogLinear,
     [](const PlanRequest&) { return defaults::kMfuSlopePerDoubling; },
     "default: the seed chapter's MFU curve 0.62 - 0.02 log2(G)"},
};

const Default* FindDefault(absl::string_view path) {
  for (const Default& d : kDefaults) {
    if (path == d.path) return &d;
  }
  return nullptr;
}

// Inputs that enter only the money (AddCost, and the budget cap through it): the prices and the
// cost model. The annual PUE prices the energy only; the power caps read site.pue.
bool MoneyOnly(absl::string_view path) {
  return absl::StartsWith(path, "costs.") || path == "site.annual_pue" ||
         path == "hardware.accelerator.price_usd" || path == "hardware.server.price_usd" ||
         path == "hardware.server.non_gpu_price_usd" || path == "hardware.rack.price_usd" ||
         path == "hardware.network.switch_price_usd" ||
         path == "hardware.network.optic_price_usd" ||
         path == "hardware.network.copper_cable_end_price_usd" ||
         path == "hardware.auxiliary.storage_price_fraction" ||
         path == "hardware.auxiliary.frontend_network_price_fraction" ||
         path == "hardware.auxiliary.head_node_price_usd";
}

// Hardware figures that only the compute model reads (the peak in AddCompute, the rest in the
// training-step model behind MFU): no power, count or price depends on them.
bool ComputeOnly(absl::string_view path) {
  return path == "hardware.accelerator.peak_flops_per_second" ||
         path == "hardware.accelerator.peak_fp8_flops_per_second" ||
         path == "hardware.accelerator.hbm_bytes" ||
         path == "hardware.accelerator.hbm_bandwidth_bytes_per_second" ||
         path == "hardware.network.scale_up_bandwidth_bytes_per_second";
}

// What the ledger knows of one scalar field without looking at a request: worked out once for the
// schema (each plan walks ~150 fields).
struct LedgerField {
  const FieldRef* field;
  const Default* default_value;  // nullptr when the model applies no default
  std::string unit;
  bool in_workload;  // workload.*
  bool calibration;  // hardware.calibration.*
  bool text;         // shown as text: a list, an enum, a bool or a string
  bool mfu_only;     // read only by the compute model (MFU and peak)
  bool money_only;   // read only by the money
  unsigned section;  // the request section it lies in (RequestSectionOf)
  int parent;        // index of the message holding it in LedgerParents()
};

// One field of each message that holds ledger fields (Parent() of it finds the message).
std::vector<const FieldRef*>& LedgerParents() {
  static auto* parents = new std::vector<const FieldRef*>();
  return *parents;
}

const std::vector<LedgerField>& LedgerFields() {
  static const auto* fields = [] {
    auto* out = new std::vector<LedgerField>();
    absl::flat_hash_map<std::string, int> parent_of;
    for (const std::string& path : AllScalarPaths()) {
      if (IsBookkeeping(path)) continue;
      const FieldRef* field = FindScalarField(path);
      if (field == nullptr) continue;
      const FieldDescriptor* f = field->leaf();
      LedgerField l;
      l.field = field;
      l.default_value = FindDefault(path);
      l.unit = FieldUnit(f);
      l.in_workload = absl::StartsWith(path, "workload.");
      l.calibration = absl::StartsWith(path, "hardware.calibration.");
      l.text = f->is_repeated() || f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM ||
               f->cpp_type() == FieldDescriptor::CPPTYPE_BOOL ||
               f->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
      l.mfu_only = l.calibration || absl::StartsWith(path, "efficiency.") || ComputeOnly(path);
      l.money_only = MoneyOnly(path);
      l.section = RequestSectionOf(path);
      const std::string parent = path.substr(0, path.rfind('.') + 1);
      auto [it, added] = parent_of.emplace(parent, static_cast<int>(LedgerParents().size()));
      if (added) LedgerParents().push_back(field);
      l.parent = it->second;
      out->push_back(std::move(l));
    }
    return out;
  }();
  return *fields;
}

// The message holding `field` in `request`, or null when a message on the way is absent.
const Message* ParentMessage(const PlanRequest& request, const FieldRef& field) {
  const Message* msg = &request;
  for (size_t i = 0; i + 1 < field.steps.size(); ++i) {
    const FieldStep& step = field.steps[i];
    if (step.access != nullptr) {  // the generated getters (proto/request_access.h)
      msg = step.access->message(*msg);
      if (msg == nullptr) return nullptr;
      continue;
    }
    const Reflection* r = msg->GetReflection();
    if (step.field->is_repeated() || !r->HasField(*msg, step.field)) return nullptr;
    msg = &r->GetMessage(*msg, step.field);
  }
  return msg;
}

// IsSet (planner/request_edit.h) for a scalar path, with the message holding it found already.
bool IsSetIn(const Message* msg, const FieldRef& field) {
  if (msg == nullptr) return false;
  if (const FieldAccess* access = field.steps.back().access) return access->has(*msg);
  const FieldDescriptor* f = field.leaf();
  const Reflection* r = msg->GetReflection();
  if (f->is_repeated()) return r->FieldSize(*msg, f) > 0;
  return r->HasField(*msg, f);
}

// The objective a plan maximizes, for influence.
double Objective(const Model& model, const ClusterEval& eval) {
  return model.caps.objective == OBJECTIVE_MAX_REALIZED_COMPUTE
             ? units::InFlopsPerSecond(eval.realized)
             : static_cast<double>(eval.gpus);
}

// The objective for `request` solved again, or NaN when it is invalid or cannot be solved.
double ObjectiveFor(const PlanRequest& request) {
  auto model = BuildModel(request);
  if (!model.ok()) return std::nan("");
  auto solution = Solve(*model);
  if (!solution.ok()) return std::nan("");
  return Objective(*model, solution->eval);
}

// The request the moves change, its model and whether it passes ValidateRequest as it is (then a
// move re-checks and rebuilds only the section it changes).
struct MoveBase {
  PlanRequest* request;
  const Model* model;  // BuildValidatedModel(*request) when valid
  bool valid;
  // Where each move's search starts: the plan's own servers (the answer is exact whatever the
  // guess; a move of 10% lands near it).
  int64_t guess_servers;
};

// ObjectiveFor `base.request`, which passed ValidateRequest before the fields in `sections` moved:
// only the checks that read those sections run again (ValidAfterMove) and only the parts of the
// model that read them are built again (RebuildModel), into storage a thread keeps.
// `request` is *base.request moved, or a copy of it moved.
double ObjectiveForMoved(const PlanRequest& request, const MoveBase& base, unsigned sections) {
  if (!base.valid) return ObjectiveFor(request);
  if (!ValidAfterMove(request, sections)) return std::nan("");
  static thread_local Model model;
  model = *base.model;
  if (!RebuildModel(request, sections, &model).ok()) return std::nan("");
  if (model.caps.objective != OBJECTIVE_MAX_REALIZED_COMPUTE) {
    // The objective is the GPU count: the search's answer alone, without the solution around it.
    const absl::StatusOr<int64_t> servers = LargestFeasibleServers(model, base.guess_servers);
    if (!servers.ok()) return std::nan("");
    return static_cast<double>(*servers * model.server.gpus);
  }
  static thread_local Solution solution;
  if (!SolveInto(model, base.guess_servers, &solution).ok()) return std::nan("");
  return Objective(model, solution.eval);
}

// The enum value an influence test switches to, or -1 for enums that have no natural other.
int OtherEnumValue(absl::string_view path, int value) {
  if (path == "site.cooling")
    return value == COOLING_DIRECT_LIQUID ? COOLING_AIR : COOLING_DIRECT_LIQUID;
  if (path == "site.provisioning.basis") {
    return value == PROVISIONING_BASIS_MEASURED ? PROVISIONING_BASIS_NAMEPLATE
                                                : PROVISIONING_BASIS_MEASURED;
  }
  return -1;
}

// The objective with the numeric `field` of `base.request` set to `v`, or NaN when that is invalid
// or cannot be solved. `request` is changed for the solve and put back as it was (the field's value
// and presence, and any message the path had to create), which costs nothing next to copying a
// request of ~100 fields for each of a plan's ~25 moves. A path through a oneof member that is
// absent would unset its sibling: those moves solve a copy instead. `section` is the field's
// (RequestSectionOf, worked out once per schema field).
double ObjectiveWith(const MoveBase& base, const FieldRef& field, unsigned section, double v) {
  PlanRequest* request = base.request;
  Message* msg = request;
  Message* created_in = nullptr;  // the message where the path's first absent message was created
  const FieldDescriptor* created = nullptr;
  for (size_t i = 0; i + 1 < field.steps.size(); ++i) {
    const FieldStep& s = field.steps[i];
    const FieldDescriptor* step = s.field;
    // The generated getters where the step has them (proto/request_access.h), else reflection.
    const bool present =
        !step->is_repeated() &&
        (s.access != nullptr ? s.access->has(*msg) : msg->GetReflection()->HasField(*msg, step));
    if (step->is_repeated() ||
        (created == nullptr && !present && step->real_containing_oneof() != nullptr)) {
      created = nullptr;
      msg = nullptr;
      break;
    }
    if (created == nullptr && !present) {
      created_in = msg;
      created = step;
    }
    msg = s.access != nullptr ? s.access->mutable_message(msg)
                              : msg->GetReflection()->MutableMessage(msg, step);
  }
  const FieldDescriptor* leaf = field.leaf();
  const double old = msg == nullptr ? 0 : GetNumberIn(*msg, field);
  if (msg == nullptr || leaf->is_repeated() || !(std::fabs(old) <= 9007199254740992.0)) {
    static thread_local PlanRequest changed;
    changed.CopyFrom(*request);
    if (!SetNumber(field, v, &changed).ok()) return std::nan("");
    return ObjectiveFor(changed);
  }
  const FieldAccess* leaf_access = field.steps.back().access;
  const bool was_present = !leaf->has_presence() ||
                           (leaf_access != nullptr ? leaf_access->has(*msg)
                                                   : msg->GetReflection()->HasField(*msg, leaf));
  double moved = std::nan("");
  if (SetNumberIn(field, v, msg).ok()) {
    moved = ObjectiveForMoved(*request, base, section);
  }
  if (created != nullptr) {
    created_in->GetReflection()->ClearField(created_in, created);
  } else if (was_present) {
    (void)SetNumberIn(field, old, msg);
  } else {
    msg->GetReflection()->ClearField(msg, leaf);
  }
  return moved;
}

// The relative change of the objective when the ledger field `l` moves (+10% of a number, then -10%
// if that is invalid; the other value of an enum), or 0 when it cannot move.
double Influence(const MoveBase& moves, const LedgerField& l, double value, double base) {
  const FieldRef& field = *l.field;
  if (!(base > 0)) return 0;
  PlanRequest* request = moves.request;
  const FieldDescriptor* f = field.leaf();
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
    const int other = OtherEnumValue(field.path, static_cast<int>(value));
    if (other < 0) return 0;
    auto* e = f->enum_type()->FindValueByNumber(other);
    if (e == nullptr) return 0;
    // Through SetField, so that a new cooling type brings its own PUEs as it would for a user.
    // SetField changes fields of the path's own section (site.cooling clears both PUEs) and
    // records a source.
    if (l.section == kRequestSite && request->sources_size() == 0) {
      // The site's enums (the two that move): the site is kept aside, moved in place and put
      // back, and the source SetField records cleared again, instead of a copy of the whole
      // request for each (whose Clear deleted and re-created its ~15 messages).
      // On the request's own arena, so that the two swap their pointers.
      Site* saved = google::protobuf::Arena::CreateMessage<Site>(request->GetArena());
      const bool had_site = request->has_site();
      saved->CopyFrom(request->site());
      double moved = std::nan("");
      if (SetField(field, e->name(), "influence", request).ok()) {
        moved = ObjectiveForMoved(*request, moves, l.section | kRequestRest);
      }
      request->mutable_site()->Swap(saved);
      if (request->GetArena() == nullptr) delete saved;
      if (!had_site) request->clear_site();
      request->mutable_sources()->Clear();
      return std::isfinite(moved) ? std::fabs(moved - base) / base : 0;
    }
    // One request per thread, copied over for each move: its messages and strings are reused.
    static thread_local PlanRequest changed;
    changed.CopyFrom(*request);
    if (!SetField(field, e->name(), "influence", &changed).ok()) return 0;
    const double moved = ObjectiveForMoved(changed, moves, l.section | kRequestRest);
    return std::isfinite(moved) ? std::fabs(moved - base) / base : 0;
  }
  if (!field.numeric() || value == 0) return 0;
  const bool integer = f->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE &&
                       f->cpp_type() != FieldDescriptor::CPPTYPE_FLOAT;
  for (double factor : {1.1, 0.9}) {
    double v = value * factor;
    if (integer)
      v = std::max(1.0, std::round(v)) == value ? value + (factor > 1 ? 1 : -1)
                                                : std::max(1.0, std::round(v));
    const double moved = ObjectiveWith(moves, field, l.section, v);
    if (std::isfinite(moved)) return std::fabs(moved - base) / base;
  }
  return 0;
}

// Each ledger field's index by its path, and a workload field's by its path within the workload
// (how a workload's own sources name it): built once, so that a plan looks up each of its request's
// sources once instead of hashing every ledger path against a map of them.
struct LedgerPathIndex {
  StringTable top;
  StringTable workload;
};

const LedgerPathIndex& LedgerPaths() {
  static const auto* index = [] {
    auto* out = new LedgerPathIndex();
    const std::vector<LedgerField>& fields = LedgerFields();
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string& path = fields[i].field->path;
      const int at = static_cast<int>(i);
      out->top.Insert(path, at);
      if (fields[i].in_workload) out->workload.Insert(path.substr(sizeof("workload.") - 1), at);
    }
    return out;
  }();
  return *index;
}

// The request's sources entry for each ledger field, by the field's index in LedgerFields(): the
// first entry of its path, or for a workload field with none, the first of the workload's own
// sources under its relative path. Its storage is the thread's, kept from one plan to the next.
class SourceIndex {
 public:
  explicit SourceIndex(const PlanRequest& request) {
    static thread_local std::vector<const FieldSource*> top, workload;
    const size_t n = LedgerFields().size();
    top.assign(n, nullptr);
    workload.assign(n, nullptr);
    const LedgerPathIndex& paths = LedgerPaths();
    for (const FieldSource& s : request.sources()) Note(paths.top, s, &top);
    for (const FieldSource& s : request.workload().sources()) Note(paths.workload, s, &workload);
    top_ = &top;
    workload_ = &workload;
  }

  // Field `i`'s entry (with none at the top, a workload field's own when `in_workload`), or null.
  const FieldSource* For(size_t i, bool in_workload) const {
    const FieldSource* found = (*top_)[i];
    return found != nullptr || !in_workload ? found : (*workload_)[i];
  }

 private:
  static void Note(const StringTable& paths, const FieldSource& s,
                   std::vector<const FieldSource*>* found) {
    const int at = paths.Find(s.path());
    if (at < 0) return;
    const FieldSource*& slot = (*found)[static_cast<size_t>(at)];
    if (slot == nullptr) slot = &s;  // the first entry of a path
  }

  const std::vector<const FieldSource*>* top_;
  const std::vector<const FieldSource*>* workload_;
};

// Where the value of ledger field `i` comes from: its sources entry, or the user's request.
void SetOrigin(const SourceIndex& sources, size_t i, bool in_workload, Assumption* a) {
  if (const FieldSource* found = sources.For(i, in_workload)) {
    a->set_origin(found->origin());
    a->set_source(found->source());
    return;
  }
  a->set_origin(ORIGIN_USER);
  a->set_source("the request");
}

// `to` = `from` without its sources and workload, which no move reads (a workload's moves hold
// MFU at the plan's). Copying a preset's ~40 cited strings only to clear them was ~5% of a plan.
void CopyAllButSourcesAndWorkload(const PlanRequest& from, PlanRequest* to) {
  to->Clear();
  const Reflection* r = from.GetReflection();
  const google::protobuf::Descriptor* d = from.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->number() == PlanRequest::kSourcesFieldNumber ||
        f->number() == PlanRequest::kWorkloadFieldNumber) {
      continue;
    }
    const bool message = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    // Into messages just made empty (`to` was cleared): MergeFrom is CopyFrom there, without
    // Message::CopyFrom's check that the source does not contain the target (a walk of the whole
    // source by reflection, ~3% of a plan).
    if (f->is_repeated() && message) {
      for (int j = 0; j < r->FieldSize(from, f); ++j) {
        r->AddMessage(to, f)->MergeFrom(r->GetRepeatedMessage(from, f, j));
      }
    } else if (message) {
      if (r->HasField(from, f)) r->MutableMessage(to, f)->MergeFrom(r->GetMessage(from, f));
    } else if (!f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      r->SetEnumValue(to, f, r->GetEnumValue(from, f));
    } else if (!f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      r->SetString(to, f, r->GetString(from, f));
    } else {
      // A kind of top-level field PlanRequest does not have today: the whole copy.
      to->CopyFrom(from);
      to->clear_sources();
      to->clear_workload();
      return;
    }
  }
}

// An empty request on an arena the thread keeps, emptied at each call (which ends the last one's
// life): its first 64 KB are the arena's own block, so a plan's copy of its request (~15
// messages) and the messages its moves create are bump allocations, all freed at once by the
// next Reset. A request kept from plan to plan instead was emptied by Clear(), which deletes every
// message it holds, and refilled with ~15 mallocs each time.
PlanRequest* FreshRequest() {
  constexpr size_t kBlockBytes = size_t{64} << 10;
  struct Scratch {
    Scratch() {
      google::protobuf::ArenaOptions options;
      options.initial_block = block.get();
      options.initial_block_size = kBlockBytes;
      arena = std::make_unique<google::protobuf::Arena>(options);
    }
    std::unique_ptr<char[]> block = std::make_unique<char[]>(kBlockBytes);
    std::unique_ptr<google::protobuf::Arena> arena;
  };
  static thread_local Scratch scratch;
  scratch.arena->Reset();
  return google::protobuf::Arena::CreateMessage<PlanRequest>(scratch.arena.get());
}

void FillAssumptions(const PlanRequest& request, const Model& model, const Solution& solution,
                     bool influence, Plan* plan) {
  double base = Objective(model, solution.eval);
  // With a training job every solve runs the step model at each probe (seconds). Influence then
  // holds MFU at the plan's own (a constant efficiency model) while the other inputs move: the
  // facility's sensitivities, exactly, at the plan's efficiency; the workload's own fields get
  // none.
  // Each move copies the request: without its sources (tens of cited strings) the copies are cheap,
  // and sources do not change an answer. A new one each plan on the thread's arena (FreshRequest).
  PlanRequest& facility_only = *FreshRequest();
  if (influence) CopyAllButSourcesAndWorkload(request, &facility_only);
  if (influence && !request.has_workload() && request.efficiency().has_reference_workload() &&
      model.caps.objective != OBJECTIVE_MAX_REALIZED_COMPUTE) {
    // The most GPUs never depend on MFU: the moves hold it at the plan's, so that moving a
    // hardware figure does not search the reference job again for an answer it cannot change.
    facility_only.mutable_efficiency()->mutable_constant()->set_mfu(
        std::max(1e-6, std::min(1.0, plan->compute().mfu())));
  }
  PlanRequest* moved = &facility_only;
  if (influence && request.has_workload()) {
    facility_only.clear_workload();
    facility_only.mutable_efficiency()->mutable_constant()->set_mfu(
        std::max(1e-6, std::min(1.0, plan->compute().mfu())));
    moved = &facility_only;
    base = ObjectiveFor(facility_only);
  }
  // The moves re-check only what they move when the request they move passes as it is.
  static thread_local Model moved_model;
  MoveBase moves{moved, &moved_model, false, solution.servers};
  if (influence && ValidateRequest(*moved).ok()) {
    auto built = BuildValidatedModel(*moved);
    if (built.ok()) {
      moved_model = *std::move(built);
      moves.valid = true;
    }
  }
  const SourceIndex sources(request);
  const std::vector<LedgerField>& fields = LedgerFields();
  // Each message holding ledger fields looked up once (~20 of them for ~150 fields).
  const std::vector<const FieldRef*>& parents = LedgerParents();
  absl::InlinedVector<const Message*, 32> parent(parents.size());
  for (size_t i = 0; i < parents.size(); ++i) parent[i] = ParentMessage(request, *parents[i]);
  for (size_t i = 0; i < fields.size(); ++i) {
    const LedgerField& l = fields[i];
    if (!request.has_workload() && l.in_workload) continue;
    if (!request.has_workload() && !request.efficiency().has_reference_workload() &&
        l.calibration) {
      continue;
    }
    const FieldRef& field = *l.field;
    const std::string& path = field.path;
    const Default* d = l.default_value;
    const Message* holder = parent[static_cast<size_t>(l.parent)];
    const bool set = IsSetIn(holder, field);
    if (!set && (d == nullptr || !d->applies(request))) continue;
    Assumption* a = plan->add_assumptions();
    a->set_path(path);
    a->set_unit(l.unit);
    double value = 0;
    if (l.text) {
      a->set_text_value(GetText(request, field));
      if (!set && path == "efficiency.reference_workload.model") {
        a->set_text_value(defaults::kReferenceModel);
      }
      value = holder != nullptr ? GetNumberIn(*holder, field) : GetNumber(request, field);
    } else {
      value = set ? GetNumberIn(*holder, field) : d->value(request);
      a->set_value(value);
    }
    if (set) {
      SetOrigin(sources, i, l.in_workload, a);
    } else if (path == "site.pue" || path == "site.annual_pue") {
      const Cooling cooling = request.site().cooling();
      a->set_origin(cooling == COOLING_UNSPECIFIED ? ORIGIN_DEFAULT : ORIGIN_DERIVED);
      a->set_source(PueSource(cooling));
    } else {
      a->set_origin(ORIGIN_DEFAULT);
      a->set_source(d->source);
    }
    const bool workload_field = l.in_workload || l.calibration;
    // MFU never moves the GPU count: under the most-GPUs objective its inputs have no influence,
    // and re-solving for them would only search the reference job again.
    // Without a budget cap no price or cost reaches the GPU count or realized compute: solving
    // again would give the same plan, so the influence is 0 without it (a third of the ledger).
    const bool money_only = l.money_only && !model.caps.has_budget;
    if ((l.mfu_only && model.caps.objective != OBJECTIVE_MAX_REALIZED_COMPUTE) || money_only) {
      if (influence) a->set_influence(0);
    } else if (influence && !(request.has_workload() && workload_field)) {
      a->set_influence(Influence(moves, l, value, base));
    }
  }
  // Most influential first; ties keep the schema's order. The pointers move, not the entries.
  std::stable_sort(
      plan->mutable_assumptions()->pointer_begin(), plan->mutable_assumptions()->pointer_end(),
      [](const Assumption* x, const Assumption* y) { return x->influence() > y->influence(); });
}

void FillMarginal(const Model& model, const Solution& solution, Plan* plan) {
  // Solved again from the plan's own servers (the answer is exact whatever the guess; a megawatt
  // or $100M more lands near it), with the changed model passed by reference, not copied again.
  auto resolve = [&](const Model& changed) -> const ClusterEval* {
    static thread_local Solution again;
    if (!SolveInto(changed, solution.servers, &again).ok()) return nullptr;
    return &again.eval;
  };
  Marginal* m = plan->mutable_marginal();
  const double gpus = static_cast<double>(solution.eval.gpus);
  const double realized = units::InFlopsPerSecond(solution.eval.realized);
  if (model.caps.has_power_cap) {
    Model more = model;
    more.caps.power_cap = model.caps.power_cap + units::Megawatts(1);
    if (const ClusterEval* e = resolve(more)) {
      m->set_gpus_per_megawatt(static_cast<double>(e->gpus) - gpus);
      m->set_realized_flops_per_second_per_megawatt(units::InFlopsPerSecond(e->realized) -
                                                    realized);
    }
  }
  if (model.caps.has_budget) {
    Model more = model;
    more.caps.budget = model.caps.budget + units::Usd(1e8);
    if (const ClusterEval* e = resolve(more)) {
      m->set_gpus_per_100m_usd(static_cast<double>(e->gpus) - gpus);
      m->set_realized_flops_per_second_per_100m_usd(units::InFlopsPerSecond(e->realized) -
                                                    realized);
    }
  }
}

std::string Ordinal(int n) {
  switch (n) {
    case 1:
      return "1st";
    case 2:
      return "2nd";
    case 3:
      return "3rd";
    default:
      return absl::StrCat(n, "th");
  }
}

void FillNextStep(const Model& model, const Solution& solution, Plan* plan) {
  const BindingConstraint b = solution.binding;
  if (b != BINDING_CONSTRAINT_FACILITY_POWER && b != BINDING_CONSTRAINT_IT_POWER &&
      b != BINDING_CONSTRAINT_SUBSTATION && b != BINDING_CONSTRAINT_BUDGET &&
      b != BINDING_CONSTRAINT_FABRIC) {
    return;
  }
  const ClusterEval& now = solution.eval;
  if (now.gpus <= 0) return;
  const ClusterEval next = EvaluateCluster(model, now.gpus + model.server.gpus);
  std::string kind;
  std::string what;
  if (next.fabric.tiers > now.fabric.tiers) {
    kind = "network_tier";
    what = absl::StrCat("one more server needs a ", Ordinal(next.fabric.tiers), " network tier");
  } else if (next.buildings > now.buildings) {
    kind = "building";
    what = absl::StrCat("one more server needs building ", next.buildings);
  } else {
    return;
  }
  const units::Power power = next.facility_power - now.facility_power;
  const units::Money capex = next.capex - now.capex;
  DiscreteStep* step = plan->mutable_next_step();
  step->set_kind(kind);
  step->set_added_facility_power_watts(units::InWatts(power));
  step->set_added_capex_usd(units::InUsd(capex));
  step->set_description(
      absl::StrCat(what, ": +", units::FormatPower(power, 1), ", +", units::FormatMoney(capex, 2)));
  plan->add_notes(
      absl::StrCat("what stops the next server is the step it needs: ", step->description()));
}

}  // namespace

absl::Status Explain(const PlanRequest& request, const Model& model, const Solution& solution,
                     const ExplainOptions& options, Plan* plan) {
  if (options.assumptions) {
    FillAssumptions(request, model, solution, options.influence, plan);
  }
  if (options.marginal) FillMarginal(model, solution, plan);
  if (options.next_step) FillNextStep(model, solution, plan);
  return absl::OkStatus();
}

std::vector<const Assumption*> HeadlineAssumptions(const Plan& plan, int count) {
  std::vector<const Assumption*> out;
  auto add = [&](const Assumption* a) {
    if (a != nullptr && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  auto find = [&](absl::string_view path) -> const Assumption* {
    for (const Assumption& a : plan.assumptions()) {
      if (a.path() == path) return &a;
    }
    return nullptr;
  };
  for (const char* path :
       {"site.cooling", "site.pue", "site.annual_pue", "site.provisioning.basis"}) {
    add(find(path));
  }
  // The price that matters most (assumptions are sorted by influence), or the GPU's price.
  const Assumption* price = nullptr;
  for (const Assumption& a : plan.assumptions()) {
    if (a.unit() == "USD" && absl::StrContains(a.path(), "price")) {
      price = &a;
      break;
    }
  }
  add(price);
  for (const Assumption& a : plan.assumptions()) {
    if (static_cast<int>(out.size()) >= count) break;
    add(&a);
  }
  return out;
}

}  // namespace dcplan

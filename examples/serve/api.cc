#include "examples/serve/api.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/field_checks.h"
#include "base/json.h"
#include "examples/serve/page_data.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "planner/compare.h"
#include "planner/mfu_error.h"
#include "planner/model.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/solver.h"
#include "planner/sweep/compare_monte_carlo.h"
#include "planner/sweep/headline.h"
#include "planner/sweep/scale_monte_carlo.h"
#include "planner/sweep/sensitivity.h"
#include "planner/sweep/sweep.h"
#include "planner/sweep/sweep_monte_carlo.h"
#include "planner/sweep/train_monte_carlo.h"
#include "planner/training.h"
#include "planner/validate.h"
#include "proto/io.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"
#include "proto/service.pb.h"
#include "proto/training.pb.h"
#include "units/format.h"

namespace dcplan::serve {
namespace {

using google::protobuf::Message;

constexpr int64_t kMaxCompareEntries = 64;
constexpr int kMaxSweepAxes = 8;

using Clock = std::chrono::steady_clock;

// One request's limits: its work budget, its deadline and the server's cancellation.
struct Limits {
  const ApiOptions* options;
  Clock::time_point deadline;
  const std::atomic<bool>* cancelled;
  absl::string_view cli;  // the command that does the same job without the limits

  // The limits of `request`, which starts now, under `options`.
  static Limits For(const ApiOptions& options, const ApiRequest& request, absl::string_view cli) {
    return {&options, Clock::now() + options.max_request_time, request.cancelled, cli};
  }

  // 422 when `units` (described by `what`) exceed the budget.
  std::optional<ApiResponse> Price(int64_t units, absl::string_view what) const {
    if (units <= options->max_work_units) return std::nullopt;
    return ErrorResponse(
        422,
        absl::StrFormat("this request asks for %d work units (%s); this server does at most %d "
                        "per request (--max_work_units): run it with the CLI instead: %s",
                        units, what, options->max_work_units, cli));
  }
  // 503 past the deadline or once cancelled, else nothing: called before and during the work.
  std::optional<ApiResponse> Check() const {
    if (cancelled != nullptr && cancelled->load()) {
      return ErrorResponse(503,
                           "the server is shutting down; the request was stopped: retry later");
    }
    if (Clock::now() > deadline) {
      return ErrorResponse(
          503,
          absl::StrFormat("this request ran past this server's limit of %.3g s per request "
                          "(--max_request_seconds) and was stopped: run it with the CLI "
                          "instead: %s",
                          std::chrono::duration<double>(options->max_request_time).count(), cli));
    }
    return std::nullopt;
  }
};

// a x b, at most 2^62 (counts here are at most 10^9 x 4 x 10^4).
int64_t Times(int64_t a, int64_t b) {
  constexpr int64_t kMax = int64_t{1} << 62;
  if (a <= 0 || b <= 0) return 0;
  return a > kMax / b ? kMax : a * b;
}

int64_t PlanUnits(const PlanRequest& r) { return r.has_workload() ? kWorkloadPlanUnits : 1; }
int64_t EvalUnits(const PlanRequest& r) { return r.has_workload() ? kWorkloadEvalUnits : 1; }

// A status from the library as an HTTP answer: bad input is the client's (400), an unknown preset
// 404, anything else the server's (500). `prefix` places the field path within the body.
ApiResponse FromStatus(const absl::Status& status, absl::string_view prefix = "",
                       const google::protobuf::Descriptor* within = PlanRequest::descriptor()) {
  int code = 400;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      code = 400;
      break;
    case absl::StatusCode::kNotFound:
      code = 404;
      break;
    default:
      code = 500;
  }
  // The field path travels with the status (base/field_checks.h), never parsed from its text.
  const std::string field = ::dcplan::FieldPathOf(status);
  return ErrorResponse(code, status.message(), field.empty() ? "" : absl::StrCat(prefix, field));
}

// The media type without parameters, lower case: "application/json; charset=utf-8" ->
// "application/json".
std::string MediaType(absl::string_view header) {
  std::string type(absl::StripAsciiWhitespace(header.substr(0, header.find(';'))));
  absl::AsciiStrToLower(&type);
  return type;
}

bool IsProtobufType(absl::string_view type) {
  return type == kProtobufType || type == "application/protobuf" ||
         type == "application/vnd.google.protobuf";
}

// Whether the client asked for a binary answer.
bool WantsBinary(absl::string_view accept) {
  for (absl::string_view part : absl::StrSplit(accept, ',')) {
    if (IsProtobufType(MediaType(part))) return true;
  }
  return false;
}

ApiResponse MessageResponse(const Message& message, bool binary) {
  ApiResponse r;
  if (binary) {
    r.content_type = std::string(kProtobufType);
    if (!message.SerializeToString(&r.body)) {
      return ErrorResponse(500, "could not serialize the answer");
    }
    return r;
  }
  auto json = SerializeMessage(message, Encoding::kJson);
  if (!json.ok()) return ErrorResponse(500, json.status().message());
  r.content_type = std::string(kJsonType);
  r.body = *std::move(json);
  return r;
}

// Reads the body into `message` as its Content-Type says: JSON (also when no type is given) or a
// binary proto. Anything else is 415.
std::optional<ApiResponse> ParseBody(const ApiRequest& request, Message* message) {
  const std::string type = MediaType(request.content_type);
  Encoding encoding;
  if (type.empty()) {
    return ErrorResponse(415,
                         absl::StrCat("a POST needs a Content-Type: send application/json or "
                                      "application/x-protobuf (a body without one is not read)"));
  }
  if (type == kJsonType) {
    encoding = Encoding::kJson;
  } else if (IsProtobufType(type)) {
    encoding = Encoding::kBinary;
  } else {
    return ErrorResponse(
        415, absl::StrCat("unsupported Content-Type \"", request.content_type.substr(0, 80),
                          "\": send application/json or application/x-protobuf"));
  }
  if (request.body.empty()) {
    return ErrorResponse(
        400, absl::StrCat("the request has no body: send a ", message->GetDescriptor()->full_name(),
                          " as ", encoding == Encoding::kJson ? "JSON" : "a binary proto"));
  }
  absl::Status parsed = ParseMessage(request.body, encoding, message);
  if (!parsed.ok()) return ErrorResponse(400, parsed.message());
  return std::nullopt;
}

// The cluster sizes of a ScaleRequest, checked: 1 to max sizes, each in [1, 10^12].
absl::StatusOr<std::vector<int64_t>> ScaleSizes(const ScaleRequest& request, int64_t max_sizes) {
  if (request.gpu_counts_size() == 0) {
    return WithFieldPath(
        absl::InvalidArgumentError("gpu_counts must list at least one cluster size"), "gpu_counts");
  }
  if (request.gpu_counts_size() > max_sizes) {
    return WithFieldPath(
        absl::InvalidArgumentError(
            absl::StrFormat("gpu_counts has %d sizes; this server evaluates at most %d per request",
                            request.gpu_counts_size(), max_sizes)),
        "gpu_counts");
  }
  std::vector<int64_t> sizes;
  sizes.reserve(request.gpu_counts_size());
  for (int i = 0; i < request.gpu_counts_size(); ++i) {
    const uint64_t g = request.gpu_counts(i);
    if (g < 1 || g > kMaxGpus) {
      return WithFieldPath(absl::OutOfRangeError(absl::StrFormat(
                               "gpu_counts[%d] must be in [1, 1000000000000], got %d", i, g)),
                           absl::StrFormat("gpu_counts[%d]", i));
    }
    sizes.push_back(static_cast<int64_t>(g));
  }
  return sizes;
}

// "%3D" -> "=", "+" -> " ": a query string's value.
std::string UrlDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && absl::ascii_isxdigit(text[i + 1]) &&
               absl::ascii_isxdigit(text[i + 2])) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// Every value of the query parameter `name` in the target, decoded, in order.
std::vector<std::string> QueryValues(absl::string_view target, absl::string_view name) {
  std::vector<std::string> out;
  const size_t q = target.find('?');
  if (q == absl::string_view::npos) return out;
  const std::string prefix = absl::StrCat(name, "=");
  for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
    if (absl::StartsWith(pair, prefix)) out.push_back(UrlDecode(pair.substr(prefix.size())));
  }
  return out;
}

// `?set=PATH=VALUE` (repeatable) in the target: the request-editing layer's grammar, as --set
// takes it (planner/request_edit.h), applied to `request` after the body. An error answers 400
// with the path in `field` (under `prefix`).
std::optional<ApiResponse> ApplyQuerySets(absl::string_view target, absl::string_view prefix,
                                          PlanRequest* request) {
  const size_t q = target.find('?');
  if (q == absl::string_view::npos) return std::nullopt;
  int count = 0;
  for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
    if (!absl::StartsWith(pair, "set=")) continue;
    if (++count > 100) return ErrorResponse(400, "at most 100 set= parameters", "set");
    const std::string assignment = UrlDecode(pair.substr(4));
    absl::Status s = ApplyAssignment(assignment, "API set=", request);
    if (!s.ok()) {
      const std::string field = ::dcplan::FieldPathOf(s);
      return ErrorResponse(400, absl::StrCat("set=", assignment.substr(0, 120), ": ", s.message()),
                           field.empty() ? "set" : absl::StrCat(prefix, field));
    }
  }
  return std::nullopt;
}

// The work units of a Monte Carlo run's samples (each a patched model: kPatchedSamplesPerUnit a
// unit; with a workload 1 each, its training figures cached per size; rebuilding the model: a plan
// each), and what they are, for the 422.
int64_t SampleUnits(const MonteCarloRun& run, const PlanRequest& request, std::string* what) {
  const int64_t samples = run.samples();
  if (!run.patched()) {
    *what = absl::StrFormat("%d Monte Carlo samples that rebuild the model, %d each", samples,
                            PlanUnits(request));
    return Times(samples, PlanUnits(request));
  }
  if (request.has_workload()) {
    *what = absl::StrFormat("%d Monte Carlo samples with a workload, 1 each", samples);
    return samples;
  }
  *what = absl::StrFormat("%d Monte Carlo samples, %d a unit", samples, kPatchedSamplesPerUnit);
  return (samples + kPatchedSamplesPerUnit - 1) / kPatchedSamplesPerUnit;
}

// The options a Monte Carlo run of the API uses: the server's Monte Carlo threads and blocks small
// enough that the deadline is checked every ~0.1 s or sooner (*stopped set when it stops them).
MonteCarloOptions SampleOptions(const MonteCarloRun& run, const PlanRequest& request,
                                const Limits& limits, std::optional<ApiResponse>* stopped) {
  MonteCarloOptions options;
  options.threads = std::max(1, limits.options->monte_carlo_threads);
  options.block_samples = !run.patched() ? 1 : request.has_workload() ? 64 : 16384;
  options.check = [&limits, stopped]() -> absl::Status {
    if ((*stopped = limits.Check())) return absl::CancelledError("stopped");
    return absl::OkStatus();
  };
  return options;
}

// Whether a parsed plan request is light enough to answer on a connection's thread: no workload
// (no parallelism search) and no uncertain inputs (no Monte Carlo run), one work unit (~50 us).
bool LightPlan(const PlanRequest& r) { return r.uncertain_size() == 0 && PlanUnits(r) <= 1; }

// POST /v1/plan. With `light_only`, a request that is not LightPlan() is left unanswered (nullopt)
// once parsed, for a heavy thread to answer; otherwise there is always an answer.
std::optional<ApiResponse> Plan(const ApiRequest& http, bool binary, const Limits& limits,
                                bool light_only) {
  // One request per thread, parsed over for each call: its messages and strings stay allocated (a
  // preset's ~65 cited sources are otherwise ~130 allocations and frees a plan). One from a large
  // body is let go afterwards, so that a thread does not keep it.
  static thread_local PlanRequest reused;
  PlanRequest& request = reused;
  struct LetGoIfLarge {
    PlanRequest* request;
    bool large;
    ~LetGoIfLarge() {
      if (large) PlanRequest().Swap(request);
    }
  } let_go{&request, http.body.size() > (std::size_t{256} << 10)};
  if (auto bad = ParseBody(http, &request)) return *bad;
  if (auto bad = ApplyQuerySets(http.target, "", &request)) return *bad;
  if (light_only && !LightPlan(request)) return std::nullopt;
  if (auto over = limits.Price(PlanUnits(request),
                               request.has_workload() ? "a plan with a workload" : "a plan")) {
    return *over;
  }
  if (auto stop = limits.Check()) return *stop;
  // ?explain=none skips the assumptions ledger, the marginal values and the next step (a client
  // that only wants the figures, at full speed); ?explain=ledger keeps the ledger without its
  // influences (no re-solves); the default computes everything.
  ExplainOptions explain;
  const absl::string_view query = http.target.find('?') == absl::string_view::npos
                                      ? absl::string_view()
                                      : http.target.substr(http.target.find('?') + 1);
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    if (pair == "explain=none") {
      explain.assumptions = explain.influence = explain.marginal = explain.next_step = false;
    } else if (pair == "explain=ledger") {
      explain.influence = explain.marginal = explain.next_step = false;
    } else if (absl::StartsWith(pair, "explain=") && pair != "explain=all") {
      return ErrorResponse(400, "explain must be all, ledger or none", "explain");
    }
  }
  if (request.uncertain_size() == 0) {
    // One plan per thread too, written over for each call.
    static thread_local dcplan::Plan plan;
    const absl::Status solved = SolvePlanInto(request, explain, &plan);
    if (!solved.ok()) return FromStatus(solved);
    return MessageResponse(plan, binary);
  }
  // Uncertain inputs: the plan at their medians with its distributions
  // (planner/sweep/sensitivity.h), its samples priced first and the deadline checked between
  // blocks of them.
  auto run = MonteCarloRun::Create(request);
  if (!run.ok()) return FromStatus(run.status());
  std::string what;
  const int64_t sample_units = SampleUnits(*run, request, &what);
  if (auto over =
          limits.Price(PlanUnits(request) + sample_units, absl::StrCat("a plan and ", what))) {
    return *over;
  }
  std::optional<ApiResponse> stopped;
  const MonteCarloOptions options = SampleOptions(*run, request, limits, &stopped);
  auto plan = SolveUncertainPlan(request, options);
  if (stopped) return *stopped;
  if (!plan.ok()) return FromStatus(plan.status());
  return MessageResponse(*plan, binary);
}

// POST /v1/request: the body with ?set= applied, validated: the request `dcplan fit` solves for the
// same flags (the page shows it, and saves it for `dcplan fit --request`).
ApiResponse RequestEndpoint(const ApiRequest& http, bool binary) {
  PlanRequest request;
  if (auto bad = ParseBody(http, &request)) return *bad;
  if (auto bad = ApplyQuerySets(http.target, "", &request)) return *bad;
  absl::Status valid = ValidateRequest(request);
  if (!valid.ok()) return FromStatus(valid);
  return MessageResponse(request, binary);
}

// POST /v1/csv: a Comparison's plans (one or more) as CSV, the headline row's columns
// (planner/sweep/headline.h), one row per plan: what `dcplan fit --format=csv` writes.
ApiResponse CsvEndpoint(const ApiRequest& http) {
  Comparison plans;
  if (auto bad = ParseBody(http, &plans)) return *bad;
  ApiResponse r;
  r.content_type = "text/csv";
  r.body = absl::StrCat(HeadlineCsvHeader(), "\n");
  for (const ::dcplan::Plan& p : plans.plans()) {
    AppendHeadlineCsvRow(p, &r.body);
    r.body += "\n";
  }
  return r;
}

// GET /v1/columns: the headline row's columns, [{"name", "unit", "plan_path"}, ...].
std::string ColumnsJson() {
  std::string s = "{\"columns\": [";
  bool first = true;
  for (const HeadlineColumn& c : HeadlineColumns()) {
    absl::StrAppend(&s, first ? "" : ", ", "{\"name\": ", JsonQuote(c.name),
                    ", \"unit\": ", JsonQuote(c.unit), ", \"plan_path\": ", JsonQuote(c.plan_path),
                    "}");
    first = false;
  }
  s += "]}\n";
  return s;
}

ApiResponse ScaleEndpoint(const ApiRequest& http, bool binary, int64_t max_sizes,
                          const Limits& limits) {
  ScaleRequest request;
  if (auto bad = ParseBody(http, &request)) return *bad;
  if (auto bad = ApplyQuerySets(http.target, "request.", request.mutable_request())) return *bad;
  if (!request.has_request()) return ErrorResponse(400, "request must be set", "request");
  auto sizes = ScaleSizes(request, max_sizes);
  if (!sizes.ok()) return FromStatus(sizes.status(), "", ScaleRequest::descriptor());
  if (request.request().uncertain_size() > 0) {
    // Uncertain inputs (planner/sweep/scale_monte_carlo.h): every size runs every sample.
    auto run = MonteCarloRun::Create(request.request());
    if (!run.ok()) return FromStatus(run.status(), "request.");
    const int64_t n = static_cast<int64_t>(sizes->size());
    absl::Status work = CheckScaleMonteCarloWork(n, run->samples());
    if (!work.ok()) return ErrorResponse(400, work.message(), "gpu_counts");
    std::string what;
    const int64_t per = SampleUnits(*run, request.request(), &what);
    if (auto over = limits.Price(Times(n, EvalUnits(request.request()) + per),
                                 absl::StrFormat("%d sizes, each a row and %s", n, what))) {
      return *over;
    }
    std::optional<ApiResponse> stopped;
    const MonteCarloOptions options = SampleOptions(*run, request.request(), limits, &stopped);
    auto report = ScaleUncertain(request.request(), *sizes, options);
    if (stopped) return *stopped;
    if (!report.ok()) return FromStatus(report.status(), "request.");
    return MessageResponse(*report, binary);
  }
  const int64_t per = EvalUnits(request.request());
  if (auto over = limits.Price(Times(static_cast<int64_t>(sizes->size()), per),
                               absl::StrFormat("%d sizes x %d per size%s", sizes->size(), per,
                                               per > 1 ? " with a workload" : ""))) {
    return *over;
  }
  // In groups of sizes, the deadline checked between them (a group with a workload is ~1 s).
  const std::size_t group = per > 1 ? 8 : 4096;
  ScaleReport report;
  for (std::size_t i = 0; i < sizes->size(); i += group) {
    if (auto stop = limits.Check()) return *stop;
    const std::size_t n = std::min(group, sizes->size() - i);
    auto part = Scale(request.request(), absl::MakeConstSpan(sizes->data() + i, n));
    if (!part.ok()) return FromStatus(part.status(), "request.");
    if (i == 0) {
      report = *std::move(part);
    } else {
      for (ScaleRow& row : *part->mutable_rows()) *report.add_rows() = std::move(row);
    }
  }
  return MessageResponse(report, binary);
}

ApiResponse CompareEndpoint(const ApiRequest& http, bool binary, const Limits& limits) {
  CompareRequest request;
  if (auto bad = ParseBody(http, &request)) return *bad;
  const int64_t n = request.presets_size() + request.requests_size();
  if (n < 1 || n > kMaxCompareEntries) {
    return ErrorResponse(400,
                         absl::StrFormat("presets and requests must name 1 to %d in all, got %d",
                                         kMaxCompareEntries, n),
                         "presets");
  }
  std::vector<PlanRequest> requests;
  requests.reserve(n);
  for (int i = 0; i < request.presets_size(); ++i) {
    auto preset = LoadPreset(request.presets(i));
    if (!preset.ok()) {
      return ErrorResponse(400, absl::StrCat("presets[", i, "]: ", preset.status().message()),
                           absl::StrCat("presets[", i, "]"));
    }
    if (request.has_constraints()) *preset->mutable_constraints() = request.constraints();
    requests.push_back(*std::move(preset));
  }
  for (const PlanRequest& r : request.requests()) requests.push_back(r);
  // ?set=PATH=VALUE applies to every entry (the same caps and site for all); ?edit=PATH=VALUE
  // (repeatable) adds a copy of the first entry with those edits (planner/compare.h EditedCopy).
  for (size_t i = 0; i < requests.size(); ++i) {
    if (auto bad = ApplyQuerySets(http.target, "", &requests[i])) return *bad;
  }
  std::vector<std::string> edits = QueryValues(http.target, "edit");
  if (!edits.empty()) {
    if (edits.size() > 100) return ErrorResponse(400, "at most 100 edit= parameters", "edit");
    if (requests.size() >= static_cast<size_t>(kMaxCompareEntries)) {
      return ErrorResponse(
          400, absl::StrFormat("at most %d entries with the edited copy", kMaxCompareEntries),
          "edit");
    }
    auto copy = EditedCopy(requests[0], edits, "API edit=");
    if (!copy.ok()) {
      return ErrorResponse(400, absl::StrCat("edit=", copy.status().message()), "edit");
    }
    requests.push_back(*std::move(copy));
  }
  // Top-level uncertain inputs and sampling apply to every entry (planner/sweep/
  // compare_monte_carlo.h): then each plan carries its distribution and the comparison P(best).
  for (PlanRequest& r : requests) {
    for (const Uncertain& u : request.uncertain()) *r.add_uncertain() = u;
    if (request.has_monte_carlo()) *r.mutable_monte_carlo() = request.monte_carlo();
  }
  bool uncertain = false;
  for (const PlanRequest& r : requests) uncertain = uncertain || r.uncertain_size() > 0;
  if (uncertain) {
    // Each option: its plan, its samples for the distribution and again for P(best).
    int64_t units = 0;
    std::string what;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].uncertain_size() == 0) break;  // CompareUncertain says which
      auto run = MonteCarloRun::Create(requests[i]);
      if (!run.ok()) {
        const absl::Status& st = run.status();
        return FromStatus(absl::Status(
            st.code(), absl::StrCat(requests[i].name().empty() ? absl::StrCat("request ", i)
                                                               : requests[i].name(),
                                    ": ", st.message())));
      }
      units += PlanUnits(requests[i]) + Times(2, SampleUnits(*run, requests[i], &what));
    }
    if (auto over = limits.Price(units, absl::StrFormat("%d plans, each with its samples twice "
                                                        "(distribution and P(best)): %s",
                                                        requests.size(), what))) {
      return *over;
    }
    std::optional<ApiResponse> stopped;
    MonteCarloOptions options;
    options.threads = std::max(1, limits.options->monte_carlo_threads);
    options.block_samples = 4096;
    options.check = [&]() -> absl::Status {
      if ((stopped = limits.Check())) return absl::CancelledError("stopped");
      return absl::OkStatus();
    };
    auto comparison = CompareUncertain(requests, options);
    if (stopped) return *stopped;
    if (!comparison.ok()) return FromStatus(comparison.status());
    return MessageResponse(*comparison, binary);
  }
  int64_t units = 0;
  for (const PlanRequest& r : requests) units += PlanUnits(r);
  if (auto over = limits.Price(units, absl::StrFormat("%d plans, %d units with a workload and 1 "
                                                      "without",
                                                      requests.size(), kWorkloadPlanUnits))) {
    return *over;
  }
  if (auto stop = limits.Check()) return *stop;
  auto comparison = Compare(requests);
  if (!comparison.ok()) return FromStatus(comparison.status());
  return MessageResponse(*comparison, binary);
}

ApiResponse TrainEndpoint(const ApiRequest& http, bool binary, const Limits& limits) {
  TrainRequest request;
  if (auto bad = ParseBody(http, &request)) return *bad;
  if (auto bad = ApplyQuerySets(http.target, "request.", request.mutable_request())) return *bad;
  if (!request.request().has_workload()) {
    return ErrorResponse(400, "request.workload must be set: the training job to plan",
                         "request.workload");
  }
  if (request.gpus() < 1 || request.gpus() > kMaxGpus) {
    return ErrorResponse(
        400, absl::StrFormat("gpus must be in [1, 1000000000000], got %d", request.gpus()), "gpus");
  }
  if (request.request().uncertain_size() > 0) {
    // Uncertain inputs (planner/sweep/train_monte_carlo.h): each sample a training evaluation of
    // one split (1 unit) or, when an input can change the split, a search (kWorkloadEvalUnits).
    auto run = MonteCarloRun::Create(request.request());
    if (!run.ok()) return FromStatus(run.status(), "request.");
    const bool fixed = TrainingSplitFixed(*run);
    const int64_t per = fixed ? 1 : kWorkloadEvalUnits;
    if (auto over =
            limits.Price(kWorkloadEvalUnits + Times(run->samples(), per),
                         absl::StrFormat("a training plan and %d Monte Carlo samples, %d each",
                                         run->samples(), per))) {
      return *over;
    }
    MonteCarloOptions options;
    options.threads = std::max(1, limits.options->monte_carlo_threads);
    options.block_samples = fixed ? 64 : 1;
    std::optional<ApiResponse> stopped;
    options.check = [&]() -> absl::Status {
      if ((stopped = limits.Check())) return absl::CancelledError("stopped");
      return absl::OkStatus();
    };
    auto plan =
        SolveUncertainTraining(request.request(), static_cast<int64_t>(request.gpus()), options);
    if (stopped) return *stopped;
    if (!plan.ok()) return FromStatus(plan.status(), "request.");
    return MessageResponse(*plan, binary);
  }
  if (auto over = limits.Price(kWorkloadEvalUnits, "a training plan")) return *over;
  if (auto stop = limits.Check()) return *stop;
  auto model = BuildModel(request.request());
  if (!model.ok()) return FromStatus(model.status(), "request.");
  auto plan = PlanTraining(*model, static_cast<int64_t>(request.gpus()));
  if (!plan.ok()) return FromStatus(plan.status(), "request.");
  *plan->mutable_mfu_interval() = MfuIntervalOf(plan->mfu(), MfuErrorFor(request.request()));
  return MessageResponse(*plan, binary);
}

// POST /v1/sweep with uncertain inputs (planner/sweep/sweep_monte_carlo.h): each point's plan at
// the medians and its SweepPoint.distribution; priced as a plan and its samples per point.
ApiResponse UncertainSweep(const Sweep& sweep, const SweepRequest& request, bool binary,
                           const Limits& limits) {
  auto run = MonteCarloRun::Create(request.request());
  if (!run.ok()) return FromStatus(run.status(), "request.");
  absl::Status work = CheckSweepMonteCarloWork(sweep.size(), run->samples());
  if (!work.ok()) return ErrorResponse(400, work.message(), "vary");
  std::string what;
  const int64_t per = PlanUnits(request.request()) + SampleUnits(*run, request.request(), &what);
  if (auto over =
          limits.Price(Times(sweep.size(), per),
                       absl::StrFormat("%d points, each a plan and %s", sweep.size(), what))) {
    return *over;
  }
  std::optional<ApiResponse> stopped;
  const MonteCarloOptions options = SampleOptions(*run, request.request(), limits, &stopped);
  SweepResult result;
  result.set_schema_version(SCHEMA_VERSION_1);
  for (const SweepAxis& a : sweep.axes()) result.add_axes(a.path);
  absl::Status ran = RunUncertainSweep(
      sweep, options, [&](int64_t point, const UncertainSweepPoint& r) -> absl::Status {
        if ((stopped = limits.Check())) return absl::CancelledError("stopped");
        SweepPoint* p = result.add_points();
        for (int a = 0; a < static_cast<int>(sweep.axes().size()); ++a) {
          p->add_values(sweep.axes()[a].ValueText(sweep.IndexAlong(point, a)));
        }
        if (!r.status.ok()) {
          p->set_error(std::string(r.status.message()));
          return absl::OkStatus();
        }
        SetSweepPointFigures(r.plan, p);  // the headline columns (planner/sweep/headline.h)
        *p->mutable_distribution() = r.distribution;
        return absl::OkStatus();
      });
  if (stopped) return *stopped;
  if (!ran.ok()) return FromStatus(ran, "request.");
  return MessageResponse(result, binary);
}

ApiResponse SweepEndpoint(const ApiRequest& http, bool binary, int64_t max_points,
                          const Limits& limits) {
  SweepRequest request;
  if (auto bad = ParseBody(http, &request)) return *bad;
  if (request.vary_size() < 1 || request.vary_size() > kMaxSweepAxes) {
    return ErrorResponse(
        400,
        absl::StrFormat("vary must list 1 to %d axes, got %d", kMaxSweepAxes, request.vary_size()),
        "vary");
  }
  // Counted from the ranges' ends and steps before any value is made: a grid of 10^40 points is
  // refused at once.
  auto axes = ParseSweepAxes({request.vary().begin(), request.vary().end()}, max_points);
  if (!axes.ok()) {
    return ErrorResponse(400,
                         absl::StrCat(axes.status().message(),
                                      axes.status().code() == absl::StatusCode::kOutOfRange
                                          ? " (this server's limit; `dcplan sweep` takes more)"
                                          : ""),
                         "vary");
  }
  // ?set=PATH=VALUE applies to the base request and to every preset a preset axis loads.
  if (auto bad = ApplyQuerySets(http.target, "request.", request.mutable_request())) return *bad;
  const std::string target(http.target);
  auto load = [target](absl::string_view name) -> absl::StatusOr<PlanRequest> {
    auto preset = LoadPreset(name);
    if (!preset.ok()) return preset.status();
    for (const std::string& assignment : QueryValues(target, "set")) {
      absl::Status s = ApplyAssignment(assignment, "API set=", &*preset);
      if (!s.ok()) return s;
    }
    return preset;
  };
  auto sweep = Sweep::Create(request.request(), *std::move(axes), load);
  if (!sweep.ok()) return FromStatus(sweep.status(), "request.");
  if (request.request().uncertain_size() > 0)
    return UncertainSweep(*sweep, request, binary, limits);
  // (The presets carry no workload: a preset axis does not bring one in.)
  const bool workload = request.request().has_workload();
  const int64_t per = workload ? kWorkloadEvalUnits : 1;
  if (auto over = limits.Price(Times(sweep->size(), per),
                               absl::StrFormat("%d points x %d per point%s", sweep->size(), per,
                                               workload ? " with a workload" : ""))) {
    return *over;
  }
  if (auto stop = limits.Check()) return *stop;
  std::optional<ApiResponse> stopped;
  SweepResult result;
  result.set_schema_version(SCHEMA_VERSION_1);
  for (const SweepAxis& a : sweep->axes()) result.add_axes(a.path);
  SweepOptions options;
  options.threads = 1;  // the server's own threads are the parallelism
  // Blocks small enough that the deadline is checked every ~0.1-1 s.
  options.block_points = workload ? 4 : 4096;
  absl::Status run = sweep->Run(options, [&](int64_t first, absl::Span<const SweepRow> rows) {
    if ((stopped = limits.Check())) return absl::CancelledError("stopped");
    for (size_t i = 0; i < rows.size(); ++i) {
      const SweepRow& row = rows[i];
      SweepPoint* p = result.add_points();
      const int64_t point = first + static_cast<int64_t>(i);
      for (int a = 0; a < static_cast<int>(sweep->axes().size()); ++a) {
        p->add_values(sweep->axes()[a].ValueText(sweep->IndexAlong(point, a)));
      }
      if (!row.status.ok()) {
        p->set_error(std::string(row.status.message()));
        continue;
      }
      SetSweepPointFigures(row, p);  // the headline columns (planner/sweep/headline.h)
    }
    return absl::OkStatus();
  });
  if (stopped) return *stopped;
  if (!run.ok()) return FromStatus(run);
  return MessageResponse(result, binary);
}

ApiResponse MethodNotAllowed(absl::string_view method, absl::string_view path,
                             absl::string_view allow) {
  ApiResponse r = ErrorResponse(
      405, absl::StrCat(method.substr(0, 16), " is not allowed on ", path, "; use ", allow));
  r.allow = std::string(allow);
  return r;
}

}  // namespace

ApiResponse ErrorResponse(int status, absl::string_view message, absl::string_view field) {
  ApiResponse r;
  r.status = status;
  r.content_type = std::string(kJsonType);
  r.body = absl::StrCat("{\"error\": ", JsonQuote(message));
  if (!field.empty()) absl::StrAppend(&r.body, ", \"field\": ", JsonQuote(field));
  r.body += "}\n";
  return r;
}

namespace {

// Whether `method target` may be heavy work (every POST under /v1/) rather than light at once (the
// page, the presets, every error for a wrong path or method).
bool IsHeavyRequest(absl::string_view method, absl::string_view target) {
  return method == "POST" && absl::StartsWith(target, "/v1/");
}

// The command that makes a plan without the server's limits (the first of Handle's POST routes).
constexpr absl::string_view kPlanCli = "`dcplan fit --request=FILE`";

}  // namespace

Api::Api(ApiOptions options) : options_(options) {
  PresetList list;
  for (const std::string& name : PresetNames()) {
    auto request = LoadPreset(name);
    if (!request.ok()) continue;
    auto model = BuildModel(*request);
    PresetList::Preset* p = list.add_presets();
    p->set_name(name);
    p->set_accelerator(request->hardware().accelerator().name());
    if (model.ok()) {
      p->set_gpus_per_server(static_cast<uint32_t>(model->server.gpus));
      p->set_peak_flops_per_second_per_gpu(units::InFlopsPerSecond(model->accelerator.peak));
      p->set_server_power_watts(units::InWatts(model->ServerPower()));
      p->set_pue(units::InFraction(model->site.pue));
      p->set_summary(absl::StrFormat("%s, %d GPUs/server, %s per GPU, %s per server, PUE %.2f",
                                     p->accelerator(), p->gpus_per_server(),
                                     units::FormatComputeRate(model->accelerator.peak, 2),
                                     units::FormatPower(model->ServerPower(), 1), p->pue()));
    }
    std::string json = SerializeMessage(*request, Encoding::kJson).value_or("");
    std::string binary;
    request->SerializeToString(&binary);
    preset_bodies_[name] = {std::move(json), std::move(binary)};
  }
  presets_json_ = SerializeMessage(list, Encoding::kJson).value_or("");
  list.SerializeToString(&presets_binary_);
}

ApiResponse Api::Handle(const ApiRequest& request) const {
  absl::string_view path = request.target.substr(0, request.target.find('?'));
  const absl::string_view method = request.method;
  const bool get = method == "GET" || method == "HEAD";
  const bool post = method == "POST";
  const bool binary = WantsBinary(request.accept);

  // The page.
  for (const PageAsset& asset : PageAssets()) {
    if (path == asset.path) {
      if (!get) return MethodNotAllowed(method, path, "GET, HEAD");
      ApiResponse r;
      r.content_type = std::string(asset.content_type);
      r.body = std::string(asset.body);
      return r;
    }
  }

  if (path == "/v1/columns") {
    if (!get) return MethodNotAllowed(method, path, "GET, HEAD");
    ApiResponse r;
    r.content_type = std::string(kJsonType);
    r.body = ColumnsJson();
    return r;
  }
  if (path == "/v1/presets") {
    if (!get) return MethodNotAllowed(method, path, "GET, HEAD");
    ApiResponse r;
    r.content_type = std::string(binary ? kProtobufType : kJsonType);
    r.body = binary ? presets_binary_ : presets_json_;
    return r;
  }
  if (absl::StartsWith(path, "/v1/presets/")) {
    const absl::string_view name = path.substr(std::string_view("/v1/presets/").size());
    auto it = preset_bodies_.find(std::string(name));
    if (it == preset_bodies_.end()) {
      std::vector<std::string> names = PresetNames();
      return ErrorResponse(
          404, absl::StrFormat("unknown preset \"%s\"; known presets: %s",
                               absl::CHexEscape(name.substr(0, 80)), absl::StrJoin(names, ", ")));
    }
    if (!get) return MethodNotAllowed(method, path, "GET, HEAD");
    ApiResponse r;
    r.content_type = std::string(binary ? kProtobufType : kJsonType);
    r.body = binary ? it->second.second : it->second.first;
    return r;
  }

  struct PostRoute {
    absl::string_view path;
    int which;
  };
  static constexpr PostRoute kPosts[] = {{"/v1/plan", 0},  {"/v1/scale", 1}, {"/v1/compare", 2},
                                         {"/v1/train", 3}, {"/v1/sweep", 4}, {"/v1/request", 5},
                                         {"/v1/csv", 6}};
  for (const PostRoute& route : kPosts) {
    if (path != route.path) continue;
    if (!post) return MethodNotAllowed(method, path, "POST");
    static constexpr absl::string_view kCli[] = {kPlanCli,
                                                 "`dcplan scale --request=FILE --gpus=...`",
                                                 "`dcplan compare --requests=A,B,...`",
                                                 "`dcplan train --request=FILE --gpus=N`",
                                                 "`dcplan sweep --request=FILE --vary=...`",
                                                 "`dcplan validate --request=FILE`",
                                                 "`dcplan fit --format=csv`"};
    const Limits limits = Limits::For(options_, request, kCli[route.which]);
    switch (route.which) {
      case 0:
        return *Plan(request, binary, limits, /*light_only=*/false);
      case 1:
        return ScaleEndpoint(request, binary, options_.max_scale_sizes, limits);
      case 2:
        return CompareEndpoint(request, binary, limits);
      case 3:
        return TrainEndpoint(request, binary, limits);
      case 5:
        return RequestEndpoint(request, binary);
      case 6:
        return CsvEndpoint(request);
      default:
        return SweepEndpoint(request, binary, options_.max_sweep_points, limits);
    }
  }
  return ErrorResponse(404,
                       absl::StrFormat("no such path: %s (the API is under /v1/, the page at /)",
                                       absl::CHexEscape(path.substr(0, 80))));
}

std::optional<ApiResponse> Api::HandleIfLight(const ApiRequest& request) const {
  if (!IsHeavyRequest(request.method, request.target)) return Handle(request);
  if (request.body.size() > kLightBodyBytes) return std::nullopt;
  if (request.target.substr(0, request.target.find('?')) != "/v1/plan") return std::nullopt;
  return Plan(request, WantsBinary(request.accept), Limits::For(options_, request, kPlanCli),
              /*light_only=*/true);
}

}  // namespace dcplan::serve

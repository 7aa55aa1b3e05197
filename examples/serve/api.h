// File: examples/serve/api.h
//
// The HTTP API of `dcplan serve`, without the HTTP: one request (method, target, content type,
// Accept, body) in, one response (status, content type, body) out. It routes to the planner
// library, so every answer is exactly what the CLI computes (`POST /v1/plan` is `dcplan fit`,
// `/v1/scale` is `dcplan scale` ...), and it serves the embedded page. The socket side lives in
// server.h; keeping the two apart lets the tests call every endpoint without a network.
//
// Routes (bodies are proto3 JSON with the schema's field names, or binary protos):
//   GET  /                   the page (and /app.js, /style.css)
//   GET  /v1/presets         PresetList: names and one-line summaries
//   GET  /v1/presets/{name}  the preset's PlanRequest
//   POST /v1/plan            PlanRequest -> Plan                  (dcplan fit)
//   POST /v1/scale           ScaleRequest -> ScaleReport          (dcplan scale)
//   POST /v1/compare         CompareRequest -> Comparison         (dcplan compare); ?set= applies
//   to
//                            every entry, ?edit=PATH=VALUE adds an edited copy of the first
//   POST /v1/request         PlanRequest -> PlanRequest: ?set= applied, validated (what the page
//                            shows and saves for `dcplan fit --request`)
//   POST /v1/train           TrainRequest -> TrainingPlan         (dcplan train)
//   POST /v1/sweep           SweepRequest -> SweepResult          (dcplan sweep), at most
//                            ApiOptions::max_sweep_points points; ?set= edits the base request
//                            and every preset a preset axis loads
// ?set=PATH=VALUE (repeatable, as --set) edits the body's request on every POST but /v1/compare's
// entries as above.
// Content-Type application/json or application/x-protobuf picks how the body is read; any other,
// or none (a browser sends a cross-origin POST without asking only when it has no JSON type), is
// 415; Accept: application/x-protobuf asks for a binary answer, else JSON. Errors are
// always JSON, an ErrorBody: {"error": "site.pue must be >= 1.0, got 0.9", "field": "site.pue"},
// with 400 (bad body or request), 404 (unknown path or preset), 405 (known path, wrong method:
// the Allow header lists the right ones), 415, 422 (more work than ApiOptions::max_work_units) or
// 503 (past ApiOptions::max_request_time, or cancelled because the server is stopping). The 422
// and 503 messages name the limit and the `dcplan` command that does the same job without it.
//
// Work limits: every POST is priced before any work, in work units (a solve without a workload is
// one unit, about 30 us on one core; with a workload a plan costs kWorkloadPlanUnits and each
// sweep point, scale size or training plan kWorkloadEvalUnits, as measured for a 126-layer model),
// and refused past the budget. A plan with uncertain inputs adds its Monte Carlo samples: a sample
// that patches the model (planner/sweep/monte_carlo.h) costs 1/kPatchedSamplesPerUnit of a unit
// without a workload and 1 with one (each new cluster size is a training evaluation), a sample that
// rebuilds it a whole plan. The deadline is checked again during sweeps (between blocks of
// points) and scales (between groups of sizes), and ApiRequest::cancelled stops them there too. The
// field is the path within the body: for /v1/scale the PlanRequest sits under "request", so it is
// "request.site.pue".
//
// Example:
//   dcplan::serve::Api api;
//   dcplan::serve::ApiResponse r = api.Handle({"POST", "/v1/plan", "application/json", "",
//                                              R"({"name": "x", ...})"});
//   r.status;  // 200, r.body holds the Plan as JSON
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "proto/request.pb.h"

namespace dcplan::serve {

// What the API needs of an HTTP request.
struct ApiRequest {
  absl::string_view method;        // "GET", "POST", ...
  absl::string_view target;        // "/v1/plan", query string allowed (ignored)
  absl::string_view content_type;  // the Content-Type header, "" when absent
  absl::string_view accept;        // the Accept header, "" when absent
  absl::string_view body;
  // Set (by a stopping server) when the answer is no longer wanted: long work stops at its next
  // check with 503. Null: never.
  const std::atomic<bool>* cancelled = nullptr;
};

struct ApiResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::string allow;  // for 405: the methods the path takes ("GET, HEAD")
};

struct ApiOptions {
  // The most points one POST /v1/sweep may solve.
  int64_t max_sweep_points = 100000;
  // The most sizes one POST /v1/scale may evaluate.
  int64_t max_scale_sizes = 10000;
  // The most work one request may ask for, in work units (see above): about 10 s on one core.
  int64_t max_work_units = 300000;
  // How long one request's work may run (checked during sweeps, scales and Monte Carlo runs).
  std::chrono::milliseconds max_request_time{10000};
  // Threads one Monte Carlo run (a request with uncertain inputs) may use, the request's own
  // included; 1 = the request's thread only (the server's threads are the parallelism).
  int monte_carlo_threads = 1;
};

// Work units (see above), measured on one core: a solve without a workload ~30 us; with a 126-layer
// workload a sweep point, a scale size or a training plan ~120 ms, a plan from scratch ~1.2 s, as
// measured when they were set. The searches that read only the answer (a sweep point's MFU, a Monte
// Carlo sample) have since become 10-20x cheaper (SearchMode::kBestOnly); the prices are kept, so
// the server's limits did not move.
inline constexpr int64_t kWorkloadEvalUnits = 4000;
inline constexpr int64_t kWorkloadPlanUnits = 40000;
// Monte Carlo samples that patch the model per work unit (a sample is ~0.5-2 us, a unit ~30 us).
inline constexpr int64_t kPatchedSamplesPerUnit = 16;

// The largest body of a request Api::HandleIfLight() answers (a preset's plan request is ~15 KB).
inline constexpr std::size_t kLightBodyBytes = std::size_t{64} << 10;

inline constexpr absl::string_view kJsonType = "application/json";
inline constexpr absl::string_view kProtobufType = "application/x-protobuf";

class Api {
 public:
  explicit Api(ApiOptions options = {});

  // Answers one request; never throws or aborts, whatever the bytes.
  ApiResponse Handle(const ApiRequest& request) const;

  // Answers `request` as Handle() does when that is light work, which a server may do on the
  // connection's own thread: every request but a POST under /v1/ (the page, the presets, errors
  // for a wrong path or method), and a POST /v1/plan of at most kLightBodyBytes with neither a
  // workload nor uncertain inputs (~50 us, like serving a page asset). Otherwise nullopt (the body
  // may have been read): run Handle() on a thread for heavy work.
  std::optional<ApiResponse> HandleIfLight(const ApiRequest& request) const;

  const ApiOptions& options() const { return options_; }

 private:
  ApiOptions options_;
  // Answers that never change, made once: the preset list and each preset, as JSON and binary.
  std::string presets_json_, presets_binary_;
  std::map<std::string, std::pair<std::string, std::string>> preset_bodies_;
};

// An error answer: `status` with {"error": message, "field": field} (field left out when empty).
ApiResponse ErrorResponse(int status, absl::string_view message, absl::string_view field = "");

}  // namespace dcplan::serve

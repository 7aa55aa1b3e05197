// dcplan: plan AI data centers from the command line.
//
//   dcplan fit --power=50MW                      the largest cluster under 50 MW (preset h100-dgx)
//   dcplan scale --preset=seed --gpus=1,8,512    peak, MFU, realized compute and power by size
//   dcplan sweep --vary=power=10MW:500MW:log20   the answer along a grid of values, as CSV
//   dcplan compare --power=100MW                 the same caps for every preset, ranked
//   dcplan validate --request=plan.textproto     check a request file
//   dcplan convert --in=a.textproto --out=a.json between text format, JSON and binary
//   dcplan presets                               the compiled-in presets
//   dcplan serve                                 the page and HTTP API on http://127.0.0.1:8080/
//
// `dcplan help COMMAND` or `dcplan COMMAND --help` prints a command's flags.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "examples/cli/commands.h"
#include "examples/cli/flagfile.h"
#include "examples/cli/flags.h"
#include "examples/cli/workload_flags.h"
#include "planner/request_edit.h"

namespace {

struct Command {
  const char* name;
  absl::Status (*run)();
  const char* summary;
  const char* usage;
  // The flags the command reads, as groups (see FlagGroup): a flag outside them is an error.
  const char* flags;
};

// Flag groups, named in Command::flags.
struct FlagGroup {
  const char* name;
  std::vector<std::string> flags;
};

const std::vector<FlagGroup>& FlagGroups() {
  static const auto* groups = [] {
    auto* g = new std::vector<FlagGroup>{
        {"base", {"preset", "request", "in_format", "set"}},
        {"output", {"format", "out"}},
        {"caps", {"power", "power_at", "max_gpus", "budget", "budget_on", "objective"}},
        {"site_money",
         {"pue", "annual_pue", "cooling", "provisioning", "provisioning_margin", "max_buildings",
          "horizon_years", "electricity", "gpu_price", "server_price", "wacc", "facility_cost",
          "it_life", "mfu_model", "gpu_power_limit"}},
        {"workload", {"workload", "model", "checkpoint_write_gbps", "scale_out_gbps"}},
        {"compare", {"presets", "requests", "set"}},
        {"sizes", {"gpus"}},
        {"sweep", {"vary", "threads"}},
        {"uncertainty",
         {"uncertain", "samples", "seed", "samples_out", "sensitivity", "output", "threads",
          "model_mfu_error", "correlate"}},
        {"train_uncertainty",
         {"uncertain", "samples", "seed", "threads", "model_mfu_error", "correlate"}},
        {"convert", {"in", "out", "in_format", "out_format", "type"}},
        {"validate", {"request", "type", "in_format"}},
        {"presets", {"preset", "format", "models", "model"}},
        {"serve",
         {"port", "address", "threads", "allow_host", "allow_origin", "max_request_seconds",
          "max_work_units", "heavy_threads", "max_connections", "monte_carlo_threads"}},
    };
    for (const std::string& f : dcplan::cli::WorkloadFlagNames()) (*g)[4].flags.push_back(f);
    return g;
  }();
  return *groups;
}

const Command kCommands[] = {
    {"fit", dcplan::cli::RunFit, "the largest cluster (whole servers) under the caps",
     "dcplan fit [--preset=NAME | --request=FILE] [--power=50MW] "
     "[--power_at=facility|it|substation]\n"
     "           [--pue=1.3] [--annual_pue=1.2] [--cooling=air|liquid]\n"
     "           [--provisioning=nameplate|measured] [--provisioning_margin=0.08]\n"
     "           [--max_gpus=N] [--max_buildings=N] [--budget='$2.5B']\n"
     "           [--budget_on=capex|tco] [--horizon_years=4] [--electricity='0.08 USD/kWh']\n"
     "           [--objective=gpus|compute] [--format=table|json|textproto|binary] [--out=FILE]\n"
     "\n"
     "Solves for the largest cluster whose facility power, IT power, substation load, GPU count,\n"
     "building count and budget all fit, and says which cap bound. Flags override the preset's or\n"
     "the request file's fields. --pue is the design-day PUE (what fits), --annual_pue the\n"
     "year's average (the energy bill). Example: dcplan fit --preset=seed --power=45.9MW",
     "base output caps site_money workload uncertainty"},
    {"sensitivity", dcplan::cli::RunSensitivity,
     "which uncertain input moves the answer most: a tornado",
     "dcplan sensitivity --uncertain=PATH=DIST [--uncertain=...] [--output=gpu_count]\n"
     "                   [--samples=10000] [--seed=1] [--threads=N] [--samples_out=FILE]\n"
     "                   [--format=table|json|textproto|binary|svg] [--out=FILE] [flags of fit]\n"
     "\n"
     "Solves the request at every uncertain input's median, its Monte Carlo percentiles, and for\n"
     "each input the output (--output: gpu_count, tco_usd, realized_flops_per_second, ... or a\n"
     "Plan field path) at the input's P10 and P90 with the others at P50, ranked by swing.\n"
     "--format=svg draws the tornado. DIST: uniform(a, b), triangular(low, mode, high),\n"
     "normal(mean, sd), lognormal(median, sigma), discrete(v1:p1, v2:p2), values with units.\n"
     "Example: dcplan sensitivity --power=200MW --uncertain='pue=uniform(1.1, 1.5)'\n"
     "         --uncertain='gpu_price=triangular($25K, $30K, $40K)'",
     "base output caps site_money workload uncertainty"},
    {"scale", dcplan::cli::RunScale, "peak, MFU, realized compute and power for given sizes",
     "dcplan scale [--preset=NAME | --request=FILE] [--gpus=1,8,512,8192,32768]\n"
     "             [--pue=1.3] [--format=table|csv|json|textproto|binary] [--out=FILE]\n"
     "\n"
     "Evaluates clusters of exactly the given GPU counts, whatever the caps. With\n"
     "--uncertain=PATH=DIST [--samples=N --seed=S --model_mfu_error=false] every size also gets\n"
     "P10 / P50 / P90 of realized compute, MFU and facility power (JSON: each row's "
     "distribution).\n"
     "Example: dcplan scale --preset=seed --gpus=1,8,512,8192,32768",
     "base output caps site_money workload sizes train_uncertainty"},
    {"sweep", dcplan::cli::RunSweep, "one request over a grid of values: CSV, JSON lines or SVG",
     "dcplan sweep [--preset=NAME | --request=FILE] --vary=FIELD=VALUES [--vary=...]\n"
     "             [--threads=N] [--format=csv|jsonl|svg] [--out=FILE] [cap flags of fit]\n"
     "\n"
     "Solves the request at every point of the grid the --vary axes span (the first axis\n"
     "outermost) and writes one row per point, in grid order whatever the thread count.\n"
     "VALUES: a:b:step (linear), a:b:logN (N log-spaced points) or a,b,c, in the field's unit\n"
     "(power text for _watts fields, money for _usd). FIELD: a PlanRequest field path\n"
     "(site.pue) or power, pue, budget, electricity, gpus, max_buildings, horizon_years, preset.\n"
     "Runs on every core (--threads=N to choose) and reports points/s on stderr.\n"
     "With --uncertain=PATH=DIST [--samples=N --seed=S] every point runs the Monte Carlo: CSV\n"
     "gets NAME_p10, NAME_p50, NAME_p90 columns, JSON lines a distribution (points x samples\n"
     "at most 10^8).\n"
     "Example: dcplan sweep --preset=seed --vary=power=10MW:500MW:log20 --vary=pue=1.0,1.2",
     "base output caps site_money workload sweep train_uncertainty"},
    {"compare", dcplan::cli::RunCompare, "the same caps for several presets, ranked",
     "dcplan compare [--presets=h100-dgx,b200-dgx,...] [--requests=a.textproto,b.json]\n"
     "               [--power=100MW] [--budget='$5B'] [--budget_on=capex|tco] ...\n"
     "               [--format=table|json|textproto|binary] [--out=FILE]\n"
     "\n"
     "Solves the caps for every preset and request file named (default: every preset but seed) "
     "and\n"
     "ranks them by realized compute, with cost per realized EFLOP/s-year and energy a year; the\n"
     "cap flags are those of fit. With --uncertain=PATH=DIST [--samples=N --seed=S] every option\n"
     "gets P10 .. P90 of realized compute and TCO, and how often it realizes the most compute\n"
     "(every option sampled on the same random numbers).",
     "compare output caps site_money workload train_uncertainty"},
    {"validate", dcplan::cli::RunValidate, "check a request (or plan) file",
     "dcplan validate --request=FILE [--type=request|plan]\n"
     "\n"
     "Reads FILE (.textproto, .json or .pb), checks every field and that the parts fit together,\n"
     "and prints the first problem with its field path. Exit code 0 when valid, 1 when not.",
     "validate"},
    {"convert", dcplan::cli::RunConvert, "between text format, JSON and binary",
     "dcplan convert --in=FILE --out=FILE [--in_format=text|json|binary]\n"
     "               [--out_format=text|json|binary] [--type=request|plan]\n"
     "\n"
     "Encodings come from the extensions (.textproto/.txtpb, .json, .pb/.binpb). The output is\n"
     "written to a temporary file and renamed; dcplan never overwrites its input.",
     "convert"},
    {"train", dcplan::cli::RunTrain, "MFU, step time and time to train of one job on N GPUs",
     "dcplan train --gpus=N (--workload=FILE | --layers=L --hidden=H --heads=A --vocab=V\n"
     "             --seq_len=S --global_batch_tokens=T) [--params=N] [--ffn_hidden=F]\n"
     "             [--kv_heads=K] [--gated_mlp=true] [--tp=8 --pp=16 --dp=64] [--micro_batch=1]\n"
     "             [--virtual_stages=1] [--recompute=none|selective|full] [--zero=0|1|2|3]\n"
     "             [--train_tokens=15T]\n"
     "             [--preset=NAME | --request=FILE] [--scale_out_gbps=400] [--scale_up_gpus=8]\n"
     "             [--kernel_efficiency=0.6] [--format=table|json|textproto|binary] [--out=FILE]\n"
     "\n"
     "Models one training step from first principles on the preset's hardware: compute at the\n"
     "calibrated kernel efficiency, memory-bound kernels, tensor-parallel collectives in the\n"
     "scale-up domain, pipeline bubble and sends, the data-parallel gradient sync (in the domain,\n"
     "then over the fabric), memory per GPU. With --tp, --pp and --dp (product = --gpus) it\n"
     "evaluates that split; fields left out are searched. MFU is PaLM's (no recomputation).\n"
     "--params defaults to the shape's count, --ffn_hidden to 4 x hidden; counts take 16M, 15T.\n"
     "The same workload flags make fit, scale and compare use this model for MFU. With\n"
     "--uncertain=PATH=DIST [--samples=N --seed=S --model_mfu_error=false], percentiles of MFU,\n"
     "realized compute, time to train and goodput.\n"
     "Example: dcplan train --gpus=8192 --layers=126 --hidden=16384 --heads=128 --vocab=128256\n"
     "         --seq_len=8192 --global_batch_tokens=16M --tp=8 --pp=16 --dp=64 --train_tokens=15T",
     "base output workload sizes train_uncertainty"},
    {"serve", dcplan::cli::RunServe,
     "the planner in a browser and over HTTP (JSON or binary protos)",
     "dcplan serve [--port=8080] [--address=127.0.0.1] [--threads=N]\n"
     "\n"
     "Serves the interactive page at http://127.0.0.1:8080/ (slide a cluster from 1 GPU to a\n"
     "million, or find what fits under a power cap and budget) and the API under /v1/: GET\n"
     "/v1/presets, GET /v1/presets/NAME, POST /v1/plan (fit), /v1/scale, /v1/compare, /v1/train,\n"
     "/v1/sweep, in JSON or binary protos (Content-Type/Accept: application/x-protobuf). Listens "
     "on\n"
     "loopback only unless --address names another address; --port=0 picks a free port. Ctrl-C\n"
     "or SIGTERM stops it. Example: dcplan serve --port=8080",
     "serve"},
    {"presets", dcplan::cli::RunPresets, "list the compiled-in presets, or show one",
     "dcplan presets [--preset=NAME --format=textproto]\n"
     "\n"
     "Without --format=textproto lists every preset's headline figures; with it prints the preset\n"
     "file, comments and sources included.",
     "presets"},
};

std::string MainUsage() {
  std::string s =
      "dcplan: plan AI data centers: how many GPUs fit in N megawatts or $B, what they deliver "
      "and cost.\n\nusage: dcplan COMMAND [--flags]\n\ncommands:\n";
  for (const Command& c : kCommands)
    absl::StrAppend(&s, "  ", c.name,
                    std::string(std::strlen(c.name) < 10 ? 10 - std::strlen(c.name) : 1, ' '),
                    c.summary, "\n");
  absl::StrAppend(&s,
                  "\n`dcplan help COMMAND` or `dcplan COMMAND --help` prints a command's flags.\n");
  return s;
}

const Command* Find(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// `dcplan NAME` or `dcplan help NAME` for a command that does not exist: exit code 2.
int UnknownCommand(const std::string& name) {
  std::vector<std::string> names;
  for (const Command& k : kCommands) names.push_back(k.name);
  std::cerr << "dcplan: unknown command \"" << dcplan::cli::ForTerminal(name) << "\"; commands are "
            << absl::StrJoin(names, ", ") << "\n";
  return 2;
}

// dcplan's own flags (those the CLI defines), sorted.
std::vector<std::string> OwnFlags() {
  std::vector<std::string> names;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::StrContains(flag->Filename(), "examples/cli/")) names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// An error for the first flag no command defines, with the nearest one ("unknown flag --powr;
// did you mean --power?"), or "".
std::string UnknownFlag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    absl::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    absl::string_view value;
    if (const size_t eq = name.find('='); eq != absl::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (absl::FindCommandLineFlag(name) != nullptr) continue;
    if (absl::StartsWith(name, "no") && absl::FindCommandLineFlag(name.substr(2)) != nullptr) {
      continue;
    }
    std::string message =
        absl::StrCat("unknown flag --", dcplan::cli::ForTerminal(std::string(name)));
    if (dcplan::ResolveField(name).ok()) {
      absl::StrAppend(&message, "; did you mean --set=", name, "=",
                      dcplan::cli::ForTerminal(std::string(value)), "?");
      return message;
    }
    std::string best;
    size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const std::string& known : OwnFlags()) {
      const size_t d = dcplan::EditDistance(name, known);
      if (d < best_distance) {
        best_distance = d;
        best = known;
      }
    }
    if (!best.empty()) absl::StrAppend(&message, "; did you mean --", best, "?");
    absl::StrAppend(&message, " (dcplan help COMMAND lists a command's flags)");
    return message;
  }
  return "";
}

// An error for the first flag given (its value differs from its default) that command `c` does
// not read, naming the commands that do,
// or "".
std::string UnusedFlag(const Command& c) {
  auto reads = [](const Command& k, const std::string& flag) {
    for (absl::string_view group : absl::StrSplit(k.flags, ' ', absl::SkipEmpty())) {
      for (const FlagGroup& g : FlagGroups()) {
        if (g.name != group) continue;
        for (const std::string& f : g.flags) {
          if (f == flag) return true;
        }
      }
    }
    return false;
  };
  for (const std::string& flag : OwnFlags()) {
    const absl::CommandLineFlag* f = absl::FindCommandLineFlag(flag);
    if (f == nullptr || f->CurrentValue() == f->DefaultValue() || reads(c, flag)) continue;
    std::vector<std::string> users;
    for (const Command& k : kCommands) {
      if (reads(k, flag)) users.push_back(k.name);
    }
    return absl::StrCat(c.name, " does not use --", flag,
                        users.empty()
                            ? std::string()
                            : absl::StrCat(" (it is for ", absl::StrJoin(users, ", "), ")"),
                        "; drop it");
  }
  return "";
}

bool IsHelpFlag(const char* arg) {
  return std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0 ||
         std::strcmp(arg, "-help") == 0 || std::strcmp(arg, "--helpfull") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(MainUsage());
  // Help is answered before flag parsing, per command, so it lists that command's flags only.
  std::vector<std::string> words;
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    if (IsHelpFlag(argv[i])) {
      help = true;
    } else if (argv[i][0] != '-') {
      words.push_back(argv[i]);
    }
  }
  if (!words.empty() && words[0] == "help") {
    words.erase(words.begin());
    help = true;
  }
  if (help) {
    const Command* c = words.empty() ? nullptr : Find(words[0]);
    if (c == nullptr && !words.empty()) return UnknownCommand(words[0]);
    std::cout << (c ? absl::StrCat(c->usage, "\n") : MainUsage());
    return 0;
  }
  // Flag files bounded (size, depth, no self-inclusion) and protected from --out before absl reads
  // them (examples/cli/flagfile.h).
  if (const absl::Status s = dcplan::cli::CheckFlagFiles(argc, argv); !s.ok()) {
    return dcplan::cli::Fail(s);
  }
  if (const std::string unknown = UnknownFlag(argc, argv); !unknown.empty()) {
    std::cerr << "dcplan: " << unknown << "\n";
    return 2;
  }
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() < 2) {
    std::cerr << MainUsage();
    return 2;
  }
  if (positional.size() > 2) {
    std::cerr << "dcplan: unexpected argument \"" << positional[2]
              << "\" (flags are --name=value)\n";
    return 2;
  }
  const Command* c = Find(positional[1]);
  if (c == nullptr) return UnknownCommand(positional[1]);
  if (const std::string unused = UnusedFlag(*c); !unused.empty()) {
    std::cerr << "dcplan: " << unused << "\n";
    return 2;
  }
  const absl::Status status = c->run();
  return status.ok() ? 0 : dcplan::cli::Fail(status);
}

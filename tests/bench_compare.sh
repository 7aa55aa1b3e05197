#!/usr/bin/env bash
# bench_compare.sh: the project's benchmarks on two commits, back to back on this machine, and the
# ratios. Not part of `bazel test` (timings are not test results); run it by hand before merging
# anything that touches a hot path:
#
#   tests/bench_compare.sh OLD_COMMIT NEW_COMMIT            # e.g. main HEAD
#   tests/bench_compare.sh --repetitions=9 --filter=Solve 435d80b HEAD
#   tests/bench_compare.sh --bins OLD_DIR NEW_DIR           # binaries built already
#
# Each commit is checked out in a temporary git worktree (removed at the end) and built with
# `./bazelw build -c opt` (the shared disk cache makes a second run quick). The two builds' binaries
# then run alternately, OLD, NEW, OLD, NEW ..., --rounds times, each with Google Benchmark's
# --benchmark_repetitions, so that other load on the machine falls on both alike. Reported per
# benchmark: the minimum and the median time of each side over every repetition (CPU time; wall
# time for the benchmarks named .../real_time), and NEW/OLD of the minimums (below 1: NEW is
# faster); rates (items_per_second, requests_per_second) best and median, the HTTP p99 and the
# server's CPU time a request (when both builds' benchmarks report it: since 7d4b884). Also
# `dcplan sweep` writing 1,000,000 CSV rows to a file on 2 threads, after the benchmarks, OLD and
# NEW alternately --cli_runs times each (wall time: best and median; a run is ~0.3 s and swings by
# a fifth from one second to the next, so two runs said little).
#
# Other engineers' builds share the 2 cores: look at the minimums, and repeat when the medians
# disagree with them.
set -euo pipefail

usage() {
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

repetitions=5
rounds=2
cli_runs=10
filter=""
bins=()
commits=()
while (($#)); do
  case "$1" in
    --repetitions=*) repetitions="${1#*=}" ;;
    --rounds=*) rounds="${1#*=}" ;;
    --filter=*) filter="${1#*=}" ;;
    --cli_runs=*) cli_runs="${1#*=}" ;;
    --bins)
      bins=("$2" "$3")
      shift 2
      ;;
    -h | --help) usage ;;
    *) commits+=("$1") ;;
  esac
  shift
done

BENCHMARKS=(
  //planner:solver_benchmark
  //planner:parallelism_search_benchmark
  //planner/sweep:sweep_benchmark
  //planner/sweep:monte_carlo_benchmark
  //planner:reference_mfu_benchmark
  //examples/serve:serve_benchmark
  //base:shortest_double_benchmark
  //examples:dcplan
)

repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
work="$(mktemp -d /tmp/bench_compare.XXXXXX)"
worktrees=()
cleanup() {
  for w in "${worktrees[@]}"; do git -C "$repo" worktree remove --force "$w" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Builds `commit` in a worktree of its own and copies the binaries to $work/$2.
build() {
  local commit="$1" side="$2"
  local tree="$work/tree-$side"
  git -C "$repo" worktree add --detach "$tree" "$commit" >/dev/null
  worktrees+=("$tree")
  echo "building $commit ($side) in $tree ..." >&2
  # --keep_going: an older commit may lack a benchmark added since (it is then left out).
  (cd "$tree" && ./bazelw build -c opt --keep_going "${BENCHMARKS[@]}" >&2) || true
  mkdir -p "$work/$side"
  for t in "${BENCHMARKS[@]}"; do
    local path="${t#//}"
    path="${path/://}"
    cp "$tree/bazel-bin/$path" "$work/$side/" 2>/dev/null || echo "($t not built at $commit)" >&2
  done
  # The worktree's Bazel server (a JVM of its own) would otherwise sit beside the runs for hours.
  (cd "$tree" && ./bazelw shutdown >&2) || true
}

if ((${#bins[@]} == 2)); then
  old_dir="${bins[0]}"
  new_dir="${bins[1]}"
  old_name="$old_dir"
  new_name="$new_dir"
else
  ((${#commits[@]} == 2)) || usage
  old_name="$(git -C "$repo" rev-parse --short "${commits[0]}")"
  new_name="$(git -C "$repo" rev-parse --short "${commits[1]}")"
  build "${commits[0]}" old
  build "${commits[1]}" new
  old_dir="$work/old"
  new_dir="$work/new"
fi

echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq "$rounds"); do
  for side in old new; do
    dir="$old_dir"
    [[ "$side" == new ]] && dir="$new_dir"
    for b in solver_benchmark parallelism_search_benchmark sweep_benchmark serve_benchmark \
      reference_mfu_benchmark monte_carlo_benchmark shortest_double_benchmark; do
      [[ -x "$dir/$b" ]] || continue
      args=(--benchmark_repetitions="$repetitions" --benchmark_format=json
        --benchmark_out="$work/$side-$b-$round.json" --benchmark_out_format=json)
      [[ -n "$filter" ]] && args+=(--benchmark_filter="$filter")
      echo "round $round: $side $b" >&2
      "$dir/$b" "${args[@]}" >/dev/null 2>&1 || echo "  ($b failed)" >&2
    done
  done
done
if [[ -x "$old_dir/dcplan" && -x "$new_dir/dcplan" && -z "$filter" ]]; then
  echo "dcplan sweep: $cli_runs runs a side, alternately" >&2
  for run in $(seq "$cli_runs"); do
    for side in old new; do
      dir="$old_dir"
      [[ "$side" == new ]] && dir="$new_dir"
      start=$(date +%s.%N)
      "$dir/dcplan" sweep --preset=h100-dgx --vary=power=10MW:500MW:log1000 \
        --vary=pue=1.1:1.6:log1000 --threads=2 --out="$work/sweep-$side.csv" 2>/dev/null
      end=$(date +%s.%N)
      echo "$side $(echo "$end - $start" | bc)" >>"$work/cli-sweep.txt"
      rm -f "$work/sweep-$side.csv"
    done
  done
fi
echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$work" "$old_name" "$new_name" <<'EOF'
import glob, json, os, statistics, sys
work, old_name, new_name = sys.argv[1:4]
runs = {"old": {}, "new": {}}
for side in runs:
    for path in glob.glob(os.path.join(work, f"{side}-*.json")):
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError:  # the filter matched nothing in that binary
            continue
        for b in data.get("benchmarks", []):
            if b.get("run_type") != "iteration":
                continue
            # Wall time for the benchmarks that ask for it (threads, HTTP), else CPU time.
            key = "real_time" if "real_time" in b["run_name"] else "cpu_time"
            t = b[key] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
            rate = b.get("items_per_second") or b.get("requests_per_second")
            runs[side].setdefault(b["run_name"], []).append(
                (t, rate, b.get("p99_us"), b.get("server_cpu_us")))
names = sorted(set(runs["old"]) | set(runs["new"]))
def fmt(ns):
    return f"{ns:.0f} ns" if ns < 1e4 else (f"{ns/1e3:.1f} us" if ns < 1e7 else f"{ns/1e6:.2f} ms")
def stats(samples):
    times = [t for t, _, _, _ in samples]
    rates = [r for _, r, _, _ in samples if r]
    p99 = [p for _, _, p, _ in samples if p]
    cpu = [c for _, _, _, c in samples if c]
    return (min(times), statistics.median(times), max(rates, default=None),
            statistics.median(rates) if rates else None, statistics.median(p99) if p99 else None,
            statistics.median(cpu) if cpu else None)
print(f"{'benchmark':44} {'old min':>10} {'old med':>10} {'new min':>10} {'new med':>10} {'new/old':>8}  rates, old -> new")
for n in names:
    if n not in runs["old"] or n not in runs["new"]:
        print(f"{n:44} only in {'old' if n in runs['old'] else 'new'}")
        continue
    omin, omed, orate, omedrate, op99, ocpu = stats(runs["old"][n])
    nmin, nmed, nrate, nmedrate, np99, ncpu = stats(runs["new"][n])
    rates = ""
    if orate and nrate:
        rates = (f"best {orate/1e6:.3g} -> {nrate/1e6:.3g} M/s, "
                 f"median {omedrate/1e6:.3g} -> {nmedrate/1e6:.3g} M/s")
    if op99 and np99:
        rates += f", p99 {op99:.0f} -> {np99:.0f} us"
    if ocpu and ncpu:
        # The server's CPU time a request (median): what load on the machine moves least.
        rates += f", server CPU {ocpu:.0f} -> {ncpu:.0f} us a request"
    print(f"{n:44} {fmt(omin):>10} {fmt(omed):>10} {fmt(nmin):>10} {fmt(nmed):>10} {nmin/omin:8.2f}  {rates}")
cli = os.path.join(work, "cli-sweep.txt")
if os.path.exists(cli):
    times = {}
    for line in open(cli):
        side, t = line.split()
        times.setdefault(side, []).append(float(t))
    if len(times) == 2:
        best = {side: min(t) for side, t in times.items()}
        med = {side: statistics.median(t) for side, t in times.items()}
        print(f"{'dcplan sweep, 1,000,000 CSV rows, 2 threads':44} {best['old']:9.2f}s "
              f"{med['old']:9.2f}s {best['new']:9.2f}s {med['new']:9.2f}s "
              f"{best['new']/best['old']:8.2f}  best {1/best['old']:.2f} -> {1/best['new']:.2f} "
              f"M rows/s, median {1/med['old']:.2f} -> {1/med['new']:.2f} M rows/s")
print(f"old = {old_name}, new = {new_name}")
EOF

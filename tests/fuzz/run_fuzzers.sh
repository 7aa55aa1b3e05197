#!/usr/bin/env bash
# tests/fuzz/run_fuzzers.sh [SECONDS] [HARNESS...]: builds dcplan's libFuzzer harnesses with clang
# (ASan + UBSan + libFuzzer, `--config=fuzz`) in an output base of their own, so the main one keeps
# its gcc toolchain, then runs each for SECONDS (default 20) with the dictionary, starting from the
# seed corpus, and prints how many inputs each ran. Exits non-zero on any finding, leaving the input
# that triggered it in $DCPLAN_FUZZ_DIR/artifacts; copy it into tests/fuzz/corpus/<kind>/ as
# regression-<what>, fix the bug, and the replay test (`bazel test //tests/fuzz:all`) keeps it fixed.
#   tests/fuzz/run_fuzzers.sh 20                         # .ci/run: 20 s per harness
#   tests/fuzz/run_fuzzers.sh 3600 text_request_fuzzer   # a long run of one harness
# Harnesses: text_request_fuzzer json_request_fuzzer binary_request_fuzzer units_fuzzer.
# The inputs each run finds are kept in $DCPLAN_FUZZ_DIR/corpus/<harness> (default
# ~/.cache/dcplan_fuzz_work), so a later run goes on from where the last one stopped.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-20}"
shift || true
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  harnesses=(text_request_fuzzer json_request_fuzzer binary_request_fuzzer units_fuzzer)
fi
work="${DCPLAN_FUZZ_DIR:-${HOME:-/root}/.cache/dcplan_fuzz_work}"
# One output base per checkout (as Bazel's own default is), beside the main one.
output_base="${DCPLAN_FUZZ_OUTPUT_BASE:-${HOME:-/root}/.cache/dcplan_fuzz_bazel/$(pwd | md5sum | cut -c1-12)}"
# The fuzz build's own Bazel server exits after 5 idle minutes.
bazel=(./bazelw --output_base="$output_base" --max_idle_secs=300)

corpus_of() {  # HARNESS -> its seed corpus directory
  case "$1" in
    text_request_fuzzer) echo tests/fuzz/corpus/text ;;
    json_request_fuzzer) echo tests/fuzz/corpus/json ;;
    binary_request_fuzzer) echo tests/fuzz/corpus/binary ;;
    units_fuzzer) echo tests/fuzz/corpus/units ;;
    *) return 1 ;;
  esac
}

targets=()
for h in "${harnesses[@]}"; do
  if ! corpus_of "$h" >/dev/null; then
    echo "run_fuzzers: unknown harness \"$h\"" >&2
    exit 2
  fi
  targets+=("//tests/fuzz:$h")
done

echo "run_fuzzers: building ${targets[*]} with clang (--config=fuzz, output base $output_base)"
if ! "${bazel[@]}" build --config=fuzz "${targets[@]}"; then
  echo "run_fuzzers: the fuzz build failed" >&2
  exit 1
fi
bin="$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)"

mkdir -p "$work/artifacts"
status=0
total=0
for h in "${harnesses[@]}"; do
  mkdir -p "$work/corpus/$h"
  log="$work/$h.log"
  # New inputs go to the first directory (the work corpus); the seeds are only read.
  "$bin/tests/fuzz/$h" "$work/corpus/$h" "$(corpus_of "$h")" \
    -dict=tests/fuzz/dcplan.dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/$h-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -1)
  if [[ $rc -ne 0 || -z "$runs" ]]; then
    echo "run_fuzzers: $h FOUND A PROBLEM (exit $rc); its log, $log, ends:"
    tail -n 40 "$log"
    ls -1 "$work/artifacts/$h-"* 2>/dev/null | sed 's/^/  reproducer: /'
    status=1
  else
    total=$((total + runs))
    echo "run_fuzzers: $h: $runs runs in ${seconds} s without a finding" \
      "(corpus: $(ls "$work/corpus/$h" | wc -l) inputs)"
  fi
done
echo "run_fuzzers: $total runs in all"
exit $status

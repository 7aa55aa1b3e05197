#!/usr/bin/env bash
# dcplan as a library for other projects: builds and runs examples/consumer, a separate Bazel
# workspace that depends on dcplan through local_repository, with its own Bazel (its own output
# root, so it never waits on the Bazel running this test), and checks that its answer equals
# `dcplan fit` for the same request. Tagged local and external in tests/BUILD.bazel: it reads the
# source tree (the consumer's files are not inputs of this test) and always runs.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

# This script's runfiles entry links back to the source tree, where the consumer workspace lives.
ROOT=$(dirname "$(dirname "$(readlink -f "$TEST_SRCDIR/$TEST_WORKSPACE/tests/consumer_test.sh")")")
CONSUMER="$ROOT/examples/consumer"
if [[ ! -f "$CONSUMER/WORKSPACE" ]]; then
  fail "no consumer workspace at $CONSUMER"
  finish consumer_test
  exit 1
fi

# A fixed output root outside the test's temporary directory, so that later runs are incremental.
OUTPUT_ROOT="${DCPLAN_CONSUMER_OUTPUT_ROOT:-/tmp/dcplan_consumer_bazel_$(id -u)}"
export HOME="$TMP/home"
mkdir -p "$HOME"
BAZEL=(/usr/bin/bazel --output_user_root="$OUTPUT_ROOT" --batch)
FLAGS=(--symlink_prefix=/ --noshow_progress --ui_event_filters=-info)

cd "$CONSUMER"
if "${BAZEL[@]}" build "${FLAGS[@]}" //:plan_for_budget > "$TMP/build.log" 2>&1; then
  pass "the consumer workspace builds against @dcplan"
else
  fail "consumer build: $(tail -20 "$TMP/build.log")"
  finish consumer_test
  exit 1
fi
"${BAZEL[@]}" run "${FLAGS[@]}" --ui_event_filters=-info,-stdout,-stderr //:plan_for_budget -- \
  2.5e9 100e6 > "$TMP/run.out" 2> "$TMP/run.err"
check "consumer tool exit" 0 $?
cat "$TMP/run.out"

check "header" 'For $2.5B under 100 MW at the meter:' "$(head -1 "$TMP/run.out")"
# Each preset's answer is what the CLI of this workspace gives for the same caps.
for preset in a100-dgx h100-dgx b200-dgx; do
  "$DCPLAN" fit --preset=$preset --budget=2.5e9 --power=100MW --format=json > "$TMP/$preset.json"
  want=$(json_get "$TMP/$preset.json" "p['counts']['gpu_count']")
  binding=$(json_get "$TMP/$preset.json" "p['binding_constraint']")
  got=$(grep "^  $preset: " "$TMP/run.out" | sed -E 's/^  [^:]+: ([0-9]+) GPUs.*bound by (.*)$/\1 \2/')
  check "$preset as dcplan fit" "$want $binding" "$got"
done

finish consumer_test

#!/usr/bin/env bash
# Shared helpers for the end-to-end CLI tests (sourced, not run):
#   DCPLAN             path of the dcplan binary in the test's runfiles
#   TMP                a scratch directory
#   check NAME WANT GOT, pass NAME, fail NAME, json_get FILE EXPR (with `p` the parsed JSON),
#   expect_error NAME SUBSTRING ARGS... (dcplan ARGS must fail with one line containing SUBSTRING),
#   finish NAME (prints the failure count and sets the exit status).
DCPLAN="$TEST_SRCDIR/$TEST_WORKSPACE/examples/dcplan"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
check() { if [[ "$2" == "$3" ]]; then pass "$1"; else fail "$1: expected [$2], got [$3]"; fi; }
json_get() { python3 -c "import json,sys; p=json.load(open('$1')); print($2)"; }

expect_error() {
  local name="$1" want="$2"; shift 2
  local err rc
  err=$("$DCPLAN" "$@" 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne 0 && "$err" == *"$want"* && $(echo "$err" | wc -l) -eq 1 ]]; then
    pass "$name"
  else
    fail "$name: rc=$rc err=[$err]"
  fi
}

finish() {
  echo "$1: $failures failure(s)"
  [[ $failures -eq 0 ]]
}

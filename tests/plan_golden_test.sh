#!/usr/bin/env bash
# `dcplan fit` and `dcplan train` print, byte for byte, what commit 94d351f's dcplan printed
# (tests/data/plan_golden/golden, made by run.sh from `commands`): plans on every preset in JSON
# and text, their assumptions ledger, marginal values and notes included, and training plans. Speed
# work must not move a byte; when the physics changes on purpose, regenerate the file as
# tests/data/plan_golden/README says and say why in the commit.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

golden="$TEST_SRCDIR/$TEST_WORKSPACE/tests/data/plan_golden"
"$golden/run.sh" "$DCPLAN" > "$TMP/plans.out"
commands=$(grep -c '^## exit' "$golden/golden")
check "commands run" "$commands" "$(grep -c '^## exit' "$TMP/plans.out")"
if cmp -s "$TMP/plans.out" "$golden/golden"; then
  pass "$commands commands, byte for byte"
else
  # The first command whose output differs, and the first lines that do.
  first=$(diff "$TMP/plans.out" "$golden/golden" | grep -m1 '^[0-9]' | sed 's/[acd,].*//')
  fail "output differs from line $first, in: $(head -n "$first" "$TMP/plans.out" | grep '^## [a-z]' | tail -1)"
  diff "$TMP/plans.out" "$golden/golden" | head -8
fi
finish plan_golden_test

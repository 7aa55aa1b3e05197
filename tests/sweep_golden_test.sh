#!/usr/bin/env bash
# `dcplan sweep` prints, byte for byte, what it printed before issue 22's speed work (commit d9e4ffe
# wrote tests/data/sweep_golden/): CSV and JSON lines, on 1 and 2 threads, for a grid of caps x PUEs
# with invalid values (error rows) and a budget that takes turns with the power cap, and for a grid
# over presets. The CLI reuses each column's last text and writes on a thread of its own; this holds
# it to the plain formatting. When the physics changes on purpose, regenerate the files with the
# commands in tests/data/sweep_golden/README and say why in the commit.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

golden="$TEST_SRCDIR/$TEST_WORKSPACE/tests/data/sweep_golden"
# --mfu_model=log_linear: the goldens pin the writer and the facility model; the real presets' MFU
# (their reference workload, issue 23) is checked by reference_mfu_test and reference_cli_test.
caps=(--preset=h100-dgx --budget='$3B' --vary=pue=0.9:1.6:0.1 --vary=power=25MW:1000MW:25MW --mfu_model=log_linear)
presets=(--preset=seed --vary=preset=seed,h100-dgx,mi300x,gb200-nvl72 --vary=power=5MW:200MW:log30 --mfu_model=log_linear)
for threads in 1 2; do
  for format in csv jsonl; do
    "$DCPLAN" sweep "${caps[@]}" --threads=$threads --format=$format > "$TMP/caps.$format" 2>/dev/null
    if cmp -s "$TMP/caps.$format" "$golden/caps.$format"; then pass "caps $format, $threads threads"
    else fail "caps $format, $threads threads: $(diff "$TMP/caps.$format" "$golden/caps.$format" | head -3)"; fi
    "$DCPLAN" sweep "${presets[@]}" --threads=$threads --format=$format > "$TMP/presets.$format" 2>/dev/null
    if cmp -s "$TMP/presets.$format" "$golden/presets.$format"; then pass "presets $format, $threads threads"
    else fail "presets $format, $threads threads: $(diff "$TMP/presets.$format" "$golden/presets.$format" | head -3)"; fi
  done
done
# --out writes the same bytes as standard output.
"$DCPLAN" sweep "${caps[@]}" --out="$TMP/out.csv" 2>/dev/null
if cmp -s "$TMP/out.csv" "$golden/caps.csv"; then pass "--out"; else fail "--out differs"; fi
finish sweep_golden_test

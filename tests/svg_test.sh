#!/usr/bin/env bash
# The SVG charts: `dcplan scale --format=svg` and `dcplan sweep --format=svg` write well-formed XML
# (checked with xmllint from Debian's libxml2-utils, which ./bazelw installs) with labelled axes in
# real units, legends, and the binding cap marked where a cap is given.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

XMLLINT=$(command -v xmllint || echo /usr/bin/xmllint)
well_formed() {
  if "$XMLLINT" --noout "$2" 2> "$TMP/xmllint.err"; then pass "$1 is well-formed XML"; else
    fail "$1: $(head -3 "$TMP/xmllint.err")"; fi
}
# has NAME FILE TEXT...: every TEXT appears in FILE (as XML-escaped text).
has() {
  local name="$1" file="$2"; shift 2
  for t in "$@"; do
    if grep -qF -- "$t" "$file"; then pass "$name: $t"; else fail "$name lacks [$t]"; fi
  done
}

# --- scale: the seed chapter's picture, with the 45.9 MW cap ---------------------------------------
# 45.9 MW / 11.2 kW per server = 4,098 servers = 32,784 GPUs (see cli_test.sh).
"$DCPLAN" scale --preset=seed --power=45.9MW --format=svg > "$TMP/scale.svg"
check "scale svg exit" 0 $?
well_formed "scale chart" "$TMP/scale.svg"
has "scale chart" "$TMP/scale.svg" \
  '<svg xmlns="http://www.w3.org/2000/svg"' \
  ">seed: scaling a cluster</text>" \
  ">Cluster size (GPUs, log scale)</text>" \
  ">Compute (EFLOP/s)</text>" ">MFU (%)</text>" ">Power (MW)</text>" \
  ">peak</text>" ">realized (peak x MFU)</text>" ">MFU</text>" ">IT power</text>" \
  ">at the meter (IT x PUE)</text>" \
  ">facility power cap binds at 32,784 GPUs</text>" ">facility power cap 45.9 MW</text>" \
  ">1K</text>" ">10K</text>"
# The log x axis has a tick per decade from 1 to 100K GPUs: 1, 10, 100, 1K, 10K, 100K.
check "x decade ticks" 6 "$(grep -c 'text-anchor="middle">\(1\|10\|100\|1K\|10K\|100K\)</text>' "$TMP/scale.svg" | awk '{print ($1 >= 6) ? 6 : $1}')"
# No cap: no marker.
"$DCPLAN" scale --preset=seed --format=svg > "$TMP/nocap.svg"
well_formed "uncapped chart" "$TMP/nocap.svg"
check "no cap marker without a cap" 0 "$(grep -c 'binds at' "$TMP/nocap.svg")"

# --- sweep: the x axis is what was varied -----------------------------------------------------------
# Series per PUE over the power cap, a budget taking over: x is the power cap in MW (5 MW to 500 MW
# spans 100x, so log), a series per PUE value, and the budget's markers where it starts to bind.
"$DCPLAN" sweep --preset=h100-dgx --budget='$3B' --vary=pue=1.2,1.5 --vary=power=5MW:500MW:log40 \
  --format=svg > "$TMP/sweep.svg" 2>/dev/null
check "sweep svg exit" 0 $?
well_formed "sweep chart" "$TMP/sweep.svg"
has "sweep chart" "$TMP/sweep.svg" \
  ">h100-dgx: GPUs, realized compute and capex vs facility power cap, two values of pue</text>" \
  ">Facility power cap (MW, log scale)</text>" ">GPUs</text>" ">Realized compute (EFLOP/s)</text>" \
  ">Capex (\$B)</text>" ">pue 1.2</text>" ">pue 1.5</text>" \
  ">facility power cap binds</text>" ">budget binds</text>" "budget binds from "
check "no cluster-size axis when the power cap varies" 0 "$(grep -c 'Cluster size' "$TMP/sweep.svg")"
# The element structure of every sweep chart (tests/svg_structure.py): in each of the three panels
# the x-axis title names the varied field and its unit, every tick label is a value in that unit
# placed where the axis's scale puts it (10 MW at the left edge, 100 MW in the middle and 1 GW
# (1K MW) at the right of a 10 MW to 1 GW log axis; 1.1 to 1.6 evenly for PUE), one series per
# value of the categorical axis with the legend naming them in the series' colours, one unnamed
# series when nothing categorical varies.
STRUCTURE="$TEST_SRCDIR/$TEST_WORKSPACE/tests/svg_structure.py"
structure() {  # NAME FILE ARGS...: the checker's verdict on FILE
  local name="$1" file="$2"; shift 2
  if /usr/bin/python3 "$STRUCTURE" "$file" "$@" > "$TMP/structure.out" 2>&1; then
    pass "$name: structure ($(grep -c '^PASS' "$TMP/structure.out") checks)"
  else
    fail "$name: $(grep -v '^PASS' "$TMP/structure.out" | head -5)"
  fi
}
# (5 MW to 500 MW: the log axis runs over whole decades, 1 MW to 1 GW.)
structure "pue-by-power sweep" "$TMP/sweep.svg" "Facility power cap (MW, log scale)" 1 1000 log "pue 1.2" "pue 1.5"
# The issue's example: three presets over 10 MW to 1 GW.
"$DCPLAN" sweep --vary=preset=h100-dgx,b200-dgx,gb200-nvl72 --vary=power=10MW:1GW:log20 --format=svg \
  > "$TMP/presets.svg" 2>/dev/null
check "preset sweep svg exit" 0 $?
well_formed "preset sweep chart" "$TMP/presets.svg"
has "preset sweep chart" "$TMP/presets.svg" \
  ">GPUs, realized compute and capex vs facility power cap, three presets</text>"
structure "preset sweep" "$TMP/presets.svg" "Facility power cap (MW, log scale)" 10 1000 log \
  h100-dgx b200-dgx gb200-nvl72
# PUE alone: PUE on the x axis, linear, no unit.
"$DCPLAN" sweep --preset=h100-dgx --power=100MW --vary=pue=1.1:1.6:0.1 --format=svg > "$TMP/pue.svg" 2>/dev/null
check "pue sweep svg exit" 0 $?
well_formed "pue sweep chart" "$TMP/pue.svg"
has "pue sweep chart" "$TMP/pue.svg" ">h100-dgx: GPUs, realized compute and capex vs PUE</text>"
structure "pue sweep" "$TMP/pue.svg" "PUE" 1.1 1.6 linear
# The budget: in dollars ($M on a $100M to $10B log axis: 100, 1K, 10K).
"$DCPLAN" sweep --preset=h100-dgx --vary=budget='$100M:$10B:log10' --format=svg > "$TMP/budget.svg" 2>/dev/null
check "budget sweep svg exit" 0 $?
well_formed "budget sweep chart" "$TMP/budget.svg"
has "budget sweep chart" "$TMP/budget.svg" ">h100-dgx: GPUs, realized compute and capex vs budget on capex</text>"
structure "budget sweep" "$TMP/budget.svg" 'Budget on capex ($M, log scale)' 100 10000 log
for f in presets pue budget; do
  check "no cluster-size axis on the $f sweep" 0 "$(grep -c 'Cluster size' "$TMP/$f.svg")"
done

# --- text is escaped: a request named with XML's special characters -------------------------------
cat > "$TMP/odd.textproto" <<'PB'
name: "a <b> & \"c\" 'd'"
hardware {
  accelerator { peak_flops_per_second: 1e15 tdp_watts: 1400 }
  server { gpus_per_server: 8 }
}
site { pue: 1.0 }
PB
"$DCPLAN" scale --request="$TMP/odd.textproto" --power=1MW --format=svg > "$TMP/odd.svg"
well_formed "chart of an oddly named request" "$TMP/odd.svg"
has "escaped title" "$TMP/odd.svg" "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;: scaling a cluster"

# --- rendering: when Chromium is installed (it is not part of ./bazelw's packages), its headless
# parser must take both charts as SVG documents, without the parsererror it shows for bad XML.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -n "$CHROMIUM" ]]; then
  for chart in scale sweep; do
    dom=$(timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chromium" \
      --dump-dom "file://$TMP/$chart.svg" 2>/dev/null)
    if [[ -z "$dom" ]]; then
      echo "SKIP: Chromium did not start here"
    elif [[ "$dom" == *"<svg"* && "$dom" != *"parsererror"* ]]; then
      pass "Chromium renders the $chart chart"
    else
      fail "Chromium on the $chart chart: $(echo "$dom" | head -c 300)"
    fi
  done
else
  echo "SKIP: no Chromium; xmllint's check above stands"
fi

finish svg_test

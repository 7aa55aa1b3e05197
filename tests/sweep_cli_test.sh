#!/usr/bin/env bash
# End-to-end tests of `dcplan sweep`: the same CSV (and JSON lines) on 1 and 2 threads for 12,500
# points, the header, rows worked out by hand from the seed formula and equal to `dcplan fit`,
# invalid values as error rows, --out, the rate line on stderr, one-line errors for bad flags, and
# 300,000 points over more clusters than the CLI keeps the text of, against `dcplan fit`.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

# --- 12,500 points: identical output whatever the thread count --------------------------------------
# 5 PUEs x 2,500 log-spaced caps from 1 MW to 1 GW, h100-dgx with a budget so that two caps take turns.
grid=(--preset=h100-dgx --budget='$3B' --vary=pue=1.1:1.5:0.1 --vary=power=1MW:1000MW:log2500)
"$DCPLAN" sweep "${grid[@]}" --threads=1 > "$TMP/t1.csv" 2> "$TMP/t1.err"
check "sweep exit (1 thread)" 0 $?
"$DCPLAN" sweep "${grid[@]}" --threads=2 > "$TMP/t2.csv" 2> "$TMP/t2.err"
check "sweep exit (2 threads)" 0 $?
check "12,500 rows and a header" 12501 "$(wc -l < "$TMP/t1.csv")"
if cmp -s "$TMP/t1.csv" "$TMP/t2.csv"; then pass "same CSV on 1 and 2 threads"; else
  fail "CSV differs between 1 and 2 threads: $(diff "$TMP/t1.csv" "$TMP/t2.csv" | head -3)"; fi
"$DCPLAN" sweep "${grid[@]}" --threads=2 --format=jsonl > "$TMP/t2.jsonl" 2>/dev/null
"$DCPLAN" sweep "${grid[@]}" --threads=1 --format=jsonl > "$TMP/t1.jsonl" 2>/dev/null
if cmp -s "$TMP/t1.jsonl" "$TMP/t2.jsonl"; then pass "same JSON lines on 1 and 2 threads"; else
  fail "JSON lines differ between 1 and 2 threads"; fi
check "12,500 JSON lines" 12500 "$(wc -l < "$TMP/t1.jsonl")"
# Both caps bind somewhere in the grid (the budget at high power), and rows are in grid order: the
# PUE column steps 1.1 -> 1.5 once, each held for 2,500 rows.
check "budget binds in some rows" yes \
  "$(grep -q BINDING_CONSTRAINT_BUDGET "$TMP/t1.csv" && echo yes)"
check "facility power binds in some rows" yes \
  "$(grep -q BINDING_CONSTRAINT_FACILITY_POWER "$TMP/t1.csv" && echo yes)"
check "grid order" "2500 1.1
2500 1.2
2500 1.3
2500 1.4
2500 1.5" "$(tail -n +2 "$TMP/t1.csv" | cut -d, -f1 | uniq -c | awk '{print $1, $2}')"
# The rate line, on stderr only; no progress bar when stderr is not a terminal.
check "one line on stderr" 1 "$(wc -l < "$TMP/t2.err")"
grep -q "dcplan sweep: 12,500 points in .* on 2 threads: .*M points/s solved" "$TMP/t2.err" &&
  pass "rate line" || fail "rate line: $(cat "$TMP/t2.err")"

# --- many clusters: the CLI's kept texts start again, and every row is still its own --------------
# Two PUEs, each over 150,000 log-spaced caps from 1 MW to 8 GW: ~117,000 cluster sizes, whose kept
# texts (about 120 bytes each, ~14 MB: examples/cli/sweep.cc's ClusterTexts) fill one thread's 8 MB
# arena during the first PUE and make it start again; the second PUE meets the first one's
# clusters again (their counts, IT power, compute and capex do not depend on the PUE), whose texts
# are then gone. Two threads share the rows and fill no arena: the same bytes. Rows all along read
# the same as `dcplan fit` at their PUE and cap, which formats each plan from scratch.
many=(--preset=h100-dgx --mfu_model=log_linear --vary=pue=1.2,1.3 --vary=power=1MW:8000MW:log150000)
"$DCPLAN" sweep "${many[@]}" --threads=1 > "$TMP/many1.csv" 2>/dev/null
check "many clusters: exit" 0 $?
check "many clusters: over 100,000 sizes" yes \
  "$(tail -n +2 "$TMP/many1.csv" | cut -d, -f4 | sort -u | wc -l | awk '{print ($1 > 100000) ? "yes" : $1}')"
"$DCPLAN" sweep "${many[@]}" --threads=2 > "$TMP/many2.csv" 2>/dev/null
if cmp -s "$TMP/many1.csv" "$TMP/many2.csv"; then pass "many clusters: same on 1 and 2 threads"
else fail "many clusters: 1 and 2 threads differ: $(diff "$TMP/many1.csv" "$TMP/many2.csv" | head -3)"; fi
for n in 2 100001 150001 150002 200001 250001 280001 290001 299001 300001; do
  row=$(sed -n "${n}p" "$TMP/many1.csv")
  pue=${row%%,*}
  cap=$(echo "$row" | cut -d, -f2)
  want=$("$DCPLAN" fit --preset=h100-dgx --mfu_model=log_linear --pue="$pue" \
    --set=constraints.power_cap_watts="$cap" --format=csv 2>/dev/null | tail -1)
  check "many clusters: row $n equals fit at PUE $pue, $cap W" "$pue,$cap,$want," "$row"
done

# --- the header and rows by hand -------------------------------------------------------------------
# Seed servers: 8 GPUs x 1.4 kW = 11.2 kW at PUE 1.0, so floor(P / 11.2 kW) servers:
#   10 MW -> 892.86 -> 892 servers = 7,136 GPUs, 9,990,400 W; 45.9 MW -> 4,098 -> 32,784 GPUs;
#   46 MW -> 4,107 -> 32,856 GPUs. Peak = GPUs x 1e15 FLOP/s.
"$DCPLAN" sweep --preset=seed --vary=power=10MW,45.9MW,46MW > "$TMP/seed.csv" 2>/dev/null
check "header" "constraints.power_cap_watts,gpu_count,server_count,rack_count,pod_count,building_count,it_power_watts,facility_power_watts,peak_flops_per_second,mfu,realized_flops_per_second,capex_usd,opex_usd_per_year,tco_usd,binding_constraint,error" \
  "$(head -1 "$TMP/seed.csv")"
check "10 MW row" "1e+07,7136,892,9990400,7.136e+18,BINDING_CONSTRAINT_FACILITY_POWER" \
  "$(sed -n 2p "$TMP/seed.csv" | cut -d, -f1,2,3,8,9,15)"
check "45.9 MW gpus" 32784 "$(sed -n 3p "$TMP/seed.csv" | cut -d, -f2)"
check "46 MW gpus" 32856 "$(sed -n 4p "$TMP/seed.csv" | cut -d, -f2)"
# ... and each equals `dcplan fit` at the same cap.
for p in 10MW 45.9MW 46MW; do
  "$DCPLAN" fit --preset=seed --power=$p --format=json > "$TMP/fit.json"
  fit=$(json_get "$TMP/fit.json" "p['counts']['gpu_count']")
  row=$(grep -c "^[^,]*,$fit," "$TMP/seed.csv")
  check "sweep row equals fit at $p ($fit GPUs)" 1 "$row"
done
# MFU at 32,784 GPUs: 0.62 - 0.02 log2(32,784) = 0.62 - 0.02 x 15.000704 = 0.319986
check "mfu at 45.9 MW" 0.31998 "$(sed -n 3p "$TMP/seed.csv" | cut -d, -f10 | cut -c1-7)"

# A log axis: 10 MW x 50^(k/19), to 6 significant digits: 10 MW, 12.2863 MW, 15.0952 MW, ...
"$DCPLAN" sweep --preset=seed --vary=power=10MW:500MW:log20 > "$TMP/log.csv" 2>/dev/null
check "log axis" "1e+07 12286300 15095200" "$(sed -n 2,4p "$TMP/log.csv" | cut -d, -f1 | tr '\n' ' ' | sed 's/ $//')"
check "log axis ends at 500 MW" 5e+08 "$(tail -1 "$TMP/log.csv" | cut -d, -f1)"

# Two axes: the first outermost. JSON lines name the axes by field path.
"$DCPLAN" sweep --preset=seed --vary=pue=1.0,1.4 --vary=power=14MW,28MW --format=jsonl > "$TMP/two.jsonl" 2>/dev/null
# 14 MW at PUE 1.4: 14e6 / (11.2 kW x 1.4) = 892.86 -> 892 servers = 7,136 GPUs; at PUE 1.0: 1,250.
check "two axes, grid order" "1 14000000 10000
1 28000000 20000
1.4 14000000 7136
1.4 28000000 14280" "$(python3 -c "
import json
for line in open('$TMP/two.jsonl'):
    p = json.loads(line)
    print('%g %d %d' % (p['site.pue'], p['constraints.power_cap_watts'], p['gpu_count']))")"

# --- invalid values fail their own rows --------------------------------------------------------------
"$DCPLAN" sweep --preset=seed --power=45.9MW --vary=pue=0.9,1.0 > "$TMP/bad.csv" 2>/dev/null
check "invalid value exit" 0 $?
check "invalid value row" '0.9,0,0,0,0,0,0,0,0,0,0,0,0,0,,"site.pue must be >= 1.0, got 0.9"' \
  "$(sed -n 2p "$TMP/bad.csv")"
check "valid value row" 32784 "$(sed -n 3p "$TMP/bad.csv" | cut -d, -f2)"

# --- presets as an axis, with the cap flags applied to each -----------------------------------------
"$DCPLAN" sweep --vary=preset=seed,h100-dgx --power=45.9MW > "$TMP/presets.csv" 2>/dev/null
"$DCPLAN" fit --preset=h100-dgx --power=45.9MW --format=json > "$TMP/h100.json"
check "preset axis" "seed 32784
h100-dgx $(json_get "$TMP/h100.json" "p['counts']['gpu_count']")" \
  "$(tail -n +2 "$TMP/presets.csv" | cut -d, -f1,2 | tr ',' ' ')"

# --- --out ----------------------------------------------------------------------------------------------
"$DCPLAN" sweep --preset=seed --vary=power=10MW,45.9MW,46MW --out="$TMP/out.csv" 2>/dev/null
check "--out exit" 0 $?
if cmp -s "$TMP/out.csv" "$TMP/seed.csv"; then pass "--out equals stdout"; else fail "--out differs"; fi
check "--out leaves no temporary file" 0 "$(ls "$TMP" | grep -c 'out.csv.tmp')"

# --- errors: one line, non-zero exit ----------------------------------------------------------------
expect_error "no axis" "needs at least one --vary" sweep --preset=seed --power=10MW
expect_error "bad unit" 'expected a power such as 50MW, got "10MWh"' sweep --vary=power=10MWh
expect_error "unknown field" 'no field "site.puee"' sweep --vary=site.puee=1.2
expect_error "reversed range" "needs a <= b" sweep --vary=power=50MW:10MW:1MW
expect_error "unknown preset" 'unknown preset "h900"' sweep --vary=preset=seed,h900 --power=1MW
expect_error "bad threads" "--threads must be in [0, 1024]" sweep --vary=power=1MW --threads=-1
expect_error "bad format" "--format must be one of" sweep --vary=power=1MW --format=xml
expect_error "too many curves" "at most 10 series" sweep --preset=seed --format=svg \
  --vary=pue=1:2:0.05 --vary=power=1MW,2MW

# --- --format=svg: the x axis is the varied field, with its name and unit ---------------------------
# text_of FILE: every <text> element's content, one a line.
text_of() { grep -o '<text[^>]*>[^<]*</text>' "$1" | sed 's/<[^>]*>//g'; }
# x_ticks FILE: the tick labels under the first panel's x axis (the small centred texts, up to the
# first label that repeats: the next panel's).
x_ticks() { grep -o '<text[^>]*font-size="11" text-anchor="middle"[^>]*>[^<]*</text>' "$1" |
  sed 's/<[^>]*>//g' | awk 'seen[$0]++ { exit } { print }'; }
# Three presets over the power cap: 10 MW to 1 GW is 100x, so a log axis in MW with a tick per
# decade, 10, 100 and 1K (MW); one series per preset, each named once per panel's legend.
"$DCPLAN" sweep --vary=preset=h100-dgx,b200-dgx,gb200-nvl72 --vary=power=10MW:1GW:log20 \
  --format=svg > "$TMP/presets.svg" 2>/dev/null
check "preset x power svg exit" 0 $?
text_of "$TMP/presets.svg" > "$TMP/presets.txt"
check "title says what was varied" 1 "$(grep -cx 'GPUs, realized compute and capex vs facility power cap, three presets' "$TMP/presets.txt")"
check "x axis title names the field and unit (one per panel)" 3 "$(grep -cx 'Facility power cap (MW, log scale)' "$TMP/presets.txt")"
check "x ticks in MW" "10 100 1K" "$(x_ticks "$TMP/presets.svg" | tr '\n' ' ' | sed 's/ $//')"
for p in h100-dgx b200-dgx gb200-nvl72; do
  check "a series per preset: $p in each panel's legend" 3 "$(grep -cx "$p" "$TMP/presets.txt")"
done
# Each series is one line per panel, in its own colour: 3 presets x 3 panels.
for color in '#1f77b4' '#ff7f0e' '#2ca02c'; do
  check "three curves in $color" 3 "$(grep -c "<path d=\"M[^\"]* L[^\"]*\" fill=\"none\" stroke=\"$color\"" "$TMP/presets.svg")"
done
check "no cluster-size axis" 0 "$(grep -c 'Cluster size' "$TMP/presets.txt")"
# PUE 1.1 to 1.6 is 1.45x: a linear axis titled PUE (no unit) with ticks 1.1 ... 1.6.
"$DCPLAN" sweep --preset=h100-dgx --power=100MW --vary=pue=1.1:1.6:0.05 --format=svg \
  > "$TMP/pue.svg" 2>/dev/null
text_of "$TMP/pue.svg" > "$TMP/pue.txt"
check "PUE sweep title" 1 "$(grep -cx 'h100-dgx: GPUs, realized compute and capex vs PUE' "$TMP/pue.txt")"
check "PUE x axis title" 3 "$(grep -cx 'PUE' "$TMP/pue.txt")"
check "PUE ticks" "1.1 1.2 1.3 1.4 1.5 1.6" "$(x_ticks "$TMP/pue.svg" | tr '\n' ' ' | sed 's/ $//')"
# A budget from $100M to $10B (100x): log, in $M from the smallest value, ticks 100, 1K, 10K ($M).
"$DCPLAN" sweep --preset=h100-dgx --vary='budget=$100M:$10B:log15' --format=svg \
  > "$TMP/budget.svg" 2>/dev/null
text_of "$TMP/budget.svg" > "$TMP/budget.txt"
check "budget x axis title" 3 "$(grep -cx 'Budget on capex (\$M, log scale)' "$TMP/budget.txt")"
check "budget ticks in \$M" "100 1K 10K" "$(x_ticks "$TMP/budget.svg" | tr '\n' ' ' | sed 's/ $//')"
# The cluster size on the x axis only when it is what varies (the seed has no prices: two panels).
"$DCPLAN" sweep --preset=seed --vary=gpus=1:1M:log13 --format=svg > "$TMP/gpus.svg" 2>/dev/null
check "GPU cap x axis" 2 "$(text_of "$TMP/gpus.svg" | grep -cx 'Cluster size (GPUs, log scale)')"
expect_error "preset only" "this sweep varies only the preset: compare presets with" sweep \
  --power=10MW --format=svg --vary=preset=h100-dgx,b200-dgx

finish sweep_cli_test

#!/usr/bin/env bash
# End-to-end tests of the dcplan CLI: the seed's table, fit's exact answers, JSON field names, every
# command's --help, file conversion, and one-line errors with a non-zero exit for bad input.
# Expected numbers are worked out by hand from the seed formula in the comments.
set -uo pipefail

source "$(dirname "$0")/cli_testlib.sh"

# --- scale reproduces the seed's five rows --------------------------------------------------------
# peak = G x 1 PFLOP/s; MFU = 0.62 - 0.02 log2 G; realized = peak x MFU; power = G x 1.4 kW.
"$DCPLAN" scale --preset=seed --gpus=1,8,512,8192,32768 > "$TMP/scale.txt"
check "scale exit" 0 $?
expected_rows='1 0.00 62.0% 0.00 0.0 0.0
8 0.01 56.0% 0.00 0.0 0.0
512 0.51 44.0% 0.23 0.7 0.7
8,192 8.19 36.0% 2.95 11.5 11.5
32,768 32.77 32.0% 10.49 45.9 45.9'
check "seed scale rows" "$expected_rows" "$(tail -n +2 "$TMP/scale.txt" | awk '{$1=$1; print}')"

# --- fit: 45.9 MW / 11.2 kW per 8-GPU server = 4,098.2 -> 32,784 GPUs; 46 MW -> 4,107 -> 32,856 ---------
"$DCPLAN" fit --preset=seed --power=45.9MW --format=json > "$TMP/fit.json"
check "fit exit" 0 $?
check "fit 45.9MW gpus" 32784 "$(json_get "$TMP/fit.json" "p['counts']['gpu_count']")"
check "fit 45.9MW servers" 4098 "$(json_get "$TMP/fit.json" "p['counts']['server_count']")"
check "fit binding" BINDING_CONSTRAINT_FACILITY_POWER "$(json_get "$TMP/fit.json" "p['binding_constraint']")"
"$DCPLAN" fit --preset=seed --power=46MW --format=json > "$TMP/fit46.json"
check "fit 46MW gpus" 32856 "$(json_get "$TMP/fit46.json" "p['counts']['gpu_count']")"

# Every field name the JSON must carry.
for field in gpu_count server_count rack_count pod_count building_count it_power_watts \
    facility_power_watts peak_flops_per_second mfu realized_flops_per_second binding_constraint \
    capex_usd opex_usd_per_year tco_usd energy_mwh_per_year usd_per_gpu_hour; do
  if grep -q "\"$field\"" "$TMP/fit.json"; then pass "json has $field"; else fail "json lacks $field"; fi
done

# The table form is for people: it names the binding cap.
"$DCPLAN" fit --preset=seed --power=45.9MW > "$TMP/fit.txt"
grep -q "GPUs          32,784" "$TMP/fit.txt" && pass "table shows GPUs" || fail "table GPUs: $(cat "$TMP/fit.txt")"
grep -q "binding         facility power cap" "$TMP/fit.txt" && pass "table binding" || fail "table binding"

# --- h100-dgx: a DGX H100-class server at 10.2 kW (8 x 700 W + 4,600 W overhead) --------------------
"$DCPLAN" fit --power=50MW --format=json > "$TMP/h100.json"
check "h100 server power" 10200 "$(json_get "$TMP/h100.json" "int(p['power']['server_power_watts'])")"
check "h100 whole servers" 0 "$(json_get "$TMP/h100.json" "int(p['counts']['gpu_count']) % 8")"
check "h100 fits under cap" True "$(json_get "$TMP/h100.json" "p['power']['facility_power_watts'] <= 50e6")"

# --- power_at=it and pue override ---------------------------------------------------------------
# IT cap 10 MW with seed servers (11.2 kW) at PUE 1.5: 892 servers by IT power (10e6/11,200 = 892.9).
"$DCPLAN" fit --preset=seed --power=10MW --power_at=it --pue=1.5 --format=json > "$TMP/it.json"
check "it cap servers" 892 "$(json_get "$TMP/it.json" "p['counts']['server_count']")"
check "it cap binding" BINDING_CONSTRAINT_IT_POWER "$(json_get "$TMP/it.json" "p['binding_constraint']")"
# max_gpus 1,001 -> 125 servers of 8 = 1,000 GPUs.
"$DCPLAN" fit --preset=seed --power=100MW --max_gpus=1001 --format=json > "$TMP/max.json"
check "max_gpus" 1000 "$(json_get "$TMP/max.json" "p['counts']['gpu_count']")"

# --- a cap smaller than one server is a plan with zero GPUs and a note, not an error ---------------
"$DCPLAN" fit --preset=seed --power=5kW --format=json > "$TMP/zero.json"
check "zero-gpu exit" 0 $?
check "zero gpus" 0 "$(json_get "$TMP/zero.json" "p['counts']['gpu_count']")"
check "zero note" True "$(json_get "$TMP/zero.json" "'no GPUs fit' in p['notes'][0]")"

# --- bad input: a one-line error naming the problem, exit 1 ---------------------------------------
expect_error "negative power" "--power must be >= 0, got -5e+06" fit --power=-5MW
expect_error "pue below 1" "--pue must be >= 1.0, got 0.9" fit --pue=0.9 --power=50MW
expect_error "unknown preset" 'unknown preset "h900"' fit --preset=h900
# An NVL72 rack is liquid-cooled (hardware.server.required_cooling): air is refused, naming both.
expect_error "gb200 on air" '--cooling is COOLING_AIR but hardware.server.required_cooling is COOLING_DIRECT_LIQUID ("GB200 NVL72 (one rack, one NVLink domain)" needs it): set --cooling to COOLING_DIRECT_LIQUID' fit --preset=gb200-nvl72 --cooling=air --power=50MW
expect_error "wrong dimension" 'expected a power such as 50MW, got "50MWh"' fit --power=50MWh
expect_error "bad format" "--format must be one of" fit --format=xml --power=1MW
expect_error "no cap" "no cap to solve under" fit --preset=seed
expect_error "bad gpus list" "--gpus" scale --gpus=1,0
expect_error "unknown command" 'unknown command "fly"' fly

printf 'hardware { accelerator { peak_flops_per_second: 1e15 tdp_watts: 700 } server { gpus_per_server: 0 } }\n' > "$TMP/zero_gpus.textproto"
expect_error "zero gpus per server" "hardware.server.gpus_per_server must be >= 1, got 0" \
  validate --request="$TMP/zero_gpus.textproto"
printf 'hardware { accelerator { peak_flops_per_second: 1e15 \n' > "$TMP/malformed.textproto"
expect_error "malformed request" "malformed.textproto" fit --request="$TMP/malformed.textproto"
expect_error "missing file" "does not exist" fit --request="$TMP/nope.textproto"

# --- validate and convert round trip; convert never overwrites its input ----------------------------
PRESET="$TEST_SRCDIR/$TEST_WORKSPACE/planner/presets/seed.textproto"
"$DCPLAN" validate --request="$PRESET" > "$TMP/validate.txt"
check "validate preset exit" 0 $?
cp "$PRESET" "$TMP/seed.textproto"
"$DCPLAN" convert --in="$TMP/seed.textproto" --out="$TMP/seed.json"
check "convert to json" 0 $?
"$DCPLAN" convert --in="$TMP/seed.json" --out="$TMP/seed.pb"
check "convert to binary" 0 $?
"$DCPLAN" fit --request="$TMP/seed.pb" --power=45.9MW --format=json > "$TMP/frompb.json"
check "binary request solves the same" 32784 "$(json_get "$TMP/frompb.json" "p['counts']['gpu_count']")"
before=$(sha256sum "$TMP/seed.json")
expect_error "refuses to overwrite input" "refusing to overwrite" convert --in="$TMP/seed.json" --out="$TMP/seed.json"
check "input unchanged" "$before" "$(sha256sum "$TMP/seed.json")"
expect_error "fit refuses to overwrite its request" "refusing to overwrite" \
  fit --request="$TMP/seed.json" --power=1MW --format=json --out="$TMP/seed.json"
check "request unchanged" "$before" "$(sha256sum "$TMP/seed.json")"

# --- --help on every command ---------------------------------------------------------------------
for cmd in fit scale compare validate convert presets; do
  out=$("$DCPLAN" "$cmd" --help); rc=$?
  if [[ $rc -eq 0 && "$out" == "dcplan $cmd"* ]]; then pass "$cmd --help"; else fail "$cmd --help: $out"; fi
done
"$DCPLAN" --help | grep -q "commands:" && pass "top-level help" || fail "top-level help"

# --- cooling, the two PUEs and provisioning ------------------------------------------------------
# --cooling=liquid replaces the seed's PUE 1.0 with the liquid defaults (design day 1.2, annual
# 1.14): 45.9 MW / (11.2 kW x 1.2) = 3,415.2 servers -> 27,320 GPUs; air (1.55): 45.9 MW /
# 17.36 kW = 2,644.0 (2,644 servers draw 45.89984 MW) -> 21,152.
"$DCPLAN" fit --preset=seed --power=45.9MW --cooling=liquid --format=json > "$TMP/liquid.json"
check "liquid cooling gpus" 27320 "$(json_get "$TMP/liquid.json" "p['counts']['gpu_count']")"
check "liquid design-day pue" 1.2 "$(json_get "$TMP/liquid.json" "p['power']['pue']")"
check "liquid annual pue" 1.14 "$(json_get "$TMP/liquid.json" "p['power']['annual_pue']")"
check "liquid cooling named" COOLING_DIRECT_LIQUID "$(json_get "$TMP/liquid.json" "p['power']['cooling']")"
"$DCPLAN" fit --preset=seed --power=45.9MW --cooling=air --format=json > "$TMP/air.json"
check "air cooling gpus" 21152 "$(json_get "$TMP/air.json" "p['counts']['gpu_count']")"
# The table names both PUEs when they differ.
"$DCPLAN" fit --preset=seed --power=45.9MW --cooling=air > "$TMP/air.txt"
grep -q "(PUE 1.55 on the design day, 1.44 annual)" "$TMP/air.txt" && pass "table shows both PUEs" ||
  fail "table PUEs: $(grep facility "$TMP/air.txt")"
expect_error "annual PUE above the design day" \
  "--annual_pue must be <= pue, the design-day peak (1), got 1.7" \
  fit --preset=seed --power=45.9MW --annual_pue=1.7
expect_error "unknown cooling" "--cooling must be one of air, direct_liquid; got \"water\"" fit --preset=seed --cooling=water
# h100-dgx provisioned for its measured draw x 1.08: 8 x 532 x 1.08 + 3,496 x 1.08 = 8,372.16 W a
# server (against 10,200 at the nameplate).
"$DCPLAN" fit --preset=h100-dgx --power=50MW --provisioning=measured --format=json > "$TMP/measured.json"
check "measured provisioning server power" 8372.16 \
  "$(json_get "$TMP/measured.json" "round(p['power']['server_power_watts'], 2)")"
check "measured provisioning named" PROVISIONING_BASIS_MEASURED \
  "$(json_get "$TMP/measured.json" "p['power']['provisioning_basis']")"
expect_error "a margin without measured provisioning" \
  "--provisioning_margin has no effect: power is provisioned for the nameplate" \
  fit --preset=h100-dgx --power=50MW --provisioning_margin=0.1

# --- Assumptions a planner can see and own -------------------------------------------------------
# h100-dgx at 100 MW: the table names cooling, both PUEs and provisioning, none of them the user's.
"$DCPLAN" fit --preset=h100-dgx --power=100MW > "$TMP/ledger.txt"
for path in site.cooling site.pue site.annual_pue site.provisioning.basis; do
  line=$(grep -E "^  $path " "$TMP/ledger.txt")
  if [[ -n "$line" && "$line" != *user-set* ]]; then pass "ledger names $path"; else fail "ledger $path: [$line]"; fi
done
"$DCPLAN" fit --preset=h100-dgx --power=100MW --set=site.pue=1.2 > "$TMP/ledger2.txt"
check "after --set the PUE is the user's" 1 "$(grep -cE '^  site.pue +1.2 +user-set' "$TMP/ledger2.txt")"
# Every figure the plan rests on has a source.
"$DCPLAN" fit --preset=h100-dgx --power=100MW --format=json > "$TMP/ledger.json"
check "every assumption has a source" 0 \
  "$(json_get "$TMP/ledger.json" "sum(1 for a in p['assumptions'] if not a.get('source'))")"
check "preset figures cite SOURCES.md" True \
  "$(json_get "$TMP/ledger.json" "all('SOURCES.md#' in a['source'] for a in p['assumptions'] if a.get('origin') in ('ORIGIN_PRESET','ORIGIN_ESTIMATE'))")"
# compare says which site assumptions differ.
"$DCPLAN" compare --presets=h100-dgx,gb200-nvl72 --power=100MW > "$TMP/compare.txt"
check "compare shows differing cooling" 1 "$(grep -cE '^  site.cooling +(direct_liquid|air) +(direct_liquid|air)' "$TMP/compare.txt")"
"$DCPLAN" compare --presets=h100-dgx,b200-dgx --power=100MW --cooling=liquid > "$TMP/compare2.txt"
check "compare --cooling sets it for all" 0 "$(grep -c 'site.cooling' "$TMP/compare2.txt")"
# --set, the new aliases and errors in the user's words.
"$DCPLAN" fit --preset=h100-dgx --power=50MW --gpu_price='$35K' --wacc=10% --facility_cost='$12/W' \
  --it_life=6 --format=json > "$TMP/aliases.json"
# In path order: facility cost, IT life, WACC, GPU price.
check "aliases reach their fields" "12 6 0.1 35000" "$(json_get "$TMP/aliases.json" "' '.join('%g' % a['value'] for a in sorted(p['assumptions'], key=lambda a: a['path']) if a['path'] in ('hardware.accelerator.price_usd','costs.wacc','costs.facility_usd_per_it_watt','costs.it_life_years'))")"
# Every --set applies, not only the last (abseil's list flag kept the last occurrence alone), and a
# list value keeps its commas.
"$DCPLAN" fit --preset=h100-dgx --power=50MW --set=site.pue=1.3 --set=costs.wacc=0.1 \
  --set='hardware.network.upper_tier_oversubscription=[7, 3]' --format=json > "$TMP/sets.json"
check "two --sets both apply" "0.1 1.3" "$(json_get "$TMP/sets.json" "' '.join('%g' % a['value'] for a in sorted(p['assumptions'], key=lambda a: a['path']) if a['path'] in ('site.pue','costs.wacc'))")"
# --gpu_power_limit: a limit in watts, or auto with the compute objective (the plan names the limit).
"$DCPLAN" fit --preset=gb200-nvl72 --power=100MW --gpu_power_limit=960W --format=json > "$TMP/limit.json"
check "--gpu_power_limit=960W" "960 0.97" "$(json_get "$TMP/limit.json" "'%g %g' % (p['compute']['gpu_power_limit_watts'], p['compute']['power_throughput_fraction'])")"
"$DCPLAN" fit --preset=gb200-nvl72 --power=100MW --gpu_power_limit=auto --objective=compute > "$TMP/auto.txt"
check "--gpu_power_limit=auto names the limit it chose" 1 "$(grep -c '^note: hardware.accelerator.power_limit_auto chose a GPU power limit of' "$TMP/auto.txt")"
expect_error "--set error names the path" "--set=site.pue must be >= 1.0, got 0.9" fit --power=50MW --set=site.pue=0.9
expect_error "an unknown path suggests the nearest" 'did you mean site.pue?' fit --power=50MW --set=site.peu=1.2
expect_error "a flag of another command" "fit does not use --gpus" fit --power=50MW --gpus=8
expect_error "train takes no site flags" "train does not use --pue" train --gpus=8 --model=llama3-8b --pue=1.2
expect_error "no cap names the flags" "(flags: --power=50MW, --budget='\$2B', --max_gpus=N)" fit --preset=seed
# The 150 MW H100 plan names the network tier that stops it, and its cost.
"$DCPLAN" fit --preset=h100-dgx --power=150MW > "$TMP/tier.txt"
check "the next step is a 4th network tier" 1 "$(grep -c '^note: what stops the next server is the step it needs: one more server needs a 4th network tier: +4.3 MW' "$TMP/tier.txt")"

finish cli_test

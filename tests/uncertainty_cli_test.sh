#!/usr/bin/env bash
# End-to-end tests of plans with error bars: --uncertain on fit, dcplan sensitivity (table, JSON,
# SVG), --samples_out, reproducibility across thread counts, and bad input. Numbers worked out by
# hand in comments.
set -uo pipefail

source "$(dirname "$0")/cli_testlib.sh"

# Seed (1.4 kW all-in per GPU, 8 per server, PUE 1) at 14 MW with PUE uniform(1.0, 2.0):
# GPUs = 8 x floor(14 MW / (1.4 kW x PUE x 8)): P50 (PUE 1.5) 6,664; P10 of GPUs (PUE 1.9) 5,256;
# P90 (PUE 1.1) 9,088; each within 1% with 100,000 samples.
SEED=(--preset=seed --power=14MW --uncertain='pue=uniform(1.0, 2.0)')
"$DCPLAN" fit "${SEED[@]}" --samples=100000 --format=json --threads=2 > "$TMP/seed.json"
check "fit exit" 0 $?
check "plan at the median" 6664 "$(json_get "$TMP/seed.json" "p['counts']['gpu_count']")"
check "p50 within 1%" True "$(json_get "$TMP/seed.json" "abs(p['distribution']['gpu_count']['p50'] - 6664) <= 66.64")"
check "p10 within 1%" True "$(json_get "$TMP/seed.json" "abs(p['distribution']['gpu_count']['p10'] - 5256) <= 52.56")"
check "p90 within 1%" True "$(json_get "$TMP/seed.json" "abs(p['distribution']['gpu_count']['p90'] - 9088) <= 90.88")"
check "binding share" "BINDING_CONSTRAINT_FACILITY_POWER 1.0" "$(json_get "$TMP/seed.json" "p['distribution']['binding'][0]['binding_constraint'] + ' ' + str(float(p['distribution']['binding'][0]['fraction']))")"

# The same on one thread and on three; another seed differs.
"$DCPLAN" fit "${SEED[@]}" --samples=5000 --threads=1 --format=json > "$TMP/t1.json"
"$DCPLAN" fit "${SEED[@]}" --samples=5000 --threads=3 --format=json > "$TMP/t3.json"
"$DCPLAN" fit "${SEED[@]}" --samples=5000 --seed=2 --format=json > "$TMP/s2.json"
check "same on any thread count" "$(json_get "$TMP/t1.json" "p['distribution']")" "$(json_get "$TMP/t3.json" "p['distribution']")"
check "another seed differs" True "$(python3 -c "import json; print(json.load(open('$TMP/t1.json'))['distribution']['gpu_count']['mean'] != json.load(open('$TMP/s2.json'))['distribution']['gpu_count']['mean'])")"

# The table prints P10 / P50 / P90 beside each figure.
"$DCPLAN" fit "${SEED[@]}" --samples=1000 > "$TMP/seed.txt"
check "table percentiles" 1 "$(grep -c 'P10 / P50 / P90' "$TMP/seed.txt")"

# --samples_out: a header and one row per sample, inputs first.
"$DCPLAN" fit "${SEED[@]}" --samples=100 --samples_out="$TMP/samples.csv" > /dev/null
check "samples csv rows" 101 "$(wc -l < "$TMP/samples.csv")"
check "samples csv header" "sample,site.pue,mfu_error_factor,ok,binding_constraint,gpu_count" "$(head -1 "$TMP/samples.csv" | cut -d, -f1-6)"

# Sensitivity under a power cap (h100-dgx): PUE first, the server price swings nothing on GPUs.
H100=(--preset=h100-dgx --uncertain='server_price=uniform($250K, $350K)' --uncertain='pue=uniform(1.1, 1.5)' --samples=500)
"$DCPLAN" sensitivity "${H100[@]}" --power=50MW --format=json > "$TMP/sp.json"
check "power cap: pue first" site.pue "$(json_get "$TMP/sp.json" "p['sensitivity'][0]['path']")"
check "power cap: price swings nothing" 0 "$(json_get "$TMP/sp.json" "p['sensitivity'][1]['swing']")"
"$DCPLAN" sensitivity "${H100[@]}" --budget='$2B' --format=json > "$TMP/sb.json"
check "budget: price first" hardware.server.price_usd "$(json_get "$TMP/sb.json" "p['sensitivity'][0]['path']")"
check "budget: pue swings nothing" 0 "$(json_get "$TMP/sb.json" "p['sensitivity'][1]['swing']")"
# The MFU model's own error is a row of its own (mfu_model_error, the MFU at the P10 and P90 of the
# plan's mfu_interval): it moves no GPU count under either cap (last, swing 0), and realized compute
# by the interval's factors: output_at_low / output_at_high = P10 MFU / P90 MFU.
check "power cap: model error last" mfu_model_error "$(json_get "$TMP/sp.json" "p['sensitivity'][2]['path']")"
check "power cap: model error swings no gpus" 0 "$(json_get "$TMP/sp.json" "p['sensitivity'][2]['swing']")"
check "budget: model error swings no gpus" 0 "$(json_get "$TMP/sb.json" "[e for e in p['sensitivity'] if e['path'] == 'mfu_model_error'][0]['swing']")"
"$DCPLAN" sensitivity "${H100[@]}" --power=50MW --output=realized_flops_per_second --format=json > "$TMP/sr.json"
check "model error: interval ends" True "$(json_get "$TMP/sr.json" "[abs(e['low_input'] - p['mfu_interval']['p10']) < 1e-12 and abs(e['high_input'] - p['mfu_interval']['p90']) < 1e-12 for e in p['sensitivity'] if e['path'] == 'mfu_model_error'][0]")"
check "model error: realized scales with MFU" True "$(json_get "$TMP/sr.json" "[abs(e['output_at_low'] / e['output_at_high'] - e['low_input'] / e['high_input']) < 1e-9 and e['swing'] > 0 for e in p['sensitivity'] if e['path'] == 'mfu_model_error'][0]")"
"$DCPLAN" sensitivity "${H100[@]}" --power=50MW --format=svg --out="$TMP/t.svg"
check "tornado svg" 0 $?
xmllint --noout "$TMP/t.svg"
check "tornado svg is XML" 0 $?

# train with uncertain tokens: time to train proportional to the tokens (uniform(1T, 3T): P10 1.2T,
# P90 2.8T, so 0.6x and 1.4x the median's time, within 0.04 with 500 samples (~3 sd); the model's MFU error
# switched off so that only the tokens move it); the training table prints P10 / P50 / P90.
TRAIN=(train --preset=h100-dgx --model=llama3-8b --gpus=64 --uncertain='workload.train_tokens=uniform(1e12, 3e12)' --samples=500)
"$DCPLAN" "${TRAIN[@]}" --model_mfu_error=false --format=json > "$TMP/train.json"
check "train exit" 0 $?
check "train p10 0.6x" True "$(json_get "$TMP/train.json" "abs(p['distribution']['time_to_train_seconds']['p10'] / p['time_to_train_seconds'] - 0.6) <= 0.04")"
check "train p90 1.4x" True "$(json_get "$TMP/train.json" "abs(p['distribution']['time_to_train_seconds']['p90'] / p['time_to_train_seconds'] - 1.4) <= 0.04")"
check "train mfu interval brackets" True "$(json_get "$TMP/train.json" "p['mfu_interval']['p10'] < p['mfu'] < p['mfu_interval']['p90']")"
"$DCPLAN" "${TRAIN[@]}" > "$TMP/train.txt"
check "train table percentiles" 1 "$(grep -c 'P10 / P50 / P90' "$TMP/train.txt")"
check "train table MFU interval" 1 "$(grep -c 'MFU  .*(P10-P90 ' "$TMP/train.txt")"
expect_error "train takes no tornado" "train does not use --sensitivity" "${TRAIN[@]}" --sensitivity

# scale --uncertain: each size's spread over the samples, the caps not applied. 8,192 seed GPUs
# draw 8,192 x 1.4 kW = 11.4688 MW of IT power; facility = IT x PUE: P10 (PUE 1.1) 12.616 MW, P90
# (PUE 1.9) 21.791 MW, within 1% on 100,000 samples; MFU 0.62 - 0.02 x 13 = 0.36 and realized
# compute 8,192 x 1e15 x 0.36 = 2.949e18 FLOP/s, constant without the model's own error.
SCALE=(scale --preset=seed --power=1MW --gpus=8192,1024 --uncertain='pue=uniform(1.0, 2.0)')
"$DCPLAN" "${SCALE[@]}" --samples=100000 --model_mfu_error=false --format=json > "$TMP/scale.json"
check "scale exit" 0 $?
check "scale gpus constant" "8192 8192" "$(json_get "$TMP/scale.json" "str(p['rows'][0]['distribution']['gpu_count']['p10']) + ' ' + str(p['rows'][0]['distribution']['gpu_count']['p90'])")"
check "scale facility p10" True "$(json_get "$TMP/scale.json" "abs(p['rows'][0]['distribution']['facility_power_watts']['p10'] / 12.61568e6 - 1) <= 0.01")"
check "scale facility p90" True "$(json_get "$TMP/scale.json" "abs(p['rows'][0]['distribution']['facility_power_watts']['p90'] / 21.79072e6 - 1) <= 0.01")"
check "scale realized constant" True "$(json_get "$TMP/scale.json" "abs(p['rows'][0]['distribution']['realized_flops_per_second']['p90'] / 2.94912e18 - 1) <= 1e-9")"
check "scale mfu interval" True "$(json_get "$TMP/scale.json" "p['rows'][0]['mfu_interval']['p10'] < 0.36 < p['rows'][0]['mfu_interval']['p90']")"
"$DCPLAN" "${SCALE[@]}" --samples=2000 --threads=1 --format=json > "$TMP/scale1.json"
"$DCPLAN" "${SCALE[@]}" --samples=2000 --threads=3 --format=json > "$TMP/scale3.json"
check "scale same on any thread count" "" "$(cmp "$TMP/scale1.json" "$TMP/scale3.json")"
"$DCPLAN" "${SCALE[@]}" --samples=2000 > "$TMP/scale.txt"
check "scale table spread lines" 2 "$(grep -c 'P10/P50/P90: realized .* EF/s, MFU .*%, meter .* MW' "$TMP/scale.txt")"
"$DCPLAN" "${SCALE[@]}" --samples=2000 --format=csv > "$TMP/scale.csv"
check "scale csv columns" "realized_flops_per_second_p10,realized_flops_per_second_p50,realized_flops_per_second_p90,mfu_p10,mfu_p50,mfu_p90,facility_power_watts_p10,facility_power_watts_p50,facility_power_watts_p90" "$(head -1 "$TMP/scale.csv" | cut -d, -f11-)"
check "scale csv rows" 3 "$(wc -l < "$TMP/scale.csv")"
expect_error "scale work bound" "--gpus gives 101 sizes and --samples 1000000: 1.01e+08 evaluations, more than 10^8 (every size runs every sample); give fewer sizes or fewer samples" scale --preset=seed --gpus="$(seq -s, 8 8 808)" --uncertain='pue=uniform(1, 2)' --samples=1000000

# compare --uncertain: two request files at 14 MW, "open" with PUE uniform(1.0, 2.0) and "fixed"
# with PUE 1.4 (uniform(1.4, 1.4)): 8 x floor(1250 / PUE) GPUs, so "open" has more than "fixed"'s
# 7,136 when PUE <= 1250 / 893 = 1.39978: P(best) 0.39978, within 0.01 on 20,000 samples on common
# random numbers. The ranking stays at the medians ("fixed" first: "open" has 6,664 at PUE 1.5).
"$DCPLAN" presets --preset=seed --format=textproto > "$TMP/seed.textproto"
sed 's/^name: "seed"/name: "open"/' "$TMP/seed.textproto" > "$TMP/open.textproto"
echo 'uncertain { path: "site.pue" uniform { low: 1.0 high: 2.0 } }' >> "$TMP/open.textproto"
sed 's/^name: "seed"/name: "fixed"/' "$TMP/seed.textproto" > "$TMP/fixed.textproto"
echo 'uncertain { path: "site.pue" uniform { low: 1.4 high: 1.4 } }' >> "$TMP/fixed.textproto"
CMP=(compare --requests="$TMP/open.textproto,$TMP/fixed.textproto" --power=14MW --samples=20000)
"$DCPLAN" "${CMP[@]}" --format=json > "$TMP/cmp.json"
check "compare exit" 0 $?
check "compare ranked at medians" "fixed open" "$(json_get "$TMP/cmp.json" "p['plans'][0]['name'] + ' ' + p['plans'][1]['name']")"
check "compare p_best" True "$(json_get "$TMP/cmp.json" "abs(p['p_best'][1] - 0.39978) <= 0.01 and abs(p['p_best'][0] + p['p_best'][1] - 1) < 1e-12")"
check "compare distribution" True "$(json_get "$TMP/cmp.json" "abs(p['plans'][1]['distribution']['gpu_count']['p10'] - 5256) <= 53")"
"$DCPLAN" "${CMP[@]}" > "$TMP/cmp.txt"
check "compare table P(best)" 1 "$(grep -c 'P(most compute)' "$TMP/cmp.txt")"
check "compare table open row" 1 "$(grep -cE '^2 +open +[0-9.]+ [EP]FLOP/s \.\. [0-9.]+ [EP]FLOP/s .* (39|40)\.[0-9]%$' "$TMP/cmp.txt")"
"$DCPLAN" "${CMP[@]}" --samples=3000 --threads=1 --format=json > "$TMP/cmp1.json"
"$DCPLAN" "${CMP[@]}" --samples=3000 --threads=3 --format=json > "$TMP/cmp3.json"
check "compare same on any thread count" "" "$(cmp "$TMP/cmp1.json" "$TMP/cmp3.json")"
expect_error "compare mixed" "seed: uncertain: no uncertain input, while other options have some" compare --presets=seed --requests="$TMP/open.textproto" --power=14MW

# sweep --uncertain: every point's Monte Carlo. Seed with PUE uniform(1.0, 2.0) at 14 MW and 28 MW:
# GPUs = 8 x floor(P / (1.4 kW x PUE x 8)); at 28 MW P10 (PUE 1.9) 10,520, P50 (1.5) 13,328 and P90
# (1.1) 18,176, each within 1% on 100,000 samples.
SWEEPU=(sweep --preset=seed --vary=power=14MW,28MW --uncertain='pue=uniform(1.0, 2.0)')
"$DCPLAN" "${SWEEPU[@]}" --samples=100000 --out="$TMP/sweepu.csv" 2> /dev/null
check "sweep exit" 0 $?
check "sweep csv columns after error" "error,gpu_count_p10,gpu_count_p50,gpu_count_p90" "$(head -1 "$TMP/sweepu.csv" | tr , '\n' | grep -n '' | sed -n '16,19p' | cut -d: -f2 | paste -sd,)"
check "sweep 28 MW percentiles" True "$(python3 -c "
import csv
r = list(csv.DictReader(open('$TMP/sweepu.csv')))[1]
print(r['gpu_count'] == '13328' and abs(int(r['gpu_count_p10']) - 10520) <= 105 and abs(int(r['gpu_count_p90']) - 18176) <= 182)")"
"$DCPLAN" "${SWEEPU[@]}" --samples=2000 --format=jsonl --threads=1 > "$TMP/sweepu1.jsonl" 2> /dev/null
"$DCPLAN" "${SWEEPU[@]}" --samples=2000 --format=jsonl --threads=3 > "$TMP/sweepu3.jsonl" 2> /dev/null
check "sweep jsonl distribution" 2 "$(grep -c '"distribution":{"samples":"2000"' "$TMP/sweepu1.jsonl")"
check "sweep same on any thread count" "" "$(cmp "$TMP/sweepu1.jsonl" "$TMP/sweepu3.jsonl")"
expect_error "sweep work bound" "--vary spans 200 points and --samples is 1000000: 2e+08 solves, more than 10^8 (every point runs every sample); give fewer points or fewer samples" sweep --preset=seed --vary=power=1MW:200MW:log200 --uncertain='pue=uniform(1, 2)' --samples=1000000
expect_error "sweep axis uncertain" "uncertain[0] (site.pue) is also a sweep axis: sample it or sweep it, not both" sweep --preset=seed --power=14MW --vary=pue=1.1,1.2 --uncertain='pue=uniform(1, 2)' --samples=10

# --correlate: a rank correlation between two uncertain inputs (planner/sweep/monte_carlo_test
# checks the sampled Spearman rho); rho 0 is the uncorrelated run byte for byte.
CORR=(fit --preset=h100-dgx --power=50MW --uncertain='pue=uniform(1.1, 1.5)' --uncertain='electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)' --samples=2000 --format=json)
"$DCPLAN" "${CORR[@]}" > "$TMP/c_none.json"
"$DCPLAN" "${CORR[@]}" --correlate=pue,electricity=0 > "$TMP/c_zero.json"
check "correlate rho 0 identical" "" "$(cmp "$TMP/c_none.json" "$TMP/c_zero.json")"
# Under the 50 MW cap a high PUE means fewer GPUs (less capex) and a high tariff more energy cost:
# tied together (rho 0.8) they offset, so TCO's P10-P90 spread narrows.
"$DCPLAN" "${CORR[@]}" --correlate=pue,electricity=0.8 > "$TMP/c_high.json"
check "correlate narrows TCO spread" True "$(python3 -c "import json; a = json.load(open('$TMP/c_none.json'))['distribution']['tco_usd']; b = json.load(open('$TMP/c_high.json'))['distribution']['tco_usd']; print(b['p90'] - b['p10'] < a['p90'] - a['p10'])")"
expect_error "correlate rho > 1" "monte_carlo.correlations[0].rank must be in [-1, 1], got 1.5" "${CORR[@]}" --correlate=pue,electricity=1.5
expect_error "correlate not uncertain" "monte_carlo.correlations[0].b (costs.wacc) is not an uncertain input" "${CORR[@]}" --correlate=pue,wacc=0.5
expect_error "correlate syntax" "--correlate=pue=0.5: give PATH_A,PATH_B=RHO" "${CORR[@]}" --correlate=pue=0.5

# Bad input: one line each, naming the path.
expect_error "low > high" "uncertain[0] (site.pue): uniform low 2 must be <= high 1.5" fit --preset=seed --power=14MW --uncertain='pue=uniform(2, 1.5)'
expect_error "sd < 0" "uncertain[0] (site.pue): normal sd must be >= 0, got -0.1" fit --preset=seed --power=14MW --uncertain='pue=normal(1.2, -0.1)'
expect_error "outside the range" "uncertain[0] (site.pue): 0.5 is outside the field's range" fit --preset=seed --power=14MW --uncertain='pue=uniform(0.5, 1.5)'
expect_error "a billion samples" "--samples must be in [1, 1000000]" fit --preset=seed --power=14MW --uncertain='pue=uniform(1, 2)' --samples=1000000000
expect_error "samples alone" "need at least one --uncertain input" fit --preset=seed --power=14MW --samples=10
expect_error "unknown output" "no output \"gpus_per_dollar\"" sensitivity --preset=seed --power=14MW --uncertain='pue=uniform(1, 2)' --output=gpus_per_dollar
expect_error "sensitivity alone" "sensitivity needs at least one --uncertain input" sensitivity --preset=seed --power=14MW

finish uncertainty_cli_test

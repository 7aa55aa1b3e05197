#!/usr/bin/env bash
# End-to-end tests of the money side of the CLI: budget caps (capex and TCO), both caps together,
# energy cost, bad money input, and `compare` agreeing with `fit`. Numbers worked out by hand in comments.
set -uo pipefail

source "$(dirname "$0")/cli_testlib.sh"

# A priced seed: 8 x $25,000 GPUs + $100,000 of server = $300,000 a server; facility $10/W of IT power,
# so each 11.2 kW server adds $112,000: $412,000 a server.
cat > "$TMP/priced_seed.textproto" <<'PB'
name: "priced-seed"
hardware {
  accelerator { peak_flops_per_second: 1e15 tdp_watts: 1400 price_usd: 25000 }
  server { gpus_per_server: 8 non_gpu_price_usd: 100000 }
  rack { max_servers_per_rack: 4 }
}
site { pue: 1.0 }
efficiency { log_linear { intercept: 0.62 slope_per_doubling: 0.02 } }
costs { facility_usd_per_it_watt: 10 }
PB
REQ="--request=$TMP/priced_seed.textproto"

# $1B / $412,000 = 2,427.2 -> 2,427 servers = 19,416 GPUs costing $999,924,000 (2,428 would be
# $1,000,336,000).
"$DCPLAN" fit "$REQ" --budget='$1B' --format=json > "$TMP/b1.json"
check "budget exit" 0 $?
check "budget gpus" 19416 "$(json_get "$TMP/b1.json" "p['counts']['gpu_count']")"
check "budget capex to the dollar" 999924000 "$(json_get "$TMP/b1.json" "round(p['cost']['capex_usd'])")"
check "budget binds" BINDING_CONSTRAINT_BUDGET "$(json_get "$TMP/b1.json" "p['binding_constraint']")"
check "budget headroom" 76000 "$(json_get "$TMP/b1.json" "round(p['headroom']['budget_usd'])")"
# The same budget written as a plain number of dollars, or as '1000M USD'.
"$DCPLAN" fit "$REQ" --budget=1e9 --format=json > "$TMP/b2.json"
check "budget=1e9 same" 19416 "$(json_get "$TMP/b2.json" "p['counts']['gpu_count']")"
"$DCPLAN" fit "$REQ" --budget='1000M USD' --format=json > "$TMP/b3.json"
check "budget=1000M USD same" 19416 "$(json_get "$TMP/b3.json" "p['counts']['gpu_count']")"

# Both caps: 45.9 MW allows 4,098 servers, $1B 2,427: budget binds; with $2B (4,854) power binds.
"$DCPLAN" fit "$REQ" --budget='$1B' --power=45.9MW --format=json > "$TMP/both1.json"
check "both: budget tighter" "2427 BINDING_CONSTRAINT_BUDGET" \
  "$(json_get "$TMP/both1.json" "p['counts']['server_count'], p['binding_constraint']" | tr -d "(),'")"
"$DCPLAN" fit "$REQ" --budget='$2B' --power=45.9MW --format=json > "$TMP/both2.json"
check "both: power tighter" "4098 BINDING_CONSTRAINT_FACILITY_POWER" \
  "$(json_get "$TMP/both2.json" "p['counts']['server_count'], p['binding_constraint']" | tr -d "(),'")"

# TCO over 4 years with 5%/year maintenance and $0.10/kWh at 80% utilization (the default):
# per server $412,000 x 1.2 + 11,200 W x 0.8 x 35,040 h x $0.10/kWh = $494,400 + $31,395.84 =
# $525,795.84; $1B buys 1,901 servers.
"$DCPLAN" fit "$REQ" --budget='$1B' --budget_on=tco --electricity='0.10 USD/kWh' --format=json \
  > "$TMP/tco.json" < /dev/null
check "tco servers (no maintenance)" True "$(json_get "$TMP/tco.json" "int(p['counts']['server_count']) > 1901")"
sed -i 's/costs { facility_usd_per_it_watt: 10 }/costs { facility_usd_per_it_watt: 10 maintenance_fraction_per_year: 0.05 }/' "$TMP/priced_seed.textproto"
"$DCPLAN" fit "$REQ" --budget='$1B' --budget_on=tco --electricity='0.10 USD/kWh' --horizon_years=4 \
  --format=json > "$TMP/tco2.json"
check "tco servers" 1901 "$(json_get "$TMP/tco2.json" "p['counts']['server_count']")"
check "tco fits" True "$(json_get "$TMP/tco2.json" "p['cost']['tco_usd'] <= 1e9")"

# A year of energy: 1,000 seed GPUs (125 servers) = 1.4 MW IT at PUE 1.5 and 80% utilization:
# 1.68 MW x 8,760 h = 14,716.8 MWh; at $0.08/kWh = $1,177,344.
"$DCPLAN" fit "$REQ" --power=100MW --max_gpus=1000 --pue=1.5 --electricity='$0.08/kWh' --format=json \
  > "$TMP/energy.json"
check "energy MWh" 14716.8 "$(json_get "$TMP/energy.json" "round(p['cost']['energy_mwh_per_year'], 3)")"
check "energy dollars" 1177344 "$(json_get "$TMP/energy.json" "round(p['cost']['energy_usd_per_year'])")"

# Bad money input: one line, exit 1.
expect_error "negative budget" "--budget must be >= 0, got -1" fit --budget=-1
expect_error "electricity as power" 'expected a price per energy such as 0.08 USD/kWh, got "5MW"' \
  fit --electricity=5MW --power=1MW
expect_error "budget as power" 'expected an amount of money such as $2.5B, got "5MW"' fit --budget=5MW
expect_error "bad budget_on" "--budget_on must be one of capex, tco; got \"opex\"" fit --budget=1e9 --budget_on=opex
sed 's/price_usd: 25000/price_usd: -5/' "$TMP/priced_seed.textproto" > "$TMP/negative_price.textproto"
expect_error "negative price in request" "hardware.accelerator.price_usd must be >= 0, got -5" \
  fit --request="$TMP/negative_price.textproto" --power=1MW
expect_error "budget without prices" "--budget is 1000000000 but nothing in the request has a price, so the budget caps nothing" fit --preset=seed --budget=1e9

# compare ranks the presets, and each row is what fit gives for that preset alone.
"$DCPLAN" compare --power=100MW --presets=h100-dgx,b200-dgx,gb200-nvl72,mi300x --format=json > "$TMP/cmp.json"
check "compare exit" 0 $?
check "compare count" 4 "$(json_get "$TMP/cmp.json" "len(p['plans'])")"
check "compare ranked" True "$(json_get "$TMP/cmp.json" \
  "all(a['compute']['realized_flops_per_second'] >= b['compute']['realized_flops_per_second'] for a, b in zip(p['plans'], p['plans'][1:]))")"
for preset in h100-dgx b200-dgx gb200-nvl72 mi300x; do
  "$DCPLAN" fit --preset=$preset --power=100MW --format=json > "$TMP/fit_$preset.json"
  want=$(json_get "$TMP/fit_$preset.json" "p['counts']['gpu_count'], p['compute']['realized_flops_per_second'], p['cost']['tco_usd']")
  got=$(json_get "$TMP/cmp.json" "*[(q['counts']['gpu_count'], q['compute']['realized_flops_per_second'], q['cost']['tco_usd']) for q in p['plans'] if q['name'] == '$preset'][0]")
  check "compare agrees with fit for $preset" "$want" "$got"
done
"$DCPLAN" compare --power=100MW --presets=h100-dgx,mi300x > "$TMP/cmp.txt"
# The MFU basis line, the header, two rows and the footnote for mi300x's carried-over constants.
check "compare table rows" 5 "$(wc -l < "$TMP/cmp.txt" | tr -d ' ')"
check "compare says the reference workload" "MFU: reference workload llama3-405b, step model" "$(head -1 "$TMP/cmp.txt")"
check "compare marks the carried-over estimate" 1 "$(grep -c '^\* estimate' "$TMP/cmp.txt")"
"$DCPLAN" compare --power=50MW --budget='$1B' --requests="$TMP/priced_seed.textproto" --presets=h100-dgx --format=json > "$TMP/cmp2.json"
check "compare takes request files" 2 "$(json_get "$TMP/cmp2.json" "len(p['plans'])")"

finish money_cli_test

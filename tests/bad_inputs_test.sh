#!/usr/bin/env bash
# Bad input at the CLI: a table of flags and files, each with the exact one-line error dcplan prints
# and its exit code (1 for bad input, 2 for a command line dcplan cannot parse). Then what a failed
# run must not do: leave a partial or temporary file, touch an existing output, or overwrite its own
# input; and the same input must give byte-identical output. Files are made here: empty, truncated,
# larger than the 64 MiB limit (sparse), a directory, unreadable, the wrong encoding for the
# extension, nested 5,000 deep, invalid UTF-8, NaN and infinity, integers out of range.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

SEED="$TEST_SRCDIR/$TEST_WORKSPACE/tests/fuzz/corpus/text/seed-45.9MW.textproto"
T="$TMP/bad"
rm -rf "$T" && mkdir -p "$T"

# bad NAME RC EXPECTED-STDERR ARGS...: dcplan ARGS exits RC with exactly EXPECTED-STDERR (one line)
# and prints nothing on stdout.
rows=0
bad() {
  local name="$1" want_rc="$2" want="$3"; shift 3
  rows=$((rows + 1))
  local out err rc
  out=$(timeout 20 "$DCPLAN" "$@" 2>"$T/stderr"); rc=$?
  err=$(cat "$T/stderr")
  if [[ $rc -eq $want_rc && "$err" == "$want" && -z "$out" ]]; then
    pass "$name"
  else
    fail "$name: rc=$rc (want $want_rc)
   got:  [$err]
   want: [$want]
   stdout: [${out:0:200}]"
  fi
}

# --- flags -----------------------------------------------------------------------------------------
bad "power without a unit" 1 'dcplan: --power: expected a power such as 50MW, got "-1"' fit --power=-1
bad "negative power" 1 'dcplan: constraints.power_cap_watts must be >= 0, got -1e+06' fit --power=-1MW
bad "power nan" 1 'dcplan: --power: expected a power such as 50MW, got "nan"' fit --power=nan
bad "power inf" 1 'dcplan: --power: expected a power such as 50MW, got "inf"' fit --power=inf
bad "power overflows a double" 1 'dcplan: --power: expected a power such as 50MW, got "1e400MW"' fit --power=1e400MW
bad "power is an energy" 1 'dcplan: --power: expected a power such as 50MW, got "50MWh"' fit --power=50MWh
bad "power in volt-amperes" 1 'dcplan: --power: expected a power such as 50MW, got "50MVA"' fit --power=50MVA
bad "power above the limit" 1 'dcplan: constraints.power_cap_watts must be <= 1e+15, got 2e+15' fit --power=2e15W
bad "negative budget" 1 'dcplan: constraints.budget_usd must be >= 0, got -1' fit --budget=-1
bad "budget NaN" 1 'dcplan: --budget: expected an amount of money such as $2.5B, got "NaN"' fit --budget=NaN
bad "budget in watts" 1 'dcplan: --budget: expected an amount of money such as $2.5B, got "5MW"' fit --budget=5MW
bad "electricity in watts" 1 'dcplan: --electricity: expected a price per energy such as 0.08 USD/kWh, got "5MW"' fit --electricity=5MW
bad "electricity without a currency" 1 'dcplan: --electricity: expected a price per energy such as 0.08 USD/kWh, got "0.08"' fit --electricity=0.08
bad "negative electricity" 1 'dcplan: costs.electricity_usd_per_kwh must be >= 0, got -0.08' fit --power=1MW --electricity=-0.08USD/kWh
bad "pue below 1" 1 'dcplan: site.pue must be >= 1.0, got 0.9' fit --pue=0.9 --power=1MW
bad "pue nan" 1 'dcplan: --pue: expected a number, got "nan"' fit --pue=nan
bad "pue inf" 1 'dcplan: --pue: expected a number, got "inf"' fit --pue=inf
bad "pue above 5" 1 'dcplan: site.pue must be <= 5, got 6' fit --pue=6 --power=1MW
bad "pue not a number" 1 'dcplan: --pue: expected a number, got "abc"' fit --pue=abc
bad "negative max_gpus" 1 'dcplan: --max_gpus: expected a whole number >= 0, got "-5"' fit --max_gpus=-5
bad "fractional max_gpus" 1 'dcplan: --max_gpus: expected a whole number >= 0, got "1.5"' fit --max_gpus=1.5
bad "max_gpus above the limit" 1 'dcplan: constraints.max_gpus must be <= 1000000000000, got 10000000000000' fit --max_gpus=1e13
bad "max_gpus nan" 1 'dcplan: --max_gpus: expected a count such as 16M, got "nan"' fit --max_gpus=nan
bad "max_buildings beyond uint32" 1 'dcplan: --max_buildings is too large: 5e9' fit --max_buildings=5e9
bad "max_buildings above the limit" 1 'dcplan: site.max_buildings must be <= 1000000, got 5000000' fit --power=1MW --max_buildings=5M
bad "zero horizon" 1 'dcplan: costs.horizon_years must be > 0, got 0' fit --power=1MW --horizon_years=0
bad "horizon above 50 years" 1 'dcplan: costs.horizon_years must be <= 50, got 51' fit --power=1MW --horizon_years=51
bad "budget_on opex" 1 'dcplan: --budget_on must be capex or tco; got "opex"' fit --budget_on=opex
bad "unknown objective" 1 'dcplan: --objective must be gpus or compute; got "flops"' fit --objective=flops
bad "unknown power_at" 1 'dcplan: --power_at must be facility, it or substation; got "rack"' fit --power_at=rack
bad "unknown format" 1 'dcplan: --format must be one of table, json, textproto, text, binary; got "xml"' fit --format=xml
bad "unknown preset" 1 'dcplan: unknown preset "nope"; known presets: a100-dgx, b200-dgx, gb200-nvl72, h100-dgx, h200-dgx, mi300x, seed' fit --preset=nope
bad "scale size 0" 1 'dcplan: --gpus: every size must be in [1, 10^12], got "0"' scale --gpus=0
bad "scale size above 10^12" 1 'dcplan: --gpus: every size must be in [1, 10^12], got "1e13"' scale --gpus=1e13
bad "scale size not a number" 1 'dcplan: --gpus: expected a count such as 16M, got "abc"' scale --gpus=abc
bad "scale empty size" 1 'dcplan: --gpus: expected a count such as 16M, got ""' scale --gpus=1,,2
bad "unknown command" 2 'dcplan: unknown command "fly"; commands are fit, scale, sweep, compare, validate, convert, train, serve, presets' fly
bad "stray argument" 2 'dcplan: unexpected argument "extra" (flags are --name=value)' fit extra
bad "unknown flag" 1 "ERROR: Unknown command line flag 'powr'" fit --powr=5MW
bad "substation cap without a substation" 1 'dcplan: constraints.power_cap_at is POWER_CAP_AT_SUBSTATION but site.substation.transformer_rating_va is 0 (no rated substation to cap at)' fit --power_at=substation
bad "no cap" 1 'dcplan: no cap to solve under: set constraints.power_cap_watts, constraints.budget_usd, constraints.max_gpus, site.max_buildings or a rated site.substation' fit --preset=seed
bad "budget with nothing priced" 1 'dcplan: constraints.budget_usd is the only cap but nothing in the request has a price: set hardware.server.price_usd or hardware.accelerator.price_usd' fit --preset=seed --budget=1M

# --- request files -----------------------------------------------------------------------------------
"$DCPLAN" convert --in="$SEED" --out="$T/good.pb" || fail "convert to binary"
"$DCPLAN" convert --in="$SEED" --out="$T/good.json" || fail "convert to JSON"
cp "$SEED" "$T/good.textproto"
: >"$T/empty.textproto"
: >"$T/empty.json"
head -c 20 "$T/good.pb" >"$T/truncated.pb"
head -c 120 "$T/good.textproto" >"$T/truncated.textproto"
head -c 100 "$T/good.json" >"$T/truncated.json"
truncate -s 65M "$T/huge.textproto"  # sparse: no disk space used
mkdir "$T/dir.textproto"
cp "$T/good.textproto" "$T/locked.textproto" && chmod 000 "$T/locked.textproto"
cp "$T/good.textproto" "$T/request.yaml"
cp "$T/good.json" "$T/json-in.textproto"
cp "$T/good.pb" "$T/binary-in.json"
cp "$T/good.textproto" "$T/text-in.pb"
python3 -c "print('{\"name\": ' + '[' * 5000 + ']' * 5000 + '}')" >"$T/deep.json"
python3 -c "import sys; sys.stdout.buffer.write(b'\x0b' * 100000)" >"$T/deep.pb"
python3 -c "print('hardware { ' * 5000 + '}' * 5000)" >"$T/deep.textproto"
sed 's/name: "seed"/name: "\\xff\\xfe"/' "$SEED" >"$T/bad-utf8.textproto"  # an escape in the text
printf '{"name": "\xff\xfe"}' >"$T/bad-utf8.json"
sed 's/pue: 1.0/pue: nan/' "$SEED" >"$T/nan.textproto"
sed 's/power_cap_watts: 45.9e6/power_cap_watts: inf/' "$SEED" >"$T/inf.textproto"
sed 's/"pue": 1/"pue": "NaN"/' "$T/good.json" >"$T/nan.json"
sed 's/gpus_per_server: 8/gpus_per_server: 4294967296/' "$SEED" >"$T/u32.textproto"
sed 's/gpus_per_server: 8/gpus_per_server: -8/' "$SEED" >"$T/negative.textproto"
sed 's/gpus_per_server: 8/gpus_per_server: 4294967295/' "$SEED" >"$T/u32max.textproto"
{ echo 'schema_version: 2'; cat "$SEED"; } >"$T/v2.textproto"
sed 's/pue: 1.0/pue: 1.0 substation { redundancy: REDUNDANCY_3N }/' "$SEED" >"$T/enum.textproto"
sed 's/server {/gpu { tdp_watts: 700 } server {/' "$SEED" >"$T/unknown.textproto"
printf '{"hardware": {"gpu": {}}}' >"$T/unknown.json"
# The binary request with a field this dcplan does not know (99) in hardware.accelerator.
python3 - "$T/good.pb" "$T/unknown.pb" <<'EOF'
import struct, sys
def varint(n):
    out = b''
    while True:
        low, n = n & 0x7f, n >> 7
        out += bytes([low | (0x80 if n else 0)])
        if not n:
            return out
# hardware (3) { accelerator (1) { peak_flops_per_second (2, fixed64): 1e15, field 99 (varint): 1 } },
# appended: the parser merges it into the request's hardware.
accelerator = b'\x11' + struct.pack('<d', 1e15) + varint(99 << 3) + varint(1)
hardware = varint(1 << 3 | 2) + varint(len(accelerator)) + accelerator
with open(sys.argv[2], 'wb') as f:
    f.write(open(sys.argv[1], 'rb').read() + varint(3 << 3 | 2) + varint(len(hardware)) + hardware)
EOF

bad "empty text file" 1 "dcplan: $T/empty.textproto is empty" validate --request="$T/empty.textproto"
bad "empty JSON file" 1 "dcplan: $T/empty.json is empty" fit --request="$T/empty.json"
bad "truncated binary" 1 "dcplan: $T/truncated.pb: not a valid binary dcplan.PlanRequest" fit --request="$T/truncated.pb"
bad "truncated text" 1 "dcplan: $T/truncated.textproto: invalid text-format dcplan.PlanRequest: 5:3: Expected identifier, got: " validate --request="$T/truncated.textproto"
bad "truncated JSON" 1 "dcplan: $T/truncated.json: invalid JSON for dcplan.PlanRequest: Unexpected end of string. Expected a value." validate --request="$T/truncated.json"
bad "larger than 64 MiB" 1 "dcplan: $T/huge.textproto is larger than the 64 MiB limit" fit --request="$T/huge.textproto"
bad "a directory" 1 "dcplan: $T/dir.textproto is a directory" fit --request="$T/dir.textproto"
bad "does not exist" 1 "dcplan: $T/nope.textproto does not exist" fit --request="$T/nope.textproto"
bad "below a file" 1 "dcplan: $T/good.textproto/x.textproto does not exist" fit --request="$T/good.textproto/x.textproto"
bad "unknown extension" 1 "dcplan: cannot tell the encoding of \"$T/request.yaml\" from its extension; known extensions: .textproto, .txtpb, .pbtxt, .txt (text); .json (json); .pb, .binpb, .bin (binary) (or name the encoding explicitly)" validate --request="$T/request.yaml"
bad "JSON named .textproto" 1 "dcplan: $T/json-in.textproto: invalid text-format dcplan.PlanRequest: 1:1: Expected identifier, got: {" validate --request="$T/json-in.textproto"
bad "binary named .json" 1 "dcplan: $T/binary-in.json: invalid JSON for dcplan.PlanRequest: Encountered non UTF-8 code points near \"\\x12\\x04seed\\x1a \\n\\x12\\x11\\x00\\x00\\x34&\\xf5k\\x0c\\x43\\x19\"" validate --request="$T/binary-in.json"
bad "text named .pb" 1 "dcplan: $T/text-in.pb: not a valid binary dcplan.PlanRequest" validate --request="$T/text-in.pb"
bad "JSON nested 5,000 deep" 1 "dcplan: $T/deep.json: invalid JSON for dcplan.PlanRequest: name: Proto field is not repeating, cannot start list." validate --request="$T/deep.json"
bad "binary groups nested 100,000 deep" 1 "dcplan: $T/deep.pb: not a valid binary dcplan.PlanRequest" validate --request="$T/deep.pb"
bad "text nested 5,000 deep" 1 "dcplan: $T/deep.textproto: invalid text-format dcplan.PlanRequest: 1:21: Message type \"dcplan.Hardware\" has no field named \"hardware\"." validate --request="$T/deep.textproto"
bad "invalid UTF-8 in text" 1 "dcplan: $T/bad-utf8.textproto: invalid text-format dcplan.PlanRequest: name is not valid UTF-8" fit --request="$T/bad-utf8.textproto"
bad "invalid UTF-8 in JSON" 1 "dcplan: $T/bad-utf8.json: invalid JSON for dcplan.PlanRequest: Encountered non UTF-8 code points near \"\\xff\\xfe\\\"}\"" fit --request="$T/bad-utf8.json"
bad "nan in text" 1 'dcplan: site.pue must be finite, got nan' fit --request="$T/nan.textproto"
bad "inf in text" 1 'dcplan: constraints.power_cap_watts must be finite, got inf' fit --request="$T/inf.textproto"
bad "NaN in JSON" 1 'dcplan: site.pue must be finite, got nan' fit --request="$T/nan.json"
bad "integer beyond uint32" 1 "dcplan: $T/u32.textproto: invalid text-format dcplan.PlanRequest: 4:29: Integer out of range (4294967296)" validate --request="$T/u32.textproto"
bad "negative count" 1 "dcplan: $T/negative.textproto: invalid text-format dcplan.PlanRequest: 4:29: Expected integer, got: -" validate --request="$T/negative.textproto"
bad "uint32 maximum" 1 'dcplan: hardware.server.gpus_per_server must be <= 1024, got 4294967295' fit --request="$T/u32max.textproto"
bad "newer schema" 1 'dcplan: schema_version must be <= 1 (SCHEMA_VERSION_1, the newest this dcplan reads), got 2' fit --request="$T/v2.textproto"
bad "unknown enum value" 1 "dcplan: $T/enum.textproto: invalid text-format dcplan.PlanRequest: 8:56: Unknown enumeration value of \"REDUNDANCY_3N\" for field \"redundancy\"." validate --request="$T/enum.textproto"
bad "unknown text field" 1 "dcplan: $T/unknown.textproto: invalid text-format dcplan.PlanRequest: 4:7: Message type \"dcplan.Hardware\" has no field named \"gpu\"." validate --request="$T/unknown.textproto"
bad "unknown JSON field" 1 "dcplan: $T/unknown.json: invalid JSON for dcplan.PlanRequest: (hardware) gpu: Cannot find field." validate --request="$T/unknown.json"
bad "unknown binary field" 1 "dcplan: $T/unknown.pb: not a valid binary dcplan.PlanRequest: hardware.accelerator has a field this dcplan does not know (number 99)" fit --request="$T/unknown.pb"
bad "stdin without an encoding" 1 'dcplan: reading standard input (-) needs an explicit encoding: text, json or binary' fit --request=-
bad "validate without a file" 1 'dcplan: validate needs --request=FILE' validate
bad "a request read as a plan" 1 "dcplan: $T/good.textproto: invalid text-format dcplan.Plan: 2:10: Message type \"dcplan.Plan\" has no field named \"hardware\"." validate --type=plan --request="$T/good.textproto"
if [[ $(id -u) -ne 0 ]]; then
  bad "unreadable" 1 "dcplan: $T/locked.textproto is not readable (permission denied)" fit --request="$T/locked.textproto"
elif command -v setpriv >/dev/null; then
  # Root reads any file: run dcplan as nobody, from a copy nobody can reach.
  U=$(mktemp -d /tmp/dcplan_unreadable.XXXXXX) && chmod 755 "$U"
  cp "$DCPLAN" "$U/dcplan" && cp "$T/good.textproto" "$U/locked.textproto" && chmod 000 "$U/locked.textproto"
  err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$U/dcplan" fit --request="$U/locked.textproto" 2>&1 >/dev/null); rc=$?
  if [[ "$err" == "setpriv: "* ]]; then
    echo "SKIP: unreadable: cannot become nobody here ($err)"  # e.g. in a user namespace
  else
    rows=$((rows + 1))
    check "unreadable" "1 dcplan: $U/locked.textproto is not readable (permission denied)" "$rc $err"
  fi
  rm -rf "$U"
fi

# --- output files: atomic, never over the input, never partial ---------------------------------------
bad "convert over its input" 1 "dcplan: refusing to overwrite the input file $T/good.json" convert --in="$T/good.json" --out="$T/good.json"
ln -s "$T/good.json" "$T/link.json"
bad "convert over its input through a symlink" 1 "dcplan: refusing to overwrite the input file $T/link.json" convert --in="$T/good.json" --out="$T/link.json"
bad "fit over its request" 1 "dcplan: refusing to overwrite the input file $T/good.json" fit --request="$T/good.json" --format=json --out="$T/good.json"
bad "output in a missing directory" 1 "dcplan: cannot write $T/nodir/x.json: cannot create a temporary file beside it: No such file or directory" convert --in="$T/good.json" --out="$T/nodir/x.json"
bad "output over a directory" 1 "dcplan: $T/dir.textproto is a directory" convert --in="$T/good.json" --out="$T/dir.textproto"
bad "output with an unknown extension" 1 "dcplan: cannot tell the encoding of \"$T/x.yaml\" from its extension; known extensions: .textproto, .txtpb, .pbtxt, .txt (text); .json (json); .pb, .binpb, .bin (binary) (or name the encoding explicitly)" convert --in="$T/good.json" --out="$T/x.yaml"
bad "convert an invalid request" 1 'dcplan: site.pue must be finite, got nan' convert --in="$T/nan.textproto" --out="$T/never.json"

# A failed run leaves an existing output as it was, and no temporary file beside it.
echo "the previous plan" >"$T/plan.json"
bad "a failed fit keeps the old output" 1 'dcplan: site.pue must be >= 1.0, got 0.9' fit --preset=seed --power=1MW --pue=0.9 --format=json --out="$T/plan.json"
check "old output untouched" "the previous plan" "$(cat "$T/plan.json")"
check "no partial output" "" "$(ls "$T" | grep -E '^never\.json|\.tmp-' || true)"
check "the input files are unchanged" "$(sha256sum <"$SEED")" "$(sha256sum <"$T/good.textproto")"

# A successful run replaces the output whole, and keeps its permissions.
chmod 640 "$T/plan.json"
"$DCPLAN" fit --request="$T/good.textproto" --format=json --out="$T/plan.json"
check "fit writes the plan" 0 $?
check "the plan replaced the old output" 32784 "$(json_get "$T/plan.json" "p['counts']['gpu_count']")"
check "the output keeps its permissions" 640 "$(stat -c %a "$T/plan.json")"
check "no temporary file left" "" "$(ls -a "$T" | grep -F '.tmp-' || true)"

# --- the same input gives byte-identical output --------------------------------------------------------
for format in json textproto binary table; do
  "$DCPLAN" fit --request="$T/good.textproto" --format=$format >"$T/a.$format"
  "$DCPLAN" fit --request="$T/good.pb" --format=$format >"$T/b.$format"
  if cmp -s "$T/a.$format" "$T/b.$format"; then pass "identical $format from text and binary"; else fail "$format output differs"; fi
done

# --- extreme but valid: plans, not errors ----------------------------------------------------------------
"$DCPLAN" fit --preset=seed --power=100GW --format=json >"$T/100gw.json"
check "100 GW" "0 71428568" "$? $(json_get "$T/100gw.json" "p['counts']['gpu_count']")"
"$DCPLAN" fit --preset=seed --power=1000TW --max_gpus=1G --format=json >"$T/1g.json"
check "10^9 GPUs" "0 1000000000 BINDING_CONSTRAINT_MAX_GPUS" \
  "$? $(json_get "$T/1g.json" "p['counts']['gpu_count'], p['binding_constraint']" | tr -d "(),'")"
"$DCPLAN" fit --preset=seed --power=10kW --format=json >"$T/tiny.json"
check "a cap below one server" "0 0 True" \
  "$? $(json_get "$T/tiny.json" "p['counts']['gpu_count'], p['notes'][0].startswith('no GPUs fit')" | tr -d "(),'")"

echo "bad_inputs_test: $rows bad inputs in the table"
[[ $rows -ge 50 ]] || fail "the table has $rows rows; it must keep at least 50"
finish bad_inputs_test

#!/usr/bin/env bash
# dcplan serve as a user starts it: the startup line names the loopback URL (an ephemeral port
# here), POST /v1/plan answers exactly what `dcplan fit --format=json` prints for the same request
# (compared after parsing), GET /v1/presets/NAME is `dcplan presets --preset=NAME` as JSON, bad
# flags and a taken port are one-line errors, and SIGTERM and SIGINT stop it with exit code 0.
# Everything binds to 127.0.0.1 and every wait is bounded.
source tests/cli_testlib.sh

pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT

# start_server NAME [FLAGS...]: starts dcplan serve, waits (up to 10 s) for its startup line and
# sets URL and PID.
start_server() {
  local name="$1"; shift
  "$DCPLAN" serve --port=0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  PID=$!
  pids+=("$PID")
  URL=""
  for _ in $(seq 100); do
    URL=$(sed -n 's/^dcplan: serving on \(http:\/\/127\.0\.0\.1:[0-9]*\/\)$/\1/p' "$TMP/$name.out")
    [[ -n "$URL" ]] && return 0
    sleep 0.1
  done
  fail "$name: no startup line: $(cat "$TMP/$name.out" "$TMP/$name.err")"
  return 1
}

# http METHOD URL BODY_FILE OUT_FILE: prints the status code.
http() {
  python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
method, url, body_file, out = sys.argv[1:5]
data = open(body_file, "rb").read() if body_file != "-" else None
req = urllib.request.Request(url, data=data, method=method,
                             headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        status, body = r.status, r.read()
except urllib.error.HTTPError as e:
    status, body = e.code, e.read()
open(out, "wb").write(body)
print(status)
PY
}

# stop_with SIGNAL: the server must exit with 0 within 5 s.
stop_with() {
  kill -"$1" "$PID"
  for _ in $(seq 50); do
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$PID" 2>/dev/null; then
    fail "SIG$1: still running after 5 s"
    return
  fi
  wait "$PID"
  check "SIG$1 stops it with exit code 0" 0 $?
}

start_server main || exit 1
pass "startup line: $URL"

# The request fit solves: h100-dgx under 50 MW, as JSON.
"$DCPLAN" fit --power=50MW --format=json >"$TMP/fit.json"
"$DCPLAN" presets --preset=h100-dgx --format=textproto >"$TMP/h100.textproto"
"$DCPLAN" convert --in="$TMP/h100.textproto" --out="$TMP/h100.json"
python3 -c "
import json; r = json.load(open('$TMP/h100.json'))
r.setdefault('constraints', {})['power_cap_watts'] = 50e6
# What --power=50MW records: the cap is the user's (the assumptions ledger says so).
r.setdefault('sources', []).append({'path': 'constraints.power_cap_watts', 'origin': 'ORIGIN_USER', 'source': '--power'})
json.dump(r, open('$TMP/request.json', 'w'))"
check "POST /v1/plan status" 200 "$(http POST "${URL}v1/plan" "$TMP/request.json" "$TMP/plan.json")"
check "POST /v1/plan equals fit --format=json" True \
  "$(python3 -c "import json; print(json.load(open('$TMP/plan.json')) == json.load(open('$TMP/fit.json')))")"
check "the plan's GPUs (README: 22,312 under 50 MW)" 22312 "$(json_get "$TMP/plan.json" "p['counts']['gpu_count']")"

check "GET /v1/presets/h100-dgx status" 200 "$(http GET "${URL}v1/presets/h100-dgx" - "$TMP/preset.json")"
check "GET /v1/presets/h100-dgx equals the preset" True \
  "$(python3 -c "import json; print(json.load(open('$TMP/preset.json')) == json.load(open('$TMP/h100.json')))")"

python3 -c "
import json; r = json.load(open('$TMP/request.json')); r['site']['pue'] = 0.9
json.dump(r, open('$TMP/bad.json', 'w'))"
check "bad PUE status" 400 "$(http POST "${URL}v1/plan" "$TMP/bad.json" "$TMP/bad_answer.json")"
check "bad PUE message" "{'error': 'site.pue must be >= 1.0, got 0.9', 'field': 'site.pue'}" \
  "$(json_get "$TMP/bad_answer.json" "p")"
check "GET / serves the page" 200 "$(http GET "$URL" - "$TMP/page.html")"

# The port this server holds cannot be taken twice.
port=${URL##*:}
port=${port%/}
expect_error "a taken port" "cannot listen on 127.0.0.1:$port" serve --port="$port"
expect_error "a bad port" '--port: expected a whole number from 0 to 65535, got "http"' serve --port=http
expect_error "a port out of range" "got \"70000\"" serve --port=70000
expect_error "a bad address" '--address: "localhost:80" is not an IP address' serve --address=localhost:80 --port=0
stop_with TERM
grep -q "dcplan: stopped" "$TMP/main.err" && pass "says it stopped" || fail "no stop message"

start_server second || exit 1
stop_with INT

"$DCPLAN" help serve >"$TMP/help.txt"
grep -q -- "--address=127.0.0.1" "$TMP/help.txt" && pass "help serve" || fail "help serve: $(cat "$TMP/help.txt")"
finish serve_test

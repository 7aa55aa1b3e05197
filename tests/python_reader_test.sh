#!/usr/bin/env bash
# Plans across languages: protoc generates Python from proto/*.proto at test time, dcplan writes the
# seed plan at 45.9 MW in binary and in JSON, and tests/python_reader.py (Debian's python3 and
# python3-protobuf, which ./bazelw installs) reads both and checks their fields; then Python writes a
# binary PlanRequest that dcplan solves to the same 32,784 GPUs.
set -uo pipefail
source "$TEST_SRCDIR/$TEST_WORKSPACE/tests/cli_testlib.sh"

ROOT="$TEST_SRCDIR/$TEST_WORKSPACE"
PYTHON=/usr/bin/python3   # Debian's, with python3-protobuf (not whatever python3 is first on PATH)
PROTOC=/usr/bin/protoc
GEN="$TMP/gen"
mkdir -p "$GEN"

"$PROTOC" -I "$ROOT" --python_out="$GEN" "$ROOT"/proto/*.proto
check "protoc --python_out" 0 $?

"$DCPLAN" fit --preset=seed --power=45.9MW --format=binary --out="$TMP/plan.pb"
check "dcplan writes binary" 0 $?
"$DCPLAN" fit --preset=seed --power=45.9MW --format=json --out="$TMP/plan.json"
check "dcplan writes JSON" 0 $?

if "$PYTHON" "$ROOT/tests/python_reader.py" "$GEN" "$TMP/plan.pb" "$TMP/plan.json"; then
  pass "Python reads both encodings"
else
  fail "Python reader"
fi

# The other way round: a request written by Python, solved by dcplan.
"$PYTHON" "$ROOT/tests/python_reader.py" "$GEN" --write-request "$TMP/request.pb"
check "Python writes a request" 0 $?
"$DCPLAN" fit --request="$TMP/request.pb" --format=json > "$TMP/from_python.json"
check "dcplan solves Python's request" 32784 "$(json_get "$TMP/from_python.json" "p['counts']['gpu_count']")"

# A plan from a newer schema than the reader knows is refused.
"$PYTHON" - "$GEN" "$TMP/plan.pb" "$TMP/future.pb" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from proto import plan_pb2
p = plan_pb2.Plan()
p.ParseFromString(open(sys.argv[2], "rb").read())
p.schema_version = 99
open(sys.argv[3], "wb").write(p.SerializeToString())
PY
out=$("$PYTHON" "$ROOT/tests/python_reader.py" "$GEN" "$TMP/future.pb" "$TMP/plan.json")
[[ $? -ne 0 && "$out" == *"schema_version 99 is newer"* ]] && pass "newer schema refused" ||
  fail "newer schema: $out"

finish python_reader_test

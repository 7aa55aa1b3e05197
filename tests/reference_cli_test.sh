#!/usr/bin/env bash
# The reference workload end to end (issue 23): every real preset's MFU comes from the step model on
# llama3-405b and says so; the seed keeps the chapter's curve exactly; --mfu_model=log_linear brings
# the curve back; the ledger names the job as a default; bad values are errors naming the flag.
set -uo pipefail

source "$(dirname "$0")/cli_testlib.sh"

# h100-dgx at 50 MW: the MFU line names the workload and the model.
"$DCPLAN" fit --preset=h100-dgx --power=50MW > "$TMP/h100.txt"
check "h100 fit exit" 0 $?
check "MFU line names the reference workload" 1 \
  "$(grep -c '^  MFU .*(reference workload llama3-405b, step model; batch 2,048 x 8,192 tokens' "$TMP/h100.txt")"

# The seed keeps the chapter's table exactly: 32,768 GPUs, MFU 0.62 - 0.02 x 15 = 32.0%,
# peak 32.77 EF/s, realized 32.768 x 0.32 = 10.49 EF/s, 32,768 x 1.4 kW = 45.9 MW.
"$DCPLAN" scale --preset=seed --gpus=32768 > "$TMP/seed.txt"
check "seed row" "32,768 32.77 32.0% 10.49 45.9 45.9" "$(awk 'NR == 2 {print $1, $2, $3, $4, $5, $6}' "$TMP/seed.txt")"

# --mfu_model=log_linear: the chapter's curve on H100 hardware: at 22,312 GPUs (the 50 MW answer,
# which MFU cannot move) 0.62 - 0.02 x log2(22,312) = 0.62 - 0.02 x 14.446 = 33.1%.
"$DCPLAN" fit --preset=h100-dgx --power=50MW --mfu_model=log_linear --format=json > "$TMP/ll.json"
check "log_linear gpus" 22312 "$(json_get "$TMP/ll.json" "p['counts']['gpu_count']")"
check "log_linear MFU" 0.331 "$(json_get "$TMP/ll.json" "round(p['compute']['mfu'], 3)")"
"$DCPLAN" fit --preset=h100-dgx --power=50MW --format=json > "$TMP/ref.json"
check "reference keeps the GPU count" 22312 "$(json_get "$TMP/ref.json" "p['counts']['gpu_count']")"
check "reference efficiency model" "reference workload llama3-405b, step model" \
  "$(json_get "$TMP/ref.json" "p['compute']['efficiency_model'].split(';')[0]")"

# The ledger: the reference job as a default, with its source.
check "ledger names the job" "llama3-405b ORIGIN_DEFAULT" \
  "$(json_get "$TMP/ref.json" "*[(a['text_value'], a['origin']) for a in p['assumptions'] if a['path'] == 'efficiency.reference_workload.model'][0]")"
check "ledger batch growth" "1024 ORIGIN_DEFAULT" \
  "$(json_get "$TMP/ref.json" "*[(a['value'], a['origin']) for a in p['assumptions'] if a['path'] == 'efficiency.reference_workload.batch_tokens_per_gpu'][0]")"

# Another reference model through --set; a fixed batch stops growing: at 65,536 GPUs the published
# 2,048 sequences give each of 512 replicas (tp 8 x pp 16) 4 sequences, so MFU falls well below the
# growing batch's (8,192 sequences).
"$DCPLAN" scale --preset=h100-dgx --gpus=65536 --format=json > "$TMP/grow.json"
"$DCPLAN" scale --preset=h100-dgx --gpus=65536 --set=efficiency.reference_workload.fixed_batch=true --format=json > "$TMP/fixed.json"
check "fixed batch is lower at 65,536 GPUs" True \
  "$(python3 -c "import json; g = json.load(open('$TMP/grow.json')); f = json.load(open('$TMP/fixed.json')); print(f['rows'][0]['compute']['mfu'] < g['rows'][0]['compute']['mfu'] - 0.1)" 2>&1)"
"$DCPLAN" fit --preset=h100-dgx --power=50MW --set=efficiency.reference_workload.model=llama3-70b > "$TMP/70b.txt"
check "another reference model" 1 "$(grep -c '^  MFU .*reference workload llama3-70b' "$TMP/70b.txt")"

# Bad input: named in the user's words.
"$DCPLAN" fit --preset=h100-dgx --power=50MW --mfu_model=toy > "$TMP/out.txt" 2> "$TMP/err.txt"
check "bad --mfu_model exit" 1 $?
check "bad --mfu_model message" 'dcplan: --mfu_model must be reference or log_linear, got "toy"' "$(cat "$TMP/err.txt")"
"$DCPLAN" fit --preset=h100-dgx --power=50MW --set=efficiency.reference_workload.model=llama9 > "$TMP/out.txt" 2> "$TMP/err.txt"
check "unknown reference model exit" 1 $?
check "unknown reference model message" 1 "$(grep -c 'unknown model "llama9"; known models: ' "$TMP/err.txt")"

finish reference_cli_test

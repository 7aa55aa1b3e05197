#!/usr/bin/env bash
# Smoke test of examples/calibrate_efficiency: it reads the published runs, fits, and prints the
# constants as a calibration block and one table row per run; a missing file is a one-line error.
set -uo pipefail
BIN="$TEST_SRCDIR/$TEST_WORKSPACE/examples/calibrate_efficiency"
DATA="$TEST_SRCDIR/$TEST_WORKSPACE/tests/data"
out=$("$BIN" --csv="$DATA/measured_training_runs.csv" --setup="$DATA/measured_training_runs_setup.csv")
rc=$?
failures=0
[[ $rc -eq 0 ]] || { echo "FAIL: exit $rc"; failures=$((failures + 1)); }
# One fitted constant per family (issue 19): the A100 and H100 fits, their held constants, and the
# in-sample, leave-one-out and leave-one-source-out errors per family on the header line.
for want in "calibration {" "kernel_efficiency: 0.646" "gemm_knee_flops_per_byte: 0.000" \
    "scale_up_bandwidth_efficiency: 0.800" "scale_out_bandwidth_efficiency: 0.800" \
    "memory_bound_factor: 1.000" "A100-80GB: fitted to 14 runs: RMS error 2.18" \
    "leave-one-source-out RMS 3.62" "H100-SXM5: fitted to 8 runs: RMS error 1.31" \
    "leave-one-source-out RMS 1.90" "A100-80GB: 1 fitted constant(s): kernel_efficiency" \
    "H100-SXM5: 1 fitted constant(s): kernel_efficiency" \
    "kernel_efficiency: 0.592" "attention_efficiency: 0.350" "leave-one-out range"; do
  if [[ "$out" == *"$want"* ]]; then echo "PASS: $want"; else echo "FAIL: no [$want]"; failures=$((failures + 1)); fi
done
rows=$(echo "$out" | grep -c -E "^(narayanan2021_t1|mtnlg2022|bloom2022) ")
[[ $rows -eq 14 ]] && echo "PASS: 14 A100 rows" || { echo "FAIL: $rows A100 rows"; failures=$((failures + 1)); }
rows=$(echo "$out" | grep -c -E "^(llama3_2024|llama3_2024_131k|nemotron4_340b_2024|nemotron4_15b_2024) ")
[[ $rows -eq 9 ]] && echo "PASS: 9 H100 rows" || { echo "FAIL: $rows H100 rows"; failures=$((failures + 1)); }
# The FP8 check rows of current software: two in the H100 table, four under the carried H100 fit.
rows=$(echo "$out" | grep -c -E "^nemo2511_fp8")
[[ $rows -eq 6 ]] && echo "PASS: 6 FP8 check rows" || { echo "FAIL: $rows FP8 check rows"; failures=$((failures + 1)); }
for want in "B200: no run fitted; 2 check row(s) under the H100-SXM5 fit" \
    "GB200-NVL72: no run fitted; 3 check row(s) under the H100-SXM5 fit"; do
  if [[ "$out" == *"$want"* ]]; then echo "PASS: $want"; else echo "FAIL: no [$want]"; failures=$((failures + 1)); fi
done
err=$("$BIN" --csv=/nonexistent.csv 2>&1 >/dev/null); rc=$?
if [[ $rc -ne 0 && "$err" == *"cannot read /nonexistent.csv"* ]]; then echo "PASS: missing file"; else
  echo "FAIL: missing file: rc=$rc [$err]"; failures=$((failures + 1)); fi
echo "calibrate_efficiency_test: $failures failure(s)"
[[ $failures -eq 0 ]]

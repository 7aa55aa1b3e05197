#!/usr/bin/env bash
# Runs the library example and checks its answer. h100-dgx under 50 MW: the number must be a multiple
# of 8 (whole DGX servers) and, from the preset's 10.2 kW servers at its design-day PUE of 1.55, at
# most 50e6 / (10.2 kW x 1.55 / 8) = 25,300 GPUs; the fabric, storage and frontend (4%) and head
# nodes come on top, so at least 85% of that: 21,505 .. 25,300 GPUs.
set -euo pipefail
out=$(examples/how_many_gpus 50)
echo "$out"
gpus=$(echo "$out" | awk '{print $1}')
[[ $gpus =~ ^[0-9]+$ ]] || { echo "not a number: $gpus"; exit 1; }
(( gpus % 8 == 0 )) || { echo "$gpus is not whole servers"; exit 1; }
(( gpus >= 21505 && gpus <= 25300 )) || { echo "$gpus out of the expected range"; exit 1; }
echo "$out" | grep -q "fit in 50 MW"

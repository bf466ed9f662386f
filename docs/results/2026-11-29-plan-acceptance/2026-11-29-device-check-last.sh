#!/usr/bin/env bash
# Last call of the device check: the shards not yet done, then the sanitizers and a short bench.
cd "$(dirname "$0")/.."; SECONDS=0
LIMIT=${LIMIT:-585} NEED=${NEED:-60} bash cs/dcs.sh
left=$((585-SECONDS)); echo "sanitizers+bench with ${left}s"
OUT=$OUT/last DEVICE_CHECK_PREBUILT=build-device DEVICE_CHECK_BUDGET=$left DEVICE_CHECK_STAGES=sanitizers,bench scripts/device-check --mnk 4096 --kernels 'f16.14*,bf16.14*,tf32.09*,dgemm.09*,sgemm.12*' > $OUT/dc-last.txt 2>&1
echo "device-check rc=$? at ${SECONDS}s"; grep -A20 SUMMARY $OUT/dc-last.txt | head -24

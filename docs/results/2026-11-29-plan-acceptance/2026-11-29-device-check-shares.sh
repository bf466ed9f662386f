#!/usr/bin/env bash
# Device check in shares on one GPU: builds once (build-device persists on the warm machine), then runs
# GPU shards i/6 not yet done (build-device/.shards-done) while time is left; STAGES_LAST runs at the end.
cd "$(dirname "$0")/.."; SECONDS=0; R=$PWD
LIMIT=${LIMIT:-585}
done_file=build-device/.shards-done
if [[ ! -f build-device/gemmkit ]]; then
  OUT=$OUT/build DEVICE_CHECK_BUDGET=$((LIMIT-10)) DEVICE_CHECK_SHARD=1/6 DEVICE_CHECK_STAGES=host,gpu scripts/device-check > $OUT/dc-build-s1.txt 2>&1
  echo "first (build, host, shard 1/6) rc=$? at ${SECONDS}s"; tail -25 $OUT/dc-build-s1.txt
  [[ -f build-device/gemmkit ]] && echo 1 >> $done_file
fi
for i in 1 2 3 4 5 6; do
  grep -qx $i $done_file 2>/dev/null && continue
  left=$((LIMIT-SECONDS))
  (( left < ${NEED:-150} )) && { echo "stop before shard $i: ${left}s left"; break; }
  OUT=$OUT/s$i DEVICE_CHECK_PREBUILT=build-device DEVICE_CHECK_BUDGET=$left DEVICE_CHECK_SHARD=$i/6 DEVICE_CHECK_STAGES=gpu scripts/device-check > $OUT/dc-s$i.txt 2>&1
  rc=$?; echo "shard $i/6 rc=$rc at ${SECONDS}s"; grep -A12 'SUMMARY' $OUT/dc-s$i.txt | head -14
  grep -q 'timed out' $OUT/dc-s$i.txt || echo $i >> $done_file
done
echo "done shards: $(tr '\n' ' ' < $done_file) at ${SECONDS}s"

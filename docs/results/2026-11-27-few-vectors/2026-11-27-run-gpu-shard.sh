set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
i=$1; n=$2
xz -dc .prebuilt/gemmkit_gpu_tests.xz > /tmp/gpu_tests && chmod +x /tmp/gpu_tests
nvidia-smi -L > $L/device.txt; echo "commit $(git rev-parse --short HEAD)" >> $L/device.txt
OMP_NUM_THREADS=16 GTEST_SHARD_INDEX=$((i-1)) GTEST_TOTAL_SHARDS=$n timeout ${LIMIT:-540} /tmp/gpu_tests --gtest_brief=1 > $L/gpu-tests-${i}of$n.log 2>&1; echo "share $i/$n rc=$? ${SECONDS}s" >> $OUT/summary.txt
f=$L/gpu-tests-${i}of$n.log; echo "$(grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $f | paste -sd' ' | cut -c1-300)" >> $OUT/summary.txt; grep -E '^\[  FAILED' $f | head -20 >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -B5 "Failure" $f | head -40

set -u
OUT=${OUT:-/tmp/o}; mkdir -p $OUT/logs
xz -dc .prebuilt/gemmkit_gpu_tests.xz > /tmp/gpu_tests && chmod +x /tmp/gpu_tests
nvidia-smi -L > $OUT/logs/device.txt
n=$(nvidia-smi -L | wc -l)
for ((g=0; g<n; g++)); do
  (CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=$((16/n)) GTEST_SHARD_INDEX=$g GTEST_TOTAL_SHARDS=$n timeout ${LIMIT:-500} /tmp/gpu_tests --gtest_brief=1 > $OUT/logs/gpu-tests-$((g+1))of$n.log 2>&1; echo "share $((g+1))/$n rc=$? ${SECONDS}s" >> $OUT/summary.txt) &
done
wait
for f in $OUT/logs/gpu-tests-*.log; do echo "$f: $(grep -E '^\[  (PASSED|FAILED)|SKIPPED \]|tests? from .* ran' $f | paste -sd' ' | cut -c1-300)"; grep -E '^\[  FAILED' $f | head -20; done >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs && rm -rf $OUT/logs
cat $OUT/summary.txt

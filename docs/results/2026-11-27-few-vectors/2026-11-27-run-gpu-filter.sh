set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit_gpu_tests.xz > /tmp/gpu_tests && chmod +x /tmp/gpu_tests
nvidia-smi -L > $L/device.txt
# The capture test first, alone, in a fresh process: nothing has created the pool yet.
OMP_NUM_THREADS=16 timeout 60 /tmp/gpu_tests --gtest_filter='FewVectorsGpuTest.SplitKUnderGraphCapture*' > $L/capture-first.log 2>&1; echo "capture-first rc=$?" >> $OUT/summary.txt
OMP_NUM_THREADS=16 timeout 400 /tmp/gpu_tests --gtest_brief=1 --gtest_repeat=3 --gtest_filter='FewVectors*:Api*Concurrent*' > $L/filtered.log 2>&1; echo "filtered rc=$? ${SECONDS}s" >> $OUT/summary.txt
grep -E '^\[  (PASSED|FAILED)|tests? from .* ran' $L/filtered.log $L/capture-first.log >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -A6 "Failure" $L/capture-first.log $L/filtered.log | head -30

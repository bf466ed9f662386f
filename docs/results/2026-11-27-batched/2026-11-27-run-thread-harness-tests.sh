set -u
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
xz -dc .prebuilt/gemmkit_gpu_tests.xz > /tmp/gt && chmod +x /tmp/gt
nvidia-smi -L > $OUT/device.txt
timeout 120 /tmp/gt --gtest_filter='*Batched*:FewVectorsGpuTest.*:ApiGpuTest.*' --gtest_brief=1 > $OUT/tests.log 2>&1; echo "rc=$? ${SECONDS}s" >> $OUT/tests.log
tail -5 $OUT/tests.log

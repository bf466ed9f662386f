set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer
xz -dc .prebuilt/gemmkit_gpu_tests.xz > /tmp/gt && chmod +x /tmp/gt
nvidia-smi -L > $L/device.txt
timeout 120 /tmp/gt --gtest_filter='*Batched*:ApiGpuTest.*:PlanGpuTest.*:FewVectorsGpuTest.*:PadCopyGpu.*' --gtest_brief=1 > $L/batched-tests.log 2>&1; echo "batched+api rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 280 /tmp/gt --gtest_filter='Registry/KernelCorrectness.*f16_06_*:Registry/KernelCorrectness.*f16_07_*:Registry/KernelCorrectness.*f16_08_*:Registry/KernelCorrectness.*f16_09_*:Registry/KernelCorrectness.*f16_1?_*:Registry/KernelCorrectness.*tf32_0?_*' --gtest_brief=1 > $L/hopper-tests.log 2>&1; echo "hopper rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 120 compute-sanitizer --tool memcheck /tmp/gt --gtest_filter='Types/BatchedGpuTest.*bf16_tma*:Types/BatchedGpuTest.*f32_arrays*:Types/BatchedGpuTest.*f64_shared*:BatchedApiGpuTest.Graph*' --gtest_brief=1 > $L/memcheck.log 2>&1; echo "memcheck rc=$? ${SECONDS}s" >> $OUT/summary.txt
for f in $L/*.log; do echo "$f: $(grep -E '^\[  (PASSED|FAILED)|tests? from .* ran|ERROR SUMMARY' $f | paste -sd' ' | cut -c1-300)"; grep -E '^\[  FAILED' $f | head -30; done >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt

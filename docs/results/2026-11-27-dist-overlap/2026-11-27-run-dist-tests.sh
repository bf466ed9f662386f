set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
export NCCL_NVLS_ENABLE=0
xz -dc .prebuilt/gemmkit_dist_gpu_tests.xz > /tmp/dist_tests && chmod +x /tmp/dist_tests
nvidia-smi -L > $L/device.txt; echo "commit $(git rev-parse --short HEAD)" >> $L/device.txt
for py in python3 python3.12; do d=$($py -c "import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], 'lib'))" 2>/dev/null) && break; done
echo "nccl lib: ${d:-none}" >> $L/device.txt; ls ${d:-/nonexistent} >> $L/device.txt 2>&1
export LD_LIBRARY_PATH=${d:-}:${LD_LIBRARY_PATH:-}
timeout 300 /tmp/dist_tests --gtest_brief=1 > $L/dist-tests.log 2>&1; echo "dist tests rc=$? ${SECONDS}s" >> $OUT/summary.txt
grep -E '^\[  (PASSED|FAILED)|tests? from .* ran|SKIPPED \]' $L/dist-tests.log | head -20 >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $L/device.txt; cat $OUT/summary.txt; grep -B3 -A8 "Failure" $L/dist-tests.log | head -40

#!/usr/bin/env bash
# The staged copy-out on one H200: build, verify the staged path, bench, sanitizers, GPU tests.
cd "$(dirname "$0")"; SECONDS=0; export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 && cmake --build build-device -j16 --target gemmkit gemmkit_gpu_tests >> $OUT/build.log 2>&1
echo "build rc=$? ${SECONDS}s; ptxas spill/lmem lines: $(grep -c 'spilled\|lmem' $OUT/build.log)"
B=build-device/gemmkit
[ -x $B ] || exit 1
{ timeout 90 $B verify --kernels 'f16.1[1-4]*,bf16.1[34]*,tf32.0[7-9]*' --mnk 2049x2049x64,7x33x129,4097x4095x257,1000x1000x64,8196x8196x64 --ops all --quiet; echo "verify rc=$?"
  timeout 60 $B verify --kernels 'f16.1[34]*,bf16.14*' --c-type f32 --mnk 2049x2049x64,4097x4095x257,8196x8196x64 --ops all --quiet; echo "verify f32 C rc=$?"; } > $OUT/verify.txt 2>&1
tail -n 4 $OUT/verify.txt; echo "verify done ${SECONDS}s"
timeout 150 $B bench --kernels 'f16.14*,bf16.14*,tf32.09*' --mnk 2049,4097,1000,7x33x129,8196x8196x1024,2048,4096 --iters 20 > $OUT/bench.txt 2>&1
grep -E "^(f16|bf16|tf32|cublas)" $OUT/bench.txt; echo "bench done ${SECONDS}s"
{ timeout 60 compute-sanitizer --tool memcheck $B verify --kernels 'f16.14*,tf32.09*' --mnk 2049x2049x64,7x33x129 --ops NN --quiet 2>&1 | tail -n 3
  timeout 45 compute-sanitizer --tool racecheck $B verify --kernels 'f16.14*' --mnk 300x200x64 --ops NN --quiet 2>&1 | tail -n 3; } > $OUT/sanitizers.txt 2>&1
cat $OUT/sanitizers.txt; echo "sanitizers done ${SECONDS}s"
timeout $((585-SECONDS)) build-device/tests/gemmkit_gpu_tests --gtest_brief=1 --gtest_filter='*f16_11_*:*f16_12_*:*f16_13_*:*f16_14_*:*tf32_07_*:*tf32_08_*:*tf32_09_*:*Batched*:*Epilogue*:*Plan*' > $OUT/gpu-tests.txt 2>&1
echo "gpu tests rc=$? ${SECONDS}s"; grep -E "PASSED|FAILED|tests ran" $OUT/gpu-tests.txt | tail -n 8

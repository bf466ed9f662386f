#!/usr/bin/env bash
# Issue 39, call 3: af130f2 (HEAD, carried) against this tree (FP64 copy plans kept for the 16-byte copies),
# gemmkit-ab in one process, twice; the GPU cases of the FP64 DMMA steps and the batched/epilogue suites.
cd "$(dirname "$0")/.."; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
( mkdir -p /tmp/head && xz -dc cs/.prebuilt_head/libgemmkit.so.xz > /tmp/head/libgemmkit.so ) &
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; tail -2 /tmp/b.log
wait
F='*dgemm_07*:*dgemm_08*:*dgemm_09*:Types/BatchedGpuTest.*:Types/EpilogueGpuTest.*:BatchedApiGpuTest.*:EpilogueApiGpuTest.*'
timeout 150 build-device/tests/gemmkit_gpu_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/gpu-cases.txt 2>&1
echo "gpu cases rc=$? ${SECONDS}s"; tail -3 $OUT/gpu-cases.txt
AB="build-device/gemmkit-ab --lib-a /tmp/head/libgemmkit.so --lib-b build-device/libgemmkit.so --iters 30"
for rep in 1 2; do
  $AB --kernel dgemm.09_sized_tiles,dgemm.08_dmma_stream_k,dgemm.07_dmma_warp_ring --type f64 --mnk 1000,4096,4096x16x4096,512x512x8192,4097
done > $OUT/ab.txt 2>&1
echo "ab rc=$? ${SECONDS}s"; grep -E '^dgemm' $OUT/ab.txt
echo "end ${SECONDS}s"
left=$((560-SECONDS)); echo "sanitizers with ${left}s left"
(( left > 60 )) && { OUT=/tmp/san DEVICE_CHECK_PREBUILT=build-device DEVICE_CHECK_BUDGET=$left DEVICE_CHECK_STAGES=sanitizers timeout $left scripts/device-check > $OUT/sanitizers.txt 2>&1; echo "sanitizers rc=$? ${SECONDS}s"; tail -15 $OUT/sanitizers.txt; cp /tmp/san/sanitizer-memcheck.log /tmp/san/sanitizer-racecheck.log $OUT/ 2>/dev/null; }

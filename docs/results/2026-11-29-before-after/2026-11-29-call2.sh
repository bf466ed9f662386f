#!/usr/bin/env bash
# Issue 39, call 2: build the tree (FP64 copy plans kept: computed_once); GPU cases of the changed kernels;
# gemmkit-ab 9fe087a vs this tree: FP64 DMMA steps, and the other rows call 1's bench-before-after flagged.
cd "$(dirname "$0")/.."; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
( mkdir -p /tmp/b9/build && xz -dc cs/.prebuilt9/libgemmkit.so.xz > /tmp/b9/build/libgemmkit.so && cp cs/.prebuilt9/gemmkit /tmp/b9/build/ ) &
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; tail -2 /tmp/b.log
wait
F='*dgemm_07*:*dgemm_08*:*dgemm_09*:*f16_04*:*f16_05*:*bf16_05*:*tf32_06*:Types/BatchedGpuTest.*:Types/EpilogueGpuTest.*:BatchedApiGpuTest.*:EpilogueApiGpuTest.*'
timeout 200 build-device/tests/gemmkit_gpu_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/gpu-cases.txt 2>&1
echo "gpu cases rc=$? ${SECONDS}s"; tail -4 $OUT/gpu-cases.txt
AB="build-device/gemmkit-ab --lib-a /tmp/b9/build/libgemmkit.so --lib-b build-device/libgemmkit.so --iters 30"
{ $AB --kernel dgemm.09_sized_tiles,dgemm.08_dmma_stream_k --type f64 --mnk 1000,2049,4097,8192,4096x16x4096,16x4096x4096,7x33x129
  $AB --kernel f16.14_sized_tiles --type f16 --mnk 16384x16384x1024,8192x8192x1024,8192,1024
  $AB --kernel tf32.06_mma_256x128x16_s4 --type tf32 --mnk 4096,8192,1024
  $AB --kernel sgemm.13_split_k_64x128x16_s3 --type f32 --mnk 2049
} > $OUT/ab.txt 2>&1
echo "ab rc=$? ${SECONDS}s"; grep -E '^[a-z]' $OUT/ab.txt | grep -v "^a:\|^b:\|^f16, \|^tf32, \|^f32, \|^f64, \|^kernel"
echo "end ${SECONDS}s"

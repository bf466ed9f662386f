#!/usr/bin/env bash
# Issue 39, call 1: build HEAD; gemmkit-ab 9fe087a vs HEAD; bench-before-after --quick (16-bit+tf32, then f32/f64).
cd "$(dirname "$0")/.."; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
( mkdir -p /tmp/b9/build && xz -dc cs/.prebuilt9/libgemmkit.so.xz > /tmp/b9/build/libgemmkit.so && cp cs/.prebuilt9/gemmkit /tmp/b9/build/ ) &
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; tail -2 /tmp/b.log
wait
AB="build-device/gemmkit-ab --lib-a /tmp/b9/build/libgemmkit.so --lib-b build-device/libgemmkit.so --iters 30"
{ $AB --kernel f16.05_tuned_256x128x32_s4,f16.04_cp_async_s4 --type f16 --mnk 64,256,1024,512x512x8192,2049,4096
  $AB --kernel tf32.06_mma_256x128x16_s4 --type tf32 --mnk 64,256,1024,512x512x8192,2049,4096
  $AB --kernel sgemm.10_warp_tiling --type f32 --mnk 1024,4096
  $AB --kernel dgemm.09_sized_tiles --type f64 --mnk 64,1000,2049,4096
} > $OUT/ab.txt 2>&1
echo "ab rc=$? ${SECONDS}s"; grep -E 'b/a|^[a-z]' $OUT/ab.txt | tail -40
BA="scripts/bench-before-after --before /tmp/b9/build/gemmkit --after $R/build-device/gemmkit --quick --out /tmp/ba"
timeout $((585-SECONDS)) $BA --types f16,bf16,tf32 > $OUT/ba-16.log 2>&1; echo "ba16 rc=$? ${SECONDS}s"
(( SECONDS < 480 )) && { timeout $((585-SECONDS)) $BA --types f32,f64 > $OUT/ba-32.log 2>&1; echo "ba32 rc=$? ${SECONDS}s"; }
scripts/bench-before-after --summarize-only /tmp/ba > $OUT/ba-summary.txt 2>&1; cp /tmp/ba/summary.csv $OUT/ba-summary.csv 2>/dev/null
grep -E 'SLOWER|verdict|slower' $OUT/ba-summary.txt | head -40
echo "end ${SECONDS}s"

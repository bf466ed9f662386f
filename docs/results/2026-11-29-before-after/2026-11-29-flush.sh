#!/usr/bin/env bash
# Issue 39: is HEAD's extra time at 64^3/1024^3 (f16.05's and tf32.06's cp.async kernels) a cold-cache
# effect? gemmkit-ab with and without its L2 flush, 9fe087a's library against f5f716c's (built here).
cd "$(dirname "$0")"; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/b9 && xz -dc .prebuilt9/libgemmkit.so.xz > /tmp/b9/libgemmkit.so &
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && (ninja -C build-device -j16 gemmkit-ab libgemmkit.so >> /tmp/b.log 2>&1 || cmake --build build-device -j16 >> /tmp/b.log 2>&1); echo "build rc=$? ${SECONDS}s"; tail -1 /tmp/b.log
wait
AB="$R/build-device/gemmkit-ab --lib-a /tmp/b9/libgemmkit.so --lib-b $R/build-device/libgemmkit.so --iters 30"
for fl in none write; do
  $AB --flush $fl --kernel f16.05_tuned_256x128x32_s4 --type f16 --mnk 64,256,1024,512x512x8192
  $AB --flush $fl --kernel tf32.06_mma_256x128x16_s4 --type tf32 --mnk 64,1024
done > $OUT/ab-flush.txt 2>&1
echo "ab done ${SECONDS}s"; grep -E '^(f16|tf32)|flushed' $OUT/ab-flush.txt
M='gpu__time_duration.sum,sm__cycles_active.max,smsp__cycles_active.max,smsp__inst_executed.sum,dram__bytes_read.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio'
for lib in /tmp/b9/libgemmkit.so $R/build-device/libgemmkit.so; do
  echo "=== $lib"
  timeout 60 ncu --clock-control none --cache-control none --metrics "$M" $R/build-device/gemmkit-ab --lib-a $lib --lib-b $lib \
    --kernel f16.05_tuned_256x128x32_s4 --type f16 --mnk 64 --iters 1 2>&1 | grep -E '^    [a-z]' | head -24
done > $OUT/ncu-active.txt 2>&1
cat $OUT/ncu-active.txt | cut -c1-140
echo "end ${SECONDS}s"

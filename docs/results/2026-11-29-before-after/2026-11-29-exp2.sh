#!/usr/bin/env bash
# Issue 39: the copy plan's step kept in a register (mma_slab.cuh) against 9fe087a, one H200.
cd "$(dirname "$0")"; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/b9 && xz -dc .prebuilt9/libgemmkit.so.xz > /tmp/b9/libgemmkit.so && cp .prebuilt9/gemmkit /tmp/b9/gemmkit && chmod +x /tmp/b9/gemmkit
B="env LD_LIBRARY_PATH=/tmp/b9 /tmp/b9/gemmkit"
( cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 --target gemmkit >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; grep -iE 'ptxas.*(warn|spill|lmem)' /tmp/b.log | head -5 ) &
( xz -dc .sass/fix_pipeline.cubin.xz > /tmp/fix.cubin; cuobjdump -sass /tmp/fix.cubin > /tmp/fix.sass
  P='cp_async_pipeline_kernelINS0_11PipelineCfgILi128ELi128ELi32ELi64ELi64ELi4ELb0ELb0EEENS_12GroupedOrderILi8EEE6__halfS6_Lb0ELb0E'
  python3 .sass/loopdump.py /tmp/fix.sass "$P" > $OUT/sass-fix-cp-async-f16-nn.txt ) &
wait
A=$R/build-device/gemmkit
timeout 60 $A verify --kernels 'f16.05*,bf16.05*,tf32.06*' --mnk '7,33,127x129x33,64,1024,512x512x8192' --ops all --quiet 2>&1 | tail -3
K='f16.05*,bf16.05*,tf32.06*'; SH='64,1024,512x512x8192,2049,4096'
for o in b a a b; do
  bin=$B; [ $o = a ] && bin=$A
  echo "=== $o" >> $OUT/bench.txt
  timeout $((560-SECONDS)) $bin bench --kernels "$K" --mnk $SH --iters 10 2>&1 | grep -E '^(f16|bf16|tf32|cublas)' >> $OUT/bench.txt
  echo "bench $o done ${SECONDS}s"
done
grep -E '^===|^f16.05' $OUT/bench.txt

#!/usr/bin/env bash
# Issue 39: with_reads (559afeb/f5f716c) against 9fe087a, same run, gemmkit-ab ABBA + L2 flush.
cd "$(dirname "$0")"; R=$PWD
mkdir -p /tmp/b9 && [[ -f /tmp/b9/libgemmkit.so ]] || xz -dc .prebuilt9/libgemmkit.so.xz > /tmp/b9/libgemmkit.so
AB="$R/build-device/gemmkit-ab --lib-a /tmp/b9/libgemmkit.so --lib-b $R/build-device/libgemmkit.so --iters ${ITERS:-30}"
S=64,1024,512x512x8192,2049,4096
{ $AB --kernel f16.05_tuned_256x128x32_s4 --type f16 --mnk $S
  $AB --kernel tf32.06_mma_256x128x16_s4 --type tf32 --mnk $S
  $AB --kernel dgemm.09_sized_tiles,dgemm.08_dmma_stream_k --type f64 --mnk 64,1024,2049,4096
  $AB --kernel sgemm.13_split_k_128x64x16_s3,sgemm.10_warp_tiling --type f32 --mnk 64,1024,2049,4096
} > $OUT/ab.txt 2>&1
echo "ab rc=$?"; cat $OUT/ab.txt

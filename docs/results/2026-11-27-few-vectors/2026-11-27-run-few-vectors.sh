set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gemmkit && chmod +x /tmp/gemmkit
G=/tmp/gemmkit
nvidia-smi -L > $L/device.txt; echo "commit $(git rev-parse --short HEAD) + working tree" >> $L/device.txt
S=3000x16x2100,16x3000x2100,4100x1x1500,1x4100x1500,2050x11x3001,1500x24x2000,4096x16x4096,16x4096x4096,7x7x7,1x1x1,33x33x33,300x1x7,65x17x1000,1000x999x65
( timeout 120 $G verify --kernels '*few_vectors*' --mnk $S --ops all --quiet > $L/verify.log 2>&1; echo "verify rc=$? ${SECONDS}s" >> $OUT/summary.txt
  timeout 40 $G verify --kernels 'f16.15*,bf16.15*' --c-type f32 --mnk $S --ops all --quiet > $L/verify-c32.log 2>&1; echo "verify c32 rc=$? ${SECONDS}s" >> $OUT/summary.txt )
K='*few_vectors*,f16.14_sized_tiles,bf16.14_sized_tiles,tf32.09_sized_tiles,dgemm.09_sized_tiles,sgemm.12_async_128x64x16_s3'
timeout 150 $G bench --kernels "$K" --mnk 4096x16x4096,14336x16x4096,4096x1x4096,4096x8x4096,28672x16x8192 --ops TN --warmup 2 --iters 10 --max-seconds 0.5 --quiet --csv $L/fv-tn.csv > $L/fv-tn.log 2>&1; echo "bench TN rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 80 $G bench --kernels "$K" --mnk 4096x16x4096,16x4096x4096,16x14336x4096 --ops NN --warmup 2 --iters 10 --max-seconds 0.5 --quiet --csv $L/fv-nn.csv > $L/fv-nn.log 2>&1; echo "bench NN rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 20 $G bandwidth --mib 64,256,1024 --iters 10 > $L/bandwidth.log 2>&1; echo "bandwidth rc=$? ${SECONDS}s" >> $OUT/summary.txt
echo skip-shapes
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; tail -3 $L/verify.log; grep -E 'few_vectors|cublas' $L/fv-tn.log $L/fv-nn.log | cut -c1-150 | sed 's/.*log://'

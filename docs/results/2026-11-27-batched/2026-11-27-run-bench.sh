set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gk && chmod +x /tmp/gk
nvidia-smi -L > $L/device.txt
timeout 120 /tmp/gk verify --kernels 'f16.1[0-4]*,bf16.1[0-4]*,tf32.0[7-9]*,f16.0[6-9]*' --mnk 1,7x33x129,64x64x16,129x127x255,256x512x1000,1000,1024x1024x4096,2049x257x300 --ops all > $L/verify-hopper.log 2>&1; echo "verify rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 80 /tmp/gk verify --kernels 'f16.1[0-4]*,bf16.1[0-4]*,tf32.0[7-9]*' --mnk 4096,4097,8192x256x4096 --ops NN,TN > $L/verify-hopper-big.log 2>&1; echo "verify-big rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 220 /tmp/gk bench --suite batched --csv $L/batched.csv > $L/batched.log 2>&1; echo "batched rc=$? ${SECONDS}s" >> $OUT/summary.txt
timeout 120 /tmp/gk bench --suite shapes --types bf16,f16 --csv $L/shapes.csv > $L/shapes.log 2>&1; echo "shapes rc=$? ${SECONDS}s" >> $OUT/summary.txt
tail -3 $L/verify-hopper.log $L/verify-hopper-big.log >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -iE -A12 "geometric|geomean" $L/batched.log | head -30

set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gk && chmod +x /tmp/gk
nvidia-smi -L > $L/device.txt
timeout 200 /tmp/gk bench --suite batched --csv $L/batched.csv > $L/batched.log 2>&1; echo "batched rc=$? ${SECONDS}s" >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -E "^issue|geomean|^(f32|tf32|f16|bf16|f64) " $L/batched.log | head -40

set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gk && chmod +x /tmp/gk
nvidia-smi -L > $L/device.txt
timeout 200 /tmp/gk bench --suite shapes --types f32,tf32,f64 --csv $L/shapes.csv > $L/shapes.log 2>&1; echo "shapes rc=$? ${SECONDS}s" >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -A8 "geomean" $L/shapes.log | head -12

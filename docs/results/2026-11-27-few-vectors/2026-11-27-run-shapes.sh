set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gemmkit && chmod +x /tmp/gemmkit
nvidia-smi -L > $L/device.txt; echo "commit $(git rev-parse --short HEAD)" >> $L/device.txt
timeout 500 /tmp/gemmkit bench --suite shapes --quiet --csv $L/shapes.csv > $L/shapes.log 2>&1; echo "shapes rc=$? ${SECONDS}s" >> $OUT/summary.txt
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt; grep -A30 -i "geometric" $L/shapes.log | head -40; grep -A20 "repeat check" $L/shapes.log

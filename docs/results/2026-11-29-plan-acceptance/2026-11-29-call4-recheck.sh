#!/usr/bin/env bash
# Issue 39, call 4: the 12 rows call 1 found >2% slower (c981104 against 9fe087a, --quick, 2 rounds),
# timed again in more ABBA rounds; CSVs named as bench-before-after's, summarized by it.
cd "$(dirname "$0")/.."; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
( mkdir -p /tmp/b9/build && xz -dc cs/.prebuilt9/libgemmkit.so.xz > /tmp/b9/build/libgemmkit.so && cp cs/.prebuilt9/gemmkit /tmp/b9/build/ ) &
cmake -S cs/c98 -B cs/c98/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > /tmp/b.log 2>&1 && cmake --build cs/c98/build -j16 --target gemmkit_cli >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"
wait
declare -A BIN=([before]=/tmp/b9/build/gemmkit [after]=$R/cs/c98/build/gemmkit)
declare -A K=([j16]='tf32.09_sized_tiles,auto,f16.14_sized_tiles' [j05]='f16.05_*' [j64]='dgemm.09_sized_tiles,auto,dgemm.08_*')
declare -A S=([j16]=3000x5000x2000,4096,8192,16x4096x4096 [j05]=8192 [j64]=4096,16x4096x4096,2049,64)
mkdir -p /tmp/rc; r=0
while (( SECONDS < ${STOP:-200} )); do
  r=$((r+1)); if (( r % 2 )); then order="before after"; else order="after before"; fi
  for j in j16 j05 j64; do for side in $order; do
    ${BIN[$side]} bench --kernels "${K[$j]}" --mnk ${S[$j]} --iters 20 --csv /tmp/rc/r$r-$side-$j.csv --quiet > /tmp/rc/r$r-$side-$j.log 2>&1 || echo "fail r$r $side $j"
  done; done; echo "round $r done ${SECONDS}s"
done
scripts/bench-before-after --summarize-only /tmp/rc > $OUT/recheck-summary.txt 2>&1; cp /tmp/rc/summary.csv $OUT/recheck-summary.csv
tar czf $OUT/recheck-csv.tgz -C /tmp rc; cat $OUT/recheck-summary.txt | cut -c1-150

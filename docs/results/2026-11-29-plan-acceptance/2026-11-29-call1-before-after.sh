#!/usr/bin/env bash
# Issue 39, call 1: c981104 (the plan refactor, last commit before batches) against 9fe087a:
# build c981104's lib + CLI here, scripts/bench-before-after --quick, every type.
cd "$(dirname "$0")/.."; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
( mkdir -p /tmp/b9/build && xz -dc cs/.prebuilt9/libgemmkit.so.xz > /tmp/b9/build/libgemmkit.so && cp cs/.prebuilt9/gemmkit /tmp/b9/build/ ) &
cmake -S cs/c98 -B cs/c98/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > /tmp/b.log 2>&1 && cmake --build cs/c98/build -j16 --target gemmkit_cli >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; tail -2 /tmp/b.log
wait; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
BA="scripts/bench-before-after --before /tmp/b9/build/gemmkit --after $R/cs/c98/build/gemmkit --quick --out /tmp/ba"
timeout $((590-SECONDS)) $BA --types f16,bf16,tf32 > $OUT/ba-16.log 2>&1; echo "ba16 rc=$? ${SECONDS}s"
(( SECONDS < 470 )) && { timeout $((590-SECONDS)) $BA --types f32,f64 > $OUT/ba-32.log 2>&1; echo "ba32 rc=$? ${SECONDS}s"; }
scripts/bench-before-after --summarize-only /tmp/ba > $OUT/ba-summary.txt 2>&1; cp /tmp/ba/summary.csv $OUT/ba-summary.csv 2>/dev/null
grep -E 'SLOWER|verdict|slower' $OUT/ba-summary.txt | head -40
echo "end ${SECONDS}s"

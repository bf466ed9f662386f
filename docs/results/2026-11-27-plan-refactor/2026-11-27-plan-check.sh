#!/usr/bin/env bash
# The plan refactor's check on the GPU machine, from the repository root, with the tree of the
# commit before it unpacked in .base/ (git archive 9fe087a | tar -x -C .base):
#  1. builds both (the base library only, beside the full new build);
#  2. `gemmkit plan --corpus` against the oracle (2026-11-27-plan-oracle.cu: the base's own rule chains);
#  3. the SASS of every kernel in both libraries, function by function;
#  4. the host tests, and the GPU tests of the planned paths.
# Writes its logs under $OUT; prints a summary last.
set -uo pipefail
OUT="${OUT:-/tmp/plan-check}"
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
B=build-device
(cmake -S .base -B /tmp/base -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > /dev/null &&
    cmake --build /tmp/base --target gemmkit -j8 > "$OUT/base-build.log" 2>&1) &
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build $B -j16 -- -k 0 > "$OUT/build.log" 2>&1
rc=$?
wait
if ((rc != 0)); then
    grep -n -A4 "error" "$OUT/build.log" | head -120
    exit 1
fi
echo "built in ${SECONDS}s"

$B/gemmkit plan --corpus > "$OUT/plan_corpus.txt"
nvcc -std=c++20 -Isrc -Iinclude -I$B/generated --generate-code=arch=compute_90a,code=sm_90a \
    docs/results/2026-11-27-plan-refactor/2026-11-27-plan-oracle.cu $B/libgemmkit_support.a $B/libgemmkit_internal.a -lcublas -lcudart \
    -Xcompiler -fopenmp -o $B/plan_oracle > "$OUT/oracle-build.log" 2>&1 || tail -30 "$OUT/oracle-build.log"
LD_LIBRARY_PATH=$B $B/plan_oracle > "$OUT/oracle.txt"
diff "$OUT/oracle.txt" "$OUT/plan_corpus.txt" > "$OUT/oracle.diff"
echo "oracle against gemmkit plan --corpus: $(grep -c '^<' "$OUT/oracle.diff") of $(wc -l < "$OUT/plan_corpus.txt") lines differ"

sass_digest() { cuobjdump -sass "$1" | python3 docs/results/2026-11-27-plan-refactor/2026-11-27-sass-digest.py; }
sass_digest /tmp/base/libgemmkit.so > "$OUT/sass-base.txt"
sass_digest $B/libgemmkit.so > "$OUT/sass-new.txt"
diff "$OUT/sass-base.txt" "$OUT/sass-new.txt" > "$OUT/sass.diff"
echo "SASS: $(wc -l < "$OUT/sass-base.txt") functions before, $(wc -l < "$OUT/sass-new.txt") after, $(grep -c '^[<>]' "$OUT/sass.diff") diff lines"
cuobjdump --dump-resource-usage $B/libgemmkit.so | grep -A1 "split_k_kernel" > "$OUT/split-k-resources.txt"

cp "$OUT/plan_corpus.txt" tests/host/plan_corpus.txt
(cd $B && ctest -L host --output-on-failure > "$OUT/host.log" 2>&1)
tail -3 "$OUT/host.log"
timeout 80 $B/tests/gemmkit_gpu_tests --gtest_brief=1 \
    --gtest_filter='PlanGpuTest.*:ApiGpuTest.*:GpuTest.*:*sized_tiles*:*split_k*' \
    > "$OUT/gpu.log" 2>&1
echo "gpu tests exit $?"; tail -4 "$OUT/gpu.log"

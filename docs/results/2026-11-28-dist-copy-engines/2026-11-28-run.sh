#!/usr/bin/env bash
# One device call on a host of 2 or 4 GPUs (nvidia-h100-x2/x4): build; gemmkit_dist's GPU tests
# (the plan's transports, then capped kernels only, then copy engines only); whether
# NCCL gives the copy-engine communicator symmetric memory; dist-bench at P = 2 and 4; then, in
# the time left, the whole GPU test suite, a share on each GPU. Logs in $OUT (one archive).
# Usage, from the repository root:
#   docs/results/2026-11-28-dist-copy-engines/2026-11-28-run.sh [SECTIONS]   (default: all)
# TARGETS (default: the CLI, gemmkit_dist, and every test program) names what the build makes.
# SECTIONS: any of build tests info p2 p4 trace pieces batch suite, comma-separated. BUDGET (s, default
# 570) caps it. trace: one call of each op at m = 8192 with GEMMKIT_DIST_TRACE (src/dist/trace.hpp);
# pieces: dist-bench at m = 8192 with each of PIECES (default 1 2 3) --pieces, at PIECES_RANKS ranks.
set -uo pipefail
OUT="${OUT:-/tmp/dist-run}"
L="$OUT/logs"
mkdir -p "$L"
sections=",${1:-build,tests,info,p2,p4,trace,pieces,suite},"
BUDGET=${BUDGET:-570}
# NVLink multicast stays off on these shared hosts (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=build-device
stage() { echo "== $1 (${SECONDS}s)"; }
GPUS=$(nvidia-smi -L | wc -l)
RANKS="2"
((GPUS >= 4)) && RANKS="2 4"
left() { echo $((BUDGET - SECONDS - ${1:-0})); }
{
    nvidia-smi -L
    nvidia-smi topo -m
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' with local changes')"
} >"$L/device.txt" 2>&1
head -5 "$L/device.txt"
if [[ $sections == *,build,* ]]; then
    stage build
    cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release >"$L/build.log" 2>&1 &&
        timeout 330 ninja -C $B -k 0 -j"$(nproc)" ${TARGETS:-gemmkit_cli gemmkit_dist gemmkit_host_tests \
            gemmkit_dist_gpu_tests gemmkit_gpu_tests} >>"$L/build.log" 2>&1 || { echo "build FAILED"; grep -E "error|FAILED" "$L/build.log" | head -30; }
    grep -E "NCCL" "$L/build.log" | head -2
fi
[[ -x $B/gemmkit ]] || exit 1
if [[ $sections == *,tests,* ]]; then
    stage "dist GPU tests"
    timeout 150 ./$B/tests/gemmkit_dist_gpu_tests --gtest_brief=1 >"$L/dist-tests.log" 2>&1
    echo "dist tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|tests? from .* ran|SKIPPED \]" "$L/dist-tests.log" | head -20
    grep -B2 -A10 "Failure" "$L/dist-tests.log" | head -60
    # The same tests with every overlap on capped kernels (=0). (Before call 6, =all put every
    # overlap on the copy engines, as the plan now does by default.)
    for mode in ${MODES:-0}; do
        GEMMKIT_DIST_COPY_ENGINES=$mode timeout 150 ./$B/tests/gemmkit_dist_gpu_tests --gtest_brief=1 \
            >"$L/dist-tests-engines-$mode.log" 2>&1
        echo "dist tests, GEMMKIT_DIST_COPY_ENGINES=$mode: rc=$?"
        grep -E "^\[  (PASSED|FAILED)|tests? from .* ran" "$L/dist-tests-engines-$mode.log" | head -5
    done
    timeout 60 ./$B/tests/gemmkit_host_tests --gtest_brief=1 >"$L/host-tests.log" 2>&1
    echo "host tests rc=$?"; tail -2 "$L/host-tests.log"
fi
if [[ $sections == *,info,* ]]; then
    stage "NCCL's view of the copy-engine communicator"
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV timeout 60 ./$B/gemmkit dist-bench --gpus 2 --m 8192 --warmup 1 --iters 2 \
        >"$L/nccl-info.log" 2>&1
    echo "rc=$?"; grep -iE "version|symmetric|cuMem|CTA ?policy|copy engine|gemmkit_dist copy" "$L/nccl-info.log" | sort | uniq -c | sort -rn | head -15
fi
for P in $RANKS; do
    [[ $sections == *,p$P,* ]] || continue
    stage "dist-bench P=$P"
    timeout 150 ./$B/gemmkit dist-bench --gpus $P --m "${BENCH_M:-256,1024,8192}" --warmup 2 --iters 10 \
        --csv "$L/dist-bench-p$P.csv" >"$L/dist-bench-p$P.log" 2>&1
    echo "rc=$?"; cat "$L/dist-bench-p$P.log"
    # m = 8192 with the other transport: =0 capped kernels (=all, before call 6: the copy engines).
    mode=${BENCH_MODE-0}
    [[ -n $mode ]] || continue
    GEMMKIT_DIST_COPY_ENGINES=$mode timeout 60 ./$B/gemmkit dist-bench --gpus $P --m 8192 --warmup 2 --iters 10 \
        >"$L/dist-bench-p$P-engines-$mode.log" 2>&1
    echo "rc=$?"; grep -E "^(AllGather|GEMM-Reduce)|plan:" "$L/dist-bench-p$P-engines-$mode.log"
done
if [[ $sections == *,trace,* ]]; then
    for P in $RANKS; do
        stage "trace P=$P"
        GEMMKIT_DIST_TRACE=1 timeout 60 ./$B/gemmkit dist-bench --gpus $P --m 8192 --warmup 1 --iters 1 \
            >"$L/trace-p$P.log" 2>&1
        echo "rc=$?"; grep -E "trace|^(AllGather|GEMM-Reduce)" "$L/trace-p$P.log" | sed 's/;/;\n   /g' | head -80
    done
fi
if [[ $sections == *,pieces,* ]]; then
    for P in ${PIECES_RANKS:-$RANKS}; do
        for n in ${PIECES:-1 2 3}; do
            stage "dist-bench P=$P --pieces $n"
            timeout 60 ./$B/gemmkit dist-bench --gpus $P --m 8192 --pieces $n --warmup 2 --iters 8 \
                >"$L/pieces-p$P-$n.log" 2>&1
            echo "rc=$?"; grep -E "^(AllGather|GEMM-Reduce)|plan:" "$L/pieces-p$P-$n.log"
        done
    done
fi
if [[ $sections == *,batch,* ]]; then
    stage "batched API tests"
    timeout 60 ./$B/tests/gemmkit_gpu_tests --gtest_filter='BatchedApiGpuTest.*' >"$L/batched-api-tests.log" 2>&1
    echo "rc=$?"; grep -E "^\[ +(OK|FAILED|RUN) |PASSED|ran" "$L/batched-api-tests.log" | tail -8
fi
if [[ $sections == *,suite,* ]]; then
    t=$(left 15)
    stage "GPU suite, a share on each of $GPUS GPUs, ${t}s"
    if ((t > 30)); then
        # One share a GPU; without --gtest_brief, so a share cut off by the timeout still shows how far it got.
        for ((i = 0; i < GPUS; i++)); do
            CUDA_VISIBLE_DEVICES=$i GTEST_SHARD_INDEX=$i GTEST_TOTAL_SHARDS=$GPUS timeout "$t" \
                ./$B/tests/gemmkit_gpu_tests --gtest_filter="${SUITE_FILTER:-*}" >"$L/gpu-suite-$i.log" 2>&1 &
        done
        wait
        for ((i = 0; i < GPUS; i++)); do
            echo "share $i: $(grep -c '^\[       OK' "$L/gpu-suite-$i.log") ok, $(grep -c '^\[  FAILED  \] [A-Za-z]' "$L/gpu-suite-$i.log") failed; $(grep -E '^\[==========\].*ran|^\[  PASSED' "$L/gpu-suite-$i.log" | tr '\n' ' ')"
        done
        grep -h "^\[  FAILED  \] [A-Za-z]" "$L"/gpu-suite-*.log | sort -u | head -30
    fi
fi
stage done
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"

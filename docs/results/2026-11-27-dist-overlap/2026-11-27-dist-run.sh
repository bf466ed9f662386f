#!/usr/bin/env bash
# One device call on a host of 4 GPUs (nvidia-h100-x4): build, gemmkit_dist's GPU tests on 2 and 4
# GPUs, dist-bench at P = 2 and P = 4, then the Python package's GPU tests and binding overhead
# (issue 40) on GPU 0. Logs in $OUT. Usage, from the repository root:
#   docs/results/2026-11-27-dist-overlap/2026-11-27-dist-run.sh [SECTIONS]   (default: all)
# SECTIONS: any of build tests p2 p4 sweep python, comma-separated.
set -uo pipefail
OUT="${OUT:-/tmp/dist-run}"
mkdir -p "$OUT"
sections=",${1:-build,tests,p2,p4,sweep,python},"
# NVLink multicast stays off on these shared hosts (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=build-device
stage() { echo "== $1 ($SECONDS s)"; }
{
    nvidia-smi -L
    nvidia-smi topo -m
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
} >"$OUT/device.txt" 2>&1
if [[ $sections == *,build,* ]]; then
    stage build
    cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
        timeout 420 ninja -C $B -k 0 -j"$(nproc)" gemmkit_cli gemmkit_dist \
            $(ninja -C $B -t targets all 2>/dev/null | grep -oE '^(gemmkit_host_tests|gemmkit_dist_gpu_tests)' | sort -u) \
            >>"$OUT/build.log" 2>&1 || { echo "build FAILED"; grep -E "error|FAILED" "$OUT/build.log" | head -30; }
    [[ -x $B/gemmkit ]] || exit 1
    grep -E "NCCL" "$OUT/build.log" | head -2
fi
if [[ $sections == *,tests,* ]]; then
    stage "dist GPU tests"
    [[ -x $B/tests/gemmkit_dist_gpu_tests ]] && timeout 120 ./$B/tests/gemmkit_dist_gpu_tests --gtest_brief=1 >"$OUT/dist-tests.log" 2>&1
    echo "dist tests rc=$?"; tail -5 "$OUT/dist-tests.log"
    timeout 60 ./$B/tests/gemmkit_host_tests --gtest_brief=1 --gtest_filter='*Dist*:*SmLimit*' >"$OUT/host-tests.log" 2>&1
    echo "host dist tests rc=$?"; tail -2 "$OUT/host-tests.log"
fi
for P in 2 4; do
    [[ $sections == *,p$P,* ]] || continue
    stage "dist-bench P=$P"
    timeout 150 ./$B/gemmkit dist-bench --gpus $P --m 128,256,1024,8192 --warmup 2 --iters 10 \
        --csv "$OUT/dist-bench-p$P.csv" >"$OUT/dist-bench-p$P.log" 2>&1
    echo "rc=$?"; cat "$OUT/dist-bench-p$P.log"
done
if [[ $sections == *,sweep,* ]]; then
    stage "comm-sms sweep, m=8192"
    for P in 2 4; do
        for sms in 16; do
            timeout 60 ./$B/gemmkit dist-bench --gpus $P --m 8192 --comm-sms $sms --warmup 2 --iters 10 \
                >>"$OUT/dist-sweep.log" 2>&1
        done
    done
    cat "$OUT/dist-sweep.log"
fi
if [[ $sections == *,python,* ]]; then
    stage "python package (issue 40)"
    timeout 200 python3 -m pip install --no-build-isolation --no-deps --config-settings=build-dir=$B . \
        >"$OUT/pip.log" 2>&1 || { echo "pip install FAILED"; tail -20 "$OUT/pip.log"; }
    (cd /tmp && timeout 150 python3 -m pytest "$OLDPWD/tests/python" -rs -q -p no:cacheprovider) >"$OUT/pytest.log" 2>&1
    echo "pytest rc=$?"; tail -15 "$OUT/pytest.log"
    (cd /tmp && CUDA_VISIBLE_DEVICES=0 timeout 90 python3 "$OLDPWD/scripts/python-overhead") >"$OUT/python-overhead.log" 2>&1
    echo "overhead rc=$?"; cat "$OUT/python-overhead.log"
fi
stage done
# The device tool brings back at most 8 files: all of them in one archive instead.
tar -czf /tmp/all-logs.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/all-logs.tgz "$OUT/all-logs.tgz"

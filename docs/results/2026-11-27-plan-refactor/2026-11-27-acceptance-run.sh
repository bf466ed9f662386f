#!/usr/bin/env bash
# Issue 39's acceptance in one call on a host of 4 GPUs (nvidia-h100-x4), from the repository
# root, with the tree before the refactor (git archive 9fe087a) in .prebuilt/base-9fe087a.tar.gz:
#   1. build this tree and the base's CLI side by side;
#   2. then, one lane a GPU, at once:
#        GPU 0  scripts/bench-before-after --quick (before: 9fe087a, after: this tree);
#        GPU 1  GPU tests, share 1 of 3, then racecheck (device-check's small odd shapes);
#        GPU 2  share 2 of 3, then memcheck over the size rules' paths;
#        GPU 3  share 3 of 3, then memcheck (small odd shapes, every kernel);
#      and the host tests on the CPU;
#   3. gemmkit_dist's GPU tests and a short dist-bench, on all four.
# Each lane stops in time for the 600 s limit. Logs in $OUT, and all of them in $OUT/all-logs.tgz.
# On 4 H200s (2026-11-27) every lane hit its 166 s limit: the lanes' CPU references (OpenMP)
# crowd each other. Give the bench, the GPU suite and the sanitizers a call each instead.
set -uo pipefail
OUT="${OUT:-/tmp/acceptance-run}"
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for dir in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do [[ -d $dir ]] && PATH="$PATH:$dir"; done
B=build-device
stage() { echo "== $1 ($SECONDS s)"; }
nvidia-smi -L >"$OUT/device.txt" 2>&1

stage build
mkdir -p /tmp/base && tar -xzf .prebuilt/base-9fe087a.tar.gz -C /tmp/base
(cmake -S /tmp/base -B /tmp/base/build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build-base.log" 2>&1 &&
    ninja -C /tmp/base/build -j24 gemmkit_cli >>"$OUT/build-base.log" 2>&1) &
base=$!
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
    ninja -C $B -k 0 -j48 gemmkit_cli gemmkit_gpu_tests gemmkit_host_tests gemmkit_dist_gpu_tests >>"$OUT/build.log" 2>&1
echo "build rc=$?"
wait $base
echo "base build rc=$?"
grep -E "error|FAILED" "$OUT/build.log" | head -20
[[ -x $B/gemmkit && -x /tmp/base/build/gemmkit ]] || exit 1

lane=$((560 - SECONDS - 45))  # seconds each GPU lane may take, leaving the dist stage its share
stage "lanes, ${lane}s each"
verify_small=(verify --kernels '*' --mnk '7,33,127x129x33,65x17x100' --ops all --quiet)
verify_paths=(verify --kernels 'f16.14*,bf16.14*,tf32.09*,dgemm.09*' --ops all --quiet
    --mnk '1000x16x3000,8500x40x300,4200x64x2048,200x250x12000,1001x40x1001,64x64x8192')
gpu_share() {  # GPU, share index (0-based): the share's GPU tests, then the sanitizer named after
    local gpu=$1 share=$2 tool=$3 log=$4
    shift 4
    local start=$SECONDS
    CUDA_VISIBLE_DEVICES=$gpu GTEST_SHARD_INDEX=$share GTEST_TOTAL_SHARDS=3 timeout "$lane" \
        ./$B/tests/gemmkit_gpu_tests --gtest_brief=1 >"$OUT/gpu-tests-$((share + 1))of3.log" 2>&1
    echo "gpu tests share $((share + 1))/3: rc=$? in $((SECONDS - start)) s" >>"$OUT/lanes.txt"
    local left=$((lane - (SECONDS - start)))
    ((left < 10)) && left=10
    CUDA_VISIBLE_DEVICES=$gpu timeout "$left" compute-sanitizer --tool "$tool" --error-exitcode 1 \
        ./$B/gemmkit "$@" >"$OUT/$log" 2>&1
    echo "$log: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$log" | tail -1)" >>"$OUT/lanes.txt"
}
(CUDA_VISIBLE_DEVICES=0 timeout "$lane" python3 scripts/bench-before-after --before /tmp/base/build/gemmkit \
    --after ./$B/gemmkit --quick --out "$OUT/before-after" >"$OUT/before-after.log" 2>&1
    echo "before-after: rc=$?" >>"$OUT/lanes.txt") &
gpu_share 1 0 racecheck sanitizer-racecheck.log "${verify_small[@]}" &
gpu_share 2 1 memcheck sanitizer-memcheck-paths.log "${verify_paths[@]}" &
gpu_share 3 2 memcheck sanitizer-memcheck.log "${verify_small[@]}" &
(timeout "$lane" ./$B/tests/gemmkit_host_tests --gtest_brief=1 >"$OUT/host-tests.log" 2>&1
    echo "host tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/host-tests.log" | paste -sd' ')" >>"$OUT/lanes.txt") &
wait
cat "$OUT/lanes.txt"
tail -30 "$OUT/before-after.log"
for f in "$OUT"/gpu-tests-*.log; do echo "$f: $(grep -E '^\[  (PASSED|FAILED)|tests? from' "$f" | tail -3 | paste -sd' ')"; done

stage "dist"
timeout 40 ./$B/tests/gemmkit_dist_gpu_tests --gtest_brief=1 >"$OUT/dist-tests.log" 2>&1
echo "dist tests rc=$?"; grep -E "^\[  (PASSED|FAILED)" "$OUT/dist-tests.log" | head -20
for P in 2 4; do
    timeout 30 ./$B/gemmkit dist-bench --gpus $P --m 256,8192 --warmup 2 --iters 8 --csv "$OUT/dist-bench-p$P.csv" \
        >"$OUT/dist-bench-p$P.log" 2>&1
    echo "dist-bench P=$P rc=$?"; grep -v "^ " "$OUT/dist-bench-p$P.log"
done
stage done
# The device tool brings back at most 8 files: all of them in one archive instead.
tar -czf /tmp/all-logs.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/all-logs.tgz "$OUT/all-logs.tgz"

#!/usr/bin/env bash
# The GPU tests of the paths the plan now drives, on binaries built elsewhere and carried in
# .prebuilt/bin.tar.xz (build/tests/gemmkit_gpu_tests, stripped): short groups, each under its
# own time limit, most important first, so a cut leaves the earlier summaries.
set -uo pipefail
OUT="${OUT:-/tmp/plan-gpu}"
mkdir -p "$OUT"
tar -xJf .prebuilt/bin.tar.xz
T=build/tests/gemmkit_gpu_tests
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:/opt/gcc/lib64"
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
group() {  # name seconds filter
    timeout "$2" $T --gtest_brief=1 --gtest_filter="$3" > "$OUT/$1.log" 2>&1
    echo "$1: exit $? | $(grep -E '^\[  PASSED  \]|^\[  FAILED  \].*listed|tests? ran' "$OUT/$1.log" | tr '\n' ' ')"
    grep '^\[  FAILED  \]' "$OUT/$1.log" | head -5
}
group plan-api 40 'PlanGpuTest.*:ApiGpuTest.*:GpuTest.*'
group sized-16 60 '*f16_14_sized_tiles*:*bf16_14_sized_tiles*'
group sized-tf32 45 '*tf32_09_sized_tiles*'
group fp64-split 35 '*dgemm_08*:*dgemm_09*:*split_k*'
group steps-05-13 50 '*f16_05_*:*f16_06_*:*f16_07_*:*f16_08_*:*f16_09_*:*f16_10_*:*f16_11_*:*f16_12_*:*f16_13_*:*tf32_06_*:*tf32_07_*:*tf32_08_*'

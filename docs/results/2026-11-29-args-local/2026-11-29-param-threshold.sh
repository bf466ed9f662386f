#!/usr/bin/env bash
# Where the kernel parameter stops being split into registers: 9fe087a's GemmArgs (72 bytes for
# FP32) with N unused int64_t fields added, step 10's kernel (NN, 16-byte loads) compiled to PTX,
# its ld.param instructions counted. Run from a checkout; needs nvcc (no GPU).
set -e
root=$(git rev-parse --show-toplevel)
for n in 1 3 6 7 8; do
    tree=$(mktemp -d)
    git -C "$root" archive 9fe087a -- src include | tar -x -C "$tree"
    fields=$(seq -s, 1 "$n" | sed 's/[0-9]\+/x&/g')
    sed -i "0,/    ScalarOf<TC> alpha, beta;/s//    ScalarOf<TC> alpha, beta;\n    int64_t $fields;/" "$tree/src/kernels/launch_common.cuh"
    nvcc -I"$tree/include" -I"$tree/src" -I"${GENERATED:-$root/build/generated}" -O3 -DNDEBUG -arch=sm_90a -std=c++20 -ptx \
        -o "$tree/l.ptx" "$tree/src/kernels/sgemm/ladder.cu"
    loads=$(awk '/.entry _ZN7gemmkit5sgemm18warp_tiling_kernelILb0ELb0ELb1E/{on=1} on&&/^}/{exit} on' "$tree/l.ptx" | grep -c ld.param)
    echo "$n extra int64_t fields, GemmArgs<float> $((72 + 8 * n)) bytes: $loads ld.param in warp_tiling_kernel<N, N, vec>"
    rm -rf "$tree"
done

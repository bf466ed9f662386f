// sgemm.13_split_k_* — split-K: problems with too few tiles to fill the GPU also split along k.
//
// Changed from 12: when C's tiles fill fewer than half the GPU's block slots (1000^3 has 128 tiles of
// 128x64 for 132 SMs, room for ~400 blocks), the launch also splits k into `splits` ranges of
// whole slabs: blockIdx.z runs step 12's tile over its range and writes a partial sum to a
// workspace slice of its own (alpha 1, beta 0); a second kernel then adds the slices in a fixed
// order and applies alpha and beta. Results are deterministic: the same splits, the same sums.
// Bottleneck it removes: an SM with one block of 4 warps (one a scheduler) cannot hide the
// latency of its shared loads and copies; with splits, each SM runs 2-3 blocks.
// Cost: splits x m x n floats written and read back, a few microseconds at 1000^3.
// Problems that fill the GPU, or whose k is too short to split, run step 12's kernel unchanged,
// as do calls where the workspace cannot be allocated.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-13.
#pragma once

#include <algorithm>

#include "kernels/sgemm/12_async_multistage.cuh"
#include "kernels/sgemm/split_k_policy.hpp"
#include "kernels/workspace.hpp"
#include "plan/plan.hpp"

namespace gemmkit::sgemm {

// Split z of the problem g: its k range [z * k_split, ...) written to partials + z * m * n
// (column-major, ld = m), as C = 1 * partial + 0.
template <class Cfg, bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    split_k_kernel(GemmArgs<float> g, int k_split, float* partials) {
    const int k0 = blockIdx.z * k_split;
    GemmArgs<float> part = g;
    part.k = min(k_split, g.k - k0);
    part.A = g.A + op_offset<kTransA>(0, k0, g.lda);
    part.B = g.B + op_offset<kTransB>(k0, 0, g.ldb);
    part.C = partials + static_cast<int64_t>(blockIdx.z) * g.m * g.n;
    part.ldc = g.m;
    part.alpha = 1.0f;
    part.beta = 0.0f;
    part.epi = {};  // the reduction applies the fused epilogue, once, to the sums
    async_multistage_tile<Cfg, kTransA, kTransB, kVec>(part);
}

// C = alpha * (sum of the splits' slices, in order z = 0, 1, ...) + beta * C, then the fused
// epilogue if any: rows along x,
// columns along y (both grid-stride). Memory-bound: (splits + 1 or 2) x m x n floats.
__global__ void split_k_reduce_kernel(GemmArgs<float> g, int splits, const float* partials) {
    const int64_t slice = static_cast<int64_t>(g.m) * g.n;
    for (int j = blockIdx.y; j < g.n; j += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < g.m; i += gridDim.x * blockDim.x) {
            const float* part = partials + i + static_cast<int64_t>(j) * g.m;
            float sum = 0.0f;
            for (int z = 0; z < splits; ++z) sum += part[z * slice];
            store_c(g, i, j, sum);
        }
}

// Runs plan's split (plan_split_k, src/plan/sgemm_rules.cu): `pieces` ranges of k, or step 12's
// kernel alone where the plan splits nothing or the workspace cannot be allocated.
template <class Cfg>
cudaError_t launch_split_k(const Problem& p, const Plan& plan, cudaStream_t stream) {
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    const int splits = plan.split.kind == SplitKind::kSplitK ? static_cast<int>(plan.split.pieces) : 1;
    if (splits <= 1 || batched(p)) return launch_async_multistage<Cfg>(p, stream);  // plan_split_k splits no batch

    // Whole slabs a range, so only the last range ends in a partial slab.
    const int64_t slabs = (p.k + Cfg::BK - 1) / Cfg::BK;
    const int k_split = static_cast<int>((slabs + splits - 1) / splits * Cfg::BK);
    const int used = static_cast<int>((p.k + k_split - 1) / k_split);  // rounding may leave one out
    void* workspace = nullptr;
    if (allocate_workspace(&workspace, static_cast<size_t>(used) * p.m * p.n * sizeof(float), stream) != cudaSuccess) {
        cudaGetLastError();  // clear it: the unsplit kernel needs no workspace
        return launch_async_multistage<Cfg>(p, stream);
    }
    float* partials = static_cast<float*>(workspace);
    const GemmArgs<float> args = make_args<float>(p);
    cudaError_t err = with_ops_and_vec<float>(p, [&](auto ta, auto tb, auto vec) {
        return launch_with_smem(split_k_kernel<Cfg, decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>,
                                dim3(grid.x, grid.y, used), Cfg::kThreads, Cfg::kSmemBytes, stream, args, k_split,
                                partials);
    });
    if (err == cudaSuccess) {
        constexpr int kReduceThreads = 128;
        const dim3 reduce_grid(ceil_div(p.m, kReduceThreads), static_cast<unsigned>(std::min<int64_t>(p.n, 65535)));
        split_k_reduce_kernel<<<reduce_grid, kReduceThreads, 0, stream>>>(args, used, partials);
        err = cudaGetLastError();
    }
    cudaFreeAsync(workspace, stream);  // after both kernels, in stream order
    return err;
}

}  // namespace gemmkit::sgemm

// Step 03: mma.sync.m16n8k16 fed by ldmatrix from a swizzled shared-memory layout.
//
// What changed since step 02 (WMMA from shared memory): the PTX instructions WMMA hides are
// used directly. Each warp owns a 64 x 32 tile of C as 4 x 4 mma tiles of 16 x 8 and loads
// its fragments with ldmatrix.x4 (four 8 x 8 matrices per instruction, already in mma
// register layout; .trans where the slab is stored mn-major). The slabs keep global
// memory's contiguous direction, so every global load is a 16-byte chunk for all four ops,
// and an XOR swizzle (mma_slab.cuh) keeps ldmatrix free of bank conflicts without padding.
// Global loads for the next K-slab are issued into registers before the MMAs of this one
// (two shared buffers, one barrier per slab), as in the FP32 step 08.
//
// Bottleneck removed: WMMA's opaque fragment layout forced padded shared rows and
// one-fragment-at-a-time loads; ldmatrix.x4 feeds two mma per load.
// Preconditions: none for correctness. Fast path: A and B 16-byte aligned with lda, ldb
// multiples of 8 elements (16-byte loads); otherwise element loads.
// Measured: docs/ladder/tensor-cores.md#step-03.
#pragma once

#include "kernels/tensor/mma_warp.cuh"

namespace gemmkit::tensor {

// 128 x 128 block, K-slabs of 64 bytes (32 halfs, 16 floats), 2 x 4 warps of 64 x 32: 256
// threads, 32 KiB of shared memory. (Warps of 64 x 64 would reuse fragments better, but the
// slab staged in registers for the next step then leaves too few registers: spills.)
template <class T>
using MmaLdmatrixCfg = MmaTileCfg<128, 128, 64 / sizeof(T), 64, 32>;

template <class Cfg, class T, class TC, bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads) mma_ldmatrix_kernel(GemmArgs<T, TC> args) {
    using SlabA = MmaSlab<T, Cfg::BM, Cfg::BK, !kTransA, false>;  // op N: A[m + k*lda], m contiguous
    using SlabB = MmaSlab<T, Cfg::BN, Cfg::BK, kTransB, true>;  // op T: B[n + k*ldb], n contiguous
    __shared__ alignas(128) T sA[2][SlabA::kElems];
    __shared__ alignas(128) T sB[2][SlabB::kElems];

    select_batch<!kVec>(args);
    const int m0 = blockIdx.x * Cfg::BM, n0 = blockIdx.y * Cfg::BN;
    const int warp = threadIdx.x / 32;
    const int wm0 = (warp % Cfg::kWarpsM) * Cfg::WM, wn0 = (warp / Cfg::kWarpsM) * Cfg::WN;
    const T* gA = args.A + op_offset<kTransA>(m0, 0, args.lda);  // op(A)(m0, 0), then one slab on
    const T* gB = args.B + op_offset<kTransB>(0, n0, args.ldb);  // op(B)(0, n0), then one slab on
    const int64_t strideA = op_offset<kTransA>(0, Cfg::BK, args.lda);
    const int64_t strideB = op_offset<kTransB>(Cfg::BK, 0, args.ldb);
    const int m_left = args.m - m0, n_left = args.n - n0;

    typename SlabA::template Staged<Cfg::kThreads, kVec> rA;
    typename SlabB::template Staged<Cfg::kThreads, kVec> rB;
    rA.fetch(gA, args.lda, m_left, args.k);
    rB.fetch(gB, args.ldb, n_left, args.k);
    rA.store(sA[0]);
    rB.store(sB[0]);
    __syncthreads();

    const typename SlabA::template Reader<Cfg::WM / 16> fragsA(wm0);
    const typename SlabB::template Reader<Cfg::WN / 16> fragsB(wn0);
    float acc[Cfg::MI][Cfg::NI][4] = {};
    const int slabs = (args.k + Cfg::BK - 1) / Cfg::BK;
    for (int s = 0; s < slabs; ++s) {
        const int cur = s % 2;
        const bool more = s + 1 < slabs;
        if (more) {  // the next slab's global loads fly while this one computes
            gA += strideA;
            gB += strideB;
            rA.fetch(gA, args.lda, m_left, args.k - (s + 1) * Cfg::BK);
            rB.fetch(gB, args.ldb, n_left, args.k - (s + 1) * Cfg::BK);
        }
        warp_mma_stage<Cfg, T>(acc, fragsA, fragsB, ptx::smem_addr(sA[cur]), ptx::smem_addr(sB[cur]));
        if (more) {  // the other buffer was last read before the previous barrier
            rA.store(sA[cur ^ 1]);
            rB.store(sB[cur ^ 1]);
        }
        __syncthreads();
    }
    store_accumulators<Cfg, TC, SlabA::kPermutedUnits, SlabB::kPermutedUnits>(
        acc, args, m0 + wm0, n0 + wn0);
}

// Any element type the kernel takes (FP16/BF16, or float = TF32); 16-byte loads when A and B allow.
template <class Cfg, class T, class TC>
cudaError_t launch_mma_ldmatrix_typed(const Problem& p, cudaStream_t stream) {
    const bool vec = operands_chunk_aligned<T>(p);
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_ops(p, [&](auto ta, auto tb) {
        constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
        auto* kernel = vec ? mma_ldmatrix_kernel<Cfg, T, TC, kTA, kTB, true> : mma_ldmatrix_kernel<Cfg, T, TC, kTA, kTB, false>;
        kernel<<<batch_grid(grid, p), Cfg::kThreads, 0, stream>>>(make_args<T, TC>(p));
        return cudaGetLastError();
    });
}

template <template <class> class CfgOf>
cudaError_t launch_mma_ldmatrix(const Problem& p, cudaStream_t stream) {
    return with_half_types(p, [&](auto t, auto tc) {
        using T = typename decltype(t)::type;
        return launch_mma_ldmatrix_typed<CfgOf<T>, T, typename decltype(tc)::type>(p, stream);
    });
}

}  // namespace gemmkit::tensor

// Hopper step 1 (level 6): wgmma from shared-memory tiles that TMA loads; one warpgroup, one stage.
//
// What changed since the mma.sync ladder (step 05): no thread computes an address or issues a
// load. Thread 0 asks the copy engine (TMA) for a whole 64 x 64 slab of A and a 256 x 64 slab
// of B; it lands swizzled in shared memory, zero-filled outside the matrix, and counts its bytes
// down on an mbarrier that the warpgroup waits on. Then four wgmma.m64n256k16 instructions
// read both slabs straight from shared memory (no ldmatrix, no fragments in registers) and
// accumulate a 64 x 256 tile in the warpgroup's registers (128 floats a thread).
// Bottleneck removed: the instruction issue of step 05 (2.8 instructions per HMMA, address and
// ldmatrix work). What is left: one stage, so the copy and the math never overlap; one
// warpgroup per block.
// Preconditions: A and B 16-byte aligned with lda, ldb multiples of 16 bytes (TMA); others
// run the mma.sync pipeline (step 05). Any m, n, k: TMA zero-fills, the epilogue checks bounds.
// Measured: docs/ladder/hopper.md#step-06 (the H200 run: #lab-steps-06-14).
// Its building block, a slab's wgmmas (mma_slab), is in wgmma_slab.cuh, which later steps share.
#pragma once

#include "kernels/hopper/epilogue.cuh"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/wgmma_slab.cuh"
#include "ptx/mbarrier.cuh"

namespace gemmkit::hopper {

struct WgmmaTmaCfg {
    static constexpr int BM = 64, BN = 256, BK = 64, kStages = 1, kThreads = 128;
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(WgmmaTmaCfg::kThreads)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = WgmmaTmaCfg;
    using SlabA = SlabOfA<T, Cfg, kTransA>;
    using SlabB = SlabOfB<T, Cfg, kTransB>;
    extern __shared__ unsigned char smem[];
    const uint32_t sA = align_slabs(ptx::smem_addr(smem)), sB = sA + SlabA::kBytes;
    const uint32_t full = sB + SlabB::kBytes;  // the mbarrier: "this slab has landed"
    const int m0 = blockIdx.x * Cfg::BM, n0 = blockIdx.y * Cfg::BN;

    if (threadIdx.x == 0) {
        ptx::mbarrier_init(full, 1);
        ptx::fence_mbarrier_init();
    }
    __syncthreads();

    float acc[Cfg::BN / 2] = {};
    const int slabs = (out.k + Cfg::BK - 1) / Cfg::BK;
    for (int s = 0; s < slabs; ++s) {
        if (threadIdx.x == 0) {
            ptx::mbarrier_arrive_expect_tx(full, SlabA::kBytes + SlabB::kBytes);
            SlabA::load(sA, &map_a, m0, s * Cfg::BK, 0, full);  // matrix 0: the maps hold one
            SlabB::load(sB, &map_b, n0, s * Cfg::BK, 0, full);
        }
        ptx::mbarrier_wait(full, s % 2);  // the barrier's phase s has completed
        mma_slab<T, SlabA, SlabB>(acc, sA, sB, 0);
        ptx::wgmma_wait<0>();
        __syncthreads();  // every warp has finished reading before thread 0 overwrites the slabs
    }
    store_warpgroup_tile<Cfg::BN>(acc, out, 0, m0, n0);
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper

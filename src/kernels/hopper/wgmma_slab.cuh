// The Hopper steps' tensor-core building block: one slab's wgmmas (Hopper step 1 introduces it,
// docs/ladder/hopper.md#step-06). FP32 inputs take TF32 wgmmas (tf32_mma.cuh), FP8 ones FP8
// wgmmas of k = 32 (fp8.cuh).
#pragma once

#include <type_traits>

#include "kernels/hopper/fp8_operands.hpp"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/tf32_mma.cuh"

namespace gemmkit::hopper {

// FP8 wgmmas (fp8.cuh): the 64-row slice `slice` of the A slab at a times columns part * N ..
// part * N + N - 1 of the B slab at b, N = SlabB::MN / kParts, into `sums` (or, with accumulate
// false, overwriting it), as one committed group. kParts = 1: the whole slab (step 1); 2: half of
// its columns at a time, summed afresh (step 2's promotion).
template <class T, class SlabA, class SlabB, int kParts>
__device__ __forceinline__ void mma_slab_columns(float (&sums)[SlabB::MN / kParts / 2], uint32_t a, uint32_t b,
                                                 int slice, int part, bool accumulate) {
    static_assert(is_fp8_operands<T> && SlabA::kKMajor && SlabB::kKMajor, "FP8 wgmma reads A and B K-major");
    constexpr int N = SlabB::MN / kParts;
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < SlabA::BK; kk += 32)
        ptx::wgmma_m64k32_fp8<N, T::kE5M2A, T::kE5M2B>(sums, SlabA::descriptor(a, 64 * slice, kk),
                                                      SlabB::descriptor(b, part * N, kk), accumulate || kk > 0);
    ptx::wgmma_commit();
}

// Issues, as one committed group, the wgmmas that multiply the 64-row slice `slice` of the A
// slab at shared address a by the whole B slab at b (BK / 16 steps of m64nNk16), accumulating
// into acc (or, with accumulate false, overwriting it: a tile's first slab). They run
// asynchronously: the slabs are in use until ptx::wgmma_wait says done. (FP32 inputs: TF32
// wgmmas, tf32_mma.cuh.)
template <class T, class SlabA, class SlabB, class Frags = NoFragments>
__device__ __forceinline__ void mma_slab(float (&acc)[SlabB::MN / 2], uint32_t a, uint32_t b, int slice,
                                         bool accumulate = true, Frags* frags = nullptr, int use = 0) {
    if constexpr (std::is_same_v<T, float>) {
        mma_slab_tf32<SlabA, SlabB>(acc, a, b, slice, accumulate, frags, use);
    } else if constexpr (is_fp8_operands<T>) {
        mma_slab_columns<T, SlabA, SlabB, 1>(acc, a, b, slice, 0, accumulate);
    } else {
        ptx::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < SlabA::BK; kk += 16)
            ptx::wgmma_m64k16<SlabB::MN, T, !SlabA::kKMajor, !SlabB::kKMajor>(
                acc, SlabA::descriptor(a, 64 * slice, kk), SlabB::descriptor(b, 0, kk), accumulate || kk > 0);
        ptx::wgmma_commit();
    }
}

}  // namespace gemmkit::hopper

// One slab's wgmmas with TF32 inputs (step 7). TF32 wgmma has no transpose bits: it reads B,
// and A when A comes from shared memory, K-major only.
//  - A K-major (op T): both operands by descriptor, as the 16-bit steps do.
//  - A MN-major (op N, the common case): each thread loads its A fragments from the swizzled
//    slab into registers (LDS.32), and wgmma takes A from there. A warp's 32 loads of one
//    fragment register touch 16 distinct banks (2-way conflicts); per slab that is 16 loads a
//    thread against four m64n256k8 wgmmas. Only one group of wgmmas is in flight per warpgroup.
// B MN-major (op T) is not read here: the launcher copies B K-major first (launch.cuh).
#pragma once

#include "ptx/wgmma.cuh"

namespace gemmkit::hopper {

// Thread's A fragment (ptx::wgmma_m64k8_tf32) of k step kk of rows 64 * slice .. + 63 of
// the MN-major A slab at shared address a.
template <class SlabA>
__device__ __forceinline__ void load_a_fragment_tf32(uint32_t (&frag)[4], uint32_t a, int slice, int kk) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    const int row = 64 * slice + 16 * warp + lane / 4, k = kk + lane % 4;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t addr = a + SlabA::mn_major_offset(row + 8 * (i % 2), k + 4 * (i / 2));
        asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(frag[i]) : "r"(addr));
    }
}

// The TF32 counterpart of mma_slab (01_wgmma_tma.cuh): one committed group of BK / 8 wgmmas.
template <class SlabA, class SlabB>
__device__ __forceinline__ void mma_slab_tf32(float (&acc)[SlabB::MN / 2], uint32_t a, uint32_t b, int slice,
                                              bool accumulate) {
    static_assert(SlabB::kKMajor, "TF32 wgmma reads B K-major");
    constexpr int kSteps = SlabA::BK / 8;
    if constexpr (SlabA::kKMajor) {
        ptx::wgmma_fence();
#pragma unroll
        for (int s = 0; s < kSteps; ++s)
            ptx::wgmma_m64k8_tf32<SlabB::MN>(acc, SlabA::descriptor(a, 64 * slice, 8 * s), SlabB::descriptor(b, 0, 8 * s),
                                      accumulate || s > 0);
    } else {
        // The previous slab's wgmmas may still read their fragments from the registers these
        // loads reuse (the PTX ISA makes that undefined): let them finish first. The other
        // consumer warpgroup's wgmmas keep the tensor cores busy meanwhile.
        ptx::wgmma_wait<0>();
        uint32_t frag[kSteps][4];
#pragma unroll
        for (int s = 0; s < kSteps; ++s) load_a_fragment_tf32<SlabA>(frag[s], a, slice, 8 * s);
        ptx::wgmma_fence();  // the fragments are written before the wgmmas read them
#pragma unroll
        for (int s = 0; s < kSteps; ++s)
            ptx::wgmma_m64k8_tf32<SlabB::MN>(acc, frag[s], SlabB::descriptor(b, 0, 8 * s), accumulate || s > 0);
    }
    ptx::wgmma_commit();
}

}  // namespace gemmkit::hopper

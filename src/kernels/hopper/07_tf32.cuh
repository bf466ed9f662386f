// Hopper step 7 (level 7 of the tf32 family): TF32 on the same machinery.
//
// What changed since step 6: the element is FP32 and each wgmma is m64n256k8.tf32, so a slab
// holds BK = 32 elements of k (still 128-byte rows, the same swizzle, boxes and descriptors),
// and the ring, warp specialization, persistent grouped order, cluster multicast of B and the
// TMA-store epilogue are steps 5 and 6 unchanged. Two things are new (tf32_mma.cuh):
//  - TF32 wgmma has no transpose bits, so B must be K-major (op N) and A, from shared memory,
//    too. A with op N (m contiguous) is read from its slab into registers instead: the
//    register-A form of wgmma. B with op T is transposed by the launcher (one pass over B).
//  - The tensor core reads only the top 19 bits of each FP32 word (sign, exponent, 10 mantissa
//    bits): the inputs are truncated to TF32, not rounded as step 06's cvt.rn does (and as
//    cuBLAS's TF32 path does, measured on the H100). The registry row says so
//    (KernelInfo::truncates_tf32), verification cuts its reference inputs the same way, and a
//    GPU test pins the behaviour.
// C is FP32, written through shared memory and TMA stores in 64 x 32 pieces when beta == 0 (step
// 6), else from registers.
// Preconditions: none. B of op T is first transposed into a K-major workspace, and operands TMA
// cannot read are copied into aligned ones (pad_copy.cu); with no memory for them, step 06 runs.
// Measured: docs/ladder/hopper.md#tf32-step-07.
#pragma once

#include "kernels/hopper/06_tma_store.cuh"

namespace gemmkit::hopper {

struct Tf32Cfg : TmaStoreCfg {
    static constexpr int BK = 32;  // 128 bytes of FP32 k a row; 48 KiB a stage, 4 stages
};

// Cfg: Tf32Cfg, or one derived from it with other tiles (step 9's small ones, 10_sized_tiles.cuh).
template <class T, class TC, bool kTransA, bool kTransB, class Cfg = Tf32Cfg>
__global__ void GEMMKIT_CLUSTER_DIMS(Cfg::kCluster, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    tf32_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out) {
    static_assert(std::is_same_v<T, float> && std::is_same_v<TC, float> && !kTransB, "FP32 data, B K-major");
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(&map_a, &map_b, out, TmaStoreEpilogue<TC>{out, &map_c},
                                                        whole_tiles<Cfg>(out));
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper

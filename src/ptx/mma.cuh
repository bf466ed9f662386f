// mma.sync: one warp multiplies a 16 x K tile of A by a K x 8 tile of B on the tensor cores,
// accumulating into a 16 x 8 FP32 tile (sm_80+).
// PTX ISA, "Warp-level matrix multiply-accumulate instructions: mma", shapes m16n8k16
// (.f16/.bf16) and m16n8k8 (.tf32); "cvt" for the TF32 rounding.
//
// Fragments, with g = lane / 4 and t = lane % 4 (each register holds two 16-bit elements, or
// one TF32 word; "col" k pairs are 2t, 2t+1 for 16-bit types and t for TF32):
//   A (16 x K, row): a0 (g, k lo)   a1 (g+8, k lo)   a2 (g, k hi)   a3 (g+8, k hi)
//   B (K x 8, col):  b0 (k lo, g)   b1 (k hi, g)
//   D (16 x 8):      d0, d1 (g, 2t and 2t+1)   d2, d3 (g+8, 2t and 2t+1)
// "k lo" is the first half of K (0..7 for m16n8k16, 0..3 for m16n8k8), "k hi" the second.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ptx/arch.cuh"

namespace gemmkit::ptx {

// d += a * b for FP16 or BF16 inputs (T = __half or __nv_bfloat16), FP32 accumulation.
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    if constexpr (std::is_same_v<T, __half>) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        static_assert(std::is_same_v<T, __nv_bfloat16>, "m16n8k16 takes FP16 or BF16 here");
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

// d += a * b with TF32 inputs (FP32 bit patterns already rounded by cvt_rn_tf32).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// FP32 -> TF32, round to nearest with ties to even (the tensor core itself would just drop the
// low 13 mantissa bits). The verification reference rounds the same way. sm_90 has this in one
// instruction (F2FP.TF32.F32.PACK_B); cvt.rna, ties away, compiles to four (NaN test, add, mask,
// overflow fix-up), and the rounding of the fragments was most of TF32 step 06's instructions.
// Below sm_90 (where cvt.rn.tf32 does not exist) the same rounding in integer steps.
__device__ __forceinline__ uint32_t cvt_rn_tf32(uint32_t fp32_bits) {
#if GEMMKIT_SM90_CODE
    uint32_t out;
    asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(__uint_as_float(fp32_bits)));
    return out;
#else
    if ((fp32_bits & 0x7F800000u) == 0x7F800000u) return fp32_bits;  // Inf, NaN
    return (fp32_bits + 0xFFFu + ((fp32_bits >> 13) & 1u)) & ~0x1FFFu;
#endif
}

}  // namespace gemmkit::ptx

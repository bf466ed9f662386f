// mma.sync with FP64 A, B, C and D: the FP64 tensor cores (DMMA). sm_80 has only m8n8k4;
// sm_90 adds m16n8k4, m16n8k8 and m16n8k16, each ".row.col.f64.f64.f64.f64" and each one SASS
// instruction there (DMMA.16x8x4 / 16x8x8 / 16x8x16: ptxas 13.0, sm_90a).
// PTX ISA, "Warp-level matrix multiply-accumulate instructions: mma" (shapes, target notes) and
// "Matrix Fragments for mma.m16n8k8" (its .f64 case).
//
// m16n8k8 fragments, with g = lane / 4 and t = lane % 4, one double (a register pair) each:
//   A (16 x 8, row): a0 (g, t)   a1 (g + 8, t)   a2 (g, t + 4)   a3 (g + 8, t + 4)
//   B (8 x 8, col):  b0 (t, g)   b1 (t + 4, g)
//   D (16 x 8):      d0, d1 (g, 2t and 2t+1)   d2, d3 (g + 8, 2t and 2t+1)
// Unlike the 16-bit shapes, a lane's two k values are 4 apart and its two rows 8 apart: no
// two fragment elements are neighbours in either operand, and ldmatrix (16-bit rows) does not
// apply. (m16n8k16 is the same pattern with a4..a7 / b2, b3 at k + 8 and k + 12.)
#pragma once

namespace gemmkit::ptx {

// d += a * b, all in FP64. sm_90 only: callers compile it under GEMMKIT_SM90_CODE (ptx/arch.cuh).
__device__ __forceinline__ void mma_m16n8k8_f64(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}

}  // namespace gemmkit::ptx

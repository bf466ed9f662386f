// ldmatrix: a warp loads 8x8 matrices of 16-bit elements from shared memory straight into the
// register layout mma.sync expects (sm_75+).
// PTX ISA, "Warp-level matrix load instruction: ldmatrix".
//
// With .x4, lanes 8q..8q+7 give the addresses of matrix q's eight rows (16 bytes each); lane l
// receives, in register q, the two elements at row l/4, columns 2(l%4) and 2(l%4)+1 of matrix q
// (with .trans: of matrix q transposed). For 32-bit data (TF32) the same non-transposed load
// gives lane l the word at row l/4, column l%4 of each 8x4 matrix.
#pragma once

#include <cstdint>

#include "ptx/cp_async.cuh"

namespace gemmkit::ptx {

// `row` is this lane's row address in the shared window (smem_addr of a pointer).
__device__ __forceinline__ void ldmatrix_x4_at(uint32_t (&r)[4], uint32_t row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row));
}

__device__ __forceinline__ void ldmatrix_x4_trans_at(uint32_t (&r)[4], uint32_t row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row));
}

}  // namespace gemmkit::ptx

// stmatrix: a warp stores 8x8 matrices of 16-bit elements from the register layout of an
// mma/wgmma accumulator fragment into shared memory (sm_90).
// PTX ISA, "Warp-level matrix store instruction: stmatrix".
//
// The mirror of ldmatrix (ldmatrix.cuh): with .x4, lanes 8q..8q+7 give the addresses of matrix
// q's eight rows (16 bytes each), and lane l holds, in register q, the two elements at row l/4,
// columns 2(l%4) (low half) and 2(l%4)+1 (high half) of matrix q. With .trans, matrix q is stored
// transposed: its column c goes to the 16 bytes at lane 8q+c's address.
#pragma once

#include <cstdint>

namespace gemmkit::ptx {

// `row` is this lane's row address in the shared window (smem_addr of a pointer).
__device__ __forceinline__ void stmatrix_x4_trans_at(uint32_t row, const uint32_t (&r)[4]) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}

}  // namespace gemmkit::ptx

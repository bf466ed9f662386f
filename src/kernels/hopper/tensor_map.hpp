// Tensor maps for TMA (host code): how the copy engine sees one operand in global memory.
#pragma once

#include <cstdint>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "problem.hpp"

namespace gemmkit::hopper {

// A column-major matrix of `rows` x `cols` elements of `type` (rows contiguous), leading
// dimension ld elements, read in boxes of box_rows x box_cols that land in shared memory with
// the 128-byte swizzle (box_rows * element size must be 128 bytes or less). Elements outside
// the matrix read as zero. The map is of rank 3: a batch of `batch` such matrices `stride`
// elements apart (coordinate 2 picks one), or of one (batch 1, or stride 0: every problem of a
// batch reads matrix 0). Fails with cudaErrorInvalidValue when TMA cannot address the matrices
// (see tma_addressable, tma_batch_stride), and with the driver's error when the driver has no TMA.
cudaError_t encode_tensor_map(CUtensorMap* map, const void* base, gemmkit_dtype type, uint64_t rows, uint64_t cols,
                              int64_t ld, uint32_t box_rows, uint32_t box_cols, int64_t batch = 1,
                              int64_t stride = 0);

// Whether TMA can step from one matrix of a batch to the next `stride` elements on (`cols`
// columns of leading dimension ld): 0 (one matrix for all), or a multiple of 16 bytes no shorter
// than a matrix's columns.
bool tma_batch_stride(int64_t stride, int64_t ld, int64_t cols, gemmkit_dtype type);

// Whether TMA can read a matrix at `base` with leading dimension ld of `type`: the base
// 16-byte aligned and ld a multiple of 16 bytes, so that every column starts on a 16-byte
// boundary too.
bool tma_addressable(const void* base, int64_t ld, gemmkit_dtype type);

// Whether every column of the matrix at `base` with leading dimension `ld` starts on a 128-byte
// line (tensor maps of other matrices promote L2 fetches to 128 bytes, not 256: see
// encode_tensor_map).
bool on_128_byte_columns(const void* base, int64_t ld, gemmkit_dtype type);

// Whether TMA can read A and B of p (both tma_addressable, and a batch's strides tma_batch_stride).
bool tma_reads_operands(const Problem& p);

// Whether copying A into a workspace of 128-byte columns pays although TMA can read it: an A
// whose columns start on odd multiples of 16 bytes (16-bit lda = 4104, 5000, 8200, FP32 lda =
// 4100, 5004, or a base 16 bytes into a 32-byte sector), of at least kCopyAMinBytes, with n of
// at least kCopyAMinN. TMA reads each 128-byte row of such a slab's box in more L2 requests.
// With 128-byte L2 promotion for such maps (encode_tensor_map) the GEMM on A as it is runs
// faster than the copy plus the GEMM on it up to about 200 MB of A: A's copy is one pass over
// its bytes against a GEMM that reads them n / BN times, more of them from DRAM the larger A is
// (docs/ladder/hopper.md#lab-a-copy, #lab-a-copy-bytes).
inline constexpr int64_t kCopyAMinN = 3000, kCopyAMinBytes = int64_t{192} << 20;
bool copies_pay_for_a(const Problem& p);

// The operands the Hopper steps copy into workspaces with 128-byte columns (pad_copy.hpp) before
// the GEMM: those TMA cannot read, and A where copies_pay_for_a.
struct OperandCopies {
    bool a = false, b = false;
    bool any() const { return a || b; }
};
OperandCopies operand_copies(const Problem& p);

// Whether step 6 may write p's C with TMA stores: 16-bit or FP32 C, not read (beta == 0),
// addressable, and its columns whole 16-byte chunks (m a multiple of 8, or of 4 for FP32): a TMA
// store clips the contiguous dimension only to whole 16-byte chunks, so with m % 8 != 0 it wrote
// up to 7 elements past m in every column (docs/ladder/hopper.md#lab-steps-06-14).
bool tma_writes_c(const Problem& p);

}  // namespace gemmkit::hopper

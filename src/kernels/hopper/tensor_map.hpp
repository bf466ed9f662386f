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
// the matrix read as zero. Fails with cudaErrorInvalidValue when TMA cannot address the matrix
// (see tma_addressable), and with the driver's error when the driver has no TMA.
cudaError_t encode_tensor_map(CUtensorMap* map, const void* base, gemmkit_dtype type, uint64_t rows, uint64_t cols,
                              int64_t ld, uint32_t box_rows, uint32_t box_cols);

// Whether TMA can read a matrix at `base` with leading dimension ld of `type`: the base
// 16-byte aligned and ld a multiple of 16 bytes, so that every column starts on a 16-byte
// boundary too.
bool tma_addressable(const void* base, int64_t ld, gemmkit_dtype type);

// Whether every column of the matrix at `base` with leading dimension `ld` starts on a 128-byte
// line (tensor maps of other matrices promote L2 fetches to 128 bytes, not 256: see
// encode_tensor_map).
bool on_128_byte_columns(const void* base, int64_t ld, gemmkit_dtype type);

// Whether TMA can read A and B of p (both tma_addressable).
bool tma_reads_operands(const Problem& p);

// Whether copying A into a workspace of 128-byte columns pays although TMA can read it: an A
// whose columns start on odd multiples of 16 bytes (16-bit lda = 4104, 5000, 8200, FP32 lda =
// 4100, 5004, or a base 16 bytes into a 32-byte sector), of at least kCopyAMinBytes, with n of
// at least kCopyAMinN. TMA reads each 128-byte row of such a slab's box in more L2 requests
// (ncu, 3000^3 FP16: 2.4x the requests of 3072^3, 1.3x the sectors). While the tensor maps
// promoted L2 fetches to 256 bytes that cost 12-21% at 4104^3-8200^3, and the copy paid from
// 2^23 elements of A. With 128-byte promotion for such maps (encode_tensor_map) the GEMM on A as
// it is ran faster than the copy plus the GEMM on it (H100, time against the copy): FP16 3000^3
// -8%, 6008^3 -6%, 7000^3 -4%, 8200^3 -2 to -3% (A 134 MB); TF32 4100^3 -6%, 5004^3 -3%, 6004^3
// -4% (A 144 MB), 6500^3 -3% (169 MB); FP16 9208^3 -2% (170 MB); even at FP16 10008^3 (200 MB,
// +0.7%) and TF32 7004^3 (196 MB, +0.4 to +2%); the copy paid at FP16 11000^3 (242 MB, +6%) and
// TF32 8196^3 (269 MB, +1 to +7%). A's copy is one pass over its bytes against a GEMM that reads
// them n / BN times, more of them from DRAM the larger A is; the break-even lies near 200 MB for
// both types (docs/ladder.md, "Columns off 32-byte boundaries").
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
// addressable, and its columns whole 16-byte chunks (m a multiple of 8, or of 4 for FP32). Measured on an H200: a TMA store clips the contiguous dimension only to
// whole 16-byte chunks, so with m % 8 != 0 it wrote up to 7 elements past m in every column.
bool tma_writes_c(const Problem& p);

}  // namespace gemmkit::hopper

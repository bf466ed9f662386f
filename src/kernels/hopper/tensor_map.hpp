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

// Whether TMA can read A and B of p (both tma_addressable).
bool tma_reads_operands(const Problem& p);

// Whether step 6 may write p's C with TMA stores: 16-bit or FP32 C, not read (beta == 0),
// addressable, and its columns whole 16-byte chunks (m a multiple of 8, or of 4 for FP32). Measured on an H200: a TMA store clips the contiguous dimension only to
// whole 16-byte chunks, so with m % 8 != 0 it wrote up to 7 elements past m in every column.
bool tma_writes_c(const Problem& p);

}  // namespace gemmkit::hopper

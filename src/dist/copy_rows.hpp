// Copies rows of 16-bit elements between device buffers on SMs (copy_rows.cu).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmkit::dist {

// rows rows of row_bytes bytes each, from src (a row every ld_src bytes) to dst (every ld_dst
// bytes), on `stream`. row_bytes, ld_src, ld_dst and both pointers are multiples of 2.
cudaError_t copy_rows(void* dst, int64_t ld_dst, const void* src, int64_t ld_src, int64_t rows, int64_t row_bytes,
                      int sm_count, cudaStream_t stream);

}  // namespace gemmkit::dist

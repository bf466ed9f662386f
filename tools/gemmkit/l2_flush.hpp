// The bench's L2 flush kernel (l2_flush.cu).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmkit::cli {

// Reads `bytes` (a multiple of 16) at `buffer`, which must hold zeros, through the L2 on
// `stream`; `sink` is a device word it never writes (but could, so the loads stay).
cudaError_t read_buffer_through_l2(const void* buffer, size_t bytes, unsigned* sink, int sm_count,
                                   cudaStream_t stream);

}  // namespace gemmkit::cli

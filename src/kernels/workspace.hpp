// Stream-ordered scratch memory for the launchers: padded and transposed operands (Hopper
// pad_copy.cu), stream-K partial sums (Hopper 08_stream_k.cuh), split-K partial sums (FP32 step 13).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmkit {

// *ptr = `bytes` of device memory from the library's pool on the current device, usable by work
// enqueued on `stream` from now on; the caller frees it with cudaFreeAsync on the same stream.
cudaError_t allocate_workspace(void** ptr, size_t bytes, cudaStream_t stream);

}  // namespace gemmkit

// Stream-ordered scratch memory for the Hopper launchers: padded and transposed operands
// (pad_copy.cu), stream-K partial sums (08_stream_k.cuh).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmkit::hopper {

// *ptr = `bytes` of device memory from the library's pool on the current device, usable by work
// enqueued on `stream` from now on; the caller frees it with cudaFreeAsync on the same stream.
cudaError_t allocate_workspace(void** ptr, size_t bytes, cudaStream_t stream);

}  // namespace gemmkit::hopper

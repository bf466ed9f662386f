// Stream-ordered scratch memory for the launchers: padded and transposed operands (Hopper
// pad_copy.cu), stream-K partial sums (Hopper 08_stream_k.cuh, FP64 08_dmma_stream_k.cuh), split-K
// partial sums (FP32 step 13).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmkit {

// *ptr = `bytes` of device memory from the library's pool on the current device, usable by work
// enqueued on `stream` from now on; the caller frees it with cudaFreeAsync on the same stream.
cudaError_t allocate_workspace(void** ptr, size_t bytes, cudaStream_t stream);

// Bytes of `count` int flags at the front of a workspace (stream-K's "partial written" flags),
// rounded up to 256 so that the sums after them start aligned.
constexpr size_t workspace_flag_bytes(size_t count) { return (count * sizeof(int) + 255) / 256 * 256; }

}  // namespace gemmkit

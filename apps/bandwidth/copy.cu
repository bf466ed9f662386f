#include "bandwidth/copy.cuh"
#include "bandwidth/ops.hpp"

namespace gemmkit::bandwidth {

cudaError_t launch_copy(const StreamArgs& args, cudaStream_t stream) {
    return launch_stream(args.n, args.x, args.y, CopyOp{}, args.max_blocks, stream);
}

cudaError_t copy_full_wave(int* blocks) { return stream_full_wave<CopyOp>(blocks); }

cudaError_t memcpy_copy(const StreamArgs& args, cudaStream_t stream) {
    if (args.n < 0 || (args.n > 0 && (args.x == nullptr || args.y == nullptr))) return cudaErrorInvalidValue;
    return cudaMemcpyAsync(args.y, args.x, static_cast<size_t>(args.n) * sizeof(float), cudaMemcpyDeviceToDevice,
                           stream);
}

}  // namespace gemmkit::bandwidth

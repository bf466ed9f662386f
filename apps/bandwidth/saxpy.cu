#include "bandwidth/ops.hpp"
#include "bandwidth/saxpy.cuh"

namespace gemmkit::bandwidth {

cudaError_t launch_saxpy(const StreamArgs& args, cudaStream_t stream) {
    return launch_stream(args.n, args.x, args.y, SaxpyOp{args.a}, args.max_blocks, stream);
}

cudaError_t saxpy_full_wave(int* blocks) { return stream_full_wave<SaxpyOp>(blocks); }

}  // namespace gemmkit::bandwidth

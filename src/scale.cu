#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "chunking.hpp"
#include "dispatch.hpp"
#include "kernels/scale_c.cuh"

namespace gemmkit {

cudaError_t launch_scale(const Problem& p, cudaStream_t stream) {
    return for_each_chunk(p, ChunkLimits{}, [&](const Problem& s) {
        switch (s.c_type) {
            case GEMMKIT_R_32F: return launch_scale_c<float>(s, stream);
            case GEMMKIT_R_64F: return launch_scale_c<double>(s, stream);
            case GEMMKIT_R_16F: return launch_scale_c<__half>(s, stream);
            case GEMMKIT_R_16BF: return launch_scale_c<__nv_bfloat16>(s, stream);
            case GEMMKIT_R_8F_E4M3:  // C is never FP8 (the FP8 row refuses it)
            case GEMMKIT_R_8F_E5M2: break;
        }
        return cudaErrorInvalidValue;
    });
}

}  // namespace gemmkit

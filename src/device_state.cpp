#include "device_state.hpp"

#include <map>
#include <mutex>

#include <cuda_runtime_api.h>

#include "common/status.hpp"

namespace gemmkit {

gemmkit_status current_device(DeviceState* out) {
    static std::mutex mutex;
    static std::map<int, DeviceState> cache;

    int ordinal = -1;
    cudaError_t err = cudaGetDevice(&ordinal);
    if (err != cudaSuccess) {
        cudaGetLastError();  // do not leave the error sticky for the caller
        return fail(GEMMKIT_CUDA_ERROR, std::string("no CUDA device: ") + cudaGetErrorString(err));
    }
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(ordinal);
    if (it == cache.end()) {
        DeviceState s;
        s.ordinal = ordinal;
        int major = 0, minor = 0;
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal));
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&s.sm_count, cudaDevAttrMultiProcessorCount, ordinal));
        s.sm = 10 * major + minor;
        it = cache.emplace(ordinal, s).first;
    }
    *out = it->second;
    return GEMMKIT_SUCCESS;
}

}  // namespace gemmkit

#include "device_state.hpp"

#include <map>
#include <mutex>
#include <tuple>

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

cudaError_t opt_in_smem(const void* kernel, int smem_bytes) {
    if (smem_bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
}

cudaError_t resident_blocks_per_sm(const void* kernel, int threads, int smem_bytes, int* per_sm) {
    static std::mutex mutex;
    static std::map<std::tuple<int, const void*, int, int>, int> known;  // (device, kernel, threads, smem)
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) {
        const auto key = std::make_tuple(device, kernel, threads, smem_bytes);
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = known.find(key); it != known.end()) {
            *per_sm = it->second;
            return cudaSuccess;
        }
        err = opt_in_smem(kernel, smem_bytes);
        if (err == cudaSuccess)
            err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, threads, static_cast<size_t>(smem_bytes));
        if (err == cudaSuccess) known.emplace(key, *per_sm);
    }
    if (err != cudaSuccess) cudaGetLastError();
    return err;
}

}  // namespace gemmkit

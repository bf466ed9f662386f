#include "device_state.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "sm_limit.hpp"

namespace gemmkit::hopper {
bool hopper_code_loaded();  // kernels/hopper/registry.cu
}  // namespace gemmkit::hopper

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
        DeviceFacts& f = s.facts;
        int l2 = 0, clusters = 0;
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&f.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal));
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&f.smem_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal));
        GEMMKIT_RETURN_IF_CUDA(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, ordinal));
        cudaDeviceProp prop{};
        GEMMKIT_RETURN_IF_CUDA(cudaGetDeviceProperties(&prop, ordinal));
        f.name = prop.name;
        f.sm = s.sm;
        f.sm_count = s.sm_count;
        f.l2_bytes = l2;
        f.clusters = clusters != 0;
        f.hopper_code = s.sm >= 90 && hopper::hopper_code_loaded();
        it = cache.emplace(ordinal, s).first;
    }
    *out = it->second;
    return GEMMKIT_SUCCESS;
}

namespace {
thread_local int t_sm_limit = 0;  // gemmkit_set_sm_limit's, for this thread's GEMMs; 0: none
}  // namespace

void set_sm_limit(int sm_count) { t_sm_limit = sm_count; }
int sm_limit() { return t_sm_limit; }

gemmkit_status current_device_facts(DeviceFacts* out) {
    DeviceState dev;
    if (gemmkit_status s = current_device(&dev); s != GEMMKIT_SUCCESS) return s;
    *out = dev.facts;
    // The thread's SM limit (gemmkit_set_sm_limit), where one is set, caps the SM count.
    if (t_sm_limit > 0 && t_sm_limit < out->sm_count) out->sm_count = t_sm_limit;
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

gemmkit_status check_device_pointer(const void* ptr, const char* name) {
    cudaPointerAttributes attr{};
    cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return fail(GEMMKIT_INVALID_VALUE, std::string(name) + " is not a pointer the CUDA runtime knows: " +
                                               cudaGetErrorString(err));
    }
    if (attr.type == cudaMemoryTypeUnregistered)
        return fail(GEMMKIT_INVALID_VALUE, std::string(name) +
                                               " points to ordinary host memory; pass device, managed or "
                                               "cudaHostRegister'ed memory");
    return GEMMKIT_SUCCESS;
}

gemmkit_status check_no_pending_error() {
    if (cudaError_t pending = cudaPeekAtLastError(); pending != cudaSuccess)
        return fail(GEMMKIT_CUDA_ERROR, std::string("an earlier CUDA error is pending (left for the caller to "
                                                    "clear with cudaGetLastError): ") +
                                            cudaGetErrorString(pending));
    return GEMMKIT_SUCCESS;
}

}  // namespace gemmkit

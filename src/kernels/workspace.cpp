#include "kernels/workspace.hpp"

#include <cstdint>
#include <map>
#include <mutex>

namespace gemmkit {
namespace {

// The workspaces come from the library's own stream-ordered pool on each device, which keeps
// freed memory for the next call (release threshold: unlimited). The default pool hands its
// memory back at every synchronization, and mapping it again on every call cost more than the
// copy itself (docs/ladder/hopper.md#lab-steps-06-14, "Unaligned operands"). The pool keeps the
// largest workspace a call needed, until the process ends.
std::mutex pool_mutex;
std::map<int, cudaMemPool_t> pools;  // by device ordinal

cudaError_t create_pool_now(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    uint64_t keep_all = UINT64_MAX;
    return cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
}

// The first workspace may be asked for while the caller's stream is being captured into a graph,
// which forbids creating a pool in this thread (the capture is invalidated: a GPU test found it):
// create it in relaxed capture mode, which permits it.
cudaError_t create_pool(int device, cudaMemPool_t* pool) {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    const cudaError_t err = create_pool_now(device, pool);
    cudaThreadExchangeStreamCaptureMode(&mode);
    return err;
}

}  // namespace

cudaError_t allocate_workspace(void** ptr, size_t bytes, cudaStream_t stream) {
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    std::lock_guard<std::mutex> lock(pool_mutex);
    cudaMemPool_t& pool = pools[device];
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (pool == nullptr && (err = create_pool(device, &pool)) != cudaSuccess) {
            pool = nullptr;
            return err;
        }
        err = cudaMallocFromPoolAsync(ptr, bytes, pool, stream);
        if (err != cudaErrorInvalidValue && err != cudaErrorInvalidResourceHandle) return err;
        pool = nullptr;  // a cudaDeviceReset destroyed it: make another
    }
    return err;
}

}  // namespace gemmkit

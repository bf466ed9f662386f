#include "kernels/hopper/pad_copy.hpp"

#include <cstdint>
#include <map>
#include <mutex>

namespace gemmkit::hopper {
namespace {

// The workspaces come from the library's own stream-ordered pool on each device, which keeps
// freed memory for the next call (release threshold: unlimited). The default pool hands its
// memory back at every synchronization, and mapping it again on every call cost more than the
// copy itself (4097^3 BF16 on an H200: 0.47 ms a GEMM instead of ~0.3). The pool keeps the
// largest workspace a call needed, until the process ends.
std::mutex pool_mutex;
std::map<int, cudaMemPool_t> pools;  // by device ordinal

cudaError_t create_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    uint64_t keep_all = UINT64_MAX;
    return cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
}

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

// dst(r, c) = src(r, c) for r < rows, c < cols; dst's rows rows..ld_dst-1 are zero-filled.
// Each thread moves 8 elements of one column: 2-byte loads (src may be 2-byte aligned only),
// one 16-byte store (ld_dst is a multiple of 8).
__global__ void pad_columns_kernel(const uint16_t* src, int64_t ld_src, uint16_t* dst, int64_t ld_dst, int64_t rows,
                                   int64_t cols) {
    const int64_t chunks_per_col = ld_dst / 8, chunks = chunks_per_col * cols;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < chunks;
         i += int64_t{gridDim.x} * blockDim.x) {
        const int64_t c = i / chunks_per_col, r0 = i % chunks_per_col * 8;
        const uint16_t* s = src + c * ld_src + r0;
        uint16_t v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = r0 + e < rows ? s[e] : uint16_t{0};
        const uint4 packed = {v[0] | uint32_t{v[1]} << 16, v[2] | uint32_t{v[3]} << 16, v[4] | uint32_t{v[5]} << 16,
                              v[6] | uint32_t{v[7]} << 16};
        *reinterpret_cast<uint4*>(dst + c * ld_dst + r0) = packed;
    }
}

}  // namespace

cudaError_t pad_operand(const void* src, int64_t ld, int64_t rows, int64_t cols, cudaStream_t stream,
                        PaddedOperand* out) {
    const int64_t ld_dst = (rows + 7) / 8 * 8;
    void* dst = nullptr;
    cudaError_t err = allocate_workspace(&dst, static_cast<size_t>(ld_dst * cols * 2), stream);
    if (err != cudaSuccess) {
        cudaGetLastError();  // an allocation failure must not surface as the next launch's error
        return err;
    }
    const int64_t chunks = ld_dst / 8 * cols, blocks = chunks / 256 + 1;
    pad_columns_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
        static_cast<const uint16_t*>(src), ld, static_cast<uint16_t*>(dst), ld_dst, rows, cols);
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        cudaFreeAsync(dst, stream);
        return err;
    }
    *out = {dst, ld_dst};
    return cudaSuccess;
}

}  // namespace gemmkit::hopper

// GEMM-ReduceScatter on the copy engines: the own rows' GEMM has written this rank's partial
// sums into y, and the peers' partial sums of the same rows have arrived side by side in the
// window; one pass adds them in. Memory-bound; FP32 accumulation, one rounding of the total
// (docs/dist.md#gemm-reducescatter).
#include "dist/add_partials.hpp"

#include <algorithm>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gemmkit::dist {
namespace {

// y[row, col] (ld ldy) += sum over slots q != skip of parts[q * slot + row * n + col].
template <typename T>
__global__ void add_partials_kernel(T* y, int64_t ldy, const T* parts, int64_t slot, int slots, int skip, int64_t rows,
                                    int64_t n) {
    const int64_t total = rows * n;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t row = e / n, col = e - row * n;
        T& out = y[row * ldy + col];
        float sum = static_cast<float>(out);
        for (int q = 0; q < slots; ++q)
            if (q != skip) sum += static_cast<float>(parts[q * slot + e]);
        out = static_cast<T>(sum);
    }
}

// As add_partials_kernel, eight values a thread with 16-byte loads and stores: for n, ldy and
// slot multiples of 8 and 16-byte aligned buffers (the common case), at several times the rate.
template <typename T>
__global__ void add_partials_kernel_x8(T* y, int64_t ldy, const T* parts, int64_t slot, int slots, int skip,
                                       int64_t rows, int64_t n) {
    const int64_t total = rows * n / 8;
    for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < total; v += int64_t(gridDim.x) * blockDim.x) {
        const int64_t e = 8 * v, row = e / n, col = e - row * n;
        uint4* out = reinterpret_cast<uint4*>(y + row * ldy + col);
        uint4 packed = *out;
        const T* mine = reinterpret_cast<const T*>(&packed);
        float sum[8];
        for (int j = 0; j < 8; ++j) sum[j] = static_cast<float>(mine[j]);
        for (int q = 0; q < slots; ++q) {
            if (q == skip) continue;
            const uint4 in = *reinterpret_cast<const uint4*>(parts + q * slot + e);
            const T* theirs = reinterpret_cast<const T*>(&in);
            for (int j = 0; j < 8; ++j) sum[j] += static_cast<float>(theirs[j]);
        }
        T* result = reinterpret_cast<T*>(&packed);
        for (int j = 0; j < 8; ++j) result[j] = static_cast<T>(sum[j]);
        *out = packed;
    }
}

template <typename T>
cudaError_t launch(void* y, int64_t ldy, const void* parts, int64_t slot, int slots, int skip, int64_t rows, int64_t n,
                   int sm_count, cudaStream_t stream) {
    constexpr int kThreads = 256;
    auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    const bool x8 = n % 8 == 0 && ldy % 8 == 0 && slot % 8 == 0 && aligned(y) && aligned(parts);
    const int64_t threads = x8 ? rows * n / 8 : rows * n;
    const auto blocks = static_cast<unsigned>(std::min<int64_t>((threads + kThreads - 1) / kThreads, int64_t(sm_count) * 8));
    if (x8)
        add_partials_kernel_x8<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(y), ldy, static_cast<const T*>(parts),
                                                                   slot, slots, skip, rows, n);
    else
        add_partials_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(y), ldy, static_cast<const T*>(parts),
                                                                slot, slots, skip, rows, n);
    return cudaGetLastError();
}

}  // namespace

cudaError_t add_partials(gemmkit_dtype type, void* y, int64_t ldy, const void* parts, int64_t slot, int slots,
                         int skip, int64_t rows, int64_t n, int sm_count, cudaStream_t stream) {
    if (rows == 0 || n == 0) return cudaSuccess;
    return type == GEMMKIT_R_16BF
               ? launch<__nv_bfloat16>(y, ldy, parts, slot, slots, skip, rows, n, sm_count, stream)
               : launch<__half>(y, ldy, parts, slot, slots, skip, rows, n, sm_count, stream);
}

}  // namespace gemmkit::dist

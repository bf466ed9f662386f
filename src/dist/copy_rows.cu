// AllGather-GEMM on the copy engines: this rank's rows of X go into its slot of the window
// before the in-place all-gather. On SMs, 16 bytes a thread where it can: at HBM speed this
// takes a few microseconds, where a copy engine took ~110 us for 32 MiB and slowed the GEMM
// beside it (docs/results/2026-11-28-dist-copy-engines/).
#include "dist/copy_rows.hpp"

#include <algorithm>
#include <cstdint>

namespace gemmkit::dist {
namespace {

// dst[row * ld_dst + i] = src[row * ld_src + i] for i < width, in units of U.
template <class U>
__global__ void copy_rows_kernel(U* dst, int64_t ld_dst, const U* src, int64_t ld_src, int64_t rows, int64_t width) {
    const int64_t total = rows * width;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t row = e / width, i = e - row * width;
        dst[row * ld_dst + i] = src[row * ld_src + i];
    }
}

template <class U>
cudaError_t launch(void* dst, int64_t ld_dst, const void* src, int64_t ld_src, int64_t rows, int64_t width,
                   int sm_count, cudaStream_t stream) {
    constexpr int kThreads = 256;
    const auto blocks =
        static_cast<unsigned>(std::min<int64_t>((rows * width + kThreads - 1) / kThreads, int64_t(sm_count) * 8));
    copy_rows_kernel<U><<<blocks, kThreads, 0, stream>>>(static_cast<U*>(dst), ld_dst, static_cast<const U*>(src),
                                                         ld_src, rows, width);
    return cudaGetLastError();
}

}  // namespace

cudaError_t copy_rows(void* dst, int64_t ld_dst, const void* src, int64_t ld_src, int64_t rows, int64_t row_bytes,
                      int sm_count, cudaStream_t stream) {
    if (rows == 0 || row_bytes == 0) return cudaSuccess;
    auto fits = [&](int64_t unit) {
        return row_bytes % unit == 0 && ld_dst % unit == 0 && ld_src % unit == 0 &&
               reinterpret_cast<uintptr_t>(dst) % unit == 0 && reinterpret_cast<uintptr_t>(src) % unit == 0;
    };
    if (fits(16)) return launch<uint4>(dst, ld_dst / 16, src, ld_src / 16, rows, row_bytes / 16, sm_count, stream);
    if (fits(4)) return launch<uint32_t>(dst, ld_dst / 4, src, ld_src / 4, rows, row_bytes / 4, sm_count, stream);
    return launch<uint16_t>(dst, ld_dst / 2, src, ld_src / 2, rows, row_bytes / 2, sm_count, stream);
}

}  // namespace gemmkit::dist

#include "kernels/hopper/pad_copy.hpp"

#include <cstdint>

#include "kernels/hopper/pad_chunk.cuh"

namespace gemmkit::hopper {
namespace {

// dst(r, c) = src(r, c) for r < rows, c < cols; the rest of each column's last 16-byte chunk is
// zero-filled (the rows after it are never read: the tensor map has rows rows).
// Each thread moves one 16-byte chunk of one column (PadChunk).
template <class E>
__global__ void pad_columns_kernel(const E* src, int64_t ld_src, E* dst, int64_t ld_dst, int64_t rows, int64_t cols) {
    constexpr int kChunk = PadChunk<E>::kElems;
    const int64_t chunks_per_col = (rows + kChunk - 1) / kChunk, chunks = chunks_per_col * cols;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < chunks;
         i += int64_t{gridDim.x} * blockDim.x) {
        const int64_t c = i / chunks_per_col, r0 = i % chunks_per_col * kChunk;
        PadChunk<E> chunk;
        chunk.load(src + c * ld_src, r0, rows);
        chunk.store(dst + c * ld_dst, r0);
    }
}

// dst(c, r) = src(r, c) for 4-byte elements through a 32 x 33 shared tile (the extra column
// keeps the column reads conflict-free): reads and writes are both whole 128-byte rows. Past
// row cols, dst is zero-filled to the end of each column's 16-byte chunk, as pad_columns_kernel
// does. Blocks of 32 x 8 threads, one 32 x 32 tile each (the grid covers cols, rounded up to 32).
__global__ void transpose_kernel(const uint32_t* src, int64_t ld_src, uint32_t* dst, int64_t ld_dst, int64_t rows,
                                 int64_t cols) {
    __shared__ uint32_t tile[32][33];
    const int64_t r0 = blockIdx.x * int64_t{32}, c0 = blockIdx.y * int64_t{32};
    for (int i = threadIdx.y; i < 32; i += 8) {
        const int64_t r = r0 + threadIdx.x, c = c0 + i;
        tile[i][threadIdx.x] = r < rows && c < cols ? src[r + c * ld_src] : 0u;
    }
    __syncthreads();
    const int64_t filled = (cols + 3) / 4 * 4;  // dst rows written: whole 16-byte chunks
    for (int i = threadIdx.y; i < 32; i += 8) {
        const int64_t c = c0 + threadIdx.x, r = r0 + i;  // dst row c, column r
        if (c < filled && r < rows) dst[c + r * ld_dst] = tile[threadIdx.x][i];
    }
}

}  // namespace

cudaError_t pad_operand(const void* src, int64_t ld, int64_t rows, int64_t cols, int element_bytes,
                        cudaStream_t stream, PaddedOperand* out) {
    if (element_bytes != 2 && element_bytes != 4) return cudaErrorInvalidValue;
    const int64_t chunk = 16 / element_bytes, ld_dst = line_multiple(rows, element_bytes);
    const int64_t chunks = (rows + chunk - 1) / chunk * cols, blocks = chunks / 256 + 1;  // as the kernel counts
    const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
    auto enqueue = [&](void* dst) {
        if (element_bytes == 2)
            pad_columns_kernel<<<grid, 256, 0, stream>>>(static_cast<const uint16_t*>(src), ld,
                                                         static_cast<uint16_t*>(dst), ld_dst, rows, cols);
        else
            pad_columns_kernel<<<grid, 256, 0, stream>>>(static_cast<const uint32_t*>(src), ld,
                                                         static_cast<uint32_t*>(dst), ld_dst, rows, cols);
    };
    return fill_workspace(ld_dst, cols, element_bytes, stream, enqueue, out);
}

cudaError_t transpose_operand(const float* src, int64_t ld, int64_t rows, int64_t cols, cudaStream_t stream,
                              PaddedOperand* out) {
    const int64_t ld_dst = line_multiple(cols, 4);  // the transpose's rows
    const dim3 grid(static_cast<unsigned>((rows + 31) / 32), static_cast<unsigned>((cols + 31) / 32));
    auto enqueue = [&](void* dst) {
        transpose_kernel<<<grid, dim3(32, 8), 0, stream>>>(reinterpret_cast<const uint32_t*>(src), ld,
                                                           static_cast<uint32_t*>(dst), ld_dst, rows, cols);
    };
    return fill_workspace(ld_dst, rows, 4, stream, enqueue, out);
}

}  // namespace gemmkit::hopper

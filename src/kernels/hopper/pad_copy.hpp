// Copying an operand that TMA cannot read (a leading dimension that is not a multiple of 16
// bytes, or a base that is not 16-byte aligned: 4097^3 is the usual case) into a workspace whose
// columns start on 128-byte boundaries. One extra pass over the operand, which for a large GEMM
// costs far less than leaving the wgmma kernels for the mma.sync ones.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/workspace.hpp"

namespace gemmkit::hopper {

// An operand's copy in a stream-ordered workspace (from the library's memory pool), to be freed
// with cudaFreeAsync on the same stream after the GEMM that reads it.
struct PaddedOperand {
    void* data = nullptr;
    int64_t ld = 0;  // a multiple of 128 bytes
};

// Copies the stored rows x cols matrix of 2- or 4-byte elements at src (column-major, leading
// dimension ld, aligned to its element size) into a new workspace, enqueued on `stream`; *out
// receives it. On failure (cudaErrorInvalidValue for another element size) nothing stays
// allocated and no CUDA error is left pending.
cudaError_t pad_operand(const void* src, int64_t ld, int64_t rows, int64_t cols, int element_bytes,
                        cudaStream_t stream, PaddedOperand* out);

// Copies the transpose of the stored rows x cols FP32 matrix at src (column-major, leading
// dimension ld) into a new workspace: a cols x rows column-major matrix whose columns start on
// 128-byte boundaries. For TF32 wgmma, which reads B only K-major (op N). As pad_operand otherwise.
cudaError_t transpose_operand(const float* src, int64_t ld, int64_t rows, int64_t cols, cudaStream_t stream,
                              PaddedOperand* out);

// The workspaces' leading dimension: rows rounded up to whole 128-byte lines. TMA needs only
// 16-byte columns, but a column that starts inside a line makes every 128-byte row of a slab's
// box touch two lines (five 32-byte sectors instead of four).
inline int64_t line_multiple(int64_t rows, int element_bytes) {
    const int64_t per_line = 128 / element_bytes;
    return (rows + per_line - 1) / per_line * per_line;
}

// A workspace of ld_dst x cols elements of element_bytes each, filled by enqueue(dst) (a kernel
// launch on `stream`), into *out. On failure nothing stays allocated and no error is pending.
// (For the copy kernels here and in peeled_edges.cu.)
template <class Enqueue>
cudaError_t fill_workspace(int64_t ld_dst, int64_t cols, int element_bytes, cudaStream_t stream, Enqueue&& enqueue,
                           PaddedOperand* out) {
    void* dst = nullptr;
    cudaError_t err = allocate_workspace(&dst, static_cast<size_t>(ld_dst * cols * element_bytes), stream);
    if (err != cudaSuccess) {
        cudaGetLastError();  // an allocation failure must not surface as the next launch's error
        return err;
    }
    enqueue(dst);
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        cudaFreeAsync(dst, stream);
        return err;
    }
    *out = {dst, ld_dst};
    return cudaSuccess;
}

}  // namespace gemmkit::hopper

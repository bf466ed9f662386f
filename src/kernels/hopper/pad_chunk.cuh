// One 16-byte chunk of an operand's column as the pad copies move it (pad_copy.cu, and the
// copies that also form C's peeled edges, peeled_edges.cu): read element by element, because the
// source is aligned to its element only; zero past the operand's last row; written whole, because
// the workspace's columns start on chunks.
#pragma once

#include <cstdint>

namespace gemmkit::hopper {

template <class E>
union PadChunk {
    static constexpr int kElems = 16 / sizeof(E);
    E e[kElems];
    uint4 v;

    // Rows r0 .. r0 + kElems - 1 of `column` (r0 < rows), zero from row `rows` on.
    __device__ __forceinline__ void load(const E* column, int64_t r0, int64_t rows) {
#pragma unroll
        for (int i = 0; i < kElems; ++i) e[i] = r0 + i < rows ? column[r0 + i] : E{0};
    }
    __device__ __forceinline__ void store(E* column, int64_t r0) const { *reinterpret_cast<uint4*>(column + r0) = v; }
};

}  // namespace gemmkit::hopper

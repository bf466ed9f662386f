// Splits a problem into launches whose sizes fit 32-bit indices and grid limits,
// so no kernel has to care: m and k at most 2^30, n at most 2^19 columns
// (with BN >= 16 that is at most 32768 column tiles, under gridDim.y's 65535), and batches of
// at most 65535 problems (one a layer of the grid, gridDim.z).
// K chunks after the first accumulate into C (beta = 1); a fused epilogue applies to the last.
#pragma once

#include <algorithm>
#include <cstdint>

#include "problem.hpp"

namespace gemmkit {

struct ChunkLimits {
    int64_t max_m = int64_t{1} << 30;
    int64_t max_n = int64_t{1} << 19;
    int64_t max_k = int64_t{1} << 30;
    int64_t max_batch = 65535;
};

namespace detail {
// Null stays null: A and B are NULL when they are not read.
inline const void* advance(const void* base, int64_t elements, size_t elem_size) {
    if (base == nullptr) return nullptr;
    return static_cast<const char*>(base) + elements * static_cast<int64_t>(elem_size);
}
}  // namespace detail

// Calls fn(sub) for each sub-problem in order, stopping at the first non-zero result.
// Element (row, col) of a column-major X lives at row + col * ld.
template <class Fn>
auto for_each_size_chunk(const Problem& p, const ChunkLimits& lim, Fn&& fn) -> decltype(fn(p)) {
    const size_t sa = dtype_size(p.a_type), sb = dtype_size(p.b_type), sc = dtype_size(p.c_type);
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    for (int64_t j0 = 0; j0 < p.n; j0 += lim.max_n) {
        for (int64_t i0 = 0; i0 < p.m; i0 += lim.max_m) {
            for (int64_t p0 = 0; p0 < p.k || (p0 == 0 && p.k == 0); p0 += lim.max_k) {
                Problem s = p;
                s.m = std::min(lim.max_m, p.m - i0);
                s.n = std::min(lim.max_n, p.n - j0);
                s.k = std::min(lim.max_k, p.k - p0);
                // op(A)(i0, p0): N at A[i0 + p0*lda], T at A[p0 + i0*lda]
                s.A = detail::advance(p.A, ta ? p0 + i0 * p.lda : i0 + p0 * p.lda, sa);
                // op(B)(p0, j0): N at B[p0 + j0*ldb], T at B[j0 + p0*ldb]
                s.B = detail::advance(p.B, tb ? j0 + p0 * p.ldb : p0 + j0 * p.ldb, sb);
                s.C = const_cast<void*>(detail::advance(p.C, i0 + j0 * p.ldc, sc));
                if (p0 > 0) s.beta = 1.0;
                // The fused epilogue applies once, to the last k chunk's sums: bias row i0 on.
                if (p0 + s.k < p.k) s.epilogue = Epilogue{};
                s.epilogue.bias = detail::advance(s.epilogue.bias, i0, sc);
                s.epilogue.aux = const_cast<void*>(detail::advance(s.epilogue.aux, i0 + j0 * p.epilogue.ld_aux, sc));
                auto result = fn(s);
                if (result) return result;
                if (p.k == 0) break;
            }
        }
    }
    return {};
}

// for_each_size_chunk over batches of at most lim.max_batch problems: each moved on by the
// strides, or by entries of the pointer arrays, of the problems before it. Pointer-array
// batches are never cut by size (the API refuses those that would be: their matrices cannot be
// moved on the host), so their A, B and C stay NULL.
template <class Fn>
auto for_each_chunk(const Problem& p, const ChunkLimits& lim, Fn&& fn) -> decltype(fn(p)) {
    const Batch& b = p.batch;
    for (int64_t z0 = 0; z0 < b.count; z0 += lim.max_batch) {
        Problem s = p;
        s.batch.count = std::min(lim.max_batch, b.count - z0);
        if (pointer_arrays(p)) {
            s.batch.a_array = b.a_array != nullptr ? b.a_array + z0 : nullptr;
            s.batch.b_array = b.b_array != nullptr ? b.b_array + z0 : nullptr;
            s.batch.c_array = b.c_array + z0;
        } else {
            s.A = detail::advance(p.A, z0 * b.stride_a, dtype_size(p.a_type));
            s.B = detail::advance(p.B, z0 * b.stride_b, dtype_size(p.b_type));
            s.C = const_cast<void*>(detail::advance(p.C, z0 * b.stride_c, dtype_size(p.c_type)));
        }
        const Epilogue& e = p.epilogue;  // bias and aux move by their strides in either kind of batch
        s.epilogue.bias = detail::advance(e.bias, z0 * e.bias_stride, dtype_size(p.c_type));
        s.epilogue.aux = const_cast<void*>(detail::advance(e.aux, z0 * e.aux_stride, dtype_size(p.c_type)));
        auto result = for_each_size_chunk(s, lim, fn);
        if (result) return result;
    }
    return {};
}

}  // namespace gemmkit

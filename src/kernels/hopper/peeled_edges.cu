#include "kernels/hopper/peeled_edges.hpp"

#include "device_state.hpp"
#include "kernels/hopper/pad_chunk.cuh"
#include "kernels/tensor/types.cuh"

namespace gemmkit::hopper {
namespace {

// FP32 operands of a TF32 GEMM, moved as their bits, 4 elements a 16-byte chunk.
using Chunk = PadChunk<uint32_t>;
constexpr int kElems = Chunk::kElems;

// An element as the GEMM's tensor cores take it: truncated to TF32, as wgmma reads it (its top
// 19 bits), so that the strips agree with the rest of C.
__device__ __forceinline__ float as_tf32(uint32_t bits) { return __uint_as_float(bits & 0xffffe000u); }

// The copy: dst(r, c) = src(r, c) for r < rows, c < cols, as pad_operand makes it (each
// column's last 16-byte chunk zero-filled past `rows`).
struct CopyArgs {
    const uint32_t* src;
    int64_t ld_src;
    uint32_t* dst;
    int64_t ld_dst;
    int64_t rows, cols;

    // The chunk of column c from row r0 (< rows).
    __device__ __forceinline__ void load(int64_t r0, int64_t c, Chunk* chunk) const {
        chunk->load(src + c * ld_src, r0, rows);
    }
    __device__ __forceinline__ void store(int64_t r0, int64_t c, const Chunk& chunk) const {
        chunk.store(dst + c * ld_dst, r0);
    }
};

// The other operand's peeled vectors: vector s, element kk at base[s stride_s + kk stride_k].
struct PeeledVectors {
    const uint32_t* base;
    int64_t stride_s, stride_k;
    __device__ float at(int s, int64_t kk) const { return as_tf32(base[s * stride_s + kk * stride_k]); }
};

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kBatch = 4;  // chunks a thread loads before it uses any: enough bytes in flight for DRAM

// Both copies split k into gridDim.y even ranges, so that the grid is one wave of resident
// blocks with equal work (ranges of a fixed length left the row copy 2.1 waves at 4097^3), and
// write one partial sum per range: sums[range][outer][s].
// A range starts on a multiple of `align` (the column copy's ranges are of rows, which its
// 16-byte stores take in whole chunks); the last ranges may be empty.
__device__ __forceinline__ void k_range_of_block(int64_t k, int align, int64_t* begin, int64_t* end) {
    const int64_t per = ((k + gridDim.y - 1) / gridDim.y + align - 1) / align * align;
    *begin = blockIdx.y * per;
    *end = *begin + per < k ? *begin + per : k;
}

// The copied operand's outer index (m of A, n of B) runs along its stored rows and k along its
// columns (A of op N, B of op T). A block takes 32 chunks of rows (a lane each) and a range of
// columns (warp w every kWarps-th, from w): each thread sums its 4 rows' products with
// the vectors (one element a column, the same for the whole warp), and the block's warps add
// theirs in shared memory.
template <int kCount>
__global__ void __launch_bounds__(kThreads)
    copy_with_row_dots_kernel(CopyArgs a, PeeledVectors v, float* __restrict__ sums) {
    constexpr int kBlockRows = 32 * kElems;
    __shared__ float part[kWarps][kCount][kBlockRows];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t r0 = int64_t{blockIdx.x} * kBlockRows + lane * kElems;
    int64_t c_begin, c_end;
    k_range_of_block(a.cols, 1, &c_begin, &c_end);
    float acc[kElems][kCount] = {};
    if (r0 < a.rows) {
        for (int64_t c0 = c_begin + warp; c0 < c_end; c0 += kBatch * kWarps) {
            // Every load of the batch, the vectors' elements too, before any store: the
            // compiler may not move a load above a store to memory it cannot tell apart.
            Chunk e[kBatch];
            float w[kBatch][kCount];
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int64_t c = c0 + u * kWarps;
                if (c < c_end) {
                    a.load(r0, c, &e[u]);
#pragma unroll
                    for (int s = 0; s < kCount; ++s) w[u][s] = v.at(s, c);
                }
            }
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int64_t c = c0 + u * kWarps;
                if (c >= c_end) break;
                a.store(r0, c, e[u]);
#pragma unroll
                for (int s = 0; s < kCount; ++s)
#pragma unroll
                    for (int i = 0; i < kElems; ++i) acc[i][s] += as_tf32(e[u].e[i]) * w[u][s];
            }
        }
    }
#pragma unroll
    for (int i = 0; i < kElems; ++i)
#pragma unroll
        for (int s = 0; s < kCount; ++s) part[warp][s][lane * kElems + i] = acc[i][s];
    __syncthreads();
    for (int i = threadIdx.x; i < kCount * kBlockRows; i += kThreads) {
        const int s = i / kBlockRows, r = i % kBlockRows;
        const int64_t row = int64_t{blockIdx.x} * kBlockRows + r;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += part[w][s][r];
        if (row < a.rows) sums[(int64_t{blockIdx.y} * a.rows + row) * kCount + s] = sum;
    }
}

// The outer index runs along the stored columns and k along the rows (A of op T, B of op N).
// A block takes kColsK columns (warp w every kWarps-th) and a range of rows, which it walks a
// slice of kSliceRows at a time: the slice of the vectors goes to shared memory first (one
// element a thread, however they are strided), then each warp's lanes cover its columns' slices
// in chunks. A column's products are summed across its warp, then over the slices in shared
// memory.
constexpr int kColsK = 64, kSliceRows = 1024;

template <int kCount>
__global__ void __launch_bounds__(kThreads, 2)  // (without the 2, ptxas capped some at 80 registers and spilled)
    copy_with_column_dots_kernel(CopyArgs a, PeeledVectors v, float* __restrict__ sums) {
    constexpr int kWarpRows = 32 * kElems, kColsPerWarp = kColsK / kWarps;
    __shared__ float vec[kCount][kSliceRows];
    __shared__ float column_sum[kColsK][kCount];  // a column's sums over the slices so far
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t c_base = int64_t{blockIdx.x} * kColsK;
    int64_t r_begin, r_end;
    k_range_of_block(a.rows, kElems, &r_begin, &r_end);
    for (int i = threadIdx.x; i < kColsK * kCount; i += kThreads) column_sum[i / kCount][i % kCount] = 0.0f;
    for (int64_t slice = r_begin; slice < r_end; slice += kSliceRows) {
        const int rows = static_cast<int>(r_end - slice < kSliceRows ? r_end - slice : kSliceRows);
        __syncthreads();  // the last slice's vectors are used up
        for (int i = threadIdx.x; i < kCount * kSliceRows; i += kThreads) {
            const int s = i / kSliceRows, r = i % kSliceRows;
            vec[s][r] = r < rows ? v.at(s, slice + r) : 0.0f;
        }
        __syncthreads();
        // The warp's work in this slice as a list of items, column by column: item q is chunk
        // step q % steps of its column q / steps. Loaded kBatch items at a time, whatever
        // their columns, so that a warp keeps as many chunks in flight on short slices (a
        // 513-row range is 2 steps) as on long ones.
        const int steps = (rows + kWarpRows - 1) / kWarpRows, items = kColsPerWarp * steps;
        float acc[kCount] = {};
        for (int q0 = 0; q0 < items; q0 += kBatch) {
            Chunk e[kBatch];
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int q = q0 + u, j = warp + q / steps * kWarps, r = q % steps * kWarpRows + lane * kElems;
                if (q < items && c_base + j < a.cols && r < rows) a.load(slice + r, c_base + j, &e[u]);
            }
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int q = q0 + u, j = warp + q / steps * kWarps, r = q % steps * kWarpRows + lane * kElems;
                if (q >= items || c_base + j >= a.cols) break;  // the same for the whole warp
                if (r < rows) {
                    a.store(slice + r, c_base + j, e[u]);
#pragma unroll
                    for (int i = 0; i < kElems; ++i)
#pragma unroll
                        for (int s = 0; s < kCount; ++s) acc[s] += as_tf32(e[u].e[i]) * vec[s][r + i];
                }
                if (q % steps == steps - 1) {  // the column's last chunk in this slice
#pragma unroll
                    for (int s = 0; s < kCount; ++s) {
#pragma unroll
                        for (int offset = 16; offset > 0; offset /= 2)
                            acc[s] += __shfl_xor_sync(0xffffffffu, acc[s], offset);
                        if (lane == 0) column_sum[j][s] += acc[s];  // this warp's column alone
                        acc[s] = 0.0f;
                    }
                }
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kColsK * kCount; i += kThreads) {
        const int j = i / kCount, s = i % kCount;
        if (c_base + j < a.cols) sums[(int64_t{blockIdx.y} * a.cols + c_base + j) * kCount + s] = column_sum[j][s];
    }
}

// Blocks of `kernel` resident on the whole GPU of `sms` SMs at once (at least one an SM).
int resident_blocks(const void* kernel, int sms) {
    int per_sm = 0;
    if (resident_blocks_per_sm(kernel, kThreads, 0, &per_sm) != cudaSuccess || per_sm < 1) per_sm = 1;
    return per_sm * sms;
}

// Blocks along the outer index of a copy of `outer` (m or n) elements.
int64_t outer_blocks(bool outer_along_rows, int64_t outer) {
    return outer_along_rows ? ceil_div(outer, 32 * kElems) : ceil_div(outer, kColsK);
}

// The most k ranges a copy splits into (the partial sums are allocated for it): at most one per
// 64 elements of k, and no more than a wave of the smallest blocks (8 an SM) needs.
int64_t max_ranges(int64_t outer_blocks, int64_t k, int sms) {
    const int64_t wave = int64_t{8} * sms / outer_blocks;
    const int64_t by_k = ceil_div(k, 64);
    return wave < 1 ? 1 : (wave < by_k ? wave : by_k);
}

// The copy's grid: blocks along the outer index, times as many k ranges as fill one wave of
// `kernel`'s resident blocks (at least one).
dim3 copy_grid(int64_t outer_blocks, int64_t k, const void* kernel, int sms) {
    int64_t ranges = resident_blocks(kernel, sms) / outer_blocks;
    ranges = ranges < 1 ? 1 : ranges;
    const int64_t bound = max_ranges(outer_blocks, k, sms);
    return dim3(static_cast<unsigned>(outer_blocks), static_cast<unsigned>(ranges < bound ? ranges : bound));
}

// The copy of the stored rows x cols operand with the dots of its outer index (along the rows
// or the columns) with kCount vectors; returns the number of k ranges (partial sums an output).
template <int kCount>
int64_t enqueue_copy(bool outer_along_rows, CopyArgs a, PeeledVectors v, float* sums, int sms, cudaStream_t stream) {
    if (outer_along_rows) {
        const auto kernel = copy_with_row_dots_kernel<kCount>;
        const dim3 grid = copy_grid(outer_blocks(true, a.rows), a.cols, reinterpret_cast<const void*>(kernel), sms);
        kernel<<<grid, kThreads, 0, stream>>>(a, v, sums);
        return grid.y;
    }
    const auto kernel = copy_with_column_dots_kernel<kCount>;
    const dim3 grid = copy_grid(outer_blocks(false, a.cols), a.rows, reinterpret_cast<const void*>(kernel), sms);
    kernel<<<grid, kThreads, 0, stream>>>(a, v, sums);
    return grid.y;
}

int64_t enqueue_copy(int count, bool outer_along_rows, CopyArgs a, PeeledVectors v, float* sums, int sms,
                     cudaStream_t stream) {
    static_assert(kMaxPeeled == 4, "one instantiation a count");
    switch (count) {
        case 1: return enqueue_copy<1>(outer_along_rows, a, v, sums, sms, stream);
        case 2: return enqueue_copy<2>(outer_along_rows, a, v, sums, sms, stream);
        case 3: return enqueue_copy<3>(outer_along_rows, a, v, sums, sms, stream);
        default: return enqueue_copy<4>(outer_along_rows, a, v, sums, sms, stream);
    }
}

// The FP32 operand at src (stored rows x cols, leading dimension ld) copied into *out, its dots
// with the vectors at `vectors` (count of them, strides in elements) summed into `sums`, *ranges
// partial sums an output.
cudaError_t copy_with_dots(const void* src, int64_t ld, int64_t rows, int64_t cols, bool outer_along_rows,
                           const void* vectors, int64_t stride_s, int64_t stride_k, int count, float* sums, int sms,
                           cudaStream_t stream, PaddedOperand* out, int64_t* ranges) {
    const int64_t ld_dst = line_multiple(rows, 4);
    auto enqueue = [&](void* dst) {
        const CopyArgs a{static_cast<const uint32_t*>(src), ld, static_cast<uint32_t*>(dst), ld_dst, rows, cols};
        const PeeledVectors v{static_cast<const uint32_t*>(vectors), stride_s, stride_k};
        *ranges = enqueue_copy(count, outer_along_rows, a, v, sums, sms, stream);
    };
    return fill_workspace(ld_dst, cols, 4, stream, enqueue, out);
}

// C's peeled strips: C(i, n - cols + q) for every i < m from A's copy's sums, then
// C(m - rows + q, j) for j < n - cols from B's. A warp an element: its lanes add every 32nd
// partial sum, then the warp adds the lanes' in a fixed order.
struct StripArgs {
    const float* sums_a;
    const float* sums_b;
    int64_t ranges_a, ranges_b;
    int64_t m, n, rows, cols;
    void* C;
    int64_t ldc;
    float alpha, beta;
    EpilogueArgs<float> epi;
};

__global__ void store_strips_kernel(StripArgs s) {
    const int64_t column_items = s.m * s.cols, items = column_items + (s.n - s.cols) * s.rows;
    const int64_t warps = int64_t{gridDim.x} * blockDim.x / 32;
    const int lane = threadIdx.x % 32;
    for (int64_t i = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32; i < items; i += warps) {
        float sum = 0.0f;
        int64_t row, col;
        if (i < column_items) {
            row = i / s.cols;
            const int64_t q = i % s.cols;
            col = s.n - s.cols + q;
            for (int64_t r = lane; r < s.ranges_a; r += 32) sum += s.sums_a[(r * s.m + row) * s.cols + q];
        } else {
            col = (i - column_items) / s.rows;
            const int64_t q = (i - column_items) % s.rows;
            row = s.m - s.rows + q;
            for (int64_t r = lane; r < s.ranges_b; r += 32) sum += s.sums_b[(r * s.n + col) * s.rows + q];
        }
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (lane == 0)
            tensor::store_scaled(static_cast<float*>(s.C), s.ldc, static_cast<int>(row), static_cast<int>(col), sum,
                                 s.alpha, s.beta, s.epi, static_cast<int>(s.m), static_cast<int>(s.n));
    }
}

}  // namespace

cudaError_t PeeledEdges::allocate(const Problem& p, EdgePeel peel, int sm_count, cudaStream_t stream) {
    p_ = p, peel_ = peel, sm_count_ = sm_count, stream_ = stream;
    // A's outer index runs along its stored rows for op N, B's for op T.
    const bool a_rows = p.transa == GEMMKIT_OP_N, b_rows = p.transb == GEMMKIT_OP_T;
    const int64_t bound_a = max_ranges(outer_blocks(a_rows, p.m), p.k, sm_count);
    const int64_t bound_b = max_ranges(outer_blocks(b_rows, p.n), p.k, sm_count);
    // 256-byte offsets: the second array starts aligned.
    const int64_t floats_a = (bound_a * p.m * peel.cols + 63) / 64 * 64, floats_b = bound_b * p.n * peel.rows;
    const cudaError_t err = allocate_workspace(&workspace_, static_cast<size_t>(floats_a + floats_b) * sizeof(float),
                                               stream);
    if (err != cudaSuccess) {
        cudaGetLastError();  // not the next launch's error
        workspace_ = nullptr;
        return err;
    }
    sums_a_ = static_cast<float*>(workspace_);
    sums_b_ = sums_a_ + floats_a;
    return cudaSuccess;
}

cudaError_t PeeledEdges::copy_a(PaddedOperand* out) {
    const Problem& p = p_;
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    // The vectors: op(B)(kk, n - cols + s), B stored k x n (op N) or n x k (op T).
    const int64_t first = p.n - peel_.cols;
    const float* vectors = static_cast<const float*>(p.B) + (tb ? first : first * p.ldb);
    return copy_with_dots(p.A, p.lda, ta ? p.k : p.m, ta ? p.m : p.k, !ta, vectors, tb ? 1 : p.ldb,
                          tb ? p.ldb : 1, static_cast<int>(peel_.cols), sums_a_, sm_count_, stream_, out, &ranges_a_);
}

cudaError_t PeeledEdges::copy_b(PaddedOperand* out) {
    const Problem& p = p_;
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    // The vectors: op(A)(m - rows + s, kk), A stored m x k (op N) or k x m (op T).
    const int64_t first = p.m - peel_.rows;
    const float* vectors = static_cast<const float*>(p.A) + (ta ? first * p.lda : first);
    return copy_with_dots(p.B, p.ldb, tb ? p.n : p.k, tb ? p.k : p.n, tb, vectors, ta ? p.lda : 1,
                          ta ? 1 : p.lda, static_cast<int>(peel_.rows), sums_b_, sm_count_, stream_, out, &ranges_b_);
}

cudaError_t PeeledEdges::store_strips() {
    const Problem& p = p_;
    const StripArgs s{sums_a_,  sums_b_, ranges_a_, ranges_b_, p.m, p.n, peel_.rows, peel_.cols, p.C, p.ldc,
                      static_cast<float>(p.alpha), static_cast<float>(p.beta), make_epilogue_args<float>(p)};
    const int64_t items = p.m * peel_.cols + (p.n - peel_.cols) * peel_.rows;
    const unsigned grid = static_cast<unsigned>(ceil_div(items, 256 / 32));  // a warp an element
    store_strips_kernel<<<grid, 256, 0, stream_>>>(s);
    return cudaGetLastError();
}

void PeeledEdges::release() {
    if (workspace_ != nullptr) cudaFreeAsync(workspace_, stream_);
    workspace_ = nullptr;
}

}  // namespace gemmkit::hopper

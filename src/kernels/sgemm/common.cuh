// Device helpers shared by the FP32 SIMT ladder (column-major, cuBLAS semantics).
#pragma once

#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit::sgemm {

// Copies one K-slab of an operand into shared memory: s[p][mn] for p < BK, mn < BMN,
// zero-filling past mn_count / k_count so the FMA loop needs no bounds checks.
// `x` points at the slab's first element. "mn" is the row of op(A) or the column of op(B):
//   kMnContiguous  -> element (mn, p) at x[mn + p*ld]   (A with op N, B with op T)
//   !kMnContiguous -> element (mn, p) at x[p + mn*ld]   (A with op T, B with op N)
// Consecutive threads take consecutive global addresses in both cases, so loads coalesce.
// Equivalent to: for each (p, mn) in the slab: s[p][mn] = in range ? x(mn, p) : 0.
template <int BK, int BMN, int kThreads, bool kMnContiguous, int kRowStride = BMN>
__device__ __forceinline__ void load_slab(float* s, const float* x, int64_t ld, int mn_count, int k_count) {
    static_assert(BK * BMN % kThreads == 0, "every thread copies the same number of elements");
    const int tid = threadIdx.x + threadIdx.y * blockDim.x;
#pragma unroll
    for (int it = 0; it < BK * BMN / kThreads; ++it) {
        const int e = tid + it * kThreads;
        const int mn = kMnContiguous ? e % BMN : e / BK;
        const int p = kMnContiguous ? e / BMN : e % BK;
        const bool inside = mn < mn_count && p < k_count;
        s[p * kRowStride + mn] = inside ? x[kMnContiguous ? mn + p * ld : p + mn * ld] : 0.0f;
    }
}


// Moves one BK x BMN K-slab of an operand from global memory to shared memory in two
// halves, so a kernel can issue the global loads early (load) and store them later (store):
// the basis of the prefetching steps. Each thread owns kGroups groups of 4 elements that are
// consecutive in global memory (along mn when kMnContiguous, along k otherwise).
// With kVec, a group inside the matrix is one 16-byte load (LDG.128); that needs x 16-byte
// aligned and ld % 4 == 0 (the caller checks). Groups crossing the edge, or all groups
// without kVec, load element by element with bounds checks; outside elements become 0.
// Equivalent to load_slab above, with the copy split in two.
template <int BK, int BMN, int kThreads, bool kMnContiguous, bool kVec>
struct SlabLoader {
    static constexpr int kLine = kMnContiguous ? BMN : BK;  // contiguous run in global memory
    static constexpr int kGroups = BK * BMN / 4 / kThreads;
    static_assert(kLine % 4 == 0, "groups of 4 must tile the contiguous dimension");
    static_assert(BK * BMN % (4 * kThreads) == 0, "every thread moves the same number of groups");

    float4 r[kGroups];

    // Group g covers contiguous offsets c..c+3 of line o.
    __device__ __forceinline__ static void place(int g, int* c, int* o) {
        *c = g % (kLine / 4) * 4;
        *o = g / (kLine / 4);
    }

    __device__ __forceinline__ void load(const float* x, int64_t ld, int mn_count, int k_count) {
        const int tid = threadIdx.x;
        const int line_count = kMnContiguous ? mn_count : k_count;   // valid along the contiguous dim
        const int other_count = kMnContiguous ? k_count : mn_count;
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            int c, o;
            place(tid + it * kThreads, &c, &o);
            const float* src = x + c + o * ld;
            if (kVec && c + 3 < line_count && o < other_count) {
                r[it] = *reinterpret_cast<const float4*>(src);
            } else {
                const bool row_ok = o < other_count;
                r[it].x = row_ok && c + 0 < line_count ? src[0] : 0.0f;
                r[it].y = row_ok && c + 1 < line_count ? src[1] : 0.0f;
                r[it].z = row_ok && c + 2 < line_count ? src[2] : 0.0f;
                r[it].w = row_ok && c + 3 < line_count ? src[3] : 0.0f;
            }
        }
    }

    // s is [BK][kStride], k-major. A group along mn is one 16-byte store; a group along k
    // is transposed on the way in: four 4-byte stores into consecutive k rows.
    template <int kStride>
    __device__ __forceinline__ void store(float* s) const {
        static_assert(!kMnContiguous || kStride % 4 == 0, "16-byte stores need 16-byte aligned rows");
        const int tid = threadIdx.x;
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            int c, o;
            place(tid + it * kThreads, &c, &o);
            if (kMnContiguous) {
                *reinterpret_cast<float4*>(&s[o * kStride + c]) = r[it];
            } else {
                s[(c + 0) * kStride + o] = r[it].x;
                s[(c + 1) * kStride + o] = r[it].y;
                s[(c + 2) * kStride + o] = r[it].z;
                s[(c + 3) * kStride + o] = r[it].w;
            }
        }
    }
};

}  // namespace gemmkit::sgemm

namespace gemmkit::sgemm {

// Writes rows i..i+3 of column j of C from four accumulators, with the fused epilogue's bias
// (store_c_biased; the caller finishes them): one 16-byte access when the four rows are inside
// and C allows it (vec), else element by element. i < m and j < n. kReads = false
// (with_reads): beta is 0 and there is no bias, and the stores load nothing.
template <bool kReads = true>
__device__ __forceinline__ void store_c4(const GemmArgs<float>& g, const EpilogueArgs<float>& epi, int i, int j,
                                         float4 acc, bool vec) {
    float* const c = &g.C[i + static_cast<int64_t>(j) * g.ldc];
    const float alpha = g.alpha;
    if (vec && g.m - i >= 4) {
        float4 out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
        if constexpr (kReads) {
            if (const float beta = g.beta; beta != 0.0f) {
                const float4 old = *reinterpret_cast<const float4*>(c);
                out = make_float4(fmaf(beta, old.x, out.x), fmaf(beta, old.y, out.y), fmaf(beta, old.z, out.z),
                                  fmaf(beta, old.w, out.w));
            }
            if (epi.bias != nullptr) {
                const float* b = epi.bias + i;
                out = make_float4(out.x + b[0], out.y + b[1], out.z + b[2], out.w + b[3]);
            }
        }
        *reinterpret_cast<float4*>(c) = out;
        return;
    }
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        if (r >= g.m - i) continue;
        if constexpr (kReads)
            store_c_biased(g, epi, i + r, j, v[r]);
        else
            c[r] = alpha * v[r];
    }
}

}  // namespace gemmkit::sgemm

namespace gemmkit::sgemm {

// Writes a thread's 8x8 results held as 2x2 quadrants of 4x4:
// acc[rq*4 + r][cq*4 + c] is C(i + rq*kRowStep + r, j + cq*kColStep + c).
// Each quadrant column is one float4 when C allows it (store_c4).
template <int kRowStep, int kColStep>
__device__ __forceinline__ void store_quadrants(const GemmArgs<float>& g, const float (&acc)[8][8], int i, int j) {
    const bool vec_c = aligned16<float>(g.C, g.ldc);
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
    with_reads(g.beta, epi, [&](auto reads) {  // a plain GEMM's stores load nothing
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int col = j + c / 4 * kColStep + c % 4;
            if (col >= g.n) continue;
#pragma unroll
            for (int rq = 0; rq < 2; ++rq) {
                const int row = i + rq * kRowStep;
                if (row < g.m)
                    store_c4<decltype(reads)::value>(
                        g, epi, row, col,
                        make_float4(acc[rq * 4][c], acc[rq * 4 + 1][c], acc[rq * 4 + 2][c], acc[rq * 4 + 3][c]), vec_c);
            }
        }
    });
    finish_stored(epi, g.C, g.ldc, g.m, g.n, 64, [&](int v) {  // acc[v % 8][v / 8]
        const int r = v % 8, c = v / 8;
        return make_int2(i + r / 4 * kRowStep + r % 4, j + c / 4 * kColStep + c % 4);
    });
}

}  // namespace gemmkit::sgemm

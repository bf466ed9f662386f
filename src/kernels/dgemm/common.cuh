// Device helpers shared by the FP64 CUDA-core ladder (column-major, cuBLAS semantics).
//
// Shared-memory banks are 4 bytes wide and there are 32 of them; a double covers two. A warp's
// 8-byte accesses are served half a warp (16 lanes, 128 bytes) at a time, its 16-byte accesses a
// quarter warp (8 lanes, 128 bytes) at a time, so an access is conflict-free when the 16 (or 8)
// lanes of each part touch distinct 8-byte (16-byte) words modulo 128 bytes, or the same word.
#pragma once

#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit::dgemm {

// Rows i and i+1 of column j of C, with the fused epilogue's bias (store_c_biased; the caller
// finishes them), i < m and j < n: one 16-byte access when both rows are inside and C allows it
// (vec), else element by element. kReads = false (with_reads): beta is 0 and there is no bias,
// and the stores load nothing.
template <bool kReads = true>
__device__ __forceinline__ void store_c2(const GemmArgs<double>& g, const EpilogueArgs<double>& epi, int i, int j,
                                         double acc0, double acc1, bool vec) {
    double* const c = &g.C[i + static_cast<int64_t>(j) * g.ldc];
    if (vec && g.m - i >= 2) {
        double2 out = make_double2(g.alpha * acc0, g.alpha * acc1);
        if constexpr (kReads) {
            if (g.beta != 0.0) {
                const double2 old = *reinterpret_cast<const double2*>(c);
                out = make_double2(fma(g.beta, old.x, out.x), fma(g.beta, old.y, out.y));
            }
            if (const double* bias = epi.bias) out = make_double2(out.x + bias[i], out.y + bias[i + 1]);
        }
        *reinterpret_cast<double2*>(c) = out;
        return;
    }
    if constexpr (kReads) {
        store_c_biased(g, epi, i, j, acc0);
        if (g.m - i >= 2) store_c_biased(g, epi, i + 1, j, acc1);
    } else {
        c[0] = g.alpha * acc0;
        if (g.m - i >= 2) c[1] = g.alpha * acc1;
    }
}

// finish_stored for a thread tile stored in pairs (store_c2): acc[r][c] is C(i + kPairStride
// (r / 2) + r % 2, j + kPairStride (c / 2) + c % 2), TM x TN of them.
template <int kTM, int kTN, int kPairStride>
__device__ __forceinline__ void finish_pair_tile(const GemmArgs<double>& g, int i, int j) {
    finish_stored(g.epilogue(), g.C, g.ldc, g.m, g.n, kTM * kTN, [&](int v) {
        const int r = v % kTM, c = v / kTM;
        return make_int2(i + kPairStride * (r / 2) + r % 2, j + kPairStride * (c / 2) + c % 2);
    });
}

// Moves one BK x BMN K-slab of an operand from global memory to shared memory in two halves,
// so a kernel can issue the global loads early (load) and store them later (store): the basis
// of every step's prefetch. Element by element (8-byte loads); steps 01-02.
// "mn" is the row of op(A) or the column of op(B); x points at the slab's first element:
//   kMnContiguous  -> element (mn, p) at x[mn + p*ld]   (A with op N, B with op T)
//   !kMnContiguous -> element (mn, p) at x[p + mn*ld]   (A with op T, B with op N)
// Consecutive threads take consecutive global addresses in both cases, so loads coalesce.
// Elements past mn_count or k_count are not read and become 0, so the FMA loop needs no checks.
// Equivalent to: for each (p, mn) in the slab: s[p][mn] = in range ? x(mn, p) : 0.
template <int BK, int BMN, int kThreads, bool kMnContiguous>
struct ElementLoader {
    static constexpr int kPerThread = BK * BMN / kThreads;
    static_assert(BK * BMN % kThreads == 0, "every thread moves the same number of elements");

    double r[kPerThread];

    // Element e of the slab, in the order of its global addresses.
    __device__ __forceinline__ static void place(int e, int* mn, int* p) {
        *mn = kMnContiguous ? e % BMN : e / BK;
        *p = kMnContiguous ? e / BMN : e % BK;
    }

    __device__ __forceinline__ void load(const double* x, int64_t ld, int mn_count, int k_count) {
#pragma unroll
        for (int it = 0; it < kPerThread; ++it) {
            int mn, p;
            place(threadIdx.x + it * kThreads, &mn, &p);
            r[it] = mn < mn_count && p < k_count ? x[kMnContiguous ? mn + p * ld : p + mn * ld] : 0.0;
        }
    }

    // s is [BK][kStride], k-major. Along mn, a half-warp stores 16 consecutive doubles. Along k,
    // a half-warp stores 8 k rows x 2 mn, at (p*kStride + mn) % 16 = (2p + mn) % 16 doubles when
    // kStride % 16 == 2: 16 distinct words, conflict-free. Unpadded (kStride = 128) all 8 k rows
    // would share a bank pair: 8-way conflicts.
    template <int kStride>
    __device__ __forceinline__ void store(double* s) const {
        static_assert(kMnContiguous || kStride % 16 == 2, "transposing stores need rows 2 doubles off a 128-byte bank cycle");
#pragma unroll
        for (int it = 0; it < kPerThread; ++it) {
            int mn, p;
            place(threadIdx.x + it * kThreads, &mn, &p);
            s[p * kStride + mn] = r[it];
        }
    }
};

// As ElementLoader, but each thread owns kGroups pairs of elements that are consecutive in
// global memory (along mn when kMnContiguous, along k otherwise); steps 03-05.
// With kVec, a pair inside the matrix is one 16-byte load (LDG.128); that needs x 16-byte
// aligned and ld even (the launch checks aligned16<double>; the slab offsets the kernels add are even).
// Pairs crossing the edge, or all pairs without kVec, load element by element.
template <int BK, int BMN, int kThreads, bool kMnContiguous, bool kVec>
struct PairLoader {
    static constexpr int kLine = kMnContiguous ? BMN : BK;  // contiguous run in global memory
    static constexpr int kGroups = BK * BMN / 2 / kThreads;
    static_assert(kLine % 2 == 0, "pairs must tile the contiguous dimension");
    static_assert(BK * BMN % (2 * kThreads) == 0, "every thread moves the same number of pairs");

    double2 r[kGroups];

    // Pair g covers contiguous offsets c, c+1 of line o.
    __device__ __forceinline__ static void place(int g, int* c, int* o) {
        *c = g % (kLine / 2) * 2;
        *o = g / (kLine / 2);
    }

    // With bounds checks: outside elements are not read and become 0.
    __device__ __forceinline__ void load(const double* x, int64_t ld, int mn_count, int k_count) {
        const int line_count = kMnContiguous ? mn_count : k_count;  // valid along the contiguous dim
        const int other_count = kMnContiguous ? k_count : mn_count;
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            int c, o;
            place(threadIdx.x + it * kThreads, &c, &o);
            const double* src = x + c + o * ld;
            if (kVec && c + 1 < line_count && o < other_count) {
                r[it] = *reinterpret_cast<const double2*>(src);
            } else {
                const bool line_ok = o < other_count;
                r[it].x = line_ok && c < line_count ? src[0] : 0.0;
                r[it].y = line_ok && c + 1 < line_count ? src[1] : 0.0;
            }
        }
    }

    // Without bounds checks: the whole BK x BMN slab lies inside the matrix (step 05's interior).
    __device__ __forceinline__ void load_interior(const double* x, int64_t ld) {
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            int c, o;
            place(threadIdx.x + it * kThreads, &c, &o);
            const double* src = x + c + o * ld;
            if (kVec) {
                r[it] = *reinterpret_cast<const double2*>(src);
            } else {
                r[it].x = src[0];
                r[it].y = src[1];
            }
        }
    }

    // s is [BK][kStride], k-major. A pair along mn is one 16-byte store; a quarter-warp stores 8
    // consecutive double2s (128 bytes): conflict-free. A pair along k is transposed on the way
    // in, two 8-byte stores into consecutive k rows; a half-warp holds pairs c = 0, 2, 4, 6 of
    // 4 consecutive mn, at (c*kStride + mn) % 16 = (2c + mn) % 16 doubles when kStride % 16 == 2:
    // 16 distinct words, conflict-free.
    template <int kStride>
    __device__ __forceinline__ void store(double* s) const {
        static_assert(kStride % 2 == 0, "16-byte stores and loads need 16-byte aligned rows");
        static_assert(kMnContiguous || kStride % 16 == 2, "transposing stores need rows 2 doubles off a 128-byte bank cycle");
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            int c, o;
            place(threadIdx.x + it * kThreads, &c, &o);
            if (kMnContiguous) {
                *reinterpret_cast<double2*>(&s[o * kStride + c]) = r[it];
            } else {
                s[c * kStride + o] = r[it].x;
                s[(c + 1) * kStride + o] = r[it].y;
            }
        }
    }
};

}  // namespace gemmkit::dgemm

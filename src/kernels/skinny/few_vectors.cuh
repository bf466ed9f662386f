// Matrix times a few vectors: C with few columns (n <= 16) or few rows (m <= 16). Such a GEMM
// reads one big matrix once and does little arithmetic per byte, so it runs at the speed of
// memory, not of the tensor cores (docs/ladder/few_vectors.md). This kernel is built for that:
// CUDA-core FMAs in FP32 (FP64 for FP64), 16-byte loads of the big matrix with many in flight,
// and k split across the SMs when the big matrix has too few rows to fill them.
//
// The kernel sees the GEMM as Y = alpha * W X + beta * Y with W the big matrix (rows x k), X the
// few vectors (k x vectors) and Y the result (rows x vectors), each given by a pointer and two
// element strides, so that one kernel serves every op combination and both orientations (few
// rows: C^T = op(B)^T op(A)^T). W is read in one of two forms:
//  - dot form, W's k contiguous (e.g. op(A) = T): 16 warps a block (8 for FP64), each taking 4
//    rows, its lanes 16-byte pieces along k; the lanes' partial sums are added across the warp at
//    the end;
//  - axpy form, W's rows contiguous (op(A) = N): 8 warps a block, each lane taking 4 consecutive
//    rows (2 for FP64) and each warp every 8th k; the warps' partial sums are added at the end.
// X's slice of the block's k range is staged in shared memory, converted to the accumulation
// type, in the layout each form reads with 16-byte loads.
//
// k is split into `splits` ranges over gridDim.y. With more than one, each block writes its partial
// sums to a workspace and the last block of a row block to finish (a counter) adds them in split
// order, so that the result does not depend on timing, and applies alpha and beta.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "kernels/skinny/geometry.hpp"
#include "kernels/tensor/types.cuh"

namespace gemmkit::skinny {

template <class T, class TC, class Acc>
struct Args {
    const T* w;
    int64_t w_r, w_k;  // W(r, kk) = w[r * w_r + kk * w_k]
    const T* x;
    int64_t x_k, x_v;  // X(kk, v) = x[kk * x_k + v * x_v]
    TC* y;
    int64_t y_r, y_v;  // Y(r, v) = y[r * y_r + v * y_v]
    int64_t rows, k, vectors;
    Acc alpha, beta;
    int64_t k_per_split;  // a multiple of kSplitAlign
    Acc* partials;        // splits x rows x kMaxVectors * gridDim.z, with more than one split
    int* arrivals;        // one counter per (row block, vector group), zeroed before the launch
};

// The fused epilogue, a kernel parameter of its own: as members of Args, its 48 bytes alone took
// the FP32 dot kernel from 116 registers to 128 and 36 bytes of spills (ptxas -v).
template <class TC>
struct Epilogue {
    EpilogueArgs<TC> args;  // by C's rows: Y's rows, or its vectors where swapped
    bool swapped;           // Y = C^T (few rows)
};

// Conversions to and from the accumulation type Acc (FP64 for FP64, else FP32): widen<Acc> and
// narrow<TC> (kernels/epilogue_ops.cuh).

// A piece of W as it sits in memory: kBytes of raw elements (16, or 8 for the axpy form's
// 16-bit pieces), so that pieces loaded ahead take as few registers as the bytes they hold.
template <int kBytes>
using Piece = std::conditional_t<kBytes == 16, uint4, uint2>;

// kVec elements of W from `src` (stride `step` between them), of which `count` exist (the rest,
// and all where count <= 0, read as 0). kWide: a whole piece is one aligned load (the launcher
// checked W's alignment and leading dimension); else, and for the last partial piece, element loads.
template <int kVec, bool kWide, class T>
__device__ __forceinline__ Piece<kVec * sizeof(T)> load_piece(const T* src, int64_t step, int count) {
    using P = Piece<kVec * sizeof(T)>;
    if (kWide && count >= kVec) return __ldg(reinterpret_cast<const P*>(src));
    T elems[kVec];
    memset(elems, 0, sizeof elems);
#pragma unroll
    for (int e = 0; e < kVec; ++e)
        if (e < count) elems[e] = src[e * step];
    P piece;
    memcpy(&piece, elems, sizeof piece);
    return piece;
}

template <int kVec, class T, class Acc, class P>
__device__ __forceinline__ void unpack(const P& piece, Acc (&out)[kVec]) {
    T elems[kVec];
    memcpy(elems, &piece, sizeof elems);
#pragma unroll
    for (int e = 0; e < kVec; ++e) out[e] = widen<Acc>(elems[e]);
}

// Stages X(k0 .. k0 + len, v0 .. v0 + nv) into xs as Acc, zero beyond len, in the form's layout
// (x_stride in geometry.hpp).
template <bool kDot, class Acc, class T, class TC>
__device__ void stage_x(const Args<T, TC, Acc>& a, Acc* xs, int64_t k0, int len, int64_t v0, int nv) {
    constexpr int kChunk = chunk_k(sizeof(Acc), kDot), kStride = x_stride(sizeof(Acc), kDot);
    // Threads walk X along its contiguous direction, so that their loads coalesce; only the nv
    // vectors the block serves (the compute loops stop at nv). Each thread issues kBatch loads
    // before it stores any: one at a time, staging waited for a round trip to L2 per element and
    // took longer than streaming the chunk's rows of W (docs/ladder/few_vectors.md#staging).
    constexpr int kBatch = 16;
    const bool k_fast = a.x_k == 1;
    const int total = kChunk * nv;
    for (int base = threadIdx.x; base < total; base += blockDim.x * kBatch) {
        Acc values[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int i = base + static_cast<int>(b * blockDim.x);
            const int kk = k_fast ? i % kChunk : i / nv;
            const int v = k_fast ? i / kChunk : i % nv;
            values[b] = i < total && kk < len ? widen<Acc>(a.x[(k0 + kk) * a.x_k + (v0 + v) * a.x_v]) : Acc(0);
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int i = base + static_cast<int>(b * blockDim.x);
            const int kk = k_fast ? i % kChunk : i / nv;
            const int v = k_fast ? i / kChunk : i % nv;
            if (i < total) xs[kDot ? v * kStride + kk : kk * kStride + v] = values[b];
        }
    }
}

// n consecutive Acc from 16-byte aligned shared memory, in 16-byte loads.
template <int kN, class Acc>
__device__ __forceinline__ void load_shared(const Acc* src, Acc (&out)[kN]) {
    static_assert(kN * sizeof(Acc) % 16 == 0, "whole 16-byte pieces");
    if constexpr (sizeof(Acc) == 4) {
#pragma unroll
        for (int q = 0; q < kN / 4; ++q) {
            const float4 t = reinterpret_cast<const float4*>(src)[q];
            out[4 * q] = t.x, out[4 * q + 1] = t.y, out[4 * q + 2] = t.z, out[4 * q + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int q = 0; q < kN / 2; ++q) {
            const double2 t = reinterpret_cast<const double2*>(src)[q];
            out[2 * q] = t.x, out[2 * q + 1] = t.y;
        }
    }
}

// Y(r, v) = alpha * sum + beta * Y(r, v), then the fused epilogue of C's element there; with
// beta == 0, Y is not read (NaN there stays out).
template <class T, class TC, class Acc>
__device__ __forceinline__ void store_result(const Args<T, TC, Acc>& a, const Epilogue<TC>& epi, int64_t r, int64_t v,
                                             Acc sum) {
    TC* y = a.y + r * a.y_r + v * a.y_v;
    const Acc old = a.beta == Acc(0) ? Acc(0) : a.beta * widen<Acc>(*y);
    Acc out = a.alpha * sum + old;
    if (epi.args.active()) {
        const int rows = static_cast<int>(a.rows), vectors = static_cast<int>(a.vectors);
        out = epi.swapped ? epilogue_value(epi.args, static_cast<int>(v), static_cast<int>(r), vectors, rows, out)
                          : epilogue_value(epi.args, static_cast<int>(r), static_cast<int>(v), rows, vectors, out);
    }
    *y = narrow<TC>(out);
}

// The block's sums: sums[row][v] for its block_rows() rows and kMaxVectors vectors, in shared
// memory. With one split they are the result; otherwise they go to the workspace, and the block
// that finishes its row block last adds every split's, in split order.
template <class T, class TC, class Acc, int kRows>
__device__ void finish(const Args<T, TC, Acc>& a, const Epilogue<TC>& epi, const Acc* sums, int64_t r0, int64_t v0,
                       int nv) {
    const int splits = gridDim.y;
    const int64_t width = int64_t{kMaxVectors} * gridDim.z;  // the workspace's row: every vector group
    if (splits == 1) {
        for (int i = threadIdx.x; i < kRows * kMaxVectors; i += blockDim.x) {
            const int row = i % kRows, v = i / kRows;  // consecutive threads, consecutive rows
            if (r0 + row < a.rows && v < nv) store_result(a, epi, r0 + row, v0 + v, sums[row * kMaxVectors + v]);
        }
        return;
    }
    Acc* mine = a.partials + (blockIdx.y * a.rows) * width + v0;
    for (int i = threadIdx.x; i < kRows * kMaxVectors; i += blockDim.x) {
        const int row = i / kMaxVectors, v = i % kMaxVectors;
        if (r0 + row < a.rows) mine[(r0 + row) * width + v] = sums[row * kMaxVectors + v];
    }
    __threadfence();  // the partial sums are visible before the counter says so
    __syncthreads();
    __shared__ int last;
    if (threadIdx.x == 0) {
        int* counter = a.arrivals + blockIdx.z * gridDim.x + blockIdx.x;
        last = atomicAdd(counter, 1) == splits - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();  // read the other blocks' sums after seeing their count
    for (int i = threadIdx.x; i < kRows * kMaxVectors; i += blockDim.x) {
        const int row = i % kRows, v = i / kRows;
        const int64_t r = r0 + row;
        if (r >= a.rows || v >= nv) continue;
        Acc sum = Acc(0);
        for (int s = 0; s < splits; ++s) sum += __ldcg(a.partials + (s * a.rows + r) * width + v0 + v);
        store_result(a, epi, r, v0 + v, sum);
    }
}

// One step of the reduce-scatter across a warp: lanes with `kBit` set keep the upper kHalf of the
// first 2 kHalf sums, the others the lower, each adding its partner's copy of the half it keeps.
template <int kHalf, int kBit, class Acc, int kN>
__device__ __forceinline__ void halve(Acc (&vals)[kN], int lane) {
    const bool upper = (lane & kBit) != 0;
#pragma unroll
    for (int j = 0; j < kHalf; ++j) {
        const Acc send = upper ? vals[j] : vals[j + kHalf];
        const Acc keep = upper ? vals[j + kHalf] : vals[j];
        vals[j] = keep + __shfl_xor_sync(0xffffffffu, send, kBit);
    }
}

// The dot form's end: each warp's per-lane sums added across its lanes, into the block's
// sums[row][v] in shared memory.
template <class Acc>
__device__ __forceinline__ void reduce_dot_sums(const Acc (&acc)[kDotRowsPerWarp][kMaxVectors], Acc* smem, int warp,
                                                int lane) {
    constexpr int kR = kDotRowsPerWarp;
    // Add across the lanes by halving (a reduce-scatter over shuffles): at each step a lane keeps
    // half of its sums and adds its partner's of that half, so that after five steps lane l holds
    // the warp's sums of entries 2l and 2l + 1 (entry = row * 16 + v), 64 sums over 32 lanes.
    Acc vals[kR * kMaxVectors];
#pragma unroll
    for (int e = 0; e < kR * kMaxVectors; ++e) vals[e] = acc[e / kMaxVectors][e % kMaxVectors];
    static_assert(kR * kMaxVectors == 64, "five halvings leave two sums a lane");
    halve<32, 16>(vals, lane);
    halve<16, 8>(vals, lane);
    halve<8, 4>(vals, lane);
    halve<4, 2>(vals, lane);
    halve<2, 1>(vals, lane);
    __syncthreads();  // every warp is done with the staged X: the block's sums reuse the buffer
    smem[warp * kR * kMaxVectors + 2 * lane] = vals[0];  // the block's sums[row][v]
    smem[warp * kR * kMaxVectors + 2 * lane + 1] = vals[1];
    __syncthreads();
}

// Dot form: warp w owns rows r0 + 4w .. r0 + 4w + 3; lane l reads their k pieces l, l + 32, ...
// of each staged chunk. acc[row][v] per lane, added across the lanes at the end.
template <class T, class TC, class Acc, bool kWide>
__device__ void dot_form(const Args<T, TC, Acc>& a, Acc* smem, int64_t r0, int64_t k0, int64_t k1, int64_t v0,
                         int nv) {
    constexpr int kVec = vec_of(sizeof(T), true), kChunk = chunk_k(sizeof(Acc), true), kR = kDotRowsPerWarp;
    constexpr int kStride = x_stride(sizeof(Acc), true);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    Acc acc[kR][kMaxVectors] = {};
    const T* rows[kR];
    bool row_ok[kR];
#pragma unroll
    for (int i = 0; i < kR; ++i) {
        const int64_t r = r0 + warp * kR + i;
        row_ok[i] = r < a.rows;
        rows[i] = a.w + (row_ok[i] ? r : 0) * a.w_r;
    }
    for (int64_t c0 = k0; c0 < k1; c0 += kChunk) {
        const int len = static_cast<int>(k1 - c0 < kChunk ? k1 - c0 : kChunk);
        __syncthreads();  // the previous chunk is read
        stage_x<true>(a, smem, c0, len, v0, nv);
        __syncthreads();
        // kSteps steps' pieces of all kR rows are loaded before any is used, so that a lane keeps
        // kSteps * kR 16-byte loads in flight (one step's, waited for before its FMAs, left W's
        // latency exposed: docs/ladder/few_vectors.md#loads-in-flight). 16-bit pieces unpack to
        // twice the registers: one step, or the sums spill.
        constexpr int kSteps = sizeof(T) == 2 ? 1 : 2;
        using P = Piece<16>;
        for (int kk0 = lane * kVec; kk0 < len; kk0 += 32 * kVec * kSteps) {
            P raw[kSteps][kR];
#pragma unroll
            for (int s = 0; s < kSteps; ++s)
#pragma unroll
                for (int i = 0; i < kR; ++i) {
                    const int kk = kk0 + s * 32 * kVec;
                    raw[s][i] = load_piece<kVec, kWide>(rows[i] + c0 + kk, a.w_k, row_ok[i] ? len - kk : 0);
                }
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int kk = kk0 + s * 32 * kVec;
                if (kk >= len) break;
                Acc w[kR][kVec];
#pragma unroll
                for (int i = 0; i < kR; ++i) unpack<kVec, T>(raw[s][i], w[i]);
#pragma unroll
                for (int v = 0; v < kMaxVectors; ++v) {
                    if (v >= nv) break;
                    Acc x[kVec];
                    load_shared(smem + v * kStride + kk, x);
#pragma unroll
                    for (int i = 0; i < kR; ++i)
#pragma unroll
                        for (int e = 0; e < kVec; ++e) acc[i][v] += w[i][e] * x[e];
                }
            }
        }
    }
    reduce_dot_sums(acc, smem, warp, lane);
}

// Axpy form: lane l owns rows r0 + kVec * l .. + kVec - 1; warp w reads k = w, w + 8, ... of each
// staged chunk. acc[row][v] per lane, added across the warps at the end.
template <class T, class TC, class Acc, bool kWide>
__device__ void axpy_form(const Args<T, TC, Acc>& a, Acc* smem, int64_t r0, int64_t k0, int64_t k1, int64_t v0,
                          int nv) {
    constexpr int kVec = vec_of(sizeof(T), false), kChunk = chunk_k(sizeof(Acc), false);
    constexpr int kRows = block_rows(sizeof(T), false), kStride = x_stride(sizeof(Acc), false);
    constexpr int kThreads = threads_of(sizeof(T), false), kWarps = kThreads / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    Acc acc[kVec][kMaxVectors] = {};
    const int64_t first = r0 + lane * kVec;
    const int count = first < a.rows ? static_cast<int>(a.rows - first < kVec ? a.rows - first : kVec) : 0;
    const T* column = a.w + (count > 0 ? first : 0) * a.w_r;
    for (int64_t c0 = k0; c0 < k1; c0 += kChunk) {
        const int len = static_cast<int>(k1 - c0 < kChunk ? k1 - c0 : kChunk);
        __syncthreads();
        stage_x<false>(a, smem, c0, len, v0, nv);
        __syncthreads();
        // kAhead pieces (64 bytes a lane) are loaded before any is used: see the dot form. 16-bit
        // element loads (not kWide) keep 32 bytes in flight: with 64, their masks and addresses
        // spilled 16 bytes (docs/ladder/few_vectors.md#loads-in-flight).
        constexpr int kAheadBytes = sizeof(T) == 2 && !kWide ? 32 : 64;
        constexpr int kAhead = kAheadBytes / (kVec * static_cast<int>(sizeof(T)));
        using P = Piece<kVec * sizeof(T)>;
        for (int kk0 = warp; kk0 < len; kk0 += kWarps * kAhead) {
            P raw[kAhead];
#pragma unroll
            for (int j = 0; j < kAhead; ++j) {
                const int kk = kk0 + j * kWarps;
                raw[j] = load_piece<kVec, kWide>(column + (c0 + kk) * a.w_k, a.w_r, kk < len ? count : 0);
            }
#pragma unroll
            for (int j = 0; j < kAhead; ++j) {
                const int kk = kk0 + j * kWarps;
                if (kk >= len) break;
                Acc w[kVec];
                unpack<kVec, T>(raw[j], w);
                // X(kk, v) for 16 bytes of vectors at a time: the same values for every lane
                // (broadcast loads).
                constexpr int kPer = 16 / sizeof(Acc);
#pragma unroll
                for (int vq = 0; vq < kMaxVectors; vq += kPer) {
                    if (vq >= nv) break;
                    Acc x[kPer];
                    load_shared(smem + kk * kStride + vq, x);
#pragma unroll
                    for (int u = 0; u < kPer; ++u)
#pragma unroll
                        for (int e = 0; e < kVec; ++e) acc[e][vq + u] += w[e] * x[u];
                }
            }
        }
    }
    // Add across the warps: warp w writes its sums to table[w], then each thread adds one
    // (row, vector) entry over the 8 tables.
    __syncthreads();
    constexpr int kEntries = kRows * kMaxVectors;
    static_assert(kEntries * kWarps * sizeof(Acc) <= kSmemBytes, "the tables fit the buffer");
#pragma unroll
    for (int e = 0; e < kVec; ++e)
#pragma unroll
        for (int v = 0; v < kMaxVectors; ++v) smem[warp * kEntries + v * kRows + lane * kVec + e] = acc[e][v];
    __syncthreads();
    Acc sums[kEntries / kThreads];
#pragma unroll
    for (int j = 0; j < kEntries / kThreads; ++j) {
        Acc s = Acc(0);
        for (int w = 0; w < kWarps; ++w) s += smem[w * kEntries + j * kThreads + threadIdx.x];
        sums[j] = s;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kEntries / kThreads; ++j) {
        const int entry = j * kThreads + threadIdx.x;  // v * kRows + row
        smem[(entry % kRows) * kMaxVectors + entry / kRows] = sums[j];
    }
    __syncthreads();
}

// The block size and the registers the plan counts on (threads_of, blocks_per_sm: geometry.hpp).
template <class T, class TC, class Acc, bool kDot, bool kWide>
__global__ void __launch_bounds__(threads_of(sizeof(T), kDot), blocks_per_sm(kDot))
    few_vectors_kernel(Args<T, TC, Acc> a, Epilogue<TC> epi) {
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    Acc* smem = reinterpret_cast<Acc*>(smem_bytes);
    constexpr int kRows = block_rows(sizeof(T), kDot);
    const int64_t r0 = int64_t{blockIdx.x} * kRows;
    const int64_t k0 = int64_t{blockIdx.y} * a.k_per_split;
    const int64_t k1 = k0 + a.k_per_split < a.k ? k0 + a.k_per_split : a.k;
    const int64_t v0 = int64_t{blockIdx.z} * kMaxVectors;
    const int nv = static_cast<int>(a.vectors - v0 < kMaxVectors ? a.vectors - v0 : kMaxVectors);
    if constexpr (kDot)
        dot_form<T, TC, Acc, kWide>(a, smem, r0, k0, k1, v0, nv);
    else
        axpy_form<T, TC, Acc, kWide>(a, smem, r0, k0, k1, v0, nv);
    finish<T, TC, Acc, kRows>(a, epi, smem, r0, v0, nv);
}

}  // namespace gemmkit::skinny

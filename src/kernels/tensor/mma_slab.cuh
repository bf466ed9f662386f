// One operand's K-slab in shared memory for the mma.sync steps (03-06): its swizzled
// layout, the copy from global memory, and the fragment loads that feed mma.sync.
//
// The slab keeps global memory's contiguous direction, so every copy moves 16-byte chunks
// whatever the op:
//   kMnContiguous  (A with op N, B with op T): BK rows of k, each MN elements   // [BK][MN]
//   !kMnContiguous (A with op T, B with op N): MN rows of mn, each BK elements  // [MN][BK]
// and the fragment loads transpose where needed (ldmatrix .trans).
//
// Swizzle: chunk c of row r is stored at chunk c ^ xor_of(r). ldmatrix reads one 16-byte
// chunk from each of 8 consecutive rows; without the XOR those 8 chunks sit at the same
// offset of rows that are a multiple of 128 bytes apart, all in the same 4 banks (8-way
// conflict). With it they land in 8 different 16-byte bank groups.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/tensor/types.cuh"
#include "ptx/cp_async.cuh"
#include "ptx/ldmatrix.cuh"

namespace gemmkit::tensor {

// T: the element as stored (half, bf16, or float for TF32). MN x BK elements of op(X).
// kIsB: the slab of B, whose fragments pair up differently (see Fragments).
template <class T, int MN, int BK, bool kMnContiguous, bool kIsB>
struct MmaSlab {
    static constexpr int kChunkElems = 16 / static_cast<int>(sizeof(T));  // 8 halfs or 4 floats
    static constexpr int kRows = kMnContiguous ? BK : MN;
    static constexpr int kRowElems = kMnContiguous ? MN : BK;
    static constexpr int kChunks = kRowElems / kChunkElems;  // 16-byte chunks per row
    static constexpr int kElems = kRows * kRowElems;
    static constexpr int kBytes = kElems * static_cast<int>(sizeof(T));
    // TF32 with mn along the rows has no ldmatrix.trans (it moves 16-bit elements): its
    // fragments are read as 8-byte pairs, taking the warp's mn range in a permuted order of
    // units (PairWordFragments, which the epilogue must follow), with a different XOR (below).
    static constexpr bool kPermutedUnits = sizeof(T) == 4 && kMnContiguous;
    static_assert(kRowElems % kChunkElems == 0 && kChunks >= 2 && (kChunks & (kChunks - 1)) == 0,
                  "rows are a power-of-two number (>= 2) of 16-byte chunks");
    static_assert(!kPermutedUnits || kChunks >= 8, "the pair-read swizzle needs 128-byte rows");

    // Rows shorter than 128 bytes share a 128-byte bank line: XOR by line, not by row.
    static constexpr int kRowsPerLine = kChunks >= 8 ? 1 : 8 / kChunks;
    static constexpr int kXorSpan = kChunks >= 8 ? 8 : kChunks;

    // Which half of the 16 x 2-chunk block the four ldmatrix matrices q = 0..3 cover (below).
    __device__ static constexpr int mn_half(int q) { return kIsB ? q >> 1 : q & 1; }
    __device__ static constexpr int k_half(int q) { return kIsB ? q & 1 : q >> 1; }

    __device__ static int xor_of(int row) {
        // A half warp of PairWordFragments reads rows k..k+3 at two neighbouring chunks each: XOR
        // by 2*(row % 4) puts the 8 (row, chunk) pairs in 8 different bank groups.
        if constexpr (kPermutedUnits) return (row & 3) << 1;
        return (row / kRowsPerLine) % kXorSpan;
    }
    // Element offset of chunk `chunk` of row `row`.
    __device__ static int chunk_offset(int row, int chunk) {
        return row * kRowElems + (chunk ^ xor_of(row)) * kChunkElems;
    }

    // ---- global -> shared ------------------------------------------------------------
    // The slab starts at op(X)(mn0, k0); x points there. mn_left / k_left: rows of op(X)
    // and k-columns still inside the matrix from there (may exceed MN / BK). Chunk q of
    // the slab (row q / kChunks, chunk q % kChunks) covers kChunkElems elements that are
    // consecutive in global memory; outside elements become zero.
    struct ChunkRef {
        const T* src;  // first element of the chunk (inside the matrix when count > 0)
        int count;     // elements of the chunk inside the matrix, 0..kChunkElems
    };
    __device__ static ChunkRef chunk_ref(const T* x, int64_t ld, int mn_left, int k_left, int q) {
        const int row = q / kChunks, first = (q % kChunks) * kChunkElems;
        const int row_left = kMnContiguous ? k_left : mn_left;    // rows inside
        const int line_left = kMnContiguous ? mn_left : k_left;   // elements inside along a row
        const int count = row < row_left ? max(0, min(kChunkElems, line_left - first)) : 0;
        return {count > 0 ? x + first + row * ld : x, count};
    }

    // Through registers: fetch() issues the global loads, store() writes them to shared
    // memory (a kernel can compute in between). With kVec (x 16-byte aligned, ld a multiple
    // of kChunkElems) a whole inside chunk is one 16-byte load; otherwise, and at the edges,
    // element by element.
    template <int kThreads, bool kVec>
    struct Staged {
        static constexpr int kPerThread = kRows * kChunks / kThreads;
        static_assert(kRows * kChunks % kThreads == 0, "every thread copies the same number of chunks");
        uint4 r[kPerThread];

        __device__ void fetch(const T* x, int64_t ld, int mn_left, int k_left) {
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) {
                const ChunkRef c = chunk_ref(x, ld, mn_left, k_left, threadIdx.x + i * kThreads);
                if (kVec && c.count == kChunkElems) {
                    r[i] = *reinterpret_cast<const uint4*>(c.src);
                    continue;
                }
                T v[kChunkElems];
#pragma unroll
                for (int e = 0; e < kChunkElems; ++e) v[e] = e < c.count ? c.src[e] : T(0.0f);
                r[i] = *reinterpret_cast<const uint4*>(v);
            }
        }
        __device__ void store(T* s) const {
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) {
                const int q = threadIdx.x + i * kThreads;
                *reinterpret_cast<uint4*>(s + chunk_offset(q / kChunks, q % kChunks)) = r[i];
            }
        }
    };

    // The copy for the pipelined steps, by cp.async, with everything that does not change
    // from slab to slab worked out once per thread: a thread's chunks are kRowStep rows apart, which
    // (a multiple of the swizzle's period) keeps their XOR equal, so chunk i sits at a fixed
    // distance from chunk 0 in shared memory as in global memory. Inside the matrix (`full`,
    // true for all but the edge blocks) a chunk costs one address add and one cp.async.
    // Requires 16-byte aligned operands (as Staged's kVec).
    template <int kThreads>
    struct CopyPlan {
        static constexpr int kPerThread = kRows * kChunks / kThreads;
        static constexpr int kRowStep = kThreads / kChunks;
        static constexpr int kXorPeriod = kPermutedUnits ? 4 : 8;
        static_assert(kThreads % kChunks == 0 && kRowStep % kXorPeriod == 0,
                      "a thread's chunks share one swizzle phase");
        static_assert(kRows * kChunks % kThreads == 0, "every thread copies the same number of chunks");
        int row0, first;        // chunk 0 of this thread: its row, and its first element along the row
        uint32_t smem0;         // its byte offset in a stage
        int64_t global0, step;  // its element offset from the slab origin, and the offset between chunks

        __device__ explicit CopyPlan(int64_t ld) {
            row0 = threadIdx.x / kChunks;
            first = threadIdx.x % kChunks * kChunkElems;
            smem0 = chunk_offset(row0, threadIdx.x % kChunks) * static_cast<uint32_t>(sizeof(T));
            global0 = first + row0 * ld;
            step = kRowStep * ld;
        }

        // Copies the slab at x into the stage at shared byte address `stage`: each chunk
        // reads only its inside part (cp.async src-size), the rest is zero-filled.
        __device__ void issue(uint32_t stage, const T* x, int mn_left, int k_left, bool full) const {
            constexpr uint32_t kSmemStep = kRowStep * kRowElems * sizeof(T);
            if (full) {
#pragma unroll
                for (int i = 0; i < kPerThread; ++i)
                    ptx::cp_async_16_partial_at(stage + smem0 + i * kSmemStep, x + global0 + i * step, 16);
                return;
            }
            const int row_left = kMnContiguous ? k_left : mn_left, line_left = kMnContiguous ? mn_left : k_left;
            const int count = max(0, min(kChunkElems, line_left - first));
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) {
                const bool inside = row0 + i * kRowStep < row_left && count > 0;
                ptx::cp_async_16_partial_at(stage + smem0 + i * kSmemStep, inside ? x + global0 + i * step : x,
                                            inside ? count * static_cast<int>(sizeof(T)) : 0);
            }
        }
    };

    // ---- shared -> registers -----------------------------------------------------------
    // A fragment load reads the 16 (mn) x 2-chunk (k) block at (mn0, chunk kc0 of k) as four
    // 8 x 1-chunk matrices; lane l gets row l/4 of each, k pair 2(l%4) (16-bit) or word l%4
    // (TF32). For A the order is (mn lo, k lo), (mn hi, k lo), (mn lo, k hi), (mn hi, k hi):
    // the fragment a0..a3 of mma.sync. For B it is (n lo, k lo), (n lo, k hi), (n hi, k lo),
    // (n hi, k hi): two n8 fragments {r0, r1} and {r2, r3}, each in the consecutive register
    // pair mma.sync reads (the A order would leave them in r0, r2: a register move per mma).
    //
    // Byte offsets of this lane's ldmatrix rows for a warp whose mn range starts at wmn0 and
    // spans kBlocks blocks of 16, worked out once: every fragment load in the main loop is
    // then one ldmatrix at (offset + a compile-time constant). The XOR depends on the lane and
    // on the k step (k-major slabs) or the 16-block (mn-major slabs), so one offset is kept
    // per step or per block; the other index moves by whole swizzle periods (16 rows).
    template <int kBlocks>
    struct Fragments {
        static_assert(!kPermutedUnits, "TF32 mn-major slabs are read by PairWordFragments");
        static constexpr int kSteps = BK / kChunkElems / 2;
        static constexpr int kOffsets = kMnContiguous ? kBlocks : kSteps;
        static constexpr int kRowBytes = kRowElems * static_cast<int>(sizeof(T));
        uint32_t off[kOffsets];

        __device__ explicit Fragments(int wmn0) {
            const int lane = threadIdx.x % 32, quad = lane / 8, row8 = lane % 8;
            const int mn_hi = mn_half(quad) * 8, k_hi = k_half(quad);
#pragma unroll
            for (int v = 0; v < kOffsets; ++v) {
                const int e = kMnContiguous ? chunk_offset(k_hi * kChunkElems + row8, (wmn0 + 16 * v + mn_hi) / kChunkElems)
                                            : chunk_offset(wmn0 + mn_hi + row8, 2 * v + k_hi);
                off[v] = e * static_cast<uint32_t>(sizeof(T));
            }
        }

        // The fragment at (wmn0 + 16 * block, chunk 2 * step of k) of the stage at shared address `stage`.
        __device__ void load(uint32_t (&r)[4], uint32_t stage, int block, int step) const {
            if constexpr (kMnContiguous)
                ptx::ldmatrix_x4_trans_at(r, stage + off[block] + step * 16 * kRowBytes);
            else
                ptx::ldmatrix_x4_at(r, stage + off[step] + block * 16 * kRowBytes);
        }
        // The fragments of all kBlocks blocks at k step `step`.
        __device__ void load_step(uint32_t (&r)[kBlocks][4], uint32_t stage, int step) const {
#pragma unroll
            for (int block = 0; block < kBlocks; ++block) load(r[block], stage, block, step);
        }
    };

    // Fragments' interface for TF32 mn-major slabs, which ldmatrix cannot read (its .trans moves
    // 16-bit elements). A fragment wants lane (g, t) to hold element g of an 8-wide unit of mn at
    // k = t (and t + 4); in an mn-major row a unit's 8 elements lie side by side, so a lane would
    // read single words. The warp's mn range is therefore used in a permuted order: the two units
    // of each block of 16 interleave, unit u's element x coming from mn = 16 (u / 2) + 2 x + u % 2
    // (unit_mn below). Element g of both units is then one 8-byte pair, and A's fragment {a0, a1}
    // (or {a2, a3}) one LDS.64 straight into the registers the mma reads. MMA computes on the
    // permuted rows (columns, for B) as on any others; the epilogue writes each accumulator to
    // the row (column) unit_mn names. A k step reads 2 pairs a block instead of 4 words.
    // Conflict-free: a half warp reads rows t = 0..3, 32 bytes each, which the XOR by 2 (row % 4)
    // puts in four different quarters of the banks.
    template <int kBlocks>
    struct PairWordFragments {
        static constexpr int kRowBytes = kRowElems * static_cast<int>(sizeof(T));
        uint32_t off[2];  // byte offsets of this lane's pair at k = t, for even and odd blocks

        __device__ explicit PairWordFragments(int wmn0) {
            const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
            for (int odd = 0; odd < 2; ++odd) {
                const int mn = wmn0 + 16 * odd + 2 * g;
                off[odd] = (chunk_offset(t, mn / kChunkElems) + mn % kChunkElems) * static_cast<uint32_t>(sizeof(T));
            }
        }

        // The fragments of all kBlocks blocks at k step `step`, in Fragments' register order.
        __device__ void load_step(uint32_t (&r)[kBlocks][4], uint32_t stage, int step) const {
#pragma unroll
            for (int block = 0; block < kBlocks; ++block)
#pragma unroll
                for (int kh = 0; kh < 2; ++kh) {
                    // Blocks two apart are 32 elements (8 chunks, one XOR period) apart; rows k lo
                    // and k hi are 4 rows (one XOR period) apart.
                    uint32_t lo, hi;  // units 2 block and 2 block + 1
                    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                                 : "=r"(lo), "=r"(hi)
                                 : "r"(stage + off[block % 2] + (2 * step + kh) * 4 * kRowBytes + block / 2 * 32 * 4));
#pragma unroll
                    for (int q = 0; q < 4; ++q)
                        if (k_half(q) == kh) r[block][q] = mn_half(q) ? hi : lo;
                }
        }
    };

    // The fragment reader of this slab for a warp spanning kBlocks blocks of 16 along mn.
    template <int kBlocks>
    using Reader = std::conditional_t<kPermutedUnits, PairWordFragments<kBlocks>, Fragments<kBlocks>>;

};

}  // namespace gemmkit::tensor

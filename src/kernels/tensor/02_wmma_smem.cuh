// f16.02_wmma_smem, bf16.02_wmma_smem — WMMA on 128x128 block tiles staged in shared memory.
//
// Changed from 01: a block of 8 warps computes a 128x128 tile of C. Per BK = 32 slab of k,
// the block copies the 128x32 slab of op(A) and the 32x128 slab of op(B) into shared memory
// once, with coalesced 16-byte loads, and each warp then reads its fragments from there with
// load_matrix_sync. A warp owns a 64x32 block of C (4x2 accumulator tiles), so per 16-wide
// step it loads 4 op(A) and 2 op(B) tiles for 8 mma_syncs. Each slab keeps its operand's
// global layout (the contiguous dimension stays contiguous) so vectors copy straight across,
// and WMMA reads it with the layout of step 01 (col_major for op N, row_major for op T).
// Every shared row is padded by 8 elements (16 bytes): with row strides of 272 bytes (rows
// along m or n) and 80 bytes (rows along k), 8 consecutive rows start in 8 different 16-byte
// bank groups, so a fragment load's 8-row reads (as ldmatrix does them) are conflict-free;
// unpadded, the 256- and 64-byte strides would make them 8-way and 4-way conflicts.
// The epilogue reuses the slab memory: each warp passes its accumulator tiles, one at a
// time, through a private 16x16 float tile to apply alpha and beta (as in 01).
// Bottleneck it removes: global traffic. Each element of a slab is fetched once per block and
// feeds 128 columns (or rows) of C: 64 FLOP per byte from L2/DRAM, 4x step 01's 16.
// What remains: the copy and the math of a slab alternate behind two barriers, so global
// latency is exposed every slab (no prefetch), and the copy passes through registers.
// Preconditions: none for correctness. Full speed when A and B are 16-byte aligned with lda
// and ldb multiples of 8 elements (a template flag chosen at launch: 16-byte copies);
// otherwise every element is copied on its own (2-byte loads, still coalesced). Edges are
// zero-filled in shared memory. C needs only its element alignment.
// Measured: docs/ladder/tensor-cores.md#step-02.
#pragma once

#include "kernels/tensor/01_wmma_global.cuh"

namespace gemmkit::tensor {

struct WmmaSmemCfg {
    static constexpr int BM = 128, BN = 128, BK = 32;
    static constexpr int kWarpsM = 2, kWarpsN = 4;
    static constexpr int WM = BM / kWarpsM, WN = BN / kWarpsN;               // 64x32 warp tile
    static constexpr int kFragsM = WM / kFrag, kFragsN = WN / kFrag;         // 4x2 accumulator tiles
    static constexpr int kWarps = kWarpsM * kWarpsN;
    static constexpr int kThreads = 32 * kWarps;                             // 256
    static constexpr int kPad = 8;  // elements added to each shared row: 16 bytes
    static_assert(WM % kFrag == 0 && WN % kFrag == 0 && BK % kFrag == 0, "warp tiles and slabs are whole fragments");
    static_assert(kWarpsM * WM == BM && kWarpsN * WN == BN, "the warps cover the block tile exactly");
    static_assert(kPad % 8 == 0, "WMMA ldm must stay a multiple of 8 halfs (16 bytes)");
    static_assert(BN >= 16, "chunking.hpp bounds the column tiles (gridDim.y) assuming BN >= 16");
};

// One operand's slab in shared memory, in the operand's global layout:
//   kMnContiguous (A op N, B op T): [BK][BMN + kPad], element (mn, p) at p * kStride + mn
//   otherwise     (A op T, B op N): [BMN][BK + kPad], element (mn, p) at mn * kStride + p
// "mn" is the row of op(A) or the column of op(B); a "line" is one row of this array.
template <class T, int BMN, int BK, int kPad, bool kMnContiguous>
struct SmemSlab {
    static constexpr int kLine = kMnContiguous ? BMN : BK;  // elements per line (contiguous in global)
    static constexpr int kLines = kMnContiguous ? BK : BMN;
    static constexpr int kStride = kLine + kPad;            // WMMA's ldm for this slab
    static constexpr int kBytes = kLines * kStride * static_cast<int>(sizeof(T));
    static constexpr int kVecElems = 16 / static_cast<int>(sizeof(T));  // 8 halfs per 16-byte copy
    static_assert(kLine % kVecElems == 0 && kStride % kVecElems == 0,
                  "16-byte copies tile a line and start 16-byte aligned in every shared row");
    static_assert(kFrag * kStride * sizeof(T) % 32 == 0 && kStride % 8 == 0,
                  "every fragment starts 256-bit aligned and ldm is a multiple of 16 bytes");

    // Copies the slab whose element (0, 0) is at x (global, leading dimension ld) into s,
    // zero-filling elements with mn >= mn_count or p >= k_count. Each thread moves kCopies
    // chunks of kChunk elements, consecutive threads taking consecutive chunks of a line, so a
    // warp's loads are contiguous runs of 64 bytes or more. With kVec a chunk is one 16-byte load and store
    // (x 16-byte aligned and ld % 8 == 0: the launch checks); chunks crossing the edge, and
    // all chunks without kVec (then single elements), are copied element by element.
    // Equivalent to: for each (mn, p) of the slab: s(mn, p) = inside ? x(mn, p) : 0.
    template <int kThreads, bool kVec>
    __device__ __forceinline__ static void copy(T* s, const T* x, int64_t ld, int mn_count, int k_count) {
        constexpr int kChunk = kVec ? kVecElems : 1;
        constexpr int kChunksPerLine = kLine / kChunk;
        constexpr int kCopies = kLines * kChunksPerLine / kThreads;
        static_assert(kLines * kChunksPerLine % kThreads == 0, "every thread copies the same number of chunks");
        const int line_count = kMnContiguous ? mn_count : k_count;   // inside, along a line
        const int lines_inside = kMnContiguous ? k_count : mn_count;  // inside, across lines
        const T zero = from_float<T>(0.0f);
        // Batches of 8 (all 2 copies with kVec; 16 single elements without): fully unrolled, the
        // compiler hoists all 16 element addresses out of the k loop, ~240 registers instead of ~100.
#pragma unroll 8
        for (int it = 0; it < kCopies; ++it) {
            const int e = threadIdx.x + it * kThreads;
            const int c = e % kChunksPerLine * kChunk;  // first element of the chunk along its line
            const int o = e / kChunksPerLine;           // line
            const T* src = x + c + o * ld;
            T* dst = s + o * kStride + c;
            const bool line_ok = o < lines_inside;
            if (kVec && line_ok && c + kChunk <= line_count) {
                *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
            } else {
#pragma unroll
                for (int q = 0; q < kChunk; ++q) dst[q] = line_ok && c + q < line_count ? src[q] : zero;
            }
        }
    }
};

template <class T, class TC, bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(WmmaSmemCfg::kThreads) wmma_smem_kernel(GemmArgs<T, TC> g) {
    using Cfg = WmmaSmemCfg;
    using SlabA = SmemSlab<T, Cfg::BM, Cfg::BK, Cfg::kPad, !kTransA>;  // op(A)(i, p) at op_offset<kTransA>(i, p, kStride)
    using SlabB = SmemSlab<T, Cfg::BN, Cfg::BK, Cfg::kPad, kTransB>;   // op(B)(p, j) at op_offset<kTransB>(p, j, kStride)
    constexpr int kBytesAB = SlabA::kBytes + SlabB::kBytes;                                  // 18-20 KiB
    constexpr int kBytesC = Cfg::kWarps * kFrag * kFrag * static_cast<int>(sizeof(float));  // epilogue tiles: 8 KiB
    static_assert(SlabA::kBytes % 32 == 0, "the B slab starts 256-bit aligned");
    __shared__ __align__(128) unsigned char smem[kBytesAB > kBytesC ? kBytesAB : kBytesC];
    T* sA = reinterpret_cast<T*>(smem);                  // SlabA: [BK][BM+8] (op N) or [BM][BK+8] (op T)
    T* sB = reinterpret_cast<T*>(smem + SlabA::kBytes);  // SlabB: [BN][BK+8] (op N) or [BK][BN+8] (op T)

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const int warp = threadIdx.x / 32;
    const int wi = warp % Cfg::kWarpsM * Cfg::WM;  // this warp's 64x32 tile, relative to the block
    const int wj = warp / Cfg::kWarpsM * Cfg::WN;

    FragAcc acc[Cfg::kFragsM][Cfg::kFragsN];
#pragma unroll
    for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < Cfg::kFragsN; ++fn) wmma::fill_fragment(acc[fm][fn], 0.0f);

    FragA<T, kTransA> a[Cfg::kFragsM];
    FragB<T, kTransB> b[Cfg::kFragsN];
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        SlabA::template copy<Cfg::kThreads, kVec>(sA, g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0,
                                                  g.k - p0);
        SlabB::template copy<Cfg::kThreads, kVec>(sB, g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0,
                                                  g.k - p0);
        __syncthreads();  // the slab is complete
#pragma unroll
        for (int p = 0; p < Cfg::BK; p += kFrag) {
#pragma unroll
            for (int fm = 0; fm < Cfg::kFragsM; ++fm)
                wmma::load_matrix_sync(a[fm], sA + op_offset<kTransA>(wi + fm * kFrag, p, SlabA::kStride),
                                       SlabA::kStride);
#pragma unroll
            for (int fn = 0; fn < Cfg::kFragsN; ++fn)
                wmma::load_matrix_sync(b[fn], sB + op_offset<kTransB>(p, wj + fn * kFrag, SlabB::kStride),
                                       SlabB::kStride);
#pragma unroll
            for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
                for (int fn = 0; fn < Cfg::kFragsN; ++fn) wmma::mma_sync(acc[fm][fn], a[fm], b[fn], acc[fm][fn]);
        }
        __syncthreads();  // every warp is done with the slab before it is overwritten (or reused below)
    }

    // The slabs are dead (the loop ended on a barrier): each warp takes 1 KiB of them as its tile.
    float* sC = reinterpret_cast<float*>(smem) + warp * kFrag * kFrag;  // [16][16], column-major
#pragma unroll
    for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < Cfg::kFragsN; ++fn)
            store_acc_tile(g, acc[fm][fn], sC, i0 + wi + fm * kFrag, j0 + wj + fn * kFrag);
}

// One launch function for f16 and bf16: the problem's types pick T (A, B) and TC (C), its
// ops and alignment the copy's template flags.
inline cudaError_t launch_wmma_smem(const Problem& p, cudaStream_t stream) {
    using Cfg = WmmaSmemCfg;
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_half_types(p, [&](auto t, auto tc) {
        using T = typename decltype(t)::type;
        using TC = typename decltype(tc)::type;
        const GemmArgs<T, TC> args = make_args<T, TC>(p);
        const bool vec = aligned16<T>(args.A, args.lda) && aligned16<T>(args.B, args.ldb);
        return with_ops(p, [&](auto ta, auto tb) {
            constexpr bool kTransA = decltype(ta)::value, kTransB = decltype(tb)::value;
            if (vec)
                wmma_smem_kernel<T, TC, kTransA, kTransB, true><<<grid, Cfg::kThreads, 0, stream>>>(args);
            else
                wmma_smem_kernel<T, TC, kTransA, kTransB, false><<<grid, Cfg::kThreads, 0, stream>>>(args);
            return cudaGetLastError();
        });
    });
}

}  // namespace gemmkit::tensor

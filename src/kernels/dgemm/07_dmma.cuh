// dgemm.07_dmma_warp_ring — the FP64 tensor cores: mma.sync m16n8k8 (DMMA) fed by step 06's
// cp.async ring, whose stages the warps hand over through mbarriers (warp_ring.cuh).
//
// Changed from 06: the multiply-adds leave the CUDA cores. A warp computes its 64x32 tile of C
// as 4x4 tiles of 16x8 with mma.sync.m16n8k8.f64 (one DMMA.16x8x8: 1024 FMAs per instruction,
// against 32 per DFMA), on step 06's ring: K-slabs of 16 travel by cp.async into 4 stages that
// change hands through full/empty mbarriers (warp_ring.cuh), not a __syncthreads a slab.
// Bottleneck it removes: the FP64 CUDA-core peak, half the DMMA peak (H100: 33.5 against 66.9
// TFLOP/s). The ring matters more here than on the CUDA cores: with a __syncthreads a slab,
// every slab boundary idled the whole SM until its slowest warp arrived; handed over by
// mbarriers, warps drift up to a slab apart, and one warp's
// boundary stall is covered by the DMMAs of the other warp on its scheduler.
// Why m16n8k8, not m16n8k16 (half the instructions): a k16 step holds 4 A fragments of 8
// doubles and 2 B pairs of 8 next to the 64 accumulator doubles; ptxas then needs all 255
// registers and spills in the op(B) = T variants. k8 halves the fragments (no spills) at the
// same shared-memory traffic; the instruction issue is far from a limit (one DMMA.16x8x8 keeps
// an SM sub-partition's FP64 tensor pipe ~32 cycles busy).
// Shared layout: each slab keeps global memory's contiguous direction, so every op copies
// 16-byte chunks of two doubles: [BK][MN] for A op N / B op T, [MN][BK] for A op T / B op N.
// Fragments are 8-byte elements (no ldmatrix), read with LDS.128. That takes two relabellings,
// free because only the products matter: in each 16-k group, lane t's mma k-indices t, t+4 of
// the group's two k8 steps u = 0, 1 name the physical k 4t+2u, 4t+2u+1, the same for A and B;
// its rows g, g+8 of a 16-row block name the physical rows 2g, 2g+1 (for B, the column g of
// n-tiles 2p, 2p+1 names the columns 16p+2g, 16p+2g+1; C's epilogue uses the same maps). A
// lane's values are then neighbours in shared memory, two to a 16-byte read, and an XOR
// swizzle per slab orientation (DmmaSlab) keeps the reads free of bank conflicts. The epilogue
// writes a lane's rows 2g, 2g+1 of a column as one 16-byte store.
// Preconditions: sm_90 (the m16n8k8 f64 shape; built without sm_90 code, step 05's kernel
// runs). Any size, op and alignment: A and B 16-byte aligned with lda, ldb even are copied in
// 16-byte chunks, other operands in 8-byte pieces into the same shared layout; a chunk across
// the m, n or k edge reads only its inside doubles (cp.async src-size), the rest is zero.
// Resources: 128 registers of accumulators a thread, 128 KiB of ring a block: one block of
// 8 warps per SM.
// The main loop runs in two copies: while every refill it issues lies wholly inside A and B
// (interior tiles, all but the last slabs), the copies' edge checks are compiled out. Where
// they sat among the DMMAs ptxas if-converted them into every slab (about 1.5x the
// instructions a slab; docs/ladder/fp64.md#lab-edge-free-loop).
// With A op T the fragments run a k8 step ahead of the DMMAs (kFragsAheadForAT;
// docs/ladder/fp64.md#lab-frags-ahead).
// Measured: docs/ladder/fp64.md#step-07 (what lost against it: #lab-step-07).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/dgemm/06_async_ring.cuh"
#include "kernels/dgemm/dmma_configs.hpp"
#include "ptx/cp_async.cuh"
#include "ptx/arch.cuh"
#include "ptx/mma_f64.cuh"

namespace gemmkit::dgemm {

// DmmaTileCfg and the configurations: dmma_configs.hpp.

// One operand's MN x BK K-slab in shared memory: the swizzled layout, the cp.async copy from
// global memory, and the fragment reads. "mn" is the row of op(A) or the column of op(B).
//   kMnContiguous  (A op N, B op T): BK rows of k, MN doubles each   // [BK][MN]
//   !kMnContiguous (A op T, B op N): MN rows of mn, BK doubles each  // [MN][BK]
// Chunk c (doubles 2c, 2c+1) of row r is stored at chunk c ^ xor_of(r). LDS.128 serves 8 lanes
// at a time (g = 0..1, t = 0..3 in a quarter warp); they must touch 8 different 16-byte bank
// groups (chunk mod 8, rows being whole 128-byte lines):
//   [BK][MN]: lane (g, t) reads row k = 4t + const, chunk 8b + g. Rows 4 apart sit at the
//     same phase whatever padding keeps rows 16-byte aligned; XOR by 2*((r/4) % 4) = 2t gives
//     chunks g ^ 2t: 8 distinct.
//   [MN][BK]: lane (g, t) reads row 2g + const, chunk 2t + const. Rows 2 apart sit at the same
//     phase; XOR by (r/2) % 2 = g gives chunks 2t + (u ^ g): 8 distinct.
// The cp.async writes (8 lanes, 8 chunks of one row) stay conflict-free: the XOR permutes
// chunks inside aligned groups of 8.
template <int MN, int BK, bool kMnContiguous>
struct DmmaSlab {
    static constexpr int kRows = kMnContiguous ? BK : MN;
    static constexpr int kRowElems = kMnContiguous ? MN : BK;
    static constexpr int kChunks = kRowElems / 2;  // 16-byte chunks a row
    static constexpr int kElems = MN * BK;
    static constexpr int kBytes = kElems * static_cast<int>(sizeof(double));
    static constexpr int kXorPeriod = kMnContiguous ? 16 : 2;  // rows after which xor_of repeats
    static_assert(kChunks % 8 == 0, "rows are whole 128-byte bank lines");
    static_assert(MN % 16 == 0 && BK % 16 == 0, "whole 16-row blocks and 16-k groups");

    __host__ __device__ static constexpr int xor_of(int row) {
        return kMnContiguous ? (row >> 2 & 3) << 1 : row >> 1 & 1;
    }
    // Element offset of chunk `chunk` of row `row`.
    __host__ __device__ static constexpr int offset(int row, int chunk) {
        return row * kRowElems + (chunk ^ xor_of(row)) * 2;
    }

    // ---- global -> shared ------------------------------------------------------------------
    // Threads take a row in groups of kRowThreads (16 or 8: a warp reads whole 128-byte lines),
    // each copying every kRowThreads-th chunk of it, then move kRowStep rows on. kRowThreads is
    // a multiple of 8 and kRowStep of kXorPeriod, so all of a thread's chunks share one XOR and
    // lie at fixed distances from its first, in shared memory as in global memory: one offset a
    // thread, worked out once. Requires x 16-byte aligned and ld even (aligned16<double>), or
    // issue<kCopy8 = true>.
    template <int kThreads>
    struct CopyPlan {
        // 16 threads a row (8 where a row has 8 chunks): a warp reads whole 128-byte lines. Fewer
        // (8) where the block's rows a pass would not span the XOR's period; more where the block
        // has more threads than the slab's rows take at 16 each.
        static constexpr int row_threads() {
            int r = kChunks < 16 ? kChunks : 16;
            while (r > 8 && kThreads / r % kXorPeriod != 0) r /= 2;
            while (r < kChunks && kThreads / r > kRows) r *= 2;
            return r;
        }
        static constexpr int kRowThreads = row_threads();
        static constexpr int kRowStep = kThreads / kRowThreads;
        static constexpr int kPerRow = kChunks / kRowThreads;  // a thread's chunks in one row
        static constexpr int kPasses = kRows / kRowStep;       // its rows
        static_assert(kThreads % kRowThreads == 0 && kRows % kRowStep == 0, "every thread copies as many chunks");
        static_assert(kRowThreads % 8 == 0 && kRowStep % kXorPeriod == 0, "a thread's chunks share one XOR");
        uint32_t smem0;         // byte offset of this thread's first chunk in a stage
        int64_t global0, step;  // its element offset from the slab origin; the offset between passes

        __device__ explicit CopyPlan(int64_t ld) {
            const int row0 = threadIdx.x / kRowThreads, chunk0 = threadIdx.x % kRowThreads;
            smem0 = offset(row0, chunk0) * static_cast<uint32_t>(sizeof(double));
            global0 = 2 * chunk0 + row0 * ld;
            step = kRowStep * ld;
        }

        // This thread's offsets kept in registers from here on (computed_once), where ptxas
        // rebuilt them from the thread index and ld at every slab. Not for the 8-byte copies
        // (there it spilled registers); step is uniform, left to ptxas. Where: DmmaTileCfg's
        // kKeepCopyOffsets (docs/ladder/fp64.md#lab-copy-plan-kept).
        __device__ void keep() {
            smem0 = computed_once(smem0);
            global0 = computed_once(global0);
        }

        // Copies the slab at x into the stage at shared byte address `stage`. mn_left / k_left:
        // rows of op(X) and k still inside the matrix from the slab origin (may exceed MN / BK).
        // `full`: the whole slab is inside (block-uniform), so no chunk needs a check. Otherwise
        // a chunk reads only its inside doubles (cp.async src-size 16, 8 or 0); the rest is zero.
        // kCopy8: x or ld is only 8-byte aligned (odd ld: every other row starts mid-chunk), so
        // each 16-byte shared chunk is filled by two 8-byte copies (src-size 8 or 0 each). The
        // shared layout, and so everything downstream, stays the same.
        template <bool kCopy8 = false>
        __device__ void issue(uint32_t stage, const double* x, int mn_left, int k_left, bool full) const {
            constexpr uint32_t kPassBytes = kRowStep * kRowElems * sizeof(double);
            constexpr int kChunkStride = 2 * kRowThreads;  // doubles between a thread's chunks in a row
            const int row_left = kMnContiguous ? k_left : mn_left, line_left = kMnContiguous ? mn_left : k_left;
            const int row0 = threadIdx.x / kRowThreads, first0 = 2 * (threadIdx.x % kRowThreads);
#pragma unroll
            for (int pass = 0; pass < kPasses; ++pass)
#pragma unroll
                for (int c = 0; c < kPerRow; ++c) {
                    const uint32_t dst = stage + smem0 + pass * kPassBytes + c * kChunkStride * sizeof(double);
                    const double* src = x + global0 + pass * step + c * kChunkStride;
                    if (full) {
                        if constexpr (kCopy8) {
                            ptx::cp_async_8_partial_at(dst, src, 8);
                            ptx::cp_async_8_partial_at(dst + 8, src + 1, 8);
                        } else {
                            ptx::cp_async_16_partial_at(dst, src, 16);
                        }
                        continue;
                    }
                    const int inside = row0 + pass * kRowStep < row_left
                                           ? max(0, min(2, line_left - first0 - c * kChunkStride))
                                           : 0;
                    if constexpr (kCopy8) {
                        ptx::cp_async_8_partial_at(dst, inside > 0 ? src : x, inside > 0 ? 8 : 0);
                        ptx::cp_async_8_partial_at(dst + 8, inside > 1 ? src + 1 : x, inside > 1 ? 8 : 0);
                    } else {
                        ptx::cp_async_16_partial_at(dst, inside > 0 ? src : x, inside * 8);
                    }
                }
        }
    };

    // ---- shared -> registers ---------------------------------------------------------------
    // Lane (g, t)'s values for k8 step `kstep` of a stage (16-k group s = kstep / 2, half
    // u = kstep % 2) and the 16-row block `block` of a warp's range from mn0, relabelled as in
    // the file comment:
    //   f[2j + h] = X(mn0 + 16*block + 2g + h, 16*s + 4t + 2u + j),   j, h = 0..1
    // For A that is mma's fragment a0..a3 as it stands; for B, n-tile 2*block + e takes
    // b = {f[e], f[2 + e]}. Two LDS.128 either way: [BK][MN] reads (h = 0, 1) at one k,
    // [MN][BK] reads (k, k + 1) of one row. Lane offsets are worked out once; every read in the
    // main loop is then an offset plus a compile-time constant (the added rows and chunks leave
    // the XOR unchanged: +16s + 2u + j rows keep (r/4) % 4 = t and +16*block + h rows keep
    // (r/2) % 2 = g; +8*block and +8*s chunks leave the three low bits alone). u moves [MN][BK]
    // reads by one chunk, which the XOR does change: one offset for each u.
    struct Reader {
        int base[kMnContiguous ? 1 : 2];  // element offsets: [0], or for [MN][BK] one per half u

        __device__ explicit Reader(int mn0) {
            const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
            if constexpr (kMnContiguous) {
                base[0] = offset(4 * t, mn0 / 2 + g);
            } else {
                base[0] = offset(mn0 + 2 * g, 2 * t);
                base[1] = offset(mn0 + 2 * g, 2 * t + 1);
            }
        }

        __device__ void load(double (&f)[4], const double* stage, int block, int kstep) const {
            const int s = kstep / 2, u = kstep % 2;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                if constexpr (kMnContiguous) {  // i = j: rows 2g, 2g + 1 at one k
                    const double2 v = *reinterpret_cast<const double2*>(
                        stage + base[0] + (16 * s + 2 * u + i) * kRowElems + 16 * block);
                    f[2 * i] = v.x;
                    f[2 * i + 1] = v.y;
                } else {  // i = h: k and k + 1 of row 2g + h
                    const double2 v = *reinterpret_cast<const double2*>(
                        stage + base[u] + (16 * block + i) * kRowElems + 16 * s);
                    f[i] = v.x;
                    f[2 + i] = v.y;
                }
            }
        }
    };
};

// One block's share of the work, as pieces that step 08 reuses: the ring and the per-thread copy
// and fragment offsets (set up once), the main loop over a range of a tile's K-slabs, and the
// epilogue. kCopy8: A or B is only 8-byte aligned; both are then copied in 8-byte pieces
// (CopyPlan::issue). kFragsAhead: the main loop loads fragments one k8 step ahead (accumulate).
template <class Cfg, bool kTransA, bool kTransB, bool kCopy8, bool kFragsAhead = false>
struct DmmaBlock {
    using SlabA = DmmaSlab<Cfg::BM, Cfg::BK, !kTransA>;  // op N: A[m + k*lda], m contiguous
    using SlabB = DmmaSlab<Cfg::BN, Cfg::BK, kTransB>;   // op T: B[n + k*ldb], n contiguous
    using Ring = WarpRing<Cfg::kStages, Cfg::kThreads>;
    // acc[mi][ni]: mma's 16x8 D tile of rows wm0 + 16mi.. and the n-tile ni, whose columns are
    // wn0 + 16(ni/2) + ni%2 + {0, 2, ..., 14} (relabelled; store() below).
    using Acc = double[Cfg::MI][Cfg::NI][4];
    static constexpr int kKSteps = Cfg::BK / 8;  // k8 steps a slab

    const GemmArgs<double>& args;
    const double* sA;  // [kStages][SlabA::kElems]
    const double* sB;  // [kStages][SlabB::kElems]
    uint32_t ringA, ringB;
    Ring ring;
    int wm0, wn0;  // the warp's tile within the block's
    typename SlabA::template CopyPlan<Cfg::kThreads> copyA;
    typename SlabB::template CopyPlan<Cfg::kThreads> copyB;
    typename SlabA::Reader fragsA;
    typename SlabB::Reader fragsB;

    // Every thread of the block constructs it (the ring's barriers end with a __syncthreads()).
    // smem: the dynamic shared memory, Cfg::kSmemBytes.
    __device__ DmmaBlock(const GemmArgs<double>& a, double* smem)
        : args(a),
          sA(smem),
          sB(smem + Cfg::kStages * SlabA::kElems),
          ringA(ptx::smem_addr(smem)),
          ringB(ptx::smem_addr(smem + Cfg::kStages * SlabA::kElems)),
          ring(ptx::smem_addr(smem) + Cfg::kRingBytes),
          wm0(threadIdx.x / 32 % Cfg::kWarpsM * Cfg::WM),
          wn0(threadIdx.x / 32 / Cfg::kWarpsM * Cfg::WN),
          copyA(a.lda),
          copyB(a.ldb),
          fragsA(wm0),
          fragsB(wn0) {
        if constexpr (Cfg::kKeepCopyOffsets && !kCopy8) {
            copyA.keep();
            copyB.keep();
        }
    }

    // acc += the tile at (m0, n0) over its K-slabs [kb, ke). The ring numbers slabs across calls:
    // this range's are q0, q0 + 1, ... (the caller adds ke - kb to q0 for the next range), so
    // its stages' phases continue where the last range left them. batch: the problem of a
    // strided batch (TileOperands), 0 where select_batch has moved args.
    __device__ void accumulate(Acc& acc, int m0, int n0, int kb, int ke, int q0, int64_t batch = 0) const {
        const TileOperands<double, Cfg::BK, kTransA, kTransB> operands(args, m0, n0, batch);
        const int last = q0 + ke - kb;  // one past this range's last slab, in ring numbering
        const int slab_of_q = kb - q0;  // ring slab q is the tile's slab q + slab_of_q
        // Ring slabs below full_end lie wholly inside A and B: their copies need no checks.
        const bool inside_mn = operands.m_left >= Cfg::BM && operands.n_left >= Cfg::BN;
        const int full_end = inside_mn ? min(last, args.k / Cfg::BK - slab_of_q) : q0;
        // Starts this thread's copies of ring slab q into its stage, once the stage's previous
        // slab is released (at once on a fresh ring), and arrives on full[] once they land.
        // known_full (std::true_type): the caller knows q < full_end, and the copies' edge
        // checks are compiled out.
        auto issue = [&](int q, auto known_full) {
            if (q >= last) return;
            ring.wait_empty(q);
            const int s = q + slab_of_q, stage = ring.stage_of(q), k_left = args.k - s * Cfg::BK;
            const int m_left = operands.m_left, n_left = operands.n_left;
            constexpr bool kFull = decltype(known_full)::value;
            copyA.template issue<kCopy8>(ringA + stage * SlabA::kBytes, operands.a_of(s), m_left, k_left,
                                         kFull || (k_left >= Cfg::BK && m_left >= Cfg::BM));
            copyB.template issue<kCopy8>(ringB + stage * SlabB::kBytes, operands.b_of(s), n_left, k_left,
                                         kFull || (k_left >= Cfg::BK && n_left >= Cfg::BN));
            ring.copies_issued(q);
        };
        // Row mi of a k8 step's DMMAs: A's 16-row block a against the NI n-tiles held in fb.
        auto dmma_row = [&](int mi, const double (&a)[4], const double (&fb)[Cfg::NI / 2][4]) {
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) {
                const double b[2] = {fb[ni / 2][ni % 2], fb[ni / 2][2 + ni % 2]};
                ptx::mma_m16n8k8_f64(acc[mi][ni], a, b);
            }
        };
        // Slab q's DMMAs, each k8 step's fragments loaded at its start (ptxas issues the 12
        // LDS.128 together, then the 16 DMMAs wait for them); the refill of slab q + kStages - 1
        // goes out during its first k8 step.
        auto compute_at_start = [&](int q, auto refill_full) {
            ring.wait_full(q);
            const double* stA = sA + ring.stage_of(q) * SlabA::kElems;
            const double* stB = sB + ring.stage_of(q) * SlabB::kElems;
#pragma unroll
            for (int kstep = 0; kstep < kKSteps; ++kstep) {
                double fb[Cfg::NI / 2][4];  // n-tiles 2p and 2p + 1 in fb[p]
#pragma unroll
                for (int p = 0; p < Cfg::NI / 2; ++p) fragsB.load(fb[p], stB, p, kstep);
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi) {
                    double a[4];
                    fragsA.load(a, stA, mi, kstep);
                    dmma_row(mi, a, fb);
                }
                // Slab q + kStages - 1 refills the stage of slab q - 1, which every thread
                // releases at the end of it; its copies go out while this k8 step's DMMAs run
                // (at the slab's end they waited for the last DMMAs; docs/ladder/fp64.md#lab-step-07).
                if (kstep == 0) issue(q + Cfg::kStages - 1, refill_full);
            }
            ring.release(q);  // this thread is done with slab q (mma.sync has consumed its reads)
        };

        // The same with the fragments one k8 step ahead of the DMMAs: a[mi] is reloaded for the
        // next step once its row of DMMAs has read it, and the next step's B goes to the other
        // of two buffers (step j of a slab reads fb[j % 2]). Where the next step lies in the next
        // slab, the wait for that slab comes before the last row of DMMAs, not the first, so a
        // late slab stalls few of them. Slab q is released a step early: its last reads were
        // issued during the step before its last.
        double a[Cfg::MI][4];
        double fb[2][Cfg::NI / 2][4];  // n-tiles 2p and 2p + 1 in fb[.][p]
        // Loads k8 step `kstep` of slab q: B into fb[b_buffer] (none if -1), and A's 16-row
        // blocks mi whose bit is set in a_rows into a[mi].
        auto load_ahead = [&](int q, int kstep, int b_buffer, int a_rows) {
            const double* stA = sA + ring.stage_of(q) * SlabA::kElems;
            const double* stB = sB + ring.stage_of(q) * SlabB::kElems;
#pragma unroll
            for (int p = 0; b_buffer >= 0 && p < Cfg::NI / 2; ++p) fragsB.load(fb[b_buffer][p], stB, p, kstep);
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
                if (a_rows >> mi & 1) fragsA.load(a[mi], stA, mi, kstep);
        };
        auto compute_ahead = [&](int q, auto refill_full) {
            static_assert(kKSteps % 2 == 0, "step j of every slab reads B buffer j % 2");
#pragma unroll
            for (int kstep = 0; kstep < kKSteps; ++kstep) {
                const bool last_k = kstep == kKSteps - 1;
                const int next_q = last_k ? q + 1 : q, next_k = last_k ? 0 : kstep + 1, cur = kstep % 2;
                const bool has_next = next_q < last;              // block-uniform
                const int load_row = last_k ? Cfg::MI - 2 : 0;  // the next step's loads start after it
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi) {
                    dmma_row(mi, a[mi], fb[cur]);
                    if (!has_next || mi < load_row) continue;
                    if (mi == load_row && last_k) ring.wait_full(next_q);
                    // At load_row: B and A's rows up to it; after it, A's row mi.
                    load_ahead(next_q, next_k, mi == load_row ? cur ^ 1 : -1,
                               mi == load_row ? (2 << mi) - 1 : 1 << mi);
                }
                if (kstep == 0) issue(q + Cfg::kStages - 1, refill_full);
                if (kstep == kKSteps - 2) ring.release(q);
            }
        };

        auto compute = [&](int q, auto refill_full) {
            if constexpr (kFragsAhead)
                compute_ahead(q, refill_full);
            else
                compute_at_start(q, refill_full);
        };

        for (int q = q0; q < q0 + Cfg::kStages - 1; ++q) issue(q, std::false_type{});
        if (kFragsAhead && q0 < last) {  // the first step's fragments
            ring.wait_full(q0);
            load_ahead(q0, 0, 0, (1 << Cfg::MI) - 1);
        }
        // Two copies of the main loop: one whose refills are all inside (no edge checks among
        // the DMMAs), then one for the last slabs, whose refills may cross an edge.
        int q = q0;
        for (; q + Cfg::kStages - 1 < full_end; ++q) compute(q, std::true_type{});
        for (; q < last; ++q) compute(q, std::false_type{});
        // No copy outlives the range: every thread waited for full[] of every slab it issued.
    }

    // C(tile at m0, n0) = alpha * acc + beta * C, then the fused epilogue. D element r of lane (g, t): mma row
    // g + 8(r/2) -> physical row 2g + r/2; mma column 2t + r%2 -> physical column
    // 2(2t + r%2) + ni%2. Rows 2g, 2g + 1 of one column are neighbours in C: one store_c2 (a
    // 16-byte store when C allows it).
    __device__ void store(const Acc& acc, int m0, int n0) const {
        const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
        const bool vec_c = aligned16<double>(args.C, args.ldc);
        const auto epi = args.epilogue();  // once, not a value (docs/epilogues.md#select-late)
        with_reads(args.beta, epi, [&](auto reads) {  // a plain GEMM's stores load nothing
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi) {
                const int i = m0 + wm0 + 16 * mi + 2 * g;  // even: 16-byte aligned when vec_c
                if (i >= args.m) continue;
#pragma unroll
                for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                    for (int c = 0; c < 2; ++c) {
                        const int j = n0 + wn0 + 16 * (ni / 2) + 4 * t + 2 * c + ni % 2;
                        if (j < args.n)
                            store_c2<decltype(reads)::value>(args, epi, i, j, acc[mi][ni][c], acc[mi][ni][2 + c],
                                                             vec_c);
                    }
            }
        });
        finish_stored(epi, args.C, args.ldc, args.m, args.n, Cfg::MI * Cfg::NI * 4, [&](int v) {
            const int mi = v / (Cfg::NI * 4), ni = v / 4 % Cfg::NI, c = v / 2 % 2, half = v % 2;  // acc[mi][ni][c + 2 half]
            return make_int2(m0 + wm0 + 16 * mi + 2 * g + half, n0 + wn0 + 16 * (ni / 2) + 4 * t + 2 * c + ni % 2);
        });
    }
};

// Step 07: a block a tile, all of its slabs. Block b takes tile b, the tiles numbered down
// columns of tiles (m first), so step 08 can launch the first tiles alone.
template <class Cfg, bool kTransA, bool kTransB, bool kCopy8>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) dmma_kernel(GemmArgs<double> args) {
#if GEMMKIT_SM90_CODE
    extern __shared__ __align__(128) double smem[];
    // A batch's problem. The 16-byte variant takes strided batches only: A and B move through
    // TileOperands, C after the main loop, and args stays in the parameter bank through the
    // loop (moved at the start, it took the loop off the uniform registers:
    // docs/epilogues.md#select-late). The 8-byte variant may be given pointer arrays.
    if constexpr (kCopy8) select_batch<true>(args);
    const int64_t batch = kCopy8 ? 0 : blockIdx.z;
    constexpr bool kFragsAhead = Cfg::kFragsAheadForAT && kTransA;
    const DmmaBlock<Cfg, kTransA, kTransB, kCopy8, kFragsAhead> block(args, smem);
    const int tiles_m = (args.m + Cfg::BM - 1) / Cfg::BM;
    const int m0 = blockIdx.x % tiles_m * Cfg::BM, n0 = blockIdx.x / tiles_m * Cfg::BN;
    double acc[Cfg::MI][Cfg::NI][4] = {};
    block.accumulate(acc, m0, n0, 0, (args.k + Cfg::BK - 1) / Cfg::BK, 0, batch);
    if constexpr (!kCopy8) select_batch_c(args);
    block.store(acc, m0, n0);
#else
    __trap();  // an image below sm_90 (ptx/arch.cuh): launch_dmma never starts it
#endif
}

// Step 07's kernel on the first `tiles` tiles (step 08 runs the rest its own way).
template <class Cfg>
cudaError_t launch_dmma_tiles(const Problem& p, cudaStream_t stream, int64_t tiles) {
    return with_ops_and_vec<double>(p, [&](auto ta, auto tb, auto vec) {
        constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value, kCopy8 = !decltype(vec)::value;
        return launch_with_smem(dmma_kernel<Cfg, kTA, kTB, kCopy8>, batch_grid(dim3(static_cast<unsigned>(tiles)), p),
                                Cfg::kThreads, Cfg::kSmemBytes, stream, make_args<double>(p));
    });
}

template <class Cfg>
cudaError_t launch_dmma(const Problem& p, cudaStream_t stream) {
    if (!sm90_code_loaded<dmma_kernel<Cfg, false, false, false>>()) return launch_edge_fast(p, stream);
    return launch_dmma_tiles<Cfg>(p, stream, int64_t{ceil_div(p.m, Cfg::BM)} * ceil_div(p.n, Cfg::BN));
}

}  // namespace gemmkit::dgemm

// dgemm.06_async_ring — K-slabs travel by cp.async into a ring that the warps hand over through
// mbarriers; the last CUDA-core step.
//
// Changed from 05: the next slab no longer passes through registers (LDG, then STS before the
// barrier), and there is no __syncthreads() a slab. Each thread issues cp.async copies straight
// into a ring of kStages shared buffers, kStages - 1 slabs ahead of the one it computes, and the
// stages change hands through full/empty mbarriers (warp_ring.cuh). The compute loop, the
// fragments and the epilogue are step 05's.
// Bottleneck it removes: step 05 prefetches one slab of 8 k, ~2000 cycles of DFMAs a scheduler:
// about one DRAM round trip, so the STS before the barrier often waited for its loads, and then
// every warp of the SM waited at the barrier for the slowest (ncu: no warp eligible most cycles).
// Layout: both slabs k-major, [BK][MN + 2] as in step 05. An operand contiguous along mn (A op N,
// B op T) is copied in 16-byte chunks of two doubles (two 8-byte copies when A or B is not
// 16-byte aligned with even ld); one contiguous along k (A op T, B op N) one double at a time,
// consecutive threads along k (whole 128-byte lines of global memory), each landing transposed in
// its k row. A copy across the m, n or k edge reads only its inside doubles (cp.async src-size)
// and zero-fills the rest, so the loop needs no checks.
// Preconditions: sm_90 (mbarrier waits by parity; built without sm_90 code, step 05 runs).
// The fragments of a slab's step 0 load during the previous slab's last step (behind the wait
// for that slab, long complete), and the refill's copies go out after step 1's DFMAs: with the
// loads and copies at the slab's boundary, every warp stalled there at once.
// Resources: 1 block of 8 warps an SM (128 accumulator registers a thread), 133 KiB of ring.
// 16-k slabs in 4 stages beat 8-k slabs in 6 and 32-k slabs in 3. What still limits it: 2 warps
// a scheduler waiting on fixed DFMA latencies, under a DFMA pipe that an outer product cannot
// keep fully busy (each DFMA reads its accumulator and a multiplicand from the register file).
// Measured: docs/ladder/fp64.md#step-06 (variants, ceiling and thread tiles: #lab-step-06).
#pragma once

#include <cstdint>

#include "kernels/dgemm/05_edge_fast.cuh"
#include "kernels/dgemm/warp_ring.cuh"
#include "ptx/arch.cuh"
#include "ptx/cp_async.cuh"

namespace gemmkit::dgemm {

struct AsyncRingCfg : EdgeFastCfg {
    static constexpr int BK = 16, kStages = 4;
    static constexpr int SA = BM + kPad, SB = BN + kPad;           // padded k rows, as step 05
    static constexpr int kSlabA = BK * SA, kSlabB = BK * SB;       // doubles a stage
    static constexpr int kRingBytes = kStages * (kSlabA + kSlabB) * static_cast<int>(sizeof(double));
    static constexpr int kSmemBytes = kRingBytes + WarpRing<kStages, kThreads>::kBarrierBytes;
    static_assert(BK % 2 == 0, "fragment buffers alternate: each slab starts on buffer 0");
    static_assert(kSmemBytes <= 227 * 1024, "the ring fits an sm_90 block's shared memory");
};

// One operand's BK x MN K-slab: global memory -> a k-major stage [BK][kStride] by cp.async.
// "mn" is the row of op(A) or the column of op(B); x points at the slab's first element:
//   kMnContiguous:  element (mn, p) at x[mn + p*ld]; 16-byte units of two doubles along mn
//                   (kCopy8: two 8-byte copies each, for operands only 8-byte aligned).
//   !kMnContiguous: element (mn, p) at x[p + mn*ld]; single doubles, 8-byte copies.
// Threads take kPerLine consecutive units of a line, then move kLineStep lines on; each thread's
// offsets are worked out once. Equivalent to: s[p][mn] = in range ? x(mn, p) : 0.
template <int BK, int MN, int kStride, int kThreads, bool kMnContiguous, bool kCopy8>
struct RingSlabCopy {
    static constexpr int kUnit = kMnContiguous ? 2 : 1;           // doubles a unit
    static constexpr int kPerLine = kMnContiguous ? MN / 2 : BK;  // units along a line
    static constexpr int kLines = kMnContiguous ? BK : MN;
    static constexpr int kLineStep = kThreads / kPerLine;
    static constexpr int kPasses = kLines / kLineStep;
    static_assert(kThreads % kPerLine == 0 && kLines % kLineStep == 0, "every thread copies as many units");
    static_assert(kStride % 2 == 0, "16-byte units land on 16-byte aligned rows");

    int c0, o0;             // this thread's first unit: offset along its line (doubles), line
    int64_t global0, step;  // its element offset from the slab origin; between passes
    uint32_t smem0;         // its byte offset in a stage

    __device__ explicit RingSlabCopy(int64_t ld) {
        c0 = threadIdx.x % kPerLine * kUnit;
        o0 = threadIdx.x / kPerLine;
        global0 = c0 + o0 * ld;
        step = kLineStep * ld;
        smem0 = (kMnContiguous ? o0 * kStride + c0 : c0 * kStride + o0) * static_cast<uint32_t>(sizeof(double));
    }

    // Copies the slab at x into the stage at shared byte address `stage`. mn_left / k_left: rows
    // of op(X) and k inside the matrix from the slab origin (may exceed MN / BK). `full`
    // (block-uniform): the whole slab is inside, so no unit needs a check.
    __device__ void issue(uint32_t stage, const double* x, int mn_left, int k_left, bool full) const {
        constexpr uint32_t kPassBytes = (kMnContiguous ? kLineStep * kStride : kLineStep) * sizeof(double);
        if (full) {
#pragma unroll
            for (int pass = 0; pass < kPasses; ++pass)
                copy_unit(stage + smem0 + pass * kPassBytes, x + global0 + pass * step, kUnit);
            return;
        }
        const int line_left = kMnContiguous ? k_left : mn_left, along_left = kMnContiguous ? mn_left : k_left;
        const int along = max(0, min(kUnit, along_left - c0));  // this thread's inside doubles on a line
#pragma unroll
        for (int pass = 0; pass < kPasses; ++pass) {
            const int inside = o0 + pass * kLineStep < line_left ? along : 0;
            copy_unit(stage + smem0 + pass * kPassBytes, inside > 0 ? x + global0 + pass * step : x, inside);
        }
    }

    // One unit: its first `inside` doubles from src, zeros after them (src unread when 0).
    __device__ static void copy_unit(uint32_t dst, const double* src, int inside) {
        if constexpr (!kMnContiguous) {
            ptx::cp_async_8_partial_at(dst, src, inside * 8);
        } else if constexpr (kCopy8) {
            ptx::cp_async_8_partial_at(dst, src, inside > 0 ? 8 : 0);
            ptx::cp_async_8_partial_at(dst + 8, inside > 1 ? src + 1 : src, inside > 1 ? 8 : 0);
        } else {
            ptx::cp_async_16_partial_at(dst, src, inside * 8);
        }
    }
};

template <class Cfg, bool kTransA, bool kTransB, bool kCopy8>
__global__ void __launch_bounds__(Cfg::kThreads, 1) async_ring_kernel(GemmArgs<double> g) {
#if GEMMKIT_SM90_CODE
    using Ring = WarpRing<Cfg::kStages, Cfg::kThreads>;
    extern __shared__ __align__(128) double smem[];
    double* sA = smem;                               // [kStages][BK][SA]: [stage][p][i]
    double* sB = smem + Cfg::kStages * Cfg::kSlabA;  // [kStages][BK][SB]: [stage][p][j]
    const Ring ring(ptx::smem_addr(smem) + Cfg::kRingBytes);

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const bool interior = i0 + Cfg::BM <= g.m && j0 + Cfg::BN <= g.n;  // the same for the whole block
    const double* gA = g.A + op_offset<kTransA>(i0, 0, g.lda);         // op(A)(i0, 0), then one slab on
    const double* gB = g.B + op_offset<kTransB>(0, j0, g.ldb);         // op(B)(0, j0), then one slab on
    const int64_t strideA = op_offset<kTransA>(0, Cfg::BK, g.lda), strideB = op_offset<kTransB>(Cfg::BK, 0, g.ldb);
    const RingSlabCopy<Cfg::BK, Cfg::BM, Cfg::SA, Cfg::kThreads, !kTransA, kCopy8> copyA(g.lda);
    const RingSlabCopy<Cfg::BK, Cfg::BN, Cfg::SB, Cfg::kThreads, kTransB, kCopy8> copyB(g.ldb);
    const uint32_t ringA = ptx::smem_addr(sA), ringB = ptx::smem_addr(sB);
    const int slabs = (g.k + Cfg::BK - 1) / Cfg::BK;

    // This thread's copies of slab s into its stage, then its arrival on full[] for them.
    auto issue = [&](int s) {
        const int stage = Ring::stage_of(s), k_left = g.k - s * Cfg::BK;
        const bool full_k = k_left >= Cfg::BK;
        constexpr uint32_t kStageBytesA = Cfg::kSlabA * sizeof(double), kStageBytesB = Cfg::kSlabB * sizeof(double);
        copyA.issue(ringA + stage * kStageBytesA, gA + s * strideA, g.m - i0, k_left, full_k && interior);
        copyB.issue(ringB + stage * kStageBytesB, gB + s * strideB, g.n - j0, k_left, full_k && interior);
        ring.copies_issued(s);
    };
    for (int s = 0; s < Cfg::kStages - 1 && s < slabs; ++s) issue(s);

    constexpr int kThreadRows = Cfg::BM / Cfg::TM;  // 16
    const int ti = threadIdx.x % kThreadRows * 2;   // rows ti + 32q + {0, 1}
    const int tj = threadIdx.x / kThreadRows * 2;   // cols tj + 32q + {0, 1}
    double rA[2][Cfg::TM], rB[2][Cfg::TN];          // [fragment buffer][value]
    double acc[Cfg::TM][Cfg::TN] = {};              // acc[r][c] is C(i0 + ti + 32(r/2) + r%2, j0 + tj + 32(c/2) + c%2)
    ring.wait_full(0);
    load_pair_fragments<Cfg>(rA[0], rB[0], sA + ti, sB + tj);  // step 0 of slab 0
    for (int s = 0; s < slabs; ++s) {
        const double* a = sA + Ring::stage_of(s) * Cfg::kSlabA + ti;
        const double* b = sB + Ring::stage_of(s) * Cfg::kSlabB + tj;
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            // p is a compile-time constant here, so fragment indices stay in registers. The
            // fragments of step p + 1 load during step p's DFMAs; those of the next slab's step
            // 0 during the last step, behind that slab's wait (long complete: 3 slabs ahead).
            if (p + 1 < Cfg::BK) {
                load_pair_fragments<Cfg>(rA[(p + 1) % 2], rB[(p + 1) % 2], a + (p + 1) * Cfg::SA, b + (p + 1) * Cfg::SB);
            } else if (s + 1 < slabs) {
                ring.wait_full(s + 1);
                load_pair_fragments<Cfg>(rA[0], rB[0], sA + Ring::stage_of(s + 1) * Cfg::kSlabA + ti,
                                         sB + Ring::stage_of(s + 1) * Cfg::kSlabB + tj);
            }
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[p % 2][r], rB[p % 2][c], acc[r][c]);
            // Slab s + kStages - 1 refills the stage of slab s - 1, which every thread released
            // at the end of it. Its copies go out here, between step 1's DFMAs and step 2's, so
            // their address arithmetic fills issue slots the FP64 pipe leaves free.
            if (p == 1 && s + Cfg::kStages - 1 < slabs) {
                ring.wait_empty(s + Cfg::kStages - 1);
                issue(s + Cfg::kStages - 1);
            }
        }
        ring.release(s);  // this thread's reads of slab s are all consumed by the DFMAs above
    }
    // No copy outlives the block: every thread waited on full[] for every slab it issued.
    store_pair_tile<Cfg>(g, acc, i0 + ti, j0 + tj, interior);
#else
    __trap();  // an image below sm_90 (ptx/arch.cuh): launch_async_ring never starts it
#endif
}

// Whether this binary's image of `kernel` holds sm_90 code (PTX 9.0). Built for older GPUs only
// (CMAKE_CUDA_ARCHITECTURES=80) the sm_90 kernels' bodies compile to a trap (ptx/arch.cuh), which
// a newer GPU would JIT and run: their launchers run step 05 instead. Asked once a kernel.
template <auto kKernel>
bool sm90_code_loaded() {
    static const bool ok = [] {
        cudaFuncAttributes attr{};
        return cudaFuncGetAttributes(&attr, kKernel) == cudaSuccess && attr.ptxVersion >= 90;
    }();
    return ok;
}

template <class Cfg>
cudaError_t launch_async_ring(const Problem& p, cudaStream_t stream) {
    if (!sm90_code_loaded<async_ring_kernel<Cfg, false, false, false>>()) return launch_edge_fast(p, stream);
    const bool copy8 = !aligned16<double>(p.A, p.lda) || !aligned16<double>(p.B, p.ldb);
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_ops(p, [&](auto ta, auto tb) {
        constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
        auto* kernel = copy8 ? async_ring_kernel<Cfg, kTA, kTB, true> : async_ring_kernel<Cfg, kTA, kTB, false>;
        return launch_with_smem(kernel, grid, Cfg::kThreads, Cfg::kSmemBytes, stream, make_args<double>(p));
    });
}

}  // namespace gemmkit::dgemm

// sgemm.12_async_* — cp.async multi-stage pipeline: slabs land in shared memory kStages-1 ahead.
//
// Changed from 11: global loads no longer pass through registers. Each thread issues
// cp.async copies straight into a ring of kStages shared buffers, kStages-1 slabs ahead of
// the one being computed, and waits for a slab with cp.async.wait_group before the barrier
// that publishes it. Operands contiguous along mn (A with op N, B with op T) copy 16 bytes at
// a time; operands contiguous along k copy 4 bytes at a time, each landing transposed in its
// k-major row, so the fragment reads stay conflict-free LDS.128s for every op combination.
// Those 4-byte copies of B go out in two bursts in the BK-16 configurations (AsyncCfg).
// Bottleneck it removes: with one slab of register prefetch and 8 warps per SM, a slab's
// FMAs (~2000 cycles per scheduler) barely cover a DRAM round trip; now 2-3 slabs are in
// flight, and no registers or STS instructions are spent on staging.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-12 (the edge-free loops: its lab notes).
#pragma once

#include <type_traits>

#include "kernels/sgemm/11_tuned.cuh"
#include "ptx/cp_async.cuh"

namespace gemmkit::sgemm {

// TunedCfg plus the depth of the shared-memory ring, and the bursts a slab's copies are
// issued in when B is contiguous along k (op N, copied 4 bytes at a time). In one burst, a
// thread's 12 LDGSTS (8 of them 4-byte) fill the LSU queue (lg_throttle stalls); two bursts
// help BK-16 NN, while BK 8, 64x64 and operands along mn (NT, TT) keep one, and more bursts
// lose everywhere (each repeats the address arithmetic). Measured: docs/ladder/fp32.md#lab-h100.
template <int BM_, int BN_, int BK_, int QM_, int QN_, int kLanesM_, int kMinBlocks_, int kStages_, int kBurstsBN_ = 1, bool kWholeLoop_ = false>
struct AsyncCfg : TunedCfg<BM_, BN_, BK_, QM_, QN_, kLanesM_, kMinBlocks_> {
    using Base = TunedCfg<BM_, BN_, BK_, QM_, QN_, kLanesM_, kMinBlocks_>;
    static constexpr int kStages = kStages_;
    static constexpr int kBurstsBN = kBurstsBN_;
    static constexpr bool kWholeLoop = kWholeLoop_;  // NN with whole slabs: one edge-free loop (async_multistage_tile)
    static_assert(kBurstsBN >= 1 && kBurstsBN <= BK_, "a burst after each of the first k steps at most");
    static_assert(BK_ % 2 == 0, "fragment buffers alternate: each slab starts on buffer 0");
    static constexpr int kSmemBytes = kStages * BK_ * (Base::SA + Base::SB) * 4;
    static_assert(kStages >= 2, "a ring needs one buffer to compute and one to fill");
};

// One operand's share of a slab copy, per thread, into s[p * kStride + mn] (k-major).
// kMnContiguous with kVec: groups of 4 along mn, one 16-byte copy each (4-byte copies for a
// group across the edge). Operands along k: single elements, consecutive threads along k
// (coalesced), 4-byte copies. Unaligned operands along mn: with kElementCopies, single elements
// as well, consecutive threads taking consecutive addresses (a warp's copy reads 128 contiguous
// bytes); otherwise a group of 4 a thread in four 4-byte copies (each warp-wide copy spread over
// 512 bytes). A takes elements, and B takes them when BN is 64 or less: with BN 128 they lost
// (docs/ladder/fp32.md#lab-h100, docs/ladder/fp32.md#lab-tuning-per-op).
// Addresses are computed once; advance() moves to the next slab.
template <int BK, int BMN, int kThreads, bool kMnContiguous, bool kVec, bool kElementCopies = false>
struct AsyncSlabCopy {
    static constexpr int kUnit = kMnContiguous && (kVec || !kElementCopies) ? 4 : 1;  // elements a copy unit covers
    static constexpr int kPerLine = (kMnContiguous ? BMN : BK) / kUnit;  // copy units along a line
    static constexpr int kCopies = BK * BMN / kUnit / kThreads;
    static constexpr int kLineStep = kThreads / kPerLine;                // lines between a thread's copies
    static_assert(kThreads % kPerLine == 0 && BK * BMN % (kThreads * kUnit) == 0,
                  "copies split evenly, each thread keeping one offset along the line");

    const float* origin;   // a valid address for zero-fill copies (nothing is read from it)
    const float* base;     // this thread's first copy at the current slab
    int64_t copy_stride;   // elements between this thread's copies
    int c0, o0;            // offset along the contiguous line (units of elements), first line

    __device__ __forceinline__ AsyncSlabCopy(const float* x, int64_t ld) : origin(x) {
        c0 = threadIdx.x % kPerLine * kUnit;
        o0 = threadIdx.x / kPerLine;
        base = x + c0 + o0 * ld;
        copy_stride = kLineStep * ld;
    }

    // Elements from a copy of one slab to the same copy of the next.
    __device__ __forceinline__ static int64_t slab_step(int64_t ld) { return kMnContiguous ? BK * ld : BK; }
    __device__ __forceinline__ void advance(int64_t ld) { base += slab_step(ld); }
    // advance() while `more`; else the next copies read this slab again (valid addresses).
    __device__ __forceinline__ void advance_if(int64_t ld, bool more) { base += more ? slab_step(ld) : 0; }

    // Copies first .. first + count - 1 of this thread's share of the slab into stage s
    // (constants where the caller's loops unroll).
    // kChecked: zero-fill what lies outside mn_count x k_count (counts from the slab origin).
    template <int kStride, bool kChecked>
    __device__ __forceinline__ void issue(float* s, int mn_count, int k_count, int first, int count) const {
#pragma unroll
        for (int it = 0; it < kCopies; ++it) {
            if (it < first || it >= first + count) continue;
            const float* src = base + it * copy_stride;
            const int o = o0 + it * kLineStep;  // line: k when kMnContiguous, mn otherwise
            if (kMnContiguous) {
                float* dst = s + o * kStride + c0;
                const bool line_ok = !kChecked || o < k_count;
                if (kVec && (!kChecked || (line_ok && c0 + 4 <= mn_count))) {
                    ptx::cp_async_16(dst, line_ok ? src : origin, line_ok);
                } else {
#pragma unroll
                    for (int q = 0; q < kUnit; ++q) {
                        const bool ok = line_ok && (!kChecked || c0 + q < mn_count);
                        ptx::cp_async_4(dst + q, ok ? src + q : origin, ok);
                    }
                }
            } else {
                const bool ok = !kChecked || (c0 < k_count && o < mn_count);
                ptx::cp_async_4(s + c0 * kStride + o, ok ? src : origin, ok);
            }
        }
    }
};

// The block's tile of C at (blockIdx.x, blockIdx.y): C = alpha * op(A) op(B) + beta * C over
// all of g.k. (Step 13 runs it on a k range of a larger problem.)
template <class Cfg, bool kTransA, bool kTransB, bool kVec>
__device__ __forceinline__ void async_multistage_tile(const GemmArgs<float>& g) {
    constexpr int S = Cfg::kStages, kSlabA = Cfg::BK * Cfg::SA, kSlabB = Cfg::BK * Cfg::SB;
    extern __shared__ float4 smem[];
    float* sA = reinterpret_cast<float*>(smem);  // [S][BK][SA]: [stage][p][i]
    float* sB = sA + S * kSlabA;                 // [S][BK][SB]: [stage][p][j]

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    AsyncSlabCopy<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec, true> copyA(g.A + op_offset<kTransA>(i0, 0, g.lda), g.lda);
    AsyncSlabCopy<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec, (Cfg::BN <= 64)> copyB(g.B + op_offset<kTransB>(0, j0, g.ldb),
                                                                                      g.ldb);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;
    const int ti = warp % Cfg::kWarpsM * Cfg::WM + lane % Cfg::kLanesM * 4;
    const int tj = warp / Cfg::kWarpsM * Cfg::WN + lane / Cfg::kLanesM * 4;

    const int slabs = (g.k + Cfg::BK - 1) / Cfg::BK;
    const bool inside_mn = i0 + Cfg::BM <= g.m && j0 + Cfg::BN <= g.n;
    // A slab's copies go out in kBursts bursts, after the first kBursts k steps (AsyncCfg).
    constexpr int kBursts = kTransB ? 1 : Cfg::kBurstsBN;
    constexpr int kBurstA = (decltype(copyA)::kCopies + kBursts - 1) / kBursts;
    constexpr int kBurstB = (decltype(copyB)::kCopies + kBursts - 1) / kBursts;
    int issued = 0;  // slabs whose copies have been issued
    // Issues burst `burst` of the next slab's copies into its ring slot. The last burst closes
    // a group even when there is nothing left to copy, so "at most S-2 groups pending" always
    // means "slab t landed".
    // With kEdgeFreeLoop, the main loop runs in two copies: while the refill (slab t + S - 1)
    // lies wholly inside A and B (below full_end), without the copies' edge path, which ptxas
    // otherwise if-converts into every slab (256x128x16_s3: 1414 instructions a slab of 1024
    // FFMAs against 1170); then the rest. Only NN with 16-byte copies takes it, over 256 slabs
    // or more: the other ops, unaligned shapes, split-K's short k ranges and NN at k = 1024 lost
    // with it (docs/ladder/fp32.md#lab-edge-free-loop).
    // Configurations with kWholeLoop run every slab in the first copy when every slab is whole
    // (k a multiple of BK): the refills past the last slab copy the last slab again (valid
    // addresses, into a slot no one reads), as a branch around them would split the unrolled
    // body. It wins for 256x128x16 and 128x128x16 NN; other ops and 64x128 do not take it
    // (docs/ladder/fp32.md#lab-tuning-per-op, step 4).
    constexpr bool kEdgeFreeLoop = !kTransA && !kTransB && kVec;
    constexpr int kMinEdgeFreeSlabs = 256;
    const bool whole = Cfg::kWholeLoop && kEdgeFreeLoop && inside_mn && g.k % Cfg::BK == 0;
    const int full_end = kEdgeFreeLoop && inside_mn && (whole || slabs >= kMinEdgeFreeSlabs) ? g.k / Cfg::BK : 0;
    const int first_end = whole ? slabs : full_end - (S - 1);  // slabs the first copy computes
    // known_full (std::true_type): the caller knows the slab lies below full_end (or, in a whole
    // loop, past the last slab), and the edge path is compiled out.
    auto issue_next_slab = [&](int burst, auto known_full) {
        constexpr bool kFull = decltype(known_full)::value;
        if (kFull || issued < slabs) {
            const int stage = issued % S, p0 = issued * Cfg::BK;
            float* a = sA + stage * kSlabA;
            float* b = sB + stage * kSlabB;
            if (kFull || (inside_mn && p0 + Cfg::BK <= g.k)) {
                copyA.template issue<Cfg::SA, false>(a, 0, 0, burst * kBurstA, kBurstA);
                copyB.template issue<Cfg::SB, false>(b, 0, 0, burst * kBurstB, kBurstB);
            } else {
                copyA.template issue<Cfg::SA, true>(a, g.m - i0, g.k - p0, burst * kBurstA, kBurstA);
                copyB.template issue<Cfg::SB, true>(b, g.n - j0, g.k - p0, burst * kBurstB, kBurstB);
            }
            if (burst == kBursts - 1) {
                if constexpr (Cfg::kWholeLoop && kEdgeFreeLoop) {
                    // A whole loop's refills past the last slab read the last slab again: the
                    // copies stop there (from the prologue on, which may reach it first).
                    const bool more = issued + 1 < slabs;
                    copyA.advance_if(g.lda, more);
                    copyB.advance_if(g.ldb, more);
                } else {
                    copyA.advance(g.lda);
                    copyB.advance(g.ldb);
                }
                ++issued;
            }
        }
        if (burst == kBursts - 1) ptx::cp_async_commit();
    };

    float rA[2][Cfg::TM], rB[2][Cfg::TN];
    auto load_fragments = [&](int frag, const float* a, const float* b, int p) {
#pragma unroll
        for (int q = 0; q < Cfg::QM; ++q)
            *reinterpret_cast<float4*>(&rA[frag][4 * q]) = *reinterpret_cast<const float4*>(a + p * Cfg::SA + ti + q * kRowStep);
#pragma unroll
        for (int q = 0; q < Cfg::QN; ++q)
            *reinterpret_cast<float4*>(&rB[frag][4 * q]) = *reinterpret_cast<const float4*>(b + p * Cfg::SB + tj + q * kColStep);
    };

    float acc[Cfg::TM][Cfg::TN] = {};
#pragma unroll
    for (int s = 0; s < S - 1; ++s)
#pragma unroll
        for (int burst = 0; burst < kBursts; ++burst) issue_next_slab(burst, std::false_type{});
    auto compute_slab = [&](int t, auto refill_full) {
        ptx::cp_async_wait<S - 2>();  // this thread's copies of slab t have landed
        __syncthreads();              // everyone's have; and everyone is done with slab t-1's slot
        const float* a = sA + t % S * kSlabA;
        const float* b = sB + t % S * kSlabB;
        load_fragments(0, a, b, 0);
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, a, b, p + 1);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] += rA[p % 2][r] * rB[p % 2][c];
            // Refill slab t-1's slot (S-1 slabs ahead) once the first FMAs are issued, so the
            // copies' address arithmetic does not delay them (docs/ladder/fp32.md#lab-h200).
            if (p < kBursts) issue_next_slab(p, refill_full);
        }
    };
    int t = 0;
    if constexpr (kEdgeFreeLoop)
        for (; t < first_end; ++t) compute_slab(t, std::true_type{});
    for (; t < slabs; ++t) compute_slab(t, std::false_type{});
    ptx::cp_async_wait<0>();  // no copy may outlive the block (they are all empty by now)

    store_thread_tile<Cfg>(g, acc, i0 + ti, j0 + tj);
}

template <class Cfg, bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) async_multistage_kernel(GemmArgs<float> g) {
    select_batch<!kVec>(g);
    async_multistage_tile<Cfg, kTransA, kTransB, kVec>(g);
}

template <class Cfg>
cudaError_t launch_async_multistage(const Problem& p, cudaStream_t stream) {
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_ops_and_vec<float>(p, [&](auto ta, auto tb, auto vec) {
        return launch_with_smem(async_multistage_kernel<Cfg, decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>,
                                batch_grid(grid, p), Cfg::kThreads, Cfg::kSmemBytes, stream, make_args<float>(p));
    });
}

}  // namespace gemmkit::sgemm

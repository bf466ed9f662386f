// Step 04: a cp.async multi-stage pipeline feeding step 03's mma.sync + ldmatrix.
//
// What changed since step 03: K-slabs travel global -> shared with cp.async, which bypasses
// the registers and does not stall the issuing thread. A ring of kStages shared buffers keeps
// kStages - 1 slabs in flight while the warps compute on the oldest; one barrier per slab.
// Step 03 had one slab in flight, held in registers (which also cost 32 registers a thread).
//
// Bottleneck removed: global-memory latency that one slab of prefetch could not hide at
// tensor-core speed. Partial chunks at the matrix edge are copied with cp.async's src-size
// (the rest zero-filled), so edges cost nothing extra.
// Preconditions: none for correctness. Fast path (cp.async): A and B 16-byte aligned with lda,
// ldb multiples of 16 bytes. Other operands run step 03's register-staged kernel instead.
// Measured: docs/ladder/tensor-cores.md#step-04.
#pragma once

#include <type_traits>

#include "kernels/tensor/03_mma_ldmatrix.cuh"
#include "ptx/cp_async.cuh"

namespace gemmkit::tensor {

// PipelineCfg and Step04Cfg: pipeline_configs.hpp.

// Shared bytes of a configuration's ring (A and B slabs per stage).
template <class Cfg, class T>
__host__ __device__ constexpr int pipeline_smem_bytes() {
    return Cfg::kStages * (Cfg::BM + Cfg::BN) * Cfg::BK * static_cast<int>(sizeof(T));
}

// Which block tile of C a block computes. Step 04 walks tiles in launch order (m fastest);
// step 05 adds an L2-friendly order.
struct LaunchOrder {
    __device__ static int2 tile(int /*tiles_m*/, int /*tiles_n*/) { return make_int2(blockIdx.x, blockIdx.y); }
    static dim3 grid(int tiles_m, int tiles_n) { return dim3(tiles_m, tiles_n); }
};

// The global -> shared half of steps 04-05: the block tile's operands, each thread's copy
// plans, and the ring of kStages (A, B) stages in dynamic shared memory.
template <class Cfg, class T, bool kTransA, bool kTransB>
struct SlabRing {
    using SlabA = MmaSlab<T, Cfg::BM, Cfg::BK, !kTransA, false>;  // op N: A[m + k*lda], m contiguous
    using SlabB = MmaSlab<T, Cfg::BN, Cfg::BK, kTransB, true>;  // op T: B[n + k*ldb], n contiguous
    TileOperands<T, Cfg::BK, kTransA, kTransB> operands;
    typename SlabA::template CopyPlan<Cfg::kThreads> copyA;
    typename SlabB::template CopyPlan<Cfg::kThreads> copyB;
    uint32_t ringA, ringB;  // shared addresses of stage 0
    int k;

    // A and B of the block's problem of a strided batch (blockIdx.z): args is as it came.
    template <class TC>
    __device__ SlabRing(const GemmArgs<T, TC>& args, int m0, int n0, unsigned char* smem)
        : operands(args, m0, n0, blockIdx.z),
          copyA(args.lda),
          copyB(args.ldb),
          ringA(ptx::smem_addr(smem)),
          ringB(ptx::smem_addr(smem) + Cfg::kStages * SlabA::kBytes),
          k(args.k) {}

    // Slabs below this lie wholly inside A and B (their copies need no edge checks) when the
    // configuration runs an edge-free main loop; 0 otherwise.
    __device__ int full_end() const {
        const bool inside_mn = Cfg::kEdgeFreeLoop && operands.m_left >= Cfg::BM && operands.n_left >= Cfg::BN;
        return inside_mn ? k / Cfg::BK : 0;
    }

    __device__ uint32_t a_stage(int stage) const { return ringA + stage * SlabA::kBytes; }
    __device__ uint32_t b_stage(int stage) const { return ringB + stage * SlabB::kBytes; }

    // Starts the copy of slab s into ring stage `stage` (nothing past the last slab), then
    // closes the thread's cp.async group, so that "group s" always means "slab s".
    // known_full (std::true_type): the caller knows slab s lies wholly inside A and B, and
    // the edge checks are compiled out.
    template <class KnownFull = std::false_type>
    __device__ void issue(int s, int stage, KnownFull = {}) const {
        constexpr bool kFull = KnownFull::value;
        if (kFull || s < operands.slabs) {
            const int k_left = k - s * Cfg::BK;
            const int m_left = operands.m_left, n_left = operands.n_left;
            copyA.issue(a_stage(stage), operands.a_of(s), m_left, k_left,
                        kFull || (k_left >= Cfg::BK && m_left >= Cfg::BM));
            copyB.issue(b_stage(stage), operands.b_of(s), n_left, k_left,
                        kFull || (k_left >= Cfg::BK && n_left >= Cfg::BN));
        }
        ptx::cp_async_commit();
    }
};

// Where a block's tile of C starts (the Order's pick), and where this thread's warp tile starts in it.
template <class Cfg>
struct BlockPlace {
    int m0, n0, wm0, wn0;

    template <class Order, class Args>
    __device__ static BlockPlace of(const Args& args) {
        const int tiles_m = (args.m + Cfg::BM - 1) / Cfg::BM, tiles_n = (args.n + Cfg::BN - 1) / Cfg::BN;
        const int2 tile = Order::tile(tiles_m, tiles_n);
        const int warp = threadIdx.x / 32;
        return {tile.x * Cfg::BM, tile.y * Cfg::BN, (warp % Cfg::kWarpsM) * Cfg::WM, (warp / Cfg::kWarpsM) * Cfg::WN};
    }
};

template <class Cfg, class Order, class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(Cfg::kThreads) cp_async_pipeline_kernel(GemmArgs<T, TC> args) {
    extern __shared__ __align__(128) unsigned char smem[];
    // A batch's problem: A and B through the ring, C after the main loop (select_batch_c).
    const auto [m0, n0, wm0, wn0] = BlockPlace<Cfg>::template of<Order>(args);
    using Ring = SlabRing<Cfg, T, kTransA, kTransB>;
    const Ring ring(args, m0, n0, smem);
    const int slabs = ring.operands.slabs, full_end = ring.full_end();

    for (int s = 0; s < Cfg::kStages - 1; ++s) ring.issue(s, s);

    const typename Ring::SlabA::template Reader<Cfg::WM / 16> fragsA(wm0);
    const typename Ring::SlabB::template Reader<Cfg::WN / 16> fragsB(wn0);
    float acc[Cfg::MI][Cfg::NI][4] = {};
    int read_stage = 0, write_stage = Cfg::kStages - 1;
    auto step = [&](int s, auto refill_full) {
        // Slab s has landed (at most kStages - 2 newer groups still in flight) for this
        // thread; the barrier makes it so for all, and frees the stage of slab s - 1, which
        // every warp finished reading in the previous iteration.
        ptx::cp_async_wait<Cfg::kStages - 2>();
        __syncthreads();
        ring.issue(s + Cfg::kStages - 1, write_stage, refill_full);
        warp_mma_stage<Cfg, T>(acc, fragsA, fragsB, ring.a_stage(read_stage), ring.b_stage(read_stage));
        write_stage = read_stage;  // the stage just read is the next to refill
        read_stage = read_stage + 1 == Cfg::kStages ? 0 : read_stage + 1;
    };
    // With kEdgeFreeLoop, two copies of the main loop: one whose refills all lie inside, then
    // one for the last slabs. Without it, the second alone.
    int s = 0;
    if constexpr (Cfg::kEdgeFreeLoop)
        for (; s + Cfg::kStages - 1 < full_end; ++s) step(s, std::true_type{});
    for (; s < slabs; ++s) step(s, std::false_type{});
    ptx::cp_async_wait<0>();  // no copy may outlive the block (the tail groups are empty)
    select_batch_c(args);
    args.C = computed_once(args.C);  // not rebuilt at each store (docs/epilogues.md#c-once)
    store_accumulators<Cfg, TC, Ring::SlabA::kPermutedUnits, Ring::SlabB::kPermutedUnits>(
        acc, args, m0 + wm0, n0 + wn0);
}

template <class Cfg, class Order, class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(Cfg::kThreads) cross_slab_pipeline_kernel(GemmArgs<T, TC> args);  // 05_tuned.cuh

// The kernel of a configuration: step 04's main loop, or step 05's.
template <class Cfg, class Order, class T, class TC, bool kTransA, bool kTransB>
constexpr auto pipeline_kernel() {
    if constexpr (Cfg::kCrossSlabFragments)
        return cross_slab_pipeline_kernel<Cfg, Order, T, TC, kTransA, kTransB>;
    else
        return cp_async_pipeline_kernel<Cfg, Order, T, TC, kTransA, kTransB>;
}

// Launches the pipeline for any element type the kernel takes (FP16/BF16, or float = TF32).
// cp.async needs 16-byte aligned chunks; other operands go to step 03's register-staged kernel.
template <class Cfg, class Order, class T, class TC>
cudaError_t launch_pipeline_typed(const Problem& p, cudaStream_t stream) {
    if (!operands_chunk_aligned<T>(p)) return launch_mma_ldmatrix_typed<MmaLdmatrixCfg<T>, T, TC>(p, stream);
    constexpr int kSmem = pipeline_smem_bytes<Cfg, T>();
    const int tiles_m = static_cast<int>(ceil_div(p.m, Cfg::BM)), tiles_n = static_cast<int>(ceil_div(p.n, Cfg::BN));
    return with_ops(p, [&](auto ta, auto tb) {
        auto* kernel = pipeline_kernel<Cfg, Order, T, TC, decltype(ta)::value, decltype(tb)::value>();
        return launch_with_smem(kernel, batch_grid(Order::grid(tiles_m, tiles_n), p), Cfg::kThreads, kSmem, stream,
                                make_args<T, TC>(p));
    });
}

template <class Cfg, class Order = LaunchOrder>
cudaError_t launch_cp_async_pipeline(const Problem& p, cudaStream_t stream) {
    return with_half_types(p, [&](auto t, auto tc) {
        return launch_pipeline_typed<Cfg, Order, typename decltype(t)::type, typename decltype(tc)::type>(p, stream);
    });
}

}  // namespace gemmkit::tensor

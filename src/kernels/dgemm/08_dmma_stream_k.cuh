// dgemm.08_dmma_stream_k — step 07's kernel for the whole rounds of tiles, then the last
// round's tiles shared out along k (stream-K) among one block an SM.
//
// Changed from 07: with a block a tile, a problem whose tiles do not fill the machine's last
// round leaves SMs idle: 1024^3 is 64 tiles of 128 x 128 on 132 SMs, half the machine idle
// throughout; 4097^3 is 8 rounds and 33 tiles. Here the whole rounds' tiles run as step 07
// (the same kernel, on the first tiles), and then a second kernel of one block an SM takes the
// remaining tiles laid end to end as one run of K-slabs, cut into equal shares, one a block
// (Hopper step 12's arithmetic, hopper/stream_k.hpp, with a block for a cluster and a tile for
// a pair-tile). A tile's last piece writes it: it waits for the flags of the tile's earlier
// pieces, which left their FP64 sums in a workspace (128 KiB a block), and adds them in a fixed
// order (along step 12's binary tree, TileSumTree), so the result does not depend on timing.
// When it splits (stream_k_policy.hpp, with the measurements): a last round at most half busy
// after fewer than 16 whole rounds; a single round too short for shares of 8 slabs on every SM
// on fewer blocks. After many rounds step 07's blocks end at staggered times
// and a short last round fills the gaps for free.
// Preconditions: as step 07. The workspace (flags and 128 KiB a block, from the library's pool)
// is allocated and its flags zeroed on the stream before each launch; where no tile is split,
// or there is no memory for it, step 07 alone runs.
// Measured: docs/ladder/fp64.md#step-08.
// Resources: the shares' kernel holds 254-255 registers, no spills (the list of pieces lives in
// shared memory, and a piece's origin is read again after its slabs).
#pragma once

#include "kernels/dgemm/07_dmma.cuh"
#include "kernels/dgemm/stream_k_policy.hpp"
#include "kernels/hopper/stream_k.hpp"
#include "kernels/hopper/tile_sums.cuh"
#include "kernels/workspace.hpp"
#include "plan/plan.hpp"

namespace gemmkit::dgemm {

// What step 08 needs besides the GEMM's arguments.
struct DmmaStreamKArgs {
    int whole;                   // tiles 0 .. whole - 1 ran whole (step 07's kernel, launched first)
    int tiles_m;                 // tile t covers rows (t % tiles_m) * BM.. and columns (t / tiles_m) * BN..
    hopper::StreamKSplit split;  // the shares of tiles whole.. (its "pairs" are those tiles, its
                                 // "clusters" this kernel's blocks; it has no whole tiles)
    double2* partials;           // [share][kAccPairs][kThreads]: thread i's j-th pair of sums at [..][j][i]
    int* ready;                  // [share]: raised once that share's partial is written (zero at launch)
};

// Workspace bytes for `shares` shares: a flag a share (workspace_flag_bytes), then the sums.
template <class Cfg>
constexpr size_t dmma_stream_k_workspace_bytes(int shares) {
    return workspace_flag_bytes(shares) +
           static_cast<size_t>(shares) * Cfg::kThreads * Cfg::MI * Cfg::NI * 4 * sizeof(double);
}

// DmmaStreamKCfg, DmmaStreamKPlan and dmma_stream_k_plan: dmma_configs.hpp.

// The shares: block c runs its list of pieces (StreamKSplit, with whole tiles none).
template <class Cfg, bool kTransA, bool kTransB, bool kCopy8>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    dmma_stream_k_kernel(GemmArgs<double> args, const __grid_constant__ DmmaStreamKArgs sk) {
#if GEMMKIT_SM90_CODE
    constexpr int kAccPairs = Cfg::MI * Cfg::NI * 2;  // a thread's sums, two doubles at a time
    extern __shared__ __align__(128) double smem[];
    // The block's list of pieces, worked out once and read from shared memory at each piece
    // (held in registers beside the ring's state and the 128 of accumulators, it spilled).
    __shared__ hopper::StreamKSplit::List pieces;
    const int tid = threadIdx.x, share = blockIdx.x;
    if (tid == 0) pieces = sk.split.of(share, gridDim.x);
    const DmmaBlock<Cfg, kTransA, kTransB, kCopy8> block(args, smem);  // its __syncthreads() publishes pieces

    // Where piece u's tile lies. Worked out again after its slabs (pieces is re-read from shared
    // memory): held across the slab loop, these values spilled.
    auto origin_of = [&](const hopper::WorkUnit& w) {
        const int tile = sk.whole + w.pair;
        return int2{tile % sk.tiles_m * Cfg::BM, tile / sk.tiles_m * Cfg::BN};
    };
    int q = 0;  // the ring's slab count so far
    for (int u = 0; u < pieces.units(); ++u) {
        double acc[Cfg::MI][Cfg::NI][4] = {};
        {
            const hopper::WorkUnit w = pieces.unit(u);
            const int2 origin = origin_of(w);
            block.accumulate(acc, origin.x, origin.y, w.k_begin, w.k_end, q);
        }
        const hopper::WorkUnit w = pieces.unit(u);
        const int2 origin = origin_of(w);
        q += w.k_end - w.k_begin;

        // Earlier piece a of the tile ran on share w.earlier_from + a, its sums in that share's slot.
        const hopper::TileSumTree tree{share - w.earlier_from, sk.split.ends_tile(w)};
        if (!hopper::settle_tile_sums<Cfg::kThreads, 2 * kAccPairs>(
                tree, &acc[0][0][0], tid, [&](int a) { return w.earlier_from + a; }, share, sk.partials, sk.ready,
                [] { __syncthreads(); }))
            continue;  // an earlier piece: its sums (with those it added) are left for a later one
        block.store(acc, origin.x, origin.y);
    }
#else
    __trap();  // an image below sm_90 (ptx/arch.cuh): launch_dmma_stream_k never starts it
#endif
}

// Runs the plan's split (plan_dmma, src/plan/dgemm_rules.cu): where there is one, the whole
// rounds' tiles through step 07's kernel, then the shares, one a block an SM can hold at once,
// after taking their workspace from the pool and zeroing its flags, all on `stream`. Elsewhere
// (or without the memory) step 07 alone.
template <class Cfg>
cudaError_t launch_dmma_stream_k(const Problem& p, const SplitPlan& planned, cudaStream_t stream) {
    if (!sm90_code_loaded<dmma_stream_k_kernel<Cfg, false, false, false>>()) return launch_edge_fast(p, stream);
    const DmmaStreamKPlan plan = {static_cast<int>(ceil_div(p.m, Cfg::BM)), planned.tiles,
                                  static_cast<int>(planned.slabs), static_cast<int>(planned.workers),
                                  static_cast<int>(planned.pieces)};
    const int shares = plan.shares, split = plan.split;
    if (split == 0 || batched(p)) return launch_dmma<Cfg>(p, stream);  // plan_dmma splits no batch

    void* workspace = nullptr;
    const size_t flag_bytes = workspace_flag_bytes(shares);
    if (allocate_workspace(&workspace, dmma_stream_k_workspace_bytes<Cfg>(shares), stream) != cudaSuccess) {
        cudaGetLastError();  // no memory: whole tiles, which need none
        return launch_dmma<Cfg>(p, stream);
    }
    cudaError_t err = cudaMemsetAsync(workspace, 0, flag_bytes, stream);
    const int whole = static_cast<int>(plan.tiles - split);
    if (err == cudaSuccess && whole > 0) err = launch_dmma_tiles<Cfg>(p, stream, whole);
    if (err == cudaSuccess) {
        const DmmaStreamKArgs sk = {whole, plan.tiles_m, {split, plan.slabs, split},
                                    reinterpret_cast<double2*>(static_cast<char*>(workspace) + flag_bytes),
                                    static_cast<int*>(workspace)};
        err = with_ops_and_vec<double>(p, [&](auto ta, auto tb, auto vec) {
            constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value, kCopy8 = !decltype(vec)::value;
            return launch_with_smem(dmma_stream_k_kernel<Cfg, kTA, kTB, kCopy8>, dim3(shares), Cfg::kThreads,
                                    Cfg::kSmemBytes, stream, make_args<double>(p), sk);
        });
    }
    cudaFreeAsync(workspace, stream);  // after the GEMM, in stream order
    return err;
}

// Step 08's row: the plan's split of 128 x 128 tiles.
template <class Cfg>
cudaError_t launch_dmma_stream_k_plan(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return launch_dmma_stream_k<Cfg>(p, plan.split, stream);
}

}  // namespace gemmkit::dgemm

// Host side of the Hopper steps: tensor maps for op(A) and op(B), and one launch function
// that every step shares (types, ops, maps, grid, shared memory).
#pragma once

#include <map>
#include <mutex>
#include <tuple>

#include "device_state.hpp"
#include "kernels/hopper/08_stream_k.cuh"
#include "kernels/hopper/pad_copy.hpp"
#include "kernels/hopper/peeled_edges.hpp"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/tensor_map.hpp"
#include "kernels/tensor/05_tuned.cuh"

namespace gemmkit::hopper {

// The maps of A and B as stored (op N: A is m x k, B is k x n; op T the other way round),
// with the boxes their slabs load.
template <class SlabA, class SlabB>
cudaError_t encode_operand_maps(const Problem& p, CUtensorMap* map_a, CUtensorMap* map_b) {
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    cudaError_t err = encode_tensor_map(map_a, p.A, p.a_type, ta ? p.k : p.m, ta ? p.m : p.k, p.lda,
                                        SlabA::kBoxRows, SlabA::kBoxCols);
    if (err != cudaSuccess) return err;
    return encode_tensor_map(map_b, p.B, p.b_type, tb ? p.n : p.k, tb ? p.k : p.n, p.ldb, SlabB::kBoxRows,
                             SlabB::kBoxCols);
}

// Grids: one block per tile, or (persistent) as many blocks, or clusters, as can be resident
// at once. grid(p, kernel, smem_bytes) with the kernel about to be launched.
template <class Cfg>
struct TileGrid {
    static dim3 grid(const Problem& p, const void* /*kernel*/, int /*smem_bytes*/) {
        return dim3(static_cast<unsigned>(ceil_div(p.m, Cfg::BM)), static_cast<unsigned>(ceil_div(p.n, Cfg::BN)));
    }
};

template <class Cfg>
struct PersistentGrid {
    static dim3 grid(const Problem& p, const void* /*kernel*/, int /*smem_bytes*/) {
        const int64_t tiles = ceil_div(p.m, Cfg::BM) * ceil_div(p.n, Cfg::BN), sms = sm_count_or(132);
        return dim3(static_cast<unsigned>(tiles < sms ? tiles : sms));
    }
};

// A persistent grid should be resident all at once (clusters left waiting would start only when
// others finish, doubling the time), and the GPCs need not hold sm_count / kCluster clusters:
// the driver says how many fit. Its answer depends only on the device, the kernel and its shared
// memory, so it is asked once for each (the query costs microseconds, which at 2048^3 would be
// host time of the order of the kernel's own).
inline int max_active_clusters(const void* kernel, int threads, int smem_bytes, int64_t wanted) {
    static std::mutex mutex;
    static std::map<std::tuple<int, const void*, int>, int> known;  // (device, kernel, smem) -> clusters
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    const auto key = std::make_tuple(device, kernel, smem_bytes);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = known.find(key); it != known.end()) return it->second;
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(wanted));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    int fit = 0;
    if (opt_in_smem(kernel, smem_bytes) != cudaSuccess ||
        cudaOccupancyMaxActiveClusters(&fit, kernel, &config) != cudaSuccess) {
        cudaGetLastError();  // not an error of the next launch: that one reports its own
        return 0;
    }
    std::lock_guard<std::mutex> lock(mutex);
    known.emplace(key, fit);
    return fit;
}

// Whether pair-tiles of Cfg would leave at least half of the GPU's clusters idle on p.
template <class Cfg>
bool leaves_clusters_idle(const Problem& p) {
    return 2 * pair_tiles<Cfg>(p.m, p.n) <= sm_count_or(132) / Cfg::kCluster;
}

// Whether pair-tiles of MidCfg (narrower than Cfg's) serve p better than Cfg's, by stream-K's
// cost model (narrow_tiles_pay): 3072^3 FP16 has 144 pairs of 256 x 256 (two rounds and a split
// third on 66 clusters) and 192 of 256 x 192 (three rounds of slabs a quarter shorter).
template <class Cfg, class MidCfg>
bool mid_tiles_pay(const Problem& p) {
    const int64_t clusters = sm_count_or(132) / Cfg::kCluster;
    constexpr double kScale = static_cast<double>(MidCfg::BM) * MidCfg::BN / (Cfg::BM * Cfg::BN);
    static_assert(MidCfg::kCluster == Cfg::kCluster && MidCfg::BK == Cfg::BK, "the same clusters and slabs");
    return narrow_tiles_pay(pair_tiles<Cfg>(p.m, p.n), pair_tiles<MidCfg>(p.m, p.n), clusters, slab_count<Cfg>(p.k),
                            kScale, MidCfg::kSlabPenalty);
}

// Whether Step weighs its Small tiles against its own by their stream-K plans (kWeighSmall).
// (Read with if constexpr, not a nested requirement: nvcc counts only this as a use of the
// member, and warns of it as unreferenced otherwise.)
template <class Step>
constexpr bool weighs_small_tiles() {
    if constexpr (requires { Step::kWeighSmall; })
        return Step::kWeighSmall;
    else
        return false;
}

// Whether Step's Small tiles serve p, where Step's own leave half of the clusters idle: always,
// but for steps that weigh them (small_tiles_pay).
template <class Step>
bool small_tiles_serve(const Problem& p) {
    if constexpr (weighs_small_tiles<Step>()) {
        using Cfg = typename Step::Cfg;
        using SmallCfg = typename Step::Small::Cfg;
        static_assert(SmallCfg::BK == Cfg::BK, "the same slabs");
        const int64_t sms = sm_count_or(132);
        return small_tiles_pay(pair_tiles<Cfg>(p.m, p.n), sms / Cfg::kCluster, tile_scale<Cfg>(),
                               pair_tiles<SmallCfg>(p.m, p.n), sms / SmallCfg::kCluster, tile_scale<SmallCfg>(),
                               slab_count<Cfg>(p.k));
    }
    return true;
}

template <class Cfg>
struct ClusterGrid {
    // The clusters that fit the GPU at once: one CTA an SM, as many as can be co-resident.
    static int clusters(const void* kernel, int smem_bytes) {
        int clusters = sm_count_or(132) / Cfg::kCluster;
        const int fit = max_active_clusters(kernel, Cfg::kThreads, smem_bytes, clusters * Cfg::kCluster);
        return fit > 0 && fit < clusters ? fit : clusters;
    }
    static dim3 grid(const Problem& p, const void* kernel, int smem_bytes) {
        const int64_t pairs = pair_tiles<Cfg>(p.m, p.n), fit = clusters(kernel, smem_bytes);
        return dim3(static_cast<unsigned>((pairs < fit ? pairs : fit) * Cfg::kCluster));
    }
};

// Dynamic shared bytes of a step: the ring, plus step 6's staging for C (bytes do not depend
// on the ops).
template <class Step, class T>
constexpr int step_smem_bytes() {
    using Cfg = typename Step::Cfg;
    int staging = 0;
    if constexpr (requires { Cfg::kStagingBytes; }) staging = Cfg::kStagingBytes;
    return ring_smem_bytes<SlabOfA<T, Cfg, false>, typename Step::template SlabB<T, false>, Cfg::kStages>() + staging;
}

// launch(q) on p with the operands `copies` names first copied into aligned workspaces
// (pad_copy); fallback(p) where there is no memory for them. Where the copies can form C's last
// few rows or columns (peeled_edges.hpp), q is the rest of C and they are stored after it.
template <class Launch, class Fallback>
cudaError_t launch_padded(const Problem& p, OperandCopies copies, cudaStream_t stream, Launch&& launch,
                          Fallback&& fallback) {
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    const bool copies_a = copies.a, copies_b = copies.b;
    const EdgePeel peel = plan_edge_peel(p, copies_a, copies_b, sm_count_or(132));
    PeeledEdges edges;
    Problem q = p;
    PaddedOperand a, b;
    cudaError_t err = peel.any() ? edges.allocate(p, peel, stream) : cudaSuccess;
    if (err == cudaSuccess && copies_a) {
        err = peel.cols > 0 ? edges.copy_a(&a)
                            : pad_operand(p.A, p.lda, ta ? p.k : p.m, ta ? p.m : p.k,
                                          static_cast<int>(dtype_size(p.a_type)), stream, &a);
        q.A = a.data, q.lda = a.ld;
    }
    if (err == cudaSuccess && copies_b) {
        err = peel.rows > 0 ? edges.copy_b(&b)
                            : pad_operand(p.B, p.ldb, tb ? p.n : p.k, tb ? p.k : p.n,
                                          static_cast<int>(dtype_size(p.b_type)), stream, &b);
        q.B = b.data, q.ldb = b.ld;
    }
    q.m -= peel.rows, q.n -= peel.cols;
    if (err == cudaSuccess) err = launch(q);
    if (err == cudaSuccess && peel.any()) err = edges.store_strips();
    edges.release();
    for (void* ws : {a.data, b.data})
        if (ws != nullptr) cudaFreeAsync(ws, stream);  // after the GEMM, in stream order
    if (err == cudaErrorMemoryAllocation) return fallback(p);
    return err;
}

// direct(p), with the operands operand_copies names (those TMA cannot read, and an A it reads
// slowly) copied first. Without memory for the copies: fallback(p) where TMA cannot read an
// operand, else direct(p) on the operands as they are.
template <class Launch, class Fallback>
cudaError_t launch_with_copies(const Problem& p, cudaStream_t stream, Launch&& direct, Fallback&& fallback) {
    const OperandCopies copies = operand_copies(p);
    if (!copies.any()) return direct(p);
    if (tma_reads_operands(p)) return launch_padded(p, copies, stream, direct, direct);
    return launch_padded(p, copies, stream, direct, fallback);
}

// Whether the image the driver loaded for the current device holds the Hopper kernels' real
// code, not the traps a build without sm_90a leaves (ptx/arch.cuh). Read once a device
// (registry.cu, which holds the kernels).
bool hopper_code_loaded();

// Whether Step runs step 8's schedule (its kernel then takes StreamKArgs), as weighs_small_tiles.
template <class Step>
constexpr bool is_stream_k_step() {
    if constexpr (requires { Step::kStreamK; })
        return Step::kStreamK;
    else
        return false;
}

// Step's kernel for element type T, C of TC and these ops, on p (which TMA can read). A step
// with Narrow (step 10) runs that step where C has no more columns than its tiles and B is K-major
// (op N), and one with Columns that step where C has no more columns than its tiles and they fill
// half of the SMs (column_tiles_pay); one with Deep (step 10's 64 x 64 tiles) runs that step where
// a single partial round of long tiles streams its operands (deep_ring_pays); one with Small runs
// that step instead where its own pair-tiles would leave half of the clusters idle (and
// small_tiles_serve), and one with Mid runs that where Mid's tiles finish sooner (mid_tiles_pay).
template <class Step, class T, class TC, bool kTransA, bool kTransB>
cudaError_t launch_step_kernel(const Problem& p, cudaStream_t stream) {
    if constexpr (requires { typename Step::Narrow; })
        if constexpr (!kTransB)  // a 16-wide B slab is K-major only
            if (p.n <= Step::Narrow::Cfg::BN)
                return launch_step_kernel<typename Step::Narrow, T, TC, kTransA, kTransB>(p, stream);
    if constexpr (requires { typename Step::Columns; })
        if (p.n <= Step::Columns::Cfg::BN &&
            column_tiles_pay(pair_tiles<typename Step::Columns::Cfg>(p.m, p.n), sm_count_or(132)))
            return launch_step_kernel<typename Step::Columns, T, TC, kTransA, kTransB>(p, stream);
    if constexpr (requires { typename Step::Deep; })
        if (deep_ring_pays(pair_tiles<typename Step::Cfg>(p.m, p.n), sm_count_or(132),
                           slab_count<typename Step::Cfg>(p.k)))
            return launch_step_kernel<typename Step::Deep, T, TC, kTransA, kTransB>(p, stream);
    if constexpr (requires { typename Step::Small; })
        if (leaves_clusters_idle<typename Step::Cfg>(p) && small_tiles_serve<Step>(p))
            return launch_step_kernel<typename Step::Small, T, TC, kTransA, kTransB>(p, stream);
    if constexpr (requires { typename Step::Mid; })
        if (mid_tiles_pay<typename Step::Cfg, typename Step::Mid::Cfg>(p))
            return launch_step_kernel<typename Step::Mid, T, TC, kTransA, kTransB>(p, stream);
    using Cfg = typename Step::Cfg;
    using SlabA = SharedSlabOfA<T, Cfg, kTransA>;
    using SlabB = typename Step::template SlabB<T, kTransB>;
    CUtensorMap map_a, map_b;
    cudaError_t err = encode_operand_maps<SlabA, SlabB>(p, &map_a, &map_b);
    if (err != cudaSuccess) return err;
    constexpr auto kernel = Step::template kernel<T, TC, kTransA, kTransB>();
    constexpr int smem = step_smem_bytes<Step, T>();
    const void* const kernel_ptr = reinterpret_cast<const void*>(kernel);
    OutputArgs<TC> out = make_output_args<TC>(p);
    if constexpr (!Step::kTmaStore) {
        return launch_with_smem(kernel, Step::grid(p, kernel_ptr, smem), Cfg::kThreads, smem, stream, map_a, map_b, out);
    } else {
        CUtensorMap map_c = {};  // unused (zeros) when the register epilogue runs
        out.tma_store =
            tma_writes_c(p) && encode_tensor_map(&map_c, p.C, p.c_type, p.m, p.n, p.ldc, c_box_rows(sizeof(TC)),
                                                 c_box_cols(sizeof(TC))) == cudaSuccess;
        if constexpr (!is_stream_k_step<Step>()) {
            return launch_with_smem(kernel, Step::grid(p, kernel_ptr, smem), Cfg::kThreads, smem, stream, map_a, map_b,
                                    map_c, out);
        } else {
            const int clusters = Step::clusters(kernel_ptr, smem);
            auto whole = Step::Whole::template kernel<T, TC, kTransA, kTransB>();
            if constexpr (requires { typename Step::OneRound; })  // step 9
                if (pair_tiles<Cfg>(p.m, p.n) <= clusters) whole = Step::OneRound::template kernel<T, TC, kTransA, kTransB>();
            return launch_stream_k<Cfg>(kernel, whole, clusters, smem, p, stream, map_a, map_b, map_c, out);
        }
    }
}

// Launches Step (Cfg, grid(), SlabB, kTmaStore, kPadsUnaligned, `kernel<T, TC, kTransA, kTransB>`
// and, for steps 8 and 9, kStreamK and Whole, the step it runs where nothing is split, and for
// step 9 OneRound, what runs where the grid holds every tile at once; for step 10 Small, the step
// problems of few pair-tiles run instead, launch_step_kernel) on p.
// Operands TMA cannot read are copied first (steps with kPadsUnaligned; the others, and those
// without memory for the copies, run the mma.sync pipeline), and so is an A it reads slowly
// (copies_pay_for_a; without the memory, on A as it is).
template <class Step>
cudaError_t launch_hopper_step(const Problem& p, cudaStream_t stream) {
    auto pipeline = [&](const Problem& q) { return tensor::launch_tuned(q, stream); };
    if (!hopper_code_loaded()) return pipeline(p);
    auto direct = [&](const Problem& q) {
        return tensor::with_half_types(q, [&](auto t, auto tc) {
            using T = typename decltype(t)::type;
            using TC = typename decltype(tc)::type;
            return with_ops(q, [&](auto ta, auto tb) {
                return launch_step_kernel<Step, T, TC, decltype(ta)::value, decltype(tb)::value>(q, stream);
            });
        });
    };
    if constexpr (Step::kPadsUnaligned)
        return launch_with_copies(p, stream, direct, pipeline);
    else
        return tma_reads_operands(p) ? direct(p) : pipeline(p);
}

}  // namespace gemmkit::hopper

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
#include "plan/configs.hpp"
#include "plan/plan.hpp"

namespace gemmkit::hopper {

// The maps of A and B as stored (op N: A is m x k, B is k x n; op T the other way round),
// with the boxes their slabs load; of a batch's matrices where p is a batch.
template <class SlabA, class SlabB>
cudaError_t encode_operand_maps(const Problem& p, CUtensorMap* map_a, CUtensorMap* map_b) {
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    const Batch& b = p.batch;
    cudaError_t err = encode_tensor_map(map_a, p.A, p.a_type, ta ? p.k : p.m, ta ? p.m : p.k, p.lda,
                                        SlabA::kBoxRows, SlabA::kBoxCols, b.count, b.stride_a);
    if (err != cudaSuccess) return err;
    return encode_tensor_map(map_b, p.B, p.b_type, tb ? p.n : p.k, tb ? p.k : p.n, p.ldb, SlabB::kBoxRows,
                             SlabB::kBoxCols, b.count, b.stride_b);
}

// Grids: one block per tile, or (persistent) as many blocks, or clusters, as can be resident
// at once on `sms` SMs. grid(p, kernel, smem_bytes, sms) with the kernel about to be launched.
template <class Cfg>
struct TileGrid {
    static dim3 grid(const Problem& p, const void* /*kernel*/, int /*smem_bytes*/, int /*sms*/) {
        return dim3(static_cast<unsigned>(ceil_div(p.m, Cfg::BM)), static_cast<unsigned>(ceil_div(p.n, Cfg::BN)));
    }
};

template <class Cfg>
struct PersistentGrid {
    static dim3 grid(const Problem& p, const void* /*kernel*/, int /*smem_bytes*/, int sms) {
        const int64_t tiles = int64_t{ceil_div(p.m, Cfg::BM)} * ceil_div(p.n, Cfg::BN);
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

template <class Cfg>
struct ClusterGrid {
    // The clusters that fit the GPU at once: one CTA an SM, as many as can be co-resident.
    static int clusters(const void* kernel, int smem_bytes, int sms) {
        int clusters = sms / Cfg::kCluster;
        const int fit = max_active_clusters(kernel, Cfg::kThreads, smem_bytes, clusters * Cfg::kCluster);
        return fit > 0 && fit < clusters ? fit : clusters;
    }
    static dim3 grid(const Problem& p, const void* kernel, int smem_bytes, int sms) {
        const int64_t pairs = batch_pair_tiles<Cfg>(p.m, p.n, p.batch.count), fit = clusters(kernel, smem_bytes, sms);
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

// launch(q) on p with the operands the plan copies first copied into aligned workspaces
// (pad_copy), and C's last rows or columns it peels formed by those copies (peeled_edges.hpp),
// q being the rest of C; fallback(p) where there is no memory for them.
template <class Launch, class Fallback>
cudaError_t launch_padded(const Problem& p, const Plan& plan, cudaStream_t stream, Launch&& launch,
                          Fallback&& fallback) {
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    const EdgePeel peel{plan.peel_rows, plan.peel_cols};
    PeeledEdges edges;
    Problem q = p;
    PaddedOperand a, b;
    cudaError_t err = peel.any() ? edges.allocate(p, peel, plan.sm_count, stream) : cudaSuccess;
    if (err == cudaSuccess && plan.copy_a) {
        err = peel.cols > 0 ? edges.copy_a(&a)
                            : pad_operand(p.A, p.lda, ta ? p.k : p.m, ta ? p.m : p.k,
                                          static_cast<int>(dtype_size(p.a_type)), stream, &a);
        q.A = a.data, q.lda = a.ld;
    }
    if (err == cudaSuccess && plan.copy_b) {
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

// direct(p), with the operands the plan copies copied first. Without memory for the copies:
// fallback(p) where TMA cannot read an operand, else direct(p) on the operands as they are.
template <class Launch, class Fallback>
cudaError_t launch_with_copies(const Problem& p, const Plan& plan, cudaStream_t stream, Launch&& direct,
                               Fallback&& fallback) {
    if (!plan.copy_a && !plan.copy_b) return direct(p);
    if (tma_reads_operands(p)) return launch_padded(p, plan, stream, direct, direct);
    return launch_padded(p, plan, stream, direct, fallback);
}

// Whether the image the driver loaded for the current device holds the Hopper kernels' real
// code, not the traps a build without sm_90a leaves (ptx/arch.cuh). Read once a device
// (registry.cu, one of the files that hold the kernels).
bool hopper_code_loaded();

// Whether Step runs step 8's schedule (its kernel then takes StreamKArgs).
template <class Step>
constexpr bool is_stream_k_step() {
    if constexpr (requires { Step::kStreamK; })
        return Step::kStreamK;
    else
        return false;
}

// Step's kernel for element type T, C of TC and these ops, on p (which TMA can read), as the
// plan says: its epilogue, and for steps 12-14 its stream-K split. Steps with Tiles (step 14,
// tf32 09) run the configuration the plan names (HopperTiles) instead of their own.
template <class Step, class T, class TC, bool kTransA, bool kTransB>
cudaError_t launch_step_kernel(const Problem& p, const Plan& plan, cudaStream_t stream) {
    if constexpr (requires { typename Step::Tiles; }) {
        using Tiles = typename Step::Tiles;
        switch (static_cast<HopperTiles>(plan.config)) {
            case HopperTiles::kNarrow64x16:
                if constexpr (!kTransB)  // a 16-wide B slab is K-major only
                    return launch_step_kernel<typename Tiles::Narrow, T, TC, kTransA, kTransB>(p, plan, stream);
                else
                    return cudaErrorInvalidValue;  // plan_hopper_step gives 64x16 tiles only to B of op N
            case HopperTiles::kMicro64:
                return launch_step_kernel<typename Tiles::Micro, T, TC, kTransA, kTransB>(p, plan, stream);
            case HopperTiles::kMicro64Deep:
                return launch_step_kernel<typename Tiles::MicroDeep, T, TC, kTransA, kTransB>(p, plan, stream);
            case HopperTiles::kTiny128x64:
                return launch_step_kernel<typename Tiles::Tiny, T, TC, kTransA, kTransB>(p, plan, stream);
            case HopperTiles::kSmall128:
                return launch_step_kernel<typename Tiles::Small, T, TC, kTransA, kTransB>(p, plan, stream);
            case HopperTiles::kMid128x192:
                return launch_step_kernel<typename Tiles::Mid, T, TC, kTransA, kTransB>(p, plan, stream);
            default: break;  // kStep: the step's own tiles, below
        }
    }
    using Cfg = typename Step::Cfg;
    using SlabA = SharedSlabOfA<T, Cfg, kTransA>;
    using SlabB = typename Step::template SlabB<T, kTransB>;
    CUtensorMap map_a, map_b;
    cudaError_t err = encode_operand_maps<SlabA, SlabB>(p, &map_a, &map_b);
    if (err != cudaSuccess) return err;
    constexpr auto kernel = Step::template kernel<T, TC, kTransA, kTransB>();
    constexpr int smem = step_smem_bytes<Step, T>();
    const void* const kernel_ptr = reinterpret_cast<const void*>(kernel);
    const int sms = plan.sm_count;
    OutputArgs<TC> out = make_output_args<TC>(p);
    if constexpr (!Step::kTmaStore) {
        return launch_with_smem(kernel, Step::grid(p, kernel_ptr, smem, sms), Cfg::kThreads, smem, stream, map_a,
                                map_b, out);
    } else {
        CUtensorMap map_c = {};  // unused (zeros) when the register epilogue runs
        out.tma_store = plan.epilogue == EpiloguePath::kTmaStore &&
                        encode_tensor_map(&map_c, p.C, p.c_type, p.m, p.n, p.ldc, c_box_rows(sizeof(TC)),
                                          c_box_cols(sizeof(TC)), p.batch.count, p.batch.stride_c) == cudaSuccess;
        out.staged_store = plan.epilogue == EpiloguePath::kStaged;
        if constexpr (!is_stream_k_step<Step>()) {
            return launch_with_smem(kernel, Step::grid(p, kernel_ptr, smem, sms), Cfg::kThreads, smem, stream, map_a,
                                    map_b, map_c, out);
        } else {
            const int clusters = Step::clusters(kernel_ptr, smem, sms);
            auto whole = Step::Whole::template kernel<T, TC, kTransA, kTransB>();
            if constexpr (requires { typename Step::OneRound; })  // step 13
                if (!plan.deferred_epilogue) whole = Step::OneRound::template kernel<T, TC, kTransA, kTransB>();
            return launch_stream_k<Cfg>(kernel, whole, clusters, sms / Cfg::kCluster, smem, p, plan.split, stream,
                                        map_a, map_b, map_c, out);
        }
    }
}

// Step's kernel for element type T and C of TC, every op: a function a type pair, so that a file
// can compile some pairs' kernels apart (the `extern template`s of registry_steps.cuh).
template <class Step, class T, class TC>
cudaError_t launch_step_typed(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return with_ops(p, [&](auto ta, auto tb) {
        return launch_step_kernel<Step, T, TC, decltype(ta)::value, decltype(tb)::value>(p, plan, stream);
    });
}

// tensor::launch_tuned (the mma.sync pipeline, step 05) on p with these tiles: what the Hopper
// steps fall back to. Defined in registry.cu, so that the files of the f16 and bf16 steps need not
// compile step 05's 64 kernels.
cudaError_t launch_pipeline_fallback(const Problem& p, PipelineTiles tiles, cudaStream_t stream);

// Launches Step (Cfg, grid(), SlabB, kTmaStore, kPadsUnaligned, `kernel<T, TC, kTransA, kTransB>`
// and, for steps 12 and 13, kStreamK and Whole, the step it runs where nothing is split, and for
// step 13 OneRound, what runs where the grid holds every tile at once; for step 14 Tiles, the
// steps of the configurations the plan may name) on p as `plan` says (plan_hopper_step,
// src/plan/hopper_rules.cu): the mma.sync pipeline where it says so, or where there is no memory
// for the copies of operands TMA cannot read; else the copies it names first, then Step.
template <class Step>
cudaError_t launch_hopper_step(const Problem& p, const Plan& plan, cudaStream_t stream) {
    const auto fallback_tiles = static_cast<PipelineTiles>(plan.fallback_config);
    auto pipeline = [&](const Problem& q) { return launch_pipeline_fallback(q, fallback_tiles, stream); };
    if (static_cast<HopperTiles>(plan.config) == HopperTiles::kPipeline) return pipeline(p);
    auto direct = [&](const Problem& q) {
        return tensor::with_half_types(q, [&](auto t, auto tc) {
            return launch_step_typed<Step, typename decltype(t)::type, typename decltype(tc)::type>(q, plan, stream);
        });
    };
    return launch_with_copies(p, plan, stream, direct, pipeline);
}

}  // namespace gemmkit::hopper

// Host side of the Hopper steps: tensor maps for op(A) and op(B), and one launch function
// that every step shares (types, ops, maps, grid, shared memory).
#pragma once

#include "device_state.hpp"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/tensor_map.hpp"
#include "kernels/tensor/05_tuned.cuh"

namespace gemmkit::hopper {

// Whether TMA can read A and B (16-byte aligned, lda and ldb multiples of 16 bytes).
inline bool tma_ready(const Problem& p) {
    return tma_addressable(p.A, p.lda, p.a_type) && tma_addressable(p.B, p.ldb, p.b_type);
}

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

// Grids: one block per tile, or (persistent) at most one block per SM.
template <class Cfg>
struct TileGrid {
    static dim3 grid(const Problem& p) {
        return dim3(static_cast<unsigned>(ceil_div(p.m, Cfg::BM)), static_cast<unsigned>(ceil_div(p.n, Cfg::BN)));
    }
};
template <class Cfg>
struct PersistentGrid {
    static dim3 grid(const Problem& p) {
        DeviceState dev;
        const int64_t tiles = ceil_div(p.m, Cfg::BM) * ceil_div(p.n, Cfg::BN);
        const int64_t sms = current_device(&dev) == GEMMKIT_SUCCESS && dev.sm_count > 0 ? dev.sm_count : 132;
        return dim3(static_cast<unsigned>(tiles < sms ? tiles : sms));
    }
};

// What TMA cannot read runs the mma.sync pipeline (step 05), itself correct for any operand.
using FallbackCfg = tensor::PipelineCfg<128, 128, 32, 64, 64, 4>;

// Launches Step (Cfg, Grid, and `kernel<T, TC, kTransA, kTransB>`) on p.
template <class Step>
cudaError_t launch_hopper_step(const Problem& p, cudaStream_t stream) {
    if (!tma_ready(p)) return tensor::launch_cp_async_pipeline<FallbackCfg, tensor::TunedOrder>(p, stream);
    using Cfg = typename Step::Cfg;
    return tensor::with_half_types(p, [&](auto t, auto tc) {
        using T = typename decltype(t)::type;
        using TC = typename decltype(tc)::type;
        return with_ops(p, [&](auto ta, auto tb) {
            constexpr bool kTransA = decltype(ta)::value, kTransB = decltype(tb)::value;
            using SlabA = SlabOfA<T, Cfg, kTransA>;
            using SlabB = SlabOfB<T, Cfg, kTransB>;
            CUtensorMap map_a, map_b;
            const cudaError_t err = encode_operand_maps<SlabA, SlabB>(p, &map_a, &map_b);
            if (err != cudaSuccess) return err;
            return launch_with_smem(Step::template kernel<T, TC, kTransA, kTransB>(), Step::grid(p), Cfg::kThreads,
                                    ring_smem_bytes<SlabA, SlabB, Cfg::kStages>(), stream, map_a, map_b,
                                    make_output_args<TC>(p));
        });
    });
}

}  // namespace gemmkit::hopper

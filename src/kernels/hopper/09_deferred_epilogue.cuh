// Hopper step 9 (level 13 of the f16 and bf16 families): the epilogue under the next tile's
// wgmmas.
//
// What changed since step 8 (and step 6, whose epilogue it replaces): in step 6, once a tile's last wgmma is done, both consumer warpgroups
// stage it into shared memory and hand it to TMA before they start the next tile: ~1.2 us a
// tile with the tensor cores idle (docs/ladder/hopper.md#lab-step-13), 3% at 4096^3. Here a
// warpgroup only scales its tile and rounds it to C's 16-bit type, packing two values a
// register (64 registers, next to the 128 accumulators), and starts the next tile at once. The
// held tile is then staged and stored one 64 x 64 piece a slab, right after that slab's wgmmas
// are issued, while the tensor cores run them. Whatever is left of it when the next tile ends
// (a tile of fewer slabs than pieces) is stored then; the last tile, at the end.
// 16-bit C that TMA cannot store (unaligned ld or base, m % 8 != 0) but that is not read (beta
// 0) is held the same way, each piece written by the threads' own stores under a slab's wgmmas
// instead of all at the tile's end, which measured faster (docs/ladder/hopper.md#lab-unaligned-c).
// FP32 C (no room for a second tile of 32-bit values) and
// C read with beta take step 6's epilogues unchanged. The schedule is step 8's: stream-K where
// it pays (stream_k_plan), whole tiles elsewhere; where the grid holds every tile
// at once there is no next tile to hide an epilogue under, and step 6's kernel runs (the
// launcher decides).
// Preconditions: as step 6.
// Measured: docs/ladder/hopper.md#step-13 (against step 8 in the same runs: #lab-step-13).
#pragma once

#include "kernels/hopper/06_tma_store.cuh"
#include "kernels/hopper/08_stream_k.cuh"

namespace gemmkit::hopper {

// A warpgroup's tile of kAccs accumulators a thread (64 x 2 kAccs), held packed until stored.
template <class TC, int kAccs>
struct DeferredTmaStoreEpilogue {
    static constexpr bool kPacks = sizeof(TC) == 2;  // FP32 C is stored at once (step 6)
    static constexpr int kPieces = 2 * kAccs / c_box_cols(2);
    const OutputArgs<TC>& out;
    const CUtensorMap* map_c;
    uint32_t packed[kAccs / 2];  // pairs of scaled values of the held tile, as TC
    int z0 = 0, row0 = 0, col0 = 0;  // its problem of the batch, and origin
    int next = kPieces;  // the held tile's next piece to store; kPieces: none held

    // Stores the held tile's next piece, if any is left.
    __device__ void store_next_piece(uint32_t staging, int slice) {
        if (out.tma_store || out.staged_store) {
#pragma unroll
            for (int q = 0; q < kPieces; ++q)  // q known at compile time: packed[] stays in registers
                if (q == next)
                    store_staged_piece<TC>(
                        map_c, staging + slice * staging_bytes(), 1 + slice, q, z0, row0, col0,
                        [&](uint32_t buffer) { stmatrix_piece(q, buffer, [&](int i) { return packed[i]; }); }, out);
        } else if (next < kPieces) {
            store_piece_from_registers(next);
        }
        next = next < kPieces ? next + 1 : kPieces;
    }

    // Piece q of the held tile written by this thread's own stores, for C that TMA cannot store:
    // the register epilogue's stores, made while the tensor cores run the next tile's slabs.
    __device__ __forceinline__ void store_piece_from_registers(int q) {
        constexpr int kCols = c_box_cols(2), kPairs = kCols / 4;  // packed pairs of a piece
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
        const int row = row0 + 16 * warp + lane / 4, col = col0 + q * kCols + 2 * (lane % 4);
        uint16_t* const c = reinterpret_cast<uint16_t*>(out.C + z0 * out.stride_c);
#pragma unroll
        for (int i = 0; i < kPairs; ++i) {
            // packed[q * kPairs + i], chosen among the pieces by selects: indexing packed[] with
            // q at run time would put it in local memory.
            uint32_t pair = packed[i];
#pragma unroll
            for (int p = 1; p < kPieces; ++p)
                if (q == p) pair = packed[p * kPairs + i];
            const int r = row + 8 * (i % 2), j = col + 8 * (i / 2);  // pair 2j' + h: row + 8h, column 8j'
#pragma unroll
            for (int half = 0; half < 2; ++half)
                if (r < out.m && j + half < out.n) c[(j + half) * out.ldc + r] = static_cast<uint16_t>(pair >> (16 * half));
        }
        if (finishes(out)) finish_stored_piece(q);
    }

    // The second part (finishes) on piece q of the held tile as this thread stored it from
    // registers: value half of pair i = v / 2, at row + 8 (i % 2), column 8 (i / 2) + half.
    __device__ __forceinline__ void finish_stored_piece(int q) {
        constexpr int kCols = c_box_cols(2), kPairs = kCols / 4;
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
        const int row = row0 + 16 * warp + lane / 4, col = col0 + q * kCols + 2 * (lane % 4);
        EpilogueArgs<TC> e = out.epi;
        e.select(z0);
        finish_stored(e, out.C + z0 * out.stride_c, out.ldc, out.m, out.n, 2 * kPairs, [&](int v) {
            const int i = v / 2;
            return make_int2(row + 8 * (i % 2), col + 8 * (i / 2) + v % 2);
        });
    }

    __device__ void flush(uint32_t staging, int slice) {
        while (next < kPieces) store_next_piece(staging, slice);
    }

    // After each slab's wgmmas are issued.
    __device__ void under_mma(uint32_t staging, int slice) {
        if constexpr (kPacks) store_next_piece(staging, slice);
    }

    // 16-bit C that is not read (beta 0) is held, whether TMA stores it or not; FP32 C, and C
    // read with beta, is stored now, as step 6 does.
    __device__ void store(const float (&acc)[kAccs], uint32_t staging, int slice, int z, int r0, int c0) {
        if constexpr (kPacks) {
            if (out.beta == 0.0f) {  // (the launcher sets tma_store only then: tma_writes_c)
                flush(staging, slice);
                auto pack = [&](auto scaled) {
#pragma unroll
                    for (int i = 0; i < kAccs / 2; ++i)
                        packed[i] = tensor::pack_pair<TC>(scaled(acc[2 * i]), scaled(acc[2 * i + 1]));
                };
                // x * 1 is x: alpha = 1 skips 128 multiplies a thread, with the same bits. The fused
                // epilogue's bias joins here; its aux and activation when the pieces are stored.
                if (activates_in_registers(out))
                    pack_activated(acc, z, r0);
                else if (out.epi.bias != nullptr)
                    pack_biased(acc, z, r0);
                else if (out.alpha == 1.0f)
                    pack([](float x) { return x; });
                else
                    pack([&](float x) { return out.alpha * x; });
                z0 = z, row0 = r0, col0 = c0, next = 0;
                return;
            }
        }
        TmaStoreEpilogue<TC>{out, map_c}.store(acc, staging, slice, z, r0, c0);
    }

    // The tile packed with the bias of its rows: pair i is acc[2i], acc[2i + 1] of row h = i % 2.
    __device__ __forceinline__ void pack_biased(const float (&acc)[kAccs], int z, int r0) {
        const RowBias bias(out, z, r0 + 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4);
#pragma unroll
        for (int i = 0; i < kAccs / 2; ++i)
            packed[i] = tensor::pack_pair<TC>(out.alpha * acc[2 * i] + bias.b[i % 2], out.alpha * acc[2 * i + 1] + bias.b[i % 2]);
    }

    // The tile packed with the bias of its rows and the activation (RegisterActivation).
    __device__ __forceinline__ void pack_activated(const float (&acc)[kAccs], int z, int r0) {
        const RowBias bias(out, z, r0 + 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4);
        const RegisterActivation act(out.epi.activation);
#pragma unroll
        for (int i = 0; i < kAccs / 2; ++i)
            packed[i] = tensor::pack_pair<TC>(act(out.alpha * acc[2 * i] + bias.b[i % 2]),
                                              act(out.alpha * acc[2 * i + 1] + bias.b[i % 2]));
    }

    // The block's last tile, and its stores complete, before it exits.
    __device__ void finish(uint32_t staging, int slice) {
        if constexpr (kPacks) flush(staging, slice);
        if (threadIdx.x % 128 == 0) ptx::bulk_wait<0>();
    }
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void GEMMKIT_CLUSTER_DIMS(TmaStoreCfg::kCluster, 1, 1) __launch_bounds__(TmaStoreCfg::kThreads, 1)
    deferred_epilogue_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                             const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<TmaStoreCfg, T, TC, kTransA, kTransB>(
        &map_a, &map_b, out, DeferredTmaStoreEpilogue<TC, TmaStoreCfg::BN / 2>{out, &map_c},
        whole_tiles<TmaStoreCfg>(out));
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

// The same with step 8's schedule.
template <class T, class TC, bool kTransA, bool kTransB>
__global__ void GEMMKIT_CLUSTER_DIMS(TmaStoreCfg::kCluster, 1, 1) __launch_bounds__(TmaStoreCfg::kThreads, 1)
    deferred_stream_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                             const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out,
                             const __grid_constant__ StreamKArgs sk) {
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<TmaStoreCfg, T, TC, kTransA, kTransB>(
        &map_a, &map_b, out, DeferredTmaStoreEpilogue<TC, TmaStoreCfg::BN / 2>{out, &map_c},
        StreamKSchedule<TmaStoreCfg>{sk});
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper

// Writing a warpgroup's 64 x N accumulator tile to C through shared memory and TMA stores.
//
// The register epilogue (epilogue.cuh) makes every consumer thread store its 128 values one by
// one, scattered over 8 columns per instruction, while the tensor cores wait. Here the
// warpgroup writes 64 x 64 pieces of its tile, scaled and rounded to C's type, into a staging
// buffer in the TMA store layout (64 rows of m = 128 bytes per column, 128-byte swizzle: each
// warp's 2-byte writes spread over all banks), and one thread hands each piece to the copy
// engine, which writes it to C, clipped to m x n, while the warpgroup goes on computing.
// For 16-bit C with beta == 0 (C is then not read) and a TMA-addressable C; otherwise the
// register epilogue runs.
#pragma once

#include "kernels/hopper/epilogue.cuh"
#include "ptx/named_barrier.cuh"
#include "ptx/tma.cuh"

namespace gemmkit::hopper {

inline constexpr int kStagingCols = 64;  // columns of C per TMA store (64 x 64 box)

// Two staging buffers a warpgroup: a piece is written into one while the copy engine still
// reads the previous piece from the other.
inline constexpr int kStagingBuffers = 2;

template <class TC>
__host__ __device__ constexpr int staging_bytes() {
    return kStagingBuffers * 64 * kStagingCols * static_cast<int>(sizeof(TC));
}

// Stores the accumulators (wgmma m64nN layout) of the warpgroup with tile origin C(row0, col0)
// through `staging` (this warpgroup's own staging_bytes<TC>(), 1024-byte aligned; piece q uses
// buffer q % 2). Thread 0 of the warpgroup owns the bulk stores: at the block's end it must call
// bulk_wait<0>().
template <int N, class TC>
__device__ __forceinline__ void store_warpgroup_tile_tma(const float (&d)[N / 2], const CUtensorMap* map_c,
                                                         uint32_t staging, int barrier_id, float alpha, int row0,
                                                         int col0) {
    static_assert(sizeof(TC) == 2, "128 bytes of 16-bit C per staged column");
    constexpr int kBufferBytes = staging_bytes<TC>() / kStagingBuffers;
    static_assert(N / kStagingCols % kStagingBuffers == 0, "each tile starts on buffer 0");
    const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
#pragma unroll
    for (int q = 0; q < N / kStagingCols; ++q) {
        const uint32_t buffer = staging + q % kStagingBuffers * kBufferBytes;
        // The piece before last (this buffer's) has been read; the last may still be in flight.
        if (t == 0) ptx::bulk_wait_read<kStagingBuffers - 1>();
        ptx::named_barrier_sync<128>(barrier_id);
#pragma unroll
        for (int jj = 0; jj < kStagingCols / 8; ++jj) {
            const int j = q * kStagingCols / 8 + jj;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const int row = 16 * warp + lane / 4 + 8 * h, col = 8 * jj + 2 * (lane % 4) + c;
                    // 128-byte swizzle: the 16-byte chunk index (row / 8) is XORed with col % 8.
                    const uint32_t byte = col * 128 + ((row / 8) ^ (col % 8)) * 16 + (row % 8) * 2;
                    const TC v = tensor::from_float<TC>(alpha * d[4 * j + 2 * h + c]);
                    asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(buffer + byte),
                                 "h"(*reinterpret_cast<const unsigned short*>(&v)));
                }
            }
        }
        ptx::fence_proxy_async_shared();
        ptx::named_barrier_sync<128>(barrier_id);
        if (t == 0) {
            ptx::tma_store_2d(map_c, row0, col0 + q * kStagingCols, buffer);
            ptx::bulk_commit();
        }
    }
}

}  // namespace gemmkit::hopper

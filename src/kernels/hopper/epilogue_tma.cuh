// Writing a warpgroup's 64 x N accumulator tile to C through shared memory and TMA stores.
//
// The register epilogue (epilogue.cuh) makes every consumer thread store its 128 values one by
// one, scattered over 8 columns per instruction, while the tensor cores wait. Here the
// warpgroup writes pieces of its tile, scaled and rounded to C's type, into a staging buffer in
// the TMA store layout (column-major, 128 bytes of a column per swizzled row: each warp's writes
// spread over all banks), and one thread hands each piece to the copy engine, which writes it to
// C, clipped to m x n, while the warpgroup goes on computing. A piece is 8 KiB: 64 x 64 of
// 16-bit C (one box), or 64 x 32 of FP32 C (two boxes of 32 rows, a column of 64 FP32 being
// wider than the 128-byte swizzle span). 16-bit pieces are written with stmatrix.trans, four
// 8 x 8 fragments an instruction (16 bytes of a column a lane), where storing element by element
// took eight times the instructions; stmatrix has no 32-bit form, so FP32 C is stored a word at a
// time.
// For FP32 or 16-bit C with beta == 0 (C is then not read) and a TMA-addressable C. Where TMA
// cannot address C but beta is 0, the pieces are staged the same way and the warpgroup copies
// each out itself (copy_out_staged_piece); otherwise the register epilogue runs.
#pragma once

#include <cstring>

#include "kernels/hopper/epilogue.cuh"
#include "ptx/named_barrier.cuh"
#include "ptx/stmatrix.cuh"
#include "ptx/tma.cuh"

namespace gemmkit::hopper {

// One staged piece: 64 rows of C by c_box_cols columns, 8 KiB, stored as boxes of c_box_rows
// rows (128 bytes: one swizzle row a column) by the same columns. `bytes`: C's element size.
inline constexpr int kPieceBytes = 8192;
__host__ __device__ constexpr int c_box_rows(int bytes) { return 128 / bytes; }
__host__ __device__ constexpr int c_box_cols(int bytes) { return kPieceBytes / (64 * bytes); }

// Two staging buffers a warpgroup: a piece is written into one while the copy engine still
// reads the previous piece from the other.
inline constexpr int kStagingBuffers = 2;
__host__ __device__ constexpr int staging_bytes() { return kStagingBuffers * kPieceBytes; }

// Byte offset of C(row, col) of a piece (row < 64, col < c_box_cols) in the staging layout:
// boxes of c_box_rows rows, each a column of 128 bytes a row of the 128-byte swizzle, whose
// 16-byte chunk index is XORed with col % 8 (the column's place in its 1024-byte atom).
template <int kElem>
__device__ __forceinline__ uint32_t staged_byte(int row, int col) {
    constexpr int kRows = c_box_rows(kElem), kBoxBytes = kPieceBytes / (64 / kRows);
    const int box = row / kRows, r = row % kRows;
    return box * kBoxBytes + col * 128 + ((r * kElem / 16) ^ (col % 8)) * 16 + r * kElem % 16;
}

// Writes the 16-bit values of piece q (columns q * c_box_cols on) of a warpgroup's tile into
// the staging buffer at `buffer` with stmatrix.trans. pair_of(i) is the i-th pair of the
// thread's accumulators (wgmma m64nN layout: d[2i], d[2i + 1]) scaled and packed into TC.
// Fragment f of a stmatrix: rows 8 (f % 2) on of the warp's 16, columns 8 (jj + f / 2) on of
// the piece. Transposed, lane l gives the address of column l % 8 of fragment l / 8.
template <class PairOf>
__device__ __forceinline__ void stmatrix_piece(int q, uint32_t buffer, PairOf pair_of) {
    constexpr int kCols = c_box_cols(2);
    const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
    const int f = lane / 8, row = 16 * warp + 8 * (f % 2);
#pragma unroll
    for (int jj = 0; jj < kCols / 8; jj += 2) {
        uint32_t r[4];
#pragma unroll
        for (int g = 0; g < 4; ++g) r[g] = pair_of(2 * (q * kCols / 8 + jj + g / 2) + g % 2);
        ptx::stmatrix_x4_trans_at(buffer + staged_byte<2>(row, 8 * (jj + f / 2) + lane % 8), r);
    }
}

// Writes piece q of a warpgroup's accumulators d (wgmma m64nN layout: d[4j + 2h + c] is row
// 16 * warp + lane / 4 + 8h, column 8j + 2 (lane % 4) + c), times alpha plus the bias of its
// row (RowBias), through the activation where it activates_in_registers, rounded to TC, into the
// staging buffer at `buffer`.
template <int N, class TC>
__device__ __forceinline__ void stage_piece(const float (&d)[N / 2], int q, uint32_t buffer, const OutputArgs<TC>& out,
                                            const RowBias& bias) {
    constexpr int kElem = sizeof(TC), kCols = c_box_cols(kElem);
    const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
    const float alpha = out.alpha;
    if constexpr (kElem == 2) {  // pair i: d[2i], d[2i + 1], of row h = i % 2, columns 8 (i / 2) + 2 (lane % 4) on
        if (!activates_in_registers(out)) {
            stmatrix_piece(q, buffer, [&](int i) {
                const float b = bias.b[i % 2];
                return tensor::pack_pair<TC>(alpha * d[2 * i] + b, alpha * d[2 * i + 1] + b);
            });
        } else {
            const RegisterActivation act(out.epi.activation);
            stmatrix_piece(q, buffer, [&](int i) {
                const float b = bias.b[i % 2];
                return tensor::pack_pair<TC>(act(alpha * d[2 * i] + b), act(alpha * d[2 * i + 1] + b));
            });
        }
    } else {
        // The swizzle XORs with col % 8 only, so column col + 8 jj lies 1024 jj bytes (8 columns
        // of 128) past column col: four addresses, one an (h, c), with jj an immediate offset.
        // Addresses of whole columns held more registers through the pieces than the tile could
        // spare once the fused epilogue's second part ran between them (docs/epilogues.md#fp32-staging).
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int row = 16 * warp + lane / 4 + 8 * h;
                const uint32_t at = buffer + staged_byte<kElem>(row, 2 * (lane % 4) + c);
#pragma unroll
                for (int jj = 0; jj < kCols / 8; ++jj) {
                    const int j = q * kCols / 8 + jj;
                    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(at + 1024 * jj),
                                 "f"(alpha * d[4 * j + 2 * h + c] + bias.b[h]));
                }
            }
    }
}

// A value of C staged at shared byte address `at`, read and written back: 16-bit C moves as its
// bits (ld/st.shared.u16), FP32 C as a word. Shared by the epilogue's second part and the
// copy-out, which read the staged pieces element by element.
template <class TC>
__device__ __forceinline__ TC load_staged(uint32_t at) {
    if constexpr (sizeof(TC) == 2) {
        uint16_t bits;
        asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(bits) : "r"(at));
        TC x;
        memcpy(&x, &bits, 2);
        return x;
    } else {
        float x;
        asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(x) : "r"(at));
        return x;
    }
}
template <class TC>
__device__ __forceinline__ void store_staged(uint32_t at, TC x) {
    if constexpr (sizeof(TC) == 2) {
        uint16_t bits;
        memcpy(&bits, &x, 2);
        asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(at), "h"(bits));
    } else {
        asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(at), "f"(x));
    }
}

// The second part of the fused epilogue (finish_value) on a staged piece whose origin is
// C(row0, col0) of problem z, where it is still to do (finishes): thread t takes row t % 64 and
// every other column from t / 64 on, so a warp's aux stores are 32 consecutive rows of a column.
// A loop that is not unrolled, as finish_stored's.
template <class TC>
__device__ __forceinline__ void finish_staged_piece(uint32_t buffer, const OutputArgs<TC>& out, int z, int row0,
                                                 int col0) {
    constexpr int kElem = sizeof(TC), kCols = c_box_cols(kElem);
    EpilogueArgs<TC> e = out.epi;
    e.select(z);
    const int t = threadIdx.x % 128, r = t % 64, i = row0 + r;
#pragma unroll 1
    for (int c = t / 64; c < kCols; c += 2) {
        const uint32_t at = buffer + staged_byte<kElem>(r, c);
        store_staged<TC>(at, finish_value(e, i, col0 + c, out.m, out.n, load_staged<TC>(at)));
    }
}

// Copies a staged piece whose origin is C(row0, col0) of problem z to C with the warpgroup's own
// stores, clipped to m x n: for C that TMA cannot write (out.staged_store: beta 0, C's columns
// not whole 16-byte chunks). Thread t takes row t % 64 and every other column from t / 64 on,
// as finish_staged_piece, so a warp stores 32 consecutive rows of a column. A loop that is not
// unrolled: the register epilogue's 96-128 unrolled stores a thread, 20 instructions each, kept
// the MidTile kernel's warps waiting for instructions 28-30% of their time
// (docs/ladder/hopper.md#lab-staged-copy-out).
template <class TC>
__device__ __forceinline__ void copy_out_staged_piece(uint32_t buffer, const OutputArgs<TC>& out, int z, int row0,
                                                      int col0) {
    constexpr int kElem = sizeof(TC), kCols = c_box_cols(kElem);
    const int t = threadIdx.x % 128, r = t % 64, i = row0 + r, cols = min(kCols, out.n - col0);
    if (i >= out.m) return;
    // Few values live beside the accumulators of the pieces still to store: a pointer stepped
    // two columns at a time (C's offset worked out at each column made step 13's FP32-C
    // kernels spill 4 bytes).
    TC* to = out.C + z * out.stride_c + i + static_cast<int64_t>(col0 + t / 64) * out.ldc;
#pragma unroll 1
    for (int c = t / 64; c < cols; c += 2, to += 2 * out.ldc) {
        *to = load_staged<TC>(buffer + staged_byte<kElem>(r, c));
    }
}

// Stores piece q of the warpgroup's tile with origin C(row0, col0) of problem z through `staging` (this
// warpgroup's own staging_bytes(), 1024-byte aligned; piece q uses buffer q % 2): stage(buffer)
// writes the piece there, then thread 0 of the warpgroup has TMA store it, or, where
// out.staged_store, the warpgroup copies it out (copy_out_staged_piece). Thread 0 owns the
// bulk stores: at the block's end it must call bulk_wait<0>(). kPending: the stores that may
// still be reading the staging when the buffer is rewritten: the last piece's, in the other
// buffer (1), or none where the last piece used this buffer too (0). A copied-out piece is read
// before the next piece's first barrier.
template <class TC, int kPending = kStagingBuffers - 1, class Stage>
__device__ __forceinline__ void store_staged_piece(const CUtensorMap* map_c, uint32_t staging, int barrier_id, int q,
                                                   int z, int row0, int col0, Stage stage, const OutputArgs<TC>& out) {
    constexpr int kElem = sizeof(TC), kCols = c_box_cols(kElem), kRows = c_box_rows(kElem), kBoxes = 64 / kRows;
    constexpr int kBoxBytes = kPieceBytes / kBoxes;
    const uint32_t buffer = staging + q % kStagingBuffers * kPieceBytes;
    // The stores that last read this buffer are done with it.
    if (threadIdx.x % 128 == 0) ptx::bulk_wait_read<kPending>();
    ptx::named_barrier_sync<128>(barrier_id);
    stage(buffer);
    if (finishes(out)) {  // the whole piece staged, then its values finished by other threads
        ptx::named_barrier_sync<128>(barrier_id);
        finish_staged_piece(buffer, out, z, row0, col0 + q * kCols);
    }
    ptx::fence_proxy_async_shared();
    ptx::named_barrier_sync<128>(barrier_id);
    if (!out.tma_store) {
        copy_out_staged_piece(buffer, out, z, row0, col0 + q * kCols);
    } else if (threadIdx.x % 128 == 0) {
#pragma unroll
        for (int b = 0; b < kBoxes; ++b)
            ptx::tma_store_3d(map_c, row0 + b * kRows, col0 + q * kCols, z, buffer + b * kBoxBytes);
        ptx::bulk_commit();
    }
}

// Stores the accumulators (wgmma m64nN layout) of the warpgroup with tile origin C(row0, col0)
// of problem z through `staging`, piece by piece (store_staged_piece), with out's alpha and fused
// epilogue.
template <int N, class TC>
__device__ __forceinline__ void store_warpgroup_tile_staged(const float (&d)[N / 2], const CUtensorMap* map_c,
                                                            uint32_t staging, int barrier_id, const OutputArgs<TC>& out,
                                                            int z, int row0, int col0) {
    const RowBias bias(out, z, row0 + 16 * (threadIdx.x % 128 / 32) + threadIdx.x % 32 / 4);
    static_assert(sizeof(TC) == 2 || sizeof(TC) == 4, "16-bit or FP32 C");
    constexpr int kCols = c_box_cols(sizeof(TC)), kPieces = N / kCols;
    static_assert(kStagingBuffers == 2, "pieces alternate between two buffers");
    // Each tile starts on buffer 0. With an odd number of pieces (64 or 192 columns of 16-bit
    // C) the last tile's last piece was buffer 0's too, so the first piece waits for that store
    // to have read it; every other piece waits for the store before last, as the buffers alternate.
#pragma unroll
    for (int q = 0; q < kPieces; ++q) {
        auto stage = [&](uint32_t buffer) { stage_piece<N, TC>(d, q, buffer, out, bias); };
        if (kPieces % 2 == 1 && q == 0)
            store_staged_piece<TC, 0>(map_c, staging, barrier_id, q, z, row0, col0, stage, out);
        else
            store_staged_piece<TC, 1>(map_c, staging, barrier_id, q, z, row0, col0, stage, out);
    }
}

}  // namespace gemmkit::hopper

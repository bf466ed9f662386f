// Shape classes: the key under which `gemmkit tune` records the fastest kernel and `auto`
// looks it up (tuning_table.hpp). A class is four coarse facts about a problem, written
// "tiles<=256/k<=1024/aligned/NN":
//   size       output tiles of 128x128, ceil(m/128) * ceil(n/128), bucketed at 16, 64, 256, 1024:
//              how many blocks a 128x128 kernel launches, i.e. how well a tile shape fills the SMs
//   depth      "k<=1024" or "k>1024": how long each block's k loop is against its prologue/epilogue
//   layout     "unaligned" unless A, B and C are 16-byte aligned and lda, ldb, ldc are multiples
//              of 16 bytes (4 floats), which the 128-bit load/store paths need; then "aligned"
//              when m and n are multiples of 128, else "ragged": edge tiles run the checked
//              copies, and the tile that wastes least on them wins (1024^3 and 1000^3 preferred
//              different tiles: docs/ladder/fp32.md#lab-tuning-per-op, change 2).
//   ops        op(A) op(B): NN, NT, TN or TT. An operand contiguous along k copies 4 bytes at a
//              time, one along m or n 16 (or, unaligned, in another pattern), so the winner can
//              change with the ops (at 4097^3 NT and TT preferred opposite tiles: the same notes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem.hpp"

namespace gemmkit::tuning {

constexpr int kClassTile = 128;            // the tile the size buckets count in
constexpr int64_t kDeepK = 1024;           // k above this is "k>1024"
constexpr int kClassAlignmentBytes = 16;   // one LDG.128 / cp.async of 16 bytes

// ceil(m/128) * ceil(n/128), 0 when m or n is <= 0; saturates at INT64_MAX.
int64_t output_tiles(int64_t m, int64_t n);

// A, B, C pointers and lda, ldb, ldc (in bytes of their types) all multiples of 16 bytes.
bool aligned_for_class(const Problem& p);

// "tiles<=256/k<=1024/aligned/NN" (see the top of this file).
std::string shape_class(const Problem& p);

// One problem the tuner measures for a class: its ops, leading dimensions as small as they go
// (lda = rows of A as stored: m for op N, k for op T; likewise ldb; ldc = m), buffers from
// cudaMalloc (so the pointers are aligned). Unaligned classes use odd sizes, so their leading
// dimensions are not multiples of 4.
struct ClassShape {
    std::string shape_class;
    int64_t m, n, k;
    bool aligned;  // the 16-byte condition above (true for the aligned and ragged layouts)
    gemmkit_op transa, transb;
};

// Every class's representatives: 5 sizes x 2 depths x 3 layouts x 4 op combinations = 120
// classes, in class order (size bucket, then depth, then aligned, ragged, unaligned, then NN,
// NT, TN, TT; a class's representatives are consecutive): 160 shapes. Square m = n of 512, 1024,
// 2048, 4096, 8192 (16 .. 4096 tiles: each bucket's upper edge), k of 1024 or 4096, for aligned
// classes; 24 less in m, n and k for ragged ones (488 .. 8168, 1000^3 among them); for unaligned
// ones two: one less (511 .. 8191, k 1023 or 4095) and side / 2 + 1 (257 .. 4097). The tuner
// ranks a class's kernels over its representatives (ranking.hpp).
const std::vector<ClassShape>& class_shapes();

}  // namespace gemmkit::tuning

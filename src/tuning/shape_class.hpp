// Shape classes: the key under which `gemmkit tune` records the fastest kernel and `auto`
// looks it up (tuning_table.hpp). A class is three coarse facts about a problem, written
// "tiles<=256/k<=1024/aligned":
//   size       output tiles of 128x128, ceil(m/128) * ceil(n/128), bucketed at 16, 64, 256, 1024:
//              how many blocks a 128x128 kernel launches, i.e. how well a tile shape fills the SMs
//   depth      "k<=1024" or "k>1024": how long each block's k loop is against its prologue/epilogue
//   alignment  "aligned" when A, B and C are 16-byte aligned and lda, ldb, ldc are multiples of
//              16 bytes (4 floats), so the 128-bit load/store paths are on; else "unaligned"
// The op combination is not part of the key: the candidates serve every op at full speed, and
// the tuner measures NN.
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

// "tiles<=256/k<=1024/aligned" (see the top of this file).
std::string shape_class(const Problem& p);

// One problem the tuner measures for a class: NN, lda = m, ldb = k, ldc = m, buffers from
// cudaMalloc (so the pointers are aligned). Unaligned classes use odd sizes (one less than the
// aligned shape's, which keeps them in the same size and depth buckets), so their leading
// dimensions are not multiples of 4.
struct ClassShape {
    std::string shape_class;
    int64_t m, n, k;
    bool aligned;
};

// Every class's representatives: 5 sizes x 2 depths x 2 alignments = 20 classes, in class order
// (size bucket, then depth, then aligned before unaligned; a class's representatives are
// consecutive). Square m = n of 512, 1024, 2048, 4096, 8192 (16 .. 4096 tiles: each bucket's
// upper edge), k of 1024 or 4096; unaligned classes also side / 2 + 1 (257 .. 4097), still in
// the same bucket: 30 shapes. The tuner ranks a class's kernels by their geometric-mean
// TFLOP/s over its representatives.
const std::vector<ClassShape>& class_shapes();

}  // namespace gemmkit::tuning

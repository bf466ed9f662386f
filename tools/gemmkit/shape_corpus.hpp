// The public shape corpus of `gemmkit bench --suite shapes` (issue 43, "No cliffs"): the shapes
// real callers send, in classes, each timed for five types against cuBLAS (bench_shapes.cpp).
// Data and byte arithmetic only, no device; tested on the host (tests/host/shape_corpus_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gemmkit/gemmkit.h"

namespace gemmkit::cli {

struct CorpusShape {
    const char* shape_class;  // one of corpus_classes()
    int64_t m, n, k;
    gemmkit_op a, b;          // op(A), op(B)
    int64_t ld_pad;           // lda, ldb and ldc exceed the stored rows by this many elements
};

// The classes, in the order the corpus first uses them:
//   cube          small and medium cubes, 256 .. 1536
//   few-vectors   a matrix times 1 .. 128 vectors (decode and small batches of transformer layers)
//   deep-k        a small C over a long k
//   wide-k        k = 1024 under a large C
//   unaligned     odd sizes, and leading dimensions padded by 1 or 3 elements
//   all-ops       one shape in each of NN, NT, TN, TT
//   big           cubes past 4096
const std::vector<std::string>& corpus_classes();

// The corpus, in run order. Its first kRepeatedRows rows (FP16 1024^3 among them, and a
// few-vector row of each op) are timed again after the whole corpus: the repeat check.
const std::vector<CorpusShape>& shape_corpus();
constexpr size_t kRepeatedRows = 3;

// A type the suite times, and its name in --types.
struct CorpusType {
    const char* name;
    gemmkit_dtype ab, c;  // A and B, C
    gemmkit_compute compute;
};

// f32, tf32 (FP32 data on the tensor cores), f16, bf16 (FP32 accumulation, C of A/B's type), f64.
const std::vector<CorpusType>& corpus_types();

// Bytes of A, B and C, each counted once: the least a call moves (beta = 0 writes C only).
double operand_bytes(int64_t m, int64_t n, int64_t k, size_t ab_size, size_t c_size);

// 2mnk / operand_bytes: FLOPs per byte at the least traffic. A shape whose intensity is below the
// device's ridge point (peak FLOP/s over DRAM bytes/s) cannot reach the peak: it is memory-bound.
double arithmetic_intensity(int64_t m, int64_t n, int64_t k, size_t ab_size, size_t c_size);

}  // namespace gemmkit::cli

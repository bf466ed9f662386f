// rowmean-matvec — a profile-driven optimization case study that ends in gemmkit's own SGEMM.
//
// The problem. N batches; batch b is an L x M matrix X_b. Average each row of X_b over its M
// columns (a vector of length L), then multiply the L x L matrix W by that vector:
//
//     Y(i, b) = sum_k W(i, k) * mean_j X_b(k, j)        i, k < L;  j < M;  b < N
//
// Layouts (all FP32, no padding):
//   X  N x L x M, row-major per batch: X_b(k, j) at X[(b*L + k)*M + j]. j runs along contiguous
//      memory, so "average a row" reads M consecutive floats, and one thread per row (v1, v2)
//      puts a warp's 32 lanes on 32 rows M floats apart: the uncoalesced start of the study.
//   W  L x L, row-major: W(i, k) at W[i*L + k].
//   Y  L x N, column-major (ldy = L): Y(i, b) at Y[i + b*L], so batch b's output vector is the
//      L contiguous floats at Y + b*L. Every version, v5's GEMM included, writes this layout.
//   v5's averages: L x N, column-major (ld = L), column b = batch b's mean vector, at
//      avg[k + b*L]; that is also row r = b*L + k of X in flat row order, so the averaging
//      kernel writes avg[r] for row r.
//
// The versions (versions.hpp; one kernel file each; `gemmkit rowmean-matvec` verifies and times
// them, `--versions v3` runs one alone for a profiler):
//   cpu  OpenMP reference, double accumulation (cpu_reference.hpp)
//   v1   one block of L threads loops over all N batches; thread k averages row k (uncoalesced),
//        then a shared-memory tree reduction per output element
//   v2   one block per batch (grid = N)
//   v3   coalesced averaging: a warp per row, lanes stride over M, warp-shuffle reduction
//   v4   the mat-vec dot products with warp shuffles instead of shared-memory trees
//   v5   an averaging kernel, then one gemmkit_sgemm (L x L times L x N) for all batches
//
// Minimum traffic (what GB/s is computed from): read X once (4*N*L*M bytes), read W once
// (4*L*L; once in total, not once per batch: it is the same matrix for every batch and fits in
// L2, 1 MiB at L = 512), write Y once (4*L*N). X dominates: at 512x512x1024 it is 1 GiB of the
// 1.003 GiB. v2-v4 re-read W per batch (from L2) and v5 writes and re-reads the averages; that
// extra traffic is the versions' cost, not the problem's, so it is not counted.
#pragma once

#include <cstdint>
#include <string>

namespace gemmkit::rowmean {

struct Sizes {
    int64_t L = 0, M = 0, N = 0;
};

// The study's sizes: the article's L = M = 512, N = 1024, and a cube of 1024.
inline constexpr Sizes kDefaultSizes[] = {{512, 512, 1024}, {1024, 1024, 1024}};

// Each size is an int for the kernels (1 <= size <= 2^31 - 1) and X's bytes fit in int64.
// Otherwise false, with *why naming the size: "L = 0: every size must be at least 1".
bool validate(const Sizes& s, std::string* why);

inline int64_t x_elements(const Sizes& s) { return s.N * s.L * s.M; }
inline int64_t w_elements(const Sizes& s) { return s.L * s.L; }
inline int64_t y_elements(const Sizes& s) { return s.L * s.N; }

inline int64_t x_index(const Sizes& s, int64_t b, int64_t k, int64_t j) { return (b * s.L + k) * s.M + j; }
inline int64_t w_index(const Sizes& s, int64_t i, int64_t k) { return i * s.L + k; }
inline int64_t y_index(const Sizes& s, int64_t i, int64_t b) { return i + b * s.L; }

// Read X once + read W once + write Y once, in bytes.
inline int64_t min_bytes(const Sizes& s) {
    return static_cast<int64_t>(sizeof(float)) * (x_elements(s) + w_elements(s) + y_elements(s));
}

// True when, with every input in {1, 2}, each intermediate value of the computation is exact in
// float, in any order of summation, so every correct version equals the reference bit for bit.
// Why: a row sum s_k is an integer in [M, 2M]; with M = 2^p the mean s_k / M only shifts the
// exponent. W(i, k) * mean_k = w*s_k / M and every partial dot product is (an integer at most
// sum_k 2 * 2M = 4*L*M) / M. A float holds every integer up to 2^24 exactly, times any power of
// two; so the condition is M a power of two and 4*L*M <= 2^24. At L = M = 1024 the numerators
// reach 4 * 2^20 = 2^22, at L = M = 512 2^20: both exact. (M = 3: the mean 4/3 already rounds.)
bool exact_in_float(const Sizes& s);

// "512x512x1024" (L x M x N, the --lmn spelling).
std::string to_string(const Sizes& s);

}  // namespace gemmkit::rowmean

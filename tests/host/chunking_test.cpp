// gemmkit::for_each_chunk with limits small enough that every edge is hit: the sub-problems
// must tile m x n exactly once per K chunk, point at the right elements for each op
// combination, and accumulate (beta = 1) after the first K chunk; a fused epilogue goes with the
// last K chunk only, its bias and aux moved to the sub-problem's rows, columns and batch.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "chunking.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::ChunkLimits;
using gemmkit::for_each_chunk;
using gemmkit::Problem;
using gemmkit::test::fake_ptr;

constexpr ChunkLimits kSmall{3, 2, 4};

const gemmkit_op kOps[] = {GEMMKIT_OP_N, GEMMKIT_OP_T};

std::string op_name(gemmkit_op a, gemmkit_op b) { return gemmkit::ops_name(a, b); }

// 7 x 5 x 9 with padded leading dimensions and fake base pointers (only addresses are used).
Problem fake_problem(gemmkit_op ta, gemmkit_op tb, gemmkit_dtype t = GEMMKIT_R_32F) {
    Problem p;
    p.transa = ta, p.transb = tb;
    p.m = 7, p.n = 5, p.k = 9;
    p.lda = gemmkit::stored_rows_a(p) + 2;
    p.ldb = gemmkit::stored_rows_b(p) + 3;
    p.ldc = p.m + 1;
    p.a_type = p.b_type = p.c_type = t;
    p.A = fake_ptr<const void>(0x100000);
    p.B = fake_ptr<const void>(0x200000);
    p.C = fake_ptr<void>(0x300000);
    p.alpha = 1.5, p.beta = 0.5;
    return p;
}

int64_t byte_offset(const void* ptr, const void* base) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(base));
}

std::vector<Problem> collect(const Problem& p, const ChunkLimits& lim) {
    std::vector<Problem> subs;
    for_each_chunk(p, lim, [&](const Problem& s) {
        subs.push_back(s);
        return 0;
    });
    return subs;
}

// Where a sub-problem starts: (i0, j0) from C's address, p0 from the K chunks that came
// before it on the same block of C.
struct Origin {
    int64_t i0, j0, p0;
};

std::vector<Origin> origins(const Problem& p, const std::vector<Problem>& subs) {
    const int64_t sc = static_cast<int64_t>(gemmkit::dtype_size(p.c_type));
    std::map<int64_t, int64_t> k_done;  // C offset -> K already covered
    std::vector<Origin> out;
    for (const Problem& s : subs) {
        const int64_t c_elem = byte_offset(s.C, p.C) / sc;
        out.push_back({c_elem % p.ldc, c_elem / p.ldc, k_done[c_elem]});
        k_done[c_elem] += s.k;
    }
    return out;
}

TEST(Chunking, SubProblemsRespectTheLimits) {
    for (const Problem& s : collect(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N), kSmall)) {
        EXPECT_GE(s.m, 1);
        EXPECT_LE(s.m, kSmall.max_m);
        EXPECT_GE(s.n, 1);
        EXPECT_LE(s.n, kSmall.max_n);
        EXPECT_GE(s.k, 1);
        EXPECT_LE(s.k, kSmall.max_k);
    }
}

// ceil(7/3) * ceil(5/2) * ceil(9/4) = 3 * 3 * 3 launches, each element of the
// m x n x k iteration space exactly once.
TEST(Chunking, TilesTheIterationSpaceExactlyOnce) {
    const Problem p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    const auto subs = collect(p, kSmall);
    EXPECT_EQ(subs.size(), 27u);
    const auto org = origins(p, subs);
    std::vector<int> seen(p.m * p.n * p.k, 0);
    for (size_t s = 0; s < subs.size(); ++s)
        for (int64_t j = 0; j < subs[s].n; ++j)
            for (int64_t i = 0; i < subs[s].m; ++i)
                for (int64_t q = 0; q < subs[s].k; ++q) {
                    const int64_t gi = org[s].i0 + i, gj = org[s].j0 + j, gq = org[s].p0 + q;
                    ASSERT_LT(gi, p.m);
                    ASSERT_LT(gj, p.n);
                    ASSERT_LT(gq, p.k);
                    ++seen[gi + p.m * (gj + p.n * gq)];
                }
    for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(Chunking, PointersAddressTheSubProblemOriginForEveryOpCombination) {
    for (gemmkit_op ta : kOps)
        for (gemmkit_op tb : kOps) {
            SCOPED_TRACE(op_name(ta, tb));
            const Problem p = fake_problem(ta, tb);
            const auto subs = collect(p, kSmall);
            const auto org = origins(p, subs);
            for (size_t s = 0; s < subs.size(); ++s) {
                const auto [i0, j0, p0] = org[s];
                // op(A)(i0, p0) and op(B)(p0, j0), column-major, in 4-byte elements.
                const int64_t a = ta == GEMMKIT_OP_N ? i0 + p0 * p.lda : p0 + i0 * p.lda;
                const int64_t b = tb == GEMMKIT_OP_N ? p0 + j0 * p.ldb : j0 + p0 * p.ldb;
                EXPECT_EQ(byte_offset(subs[s].A, p.A), 4 * a) << "sub " << s;
                EXPECT_EQ(byte_offset(subs[s].B, p.B), 4 * b) << "sub " << s;
                EXPECT_EQ(subs[s].lda, p.lda);
                EXPECT_EQ(subs[s].ldb, p.ldb);
                EXPECT_EQ(subs[s].ldc, p.ldc);
                EXPECT_EQ(subs[s].transa, ta);
                EXPECT_EQ(subs[s].transb, tb);
            }
        }
}

// Offsets are in elements of each matrix's own type.
TEST(Chunking, OffsetsScaleWithEachElementSize) {
    Problem p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    p.a_type = GEMMKIT_R_16F, p.b_type = GEMMKIT_R_64F, p.c_type = GEMMKIT_R_32F;
    const auto subs = collect(p, kSmall);
    const auto org = origins(p, subs);
    for (size_t s = 0; s < subs.size(); ++s) {
        const auto [i0, j0, p0] = org[s];
        EXPECT_EQ(byte_offset(subs[s].A, p.A), 2 * (i0 + p0 * p.lda));
        EXPECT_EQ(byte_offset(subs[s].B, p.B), 8 * (p0 + j0 * p.ldb));
        EXPECT_EQ(byte_offset(subs[s].C, p.C), 4 * (i0 + j0 * p.ldc));
    }
}

TEST(Chunking, CallersBetaOnFirstKChunkThenOne) {
    const Problem p = fake_problem(GEMMKIT_OP_T, GEMMKIT_OP_N);
    const auto subs = collect(p, kSmall);
    const auto org = origins(p, subs);
    for (size_t s = 0; s < subs.size(); ++s) {
        EXPECT_EQ(subs[s].beta, org[s].p0 == 0 ? p.beta : 1.0) << "sub " << s;
        EXPECT_EQ(subs[s].alpha, p.alpha);
    }
}

// k == 0 still has C = beta * C to do: one launch per block of C, none skipped.
TEST(Chunking, KZeroGivesOneChunkPerBlockOfC) {
    Problem p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    p.k = 0;
    const auto subs = collect(p, kSmall);
    EXPECT_EQ(subs.size(), 9u);
    std::vector<int> seen(p.m * p.n, 0);
    for (const Problem& s : subs) {
        EXPECT_EQ(s.k, 0);
        EXPECT_EQ(s.beta, p.beta);
        const int64_t c = byte_offset(s.C, p.C) / 4;
        for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < s.m; ++i) ++seen[(c % p.ldc + i) + p.m * (c / p.ldc + j)];
    }
    for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(Chunking, EmptyMOrNCallsNothing) {
    Problem p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    p.m = 0;
    EXPECT_TRUE(collect(p, kSmall).empty());
    p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    p.n = 0;
    EXPECT_TRUE(collect(p, kSmall).empty());
}

TEST(Chunking, NullOperandsStayNull) {
    Problem p = fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N);
    p.A = nullptr, p.B = nullptr;
    for (const Problem& s : collect(p, kSmall)) {
        EXPECT_EQ(s.A, nullptr);
        EXPECT_EQ(s.B, nullptr);
    }
}

TEST(Chunking, ProblemWithinLimitsIsPassedThroughWhole) {
    const Problem p = fake_problem(GEMMKIT_OP_T, GEMMKIT_OP_T);
    const auto subs = collect(p, ChunkLimits{});
    ASSERT_EQ(subs.size(), 1u);
    EXPECT_EQ(subs[0].m, p.m);
    EXPECT_EQ(subs[0].n, p.n);
    EXPECT_EQ(subs[0].k, p.k);
    EXPECT_EQ(subs[0].A, p.A);
    EXPECT_EQ(subs[0].B, p.B);
    EXPECT_EQ(subs[0].C, p.C);
    EXPECT_EQ(subs[0].beta, p.beta);
}

// The default limits exist for 32-bit indices: a chunk 2^30 rows in is 4 GiB of floats
// away, which only 64-bit offset arithmetic gets right.
TEST(Chunking, DefaultLimitsSplitBeyondTwoToTheThirtyRows) {
    Problem p;
    p.m = (int64_t{1} << 31) + 5, p.n = 1, p.k = 1;
    p.lda = p.m, p.ldb = 1, p.ldc = p.m;
    p.A = fake_ptr<const void>(0x1000);
    p.B = fake_ptr<const void>(0x2000);
    p.C = fake_ptr<void>(0x3000);
    const auto subs = collect(p, ChunkLimits{});
    ASSERT_EQ(subs.size(), 3u);
    EXPECT_EQ(subs[0].m, int64_t{1} << 30);
    EXPECT_EQ(subs[2].m, 5);
    EXPECT_EQ(byte_offset(subs[2].C, p.C), 4 * (int64_t{1} << 31));
    EXPECT_EQ(byte_offset(subs[2].A, p.A), 4 * (int64_t{1} << 31));
}

TEST(Chunking, NonZeroResultStopsAndIsReturned) {
    int calls = 0;
    const int r = for_each_chunk(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N), kSmall, [&](const Problem&) {
        return ++calls == 3 ? 42 : 0;
    });
    EXPECT_EQ(r, 42);
    EXPECT_EQ(calls, 3);
}

// The library's own use: a launch error ends the loop and comes back to the caller.
TEST(Chunking, CudaErrorStopsAndIsReturned) {
    int calls = 0;
    const cudaError_t r = for_each_chunk(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N), kSmall, [&](const Problem&) {
        return ++calls == 2 ? cudaErrorInvalidConfiguration : cudaSuccess;
    });
    EXPECT_EQ(r, cudaErrorInvalidConfiguration);
    EXPECT_EQ(calls, 2);
}

TEST(Chunking, AllZeroResultsRunEveryChunkAndReturnZero) {
    int calls = 0;
    const int r = for_each_chunk(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N), kSmall, [&](const Problem&) {
        ++calls;
        return 0;
    });
    EXPECT_EQ(r, 0);
    EXPECT_EQ(calls, 27);
}

// A host "kernel" run on each chunk must give the same C as one unchunked GEMM. Small
// integers keep every sum exact; NaN in C with beta = 0 checks that only the first K
// chunk replaces C and later ones accumulate onto finite values.
template <class T>
void gemm_host(const Problem& s) {
    const T* A = static_cast<const T*>(s.A);
    const T* B = static_cast<const T*>(s.B);
    T* C = static_cast<T*>(s.C);
    for (int64_t j = 0; j < s.n; ++j)
        for (int64_t i = 0; i < s.m; ++i) {
            double sum = 0;
            for (int64_t q = 0; q < s.k; ++q) {
                const double a = s.transa == GEMMKIT_OP_N ? A[i + q * s.lda] : A[q + i * s.lda];
                const double b = s.transb == GEMMKIT_OP_N ? B[q + j * s.ldb] : B[j + q * s.ldb];
                sum += a * b;
            }
            T& c = C[i + j * s.ldc];
            c = static_cast<T>(s.alpha * sum + (s.beta == 0.0 ? 0.0 : s.beta * c));
        }
}

template <class T>
void expect_chunked_equals_whole(gemmkit_op ta, gemmkit_op tb, double beta) {
    constexpr gemmkit_dtype kType = sizeof(T) == 4 ? GEMMKIT_R_32F : GEMMKIT_R_64F;
    Problem p = fake_problem(ta, tb, kType);
    std::vector<T> A(p.lda * (ta == GEMMKIT_OP_N ? p.k : p.m)), B(p.ldb * (tb == GEMMKIT_OP_N ? p.n : p.k));
    for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<T>(int(i % 7) - 3);
    for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<T>(int(i % 5) - 2);
    const T c0 = beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : T(1);
    std::vector<T> chunked(p.ldc * p.n, c0), whole(p.ldc * p.n, c0);
    p.A = A.data(), p.B = B.data(), p.beta = beta, p.alpha = 2.0;

    p.C = whole.data();
    gemm_host<T>(p);
    p.C = chunked.data();
    for_each_chunk(p, kSmall, [](const Problem& s) {
        gemm_host<T>(s);
        return 0;
    });
    for (size_t i = 0; i < whole.size(); ++i) {
        if (static_cast<int64_t>(i) % p.ldc >= p.m) continue;  // padding rows are not C
        ASSERT_TRUE(std::isfinite(chunked[i])) << i;
        EXPECT_EQ(chunked[i], whole[i]) << i;
    }
}

TEST(Chunking, ChunkedHostGemmEqualsWholeForEveryOpCombination) {
    for (gemmkit_op ta : kOps)
        for (gemmkit_op tb : kOps) {
            SCOPED_TRACE(op_name(ta, tb));
            expect_chunked_equals_whole<float>(ta, tb, 0.5);
            expect_chunked_equals_whole<double>(ta, tb, -3.0);
        }
}

TEST(Chunking, ChunkedHostGemmWithBetaZeroIgnoresNaNInC) {
    for (gemmkit_op ta : kOps)
        for (gemmkit_op tb : kOps) {
            SCOPED_TRACE(op_name(ta, tb));
            expect_chunked_equals_whole<float>(ta, tb, 0.0);
        }
}

// --- The fused epilogue (problem.hpp, Epilogue) ------------------------------------------------

constexpr uintptr_t kBias = 0x400000, kAux = 0x500000;

// fake_problem with a full epilogue: SiLU, a bias and aux (ld_aux 11 > m = 7) at fake addresses.
Problem with_epilogue(Problem p) {
    p.epilogue.activation = GEMMKIT_ACTIVATION_SILU;
    p.epilogue.bias = fake_ptr<const void>(kBias);
    p.epilogue.aux = fake_ptr<void>(kAux);
    p.epilogue.ld_aux = 11;
    p.epilogue.bias_stride = 7;
    p.epilogue.aux_stride = 11 * 4 + 7;
    return p;
}

// The sub-problem's epilogue is p's, with bias moved by i0 rows and aux to (i0, j0), in
// elements of C's type.
void expect_full_epilogue_at(const Problem& p, const Problem& s, int64_t i0, int64_t j0) {
    const int64_t sc = static_cast<int64_t>(gemmkit::dtype_size(p.c_type));
    EXPECT_EQ(s.epilogue.activation, p.epilogue.activation);
    EXPECT_EQ(byte_offset(s.epilogue.bias, p.epilogue.bias), sc * i0);
    EXPECT_EQ(byte_offset(s.epilogue.aux, p.epilogue.aux), sc * (i0 + j0 * p.epilogue.ld_aux));
    EXPECT_EQ(s.epilogue.ld_aux, p.epilogue.ld_aux);
    EXPECT_EQ(s.epilogue.bias_stride, p.epilogue.bias_stride);
    EXPECT_EQ(s.epilogue.aux_stride, p.epilogue.aux_stride);
}

// k = 9 in chunks of 4, 4 and 1: the first two of each block of C only accumulate (no
// activation, no bias, no aux: an activation of partial sums, or a bias added three times, would
// be wrong), the last one applies the whole epilogue.
TEST(ChunkingEpilogue, OnlyTheLastKChunkKeepsTheEpilogue) {
    for (gemmkit_op ta : kOps)
        for (gemmkit_op tb : kOps) {
            SCOPED_TRACE(op_name(ta, tb));
            const Problem p = with_epilogue(fake_problem(ta, tb));
            const auto subs = collect(p, kSmall);
            ASSERT_EQ(subs.size(), 27u);
            const auto org = origins(p, subs);
            std::map<std::pair<int64_t, int64_t>, int> last_chunks;  // (i0, j0) -> chunks with the epilogue
            for (size_t s = 0; s < subs.size(); ++s) {
                SCOPED_TRACE("sub " + std::to_string(s));
                const auto [i0, j0, p0] = org[s];
                if (p0 + subs[s].k < p.k) {
                    EXPECT_FALSE(gemmkit::fused_epilogue(subs[s]));
                    EXPECT_EQ(subs[s].epilogue.activation, GEMMKIT_ACTIVATION_NONE);
                    EXPECT_EQ(subs[s].epilogue.bias, nullptr);
                    EXPECT_EQ(subs[s].epilogue.aux, nullptr);
                } else {
                    EXPECT_EQ(p0, 8);
                    EXPECT_EQ(subs[s].k, 1);
                    expect_full_epilogue_at(p, subs[s], i0, j0);
                    ++last_chunks[{i0, j0}];
                }
            }
            EXPECT_EQ(last_chunks.size(), 9u);  // 3 x 3 blocks of C, each exactly once
            for (const auto& [origin, count] : last_chunks) EXPECT_EQ(count, 1);
        }
}

// m and n cut, k whole: every block keeps the epilogue, bias and aux moved by its origin, in
// elements of C's type (2 bytes for FP16 C, 8 for FP64).
TEST(ChunkingEpilogue, SizeChunksMoveBiasByRowsAndAuxByRowsAndColumns) {
    for (const gemmkit_dtype t : {GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_R_64F}) {
        SCOPED_TRACE(gemmkit::dtype_name(t));
        const Problem p = with_epilogue(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_T, t));
        const ChunkLimits lim{3, 2, int64_t{1} << 30};
        const auto subs = collect(p, lim);
        ASSERT_EQ(subs.size(), 9u);
        const auto org = origins(p, subs);
        for (size_t s = 0; s < subs.size(); ++s) {
            SCOPED_TRACE("sub " + std::to_string(s));
            EXPECT_EQ(subs[s].k, p.k);
            expect_full_epilogue_at(p, subs[s], org[s].i0, org[s].j0);
        }
    }
}

// A NULL bias or aux stays NULL in every chunk; an activation alone goes with the last K chunk.
TEST(ChunkingEpilogue, AbsentBiasAndAuxStayNull) {
    Problem p = fake_problem(GEMMKIT_OP_T, GEMMKIT_OP_N);
    p.epilogue.activation = GEMMKIT_ACTIVATION_RELU;
    const auto subs = collect(p, kSmall);
    const auto org = origins(p, subs);
    for (size_t s = 0; s < subs.size(); ++s) {
        EXPECT_EQ(subs[s].epilogue.bias, nullptr) << "sub " << s;
        EXPECT_EQ(subs[s].epilogue.aux, nullptr) << "sub " << s;
        EXPECT_EQ(subs[s].epilogue.activation,
                  org[s].p0 + subs[s].k < p.k ? GEMMKIT_ACTIVATION_NONE : GEMMKIT_ACTIVATION_RELU)
            << "sub " << s;
    }
}

// k == 0 is one chunk a block of C, the last K chunk of its block: C = act(beta C + bias) there.
TEST(ChunkingEpilogue, KZeroKeepsTheEpilogueInEveryBlock) {
    Problem p = with_epilogue(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N));
    p.k = 0;
    const auto subs = collect(p, kSmall);
    ASSERT_EQ(subs.size(), 9u);
    const int64_t sc = 4;
    for (const Problem& s : subs) {
        const int64_t c = byte_offset(s.C, p.C) / sc;
        expect_full_epilogue_at(p, s, c % p.ldc, c / p.ldc);
    }
}

// A strided batch of 7 cut into launches of at most 3 problems: bias and aux of launch b start at
// problem 3b's, z0 * bias_stride and z0 * aux_stride elements of C's type on; the same with
// pointer arrays (which hold A, B and C only); bias_stride 0 shares one bias.
TEST(ChunkingEpilogue, BatchChunksMoveBiasAndAuxByTheirStrides) {
    for (const gemmkit_dtype t : {GEMMKIT_R_32F, GEMMKIT_R_16BF, GEMMKIT_R_64F})
        for (const bool arrays : {false, true})
            for (const int64_t bias_stride : {int64_t{7}, int64_t{0}}) {
                SCOPED_TRACE(std::string(gemmkit::dtype_name(t)) + (arrays ? " arrays" : " strided") +
                             " bias_stride " + std::to_string(bias_stride));
                Problem p = with_epilogue(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N, t));
                p.epilogue.bias_stride = bias_stride;
                p.batch.count = 7;
                if (arrays) {
                    p.batch.arrays = true;
                    p.batch.a_array = fake_ptr<const void* const>(0x40000);
                    p.batch.b_array = fake_ptr<const void* const>(0x50000);
                    p.batch.c_array = fake_ptr<void* const>(0x60000);
                    p.A = p.B = nullptr, p.C = nullptr;
                } else {
                    p.batch.stride_a = 100, p.batch.stride_b = 100, p.batch.stride_c = 100;
                }
                ChunkLimits lim;
                lim.max_batch = 3;
                const auto subs = collect(p, lim);
                ASSERT_EQ(subs.size(), 3u);
                const int64_t sc = static_cast<int64_t>(gemmkit::dtype_size(t));
                for (int64_t b = 0; b < 3; ++b) {
                    const Problem& s = subs[static_cast<size_t>(b)];
                    const int64_t z0 = 3 * b;
                    EXPECT_EQ(byte_offset(s.epilogue.bias, p.epilogue.bias), sc * z0 * bias_stride) << "launch " << b;
                    EXPECT_EQ(byte_offset(s.epilogue.aux, p.epilogue.aux), sc * z0 * p.epilogue.aux_stride)
                        << "launch " << b;
                    EXPECT_EQ(s.epilogue.activation, p.epilogue.activation);
                    EXPECT_EQ(s.epilogue.bias_stride, bias_stride);
                    EXPECT_EQ(s.epilogue.aux_stride, p.epilogue.aux_stride);
                    EXPECT_EQ(s.epilogue.ld_aux, p.epilogue.ld_aux);
                }
            }
}

// problem_in_batch (one problem of a strided batch as a plain problem) moves bias and aux the same way.
TEST(ChunkingEpilogue, ProblemInBatchMovesBiasAndAux) {
    Problem p = with_epilogue(fake_problem(GEMMKIT_OP_N, GEMMKIT_OP_N, GEMMKIT_R_16F));
    p.batch.count = 5;
    p.batch.stride_a = p.batch.stride_b = p.batch.stride_c = 100;
    const Problem s = gemmkit::problem_in_batch(p, 4);
    EXPECT_EQ(byte_offset(s.epilogue.bias, p.epilogue.bias), 2 * 4 * p.epilogue.bias_stride);
    EXPECT_EQ(byte_offset(s.epilogue.aux, p.epilogue.aux), 2 * 4 * p.epilogue.aux_stride);
    p.epilogue.bias = nullptr;
    EXPECT_EQ(gemmkit::problem_in_batch(p, 4).epilogue.bias, nullptr);
}

// A host "kernel" with the epilogue (bias, aux, ReLU) run on each chunk must give the same C and
// aux as one unchunked call. Small integers keep every sum exact, so any difference is the
// chunking's: an epilogue on a partial sum, a bias added twice, aux at the wrong place.
template <class T>
void gemm_host_epilogue(const Problem& s) {
    gemm_host<T>(s);
    T* C = static_cast<T*>(s.C);
    const T* bias = static_cast<const T*>(s.epilogue.bias);
    T* aux = static_cast<T*>(s.epilogue.aux);
    for (int64_t j = 0; j < s.n; ++j)
        for (int64_t i = 0; i < s.m; ++i) {
            T& c = C[i + j * s.ldc];
            if (bias != nullptr) c += bias[i];
            if (aux != nullptr) aux[i + j * s.epilogue.ld_aux] = c;
            if (s.epilogue.activation == GEMMKIT_ACTIVATION_RELU && c < T(0)) c = T(0);
        }
}

template <class T>
void expect_chunked_epilogue_equals_whole(gemmkit_op ta, gemmkit_op tb) {
    constexpr gemmkit_dtype kType = sizeof(T) == 4 ? GEMMKIT_R_32F : GEMMKIT_R_64F;
    Problem p = fake_problem(ta, tb, kType);
    std::vector<T> A(p.lda * (ta == GEMMKIT_OP_N ? p.k : p.m)), B(p.ldb * (tb == GEMMKIT_OP_N ? p.n : p.k));
    for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<T>(int(i % 7) - 3);
    for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<T>(int(i % 5) - 2);
    std::vector<T> bias(static_cast<size_t>(p.m));
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<T>(int(i % 3) * 4 - 5);
    const int64_t ld_aux = p.m + 4;
    const T poison = std::numeric_limits<T>::quiet_NaN();
    std::vector<T> chunked(p.ldc * p.n, T(1)), whole(p.ldc * p.n, T(1));
    std::vector<T> aux_chunked(ld_aux * p.n, poison), aux_whole(ld_aux * p.n, poison);
    p.A = A.data(), p.B = B.data(), p.beta = -1.0, p.alpha = 2.0;
    p.epilogue.activation = GEMMKIT_ACTIVATION_RELU;
    p.epilogue.bias = bias.data();
    p.epilogue.ld_aux = ld_aux;

    p.C = whole.data(), p.epilogue.aux = aux_whole.data();
    gemm_host_epilogue<T>(p);
    p.C = chunked.data(), p.epilogue.aux = aux_chunked.data();
    for_each_chunk(p, kSmall, [](const Problem& s) {
        gemm_host_epilogue<T>(s);
        return 0;
    });
    int64_t zeros = 0;
    for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.m; ++i) {
            const T c = chunked[i + j * p.ldc], aux = aux_chunked[i + j * ld_aux];
            ASSERT_TRUE(std::isfinite(aux)) << i << "," << j;
            EXPECT_EQ(c, whole[i + j * p.ldc]) << i << "," << j;
            EXPECT_EQ(aux, aux_whole[i + j * ld_aux]) << i << "," << j;
            zeros += c == T(0) && aux < T(0);
        }
    EXPECT_GT(zeros, 0) << "no element went through the ReLU's cut";
    for (int64_t j = 0; j < p.n; ++j)  // aux's rows between m and ld_aux are not aux
        for (int64_t i = p.m; i < ld_aux; ++i) EXPECT_TRUE(std::isnan(aux_chunked[i + j * ld_aux])) << i << "," << j;
}

TEST(ChunkingEpilogue, ChunkedHostGemmWithEpilogueEqualsWholeForEveryOpCombination) {
    for (gemmkit_op ta : kOps)
        for (gemmkit_op tb : kOps) {
            SCOPED_TRACE(op_name(ta, tb));
            expect_chunked_epilogue_equals_whole<float>(ta, tb);
            expect_chunked_epilogue_equals_whole<double>(ta, tb);
        }
}

}  // namespace

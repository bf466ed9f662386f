// gemmkit::for_each_chunk with limits small enough that every edge is hit: the sub-problems
// must tile m x n exactly once per K chunk, point at the right elements for each op
// combination, and accumulate (beta = 1) after the first K chunk.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
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

}  // namespace

// Batched GEMM on the host: the C API's checks of a batch's own arguments (they run before any
// device work, so no case here touches a GPU), the plan of a batch, and the chunks a batch past
// one launch is cut into.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chunking.hpp"
#include "gemmkit/gemmkit.h"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::Problem;
using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::names;

constexpr float kSentinel = 1234.5f;

// A valid strided batch of 3 problems of 4 x 3 x 2 (NN, FP32), C a host buffer of sentinels
// (the checks refuse before looking at memory, so it must stay as it is).
class BatchedArgs : public ::testing::Test {
protected:
    BatchedArgs() : c_(64, kSentinel) {}

    gemmkit_status strided(int64_t stride_a, int64_t stride_b, int64_t stride_c, int64_t batch,
                           const char* kernel = nullptr) {
        return gemmkit_gemm_strided_batched_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_,
                                               fake_ptr<const float>(0x1000), GEMMKIT_R_32F, 4, stride_a,
                                               fake_ptr<const float>(0x2000), GEMMKIT_R_32F, 2, stride_b, &beta_,
                                               c_.data(), GEMMKIT_R_32F, 4, stride_c, batch, GEMMKIT_COMPUTE_32F,
                                               kernel);
    }

    gemmkit_status arrays(const void* const* a, const void* const* b, void* const* c, int64_t batch) {
        return gemmkit_gemm_batched_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_, a, GEMMKIT_R_32F, 4, b,
                                       GEMMKIT_R_32F, 2, &beta_, c, GEMMKIT_R_32F, 4, batch, GEMMKIT_COMPUTE_32F,
                                       nullptr);
    }

    void expect_invalid(gemmkit_status s, const std::string& arg) {
        EXPECT_EQ(s, GEMMKIT_INVALID_VALUE);
        EXPECT_TRUE(names(gemmkit_last_error(), arg));
        EXPECT_TRUE(untouched());
    }

    bool untouched() const {
        for (float v : c_)
            if (v != kSentinel) return false;
        return true;
    }

    float alpha_ = 1.0f, beta_ = 0.0f;
    std::vector<float> c_;
};

TEST_F(BatchedArgs, RejectsNegativeBatchCount) { expect_invalid(strided(8, 6, 12, -1), "batch_count"); }

TEST_F(BatchedArgs, RejectsNegativeStrides) {
    expect_invalid(strided(-8, 6, 12, 3), "stride_a");
    expect_invalid(strided(8, -6, 12, 3), "stride_b");
    expect_invalid(strided(8, 6, -12, 3), "stride_c");
}

TEST_F(BatchedArgs, RejectsProblemsWhoseCOverlap) {
    // C spans ldc * (n - 1) + m = 4 * 2 + 4 = 12 elements: a stride of 11 overlaps, 0 too.
    expect_invalid(strided(8, 6, 11, 3), "stride_c");
    EXPECT_TRUE(contains(gemmkit_last_error(), "12"));
    expect_invalid(strided(8, 6, 0, 2), "stride_c");
}

TEST_F(BatchedArgs, RejectsStridesWhoseLastOffsetOverflows) {
    expect_invalid(strided(int64_t{1} << 60, 6, 12, 1 << 20), "batch_count");
}

TEST_F(BatchedArgs, AcceptsSharedOperandsAndOverlappingStridesOfOneProblem) {
    // Stride 0 shares A and B; with one problem C's stride is never used. Valid calls go on to
    // the device: here, with none, that is CUDA_ERROR (or SUCCESS where a GPU is present and
    // the fake pointers are refused: INVALID_VALUE naming A, never a stride).
    for (const gemmkit_status s : {strided(0, 0, 12, 3), strided(8, 6, 0, 1)}) {
        EXPECT_NE(s, GEMMKIT_SUCCESS);
        EXPECT_FALSE(contains(gemmkit_last_error(), "stride"));
    }
    EXPECT_TRUE(untouched());
}

TEST_F(BatchedArgs, BatchOfZeroIsANoOp) {
    EXPECT_EQ(strided(8, 6, 12, 0), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_EQ(arrays(nullptr, nullptr, nullptr, 0), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_TRUE(untouched());
}

TEST_F(BatchedArgs, RejectsNullOrMisalignedPointerArrays) {
    const void* const* a = fake_ptr<const void* const>(0x1000);
    const void* const* b = fake_ptr<const void* const>(0x2000);
    void* const* c = fake_ptr<void* const>(0x3000);
    expect_invalid(arrays(a, b, nullptr, 3), "Carray");
    expect_invalid(arrays(nullptr, b, c, 3), "Aarray");
    expect_invalid(arrays(a, nullptr, c, 3), "Barray");
    expect_invalid(arrays(a, fake_ptr<const void* const>(0x2004), c, 3), "Barray");
}

TEST_F(BatchedArgs, NamedKernelThatRunsOneProblemALaunchRefusesABatch) {
    EXPECT_EQ(strided(8, 6, 12, 3, "sgemm.05_register_blocking_2d"), GEMMKIT_NOT_SUPPORTED);
    EXPECT_TRUE(names(gemmkit_last_error(), "sgemm.05_register_blocking_2d"));
    EXPECT_TRUE(contains(gemmkit_last_error(), "not a batch"));
    EXPECT_TRUE(untouched());
}

// The plan of a batch on an H100: a row whose launch takes batches, the batch in the summary, and
// no split along k where blockIdx.z is the batch (FP32 split-K, FP64's stream-K kernel; the
// Hopper schedule numbers the pair-tiles of every problem, so stream-K may cut the last ones).
struct TypeCase {
    gemmkit_dtype ab;
    gemmkit_compute compute;
};

class BatchedPlan : public ::testing::TestWithParam<TypeCase> {};

TEST_P(BatchedPlan, PicksARowThatTakesBatchesAndSplitsNothing) {
    gemmkit::DeviceFacts d;
    ASSERT_TRUE(gemmkit::builtin_device_facts("h100", &d));
    for (const auto [m, n, k, batch] : {std::array<int64_t, 4>{128, 128, 128, 512}, {2048, 2048, 2048, 16},
                                        {64, 16, 4096, 8}, {4096, 8, 4096, 2}, {33, 17, 129, 3}}) {
        Problem p;
        p.m = m, p.n = n, p.k = k;
        p.lda = m, p.ldb = k, p.ldc = m;
        p.a_type = p.b_type = p.c_type = GetParam().ab;
        p.compute = GetParam().compute;
        p.batch.count = batch;
        p.batch.stride_a = m * k, p.batch.stride_b = k * n, p.batch.stride_c = m * n;
        gemmkit::Plan plan;
        std::string why;
        ASSERT_TRUE(gemmkit::plan_gemm(p, d, "auto", &plan, &why)) << why;
        const std::string at = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
        EXPECT_TRUE(plan.kernel->batches) << plan.kernel->name << " at " << at;
        const bool hopper =
            plan.kernel->rules == gemmkit::PlanRules::kHopper || plan.kernel->rules == gemmkit::PlanRules::kTf32Hopper;
        if (!hopper) {
            EXPECT_TRUE(plan.split.kind == gemmkit::SplitKind::kNone || plan.split.pieces == 0)
                << gemmkit::plan_summary(plan) << " at " << at;
        }
        EXPECT_TRUE(contains(gemmkit::plan_summary(plan), "batch " + std::to_string(batch)));
        // The same problem alone may take another row (few vectors, split-K): only the batch differs.
        p.batch = gemmkit::Batch{};
        ASSERT_TRUE(gemmkit::plan_gemm(p, d, "auto", &plan, &why)) << why;
        EXPECT_FALSE(contains(gemmkit::plan_summary(plan), "batch"));
    }
}

INSTANTIATE_TEST_SUITE_P(Types, BatchedPlan,
                         ::testing::Values(TypeCase{GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F},
                                           TypeCase{GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32},
                                           TypeCase{GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F},
                                           TypeCase{GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F},
                                           TypeCase{GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F}));

// A 16-bit batch of 256^3 problems at aligned addresses with packed strides.
Problem bf16_batch(int64_t count) {
    Problem p;
    p.m = p.n = p.k = 256;
    p.lda = p.ldb = p.ldc = 256;
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_16BF;
    p.A = fake_ptr<const void>(uintptr_t{1} << 40), p.B = fake_ptr<const void>(uintptr_t{2} << 40);
    p.C = fake_ptr<void>(uintptr_t{3} << 40);
    p.batch.count = count;
    p.batch.stride_a = p.batch.stride_b = p.batch.stride_c = 256 * 256;
    return p;
}

gemmkit::Plan plan_on_h100(const Problem& p) {
    gemmkit::DeviceFacts d;
    EXPECT_TRUE(gemmkit::builtin_device_facts("h100", &d));
    gemmkit::Plan plan;
    std::string why;
    EXPECT_TRUE(gemmkit::plan_gemm(p, d, "auto", &plan, &why)) << why;
    return plan;
}

bool runs_pipeline(const gemmkit::Plan& plan) { return contains(gemmkit::plan_reasons(plan), "mma.sync pipeline"); }

TEST(BatchedPlanTiles, HopperTilesCountEveryProblemsPairTiles) {
    const gemmkit::Plan alone = plan_on_h100(bf16_batch(1)), batch = plan_on_h100(bf16_batch(64));
    EXPECT_FALSE(runs_pipeline(batch)) << gemmkit::plan_reasons(batch);
    EXPECT_EQ(std::string(batch.kernel->name), "bf16.14_sized_tiles");
    // One 256^3 problem takes the smallest tiles that fill the GPU; 64 of them fill it with the
    // widest, and the schedule holds all their pair-tiles.
    EXPECT_LT(alone.bm * alone.bn, batch.bm * batch.bn) << gemmkit::plan_summary(alone) << " / "
                                                         << gemmkit::plan_summary(batch);
    EXPECT_GE(batch.split.tiles, 64);
    EXPECT_EQ(batch.split.tiles % 64, 0) << gemmkit::plan_summary(batch);
}

TEST(BatchedPlanTiles, BatchesTmaCannotReadAsTheyAreRunThePipeline) {
    Problem odd_stride = bf16_batch(8);
    odd_stride.batch.stride_a = 256 * 256 + 4;  // 8 bytes off 16
    Problem arrays = bf16_batch(8);
    arrays.batch.arrays = true;
    arrays.batch.a_array = fake_ptr<const void* const>(0x1000), arrays.batch.b_array = fake_ptr<const void* const>(0x2000);
    arrays.batch.c_array = fake_ptr<void* const>(0x3000);
    arrays.A = arrays.B = nullptr, arrays.C = nullptr;
    Problem tf32_bt = bf16_batch(8);
    tf32_bt.a_type = tf32_bt.b_type = tf32_bt.c_type = GEMMKIT_R_32F;
    tf32_bt.compute = GEMMKIT_COMPUTE_32F_FAST_TF32;
    tf32_bt.transb = GEMMKIT_OP_T;
    for (const Problem& p : {odd_stride, arrays, tf32_bt}) {
        const gemmkit::Plan plan = plan_on_h100(p);
        EXPECT_TRUE(runs_pipeline(plan)) << gemmkit::plan_summary(plan);
        EXPECT_TRUE(plan.kernel->batches);
        EXPECT_FALSE(plan.copy_a || plan.copy_b || plan.transpose_b) << gemmkit::plan_summary(plan);
    }
    // The pipeline counts the tiles of every problem: 2 tiles of 256 x 128 alone would leave the
    // SMs idle, 128 of them do not.
    Problem many = bf16_batch(64);
    many.batch.stride_b = 256 * 256 + 1;
    const gemmkit::Plan plan = plan_on_h100(many);
    ASSERT_TRUE(runs_pipeline(plan));
    EXPECT_EQ(plan.bm * plan.bn, 256 * 128) << gemmkit::plan_summary(plan);
}

TEST(BatchedPlanTiles, PointerArraysTakeThePathForAnyAlignment) {
    Problem p;
    p.m = p.n = p.k = 256;
    p.lda = p.ldb = p.ldc = 256;
    p.A = fake_ptr<const float>(0x1000), p.B = fake_ptr<const float>(0x2000), p.C = fake_ptr<float>(0x3000);
    EXPECT_TRUE(gemmkit::operands_aligned(p, 16));
    p.batch.count = 4;
    p.batch.stride_a = p.batch.stride_b = p.batch.stride_c = 256 * 256 + 1;  // 4 bytes past 16
    EXPECT_FALSE(gemmkit::operands_aligned(p, 16));
    EXPECT_TRUE(gemmkit::operands_aligned(p, 4));
    p.batch.stride_a = p.batch.stride_b = p.batch.stride_c = 256 * 256;
    EXPECT_TRUE(gemmkit::operands_aligned(p, 16));
    p.batch.arrays = true;  // the entries' alignment is not known on the host
    EXPECT_FALSE(gemmkit::operands_aligned(p, 16));
}

// A batch of 7 cut into launches of at most 3 problems: strided ones move on by the strides,
// pointer-array ones by entries of the arrays.
TEST(BatchedChunks, BatchesPastTheLimitRunInOrderAndMoveOn) {
    Problem p;
    p.m = 4, p.n = 3, p.k = 2, p.lda = 4, p.ldb = 2, p.ldc = 4;
    p.A = fake_ptr<const float>(0x10000), p.B = fake_ptr<const float>(0x20000), p.C = fake_ptr<float>(0x30000);
    p.batch.count = 7, p.batch.stride_a = 8, p.batch.stride_b = 0, p.batch.stride_c = 12;
    gemmkit::ChunkLimits lim;
    lim.max_batch = 3;
    std::vector<Problem> seen;
    gemmkit::for_each_chunk(p, lim, [&](const Problem& s) {
        seen.push_back(s);
        return 0;
    });
    ASSERT_EQ(seen.size(), 3u);
    const int64_t counts[3] = {3, 3, 1};
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(seen[i].batch.count, counts[i]);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(seen[i].A), 0x10000u + i * 3 * 8 * sizeof(float));
        EXPECT_EQ(seen[i].B, p.B);  // stride 0: every problem's B
        EXPECT_EQ(reinterpret_cast<uintptr_t>(seen[i].C), 0x30000u + i * 3 * 12 * sizeof(float));
    }
    p.batch.arrays = true;
    p.batch.a_array = fake_ptr<const void* const>(0x40000);
    p.batch.b_array = fake_ptr<const void* const>(0x50000);
    p.batch.c_array = fake_ptr<void* const>(0x60000);
    p.A = p.B = nullptr, p.C = nullptr;
    seen.clear();
    gemmkit::for_each_chunk(p, lim, [&](const Problem& s) {
        seen.push_back(s);
        return 0;
    });
    ASSERT_EQ(seen.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(seen[i].batch.a_array, p.batch.a_array + 3 * i);
        EXPECT_EQ(seen[i].batch.c_array, p.batch.c_array + 3 * i);
        EXPECT_EQ(seen[i].A, nullptr);
    }
}

}  // namespace

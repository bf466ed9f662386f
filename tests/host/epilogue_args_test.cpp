// The fused epilogue's argument checks (gemmkit_epilogue, gemmkit.h): the descriptor (its size,
// activation and types) and its pointers and sizes with the problem (alignment, ld_aux, the
// strides of a batch), through the three entry points. They run before any device work, so no
// case here touches a GPU: a check that slipped behind the device query would show up as
// GEMMKIT_CUDA_ERROR on a machine without one. Also: every registry row takes an epilogue.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "problem.hpp"
#include "registry.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::names;

constexpr float kSentinel = 1234.5f;

// A valid 4 x 3 x 2 NN FP32 problem (alone, a strided batch or pointer arrays) with a valid
// epilogue: GELU (tanh), a bias at a fake address, and aux, like C, a host buffer of sentinels
// (the checks refuse before looking at memory, so both must stay as they are).
class EpilogueArgs : public ::testing::Test {
protected:
    EpilogueArgs() : c_(64, kSentinel), aux_(64, kSentinel) {}

    gemmkit_epilogue valid() {
        gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
        e.activation = GEMMKIT_ACTIVATION_GELU_TANH;
        e.bias = fake_ptr<const float>(0x4000);
        e.bias_type = GEMMKIT_R_32F;
        e.bias_stride = 4;
        e.aux = aux_.data();
        e.aux_type = GEMMKIT_R_32F;
        e.ld_aux = 4;
        e.aux_stride = 12;  // ld_aux * (n - 1) + m
        return e;
    }

    gemmkit_status plain(const gemmkit_epilogue* e, int64_t m = 4, const char* kernel = nullptr) {
        return gemmkit_gemm_epilogue_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, m, 3, 2, &alpha_,
                                        fake_ptr<const float>(0x1000), GEMMKIT_R_32F, 4, fake_ptr<const float>(0x2000),
                                        GEMMKIT_R_32F, 2, &beta_, c_.data(), GEMMKIT_R_32F, 4, GEMMKIT_COMPUTE_32F, e,
                                        kernel);
    }

    // The same problem through gemmkit_gemm_ex, for comparison with a NULL epilogue.
    gemmkit_status plain_old(int64_t m = 4) {
        return gemmkit_gemm_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, m, 3, 2, &alpha_, fake_ptr<const float>(0x1000),
                               GEMMKIT_R_32F, 4, fake_ptr<const float>(0x2000), GEMMKIT_R_32F, 2, &beta_, c_.data(),
                               GEMMKIT_R_32F, 4, GEMMKIT_COMPUTE_32F, nullptr);
    }

    gemmkit_status strided(const gemmkit_epilogue* e, int64_t batch, int64_t ldc = 4) {
        return gemmkit_gemm_strided_batched_epilogue_ex(
            nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_, fake_ptr<const float>(0x1000), GEMMKIT_R_32F, 4, 8,
            fake_ptr<const float>(0x2000), GEMMKIT_R_32F, 2, 6, &beta_, c_.data(), GEMMKIT_R_32F, ldc, 12, batch,
            GEMMKIT_COMPUTE_32F, e, nullptr);
    }

    gemmkit_status strided_old(int64_t batch, int64_t ldc = 4) {
        return gemmkit_gemm_strided_batched_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_,
                                               fake_ptr<const float>(0x1000), GEMMKIT_R_32F, 4, 8,
                                               fake_ptr<const float>(0x2000), GEMMKIT_R_32F, 2, 6, &beta_, c_.data(),
                                               GEMMKIT_R_32F, ldc, 12, batch, GEMMKIT_COMPUTE_32F, nullptr);
    }

    gemmkit_status arrays(const gemmkit_epilogue* e, int64_t batch,
                          void* const* c_array = fake_ptr<void* const>(0x3000)) {
        return gemmkit_gemm_batched_epilogue_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_,
                                                fake_ptr<const void* const>(0x1000), GEMMKIT_R_32F, 4,
                                                fake_ptr<const void* const>(0x2000), GEMMKIT_R_32F, 2, &beta_, c_array,
                                                GEMMKIT_R_32F, 4, batch, GEMMKIT_COMPUTE_32F, e, nullptr);
    }

    gemmkit_status arrays_old(int64_t batch, void* const* c_array = fake_ptr<void* const>(0x3000)) {
        return gemmkit_gemm_batched_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_,
                                       fake_ptr<const void* const>(0x1000), GEMMKIT_R_32F, 4,
                                       fake_ptr<const void* const>(0x2000), GEMMKIT_R_32F, 2, &beta_, c_array,
                                       GEMMKIT_R_32F, 4, batch, GEMMKIT_COMPUTE_32F, nullptr);
    }

    void expect_invalid(gemmkit_status s, const std::string& arg) {
        EXPECT_EQ(s, GEMMKIT_INVALID_VALUE) << gemmkit_status_string(s);
        EXPECT_TRUE(names(gemmkit_last_error(), arg));
        EXPECT_TRUE(untouched());
    }

    // A valid call goes on to the device: here, with none, that is CUDA_ERROR (or, where a GPU
    // is present, INVALID_VALUE naming C, a host buffer), never an error of the epilogue's.
    void expect_past_the_checks(gemmkit_status s) {
        EXPECT_NE(s, GEMMKIT_SUCCESS);
        EXPECT_NE(s, GEMMKIT_NOT_SUPPORTED) << gemmkit_last_error();
        EXPECT_FALSE(contains(gemmkit_last_error(), "epilogue")) << gemmkit_last_error();
        EXPECT_TRUE(untouched());
    }

    bool untouched() const {
        for (float v : c_)
            if (v != kSentinel) return false;
        for (float v : aux_)
            if (v != kSentinel) return false;
        return true;
    }

    float alpha_ = 1.0f, beta_ = 0.5f;
    std::vector<float> c_, aux_;
};

// --- The descriptor ---------------------------------------------------------------------------

TEST_F(EpilogueArgs, ValidDescriptorPassesTheChecks) {
    const gemmkit_epilogue e = valid();
    expect_past_the_checks(plain(&e));
    expect_past_the_checks(strided(&e, 3));
}

TEST_F(EpilogueArgs, RejectsASizeOfNoVersion) {
    gemmkit_epilogue e = valid();
    e.size = 0;
    expect_invalid(plain(&e), "epilogue->size");
    e.size = sizeof(gemmkit_epilogue) - sizeof(int64_t);  // a struct without aux_stride: older than any
    expect_invalid(plain(&e), "epilogue->size");
}

// A caller built with a newer header passes a larger struct: refused, not read in part.
TEST_F(EpilogueArgs, RejectsASizeLargerThanThisLibrarysStruct) {
    gemmkit_epilogue e = valid();
    e.size = sizeof(gemmkit_epilogue) + 8;
    expect_invalid(plain(&e), "epilogue->size");
    EXPECT_TRUE(contains(gemmkit_last_error(), std::to_string(sizeof(gemmkit_epilogue))));
}

// Out-of-range enumerators are what a C caller can pass; the library must refuse them.
TEST_F(EpilogueArgs, RejectsAnActivationOutsideTheEnum) {
    gemmkit_epilogue e = valid();
    e.activation = static_cast<gemmkit_activation>(7);
    expect_invalid(plain(&e), "epilogue->activation");
    e.activation = static_cast<gemmkit_activation>(-1);
    expect_invalid(plain(&e), "epilogue->activation");
}

TEST_F(EpilogueArgs, RejectsABiasOfAnotherTypeThanC) {
    gemmkit_epilogue e = valid();
    e.bias_type = GEMMKIT_R_64F;
    expect_invalid(plain(&e), "epilogue->bias_type");
    e.bias_type = static_cast<gemmkit_dtype>(9);
    expect_invalid(plain(&e), "epilogue->bias_type");
}

TEST_F(EpilogueArgs, RejectsAnAuxOfAnotherTypeThanC) {
    gemmkit_epilogue e = valid();
    e.aux_type = GEMMKIT_R_16F;
    expect_invalid(plain(&e), "epilogue->aux_type");
}

// The types of what is not there are not checked: GEMMKIT_EPILOGUE_INIT says FP32, and an FP64
// (or 16-bit) caller that sets only an activation must not have to change them.
TEST_F(EpilogueArgs, TypesOfAbsentBiasAndAuxAreNotChecked) {
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.activation = GEMMKIT_ACTIVATION_RELU;
    e.bias_type = GEMMKIT_R_64F, e.aux_type = GEMMKIT_R_16BF;
    expect_past_the_checks(plain(&e));
    std::vector<double> c(16, 7.0);
    const double alpha = 1.0, beta = 0.0;
    e = GEMMKIT_EPILOGUE_INIT;  // FP32 types in the descriptor, FP64 C
    e.activation = GEMMKIT_ACTIVATION_SILU;
    const gemmkit_status s = gemmkit_gemm_epilogue_ex(
        nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha, fake_ptr<const double>(0x1000), GEMMKIT_R_64F, 4,
        fake_ptr<const double>(0x2000), GEMMKIT_R_64F, 2, &beta, c.data(), GEMMKIT_R_64F, 4, GEMMKIT_COMPUTE_64F, &e,
        nullptr);
    EXPECT_NE(s, GEMMKIT_SUCCESS);
    EXPECT_FALSE(contains(gemmkit_last_error(), "epilogue")) << gemmkit_last_error();
    EXPECT_EQ(c, std::vector<double>(16, 7.0));
}

// C's type, not A's and B's: 16-bit A and B with FP32 C take an FP32 bias and aux.
TEST_F(EpilogueArgs, BiasAndAuxFollowCsTypeNotTheOperands) {
    gemmkit_epilogue e = valid();
    auto call = [&] {
        return gemmkit_gemm_epilogue_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, &alpha_,
                                        fake_ptr<const void>(0x1000), GEMMKIT_R_16BF, 4, fake_ptr<const void>(0x2000),
                                        GEMMKIT_R_16BF, 2, &beta_, c_.data(), GEMMKIT_R_32F, 4, GEMMKIT_COMPUTE_32F,
                                        &e, nullptr);
    };
    expect_past_the_checks(call());
    e.bias_type = GEMMKIT_R_16BF;
    expect_invalid(call(), "epilogue->bias_type");
    e = valid();
    e.aux_type = GEMMKIT_R_16BF;
    expect_invalid(call(), "epilogue->aux_type");
}

// --- Pointers and sizes with the problem -----------------------------------------------------

TEST_F(EpilogueArgs, RejectsAMisalignedBias) {
    gemmkit_epilogue e = valid();
    e.bias = fake_ptr<const char>(0x4000) + 1;
    expect_invalid(plain(&e), "epilogue->bias");
    e.bias = fake_ptr<const char>(0x4000) + 2;  // 2 bytes: not a float's 4
    expect_invalid(strided(&e, 3), "epilogue->bias");
}

TEST_F(EpilogueArgs, RejectsAMisalignedAux) {
    gemmkit_epilogue e = valid();
    e.aux = reinterpret_cast<char*>(aux_.data()) + 2;
    expect_invalid(plain(&e), "epilogue->aux");
}

TEST_F(EpilogueArgs, RejectsLdAuxBelowM) {
    gemmkit_epilogue e = valid();
    e.ld_aux = 3;
    expect_invalid(plain(&e), "epilogue->ld_aux");
    EXPECT_TRUE(contains(gemmkit_last_error(), "m = 4"));
    e.ld_aux = 0;
    expect_invalid(strided(&e, 3), "epilogue->ld_aux");
    e.ld_aux = -4;
    expect_invalid(plain(&e), "epilogue->ld_aux");
}

// ld_aux is aux's own: it may differ from ldc either way.
TEST_F(EpilogueArgs, LdAuxIsIndependentOfLdc) {
    gemmkit_epilogue e = valid();
    e.ld_aux = 9, e.aux_stride = 9 * 2 + 4;
    expect_past_the_checks(plain(&e));
    expect_past_the_checks(strided(&e, 2));
    e = valid();
    expect_past_the_checks(strided(&e, 1, /*ldc=*/6));
}

// Without aux, ld_aux and aux_stride mean nothing and are not checked.
TEST_F(EpilogueArgs, LdAuxAndAuxStrideAreIgnoredWithoutAux) {
    gemmkit_epilogue e = valid();
    e.aux = nullptr, e.ld_aux = 0, e.aux_stride = -5;
    expect_past_the_checks(plain(&e));
    expect_past_the_checks(strided(&e, 3));
}

TEST_F(EpilogueArgs, RejectsANegativeBiasStride) {
    gemmkit_epilogue e = valid();
    e.bias_stride = -4;
    expect_invalid(strided(&e, 3), "epilogue->bias_stride");
    expect_invalid(plain(&e), "epilogue->bias_stride");
}

// bias_stride 0 gives every problem of the batch the same bias; it may overlap as it is only read.
TEST_F(EpilogueArgs, SharedBiasIsAccepted) {
    gemmkit_epilogue e = valid();
    e.bias_stride = 0;
    expect_past_the_checks(strided(&e, 3));
    e.bias_stride = 1;
    expect_past_the_checks(strided(&e, 3));
}

TEST_F(EpilogueArgs, RejectsAuxStridesWhoseProblemsOverlap) {
    gemmkit_epilogue e = valid();
    e.aux_stride = 11;  // aux spans ld_aux * (n - 1) + m = 4 * 2 + 4 = 12 elements
    expect_invalid(strided(&e, 2), "epilogue->aux_stride");
    EXPECT_TRUE(contains(gemmkit_last_error(), "12"));
    e.aux_stride = 0;
    expect_invalid(strided(&e, 3), "epilogue->aux_stride");
    e.aux_stride = -12;
    expect_invalid(strided(&e, 2), "epilogue->aux_stride");
    // Pointer arrays hold A, B and C only: aux moves by its stride there too.
    e.aux_stride = 11;
    expect_invalid(arrays(&e, 2), "epilogue->aux_stride");
}

// One problem never uses the stride, so any value is fine.
TEST_F(EpilogueArgs, AuxStrideOfABatchOfOneIsNotChecked) {
    gemmkit_epilogue e = valid();
    e.aux_stride = 0;
    expect_past_the_checks(strided(&e, 1));
    expect_past_the_checks(plain(&e));
}

TEST_F(EpilogueArgs, RejectsStridesWhoseLastOffsetOverflows) {
    gemmkit_epilogue e = valid();
    e.aux_stride = int64_t{1} << 60;
    expect_invalid(strided(&e, 1 << 20), "aux_stride");
    e = valid();
    e.bias_stride = int64_t{1} << 60;
    expect_invalid(strided(&e, 1 << 20), "bias_stride");
}

TEST_F(EpilogueArgs, PointerArrayBatchTakesAnEpilogue) {
    const gemmkit_epilogue e = valid();
    const gemmkit_status s = arrays(&e, 3);
    EXPECT_NE(s, GEMMKIT_SUCCESS);
    EXPECT_FALSE(contains(gemmkit_last_error(), "epilogue")) << gemmkit_last_error();
    EXPECT_TRUE(untouched());
}

// --- No epilogue, and nothing to do ------------------------------------------------------------

// A NULL epilogue is the older call, status and message alike, valid or not.
TEST_F(EpilogueArgs, NullEpilogueBehavesLikeTheOlderCalls) {
    auto same = [&](gemmkit_status with_null, const std::string& null_message, gemmkit_status old) {
        EXPECT_EQ(with_null, old);
        EXPECT_EQ(null_message, std::string(gemmkit_last_error()));
    };
    {
        const gemmkit_status s = plain(nullptr);
        const std::string msg = gemmkit_last_error();
        same(s, msg, plain_old());
    }
    {
        const gemmkit_status s = strided(nullptr, 3);
        const std::string msg = gemmkit_last_error();
        same(s, msg, strided_old(3));
    }
    {  // stride_c 12 < ldc * (n - 1) + m with ldc 5: both refuse, naming stride_c
        const gemmkit_status s = strided(nullptr, 3, 5);
        const std::string msg = gemmkit_last_error();
        EXPECT_EQ(s, GEMMKIT_INVALID_VALUE);
        EXPECT_TRUE(names(msg, "stride_c"));
        same(s, msg, strided_old(3, 5));
    }
    {
        const gemmkit_status s = arrays(nullptr, 3);
        const std::string msg = gemmkit_last_error();
        same(s, msg, arrays_old(3));
    }
    {  // Carray NULL
        const gemmkit_status s = arrays(nullptr, 3, nullptr);
        const std::string msg = gemmkit_last_error();
        EXPECT_TRUE(names(msg, "Carray"));
        same(s, msg, arrays_old(3, nullptr));
    }
    {  // m negative
        const gemmkit_status s = plain(nullptr, -1);
        const std::string msg = gemmkit_last_error();
        EXPECT_EQ(s, GEMMKIT_INVALID_VALUE);
        same(s, msg, plain_old(-1));
    }
    EXPECT_TRUE(untouched());
}

// m == 0 writes nothing, so the epilogue's pointers and sizes are not looked at; it succeeds
// and clears the last error, as the older calls do.
TEST_F(EpilogueArgs, EmptyProblemIsANoOpWithAnEpilogue) {
    gemmkit_epilogue e = valid();
    e.ld_aux = 1;  // max(1, m) with m == 0
    ASSERT_EQ(plain(&e, -1), GEMMKIT_INVALID_VALUE);
    EXPECT_EQ(plain(&e, 0), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_STREQ(gemmkit_last_error(), "");
    EXPECT_EQ(strided(&e, 0), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_EQ(arrays(&e, 0, nullptr), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_TRUE(untouched());
}

// ...but the descriptor itself is read whatever the sizes, as the types of C, A and B are.
TEST_F(EpilogueArgs, EmptyProblemStillRejectsABadDescriptor) {
    gemmkit_epilogue e = valid();
    e.activation = static_cast<gemmkit_activation>(7);
    expect_invalid(plain(&e, 0), "epilogue->activation");
    e = valid();
    e.size = 0;
    expect_invalid(strided(&e, 0), "epilogue->size");
}

// --- Every kernel runs an epilogue -------------------------------------------------------------

// Each registry row serves a problem with a full epilogue (activation, bias, aux) exactly where
// it serves the same problem without one; a kernel named by the caller is never refused for it.
TEST(EpilogueRows, EveryRowTakesAnEpilogueWhereItTakesTheProblem) {
    for (const gemmkit::KernelInfo& info : gemmkit::registry()) {
        for (const gemmkit_dtype c_type : {info.dtype, GEMMKIT_R_32F}) {
            gemmkit::Problem p;
            p.m = 100, p.n = 72, p.k = 48;
            p.lda = 100, p.ldb = 48, p.ldc = 100;
            p.a_type = p.b_type = info.dtype;
            p.c_type = c_type;
            p.compute = info.compute;
            p.A = fake_ptr<const void>(0x100000), p.B = fake_ptr<const void>(0x200000);
            p.C = fake_ptr<void>(0x300000);
            std::string why_plain, why_epilogue;
            const bool plain = gemmkit::row_supports(info, p, &why_plain);
            p.epilogue.activation = GEMMKIT_ACTIVATION_GELU_TANH;
            p.epilogue.bias = fake_ptr<const void>(0x400000);
            p.epilogue.aux = fake_ptr<void>(0x500000);
            p.epilogue.ld_aux = 128;
            ASSERT_TRUE(gemmkit::fused_epilogue(p));
            EXPECT_EQ(gemmkit::row_supports(info, p, &why_epilogue), plain)
                << info.name << " C " << gemmkit::dtype_name(c_type) << ": " << why_epilogue;
        }
    }
}

TEST_F(EpilogueArgs, NamedKernelTakesAnEpilogue) {
    const gemmkit_epilogue e = valid();
    for (const char* kernel : {"sgemm.01_naive", "sgemm.05_register_blocking_2d"}) {
        ASSERT_NE(gemmkit::find_kernel(kernel), nullptr) << kernel;
        expect_past_the_checks(plain(&e, 4, kernel));
    }
}

}  // namespace

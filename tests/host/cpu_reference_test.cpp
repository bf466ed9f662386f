// gemmkit::ref::cpu_gemm against a triple loop written here, for float and double inputs, and
// the fused epilogue's reference (activation_ref, cpu_epilogue) against known values.
// Everything that a GPU kernel is later judged by flows from this reference, so it gets
// the odd shapes, padded leading dimensions and scalar cases the kernels get.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reference/cpu_gemm.hpp"

namespace {

using gemmkit::ref::activation_ref;
using gemmkit::ref::cpu_epilogue;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
    gemmkit_op ta = GEMMKIT_OP_N, tb = GEMMKIT_OP_N;
    int64_t m = 7, n = 5, k = 3;
    int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // leading dimension beyond the stored rows
    double alpha = 1.0, beta = 0.0;

    int64_t rows_a() const { return ta == GEMMKIT_OP_N ? m : k; }
    int64_t cols_a() const { return ta == GEMMKIT_OP_N ? k : m; }
    int64_t rows_b() const { return tb == GEMMKIT_OP_N ? k : n; }
    int64_t cols_b() const { return tb == GEMMKIT_OP_N ? n : k; }
    int64_t lda() const { return rows_a() + pad_a; }
    int64_t ldb() const { return rows_b() + pad_b; }
    int64_t ldc() const { return m + pad_c; }
};

// Column-major storage for one operand. Padding rows hold NaN: reading them poisons the result.
template <class T>
std::vector<T> random_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t seed) {
    std::vector<T> x(static_cast<size_t>(std::max<int64_t>(1, ld * cols)), static_cast<T>(kNaN));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 0; r < rows; ++r) x[r + c * ld] = static_cast<T>(dist(rng));
    return x;
}

template <class T>
double op_at(const std::vector<T>& x, gemmkit_op op, int64_t ld, int64_t row, int64_t col) {
    return op == GEMMKIT_OP_N ? double(x[row + col * ld]) : double(x[col + row * ld]);
}

// The definition, one element at a time.
template <class T>
void naive(const Case& c, const std::vector<T>& A, const std::vector<T>& B, const std::vector<T>& C,
           std::vector<double>* out, std::vector<double>* scale) {
    out->assign(c.m * c.n, 0.0);
    scale->assign(c.m * c.n, 0.0);
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            double sum = 0, mag = 0;
            for (int64_t p = 0; p < c.k; ++p) {
                const double a = op_at(A, c.ta, c.lda(), i, p), b = op_at(B, c.tb, c.ldb(), p, j);
                sum += a * b;
                mag += std::fabs(a) * std::fabs(b);
            }
            double cij = c.beta == 0.0 ? 0.0 : double(C[i + j * c.ldc()]);
            (*out)[i + j * c.m] = c.alpha * sum + c.beta * cij;
            (*scale)[i + j * c.m] = std::fabs(c.alpha) * mag + std::fabs(c.beta) * std::fabs(cij);
        }
}

template <class T>
struct Run {
    std::vector<T> A, B, C;
    std::vector<double> out, scale, want_out, want_scale;
};

template <class T>
Run<T> run_case(const Case& c, uint64_t seed = 1) {
    Run<T> r;
    r.A = random_matrix<T>(c.rows_a(), c.cols_a(), c.lda(), seed);
    r.B = random_matrix<T>(c.rows_b(), c.cols_b(), c.ldb(), seed + 1);
    r.C = random_matrix<T>(c.m, c.n, c.ldc(), seed + 2);
    r.out.assign(c.m * c.n, kNaN);
    r.scale.assign(c.m * c.n, kNaN);
    gemmkit::ref::cpu_gemm<T>(c.ta, c.tb, c.m, c.n, c.k, c.alpha, r.A.data(), c.lda(), r.B.data(), c.ldb(), c.beta,
                              r.C.data(), c.ldc(), r.out.data(), r.scale.data());
    naive(c, r.A, r.B, r.C, &r.want_out, &r.want_scale);
    return r;
}

// Both sides accumulate in double; only the summation order may differ.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& scale) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-13 * (scale[i] + 1e-300)) << "element " << i;
}

template <class T>
class CpuGemm : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuGemm, Types);

TYPED_TEST(CpuGemm, MatchesTripleLoopForEveryOpCombination) {
    for (gemmkit_op ta : {GEMMKIT_OP_N, GEMMKIT_OP_T})
        for (gemmkit_op tb : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
            SCOPED_TRACE(std::string("op ") + (ta == GEMMKIT_OP_T ? "T" : "N") + (tb == GEMMKIT_OP_T ? "T" : "N"));
            Case c;
            c.ta = ta, c.tb = tb;
            c.m = 7, c.n = 5, c.k = 3;
            c.alpha = 0.5, c.beta = 2.0;
            auto r = run_case<TypeParam>(c);
            expect_close(r.out, r.want_out, r.want_scale);
        }
}

// Padding rows are NaN, so reading past the stored rows would show.
TYPED_TEST(CpuGemm, HonoursLeadingDimensionsBeyondTheRows) {
    for (gemmkit_op ta : {GEMMKIT_OP_N, GEMMKIT_OP_T})
        for (gemmkit_op tb : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
            Case c;
            c.ta = ta, c.tb = tb;
            c.m = 6, c.n = 9, c.k = 4;
            c.pad_a = 3, c.pad_b = 5, c.pad_c = 2;
            c.alpha = -1.5, c.beta = 0.25;
            auto r = run_case<TypeParam>(c);
            for (double v : r.out) ASSERT_TRUE(std::isfinite(v));
            expect_close(r.out, r.want_out, r.want_scale);
        }
}

// Large enough to spread over threads, odd in every dimension.
TYPED_TEST(CpuGemm, MatchesTripleLoopOnLargerOddShape) {
    Case c;
    c.ta = GEMMKIT_OP_T, c.tb = GEMMKIT_OP_N;
    c.m = 33, c.n = 17, c.k = 65;
    c.pad_a = 1;
    c.alpha = 0.75, c.beta = -0.5;
    auto r = run_case<TypeParam>(c, 42);
    expect_close(r.out, r.want_out, r.want_scale);
}

TYPED_TEST(CpuGemm, OneByOneByOneIsAlphaABPlusBetaC) {
    const TypeParam a = 3, b = 4, cval = 5;
    double out = kNaN, scale = kNaN;
    gemmkit::ref::cpu_gemm<TypeParam>(GEMMKIT_OP_N, GEMMKIT_OP_N, 1, 1, 1, 0.5, &a, 1, &b, 1, 2.0, &cval, 1, &out,
                                      &scale);
    EXPECT_EQ(out, 0.5 * 12 + 2.0 * 5);
    EXPECT_EQ(scale, 0.5 * 12 + 2.0 * 5);
}

// Signs must not cancel in the scale: it is a bound on the rounding error of the terms.
TYPED_TEST(CpuGemm, ScaleSumsMagnitudesNotValues) {
    const TypeParam A[2] = {1, -2};  // 1 x 2
    const TypeParam B[2] = {3, 4};   // 2 x 1
    const TypeParam C[1] = {-10};
    double out = kNaN, scale = kNaN;
    gemmkit::ref::cpu_gemm<TypeParam>(GEMMKIT_OP_N, GEMMKIT_OP_N, 1, 1, 2, -1.0, A, 1, B, 2, 0.5, C, 1, &out, &scale);
    EXPECT_EQ(out, -1.0 * (3 - 8) + 0.5 * -10);  // 0: the terms cancel
    EXPECT_EQ(scale, 1.0 * (3 + 8) + 0.5 * 10);
}

TYPED_TEST(CpuGemm, ScaleMatchesTripleLoop) {
    Case c;
    c.ta = GEMMKIT_OP_N, c.tb = GEMMKIT_OP_T;
    c.m = 7, c.n = 5, c.k = 3;
    c.alpha = -0.5, c.beta = 2.0;
    auto r = run_case<TypeParam>(c, 7);
    expect_close(r.scale, r.want_scale, r.want_scale);
}

TYPED_TEST(CpuGemm, KZeroGivesBetaTimesC) {
    Case c;
    c.m = 4, c.n = 3, c.k = 0;
    c.alpha = 3.0, c.beta = 0.5;
    auto r = run_case<TypeParam>(c);
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            EXPECT_EQ(r.out[i + j * c.m], 0.5 * double(r.C[i + j * c.ldc()]));
            EXPECT_EQ(r.scale[i + j * c.m], 0.5 * std::fabs(double(r.C[i + j * c.ldc()])));
        }
}

// beta = 0 means C is not read: NaN there must reach neither out nor scale.
TYPED_TEST(CpuGemm, BetaZeroDoesNotPropagateNaNFromC) {
    Case c;
    c.m = 5, c.n = 4, c.k = 3;
    c.alpha = 2.0, c.beta = 0.0;
    auto r = run_case<TypeParam>(c);
    std::vector<TypeParam> nan_c(c.m * c.n, static_cast<TypeParam>(kNaN));
    std::vector<double> out(c.m * c.n, kNaN), scale(c.m * c.n, kNaN);
    gemmkit::ref::cpu_gemm<TypeParam>(c.ta, c.tb, c.m, c.n, c.k, c.alpha, r.A.data(), c.lda(), r.B.data(), c.ldb(),
                                      0.0, nan_c.data(), c.ldc(), out.data(), scale.data());
    for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out[i])) << i;
        ASSERT_TRUE(std::isfinite(scale[i])) << i;
    }
    expect_close(out, r.want_out, r.want_scale);
}

TYPED_TEST(CpuGemm, BetaZeroAcceptsNullC) {
    Case c;
    c.m = 3, c.n = 2, c.k = 4;
    c.alpha = 1.0, c.beta = 0.0;
    auto r = run_case<TypeParam>(c);
    std::vector<double> out(c.m * c.n, kNaN);
    gemmkit::ref::cpu_gemm<TypeParam>(c.ta, c.tb, c.m, c.n, c.k, c.alpha, r.A.data(), c.lda(), r.B.data(), c.ldb(),
                                      0.0, nullptr, c.m, out.data(), nullptr);
    expect_close(out, r.want_out, r.want_scale);
}

// Small integers make every partial sum exact, so any summation order must agree bit for bit.
TYPED_TEST(CpuGemm, IntegerInputsGiveExactResults) {
    const int64_t m = 3, n = 4, k = 5;
    std::vector<TypeParam> A(m * k), B(k * n), C(m * n);
    for (int64_t i = 0; i < m * k; ++i) A[i] = static_cast<TypeParam>(i % 7 - 3);
    for (int64_t i = 0; i < k * n; ++i) B[i] = static_cast<TypeParam>(i % 5 - 2);
    for (int64_t i = 0; i < m * n; ++i) C[i] = static_cast<TypeParam>(i);
    std::vector<double> out(m * n, kNaN);
    gemmkit::ref::cpu_gemm<TypeParam>(GEMMKIT_OP_N, GEMMKIT_OP_N, m, n, k, 2.0, A.data(), m, B.data(), k, -1.0,
                                      C.data(), m, out.data(), nullptr);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double sum = 0;
            for (int64_t p = 0; p < k; ++p) sum += double(A[i + p * m]) * double(B[p + j * k]);
            EXPECT_EQ(out[i + j * m], 2.0 * sum - double(C[i + j * m])) << i << "," << j;
        }
}

// The fused epilogue's reference (cpu_epilogue, activation_ref): the activations at known values
// (computed independently, in Python's math module), and bias, pre-activation and scale.
TEST(ActivationRef, KnownValues) {
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_ERF, 1.0), 0.8413447460685429, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_ERF, -1.0), -0.15865525393145707, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_ERF, -3.0), -0.00404969409489031, 1e-16);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_TANH, 1.0), 0.8411919906082768, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_TANH, -1.0), -0.15880800939172324, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_GELU_TANH, 2.0), 1.954597694087775, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_SILU, 1.0), 0.7310585786300049, 1e-15);
    EXPECT_NEAR(activation_ref(GEMMKIT_ACTIVATION_SILU, -1.0), -0.2689414213699951, 1e-15);
    EXPECT_EQ(activation_ref(GEMMKIT_ACTIVATION_RELU, -2.0), 0.0);
    EXPECT_EQ(activation_ref(GEMMKIT_ACTIVATION_RELU, 2.5), 2.5);
    EXPECT_EQ(activation_ref(GEMMKIT_ACTIVATION_NONE, -2.5), -2.5);
}

// The two GELUs differ (tanh approximates erf), by about 1.5e-4 at 1: a kernel that ran one for
// the other would fail a check at any tolerance the GEMMs get.
TEST(ActivationRef, TheTwoGelusDiffer) {
    EXPECT_GT(std::fabs(activation_ref(GEMMKIT_ACTIVATION_GELU_TANH, 1.0) -
                        activation_ref(GEMMKIT_ACTIVATION_GELU_ERF, 1.0)),
              1e-4);
}

TEST(ActivationRef, ZeroIsAFixedPointAndNaNStaysNaN) {
    for (gemmkit_activation act : {GEMMKIT_ACTIVATION_NONE, GEMMKIT_ACTIVATION_RELU, GEMMKIT_ACTIVATION_GELU_TANH,
                                   GEMMKIT_ACTIVATION_GELU_ERF, GEMMKIT_ACTIVATION_SILU}) {
        EXPECT_EQ(activation_ref(act, 0.0), 0.0) << act;
        EXPECT_TRUE(std::isnan(activation_ref(act, kNaN))) << act;
    }
}

// Far from zero each activation is the identity (positive side) or zero (negative side); SiLU's
// exp(-v) overflows to infinity there and still gives -0, not NaN.
TEST(ActivationRef, Tails) {
    for (gemmkit_activation act : {GEMMKIT_ACTIVATION_RELU, GEMMKIT_ACTIVATION_GELU_TANH, GEMMKIT_ACTIVATION_GELU_ERF,
                                   GEMMKIT_ACTIVATION_SILU}) {
        EXPECT_NEAR(activation_ref(act, 40.0), 40.0, 1e-12) << act;
        EXPECT_NEAR(activation_ref(act, -40.0), 0.0, 1e-12) << act;
        EXPECT_EQ(activation_ref(act, -1000.0), 0.0) << act;
    }
}

// 3 x 2: bias by row, the pre-activation copied before the activation, |bias| added to scale.
TEST(CpuEpilogue, AddsBiasByRowKeepsThePreActivationAndActivates) {
    const int64_t m = 3, n = 2;
    const double bias[m] = {0.5, -2.0, 0.0};
    std::vector<double> out = {1.0, 1.0, -1.0, -0.25, 3.0, 2.0};
    std::vector<double> scale = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
    const std::vector<double> before = out, scale_before = scale;
    std::vector<double> pre(m * n, kNaN);
    cpu_epilogue(GEMMKIT_ACTIVATION_RELU, bias, m, n, out.data(), scale.data(), pre.data());
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            const int64_t e = i + j * m;
            const double v = before[e] + bias[i];
            EXPECT_EQ(pre[e], v) << i << "," << j;
            EXPECT_EQ(out[e], v < 0 ? 0.0 : v) << i << "," << j;
            EXPECT_EQ(scale[e], scale_before[e] + std::fabs(bias[i])) << i << "," << j;
        }
}

TEST(CpuEpilogue, ActivationWithoutBiasLeavesScaleAndAcceptsNulls) {
    std::vector<double> out = {1.0, -1.0, 0.25, 2.0}, scale = {1.0, 1.0, 1.0, 1.0};
    const std::vector<double> before = out, scale_before = scale;
    cpu_epilogue(GEMMKIT_ACTIVATION_GELU_ERF, nullptr, 2, 2, out.data(), scale.data(), nullptr);
    for (size_t e = 0; e < out.size(); ++e)
        EXPECT_EQ(out[e], activation_ref(GEMMKIT_ACTIVATION_GELU_ERF, before[e])) << e;
    EXPECT_EQ(scale, scale_before);
    out = before;
    cpu_epilogue(GEMMKIT_ACTIVATION_SILU, nullptr, 2, 2, out.data(), nullptr, nullptr);
    for (size_t e = 0; e < out.size(); ++e) EXPECT_EQ(out[e], activation_ref(GEMMKIT_ACTIVATION_SILU, before[e])) << e;
}

// NONE with a bias is a bias add only; NaN in out survives the ReLU (it is not below zero).
TEST(CpuEpilogue, NoneAddsTheBiasOnlyAndReluKeepsNaN) {
    const double bias[2] = {1.5, -0.5};
    std::vector<double> out = {1.0, 2.0}, pre(2, kNaN);
    cpu_epilogue(GEMMKIT_ACTIVATION_NONE, bias, 2, 1, out.data(), nullptr, pre.data());
    EXPECT_EQ(out, (std::vector<double>{2.5, 1.5}));
    EXPECT_EQ(pre, out);
    std::vector<double> nan_out = {kNaN, -1.0};
    cpu_epilogue(GEMMKIT_ACTIVATION_RELU, bias, 2, 1, nan_out.data(), nullptr, nullptr);
    EXPECT_TRUE(std::isnan(nan_out[0]));
    EXPECT_EQ(nan_out[1], 0.0);
}

// cpu_gemm then cpu_epilogue is the definition of gemmkit.h, one element at a time.
TYPED_TEST(CpuGemm, WithEpilogueMatchesTheDefinition) {
    Case c;
    c.ta = GEMMKIT_OP_T, c.tb = GEMMKIT_OP_N;
    c.m = 6, c.n = 4, c.k = 5, c.pad_c = 1;
    c.alpha = 0.5, c.beta = -1.0;
    auto r = run_case<TypeParam>(c, 11);
    std::vector<double> bias(c.m);
    for (int64_t i = 0; i < c.m; ++i) bias[i] = 0.25 * static_cast<double>(i) - 0.5;
    std::vector<double> pre(c.m * c.n, kNaN);
    cpu_epilogue(GEMMKIT_ACTIVATION_GELU_TANH, bias.data(), c.m, c.n, r.out.data(), r.scale.data(), pre.data());
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            const int64_t e = i + j * c.m;
            const double v = r.want_out[e] + bias[i];
            EXPECT_NEAR(pre[e], v, 1e-13 * (r.want_scale[e] + std::fabs(bias[i])));
            const double u = std::sqrt(2.0 / 3.141592653589793) * (v + 0.044715 * v * v * v);
            const double want = 0.5 * v * (1.0 + std::tanh(u));
            EXPECT_NEAR(r.out[e], want, 1e-13 * (r.want_scale[e] + std::fabs(bias[i])));
            EXPECT_NEAR(r.scale[e], r.want_scale[e] + std::fabs(bias[i]), 1e-13 * r.scale[e]);
        }
}

}  // namespace

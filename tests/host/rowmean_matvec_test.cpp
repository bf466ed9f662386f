// The rowmean-matvec case study's host side: the CPU reference against the definition written
// out here, the exactness claim behind the bit-for-bit check, the traffic arithmetic behind
// GB/s, the version table and the size checks. The kernels themselves are proven on a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "rowmean_matvec/cpu_reference.hpp"
#include "rowmean_matvec/inputs.hpp"
#include "rowmean_matvec/problem.hpp"
#include "rowmean_matvec/versions.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::rowmean::Sizes;
using gemmkit::test::contains;
namespace rm = gemmkit::rowmean;

struct Data {
    std::vector<float> X, W;
};

// Inputs from a generator of the test's own, not fill_inputs: a reference checked against
// values it generated itself would prove less.
Data random_data(const Sizes& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Data d{std::vector<float>(s.N * s.L * s.M), std::vector<float>(s.L * s.L)};
    for (float& x : d.X) x = dist(rng);
    for (float& w : d.W) w = dist(rng);
    return d;
}

// The definition, with every index spelled out: X[(b*L + k)*M + j], W[i*L + k], Y[i + b*L].
void naive(const Sizes& s, const Data& d, std::vector<double>* y, std::vector<double>* scale) {
    y->assign(s.L * s.N, 0.0);
    scale->assign(s.L * s.N, 0.0);
    for (int64_t b = 0; b < s.N; ++b)
        for (int64_t i = 0; i < s.L; ++i)
            for (int64_t k = 0; k < s.L; ++k) {
                double sum = 0, sum_abs = 0;
                for (int64_t j = 0; j < s.M; ++j) {
                    sum += d.X[(b * s.L + k) * s.M + j];
                    sum_abs += std::fabs(d.X[(b * s.L + k) * s.M + j]);
                }
                (*y)[i + b * s.L] += d.W[i * s.L + k] * (sum / s.M);
                (*scale)[i + b * s.L] += std::fabs(d.W[i * s.L + k]) * (sum_abs / s.M);
            }
}

struct Reference {
    std::vector<double> y, scale;
};

Reference reference(const Sizes& s, const Data& d) {
    Reference r{std::vector<double>(s.L * s.N, -1.0), std::vector<double>(s.L * s.N, -1.0)};
    rm::cpu_reference(s, d.X.data(), d.W.data(), r.y.data(), r.scale.data());
    return r;
}

// ---- the CPU reference ------------------------------------------------------------------

TEST(RowmeanCpuReference, MatchesTheDefinitionOnOddSizes) {
    const Sizes sizes[] = {{1, 1, 1}, {3, 5, 2}, {7, 33, 3}, {17, 9, 5}, {33, 1, 4}, {2, 129, 7}, {64, 64, 2}};
    for (const Sizes& s : sizes) {
        SCOPED_TRACE(rm::to_string(s));
        const Data d = random_data(s, 7 + s.L);
        std::vector<double> want, want_scale;
        naive(s, d, &want, &want_scale);
        const Reference got = reference(s, d);
        for (size_t e = 0; e < want.size(); ++e) {
            // Both sum in double, in different orders: agreement to ~1e-15 of the magnitude.
            ASSERT_NEAR(got.y[e], want[e], 1e-12 * want_scale[e]) << "Y element " << e;
            ASSERT_NEAR(got.scale[e], want_scale[e], 1e-12 * want_scale[e]) << "scale element " << e;
        }
    }
}

TEST(RowmeanCpuReference, ScaleIsOptional) {
    const Sizes s{5, 6, 3};
    const Data d = random_data(s, 3);
    const Reference with = reference(s, d);
    std::vector<double> y(s.L * s.N, -1.0);
    rm::cpu_reference(s, d.X.data(), d.W.data(), y.data());
    EXPECT_EQ(y, with.y);
}

// The layouts, one element at a time: only row k = 2 of batch 1 is non-zero, W is the
// identity, so the only non-zero output is Y(2, 1), stored at 2 + 1*L.
TEST(RowmeanCpuReference, LayoutsAreTheDocumentedOnes) {
    const Sizes s{4, 3, 2};
    Data d{std::vector<float>(s.N * s.L * s.M, 0.0f), std::vector<float>(s.L * s.L, 0.0f)};
    for (int64_t i = 0; i < s.L; ++i) d.W[i * s.L + i] = 1.0f;
    for (int64_t j = 0; j < s.M; ++j) d.X[(1 * s.L + 2) * s.M + j] = static_cast<float>(j + 1);  // mean 2
    const Reference r = reference(s, d);
    for (int64_t b = 0; b < s.N; ++b)
        for (int64_t i = 0; i < s.L; ++i)
            EXPECT_EQ(r.y[rm::y_index(s, i, b)], (i == 2 && b == 1) ? 2.0 : 0.0) << "Y(" << i << ", " << b << ")";
    EXPECT_EQ(rm::y_index(s, 2, 1), 2 + 1 * s.L);
    EXPECT_EQ(rm::x_index(s, 1, 2, 0), (1 * s.L + 2) * s.M);
    EXPECT_EQ(rm::w_index(s, 3, 1), 3 * s.L + 1);
    // A non-identity W reads row i along k: W(0, 2) = 5 puts 5 * 2 into Y(0, 1).
    d.W[0 * s.L + 2] = 5.0f;
    EXPECT_EQ(reference(s, d).y[rm::y_index(s, 0, 1)], 10.0);
}

// ---- the inputs ----------------------------------------------------------------------------

TEST(RowmeanInputs, OneTwoSetHoldsOnlyOnesAndTwosAndIsSeeded) {
    const Sizes s{16, 32, 4};
    std::vector<float> X(rm::x_elements(s)), W(rm::w_elements(s)), X2(X.size()), W2(W.size()), X3(X.size()),
        W3(W.size());
    rm::fill_inputs(rm::InputKind::kOneTwo, 11, s, X.data(), W.data());
    rm::fill_inputs(rm::InputKind::kOneTwo, 11, s, X2.data(), W2.data());
    rm::fill_inputs(rm::InputKind::kOneTwo, 12, s, X3.data(), W3.data());
    int64_t ones = 0;
    for (float x : X) {
        ASSERT_TRUE(x == 1.0f || x == 2.0f) << x;
        ones += x == 1.0f;
    }
    for (float w : W) ASSERT_TRUE(w == 1.0f || w == 2.0f) << w;
    // 2048 fair coin flips: 1024 +- 23 (1 sigma); 150 is more than 6 sigma.
    EXPECT_NEAR(static_cast<double>(ones), X.size() / 2.0, 150.0);
    EXPECT_EQ(X, X2);
    EXPECT_EQ(W, W2);
    EXPECT_NE(X, X3);
}

TEST(RowmeanInputs, UniformSetIsInRangeAndNeverConstant) {
    const Sizes s{8, 16, 2};
    std::vector<float> X(rm::x_elements(s)), W(rm::w_elements(s));
    rm::fill_inputs(rm::InputKind::kUniform, 5, s, X.data(), W.data());
    std::set<float> distinct;
    for (float x : X) {
        ASSERT_GE(x, -1.0f);
        ASSERT_LE(x, 1.0f);
        distinct.insert(x);
    }
    EXPECT_GT(distinct.size(), X.size() - 4);  // 53 random bits per value: collisions are rare
    EXPECT_NE(std::vector<float>(X.begin(), X.begin() + W.size()), W);  // W has its own stream
}

// ---- the exactness claim (problem.hpp, exact_in_float) -------------------------------------

// Y computed in float, summing the means and the dot products forwards or backwards.
std::vector<float> float_result(const Sizes& s, const Data& d, bool backwards) {
    std::vector<float> mean(s.L), y(s.L * s.N);
    auto index = [&](int64_t t, int64_t n) { return backwards ? n - 1 - t : t; };
    for (int64_t b = 0; b < s.N; ++b) {
        for (int64_t k = 0; k < s.L; ++k) {
            float sum = 0.0f;
            for (int64_t t = 0; t < s.M; ++t) sum += d.X[(b * s.L + k) * s.M + index(t, s.M)];
            mean[k] = sum / static_cast<float>(s.M);
        }
        for (int64_t i = 0; i < s.L; ++i) {
            float dot = 0.0f;
            for (int64_t t = 0; t < s.L; ++t) dot += d.W[i * s.L + index(t, s.L)] * mean[index(t, s.L)];
            y[i + b * s.L] = dot;
        }
    }
    return y;
}

Data one_two_data(const Sizes& s, uint64_t seed) {
    Data d{std::vector<float>(rm::x_elements(s)), std::vector<float>(rm::w_elements(s))};
    rm::fill_inputs(rm::InputKind::kOneTwo, seed, s, d.X.data(), d.W.data());
    return d;
}

int64_t bitwise_differences(const std::vector<float>& a, const std::vector<double>& ref) {
    int64_t n = 0;
    for (size_t e = 0; e < a.size(); ++e) {
        const float want = static_cast<float>(ref[e]);
        n += std::memcmp(&a[e], &want, sizeof(float)) != 0;
    }
    return n;
}

TEST(RowmeanExactness, OneTwoInputsAreExactInFloatInAnyOrder) {
    // The study's sizes in miniature, a non-power-of-two L, and the boundary 4*L*M = 2^24.
    const Sizes sizes[] = {{64, 128, 8}, {48, 256, 4}, {1024, 1024, 1}, {2048, 2048, 1}};
    for (const Sizes& s : sizes) {
        SCOPED_TRACE(rm::to_string(s));
        ASSERT_TRUE(rm::exact_in_float(s));
        const Data d = one_two_data(s, 2024);
        const Reference r = reference(s, d);
        for (double y : r.y) ASSERT_EQ(static_cast<double>(static_cast<float>(y)), y) << "not a float";
        EXPECT_EQ(bitwise_differences(float_result(s, d, false), r.y), 0);
        EXPECT_EQ(bitwise_differences(float_result(s, d, true), r.y), 0);
    }
}

TEST(RowmeanExactness, ClaimIsNarrow) {
    EXPECT_TRUE(rm::exact_in_float({512, 512, 1024}));
    EXPECT_TRUE(rm::exact_in_float({1024, 1024, 1024}));
    EXPECT_TRUE(rm::exact_in_float({4096, 1024, 7}));    // 4*L*M = 2^24 exactly
    EXPECT_FALSE(rm::exact_in_float({4097, 1024, 7}));   // one row more passes 2^24
    EXPECT_FALSE(rm::exact_in_float({8192, 1024, 7}));
    EXPECT_FALSE(rm::exact_in_float({64, 3, 7}));        // M not a power of two: 4/3 rounds
    EXPECT_FALSE(rm::exact_in_float({64, 96, 7}));
    EXPECT_FALSE(rm::exact_in_float({2147483647, 2147483647, 1}));  // no overflow on the way
    // Where the claim does not hold, float really does round: M = 3 loses bits in the means.
    const Sizes s{256, 3, 4};
    const Data d = one_two_data(s, 2024);
    const Reference r = reference(s, d);
    EXPECT_GT(bitwise_differences(float_result(s, d, false), r.y) + bitwise_differences(float_result(s, d, true), r.y),
              0);
}

// ---- traffic and sizes -----------------------------------------------------------------------

TEST(RowmeanProblem, MinimumBytesReadXAndWOnceAndWriteYOnce) {
    EXPECT_EQ(rm::x_elements({512, 512, 1024}), int64_t{1} << 28);
    EXPECT_EQ(rm::w_elements({512, 512, 1024}), 512 * 512);
    EXPECT_EQ(rm::y_elements({512, 512, 1024}), 512 * 1024);
    // 1 GiB of X + 1 MiB of W + 2 MiB of Y.
    EXPECT_EQ(rm::min_bytes({512, 512, 1024}), 1073741824 + 1048576 + 2097152);
    // 4 GiB + 4 MiB + 4 MiB.
    EXPECT_EQ(rm::min_bytes({1024, 1024, 1024}), int64_t{4294967296} + 4194304 + 4194304);
    EXPECT_EQ(rm::min_bytes({3, 5, 7}), 4 * (7 * 3 * 5 + 3 * 3 + 3 * 7));
}

TEST(RowmeanProblem, DefaultsAreTheStudysSizes) {
    ASSERT_EQ(std::size(rm::kDefaultSizes), 2u);
    EXPECT_EQ(rm::to_string(rm::kDefaultSizes[0]), "512x512x1024");
    EXPECT_EQ(rm::to_string(rm::kDefaultSizes[1]), "1024x1024x1024");
}

TEST(RowmeanProblem, ValidateNamesTheBadSize) {
    std::string why;
    EXPECT_TRUE(rm::validate({512, 512, 1024}, &why)) << why;
    EXPECT_TRUE(rm::validate({1, 1, 1}, &why)) << why;
    const std::pair<Sizes, std::string> bad[] = {
        {{0, 512, 1024}, "L = 0"},
        {{512, 0, 1024}, "M = 0"},
        {{512, 512, 0}, "N = 0"},
        {{-3, 512, 1024}, "L = -3"},
        {{512, -1, 1024}, "M = -1"},
        {{512, 512, -1024}, "N = -1024"},
        {{int64_t{1} << 31, 4, 4}, "L = 2147483648"},
        {{2147483647, 2147483647, 2147483647}, "2^62"},
    };
    for (const auto& [s, needle] : bad) {
        why.clear();
        EXPECT_FALSE(rm::validate(s, &why)) << rm::to_string(s);
        EXPECT_TRUE(contains(why, needle));
    }
    why.clear();
    rm::validate({0, 512, 1024}, &why);
    EXPECT_TRUE(contains(why, "at least 1"));
}

// ---- the version table -------------------------------------------------------------------

TEST(RowmeanVersions, V1ToV5InOrderWithUniqueNames) {
    const auto& table = rm::versions();
    const std::string expected[] = {"v1", "v2", "v3", "v4", "v5"};
    ASSERT_EQ(table.size(), std::size(expected));
    for (size_t i = 0; i < table.size(); ++i) {
        EXPECT_EQ(table[i].name, expected[i]);
        EXPECT_EQ(rm::find_version(table[i].name), &table[i]);
        EXPECT_GT(std::strlen(table[i].description), 10u);
        EXPECT_NE(table[i].run, nullptr);
        EXPECT_NE(table[i].supports, nullptr);
        EXPECT_NE(table[i].workspace_floats, nullptr);
    }
    EXPECT_EQ(rm::find_version("cpu"), nullptr);  // the reference is not a table row
    EXPECT_EQ(rm::find_version("v6"), nullptr);
}

TEST(RowmeanVersions, KernelNamesAreDistinctiveForProfilers) {
    std::set<std::string> names;
    std::set<const void*> entries;
    for (const rm::Version& v : rm::versions()) {
        SCOPED_TRACE(v.name);
        ASSERT_FALSE(v.kernels.empty());
        const std::string prefix = std::string("rowmean_") + v.name + "_";
        for (const rm::KernelRef& k : v.kernels) {
            const std::string name = k.name;
            EXPECT_EQ(name.rfind(prefix, 0), 0u) << name << " should start with " << prefix;
            EXPECT_GE(name.size(), 6u);
            EXPECT_EQ(name.substr(name.size() - 6), "kernel") << name;
            EXPECT_TRUE(names.insert(name).second) << name << " twice";
            EXPECT_NE(k.entry, nullptr);
            EXPECT_TRUE(entries.insert(k.entry).second) << name << " shares an entry";
        }
        // `regex:rowmean_v1` (what gemmkit profile passes to ncu) must not also select v1x kernels.
        for (const rm::Version& other : rm::versions()) {
            if (&other == &v) continue;
            for (const rm::KernelRef& k : other.kernels) EXPECT_NE(std::string(k.name).rfind(prefix, 0), 0u);
        }
    }
}

TEST(RowmeanVersions, LimitsAndWorkspaces) {
    for (const Sizes& s : rm::kDefaultSizes)
        for (const rm::Version& v : rm::versions()) {
            std::string why;
            EXPECT_TRUE(v.supports(s, &why)) << v.name << " at " << rm::to_string(s) << ": " << why;
            EXPECT_EQ(v.workspace_floats(s), std::string(v.name) == "v5" ? s.L * s.N : 0) << v.name;
            EXPECT_EQ(v.calls_sgemm, std::string(v.name) == "v5") << v.name;
        }
    // A thread per row: v1 and v2 stop at 1024 rows, and say so.
    for (const char* name : {"v1", "v2"}) {
        std::string why;
        EXPECT_FALSE(rm::find_version(name)->supports({1025, 8, 8}, &why)) << name;
        EXPECT_TRUE(contains(why, "L = 1025"));
    }
    // v3 keeps L + 1024 floats in 48 KiB of shared memory, v4 L floats.
    std::string why;
    EXPECT_TRUE(rm::find_version("v3")->supports({11264, 8, 8}, &why)) << why;
    EXPECT_FALSE(rm::find_version("v3")->supports({11265, 8, 8}, &why));
    EXPECT_TRUE(contains(why, "L = 11265"));
    EXPECT_TRUE(rm::find_version("v4")->supports({12288, 8, 8}, &why)) << why;
    EXPECT_FALSE(rm::find_version("v4")->supports({12289, 8, 8}, &why));
    EXPECT_TRUE(rm::find_version("v5")->supports({65536, 8, 8}, &why)) << why;
}

}  // namespace

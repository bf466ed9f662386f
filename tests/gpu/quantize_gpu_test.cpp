// gemmkit_quantize_fp8 and gemmkit_quantize_fp8_blocks on the GPU: BF16, FP16 and FP32 values
// into E4M3 and E5M2, one scale for the tensor, one a column, or one a block of 128 of k and 1
// or 128 columns, odd sizes and padded leading dimensions. Each q and scale is
// compared bit for bit with a host reference of the documented rule (scale = amax / F, 1 for an
// amax of 0; q = x * (1 / scale) rounded to nearest, saturating: fp8_values.hpp); q's
// padding must stay as it was. Then: the largest magnitude lands on +-F; NaN gives a NaN scale;
// a block of zeros gets a scale of 1;
// refused calls leave q and the scales as they were; a CUDA graph replays a quantization; and
// quantized operands go through gemmkit_gemm_scaled_ex close to the product of the originals.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "../host/test_util.hpp"  // names
#include "fp8_values.hpp"
#include "gpu_test.hpp"
#include "kernels/fp8/quantize.hpp"
#include "verify/dtypes.hpp"

namespace gemmkit::test {
namespace {

constexpr uint8_t kPad = 0xA5;  // q's bytes between k and ldq, which no call may write

struct QuantizeCase {
    std::string name;
    int64_t k, mn, ldx, ldq;
    gemmkit_dtype x_type, q_type;
    gemmkit_scale_mode mode;
    int64_t block_mn = 0;  // 1 or 128: gemmkit_quantize_fp8_blocks, the mode unused
};

std::ostream& operator<<(std::ostream& os, const QuantizeCase& c) { return os << c.name; }

// x, its device copies, and q (padded) with the scales, for one case.
struct QuantizeData {
    QuantizeCase c;
    std::vector<unsigned char> x;  // k x mn of x_type, ld ldx
    DeviceBuffer<unsigned char> dx, dq;
    DeviceBuffer<float> dscales;

    explicit QuantizeData(const QuantizeCase& qc, uint64_t seed, cudaStream_t stream)
        : c(qc),
          x(static_cast<size_t>(qc.ldx * qc.mn) * dtype_size(qc.x_type)),
          dx(x.size()),
          dq(static_cast<size_t>(qc.ldq * qc.mn)),
          dscales(static_cast<size_t>(std::max(qc.mn, quantize_scale_count(args(qc))) + 8)) {
        verify::visit_dtype(c.x_type, [&]<class T>(std::type_identity<T>) {
            T* v = reinterpret_cast<T*>(x.data());
            for (int64_t j = 0; j < c.mn; ++j)
                for (int64_t i = 0; i < c.ldx; ++i) {
                    // Magnitudes spread over columns (1/8 to 64) and blocks of k (1 to 4), one
                    // column of zeros.
                    const double column = j == 1 ? 0.0 : std::ldexp(1.0, static_cast<int>(j % 10) - 3);
                    const double block = std::ldexp(1.0, static_cast<int>(i / kScaleBlockK % 3));
                    v[j * c.ldx + i] =
                        verify::from_double<T>(column * block * verify::uniform_value(seed, j * c.ldx + i));
                }
        });
        upload(dx, x, stream);
        reset(stream);
    }

    static QuantizeArgs args(const QuantizeCase& c) {
        QuantizeArgs a;
        a.k = c.k, a.mn = c.mn, a.mode = c.mode, a.block_mn = c.block_mn;
        return a;
    }

    // Which scale x(i, j) takes.
    int64_t scale_index(int64_t i, int64_t j) const {
        if (c.block_mn != 0) return i / kScaleBlockK * ((c.mn + c.block_mn - 1) / c.block_mn) + j / c.block_mn;
        return c.mode == GEMMKIT_SCALE_OUTER ? j : 0;
    }

    // q all pad bytes and the scales -1, as before a call.
    void reset(cudaStream_t stream) {
        upload(dq, std::vector<unsigned char>(dq.size(), kPad), stream);
        upload(dscales, std::vector<float>(dscales.size(), -1.0f), stream);
    }

    float value(int64_t i, int64_t j) const {
        return verify::visit_dtype(c.x_type, [&]<class T>(std::type_identity<T>) {
            T v;
            std::memcpy(&v, x.data() + (j * c.ldx + i) * sizeof(T), sizeof(T));
            return static_cast<float>(verify::to_double(v));
        });
    }

    gemmkit_status run(cudaStream_t stream, float* scales = nullptr) {
        if (c.block_mn != 0)
            return gemmkit_quantize_fp8_blocks(stream, c.k, c.mn, dx.data(), c.x_type, c.ldx, dq.data(), c.q_type,
                                               c.ldq, c.block_mn, scales != nullptr ? scales : dscales.data());
        return gemmkit_quantize_fp8(stream, c.k, c.mn, dx.data(), c.x_type, c.ldx, dq.data(), c.q_type, c.ldq, c.mode,
                                    scales != nullptr ? scales : dscales.data());
    }

    // "" where q and the scales are the reference's bit for bit, else the first difference.
    std::string check(cudaStream_t stream) const {
        const std::vector<unsigned char> q = download(dq, stream);
        const std::vector<float> scales = download(dscales, stream);
        const int64_t count = quantize_scale_count(args(c));
        std::vector<float> want(static_cast<size_t>(count), 0.0f);
        for (int64_t j = 0; j < c.mn; ++j)
            for (int64_t i = 0; i < c.k; ++i) {
                float& m = want[scale_index(i, j)];
                m = nan_max(m, std::fabs(value(i, j)));
            }
        for (float& s : want) s = fp8_scale_of(s, c.q_type);
        for (int64_t j = 0; j < count; ++j)
            if (!same_bits(scales[j], want[j]))
                return "scale " + std::to_string(j) + ": " + std::to_string(scales[j]) + ", want " + std::to_string(want[j]);
        for (int64_t j = count; j < static_cast<int64_t>(scales.size()); ++j)
            if (scales[j] != -1.0f) return "scale " + std::to_string(j) + " written past the scales";
        for (int64_t j = 0; j < c.mn; ++j)
            for (int64_t i = 0; i < c.ldq; ++i) {
                const uint8_t got = q[j * c.ldq + i];
                const uint8_t expect =
                    i < c.k ? to_fp8(value(i, j) * (1.0f / want[scale_index(i, j)]), c.q_type) : kPad;
                if (got != expect)
                    return "q(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(got) +
                           ", want " + std::to_string(expect) + (i < c.k ? "" : " (padding)");
            }
        return "";
    }
};

class QuantizeGpu : public GpuTest, public ::testing::WithParamInterface<QuantizeCase> {};

TEST_P(QuantizeGpu, MatchesTheRuleBitForBit) {
    const QuantizeCase& c = GetParam();
    QuantizeData d(c, 7, stream_);
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_EQ(d.check(stream_), "");
    // The largest magnitude of each column (or of all) comes back as +-F exactly.
    const std::vector<unsigned char> q = download(d.dq, stream_);
    float largest = 0.0f;
    for (int64_t j = 0; j < c.mn; ++j)
        for (int64_t i = 0; i < c.k; ++i) largest = std::fmax(largest, std::fabs(fp8_value(q[j * c.ldq + i], c.q_type)));
    EXPECT_EQ(largest, fp8_max(c.q_type));
}

std::vector<QuantizeCase> cases() {
    struct Shape {
        int64_t k, mn, ldx, ldq;
    };
    const Shape shapes[] = {{1, 1, 1, 1}, {7, 33, 9, 16}, {1000, 20, 1003, 1024}, {4096, 3, 4096, 4100}};
    std::vector<QuantizeCase> out;
    for (gemmkit_dtype x : {GEMMKIT_R_32F, GEMMKIT_R_16F, GEMMKIT_R_16BF})
        for (gemmkit_dtype qt : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2})
            for (gemmkit_scale_mode mode : {GEMMKIT_SCALE_TENSOR, GEMMKIT_SCALE_OUTER})
                for (const Shape& s : shapes)
                    out.push_back({std::string(dtype_name(x)) + "_" + dtype_name(qt) + "_" +
                                       (mode == GEMMKIT_SCALE_OUTER ? "columns" : "tensor") + "_" +
                                       std::to_string(s.k) + "x" + std::to_string(s.mn),
                                   s.k, s.mn, s.ldx, s.ldq, x, qt, mode});
    // Blocks: partial blocks of k and of columns (300 = 2 x 128 + 44, 130 = 128 + 2), one block
    // of each, k under a block, and 524805 columns of 3, more blocks than either grid holds (the
    // grid-stride loops).
    const Shape block_shapes[] = {
        {1, 1, 1, 1}, {300, 130, 304, 320}, {128, 128, 128, 128}, {7, 33, 9, 16}, {3, 128 * 4100 + 5, 5, 4}};
    for (gemmkit_dtype x : {GEMMKIT_R_32F, GEMMKIT_R_16F, GEMMKIT_R_16BF})
        for (gemmkit_dtype qt : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2})
            for (int64_t block_mn : {1, 128})
                for (const Shape& s : block_shapes)
                    out.push_back({std::string(dtype_name(x)) + "_" + dtype_name(qt) + "_blocks" +
                                       std::to_string(block_mn) + "_" + std::to_string(s.k) + "x" +
                                       std::to_string(s.mn),
                                   s.k, s.mn, s.ldx, s.ldq, x, qt, GEMMKIT_SCALE_BLOCK, block_mn});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, QuantizeGpu, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<QuantizeCase>& i) { return i.param.name; });

class QuantizeGpuApi : public GpuTest {};

TEST_F(QuantizeGpuApi, ANaNGivesANaNScale) {
    QuantizeData d({"nan", 64, 4, 64, 64, GEMMKIT_R_32F, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER}, 3, stream_);
    const float nan = std::nanf("");
    std::memcpy(d.x.data() + (2 * 64 + 5) * sizeof(float), &nan, sizeof nan);  // x(5, 2)
    upload(d.dx, d.x, stream_);
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    const std::vector<float> scales = download(d.dscales, stream_);
    EXPECT_TRUE(std::isnan(scales[2]));
    EXPECT_FALSE(std::isnan(scales[0]) || std::isnan(scales[1]) || std::isnan(scales[3]));
    d.c.mode = GEMMKIT_SCALE_TENSOR;
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_TRUE(std::isnan(download(d.dscales, stream_)[0]));
}

// Refused before any device work: q and the scales stay as they were.
TEST_F(QuantizeGpuApi, RefusedCallsLeaveTheOutputsUntouched) {
    const QuantizeCase good{"refused", 64, 8, 64, 64, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER};
    std::vector<float> host_scales(8, 0.0f);
    const struct {
        const char* arg;
        QuantizeCase c;
        float* scales;
    } refused[] = {
        {"ldx", {"", 64, 8, 63, 64, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER}, nullptr},
        {"ldq", {"", 64, 8, 64, 32, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER}, nullptr},
        {"mode", {"", 64, 8, 64, 64, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_BLOCK}, nullptr},
        {"q_type", {"", 64, 8, 64, 64, GEMMKIT_R_16BF, GEMMKIT_R_16F, GEMMKIT_SCALE_OUTER}, nullptr},
        {"block_mn", {"", 64, 8, 64, 64, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_BLOCK, 64}, nullptr},
        {"scales", good, host_scales.data()},  // ordinary host memory
    };
    for (const auto& r : refused) {
        SCOPED_TRACE(r.arg);
        QuantizeData d(good, 5, stream_);
        d.c = r.c;
        EXPECT_NE(d.run(stream_, r.scales), GEMMKIT_SUCCESS);
        EXPECT_TRUE(names(gemmkit_last_error(), r.arg)) << gemmkit_last_error();
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_EQ(download(d.dq, stream_), std::vector<unsigned char>(d.dq.size(), kPad));
        EXPECT_EQ(download(d.dscales, stream_), std::vector<float>(d.dscales.size(), -1.0f));
        EXPECT_EQ(host_scales, std::vector<float>(8, 0.0f));
    }
}

TEST_F(QuantizeGpuApi, ANaNGivesItsBlockANaNScale) {
    for (int64_t block_mn : {1, 128}) {
        SCOPED_TRACE(block_mn);
        QuantizeData d({"nan", 300, 130, 300, 300, GEMMKIT_R_32F, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_BLOCK, block_mn}, 3,
                       stream_);
        const float nan = std::nanf("");
        std::memcpy(d.x.data() + (129 * 300 + 200) * sizeof(float), &nan, sizeof nan);  // x(200, 129)
        upload(d.dx, d.x, stream_);
        ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
        const std::vector<float> scales = download(d.dscales, stream_);
        const int64_t nan_at = d.scale_index(200, 129), count = quantize_scale_count(QuantizeData::args(d.c));
        for (int64_t s = 0; s < count; ++s) EXPECT_EQ(std::isnan(scales[s]), s == nan_at) << "scale " << s;
    }
}

// Column 1 is all zeros: each of its 1 x 128 blocks gets a scale of 1. A 128 x 128 block of zeros,
// here the partial one of k 128..255 and columns 128..129, does too; their q are all 0.
TEST_F(QuantizeGpuApi, ABlockOfZerosGetsAScaleOf1) {
    QuantizeData d({"zeros", 300, 130, 300, 300, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_BLOCK, 1}, 9,
                   stream_);
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_EQ(d.check(stream_), "");
    std::vector<float> scales = download(d.dscales, stream_);
    for (int64_t kb = 0; kb < 3; ++kb) EXPECT_EQ(scales[d.scale_index(kb * 128, 1)], 1.0f) << "k block " << kb;
    d.c.block_mn = 128;
    for (int64_t j = 128; j < 130; ++j) std::memset(d.x.data() + (j * 300 + 128) * 2, 0, 128 * 2);  // BF16 zeros
    upload(d.dx, d.x, stream_);
    d.reset(stream_);
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_EQ(d.check(stream_), "");
    scales = download(d.dscales, stream_);
    EXPECT_EQ(scales[d.scale_index(128, 128)], 1.0f);
    EXPECT_NE(scales[d.scale_index(0, 128)], 1.0f);  // its neighbours along k are not zeros
    const std::vector<unsigned char> q = download(d.dq, stream_);
    for (int64_t j = 128; j < 130; ++j)
        for (int64_t i = 128; i < 256; ++i) EXPECT_EQ(q[j * 300 + i], 0) << "q(" << i << ", " << j << ")";
}

// Captured once (per tensor: a memset and three kernels; per block one kernel), replayed over
// outputs put back: the same q and scales as the rule, each time.
TEST_F(QuantizeGpuApi, AGraphReplaysTheQuantization) {
    for (const QuantizeCase& c :
         {QuantizeCase{"graph", 300, 5, 304, 320, GEMMKIT_R_16BF, GEMMKIT_R_8F_E5M2, GEMMKIT_SCALE_TENSOR},
          QuantizeCase{"graph_blocks", 300, 130, 304, 320, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_BLOCK,
                       128}}) {
        SCOPED_TRACE(c.name);
        QuantizeData d(c, 11, stream_);
        const std::string failure =
            capture_and_replay([&](cudaStream_t s) { return d.run(s); }, [&](cudaStream_t s) { d.reset(s); },
                               [&](int) { return d.check(stream_); });
        EXPECT_EQ(failure, "");
    }
}

// Quantized per column, A and B go through the scaled GEMM: C comes out near the product of the
// BF16 originals (the FP8 rounding, 2^-4 of each value at most, dominates).
TEST_F(QuantizeGpuApi, QuantizedOperandsMultiplyCloseToTheOriginals) {
    if (sm_ < 90) GTEST_SKIP() << "the FP8 GEMM needs sm_90; the device is sm_" << sm_;
    const int64_t m = 96, n = 80, k = 256;
    QuantizeData a({"a", k, m, k, k, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER}, 21, stream_);
    QuantizeData b({"b", k, n, k, k, GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_SCALE_OUTER}, 22, stream_);
    ASSERT_EQ(a.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    ASSERT_EQ(b.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    DeviceBuffer<float> c(static_cast<size_t>(m * n));
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;
    scaling.mode = GEMMKIT_SCALE_OUTER;
    scaling.scale_a = a.dscales.data(), scaling.scale_b = b.dscales.data();
    const float one = 1.0f, zero = 0.0f;
    ASSERT_EQ(gemmkit_gemm_scaled_ex(stream_, GEMMKIT_OP_T, GEMMKIT_OP_N, m, n, k, &one, a.dq.data(),
                                     GEMMKIT_R_8F_E4M3, k, b.dq.data(), GEMMKIT_R_8F_E4M3, k, &zero, c.data(),
                                     GEMMKIT_R_32F, m, &scaling, nullptr, nullptr),
              GEMMKIT_SUCCESS)
        << gemmkit_last_error();
    const std::vector<float> got = download(c, stream_);
    double err = 0.0, norm = 0.0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double want = 0.0;
            for (int64_t p = 0; p < k; ++p) want += static_cast<double>(a.value(p, i)) * b.value(p, j);
            err += (got[j * m + i] - want) * (got[j * m + i] - want);
            norm += want * want;
        }
    // Each FP8 value within 2^-4 of its original (E4M3: 3 mantissa bits); errors of random sign
    // add up to about that over the whole product.
    EXPECT_LT(std::sqrt(err / norm), 0.0625);
}

}  // namespace
}  // namespace gemmkit::test

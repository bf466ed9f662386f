// Grouped GEMM through the C API (gemmkit_gemm_grouped_ex) on Hopper: FP16 and BF16, C of their
// type and FP32, all four ops, uneven groups (a few columns to thousands), empty groups, groups
// of a few columns, a shared A (stride_a 0), alpha and beta, a bias per group, columns past the
// last end left alone, ends out of order (nothing written), and a CUDA graph replayed with new
// ends; auto's rows (TMA stores where C allows them, registers where it does not), and the
// register-epilogue rows by name.
//
// Each group's columns are checked against the double-precision CPU reference of that group's
// GEMM (its own A); every element of C outside the groups' columns must be left as it was.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "verify/dtypes.hpp"
#include "verify/verify.hpp"

namespace gemmkit::test {
namespace {

struct GroupedCase {
    std::string name;
    gemmkit_dtype ab = GEMMKIT_R_16BF, c = GEMMKIT_R_16BF;
    gemmkit_op ta = GEMMKIT_OP_T, tb = GEMMKIT_OP_N;
    int64_t m = 0, k = 0;
    std::vector<int32_t> ends;  // group g: columns ends[g - 1] .. ends[g] - 1
    int64_t n = 0;              // C's columns (at least ends.back())
    bool shared_a = false;      // stride_a 0
    double alpha = 1.0, beta = 0.0;
    bool bias = false;          // a bias per group (bias_stride m + 3)
    int64_t ldc_pad = 1;        // ldc = m + ldc_pad (1: C's columns off 16 bytes, so no TMA stores)
    const char* kernel = nullptr;  // auto, or a row by name
};

// One grouped call on the device: A (one matrix a group), B, C before and after, the ends.
class DeviceGroups {
public:
    explicit DeviceGroups(const GroupedCase& c, uint64_t seed) : c_(c) {
        const int64_t groups = static_cast<int64_t>(c.ends.size());
        const int64_t rows_a = c.ta == GEMMKIT_OP_N ? c.m : c.k, cols_a = c.ta == GEMMKIT_OP_N ? c.k : c.m;
        const int64_t rows_b = c.tb == GEMMKIT_OP_N ? c.k : c.n, cols_b = c.tb == GEMMKIT_OP_N ? c.n : c.k;
        // Leading dimensions rounded up to 8 elements (16 bytes): the grouped kernel reads by TMA.
        lda_ = (rows_a + 7) / 8 * 8, ldb_ = (rows_b + 7) / 8 * 8, ldc_ = c.m + c.ldc_pad;
        stride_a_ = c.shared_a ? 0 : lda_ * cols_a;
        a_count_ = lda_ * cols_a * (c.shared_a ? 1 : groups), b_count_ = ldb_ * cols_b, c_count_ = ldc_ * c.n;
        bias_stride_ = c.m + 3;
        const size_t ab = dtype_size(c.ab), cs = dtype_size(c.c);
        a_ = DeviceBuffer<unsigned char>(a_count_ * ab);
        b_ = DeviceBuffer<unsigned char>(b_count_ * ab);
        c_buf_ = DeviceBuffer<unsigned char>(c_count_ * cs);
        bias_ = DeviceBuffer<unsigned char>(bias_stride_ * groups * cs);
        ends_ = DeviceBuffer<int32_t>(c.ends.size());
        verify::fill_uniform(a_.data(), c.ab, a_count_, seed * 5 + 0, nullptr);
        verify::fill_uniform(b_.data(), c.ab, b_count_, seed * 5 + 1, nullptr);
        verify::fill_uniform(c_buf_.data(), c.c, c_count_, seed * 5 + 2, nullptr);
        verify::fill_uniform(bias_.data(), c.c, bias_stride_ * groups, seed * 5 + 3, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        ends_.copy_from_host(c.ends.data());
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
        c_before_ = to_host(c_buf_);
        c_before_device_ = DeviceBuffer<unsigned char>(c_before_.size());
        c_before_device_.copy_from_host(c_before_.data());
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }

    void reset_c(cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(c_buf_.data(), c_before_.data(), c_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    // New ends for the next run (on `stream`, so that a graph replayed after it reads them).
    void set_ends(const std::vector<int32_t>& ends, cudaStream_t stream) {
        c_.ends = ends;
        CUDA_CHECK(cudaMemcpyAsync(ends_.data(), c_.ends.data(), ends.size() * sizeof(int32_t), cudaMemcpyHostToDevice,
                                   stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    gemmkit_status run(cudaStream_t stream) {
        const float alpha = static_cast<float>(c_.alpha), beta = static_cast<float>(c_.beta);
        gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
        e.bias = bias_.data();
        e.bias_type = c_.c;
        e.bias_stride = bias_stride_;
        return gemmkit_gemm_grouped_ex(stream, c_.ta, c_.tb, c_.m, c_.n, c_.k, &alpha, a_.data(), c_.ab, lda_,
                                       stride_a_, b_.data(), c_.ab, ldb_, &beta, c_buf_.data(), c_.c, ldc_,
                                       ends_.data(), static_cast<int64_t>(c_.ends.size()), GEMMKIT_COMPUTE_32F,
                                       c_.bias ? &e : nullptr, c_.kernel);
    }

    // "" when every group's columns match the reference and nothing else in C changed.
    std::string check() const {
        const std::vector<unsigned char> after = to_host(c_buf_);
        const auto exact = verify::Tf32Inputs::exact;
        const std::vector<double> a = verify::widen_to_host(a_.data(), c_.ab, a_count_, exact);
        const std::vector<double> b = verify::widen_to_host(b_.data(), c_.ab, b_count_, exact);
        const std::vector<double> c0 = verify::widen_to_host(c_before_device_.data(), c_.c, c_count_, exact);
        const std::vector<double> bias = verify::widen_to_host(bias_.data(), c_.c, bias_stride_ * c_.ends.size(), exact);
        const size_t cs = dtype_size(c_.c);
        std::vector<char> inside(static_cast<size_t>(c_count_), 0);
        int64_t begin = 0;
        for (size_t g = 0; g < c_.ends.size(); begin = c_.ends[g++]) {
            const int64_t cols = c_.ends[g] - begin;
            if (cols == 0) continue;
            // Group g: its A, op(B)'s and C's columns begin .. end - 1.
            const int64_t b0 = c_.tb == GEMMKIT_OP_N ? begin * ldb_ : begin, c0g = begin * ldc_;
            std::vector<double> ref(static_cast<size_t>(c_.m * cols)), scale(ref.size());
            ref::cpu_gemm<double>(c_.ta, c_.tb, c_.m, cols, c_.k, c_.alpha, a.data() + g * stride_a_, lda_,
                                  b.data() + b0, ldb_, c_.beta, c_.beta == 0.0 ? nullptr : c0.data() + c0g, ldc_,
                                  ref.data(), scale.data());
            if (c_.bias)
                for (int64_t j = 0; j < cols; ++j)
                    for (int64_t i = 0; i < c_.m; ++i) {
                        const double v = bias[g * bias_stride_ + i];
                        ref[i + j * c_.m] += v, scale[i + j * c_.m] += std::abs(v);
                    }
            for (int64_t j = 0; j < cols; ++j)
                for (int64_t i = 0; i < c_.m; ++i) inside[static_cast<size_t>(c0g + i + j * ldc_)] = 1;
            std::string bad;
            verify::visit_dtype(c_.c, [&]<class T>(std::type_identity<T>) {
                const T* out = reinterpret_cast<const T*>(after.data()) + c0g;
                const verify::CompareResult r = verify::compare<T>(out, ldc_, ref.data(), scale.data(), c_.m, cols, c_.k,
                                                                   verify::tolerance_for(c_.ab, c_.c, GEMMKIT_COMPUTE_32F, c_.k));
                if (!r.pass) bad = "group " + std::to_string(g) + ": " + verify::describe(r);
            });
            if (!bad.empty()) return bad;
        }
        if (const int64_t idx = first_changed_outside(after, c_before_, inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of C, outside every group, changed";
        return "";
    }

    bool c_unchanged() const { return to_host(c_buf_) == c_before_; }

private:
    GroupedCase c_;
    int64_t lda_ = 1, ldb_ = 1, ldc_ = 1, stride_a_ = 0, bias_stride_ = 0;
    int64_t a_count_ = 0, b_count_ = 0, c_count_ = 0;
    DeviceBuffer<unsigned char> a_, b_, c_buf_, bias_, c_before_device_;
    DeviceBuffer<int32_t> ends_;
    std::vector<unsigned char> c_before_;
};

std::vector<GroupedCase> cases() {
    std::vector<GroupedCase> out;
    const std::vector<int32_t> uneven = {16, 16, 160, 300, 300, 301, 700};  // empty groups, 1-column, 2-tile ones
    for (gemmkit_dtype ab : {GEMMKIT_R_16BF, GEMMKIT_R_16F})
        for (gemmkit_dtype c : {ab, GEMMKIT_R_32F})
            for (gemmkit_op ta : {GEMMKIT_OP_N, GEMMKIT_OP_T})
                for (gemmkit_op tb : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
                    GroupedCase g;
                    g.name = std::string(dtype_name(ab)) + "_" + dtype_name(c) + "_" + ops_name(ta, tb);
                    g.ab = ab, g.c = c, g.ta = ta, g.tb = tb;
                    g.m = 200, g.k = 136, g.ends = uneven, g.n = 720;  // 20 columns past the last end
                    out.push_back(g);
                }
    // Groups of a thousand columns and more: many tiles a group, boundaries off 16 bytes.
    const std::vector<int32_t> wide = {1500, 1500, 3001, 4096};
    std::vector<GroupedCase> wide_cases;
    for (gemmkit_dtype ab : {GEMMKIT_R_16BF, GEMMKIT_R_16F})
        for (gemmkit_op ta : {GEMMKIT_OP_N, GEMMKIT_OP_T})
            for (gemmkit_op tb : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
                GroupedCase g;
                g.name = std::string("wide_") + dtype_name(ab) + "_" + ops_name(ta, tb);
                g.ab = ab, g.c = ab == GEMMKIT_R_16F ? GEMMKIT_R_32F : ab, g.ta = ta, g.tb = tb;
                g.m = 200, g.k = 136, g.ends = wide, g.n = 4100;
                wide_cases.push_back(g);
            }
    out.insert(out.end(), wide_cases.begin(), wide_cases.end());
    GroupedCase moe;  // a layer of 8 experts, as a mixture of experts sends it (TN, bias, beta)
    moe.name = "moe_8_experts_bias_beta";
    moe.m = 512, moe.k = 256, moe.ends = {128, 384, 384, 400, 1024, 1040, 1536, 2048}, moe.n = 2048;
    moe.bias = true, moe.alpha = 0.5, moe.beta = 0.25;
    out.push_back(moe);
    GroupedCase shared = moe;  // every group reads the same A
    shared.name = "shared_a", shared.shared_a = true, shared.bias = false, shared.beta = 0.0;
    out.push_back(shared);
    GroupedCase one = moe;  // one group: a plain GEMM
    one.name = "one_group", one.ends = {2048}, one.bias = false;
    out.push_back(one);
    // auto's rows store the tiles inside a group by TMA where C's columns are whole 16-byte
    // chunks and beta is 0; the cases above (ldc off 16 bytes) take its register path. These take
    // its TMA path, then beta != 0 and a C off 16 bytes its register path on the same layer.
    for (GroupedCase g : wide_cases) {
        g.name = "tma_store_" + g.name, g.ldc_pad = 0;
        out.push_back(g);
    }
    GroupedCase tma_moe = moe;
    tma_moe.name = "tma_store_moe_bias", tma_moe.beta = 0.0, tma_moe.ldc_pad = 0;
    out.push_back(tma_moe);
    GroupedCase tma_beta = tma_moe;  // beta != 0: registers
    tma_beta.name = "tma_store_row_with_beta", tma_beta.beta = 0.25;
    out.push_back(tma_beta);
    GroupedCase tma_off = tma_moe;  // ldc off 16 bytes: registers
    tma_off.name = "tma_store_row_c_off_16_bytes", tma_off.ldc_pad = 1;
    out.push_back(tma_off);
    // The register-epilogue rows (grouped_kernel), by name, on C both with and off 16 bytes.
    for (GroupedCase g : wide_cases) {
        g.name = "registers_" + g.name, g.ldc_pad = g.ta == g.tb ? 0 : 1;
        g.kernel = g.ab == GEMMKIT_R_16BF ? "bf16.16_grouped" : "f16.16_grouped";
        out.push_back(g);
    }
    GroupedCase registers_moe = moe;
    registers_moe.name = "registers_moe_bias_beta", registers_moe.kernel = "bf16.16_grouped";
    out.push_back(registers_moe);
    return out;
}

class GroupedGpu : public GpuTest, public ::testing::WithParamInterface<GroupedCase> {};

TEST_P(GroupedGpu, EveryGroupMatchesItsOwnGemm) {
    if (sm_ < 90) GTEST_SKIP() << "the grouped kernel needs sm_90";
    const GroupedCase& c = GetParam();
    DeviceGroups d(c, 7);
    ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_EQ(d.check(), "");
}

INSTANTIATE_TEST_SUITE_P(Cases, GroupedGpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return test_name_part(info.param.name); });

class GroupedGpuEdges : public GpuTest {};

TEST_F(GroupedGpuEdges, EndsOutOfOrderWriteNothing) {
    if (sm_ < 90) GTEST_SKIP() << "the grouped kernel needs sm_90";
    GroupedCase c = cases().front();
    for (const std::vector<int32_t>& bad : {std::vector<int32_t>{16, 8, 700}, std::vector<int32_t>{-1, 300, 700},
                                            std::vector<int32_t>{16, 300, 721}}) {
        c.ends = bad;
        DeviceGroups d(c, 3);
        ASSERT_EQ(d.run(stream_), GEMMKIT_SUCCESS) << gemmkit_last_error();
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_TRUE(d.c_unchanged()) << "ends " << bad[0] << ", " << bad[1] << ", " << bad[2];
    }
}

TEST_F(GroupedGpuEdges, AGraphReplaysWithTheEndsOnTheDevice) {
    if (sm_ < 90) GTEST_SKIP() << "the grouped kernel needs sm_90";
    GroupedCase c = cases().front();
    DeviceGroups d(c, 11);
    const std::vector<std::vector<int32_t>> ends = {{100, 100, 200, 300, 500, 600, 700}, {0, 0, 0, 0, 0, 1, 720}};
    int replay = 0;
    const std::string failure = capture_and_replay(
        [&](cudaStream_t s) { return d.run(s); },
        [&](cudaStream_t s) {
            d.reset_c(s);
            d.set_ends(ends[replay++ % 2], s);  // the graph reads whatever the array holds
        },
        [&](int) { return d.check(); });
    EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace gemmkit::test

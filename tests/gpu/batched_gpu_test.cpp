// Batched GEMM through the C API (gemmkit_gemm_strided_batched_ex, gemmkit_gemm_batched_ex):
// every type, every op, odd sizes, padded and misaligned strides, stride 0 (one A or B for the
// whole batch), pointer arrays in a shuffled order, a batch past one launch's 65535 problems,
// CUDA graph capture and two threads at once. Each problem is checked against the
// double-precision CPU reference on the same inputs, and every byte of C's buffer outside the
// problems' m x n windows (the rows between m and ldc, the gaps between problems) must be left
// as it was.
#include <algorithm>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "plan/corpus.hpp"
#include "verify/dtypes.hpp"
#include "verify/verify.hpp"

namespace gemmkit::test {
namespace {

struct BatchCase {
    const char* name;
    gemmkit_dtype ab = GEMMKIT_R_32F, c = GEMMKIT_R_32F;  // cases() sets them for each type
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
    gemmkit_op ta = GEMMKIT_OP_N, tb = GEMMKIT_OP_N;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    int64_t ld_pad = 0;     // lda, ldb, ldc exceed the stored rows by this much
    int64_t stride_gap = 0;  // elements between one problem's matrix and the next one's
    bool shared_a = false, shared_b = false;  // stride 0: one A (B) for every problem
    bool arrays = false;    // gemmkit_gemm_batched_ex, the problems' matrices in shuffled order
    double alpha = 1.0, beta = 0.0;
    const char* kernel = "auto";
};

// One batch on the device: its operands, C before and after the call, and the strides.
class DeviceBatch {
public:
    explicit DeviceBatch(const BatchCase& c, uint64_t seed) : c_(c) {
        p_.transa = c.ta, p_.transb = c.tb;
        p_.m = c.m, p_.n = c.n, p_.k = c.k;
        p_.alpha = c.alpha, p_.beta = c.beta;
        p_.a_type = c.ab, p_.b_type = c.ab, p_.c_type = c.c;
        p_.compute = c.compute;
        p_.batch.count = c.batch;
        const BatchElements elements = lay_out_batch(&p_, c.ld_pad, c.stride_gap, c.shared_a, c.shared_b);
        a_count_ = elements.a, b_count_ = elements.b, c_count_ = elements.c;
        const size_t ab = dtype_size(c.ab), cs = dtype_size(c.c);
        a_ = DeviceBuffer<unsigned char>(a_count_ * ab);
        b_ = DeviceBuffer<unsigned char>(b_count_ * ab);
        c_buf_ = DeviceBuffer<unsigned char>(c_count_ * cs);
        verify::fill_uniform(a_.data(), c.ab, a_count_, seed * 3 + 0, nullptr);
        verify::fill_uniform(b_.data(), c.ab, b_count_, seed * 3 + 1, nullptr);
        verify::fill_uniform(c_buf_.data(), c.c, c_count_, seed * 3 + 2, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        c_before_ = to_host(c_buf_);
        p_.A = a_.data(), p_.B = b_.data(), p_.C = c_buf_.data();
        if (c.arrays) make_arrays();
    }

    // Puts C back as it was before the first call.
    void reset_c(cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(c_buf_.data(), c_before_.data(), c_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    // The call under test, on `stream`.
    gemmkit_status run(cudaStream_t stream) const {
        const float alpha32 = static_cast<float>(c_.alpha), beta32 = static_cast<float>(c_.beta);
        const bool f64 = c_.compute == GEMMKIT_COMPUTE_64F;
        const void* alpha = f64 ? static_cast<const void*>(&c_.alpha) : &alpha32;
        const void* beta = f64 ? static_cast<const void*>(&c_.beta) : &beta32;
        if (c_.arrays)
            return gemmkit_gemm_batched_ex(stream, p_.transa, p_.transb, p_.m, p_.n, p_.k, alpha,
                                           reinterpret_cast<const void* const*>(d_arrays_.data()), p_.a_type, p_.lda,
                                           reinterpret_cast<const void* const*>(d_arrays_.data()) + c_.batch,
                                           p_.b_type, p_.ldb, beta,
                                           reinterpret_cast<void* const*>(d_arrays_.data()) + 2 * c_.batch, p_.c_type,
                                           p_.ldc, c_.batch, p_.compute, c_.kernel);
        return gemmkit_gemm_strided_batched_ex(stream, p_.transa, p_.transb, p_.m, p_.n, p_.k, alpha, p_.A, p_.a_type,
                                               p_.lda, p_.batch.stride_a, p_.B, p_.b_type, p_.ldb, p_.batch.stride_b,
                                               beta, p_.C, p_.c_type, p_.ldc, p_.batch.stride_c, c_.batch,
                                               p_.compute, c_.kernel);
    }

    // "" when every problem matches the CPU reference and nothing outside them changed; else
    // what went wrong first. Reads C after the call (the caller has synchronized).
    std::string check(verify::Tf32Inputs tf32) const {
        const std::vector<unsigned char> after = to_host(c_buf_);
        const std::vector<double> a = verify::widen_to_host(a_.data(), c_.ab, a_count_, tf32);
        const std::vector<double> b = verify::widen_to_host(b_.data(), c_.ab, b_count_, tf32);
        const std::vector<double> c0 = verify::widen_to_host(c_buf_before_device(), c_.c, c_count_, verify::Tf32Inputs::exact);
        const size_t cs = dtype_size(c_.c);
        std::vector<char> inside(static_cast<size_t>(c_count_), 0);
        std::vector<double> ref(static_cast<size_t>(c_.m * c_.n)), scale(ref.size());
        for (int64_t z = 0; z < c_.batch; ++z) {
            // Problem z's matrices, where the arrays (in their shuffled order) or strides put them.
            const int64_t za = c_.arrays ? order_[z] : z;
            const int64_t a0 = za * p_.batch.stride_a, b0 = za * p_.batch.stride_b, c0z = za * p_.batch.stride_c;
            ref::cpu_gemm<double>(c_.ta, c_.tb, c_.m, c_.n, c_.k, c_.alpha, a.data() + a0, p_.lda, b.data() + b0,
                                  p_.ldb, c_.beta, c_.beta == 0.0 ? nullptr : c0.data() + c0z, p_.ldc, ref.data(),
                                  scale.data());
            for (int64_t j = 0; j < c_.n; ++j)
                for (int64_t i = 0; i < c_.m; ++i) inside[static_cast<size_t>(c0z + i + j * p_.ldc)] = 1;
            std::string bad;
            verify::visit_dtype(c_.c, [&]<class T>(std::type_identity<T>) {
                const T* out = reinterpret_cast<const T*>(after.data()) + c0z;
                const verify::CompareResult r =
                    verify::compare<T>(out, p_.ldc, ref.data(), scale.data(), c_.m, c_.n, c_.k,
                                       verify::tolerance_for(c_.ab, c_.c, c_.compute, c_.k));
                if (!r.pass) bad = "problem " + std::to_string(z) + ": " + verify::describe(r);
            });
            if (!bad.empty()) return bad;
        }
        if (const int64_t idx = first_changed_outside(after, c_before_, inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of C's buffer, outside every problem, changed";
        return "";
    }

    // Whether C's buffer is bit for bit as it was before any call.
    bool c_unchanged() const { return to_host(c_buf_) == c_before_; }

    const Problem& problem() const { return p_; }

private:
    // C's original values on the device, for widening (kept in a buffer of their own).
    const void* c_buf_before_device() const {
        if (c_before_device_.size() == 0) {
            c_before_device_ = DeviceBuffer<unsigned char>(c_before_.size());
            c_before_device_.copy_from_host(c_before_.data());
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        return c_before_device_.data();
    }

    // The problems' matrices through pointer arrays in a shuffled order (make_pointer_arrays).
    void make_arrays() { d_arrays_ = make_pointer_arrays(&p_, &order_); }

    BatchCase c_;
    Problem p_;
    int64_t a_count_ = 0, b_count_ = 0, c_count_ = 0;
    DeviceBuffer<unsigned char> a_, b_, c_buf_;
    mutable DeviceBuffer<unsigned char> c_before_device_;
    std::vector<unsigned char> c_before_;
    std::vector<int64_t> order_;
    DeviceBuffer<uintptr_t> d_arrays_;
};

// The types, by the golden plan corpus's names (problem_of gives their A/B, C and compute).
constexpr const char* kTypes[] = {"f32", "tf32", "f16", "bf16", "bf16.f32c", "f64"};

// The shapes of batch each type runs; `type` names the case's type.
struct NamedCase {
    std::string type;
    BatchCase c;
};
std::vector<NamedCase> cases() {
    std::vector<NamedCase> out;
    for (const char* type : kTypes) {
        Problem t;
        std::string why;
        if (!problem_of(PlanCase{type}, &t, &why)) throw std::invalid_argument(why);
        auto add = [&](BatchCase c) {
            c.ab = t.a_type, c.c = t.c_type, c.compute = t.compute;
            out.push_back({type, c});
        };
        const gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;
        add({.name = "odd_nn", .ta = N, .tb = N, .batch = 3, .m = 129, .n = 65, .k = 33});
        add({.name = "aligned_tn_beta", .ta = T, .tb = N, .batch = 5, .m = 64, .n = 64, .k = 64, .alpha = -1.5, .beta = 0.5});
        add({.name = "padded_nt_gaps", .ta = N, .tb = T, .batch = 2, .m = 7, .n = 33, .k = 1000, .ld_pad = 3, .stride_gap = 5});
        add({.name = "one_tt", .ta = T, .tb = T, .batch = 1, .m = 256, .n = 128, .k = 96});
        add({.name = "shared_b", .ta = N, .tb = N, .batch = 4, .m = 200, .n = 100, .k = 300, .shared_b = true});
        add({.name = "shared_a_tn", .ta = T, .tb = N, .batch = 4, .m = 96, .n = 80, .k = 136, .shared_a = true, .beta = 1.0});
        add({.name = "many_small", .ta = N, .tb = T, .batch = 300, .m = 16, .n = 24, .k = 40, .stride_gap = 8});
        add({.name = "arrays", .ta = N, .tb = N, .batch = 6, .m = 100, .n = 70, .k = 50, .arrays = true, .beta = 1.0});
        add({.name = "arrays_tn_k0", .ta = T, .tb = N, .batch = 3, .m = 20, .n = 9, .k = 0, .arrays = true, .beta = -2.0});
        add({.name = "alpha0", .ta = N, .tb = N, .batch = 3, .m = 31, .n = 17, .k = 12, .stride_gap = 1, .alpha = 0.0, .beta = 0.5});
        // Sizes TMA reads as they are (16-byte columns and strides): the 16-bit and TF32 batches
        // run the wgmma kernels, whose tiles cross from one problem to the next, k past a slab's
        // edge, C stored by TMA (beta 0) or from registers (beta 1), A shared, and a batch whose
        // last round stream-K cuts along k.
        add({.name = "tma_nn_k_edge", .ta = N, .tb = N, .batch = 6, .m = 256, .n = 192, .k = 200});
        add({.name = "tma_tn_beta", .ta = T, .tb = N, .batch = 4, .m = 136, .n = 72, .k = 328, .beta = 1.0});
        add({.name = "tma_shared_a_nt", .ta = N, .tb = T, .batch = 5, .m = 64, .n = 96, .k = 64, .stride_gap = 8, .shared_a = true});
        add({.name = "tma_stream_k", .ta = T, .tb = N, .batch = 2, .m = 512, .n = 384, .k = 2048});
        add({.name = "tma_few_columns", .ta = T, .tb = N, .batch = 3, .m = 1024, .n = 16, .k = 512});
    }
    return out;
}

// "bf16.f32c" and "odd_nn" -> "bf16_f32c_odd_nn".
std::string case_name(const ::testing::TestParamInfo<NamedCase>& info) {
    std::string name = info.param.type + "_" + info.param.c.name;
    std::replace(name.begin(), name.end(), '.', '_');
    return name;
}

// GoogleTest prints a case by its name.
void PrintTo(const NamedCase& c, std::ostream* os) { *os << c.type << " " << c.c.name; }

class BatchedGpuTest : public GpuTest, public ::testing::WithParamInterface<NamedCase> {};

TEST_P(BatchedGpuTest, EveryProblemMatchesTheReference) {
    const BatchCase& c = GetParam().c;
    DeviceBatch d(c, 0xBA7C4 + static_cast<uint64_t>(c.m * 31 + c.batch));
    const gemmkit_status s = d.run(stream_);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_EQ(d.check(verify::tf32_inputs_of(c.kernel, d.problem())), "");
}

INSTANTIATE_TEST_SUITE_P(Types, BatchedGpuTest, ::testing::ValuesIn(cases()), case_name);

class BatchedApiGpuTest : public GpuTest {};

// 70,000 problems: more than one launch's 65535 layers of the grid (chunking.hpp).
TEST_F(BatchedApiGpuTest, BatchPastOneLaunchRunsEveryProblem) {
    const BatchCase c{.name = "past_65535", .ab = GEMMKIT_R_32F, .c = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
                      .ta = GEMMKIT_OP_N, .tb = GEMMKIT_OP_N, .batch = 70000, .m = 4, .n = 3, .k = 5, .beta = 0.25};
    DeviceBatch d(c, 0x7000);
    const gemmkit_status s = d.run(stream_);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_EQ(d.check(verify::Tf32Inputs::exact), "");
}

// A kernel named by the caller that runs one problem a launch refuses a batch, naming why.
TEST_F(BatchedApiGpuTest, NamedKernelWithoutBatchesIsNotSupported) {
    BatchCase c{.name = "named", .ab = GEMMKIT_R_16BF, .c = GEMMKIT_R_16BF, .compute = GEMMKIT_COMPUTE_32F,
                .ta = GEMMKIT_OP_N, .tb = GEMMKIT_OP_N, .batch = 2, .m = 64, .n = 64, .k = 64};
    c.kernel = "bf16.12_stream_k";
    ASSERT_NE(find_kernel(c.kernel), nullptr);
    ASSERT_FALSE(find_kernel(c.kernel)->batches);
    DeviceBatch d(c, 0x4A3E);
    EXPECT_EQ(d.run(stream_), GEMMKIT_NOT_SUPPORTED);
    EXPECT_NE(std::string(gemmkit_last_error()).find("not a batch"), std::string::npos) << gemmkit_last_error();
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_TRUE(d.c_unchanged());
}

// Captured once, replayed twice over a poisoned C: strided and pointer-array batches.
TEST_F(BatchedApiGpuTest, GraphCaptureReplaysCorrectly) {
    for (const bool arrays : {false, true}) {
        const BatchCase c{.name = "graph", .ab = GEMMKIT_R_16BF, .c = GEMMKIT_R_16BF, .compute = GEMMKIT_COMPUTE_32F,
                          .ta = GEMMKIT_OP_T, .tb = GEMMKIT_OP_N, .batch = 8, .m = 192, .n = 136, .k = 264,
                          .arrays = arrays};
        DeviceBatch d(c, arrays ? 0x6A1 : 0x6A0);
        EXPECT_EQ(capture_and_replay([&](cudaStream_t stream) { return d.run(stream); },
                                     [&](cudaStream_t stream) { d.reset_c(stream); },
                                     [&](int) { return d.check(verify::Tf32Inputs::exact); }),
                  "")
            << (arrays ? "arrays" : "strided");
    }
}

// Two threads, each with its own stream and batch (FP32 strided, FP64 pointer arrays), 10 calls each.
TEST_F(BatchedApiGpuTest, ConcurrentThreadsGetCorrectResults) {
    const BatchCase cs[2] = {
        {.name = "t0", .ab = GEMMKIT_R_32F, .c = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F, .ta = GEMMKIT_OP_N,
         .tb = GEMMKIT_OP_T, .batch = 12, .m = 300, .n = 200, .k = 100},
        {.name = "t1", .ab = GEMMKIT_R_64F, .c = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F, .ta = GEMMKIT_OP_T,
         .tb = GEMMKIT_OP_N, .batch = 9, .m = 130, .n = 70, .k = 90, .arrays = true, .beta = 1.0}};
    const std::vector<std::string> error = run_on_threads(2, [&](int id, cudaStream_t stream) -> std::string {
        DeviceBatch d(cs[id], 0x7E0 + static_cast<uint64_t>(id));
        for (int round = 0; round < 10; ++round) {
            d.reset_c(stream);
            const gemmkit_status s = d.run(stream);
            if (s != GEMMKIT_SUCCESS) return "round " + std::to_string(round) + ": " + status_text(s);
            CUDA_CHECK(cudaStreamSynchronize(stream));
            if (std::string bad = d.check(verify::Tf32Inputs::exact); !bad.empty()) return bad;
        }
        return "";
    });
    EXPECT_EQ(error[0], "");
    EXPECT_EQ(error[1], "");
}

}  // namespace
}  // namespace gemmkit::test

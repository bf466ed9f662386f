// Fused epilogues through the C API (gemmkit_gemm_epilogue_ex, the strided and pointer-array
// batches): every type, every activation, with and without bias and aux, odd sizes, alpha and
// beta other than 1 and 0, k == 0 and alpha == 0 (C = act(beta C + bias)), NaN in C with beta 0,
// batches with their own and a shared bias, shapes that take the Hopper wgmma kernels (TMA
// stores, stream-K, few vectors), CUDA graph capture and two threads at once; then every
// registered kernel by name on odd and aligned shapes, and on shapes that cut k (stream-K,
// split-K, few vectors) where the epilogue must apply once, to the finished sums.
//
// Each problem's C is checked against the double-precision CPU reference with the epilogue
// applied (ref::cpu_epilogue), aux against the pre-activation reference; every byte of C's and
// aux's buffers outside the problems' m x n windows must be left as it was, and bias is only read.
#include <algorithm>
#include <cmath>
#include <cstring>
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

struct EpilogueCase {
    std::string name;
    gemmkit_dtype ab = GEMMKIT_R_32F, c = GEMMKIT_R_32F;  // cases() sets them for each type
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
    gemmkit_op ta = GEMMKIT_OP_N, tb = GEMMKIT_OP_N;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    int64_t ld_pad = 0;      // lda, ldb, ldc exceed the stored rows by this much (aux: always by 3)
    int64_t stride_gap = 0;  // elements between one problem's matrices (and bias) and the next one's
    bool strided = false;    // a strided batch call even for batch 1 (batch > 1 always is one)
    bool arrays = false;     // gemmkit_gemm_batched_epilogue_ex, the matrices in shuffled order
    gemmkit_activation act = GEMMKIT_ACTIVATION_NONE;
    bool bias = true;
    bool shared_bias = false;  // bias_stride 0: one bias for every problem
    bool aux = true;
    double alpha = 1.0, beta = 0.0;
    bool nan_c = false;  // C starts as NaN (with beta 0 it must not propagate)
    std::string kernel = "auto";
    uint64_t seed = 1;
};

// aux's leading dimension exceeds m by this much, so its rows between m and ld_aux are checked too.
constexpr int64_t kAuxPad = 3;

// The activation's slope is at most 1.13 (GELU's, either form; SiLU's 1.10, ReLU's 1), so it
// carries the error of v into C at most 1.13 times over. Its own evaluation in the scaling type
// adds a handful of roundings and the 2-ulp error of tanhf, erff or expf, each at most u |v| and
// |v| <= scale (the scale sums the magnitudes of every term of v, bias included): 8 u * scale
// allows for all of them. So the elementwise bound of the accumulation, E = 4 u (sqrt(k) + 1)
// scale, becomes 1.13 E + 8 u scale, and the Frobenius bound of the accumulation grows as much.
// 16-bit C adds two things (docs/epilogues.md): where the activation runs after C's rounding
// it reads v rounded to C's type (u_out |v|, times the slope), and in registers the tanh GELU and
// SiLU use tanh.approx, whose relative error 2^-10.7 moves 0.5 v (1 + tanh) by at most
// 0.5 * 2^-10.7 |v| < 3.1e-4 |v|.
constexpr double kActivationSlope = 1.13, kActivationRoundings = 12.0, kTanhApprox = 3.1e-4;

verify::Tolerance epilogue_tolerance(const EpilogueCase& c) {
    verify::Tolerance t = verify::tolerance_for(c.ab, c.c, c.compute, c.k);
    if (c.act == GEMMKIT_ACTIVATION_NONE) return t;  // a bias add only: one more rounding, |bias| in the scale
    const double sqrt_k = std::sqrt(static_cast<double>(c.k)) + 1.0;
    const double sixteen_bit = t.output_roundoff > 0 ? kActivationSlope * t.output_roundoff + kTanhApprox : 0.0;
    const double extra = kActivationRoundings * t.unit_roundoff + sixteen_bit;  // in units of scale
    const double widen = kActivationSlope + extra / (t.elem_factor * t.unit_roundoff * sqrt_k);
    const double widen_accumulation = kActivationSlope + kActivationRoundings / (t.elem_factor * sqrt_k);
    t.elem_factor *= widen;
    t.rel_frobenius = (t.rel_frobenius - t.output_roundoff) * widen_accumulation + t.output_roundoff + sixteen_bit;
    return t;
}

// One case on the device: its operands, bias, C and aux before and after the call.
class DeviceEpilogue {
public:
    explicit DeviceEpilogue(const EpilogueCase& c) : c_(c) {
        p_.transa = c.ta, p_.transb = c.tb;
        p_.m = c.m, p_.n = c.n, p_.k = c.k;
        p_.alpha = c.alpha, p_.beta = c.beta;
        p_.a_type = c.ab, p_.b_type = c.ab, p_.c_type = c.c;
        p_.compute = c.compute;
        p_.batch.count = c.batch;
        const BatchElements elements = lay_out_batch(&p_, c.ld_pad, c.stride_gap);
        a_count_ = elements.a, b_count_ = elements.b, c_count_ = elements.c;
        Epilogue& e = p_.epilogue;
        e.activation = c.act;
        e.ld_aux = std::max<int64_t>(1, c.m) + kAuxPad;
        e.bias_stride = c.shared_bias ? 0 : c.m + c.stride_gap;
        e.aux_stride = footprint(c.m, c.n, e.ld_aux) + 2 + c.stride_gap;
        bias_count_ = batch_span(e.bias_stride, c.batch, c.m);
        aux_count_ = batch_span(e.aux_stride, c.batch, footprint(c.m, c.n, e.ld_aux));
        const size_t ab = dtype_size(c.ab), cs = dtype_size(c.c);
        a_ = DeviceBuffer<unsigned char>(a_count_ * ab);
        b_ = DeviceBuffer<unsigned char>(b_count_ * ab);
        c_buf_ = DeviceBuffer<unsigned char>(c_count_ * cs);
        bias_ = DeviceBuffer<unsigned char>(bias_count_ * cs);
        aux_ = DeviceBuffer<unsigned char>(aux_count_ * cs);
        verify::fill_uniform(a_.data(), c.ab, a_count_, c.seed * 5 + 0, nullptr);
        verify::fill_uniform(b_.data(), c.ab, b_count_, c.seed * 5 + 1, nullptr);
        if (c.nan_c)
            verify::fill_nan(c_buf_.data(), c.c, c_count_, nullptr);
        else
            verify::fill_uniform(c_buf_.data(), c.c, c_count_, c.seed * 5 + 2, nullptr);
        verify::fill_uniform(bias_.data(), c.c, bias_count_, c.seed * 5 + 3, nullptr);
        verify::fill_nan(aux_.data(), c.c, aux_count_, nullptr);  // an aux element left unwritten fails
        CUDA_CHECK(cudaDeviceSynchronize());
        c_before_ = to_host(c_buf_);
        aux_before_ = to_host(aux_);
        bias_before_ = to_host(bias_);
        c0_ = verify::widen_to_host(c_buf_.data(), c.c, c_count_, verify::Tf32Inputs::exact);
        bias0_ = verify::widen_to_host(bias_.data(), c.c, bias_count_, verify::Tf32Inputs::exact);
        p_.A = a_.data(), p_.B = b_.data(), p_.C = c_buf_.data();
        e.bias = c.bias ? bias_.data() : nullptr;
        e.aux = c.aux ? aux_.data() : nullptr;
        if (c.arrays) make_arrays();
    }

    // Puts C and aux back as they were before the first call.
    void reset(cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(c_buf_.data(), c_before_.data(), c_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(
            cudaMemcpyAsync(aux_.data(), aux_before_.data(), aux_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    // The call under test, on `stream`.
    gemmkit_status run(cudaStream_t stream) const {
        const float alpha32 = static_cast<float>(c_.alpha), beta32 = static_cast<float>(c_.beta);
        const bool f64 = c_.compute == GEMMKIT_COMPUTE_64F;
        const void* alpha = f64 ? static_cast<const void*>(&c_.alpha) : &alpha32;
        const void* beta = f64 ? static_cast<const void*>(&c_.beta) : &beta32;
        const Epilogue& pe = p_.epilogue;
        gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
        e.activation = pe.activation;
        e.bias = pe.bias;
        e.bias_type = c_.c;
        e.bias_stride = pe.bias_stride;
        e.aux = pe.aux;
        e.aux_type = c_.c;
        e.ld_aux = pe.ld_aux;
        e.aux_stride = pe.aux_stride;
        const char* kernel = c_.kernel.c_str();
        if (c_.arrays) {
            const void* const* arrays = reinterpret_cast<const void* const*>(d_arrays_.data());
            return gemmkit_gemm_batched_epilogue_ex(stream, p_.transa, p_.transb, p_.m, p_.n, p_.k, alpha, arrays,
                                                    p_.a_type, p_.lda, arrays + c_.batch, p_.b_type, p_.ldb, beta,
                                                    reinterpret_cast<void* const*>(d_arrays_.data()) + 2 * c_.batch,
                                                    p_.c_type, p_.ldc, c_.batch, p_.compute, &e, kernel);
        }
        if (c_.strided || c_.batch > 1)
            return gemmkit_gemm_strided_batched_epilogue_ex(
                stream, p_.transa, p_.transb, p_.m, p_.n, p_.k, alpha, p_.A, p_.a_type, p_.lda, p_.batch.stride_a,
                p_.B, p_.b_type, p_.ldb, p_.batch.stride_b, beta, p_.C, p_.c_type, p_.ldc, p_.batch.stride_c, c_.batch,
                p_.compute, &e, kernel);
        return gemmkit_gemm_epilogue_ex(stream, p_.transa, p_.transb, p_.m, p_.n, p_.k, alpha, p_.A, p_.a_type,
                                        p_.lda, p_.B, p_.b_type, p_.ldb, beta, p_.C, p_.c_type, p_.ldc, p_.compute,
                                        &e, kernel);
    }

    // "" when every problem's C and aux match the CPU reference and nothing outside them
    // changed; else what went wrong first. The caller has synchronized after the call.
    std::string check(verify::Tf32Inputs tf32) const {
        const std::vector<unsigned char> c_after = to_host(c_buf_), aux_after = to_host(aux_);
        if (to_host(bias_) != bias_before_) return "bias changed: it is only read";
        const std::vector<double> a = verify::widen_to_host(a_.data(), c_.ab, a_count_, tf32);
        const std::vector<double> b = verify::widen_to_host(b_.data(), c_.ab, b_count_, tf32);
        const size_t cs = dtype_size(c_.c);
        const Epilogue& e = p_.epilogue;
        std::vector<char> c_inside(static_cast<size_t>(c_count_), 0), aux_inside(static_cast<size_t>(aux_count_), 0);
        const size_t mn = static_cast<size_t>(c_.m * c_.n);
        std::vector<double> ref(mn), scale(mn), pre(mn);
        const verify::Tolerance tol = epilogue_tolerance(c_);
        const verify::Tolerance aux_tol = verify::tolerance_for(c_.ab, c_.c, c_.compute, c_.k);
        for (int64_t z = 0; z < c_.batch; ++z) {
            // Problem z's matrices, where the arrays (in their shuffled order) or strides put them;
            // its bias and aux by z and their strides in either case.
            const int64_t za = c_.arrays ? order_[z] : z;
            const int64_t a0 = za * p_.batch.stride_a, b0 = za * p_.batch.stride_b, c0z = za * p_.batch.stride_c;
            const int64_t aux0 = z * e.aux_stride;
            ref::cpu_gemm<double>(c_.ta, c_.tb, c_.m, c_.n, c_.k, c_.alpha, a.data() + a0, p_.lda, b.data() + b0,
                                  p_.ldb, c_.beta, c_.beta == 0.0 ? nullptr : c0_.data() + c0z, p_.ldc, ref.data(),
                                  scale.data());
            ref::cpu_epilogue(c_.act, c_.bias ? bias0_.data() + z * e.bias_stride : nullptr, c_.m, c_.n, ref.data(),
                              scale.data(), pre.data());
            for (int64_t j = 0; j < c_.n; ++j)
                for (int64_t i = 0; i < c_.m; ++i) {
                    c_inside[static_cast<size_t>(c0z + i + j * p_.ldc)] = 1;
                    if (c_.aux) aux_inside[static_cast<size_t>(aux0 + i + j * e.ld_aux)] = 1;
                }
            std::string bad;
            verify::visit_dtype(c_.c, [&]<class T>(std::type_identity<T>) {
                const T* out = reinterpret_cast<const T*>(c_after.data()) + c0z;
                const verify::CompareResult r =
                    verify::compare<T>(out, p_.ldc, ref.data(), scale.data(), c_.m, c_.n, c_.k, tol);
                if (!r.pass) {
                    bad = "problem " + std::to_string(z) + ", C: " + verify::describe(r);
                    return;
                }
                if (!c_.aux) return;
                const T* aux = reinterpret_cast<const T*>(aux_after.data()) + aux0;
                const verify::CompareResult ra =
                    verify::compare<T>(aux, e.ld_aux, pre.data(), scale.data(), c_.m, c_.n, c_.k, aux_tol);
                if (!ra.pass) bad = "problem " + std::to_string(z) + ", aux: " + verify::describe(ra);
            });
            if (!bad.empty()) return bad;
        }
        if (const int64_t idx = first_changed_outside(c_after, c_before_, c_inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of C's buffer, outside every problem, changed";
        if (const int64_t idx = first_changed_outside(aux_after, aux_before_, aux_inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of aux's buffer, outside every problem's aux, changed";
        return "";
    }

    bool c_and_aux_unchanged() const { return to_host(c_buf_) == c_before_ && to_host(aux_) == aux_before_; }

    // The problem as the library receives it, with the device pointers (for row_supports and
    // tf32_inputs_of).
    const Problem& problem() const { return p_; }

private:
    // The problems' matrices through pointer arrays in a shuffled order (make_pointer_arrays);
    // problem z's bias and aux stay at z.
    void make_arrays() { d_arrays_ = make_pointer_arrays(&p_, &order_); }

    EpilogueCase c_;
    Problem p_;
    int64_t a_count_ = 0, b_count_ = 0, c_count_ = 0, bias_count_ = 0, aux_count_ = 0;
    DeviceBuffer<unsigned char> a_, b_, c_buf_, bias_, aux_;
    std::vector<unsigned char> c_before_, aux_before_, bias_before_;
    std::vector<double> c0_, bias0_;  // C and bias as they were, widened
    std::vector<int64_t> order_;
    DeviceBuffer<uintptr_t> d_arrays_;
};

// A case's inputs come from a hash of its name (FNV-1a, 64-bit): reproducible, and the same when
// cases are added or removed.
uint64_t seed_of(const std::string& name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char ch : name) h = (h ^ ch) * 0x100000001b3ull;
    return h;
}

// "bf16.f32c" and "relu" -> "bf16_f32c_relu"; "f16.03_mma_ldmatrix" -> "f16_03_mma_ldmatrix".
std::string case_name(const ::testing::TestParamInfo<EpilogueCase>& info) { return test_name_part(info.param.name); }

// GoogleTest prints a case by its name.
void PrintTo(const EpilogueCase& c, std::ostream* os) { *os << c.name << " (kernel " << c.kernel << ")"; }

// The types, by the golden plan corpus's names (problem_of gives their A/B, C and compute).
constexpr const char* kTypes[] = {"f32", "tf32", "f16", "bf16", "bf16.f32c", "f64"};

std::vector<EpilogueCase> type_cases() {
    std::vector<EpilogueCase> out;
    constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;
    constexpr gemmkit_activation kNone = GEMMKIT_ACTIVATION_NONE, kRelu = GEMMKIT_ACTIVATION_RELU,
                                 kGeluTanh = GEMMKIT_ACTIVATION_GELU_TANH, kGeluErf = GEMMKIT_ACTIVATION_GELU_ERF,
                                 kSilu = GEMMKIT_ACTIVATION_SILU;
    for (const char* type : kTypes) {
        Problem t;
        std::string why;
        if (!problem_of(PlanCase{type}, &t, &why)) throw std::invalid_argument(why);
        auto add = [&](EpilogueCase c) {
            c.name = std::string(type) + "_" + c.name;
            c.ab = t.a_type, c.c = t.c_type, c.compute = t.compute;
            c.seed = seed_of(c.name);
            out.push_back(c);
        };
        // Each activation, with bias and aux, on every op, odd sizes and padded leading dimensions.
        add({.name = "none_bias_nn", .ta = N, .tb = N, .m = 129, .n = 65, .k = 40, .ld_pad = 1, .act = kNone, .aux = false});
        add({.name = "none_bias_aux_tn", .ta = T, .tb = N, .m = 129, .n = 65, .k = 40, .ld_pad = 1, .act = kNone});
        add({.name = "relu_bias_aux_nn", .ta = N, .tb = N, .m = 129, .n = 65, .k = 40, .ld_pad = 1, .act = kRelu});
        add({.name = "gelu_tanh_bias_aux_tn", .ta = T, .tb = N, .m = 7, .n = 33, .k = 129, .ld_pad = 2, .act = kGeluTanh});
        add({.name = "gelu_erf_bias_aux_nt", .ta = N, .tb = T, .m = 129, .n = 65, .k = 40, .ld_pad = 1, .act = kGeluErf});
        add({.name = "silu_bias_aux_tt", .ta = T, .tb = T, .m = 129, .n = 65, .k = 40, .ld_pad = 1, .act = kSilu});
        // ...without bias, without aux, with neither.
        add({.name = "relu_only_nn", .ta = N, .tb = N, .m = 129, .n = 65, .k = 40, .act = kRelu, .bias = false, .aux = false});
        add({.name = "gelu_tanh_aux_only_tn", .ta = T, .tb = N, .m = 129, .n = 65, .k = 40, .ld_pad = 1,
             .act = kGeluTanh, .bias = false});
        add({.name = "gelu_erf_bias_only_nn", .ta = N, .tb = N, .m = 7, .n = 33, .k = 129, .act = kGeluErf, .aux = false});
        add({.name = "silu_only_tn", .ta = T, .tb = N, .m = 129, .n = 65, .k = 40, .act = kSilu, .bias = false, .aux = false});
        add({.name = "aux_only_none_nn", .ta = N, .tb = N, .m = 33, .n = 7, .k = 65, .act = kNone, .bias = false});
        // Tiny, and C read with alpha and beta other than 1 and 0.
        add({.name = "one_gelu_tanh", .ta = N, .tb = N, .m = 1, .n = 1, .k = 1, .act = kGeluTanh});
        add({.name = "one_silu_tn_beta", .ta = T, .tb = N, .m = 1, .n = 1, .k = 1, .act = kSilu, .alpha = 0.5, .beta = 0.75});
        add({.name = "beta_gelu_tanh_nn", .ta = N, .tb = N, .m = 257, .n = 300, .k = 64, .ld_pad = 1,
             .act = kGeluTanh, .alpha = 0.5, .beta = 0.75});
        add({.name = "beta_relu_tn", .ta = T, .tb = N, .m = 257, .n = 300, .k = 64, .act = kRelu, .alpha = 0.5, .beta = 0.75});
        add({.name = "beta_silu_nt_no_aux", .ta = N, .tb = T, .m = 257, .n = 300, .k = 64,
             .act = kSilu, .aux = false, .alpha = -1.5, .beta = 0.75});
        // 16-byte aligned sizes that take the Hopper wgmma kernels: C stored by TMA (beta 0) or
        // from registers (beta 1), and a product stream-K cuts along k.
        add({.name = "wgmma_gelu_tanh_nn", .ta = N, .tb = N, .m = 1024, .n = 1024, .k = 256, .act = kGeluTanh});
        add({.name = "wgmma_relu_tn_beta", .ta = T, .tb = N, .m = 1024, .n = 1024, .k = 256, .act = kRelu, .beta = 1.0});
        add({.name = "wgmma_silu_nt_bias_only", .ta = N, .tb = T, .m = 1024, .n = 512, .k = 128, .act = kSilu, .aux = false});
        add({.name = "stream_k_gelu_erf_tn", .ta = T, .tb = N, .m = 512, .n = 384, .k = 2048, .act = kGeluErf});
        // Few columns, and few rows (the kernel forms C^T): the few-vectors rows, k split.
        add({.name = "few_columns_silu_tn", .ta = T, .tb = N, .m = 1024, .n = 16, .k = 512, .act = kSilu});
        add({.name = "few_rows_relu_nn", .ta = N, .tb = N, .m = 8, .n = 1000, .k = 512, .act = kRelu, .beta = 0.5});
        // beta 0 with NaN in C: C is not read, so no NaN reaches C or aux.
        add({.name = "nan_c_gelu_tanh_nn", .ta = N, .tb = N, .m = 129, .n = 65, .k = 40, .ld_pad = 1,
             .act = kGeluTanh, .nan_c = true});
        add({.name = "nan_c_relu_aligned_tn", .ta = T, .tb = N, .m = 256, .n = 192, .k = 128, .act = kRelu, .nan_c = true});
        // k == 0 and alpha == 0: C = act(beta C + bias), A and B not read.
        add({.name = "k0_gelu_tanh", .ta = N, .tb = N, .m = 129, .n = 65, .k = 0, .ld_pad = 1, .act = kGeluTanh, .beta = 0.5});
        add({.name = "k0_beta0_relu_nan_c", .ta = N, .tb = N, .m = 33, .n = 17, .k = 0, .act = kRelu, .nan_c = true});
        add({.name = "alpha0_silu", .ta = T, .tb = N, .m = 31, .n = 17, .k = 12, .act = kSilu, .alpha = 0.0, .beta = 0.5});
        // Batches: strided with bias_stride m and aux_stride, a shared bias (bias_stride 0), a
        // batch of one through the strided call, pointer arrays (bias and aux by z, the matrices
        // shuffled), k == 0 in a batch, and a batch of 16-byte strides (the wgmma batch kernel).
        add({.name = "strided_gelu_erf_nn", .ta = N, .tb = N, .batch = 3, .m = 129, .n = 65, .k = 40,
             .act = kGeluErf, .beta = 0.5});
        add({.name = "strided_gaps_relu_tn", .ta = T, .tb = N, .batch = 3, .m = 7, .n = 33, .k = 100,
             .ld_pad = 3, .stride_gap = 5, .act = kRelu});
        add({.name = "strided_shared_bias_silu_nt", .ta = N, .tb = T, .batch = 3, .m = 100, .n = 70, .k = 50,
             .act = kSilu, .shared_bias = true});
        add({.name = "strided_one_gelu_tanh", .ta = N, .tb = N, .batch = 1, .m = 65, .n = 33, .k = 20, .strided = true,
             .act = kGeluTanh});
        add({.name = "arrays_silu_nn", .ta = N, .tb = N, .batch = 3, .m = 100, .n = 70, .k = 50, .arrays = true,
             .act = kSilu, .beta = 1.0});
        add({.name = "arrays_shared_bias_gelu_tanh_tn", .ta = T, .tb = N, .batch = 3, .m = 64, .n = 48, .k = 40, .arrays = true,
             .act = kGeluTanh, .shared_bias = true});
        add({.name = "arrays_k0_relu", .ta = T, .tb = N, .batch = 3, .m = 20, .n = 9, .k = 0, .arrays = true,
             .act = kRelu, .beta = -2.0});
        add({.name = "strided_tma_gelu_tanh_nn", .ta = N, .tb = N, .batch = 4, .m = 256, .n = 192, .k = 200, .act = kGeluTanh});
        add({.name = "strided_tma_relu_tn_beta", .ta = T, .tb = N, .batch = 3, .m = 136, .n = 72, .k = 328,
             .act = kRelu, .beta = 1.0});
    }
    return out;
}

class EpilogueGpuTest : public GpuTest, public ::testing::WithParamInterface<EpilogueCase> {
protected:
    // Runs the case and checks it; `skip_unsupported`: a named kernel that cannot run the case
    // (its types or sizes, or an older device) skips it with the reason.
    void run_and_check(const EpilogueCase& c, bool skip_unsupported) {
        DeviceEpilogue d(c);
        if (skip_unsupported) {
            const KernelInfo* info = find_kernel(c.kernel.c_str());
            ASSERT_NE(info, nullptr) << c.kernel << " vanished from the registry";
            if (info->min_sm > sm_)
                GTEST_SKIP() << c.kernel << " needs sm_" << info->min_sm << "; device is sm_" << sm_;
            std::string why;
            if (!row_supports(*info, d.problem(), &why))
                GTEST_SKIP() << c.kernel << " does not support this case: " << why;
        }
        const gemmkit_status s = d.run(stream_);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_EQ(d.check(verify::tf32_inputs_of(c.kernel.c_str(), d.problem())), "") << "seed " << c.seed;
    }
};

TEST_P(EpilogueGpuTest, MatchesTheReference) { run_and_check(GetParam(), false); }

INSTANTIATE_TEST_SUITE_P(Types, EpilogueGpuTest, ::testing::ValuesIn(type_cases()), case_name);

// --- Every registered kernel, by name ----------------------------------------------------------

class EpilogueKernelGpuTest : public EpilogueGpuTest {};

bool name_has(const KernelInfo& info, const char* part) {
    return std::string(info.name).find(part) != std::string::npos;
}

// Each row with its own types: an odd shape with C read (beta 0.5), and a 16-byte aligned one
// with beta 0 and NaN in C (where C leaves through TMA or staged 16-byte stores); 16-bit rows
// also write FP32 C on the odd one. Rows that cut k run a shape they cut: stream-K (one tile of
// 188 slabs shared out over 47 clusters; FP64: 93 blocks), split-K, few vectors (few columns,
// and few rows, where the kernel forms C^T), and the TF32 rows that form C's last rows apart
// (peeled_edges.hpp) a C they peel.
std::vector<EpilogueCase> kernel_cases() {
    std::vector<EpilogueCase> out;
    constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;
    for (const KernelInfo& info : registry()) {
        if (!checked_generically(info)) continue;  // grouped_gpu_test.cpp, fp8_gpu_test.cpp
        auto add = [&](EpilogueCase c, const verify::Types& types) {
            c.name = std::string(info.name) + "_" + c.name;
            if (types.c != types.ab) c.name += std::string("_c_") + dtype_name(types.c);
            c.ab = types.ab, c.c = types.c, c.compute = types.compute;
            c.kernel = info.name;
            c.seed = seed_of(c.name);
            out.push_back(c);
        };
        const verify::Types own = verify::types_of(info, false), float_c = verify::types_of(info, true);
        const EpilogueCase odd{.name = "odd_gelu_tanh_nn", .ta = N, .tb = N, .m = 100, .n = 72, .k = 48,
                               .act = GEMMKIT_ACTIVATION_GELU_TANH, .beta = 0.5};
        add(odd, own);
        if (!(float_c == own)) add(odd, float_c);
        add({.name = "aligned_silu_tn_nan_c", .ta = T, .tb = N, .m = 128, .n = 96, .k = 64,
             .act = GEMMKIT_ACTIVATION_SILU, .nan_c = true},
            own);
        const bool cuts_k = name_has(info, "stream_k") || name_has(info, "deferred_epilogue") ||
                            name_has(info, "sized_tiles") || info.rules == PlanRules::kSplitK;
        if (cuts_k)
            add({.name = "cut_k_gelu_erf_tn", .ta = T, .tb = N, .m = 60, .n = 50, .k = 12000,
                 .act = GEMMKIT_ACTIVATION_GELU_ERF, .beta = 0.5},
                own);
        if (info.rules == PlanRules::kFewVectors) {
            add({.name = "few_columns_relu_tn", .ta = T, .tb = N, .m = 3000, .n = 16, .k = 2100,
                 .act = GEMMKIT_ACTIVATION_RELU, .beta = 0.5},
                own);
            add({.name = "few_rows_gelu_tanh_nn", .ta = N, .tb = N, .m = 16, .n = 3000, .k = 2100,
                 .act = GEMMKIT_ACTIVATION_GELU_TANH},
                own);
        }
        if (info.copies_unaligned && own.compute == GEMMKIT_COMPUTE_32F_FAST_TF32)
            add({.name = "peeled_silu_nn", .ta = N, .tb = N, .m = 3076, .n = 2817, .k = 40,
                 .act = GEMMKIT_ACTIVATION_SILU},
                own);
    }
    return out;
}

TEST_P(EpilogueKernelGpuTest, MatchesTheReference) { run_and_check(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Registry, EpilogueKernelGpuTest, ::testing::ValuesIn(kernel_cases()), case_name);
// An empty registry is not an error of this suite.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EpilogueKernelGpuTest);

// --- Graph capture and threads -----------------------------------------------------------------

class EpilogueApiGpuTest : public GpuTest {};

// Captured once, replayed twice over C and aux put back as they were: strided and pointer-array
// batches, each problem with its own bias and aux.
TEST_F(EpilogueApiGpuTest, GraphCaptureReplaysCorrectly) {
    for (const bool arrays : {false, true}) {
        EpilogueCase c{.name = "graph", .ab = GEMMKIT_R_16BF, .c = GEMMKIT_R_16BF, .compute = GEMMKIT_COMPUTE_32F,
                       .ta = GEMMKIT_OP_T, .tb = GEMMKIT_OP_N, .batch = 4, .m = 192, .n = 136, .k = 264,
                       .arrays = arrays, .act = GEMMKIT_ACTIVATION_GELU_TANH};
        c.seed = arrays ? 0x6A1 : 0x6A0;
        DeviceEpilogue d(c);
        EXPECT_EQ(capture_and_replay([&](cudaStream_t stream) { return d.run(stream); },
                                     [&](cudaStream_t stream) { d.reset(stream); },
                                     [&](int) { return d.check(verify::Tf32Inputs::exact); }),
                  "")
            << (arrays ? "arrays" : "strided");
    }
}

// Two threads, each with its own stream and epilogue (FP32 strided with GELU, FP64 pointer
// arrays with SiLU and a shared bias), 5 calls each.
TEST_F(EpilogueApiGpuTest, ConcurrentThreadsGetCorrectResults) {
    EpilogueCase cs[2] = {
        {.name = "t0", .ab = GEMMKIT_R_32F, .c = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F, .ta = GEMMKIT_OP_N,
         .tb = GEMMKIT_OP_T, .batch = 6, .m = 300, .n = 200, .k = 100, .act = GEMMKIT_ACTIVATION_GELU_ERF},
        {.name = "t1", .ab = GEMMKIT_R_64F, .c = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F, .ta = GEMMKIT_OP_T,
         .tb = GEMMKIT_OP_N, .batch = 5, .m = 130, .n = 70, .k = 90, .arrays = true, .act = GEMMKIT_ACTIVATION_SILU,
         .shared_bias = true, .beta = 1.0}};
    cs[0].seed = 0x7E0, cs[1].seed = 0x7E1;
    const std::vector<std::string> error = run_on_threads(2, [&](int id, cudaStream_t stream) -> std::string {
        DeviceEpilogue d(cs[id]);
        for (int round = 0; round < 5; ++round) {
            d.reset(stream);
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

// An invalid epilogue is refused before any device work, C and aux untouched; a NULL one is the
// older call.
TEST_F(EpilogueApiGpuTest, InvalidEpilogueLeavesEverythingUntouched) {
    const EpilogueCase c{.name = "invalid", .ta = GEMMKIT_OP_N, .tb = GEMMKIT_OP_N, .m = 64, .n = 32, .k = 16,
                         .act = GEMMKIT_ACTIVATION_RELU, .beta = 0.5};
    DeviceEpilogue d(c);
    const Problem& p = d.problem();
    const float alpha = 1.0f, beta = 0.5f;
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.activation = GEMMKIT_ACTIVATION_RELU;
    e.aux = p.epilogue.aux;
    e.ld_aux = p.m - 1;
    EXPECT_EQ(gemmkit_gemm_epilogue_ex(stream_, p.transa, p.transb, p.m, p.n, p.k, &alpha, p.A, p.a_type, p.lda, p.B,
                                       p.b_type, p.ldb, &beta, p.C, p.c_type, p.ldc, p.compute, &e, nullptr),
              GEMMKIT_INVALID_VALUE);
    EXPECT_NE(std::string(gemmkit_last_error()).find("epilogue->ld_aux"), std::string::npos) << gemmkit_last_error();
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_TRUE(d.c_and_aux_unchanged());
}

}  // namespace
}  // namespace gemmkit::test

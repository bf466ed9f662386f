// FP8 scaled GEMM through the C API (gemmkit_gemm_scaled_ex) on Hopper: E4M3 operands, and A or B
// E5M2; C of BF16, FP16 and FP32; per-tensor scales, outer (per-row and per-column) scales, block
// scales (1 x 128 of A, 128 x 128 of B), a NULL scale pointer and no scaling descriptor at all;
// beta 0 with NaN in C and beta 0.5; a fused bias + ReLU, with and without aux; odd sizes, k of one
// wgmma and of thousands, k not a multiple of 16 or of a block's 128, padded leading dimensions;
// `auto` and the rows by name. Then the calls the library must refuse (each leaves C as it was),
// block scales all equal against per-tensor scales, and a CUDA graph replayed with new scales on
// the device.
//
// Inputs are seeded uniform values in [-1, 1) rounded to FP8 on the host (cuda_fp8.h), scales in
// [0.5, 2) (block scales over [1/16, 16), so that one read from the wrong block shows). Each C is
// checked against the double-precision CPU reference of exactly those FP8 values times their
// scales, with the epilogue applied (ref::cpu_epilogue), aux against the pre-activation; every byte
// of C's and aux's buffers outside m x n must be left as it was.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <cuda_fp8.h>

#include "../host/test_util.hpp"  // contains, names
#include "fp8_values.hpp"
#include "gpu_test.hpp"
#include "reference/cpu_gemm.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::test {
namespace {

constexpr const char* kFp8Row = "fp8.01_wgmma_scaled";
constexpr const char* kPromotedRow = "fp8.02_promoted";

// FP8 wgmmas multiply exactly (an E4M3 x E4M3 product has at most 8 significant bits, well
// inside FP32), but their tensor cores do not add in full FP32: the products of one wgmma are
// added to the accumulator in fixed point aligned to the largest exponent, keeping about 14 bits
// (DeepSeek-V3 technical report, section 3.3.2), an accumulator of 13 stored mantissa bits,
// truncated (SageAttention2, section 4). So the unit roundoff of the accumulation is 2^-13, not
// the 2^-22 that tolerance_for takes for 16-bit inputs (FP32 adds that may truncate). The rest of
// tolerance_for's model fits as it is: errors growing with sqrt(k) times the magnitude of the
// summed terms (cpu_gemm's scale, which carries the scales), then the rounding of the result to
// C's type; the FP32 products of alpha, the scales and beta add a few 2^-24 roundings, far inside
// it. A kernel that promoted its sums to FP32 registers every few wgmmas (DeepGEMM; CUTLASS's FP8
// "2xAcc") would meet a much tighter bound; this one is what a kernel that accumulates in the
// wgmma accumulators alone must meet, and it still fails wrong scales, a lost slab of k or a
// misplaced element (each an error of a tenth of ||ref|| or more at every k here).
//
// Block scales keep that model. The kernel sums each block's 128 products in the tensor cores as
// before, then multiplies the sum by sa(i, kb) sb(j / 128, kb) and adds it into FP32 registers.
// Block kb's accumulation error is at most that of its unscaled sum, a multiple of 2^-13 times the
// sum of its |products|, and the scales multiply it by |sa sb|: so over all blocks the error is
// the same multiple of the sum of the |scaled products|, which is cpu_gemm's scale where the
// scales sit in the dequantized operands (below). The FP32 products by the scales and the adds
// of the blocks add a few 2^-24 of that sum, far inside it.
constexpr double kFp8AccumulatorRoundoff = 0x1p-13;

// The epilogue's cases need no more: the bias is one more FP32 add (its magnitude joins the
// scale), and ReLU has slope 1 and commutes with rounding to C's type (epilogue_gpu_test.cpp
// widens the bound for the smooth activations, which these tests do not run).
verify::Tolerance fp8_tolerance(gemmkit_dtype c_type, int64_t k) {
    verify::Tolerance t = verify::tolerance_for(GEMMKIT_R_16BF, c_type, GEMMKIT_COMPUTE_32F, k);
    t.unit_roundoff = kFp8AccumulatorRoundoff;
    t.rel_frobenius = 8.0 * t.unit_roundoff * (std::sqrt(static_cast<double>(k)) + 1.0) + t.output_roundoff;
    return t;
}

// Element `index` of a buffer of `type` (BF16, FP16, FP32) as bytes: set from a double (rounded
// to nearest) and read as one (exactly).
void put(std::vector<unsigned char>* bytes, gemmkit_dtype type, int64_t index, double v) {
    verify::visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        const T x = verify::from_double<T>(v);
        std::memcpy(bytes->data() + index * sizeof(T), &x, sizeof(T));
    });
}
double get(const std::vector<unsigned char>& bytes, gemmkit_dtype type, int64_t index) {
    return verify::visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        T x;
        std::memcpy(&x, bytes.data() + index * sizeof(T), sizeof(T));
        return verify::to_double(x);
    });
}

// A scale in [0.5, 2): a factor of up to 4 either way on a product, so that a scale applied to
// the wrong row or column (or not at all) is an error the size of the result.
float scale_value(uint64_t seed, int64_t index) {
    return static_cast<float>(0.5 + 0.75 * (verify::uniform_value(seed, index) + 1.0));
}

// A block scale: a power of two in [2^-4, 2^3] times a mantissa in [1, 2), so scales over
// [1/16, 16) whose products span 2^8 either way: a scale read from the wrong block, row or
// column of blocks is an error the size of the result. (The largest products, 2^8, keep C of
// FP16 far from its 65504 at these sizes.)
float block_scale_value(uint64_t seed, int64_t index) {
    const double u = 0.5 * (verify::uniform_value(seed, 2 * index) + 1.0);  // [0, 1)
    const int e = static_cast<int>(std::floor(8.0 * u)) - 4;                // -4 .. 3
    const double mantissa = 1.5 + 0.5 * verify::uniform_value(seed, 2 * index + 1);
    return static_cast<float>(std::ldexp(mantissa, e));
}

int64_t ceil_div(int64_t x, int64_t by) { return (x + by - 1) / by; }

// A case's inputs come from a hash of its name (FNV-1a, 64-bit): reproducible, and the same when
// cases are added or removed.
uint64_t seed_of(const std::string& name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char ch : name) h = (h ^ ch) * 0x100000001b3ull;
    return h;
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

enum class Scales { kNone, kTensor, kOuter, kBlock };  // kNone: the scaling descriptor is NULL

const char* scales_name(Scales s) {
    constexpr const char* kNames[] = {"null", "tensor", "outer", "block"};  // in the enum's order
    return kNames[static_cast<int>(s)];
}

gemmkit_scale_mode mode_of(Scales s) {
    return s == Scales::kOuter ? GEMMKIT_SCALE_OUTER : s == Scales::kBlock ? GEMMKIT_SCALE_BLOCK : GEMMKIT_SCALE_TENSOR;
}

struct Fp8Case {
    std::string name;
    int64_t m = 0, n = 0, k = 0;
    int64_t ld_pad = 0;   // lda = ldb = k rounded up to 16, plus this (a multiple of 16: TMA)
    int64_t ldc_pad = 3;  // ldc = m + ldc_pad; 3 puts C's columns off 16 bytes
    Scales scales = Scales::kTensor;
    bool scale_a_null = false;  // scale_a NULL (all 1), scale_b given
    bool scale_b_null = false;  // scale_b NULL (all 1), scale_a given
    gemmkit_dtype a = GEMMKIT_R_8F_E4M3, b = GEMMKIT_R_8F_E4M3, c = GEMMKIT_R_16BF;
    float alpha = 0.75f, beta = 0.0f;  // beta 0: C starts as NaN inside m x n (must not propagate)
    gemmkit_activation act = GEMMKIT_ACTIVATION_NONE;
    bool bias = false, aux = false;
};

// GoogleTest prints a case by its name.
void PrintTo(const Fp8Case& c, std::ostream* os) { *os << c.name; }

// The arguments of one gemmkit_gemm_scaled_ex call, held by value so that a test can change one
// of them (a NULL alpha or beta, scaling or epilogue by its flag).
struct ScaledCall {
    gemmkit_op transa = GEMMKIT_OP_T, transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    bool null_alpha = false, null_beta = false;
    const void* A = nullptr;
    gemmkit_dtype a_type = GEMMKIT_R_8F_E4M3;
    int64_t lda = 1;
    const void* B = nullptr;
    gemmkit_dtype b_type = GEMMKIT_R_8F_E4M3;
    int64_t ldb = 1;
    void* C = nullptr;
    gemmkit_dtype c_type = GEMMKIT_R_16BF;
    int64_t ldc = 1;
    bool has_scaling = true;
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;
    bool has_epilogue = false;
    gemmkit_epilogue epilogue = GEMMKIT_EPILOGUE_INIT;
    const char* kernel = nullptr;

    gemmkit_status operator()(cudaStream_t stream) const {
        return gemmkit_gemm_scaled_ex(stream, transa, transb, m, n, k, null_alpha ? nullptr : &alpha, A, a_type, lda,
                                      B, b_type, ldb, null_beta ? nullptr : &beta, C, c_type, ldc,
                                      has_scaling ? &scaling : nullptr, has_epilogue ? &epilogue : nullptr, kernel);
    }
};

// One case on the device: A (stored k x m) and B (stored k x n) in FP8, their padding rows NaN;
// C, bias and aux of C's type; the scales; C and aux as they were before the call.
class DeviceScaled {
public:
    explicit DeviceScaled(const Fp8Case& c) : c_(c), seed_(seed_of(c.name)) {
        lda_ = ldb_ = round_up(c.k, 16) + c.ld_pad;
        ldc_ = std::max<int64_t>(1, c.m) + c.ldc_pad;
        ld_aux_ = std::max<int64_t>(1, c.m) + 3;
        a_bits_ = operand(c.a, c.m, lda_, seed_ * 7 + 0);
        b_bits_ = operand(c.b, c.n, ldb_, seed_ * 7 + 1);
        const size_t cs = dtype_size(c.c);
        c_count_ = ldc_ * c.n, aux_count_ = ld_aux_ * c.n;
        // C: random everywhere; inside m x n NaN where beta is 0 (C is then not read). aux: NaN,
        // so that an element left unwritten fails.
        c_before_.resize(c_count_ * cs);
        for (int64_t j = 0; j < c.n; ++j)
            for (int64_t i = 0; i < ldc_; ++i) {
                const bool nan = c.beta == 0.0f && i < c.m;
                put(&c_before_, c.c, i + j * ldc_, nan ? NAN : verify::uniform_value(seed_ * 7 + 2, i + j * ldc_));
            }
        bias_before_.resize(c.m * cs);
        for (int64_t i = 0; i < c.m; ++i) put(&bias_before_, c.c, i, verify::uniform_value(seed_ * 7 + 3, i));
        aux_before_.resize(aux_count_ * cs);
        for (int64_t idx = 0; idx < aux_count_; ++idx) put(&aux_before_, c.c, idx, NAN);
        make_scales(seed_ * 7 + 4);

        a_ = DeviceBuffer<unsigned char>(a_bits_.size());
        b_ = DeviceBuffer<unsigned char>(b_bits_.size());
        c_buf_ = DeviceBuffer<unsigned char>(c_before_.size());
        bias_ = DeviceBuffer<unsigned char>(bias_before_.size());
        aux_ = DeviceBuffer<unsigned char>(aux_before_.size());
        sa_dev_ = DeviceBuffer<float>(sa_.size());
        sb_dev_ = DeviceBuffer<float>(sb_.size());
        a_.copy_from_host(a_bits_.data());
        b_.copy_from_host(b_bits_.data());
        c_buf_.copy_from_host(c_before_.data());
        bias_.copy_from_host(bias_before_.data());
        aux_.copy_from_host(aux_before_.data());
        sa_dev_.copy_from_host(sa_.data());
        sb_dev_.copy_from_host(sb_.data());
        // The copies are on the legacy stream; callers go on with a non-blocking one.
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }

    // The case's call on the device buffers; kernel: NULL or "auto", or a row's name.
    ScaledCall call(const char* kernel) const {
        ScaledCall s;
        s.m = c_.m, s.n = c_.n, s.k = c_.k;
        s.alpha = c_.alpha, s.beta = c_.beta;
        s.A = a_.data(), s.a_type = c_.a, s.lda = lda_;
        s.B = b_.data(), s.b_type = c_.b, s.ldb = ldb_;
        s.C = const_cast<unsigned char*>(c_buf_.data()), s.c_type = c_.c, s.ldc = ldc_;
        s.has_scaling = c_.scales != Scales::kNone;
        s.scaling.mode = mode_of(c_.scales);
        s.scaling.scale_a = c_.scale_a_null ? nullptr : sa_dev_.data();
        s.scaling.scale_b = c_.scale_b_null ? nullptr : sb_dev_.data();
        s.has_epilogue = c_.act != GEMMKIT_ACTIVATION_NONE || c_.bias || c_.aux;
        s.epilogue.activation = c_.act;
        s.epilogue.bias = c_.bias ? bias_.data() : nullptr;
        s.epilogue.bias_type = c_.c;
        s.epilogue.aux = c_.aux ? const_cast<unsigned char*>(aux_.data()) : nullptr;
        s.epilogue.aux_type = c_.c;
        s.epilogue.ld_aux = ld_aux_;
        s.kernel = kernel;
        return s;
    }

    // Puts C and aux back as they were before the first call.
    void reset(cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(c_buf_.data(), c_before_.data(), c_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(
            cudaMemcpyAsync(aux_.data(), aux_before_.data(), aux_before_.size(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    // New scale values from `seed` in the same device arrays (on `stream`, so that a graph
    // replayed after it reads them); check() then expects them.
    void set_scales(uint64_t seed, cudaStream_t stream) {
        make_scales(seed);
        CUDA_CHECK(cudaMemcpyAsync(sa_dev_.data(), sa_.data(), sa_.size() * sizeof(float), cudaMemcpyHostToDevice,
                                   stream));
        CUDA_CHECK(cudaMemcpyAsync(sb_dev_.data(), sb_.data(), sb_.size() * sizeof(float), cudaMemcpyHostToDevice,
                                   stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    // These scale values (as many as the case's mode takes: scale_a_count(), scale_b_count()) in
    // the same device arrays, on `stream`; check() then expects them.
    void set_scales(const std::vector<float>& a, const std::vector<float>& b, cudaStream_t stream) {
        ASSERT_EQ(a.size(), sa_.size());
        ASSERT_EQ(b.size(), sb_.size());
        sa_ = a, sb_ = b;
        cached_ = false;
        CUDA_CHECK(
            cudaMemcpyAsync(sa_dev_.data(), sa_.data(), sa_.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(
            cudaMemcpyAsync(sb_dev_.data(), sb_.data(), sb_.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    size_t scale_a_count() const { return sa_.size(); }
    size_t scale_b_count() const { return sb_.size(); }

    // "" when this case's C matches `other`'s (the same case, so the same inputs and C before,
    // under other scales that mean the same products) within check()'s bound, with other's C in
    // place of the reference; else how they differ. The caller has synchronized after both calls.
    std::string same_c_as(const DeviceScaled& other) const {
        const int64_t m = c_.m, n = c_.n;
        const std::vector<unsigned char> mine = to_host(c_buf_), theirs = to_host(other.c_buf_);
        std::vector<double> ref(static_cast<size_t>(m * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) ref[i + j * m] = get(theirs, c_.c, i + j * other.ldc_);
        std::string bad;
        verify::visit_dtype(c_.c, [&]<class T>(std::type_identity<T>) {
            const verify::CompareResult r =
                verify::compare<T>(reinterpret_cast<const T*>(mine.data()), ldc_, ref.data(), reference().scale.data(),
                                   m, n, c_.k, fp8_tolerance(c_.c, c_.k));
            if (!r.pass) bad = verify::describe(r);
        });
        return bad;
    }

    // "" when C (and aux) match the reference and nothing outside m x n changed; else what went
    // wrong first. The caller has synchronized after the call.
    std::string check() const {
        const std::vector<unsigned char> c_after = to_host(c_buf_), aux_after = to_host(aux_);
        if (to_host(bias_) != bias_before_) return "bias changed: it is only read";
        const Reference& r = reference();
        const int64_t m = c_.m, n = c_.n;
        const verify::Tolerance tol = fp8_tolerance(c_.c, c_.k);
        std::string bad;
        verify::visit_dtype(c_.c, [&]<class T>(std::type_identity<T>) {
            const verify::CompareResult rc = verify::compare<T>(reinterpret_cast<const T*>(c_after.data()), ldc_,
                                                                r.out.data(), r.scale.data(), m, n, c_.k, tol);
            if (!rc.pass) {
                bad = "C: " + verify::describe(rc);
                return;
            }
            if (!c_.aux) return;
            const verify::CompareResult ra = verify::compare<T>(reinterpret_cast<const T*>(aux_after.data()), ld_aux_,
                                                                r.pre.data(), r.scale.data(), m, n, c_.k, tol);
            if (!ra.pass) bad = "aux: " + verify::describe(ra);
        });
        if (!bad.empty()) return bad;
        const size_t cs = dtype_size(c_.c);
        std::vector<char> c_inside(static_cast<size_t>(c_count_), 0), aux_inside(static_cast<size_t>(aux_count_), 0);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                c_inside[static_cast<size_t>(i + j * ldc_)] = 1;
                if (c_.aux) aux_inside[static_cast<size_t>(i + j * ld_aux_)] = 1;
            }
        if (const int64_t idx = first_changed_outside(c_after, c_before_, c_inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of C's buffer (ldc " + std::to_string(ldc_) +
                   "), outside m x n, changed";
        if (const int64_t idx = first_changed_outside(aux_after, aux_before_, aux_inside, cs); idx >= 0)
            return "element " + std::to_string(idx) + " of aux's buffer, outside m x n, changed";
        return "";
    }

    bool c_and_aux_unchanged() const { return to_host(c_buf_) == c_before_ && to_host(aux_) == aux_before_; }

    uint64_t seed() const { return seed_; }

private:
    // The double-precision reference for the scales of the moment: out (C), scale (the error
    // magnitude), pre (aux: the pre-activation), each m x n with ld m.
    struct Reference {
        std::vector<double> out, scale, pre;
    };

    // A or B as stored (k rows of `cols` columns, ld `ld`): FP8 bit patterns of uniform values,
    // padding rows NaN, so that a kernel reading past k fails.
    std::vector<uint8_t> operand(gemmkit_dtype type, int64_t cols, int64_t ld, uint64_t seed) const {
        std::vector<uint8_t> bits(static_cast<size_t>(ld * std::max<int64_t>(cols, 1)), kFp8NaN);
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t p = 0; p < c_.k; ++p)
                bits[p + j * ld] = to_fp8(static_cast<float>(verify::uniform_value(seed, p + j * c_.k)), type);
        return bits;
    }

    // One value per tensor, one per row of op(A) (m) and column of op(B) (n), or one per block
    // (ceil(k / 128) * m of A's, ceil(k / 128) * ceil(n / 128) of B's, in gemmkit.h's order).
    // With no descriptor they are still made (and uploaded) but not passed.
    void make_scales(uint64_t seed) {
        const bool outer = c_.scales == Scales::kOuter, block = c_.scales == Scales::kBlock;
        const int64_t k_blocks = ceil_div(c_.k, 128);
        sa_.resize(block ? k_blocks * c_.m : outer ? c_.m : 1);
        sb_.resize(block ? k_blocks * ceil_div(c_.n, 128) : outer ? c_.n : 1);
        const auto value = block ? block_scale_value : scale_value;
        for (size_t i = 0; i < sa_.size(); ++i) sa_[i] = value(seed, static_cast<int64_t>(i));
        for (size_t j = 0; j < sb_.size(); ++j) sb_[j] = value(seed + 1, static_cast<int64_t>(j));
        cached_ = false;
    }

    // sa(i) and sb(j) of the product at k = p, as the call passes them: 1 without a descriptor or
    // for a NULL pointer; with block scales, those of p's block of k (and of j's block of columns).
    double scale_a(int64_t i, int64_t p) const {
        if (c_.scales == Scales::kNone || c_.scale_a_null) return 1.0;
        if (c_.scales == Scales::kBlock) return sa_[(p / 128) * c_.m + i];
        return sa_[c_.scales == Scales::kOuter ? i : 0];
    }
    double scale_b(int64_t j, int64_t p) const {
        if (c_.scales == Scales::kNone || c_.scale_b_null) return 1.0;
        if (c_.scales == Scales::kBlock) return sb_[(p / 128) * ceil_div(c_.n, 128) + j / 128];
        return sb_[c_.scales == Scales::kOuter ? j : 0];
    }

    // alpha sum_p sa(i, p) sb(j, p) A(p, i) B(p, j) + beta C(i, j), then the epilogue, in double:
    // the scales go into the dequantized operands (A(p, i) times sa(i, p), B(p, j) times
    // sb(j, p): each product's scale is a factor of A's times one of B's, in every mode), exact
    // in double (4 significant bits times 24), so that cpu_gemm's scale carries them.
    const Reference& reference() const {
        if (cached_) return ref_;
        const int64_t m = c_.m, n = c_.n, k = c_.k;
        std::vector<double> a(a_bits_.size(), 0.0), b(b_bits_.size(), 0.0);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; ++p) a[p + i * lda_] = fp8_value(a_bits_[p + i * lda_], c_.a) * scale_a(i, p);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) b[p + j * ldb_] = fp8_value(b_bits_[p + j * ldb_], c_.b) * scale_b(j, p);
        std::vector<double> c0(static_cast<size_t>(c_count_)), bias0(static_cast<size_t>(m));
        for (int64_t idx = 0; idx < c_count_; ++idx) c0[idx] = get(c_before_, c_.c, idx);
        for (int64_t i = 0; i < m; ++i) bias0[i] = get(bias_before_, c_.c, i);
        const size_t mn = static_cast<size_t>(m * n);
        ref_.out.assign(mn, 0.0), ref_.scale.assign(mn, 0.0), ref_.pre.assign(mn, 0.0);
        ref::cpu_gemm<double>(GEMMKIT_OP_T, GEMMKIT_OP_N, m, n, k, c_.alpha, a.data(), lda_, b.data(), ldb_, c_.beta,
                              c_.beta == 0.0f ? nullptr : c0.data(), ldc_, ref_.out.data(), ref_.scale.data());
        ref::cpu_epilogue(c_.act, c_.bias ? bias0.data() : nullptr, m, n, ref_.out.data(), ref_.scale.data(),
                          ref_.pre.data());
        cached_ = true;
        return ref_;
    }

    Fp8Case c_;
    uint64_t seed_;
    int64_t lda_ = 1, ldb_ = 1, ldc_ = 1, ld_aux_ = 1, c_count_ = 0, aux_count_ = 0;
    std::vector<uint8_t> a_bits_, b_bits_;
    std::vector<unsigned char> c_before_, bias_before_, aux_before_;
    std::vector<float> sa_, sb_;
    DeviceBuffer<unsigned char> a_, b_, c_buf_, bias_, aux_;
    DeviceBuffer<float> sa_dev_, sb_dev_;
    mutable Reference ref_;
    mutable bool cached_ = false;
};

std::vector<Fp8Case> cases() {
    constexpr gemmkit_dtype kBf16 = GEMMKIT_R_16BF, kF16 = GEMMKIT_R_16F, kF32 = GEMMKIT_R_32F;
    constexpr gemmkit_dtype kE5m2 = GEMMKIT_R_8F_E5M2;
    std::vector<Fp8Case> out;
    // The sizes: one 16-deep k (less than a slab), odd m and n, padded lda and ldb, square tiles,
    // many tiles with k of 8 slabs and a ragged last one, a long k on a narrow C, a wide C.
    out.push_back({.name = "1x1x16", .m = 1, .n = 1, .k = 16, .scales = Scales::kTensor, .c = kBf16});
    out.push_back({.name = "7x9x32", .m = 7, .n = 9, .k = 32, .scales = Scales::kOuter, .c = kF16, .beta = 0.5f});
    out.push_back({.name = "127x129x48_ld_padded", .m = 127, .n = 129, .k = 48, .ld_pad = 16,
                   .scales = Scales::kOuter, .c = kF32, .beta = 0.5f});
    // ldc 264: C's columns on 16 bytes with rows past m between them (TMA stores must keep to m).
    out.push_back({.name = "256x256x256", .m = 256, .n = 256, .k = 256, .ldc_pad = 8, .scales = Scales::kTensor,
                   .c = kBf16});
    out.push_back({.name = "300x520x1040", .m = 300, .n = 520, .k = 1040, .scales = Scales::kOuter, .c = kBf16,
                   .beta = 0.5f});
    out.push_back({.name = "1000x17x4096", .m = 1000, .n = 17, .k = 4096, .scales = Scales::kTensor, .c = kF32});
    out.push_back({.name = "64x2112x128", .m = 64, .n = 2112, .k = 128, .ldc_pad = 0, .scales = Scales::kNone,
                   .c = kF16});
    // k that is no multiple of 16 (TMA fills the last slab past k with zeros).
    out.push_back({.name = "33x65x40_odd_k", .m = 33, .n = 65, .k = 40, .scales = Scales::kTensor, .c = kBf16,
                   .beta = 0.5f});
    // Every scaling, C type and beta on one odd shape.
    for (Scales s : {Scales::kNone, Scales::kTensor, Scales::kOuter})
        for (gemmkit_dtype c : {kBf16, kF16, kF32})
            for (float beta : {0.0f, 0.5f})
                out.push_back({.name = std::string("grid_") + scales_name(s) + "_" + dtype_name(c) +
                                       (beta == 0.0f ? "_beta0" : "_beta05"),
                               .m = 127, .n = 129, .k = 48, .ld_pad = 16, .scales = s, .c = c, .beta = beta});
    // A NULL scale is 1, the other one still applies.
    out.push_back({.name = "outer_scale_a_null", .m = 100, .n = 80, .k = 64, .scales = Scales::kOuter,
                   .scale_a_null = true, .c = kF32, .beta = 0.5f});
    // One operand E5M2 (the wgmma names each operand's format).
    out.push_back({.name = "a_e5m2", .m = 200, .n = 136, .k = 256, .scales = Scales::kOuter, .a = kE5m2, .c = kBf16,
                   .beta = 0.5f});
    out.push_back({.name = "b_e5m2", .m = 136, .n = 200, .k = 256, .scales = Scales::kTensor, .b = kE5m2, .c = kF32});
    // The fused epilogue, after the scales, alpha and beta, as gemmkit_gemm_epilogue_ex applies it.
    out.push_back({.name = "epilogue_bias_relu", .m = 300, .n = 200, .k = 192, .scales = Scales::kOuter, .c = kBf16,
                   .beta = 0.5f, .act = GEMMKIT_ACTIVATION_RELU, .bias = true});
    out.push_back({.name = "epilogue_bias_relu_aux", .m = 129, .n = 96, .k = 64, .scales = Scales::kTensor, .c = kF16,
                   .act = GEMMKIT_ACTIVATION_RELU, .bias = true, .aux = true});
    return out;
}

class Fp8Gpu : public GpuTest, public ::testing::WithParamInterface<Fp8Case> {};

// Each case through `auto` and through each row by name, C and aux put back between them.
TEST_P(Fp8Gpu, MatchesTheReference) {
    if (sm_ < 90) GTEST_SKIP() << kFp8Row << " needs sm_90; the device is sm_" << sm_;
    DeviceScaled d(GetParam());
    for (const char* kernel : {"auto", kFp8Row, kPromotedRow}) {
        SCOPED_TRACE(kernel);
        d.reset(stream_);
        const gemmkit_status s = d.call(kernel)(stream_);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_EQ(d.check(), "") << "seed " << d.seed();
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, Fp8Gpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return test_name_part(info.param.name); });

// Block scales (GEMMKIT_SCALE_BLOCK): a scale for each 128 of k, A's per row and B's per 128
// columns, so the cases put k, m and n off those 128s and off the 128 x 256 tile.
std::vector<Fp8Case> block_cases() {
    constexpr gemmkit_dtype kBf16 = GEMMKIT_R_16BF, kF16 = GEMMKIT_R_16F, kF32 = GEMMKIT_R_32F;
    constexpr gemmkit_dtype kE5m2 = GEMMKIT_R_8F_E5M2;
    // A case with block scales; the rest of Fp8Case as it starts (E4M3, alpha 0.75).
    const auto block = [](std::string name, int64_t m, int64_t n, int64_t k, gemmkit_dtype c, float beta) {
        return Fp8Case{.name = std::move(name), .m = m, .n = n, .k = k, .scales = Scales::kBlock, .c = c, .beta = beta};
    };
    std::vector<Fp8Case> out;
    // Less than one block of k, one block, one block and one element of the next, many blocks
    // with a ragged last one; one element, one column of B's blocks, one and a bit, several.
    out.push_back(block("block_1x1x16", 1, 1, 16, kBf16, 0.0f));
    out.push_back(block("block_64x256x128", 64, 256, 128, kF32, 0.0f));
    out.back().ldc_pad = 0;
    out.push_back(block("block_64x129x129", 64, 129, 129, kF32, 0.5f));
    out.push_back(block("block_130x300x1000", 130, 300, 1000, kBf16, 0.0f));
    out.push_back(block("block_257x520x1000_ld_padded", 257, 520, 1000, kF16, 0.5f));
    out.back().ld_pad = 32;
    out.push_back(block("block_512x1024x4096", 512, 1024, 4096, kBf16, 0.5f));
    out.back().alpha = 1.25f, out.back().ldc_pad = 0;
    // Every C type and beta on one shape off every 128 and off the 128 x 256 tile.
    for (gemmkit_dtype c : {kBf16, kF16, kF32})
        for (float beta : {0.0f, 0.5f})
            out.push_back(block(std::string("block_grid_") + dtype_name(c) + (beta == 0.0f ? "_beta0" : "_beta05"), 130,
                                300, 200, c, beta));
    // A NULL scale is 1 for every block; the other operand's blocks still apply.
    out.push_back(block("block_scale_a_null", 130, 300, 1000, kF32, 0.5f));
    out.back().scale_a_null = true;
    out.push_back(block("block_scale_b_null", 300, 130, 1000, kBf16, 0.0f));
    out.back().scale_b_null = true;
    // One operand E5M2.
    out.push_back(block("block_a_e5m2", 200, 300, 384, kF32, 0.5f));
    out.back().a = kE5m2;
    out.push_back(block("block_b_e5m2", 136, 200, 1000, kBf16, 0.0f));
    out.back().b = kE5m2;
    // The fused epilogue after the block-scaled sums, alpha and beta.
    out.push_back(block("block_epilogue_bias_relu", 300, 200, 320, kBf16, 0.5f));
    out.back().act = GEMMKIT_ACTIVATION_RELU, out.back().bias = true;
    return out;
}

class Fp8BlockGpu : public GpuTest, public ::testing::WithParamInterface<Fp8Case> {};

// Each case through `auto` (kernel NULL) and the row that serves block scales by name, C and aux
// put back between them. (The row that keeps its sums in the tensor cores refuses them:
// RefusedCallsLeaveCUntouched.)
TEST_P(Fp8BlockGpu, MatchesTheReference) {
    if (sm_ < 90) GTEST_SKIP() << kPromotedRow << " needs sm_90; the device is sm_" << sm_;
    DeviceScaled d(GetParam());
    for (const char* kernel : {static_cast<const char*>(nullptr), kPromotedRow}) {
        SCOPED_TRACE(kernel == nullptr ? "auto (NULL)" : kernel);
        d.reset(stream_);
        const gemmkit_status s = d.call(kernel)(stream_);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_EQ(d.check(), "") << "seed " << d.seed();
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, Fp8BlockGpu, ::testing::ValuesIn(block_cases()),
                         [](const auto& info) { return test_name_part(info.param.name); });

class Fp8GpuApi : public GpuTest {};

// One refusal: what changes in a valid call, the status (`any_failure`: any but SUCCESS), and a
// text the message must hold.
struct Refusal {
    std::string what;
    std::function<void(ScaledCall*)> change;
    gemmkit_status status = GEMMKIT_INVALID_VALUE;
    std::string needle;
    bool any_failure = false;
};

// Every refusal comes before any device work: C (and aux) stay as they were. These do not run the
// kernel, so they run on any GPU. m = n = k, so that flipping an op leaves lda and ldb valid.
TEST_F(Fp8GpuApi, RefusedCallsLeaveCUntouched) {
    const Fp8Case c{.name = "refused", .m = 64, .n = 64, .k = 64, .scales = Scales::kOuter, .c = GEMMKIT_R_16BF,
                    .beta = 0.5f};
    DeviceScaled d(c);
    const auto misalign = [](const float* p, int bytes) {
        return reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + bytes);
    };
    const std::vector<Refusal> refusals = {
        {"size 0", [](ScaledCall* s) { s->scaling.size = 0; }, GEMMKIT_INVALID_VALUE, "scaling->size"},
        {"size of an older struct", [](ScaledCall* s) { s->scaling.size = sizeof(gemmkit_scaling) - sizeof(void*); },
         GEMMKIT_INVALID_VALUE, "scaling->size"},
        {"size of a newer struct", [](ScaledCall* s) { s->scaling.size = sizeof(gemmkit_scaling) + 8; },
         GEMMKIT_INVALID_VALUE, "scaling->size"},
        {"mode 3", [](ScaledCall* s) { s->scaling.mode = static_cast<gemmkit_scale_mode>(3); }, GEMMKIT_INVALID_VALUE,
         "scaling->mode"},
        // Block scales are applied as the sums move into FP32 every 128 of k: not with fast_accum,
        // nor on the row that keeps its sums in the tensor cores. (m = n = k = 64: the outer
        // scales' arrays hold the 64 values of A's blocks and the one of B's.)
        {"block scaling with fast_accum",
         [](ScaledCall* s) { s->scaling.mode = GEMMKIT_SCALE_BLOCK, s->scaling.fast_accum = 1; }, GEMMKIT_NOT_SUPPORTED,
         "scaling->fast_accum"},
        {"block scaling with fast_accum, the promoted row by name",
         [](ScaledCall* s) {
             s->scaling.mode = GEMMKIT_SCALE_BLOCK, s->scaling.fast_accum = 1, s->kernel = kPromotedRow;
         },
         GEMMKIT_NOT_SUPPORTED, "scaling->fast_accum"},
        {"block scaling on fp8.01_wgmma_scaled by name",
         [](ScaledCall* s) { s->scaling.mode = GEMMKIT_SCALE_BLOCK, s->kernel = kFp8Row; }, GEMMKIT_NOT_SUPPORTED,
         kFp8Row},
        {"scale_a off 4 bytes", [&](ScaledCall* s) { s->scaling.scale_a = misalign(s->scaling.scale_a, 2); },
         GEMMKIT_INVALID_VALUE, "scaling->scale_a"},
        {"scale_b off 4 bytes", [&](ScaledCall* s) { s->scaling.scale_b = misalign(s->scaling.scale_b, 1); },
         GEMMKIT_INVALID_VALUE, "scaling->scale_b"},
        {"A of FP16", [](ScaledCall* s) { s->a_type = GEMMKIT_R_16F; }, GEMMKIT_INVALID_VALUE, "a_type"},
        {"B of BF16", [](ScaledCall* s) { s->b_type = GEMMKIT_R_16BF; }, GEMMKIT_INVALID_VALUE, "b_type"},
        {"both E5M2", [](ScaledCall* s) { s->a_type = s->b_type = GEMMKIT_R_8F_E5M2; }, GEMMKIT_NOT_SUPPORTED, "E5M2"},
        {"C of E4M3", [](ScaledCall* s) { s->c_type = GEMMKIT_R_8F_E4M3; }, GEMMKIT_SUCCESS, "c_type", true},
        {"C of FP64", [](ScaledCall* s) { s->c_type = GEMMKIT_R_64F; }, GEMMKIT_SUCCESS, "c_type", true},
        {"ops NN", [](ScaledCall* s) { s->transa = GEMMKIT_OP_N; }, GEMMKIT_NOT_SUPPORTED, "K-major"},
        {"ops TT", [](ScaledCall* s) { s->transb = GEMMKIT_OP_T; }, GEMMKIT_NOT_SUPPORTED, "K-major"},
        {"ops NT", [](ScaledCall* s) { s->transa = GEMMKIT_OP_N, s->transb = GEMMKIT_OP_T; }, GEMMKIT_NOT_SUPPORTED,
         "K-major"},
        {"ops NN, the row by name", [](ScaledCall* s) { s->transa = GEMMKIT_OP_N, s->kernel = kFp8Row; },
         GEMMKIT_NOT_SUPPORTED, "K-major"},
        {"alpha NULL", [](ScaledCall* s) { s->null_alpha = true; }, GEMMKIT_INVALID_VALUE, "alpha is NULL"},
        {"beta NULL", [](ScaledCall* s) { s->null_beta = true; }, GEMMKIT_INVALID_VALUE, "beta is NULL"},
        // What TMA cannot read: lda off 16 bytes, B off 16 bytes (header: NOT_SUPPORTED).
        {"lda 72", [](ScaledCall* s) { s->lda = 72; }, GEMMKIT_NOT_SUPPORTED, "TMA"},
        {"B off 16 bytes", [](ScaledCall* s) { s->B = static_cast<const char*>(s->B) + 8; }, GEMMKIT_NOT_SUPPORTED,
         "TMA"},
    };
    for (const Refusal& r : refusals) {
        SCOPED_TRACE(r.what);
        ScaledCall call = d.call(nullptr);
        r.change(&call);
        const gemmkit_status s = call(stream_);
        const std::string msg = gemmkit_last_error();
        if (r.any_failure)
            EXPECT_NE(s, GEMMKIT_SUCCESS);
        else
            EXPECT_EQ(s, r.status) << status_text(s);
        EXPECT_TRUE(contains(msg, r.needle));
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_TRUE(d.c_and_aux_unchanged());
    }
}

// Block scales all equal to sa and sb mean what the per-tensor scales sa and sb mean, and the two
// calls must agree within check()'s bound (in practice they differ only where the FP32 products
// of the scales round: per block of k, or once for the sum). Then A's scales of one block of k
// change: the block call follows them (its reference) and leaves the per-tensor result, by about
// the share of that block in the sum (sqrt(1 / 8) of ||C|| here), far over the bound. A kernel
// that took one scale for all blocks, or none, fails one of the two.
TEST_F(Fp8GpuApi, BlockScalesAllEqualAreTheTensorScales) {
    if (sm_ < 90) GTEST_SKIP() << kPromotedRow << " needs sm_90; the device is sm_" << sm_;
    constexpr float kSa = 2.5f, kSb = 0.3f;  // sa sb = 0.75: a scale not applied is off by a third
    Fp8Case c{.name = "block_vs_tensor",
              .m = 130,
              .n = 300,
              .k = 1000,
              .scales = Scales::kTensor,
              .c = GEMMKIT_R_32F,
              .beta = 0.5f};
    DeviceScaled tensor(c);
    c.scales = Scales::kBlock;
    DeviceScaled block(c);  // the same name: the same operands and C
    tensor.set_scales({kSa}, {kSb}, stream_);
    std::vector<float> sa(block.scale_a_count(), kSa), sb(block.scale_b_count(), kSb);
    block.set_scales(sa, sb, stream_);
    for (DeviceScaled* d : {&tensor, &block}) {
        d->reset(stream_);
        const gemmkit_status s = d->call(nullptr)(stream_);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
        ASSERT_CUDA(cudaStreamSynchronize(stream_));
        EXPECT_EQ(d->check(), "") << "seed " << d->seed();
    }
    EXPECT_EQ(block.same_c_as(tensor), "") << "seed " << block.seed();

    // A's scales of block kb = 1 (k in [128, 256)) doubled, for every row.
    for (int64_t i = 0; i < c.m; ++i) sa[static_cast<size_t>(c.m + i)] = 2 * kSa;
    block.set_scales(sa, sb, stream_);
    block.reset(stream_);
    const gemmkit_status s = block.call(nullptr)(stream_);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_EQ(block.check(), "") << "seed " << block.seed();
    EXPECT_NE(block.same_c_as(tensor), "") << "one block's scales changed and C did not follow";
}

// Captured once, replayed twice over C put back as it was, the second time with new scale values
// in the same device arrays: the kernel reads the scales when it runs, not when it was captured.
// Outer scales, and block scales (which the main loop reads, not the epilogue).
TEST_F(Fp8GpuApi, AGraphReplaysWithTheScalesOnTheDevice) {
    if (sm_ < 90) GTEST_SKIP() << kFp8Row << " needs sm_90; the device is sm_" << sm_;
    for (Scales scales : {Scales::kOuter, Scales::kBlock}) {
        SCOPED_TRACE(scales_name(scales));
        // "graph": the outer case's name (and so its inputs) from before block scales.
        const Fp8Case c{.name = scales == Scales::kOuter ? "graph" : "graph_block",
                        .m = 192,
                        .n = 136,
                        .k = 256,
                        .scales = scales,
                        .c = GEMMKIT_R_16BF,
                        .beta = 0.5f,
                        .act = GEMMKIT_ACTIVATION_RELU,
                        .bias = true};
        DeviceScaled d(c);
        int replay = 0;
        const std::string failure =
            capture_and_replay([&](cudaStream_t s) { return d.call(nullptr)(s); },
                               [&](cudaStream_t s) {
                                   d.reset(s);
                                   d.set_scales(d.seed() + 100 * static_cast<uint64_t>(replay++), s);
                               },
                               [&](int) { return d.check(); });
        EXPECT_EQ(failure, "") << "seed " << d.seed();
    }
}

}  // namespace
}  // namespace gemmkit::test

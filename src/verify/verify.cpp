#include "verify/verify.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

#include "common/check.hpp"
#include "common/host_copy.hpp"
#include "reference/cpu_gemm.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::verify {
namespace {

// Elements a column-major rows x cols matrix with leading dimension ld spans, after `offset`.
int64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t offset) {
    return offset + (rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows);
}

}  // namespace

std::string describe(const Case& c) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %lldx%lldx%lld ld+%lld off+%lld alpha=%g beta=%g%s seed=%llu",
                  ops_name(c.transa, c.transb), static_cast<long long>(c.m), static_cast<long long>(c.n),
                  static_cast<long long>(c.k), static_cast<long long>(c.ld_pad), static_cast<long long>(c.offset),
                  c.alpha, c.beta, c.nan_in_c ? " C=NaN" : "", static_cast<unsigned long long>(c.seed));
    return buf;
}

Problem problem_of(const Case& c) {
    Problem p;
    p.transa = c.transa;
    p.transb = c.transb;
    p.m = c.m;
    p.n = c.n;
    p.k = c.k;
    p.lda = std::max<int64_t>(1, stored_rows_a(p)) + c.ld_pad;
    p.ldb = std::max<int64_t>(1, stored_rows_b(p)) + c.ld_pad;
    p.ldc = std::max<int64_t>(1, c.m) + c.ld_pad;
    p.alpha = c.alpha;
    p.beta = c.beta;
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_32F;
    p.compute = GEMMKIT_COMPUTE_32F;
    return p;
}

struct Checker::Buffers {
    DeviceBuffer<float> a, b, c;
    std::vector<float> c_before;   // C's whole buffer before any run
    std::vector<double> ref, scale;
};

Checker::Checker(const Case& c, const ref::Cublas& blas, cudaStream_t stream)
    : case_(c), stream_(stream), buf_(std::make_unique<Buffers>()) {
    const bool ta = c.transa == GEMMKIT_OP_T, tb = c.transb == GEMMKIT_OP_T;
    problem_ = problem_of(c);
    Problem& p = problem_;
    // Buffers hold at least one element so every pointer is a real allocation.
    buf_->a = DeviceBuffer<float>(std::max<int64_t>(1, span(stored_rows_a(p), ta ? c.m : c.k, p.lda, c.offset)));
    buf_->b = DeviceBuffer<float>(std::max<int64_t>(1, span(stored_rows_b(p), tb ? c.k : c.n, p.ldb, c.offset)));
    buf_->c = DeviceBuffer<float>(std::max<int64_t>(1, span(c.m, c.n, p.ldc, c.offset)));
    p.A = buf_->a.data() + c.offset;
    p.B = buf_->b.data() + c.offset;
    p.C = buf_->c.data() + c.offset;
    fill_uniform(buf_->a.data(), buf_->a.size(), c.seed * 3 + 0, stream);
    fill_uniform(buf_->b.data(), buf_->b.size(), c.seed * 3 + 1, stream);
    reset_c();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    buf_->c_before = to_host(buf_->c);

    const size_t mn = static_cast<size_t>(c.m * c.n);
    cpu_reference_ = static_cast<double>(c.m) * c.n * c.k <= kCpuReferenceMaxMacs;
    if (cpu_reference_) {
        buf_->ref.resize(mn);
        buf_->scale.resize(mn);
        const std::vector<float> ha = to_host(buf_->a), hb = to_host(buf_->b);
        ref::cpu_gemm<float>(c.transa, c.transb, c.m, c.n, c.k, c.alpha, ha.data() + c.offset, p.lda,
                             hb.data() + c.offset, p.ldb, c.beta, buf_->c_before.data() + c.offset, p.ldc,
                             buf_->ref.data(), buf_->scale.data());
    } else {
        DeviceBuffer<double> d_ref(mn), d_scale(mn);
        ref::cublas_reference_f64(blas, p, d_ref.data(), d_scale.data());
        buf_->ref = to_host(d_ref);
        buf_->scale = to_host(d_scale);
    }
}

Checker::~Checker() = default;

void Checker::reset_c() {
    if (case_.nan_in_c)
        fill_nan(buf_->c.data(), buf_->c.size(), stream_);
    else
        fill_uniform(buf_->c.data(), buf_->c.size(), case_.seed * 3 + 2, stream_);
}

Outcome Checker::run(const char* kernel) {
    const Problem& p = problem_;
    reset_c();
    Outcome out;
    out.cpu_reference = cpu_reference_;
    const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
    out.status = gemmkit_gemm_ex(stream_, p.transa, p.transb, p.m, p.n, p.k, &alpha, p.A, GEMMKIT_R_32F, p.lda, p.B,
                                 GEMMKIT_R_32F, p.ldb, &beta, p.C, GEMMKIT_R_32F, p.ldc, GEMMKIT_COMPUTE_32F, kernel);
    if (out.status != GEMMKIT_SUCCESS) {
        out.message = gemmkit_last_error();
        return out;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaGetLastError());
    const std::vector<float> after = to_host(buf_->c);
    out.result = compare(after.data() + case_.offset, p.ldc, buf_->ref.data(), buf_->scale.data(), p.m, p.n, p.k,
                         tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, p.k));

    // Outside the m x n window nothing may change: the offset prefix, and the rows between m and ldc.
    const std::vector<float>& before = buf_->c_before;
    for (int64_t idx = 0; idx < static_cast<int64_t>(before.size()); ++idx) {
        const int64_t rel = idx - case_.offset;
        const bool inside = rel >= 0 && rel / p.ldc < p.n && rel % p.ldc < p.m;
        if (!inside && std::memcmp(&before[idx], &after[idx], sizeof(float)) != 0) ++out.outside_writes;
    }
    return out;
}

Outcome run_case(const char* kernel, const Case& c, const ref::Cublas& blas, cudaStream_t stream) {
    return Checker(c, blas, stream).run(kernel);
}

}  // namespace gemmkit::verify

#include "verify/verify.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/check.hpp"
#include "common/host_copy.hpp"
#include "device_state.hpp"
#include "reference/cpu_gemm.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::verify {
namespace {

// Elements a column-major rows x cols matrix with leading dimension ld spans, after `offset`.
int64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t offset) {
    return offset + (rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows);
}

bool is_half(gemmkit_dtype t) { return t == GEMMKIT_R_16F || t == GEMMKIT_R_16BF; }

// The compute mode a type accumulates in by default; others are named in types_name.
gemmkit_compute natural_compute(gemmkit_dtype ab) {
    return ab == GEMMKIT_R_64F ? GEMMKIT_COMPUTE_64F : GEMMKIT_COMPUTE_32F;
}

const char* compute_name(gemmkit_compute c) {
    switch (c) {
        case GEMMKIT_COMPUTE_32F: return "c32f";
        case GEMMKIT_COMPUTE_32F_FAST_TF32: return "tf32";
        case GEMMKIT_COMPUTE_64F: return "c64f";
    }
    return "c?";
}

// A scalar as gemmkit_gemm_ex receives it: a float unless compute is FP64.
double in_compute_type(double x, gemmkit_compute compute) {
    if (compute == GEMMKIT_COMPUTE_64F) return x;
    // volatile: GCC 12.2 at -O2 (SLP vectorizer) turns the two adjacent double -> float ->
    // double round trips of alpha and beta into plain copies; the store forces the rounding.
    volatile float rounded = static_cast<float>(x);
    return rounded;
}

}  // namespace

std::string types_name(const Types& t) {
    const bool tf32 = t.compute == GEMMKIT_COMPUTE_32F_FAST_TF32 && t.ab == GEMMKIT_R_32F;
    std::string s = tf32 ? "tf32" : dtype_name(t.ab);
    if (t.c != t.ab) s += std::string("->") + dtype_name(t.c);
    if (!tf32 && t.compute != natural_compute(t.ab)) s += std::string(" ") + compute_name(t.compute);
    return s;
}

Types types_of(const KernelInfo& row, bool c_f32) {
    return {row.dtype, c_f32 && is_half(row.dtype) ? GEMMKIT_R_32F : row.dtype, row.compute};
}

std::vector<KernelGroup> group_by_types(const std::vector<const KernelInfo*>& rows, bool c_f32) {
    std::vector<KernelGroup> groups;
    for (const KernelInfo* row : rows) {
        if (fp8(row->dtype)) continue;  // FP8 data: not the Checker's (checked_generically)
        const Types t = types_of(*row, c_f32);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const KernelGroup& g) { return g.types == t; });
        if (it == groups.end()) it = groups.insert(groups.end(), KernelGroup{t, {}});
        it->kernels.push_back(row);
    }
    return groups;
}

std::string describe(const Case& c) {
    const Types t = types_of(c);
    const std::string types = t == Types{} ? "" : types_name(t) + " ";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %lldx%lldx%lld ld+%lld off+%lld alpha=%g beta=%g%s seed=%llu",
                  ops_name(c.transa, c.transb), static_cast<long long>(c.m), static_cast<long long>(c.n),
                  static_cast<long long>(c.k), static_cast<long long>(c.ld_pad), static_cast<long long>(c.offset),
                  c.alpha, c.beta, c.nan_in_c ? " C=NaN" : "", static_cast<unsigned long long>(c.seed));
    return types + buf;
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
    p.a_type = p.b_type = c.ab_type;
    p.c_type = c.c_type;
    p.compute = c.compute;
    // The scalars have the compute type (gemmkit_gemm_ex): the reference uses what the kernel gets.
    p.alpha = in_compute_type(c.alpha, c.compute);
    p.beta = in_compute_type(c.beta, c.compute);
    return p;
}

// The reference result and its error scale (m x n, ld m).
struct Checker::Reference {
    std::vector<double> values, scale;
};

// A, B and C as raw bytes of their types; counts are in elements.
struct Checker::Buffers {
    DeviceBuffer<unsigned char> a, b, c;
    int64_t a_count = 0, b_count = 0, c_count = 0;
    std::vector<unsigned char> c_before;  // C's whole buffer before any run
    std::map<Tf32Inputs, Reference> refs;  // built when a kernel first needs one
};

Checker::Checker(const Case& c, const ref::Cublas& blas, cudaStream_t stream)
    : case_(c), blas_(blas), stream_(stream), buf_(std::make_unique<Buffers>()) {
    const bool ta = c.transa == GEMMKIT_OP_T, tb = c.transb == GEMMKIT_OP_T;
    problem_ = problem_of(c);
    Problem& p = problem_;
    const size_t ab_size = dtype_size(c.ab_type), c_size = dtype_size(c.c_type);
    if (ab_size == 0 || c_size == 0) throw std::invalid_argument("verify::Checker: invalid data type");
    // Buffers hold at least one element so every pointer is a real allocation.
    Buffers& buf = *buf_;
    buf.a_count = std::max<int64_t>(1, span(stored_rows_a(p), ta ? c.m : c.k, p.lda, c.offset));
    buf.b_count = std::max<int64_t>(1, span(stored_rows_b(p), tb ? c.k : c.n, p.ldb, c.offset));
    buf.c_count = std::max<int64_t>(1, span(c.m, c.n, p.ldc, c.offset));
    buf.a = DeviceBuffer<unsigned char>(buf.a_count * ab_size);
    buf.b = DeviceBuffer<unsigned char>(buf.b_count * ab_size);
    buf.c = DeviceBuffer<unsigned char>(buf.c_count * c_size);
    p.A = buf.a.data() + c.offset * ab_size;
    p.B = buf.b.data() + c.offset * ab_size;
    p.C = buf.c.data() + c.offset * c_size;
    fill_uniform(buf.a.data(), c.ab_type, buf.a_count, c.seed * 3 + 0, stream);
    fill_uniform(buf.b.data(), c.ab_type, buf.b_count, c.seed * 3 + 1, stream);
    reset_c();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    buf.c_before = to_host(buf.c);
    cpu_reference_ = static_cast<double>(c.m) * c.n * c.k <= kCpuReferenceMaxMacs;
}

// The reference from exactly the values the kernel reads: under TF32 compute, A and B cut to
// TF32 the kernel's way (C is read as it is). Computed once per way, from C's starting values.
const Checker::Reference& Checker::reference(Tf32Inputs tf32) {
    Buffers& buf = *buf_;
    auto it = buf.refs.find(tf32);
    if (it != buf.refs.end()) return it->second;
    const Case& c = case_;
    const Problem& p = problem_;
    const size_t mn = static_cast<size_t>(c.m * c.n);
    Reference r;
    if (cpu_reference_) {
        r.values.resize(mn);
        r.scale.resize(mn);
        const std::vector<double> ha = widen_to_host(buf.a.data(), c.ab_type, buf.a_count, tf32);
        const std::vector<double> hb = widen_to_host(buf.b.data(), c.ab_type, buf.b_count, tf32);
        std::vector<double> hc(buf.c_before.size() / dtype_size(c.c_type));
        visit_dtype(c.c_type, [&]<class T>(std::type_identity<T>) {
            const T* before = reinterpret_cast<const T*>(buf.c_before.data());
            for (size_t i = 0; i < hc.size(); ++i) hc[i] = to_double(before[i]);
        });
        ref::cpu_gemm<double>(c.transa, c.transb, c.m, c.n, c.k, p.alpha, ha.data() + c.offset, p.lda,
                              hb.data() + c.offset, p.ldb, p.beta, hc.data() + c.offset, p.ldc, r.values.data(),
                              r.scale.data());
    } else {
        reset_c();  // the reference reads C's starting values on the device
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        DeviceBuffer<double> d_ref(mn), d_scale(mn);
        ref::cublas_reference_f64(blas_, p, tf32, d_ref.data(), d_scale.data());
        r.values = to_host(d_ref);
        r.scale = to_host(d_scale);
    }
    return buf.refs.emplace(tf32, std::move(r)).first->second;
}

Checker::~Checker() = default;

void Checker::reset_c() {
    if (case_.nan_in_c)
        fill_nan(buf_->c.data(), case_.c_type, buf_->c_count, stream_);
    else
        fill_uniform(buf_->c.data(), case_.c_type, buf_->c_count, case_.seed * 3 + 2, stream_);
}

Outcome Checker::run(const char* kernel) {
    const Problem& p = problem_;
    const Reference& ref = reference(tf32_inputs_of(kernel, p));
    reset_c();
    Outcome out;
    out.cpu_reference = cpu_reference_;
    // alpha and beta point to values of the compute type.
    const float alpha32 = static_cast<float>(p.alpha), beta32 = static_cast<float>(p.beta);
    const double alpha64 = p.alpha, beta64 = p.beta;
    const bool f64 = p.compute == GEMMKIT_COMPUTE_64F;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    out.status = gemmkit_gemm_ex(stream_, p.transa, p.transb, p.m, p.n, p.k, alpha, p.A, p.a_type, p.lda, p.B,
                                 p.b_type, p.ldb, beta, p.C, p.c_type, p.ldc, p.compute, kernel);
    if (out.status != GEMMKIT_SUCCESS) {
        out.message = gemmkit_last_error();
        return out;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaGetLastError());

    visit_dtype(p.c_type, [&]<class T>(std::type_identity<T>) {
        std::vector<T> after(static_cast<size_t>(buf_->c_count));
        CUDA_CHECK(cudaMemcpy(after.data(), buf_->c.data(), after.size() * sizeof(T), cudaMemcpyDeviceToHost));
        out.result = compare(after.data() + case_.offset, p.ldc, ref.values.data(), ref.scale.data(), p.m, p.n, p.k,
                             tolerance_for(p.a_type, p.c_type, p.compute, p.k));

        // Outside the m x n window nothing may change, bit for bit: the offset prefix, and
        // the rows between m and ldc.
        const unsigned char* before = buf_->c_before.data();
        for (int64_t idx = 0; idx < buf_->c_count; ++idx) {
            const int64_t rel = idx - case_.offset;
            const bool inside = rel >= 0 && rel / p.ldc < p.n && rel % p.ldc < p.m;
            if (!inside && std::memcmp(before + idx * sizeof(T), &after[idx], sizeof(T)) != 0) ++out.outside_writes;
        }
    });
    return out;
}

Tf32Inputs tf32_inputs_of(const char* kernel, const Problem& p) {
    if (p.compute != GEMMKIT_COMPUTE_32F_FAST_TF32) return Tf32Inputs::exact;
    const KernelInfo* info = nullptr;
    if (kernel == nullptr || std::strcmp(kernel, "auto") == 0) {
        DeviceState dev;
        std::string why;
        if (current_device(&dev) == GEMMKIT_SUCCESS) info = choose_kernel(p, dev.sm, &why);
    } else {
        info = find_kernel(kernel);
    }
    const bool truncates = info != nullptr && info->truncates_tf32 != nullptr && info->truncates_tf32(p);
    return truncates ? Tf32Inputs::truncated : Tf32Inputs::rounded;
}

Outcome run_case(const char* kernel, const Case& c, const ref::Cublas& blas, cudaStream_t stream) {
    return Checker(c, blas, stream).run(kernel);
}

}  // namespace gemmkit::verify

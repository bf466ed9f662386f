// The C API: argument checks, kernel choice, dispatch. No printing, no exit().
#include <cstring>
#include <utility>
#include <string>

#include <cuda_runtime_api.h>

#include "chunking.hpp"
#include "common/status.hpp"
#include "device_state.hpp"
#include "dispatch.hpp"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "sm_limit.hpp"
#include "validate.hpp"

namespace gemmkit {
namespace {

bool is_auto(const char* kernel) { return kernel == nullptr || std::strcmp(kernel, "auto") == 0; }

// Whether any registered kernel can run p's types and sizes on some device: a property of the
// registry, not of the device, so that a type combination nothing serves is
// GEMMKIT_NOT_SUPPORTED on a machine without a GPU too. Asked only when there is no device
// (with one, plan_gemm answers it), to keep the registry walk off the common path.
bool any_kernel_supports(const Problem& p, std::string* why) {
    std::string reason;
    for (const KernelInfo& info : registry())
        if (row_supports(info, p, &reason)) return true;
    *why = std::string("no kernel serves A/B/C = ") + dtype_name(p.a_type) + "/" + dtype_name(p.b_type) + "/" +
           dtype_name(p.c_type) + " with this compute type";
    return false;
}

}  // namespace

gemmkit_status gemm(const Problem& p, bool alpha_null, bool beta_null, cudaStream_t stream, const char* kernel) {
    if (gemmkit_status s = validate(p, alpha_null, beta_null); s != GEMMKIT_SUCCESS) return s;

    const KernelInfo* named = nullptr;
    if (!is_auto(kernel)) {
        named = find_kernel(kernel);
        if (named == nullptr)
            return fail(GEMMKIT_UNKNOWN_KERNEL, std::string("kernel = \"") + kernel +
                                                    "\" is not registered (gemmkit list shows the names)");
    }
    std::string why;
    if (named != nullptr && !row_supports(*named, p, &why))
        return fail(GEMMKIT_NOT_SUPPORTED, std::string(named->name) + ": " + why);
    if (p.m == 0 || p.n == 0 || p.batch.count == 0) {
        clear_error();
        return GEMMKIT_SUCCESS;
    }

    DeviceFacts facts;
    if (gemmkit_status s = current_device_facts(&facts); s != GEMMKIT_SUCCESS) {
        // Without a device, types that no kernel serves are still NOT_SUPPORTED, as with one.
        if (named == nullptr && !any_kernel_supports(p, &why)) return fail(GEMMKIT_NOT_SUPPORTED, why);
        return s;
    }
    if (gemmkit_status s = check_no_pending_error(); s != GEMMKIT_SUCCESS) return s;
    Plan plan;
    if (!plan_gemm(p, facts, kernel, &plan, &why, /*explain=*/false)) return fail(GEMMKIT_NOT_SUPPORTED, why);
    const KernelInfo* info = plan.kernel;

    const bool arrays = pointer_arrays(p);
    if (gemmkit_status s = check_device_pointer(arrays ? static_cast<const void*>(p.batch.c_array) : p.C,
                                                arrays ? "Carray" : "C");
        s != GEMMKIT_SUCCESS)
        return s;
    for (const auto& [ptr, name] : {std::pair<const void*, const char*>{p.epilogue.bias, "epilogue->bias"},
                                    {p.epilogue.aux, "epilogue->aux"}, {p.groups.ends, "group_ends"},
                                    {p.scaling.a, "scaling->scale_a"}, {p.scaling.b, "scaling->scale_b"}})
        if (ptr != nullptr)
            if (gemmkit_status s = check_device_pointer(ptr, name); s != GEMMKIT_SUCCESS) return s;
    cudaError_t err;
    if (!reads_ab(p)) {
        err = launch_scale(p, stream);
    } else {
        const void* a = arrays ? static_cast<const void*>(p.batch.a_array) : p.A;
        const void* b = arrays ? static_cast<const void*>(p.batch.b_array) : p.B;
        if (gemmkit_status s = check_device_pointer(a, arrays ? "Aarray" : "A"); s != GEMMKIT_SUCCESS) return s;
        if (gemmkit_status s = check_device_pointer(b, arrays ? "Barray" : "B"); s != GEMMKIT_SUCCESS) return s;
        // A problem past the chunk limits (sizes, or a batch past one launch) runs as several;
        // each chunk gets its own plan. A grouped call is within them (validate_groups).
        err = grouped(p) ? info->launch(p, plan, stream) : for_each_chunk(p, ChunkLimits{}, [&](const Problem& sub) {
            if (sub.m == p.m && sub.n == p.n && sub.k == p.k && sub.batch.count == p.batch.count)
                return info->launch(sub, plan, stream);
            Plan part;
            std::string ignored;
            if (!plan_gemm(sub, facts, info->name, &part, &ignored, /*explain=*/false)) return cudaErrorInvalidValue;
            return info->launch(sub, part, stream);
        });
    }
    if (err != cudaSuccess) return fail_cuda(err, info->name);
    clear_error();
    return GEMMKIT_SUCCESS;
}

}  // namespace gemmkit

using gemmkit::Problem;

extern "C" gemmkit_status gemmkit_sgemm(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m,
                                        int64_t n, int64_t k, const float* alpha, const float* A, int64_t lda,
                                        const float* B, int64_t ldb, const float* beta, float* C, int64_t ldc) {
    return gemmkit_gemm_ex(stream, transa, transb, m, n, k, alpha, A, GEMMKIT_R_32F, lda, B, GEMMKIT_R_32F, ldb, beta,
                           C, GEMMKIT_R_32F, ldc, GEMMKIT_COMPUTE_32F, nullptr);
}

extern "C" gemmkit_status gemmkit_dgemm(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m,
                                        int64_t n, int64_t k, const double* alpha, const double* A, int64_t lda,
                                        const double* B, int64_t ldb, const double* beta, double* C, int64_t ldc) {
    return gemmkit_gemm_ex(stream, transa, transb, m, n, k, alpha, A, GEMMKIT_R_64F, lda, B, GEMMKIT_R_64F, ldb, beta,
                           C, GEMMKIT_R_64F, ldc, GEMMKIT_COMPUTE_64F, nullptr);
}

namespace {

// The Problem of a call's arguments. Scalars have the compute type: double for COMPUTE_64F,
// float otherwise (a NULL one is left for validate() to name).
Problem problem_of(gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
                   gemmkit_dtype a_type, int64_t lda, gemmkit_dtype b_type, int64_t ldb, const void* beta,
                   gemmkit_dtype c_type, int64_t ldc, gemmkit_compute compute) {
    Problem p;
    p.transa = transa;
    p.transb = transb;
    p.m = m;
    p.n = n;
    p.k = k;
    p.lda = lda;
    p.ldb = ldb;
    p.ldc = ldc;
    p.a_type = a_type;
    p.b_type = b_type;
    p.c_type = c_type;
    p.compute = compute;
    const bool f64 = compute == GEMMKIT_COMPUTE_64F;
    if (alpha != nullptr) p.alpha = f64 ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
    if (beta != nullptr) p.beta = f64 ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
    return p;
}

}  // namespace

extern "C" gemmkit_status gemmkit_gemm_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m,
                                          int64_t n, int64_t k, const void* alpha, const void* A,
                                          gemmkit_dtype a_type, int64_t lda, const void* B, gemmkit_dtype b_type,
                                          int64_t ldb, const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc,
                                          gemmkit_compute compute, const char* kernel) {
    return gemmkit_gemm_epilogue_ex(stream, transa, transb, m, n, k, alpha, A, a_type, lda, B, b_type, ldb, beta, C,
                                    c_type, ldc, compute, nullptr, kernel);
}

extern "C" gemmkit_status gemmkit_gemm_strided_batched_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a, const void* B, gemmkit_dtype b_type,
    int64_t ldb, int64_t stride_b, const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc, int64_t stride_c,
    int64_t batch_count, gemmkit_compute compute, const char* kernel) {
    return gemmkit_gemm_strided_batched_epilogue_ex(stream, transa, transb, m, n, k, alpha, A, a_type, lda, stride_a, B,
                                                    b_type, ldb, stride_b, beta, C, c_type, ldc, stride_c, batch_count,
                                                    compute, nullptr, kernel);
}

extern "C" gemmkit_status gemmkit_gemm_batched_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                                  int64_t m, int64_t n, int64_t k, const void* alpha,
                                                  const void* const Aarray[], gemmkit_dtype a_type, int64_t lda,
                                                  const void* const Barray[], gemmkit_dtype b_type, int64_t ldb,
                                                  const void* beta, void* const Carray[], gemmkit_dtype c_type,
                                                  int64_t ldc, int64_t batch_count, gemmkit_compute compute,
                                                  const char* kernel) {
    return gemmkit_gemm_batched_epilogue_ex(stream, transa, transb, m, n, k, alpha, Aarray, a_type, lda, Barray, b_type,
                                            ldb, beta, Carray, c_type, ldc, batch_count, compute, nullptr, kernel);
}

namespace {

// A call's epilogue descriptor read into p, then the call (gemmkit::gemm).
gemmkit_status gemm_with_epilogue(Problem& p, const gemmkit_epilogue* epilogue, bool alpha_null, bool beta_null,
                                  cudaStream_t stream, const char* kernel) {
    if (gemmkit_status s = gemmkit::read_epilogue(epilogue, p.c_type, &p.epilogue); s != GEMMKIT_SUCCESS) return s;
    return gemmkit::gemm(p, alpha_null, beta_null, stream, kernel);
}

}  // namespace

extern "C" gemmkit_status gemmkit_gemm_epilogue_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                                   int64_t m, int64_t n, int64_t k, const void* alpha, const void* A,
                                                   gemmkit_dtype a_type, int64_t lda, const void* B,
                                                   gemmkit_dtype b_type, int64_t ldb, const void* beta, void* C,
                                                   gemmkit_dtype c_type, int64_t ldc, gemmkit_compute compute,
                                                   const gemmkit_epilogue* epilogue, const char* kernel) {
    Problem p = problem_of(transa, transb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc, compute);
    p.A = A;
    p.B = B;
    p.C = C;
    return gemm_with_epilogue(p, epilogue, alpha == nullptr, beta == nullptr, stream, kernel);
}

extern "C" gemmkit_status gemmkit_gemm_strided_batched_epilogue_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a, const void* B, gemmkit_dtype b_type,
    int64_t ldb, int64_t stride_b, const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc, int64_t stride_c,
    int64_t batch_count, gemmkit_compute compute, const gemmkit_epilogue* epilogue, const char* kernel) {
    Problem p = problem_of(transa, transb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc, compute);
    p.A = A;
    p.B = B;
    p.C = C;
    p.batch.count = batch_count;
    p.batch.stride_a = stride_a;
    p.batch.stride_b = stride_b;
    p.batch.stride_c = stride_c;
    return gemm_with_epilogue(p, epilogue, alpha == nullptr, beta == nullptr, stream, kernel);
}

extern "C" gemmkit_status gemmkit_gemm_batched_epilogue_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* const Aarray[], gemmkit_dtype a_type, int64_t lda, const void* const Barray[], gemmkit_dtype b_type,
    int64_t ldb, const void* beta, void* const Carray[], gemmkit_dtype c_type, int64_t ldc, int64_t batch_count,
    gemmkit_compute compute, const gemmkit_epilogue* epilogue, const char* kernel) {
    Problem p = problem_of(transa, transb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc, compute);
    p.batch.count = batch_count;
    p.batch.arrays = true;
    p.batch.a_array = Aarray;
    p.batch.b_array = Barray;
    p.batch.c_array = Carray;
    return gemm_with_epilogue(p, epilogue, alpha == nullptr, beta == nullptr, stream, kernel);
}

extern "C" int gemmkit_kernel_count(void) { return static_cast<int>(gemmkit::registry().size()); }

extern "C" const char* gemmkit_kernel_name(int index) {
    const auto& table = gemmkit::registry();
    if (index < 0 || index >= static_cast<int>(table.size())) return nullptr;
    return table[index].name;
}

extern "C" gemmkit_status gemmkit_set_sm_limit(int sm_count) {
    if (sm_count < 0)
        return gemmkit::fail(GEMMKIT_INVALID_VALUE,
                             "sm_count = " + std::to_string(sm_count) + " is negative (0 lifts the limit)");
    gemmkit::set_sm_limit(sm_count);
    gemmkit::clear_error();
    return GEMMKIT_SUCCESS;
}

extern "C" int gemmkit_sm_limit(void) { return gemmkit::sm_limit(); }

extern "C" gemmkit_status gemmkit_gemm_grouped_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a, const void* B, gemmkit_dtype b_type,
    int64_t ldb, const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc, const int32_t* group_ends,
    int64_t group_count, gemmkit_compute compute, const gemmkit_epilogue* epilogue, const char* kernel) {
    Problem p = problem_of(transa, transb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc, compute);
    p.A = A;
    p.B = B;
    p.C = C;
    p.batch.stride_a = stride_a;
    p.groups.ends = group_ends;
    p.groups.count = group_count;
    // No groups: nothing to compute, once the other arguments are checked as a plain call's.
    if (group_count == 0) p.batch.count = 0;
    return gemm_with_epilogue(p, epilogue, alpha == nullptr, beta == nullptr, stream, kernel);
}

extern "C" gemmkit_status gemmkit_gemm_scaled_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m,
                                                 int64_t n, int64_t k, const float* alpha, const void* A,
                                                 gemmkit_dtype a_type, int64_t lda, const void* B,
                                                 gemmkit_dtype b_type, int64_t ldb, const float* beta, void* C,
                                                 gemmkit_dtype c_type, int64_t ldc, const gemmkit_scaling* scaling,
                                                 const gemmkit_epilogue* epilogue, const char* kernel) {
    Problem p = problem_of(transa, transb, m, n, k, alpha, a_type, lda, b_type, ldb, beta, c_type, ldc,
                           GEMMKIT_COMPUTE_32F);
    p.A = A;
    p.B = B;
    p.C = C;
    if (gemmkit_status s = gemmkit::read_scaling(scaling, a_type, b_type, &p.scaling); s != GEMMKIT_SUCCESS) return s;
    return gemm_with_epilogue(p, epilogue, alpha == nullptr, beta == nullptr, stream, kernel);
}

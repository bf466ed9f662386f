// Launcher and registry rows of the few-vectors kernel (few_vectors.cuh): it runs the plan of
// src/plan/few_vectors_rules.cu, taking the split's workspace from the pool.
#include <type_traits>

#include "kernels/dgemm/registry_rows.hpp"
#include "kernels/sgemm/registry_rows.hpp"
#include "kernels/skinny/few_vectors.cuh"
#include "kernels/skinny/registry_rows.hpp"
#include "kernels/tensor/registry_rows.hpp"  // supports_half, add_half_pair
#include "kernels/tensor/types.cuh"
#include "kernels/workspace.hpp"

namespace gemmkit::skinny {
namespace {

// The GEMM as Y = alpha W X + beta Y: with few columns W = op(A), X = op(B), Y = C; with few rows
// (kConfigSwapped) W = op(B)^T, X = op(A)^T, Y = C^T.
template <class T, class TC, class Acc>
Args<T, TC, Acc> args_of(const Problem& p, const Plan& plan) {
    // op(A)(i, kk) = A[i * a_i + kk * a_k]; op(B)(kk, j) = B[kk * b_k + j * b_j].
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    const int64_t a_i = ta ? p.lda : 1, a_k = ta ? 1 : p.lda;
    const int64_t b_k = tb ? p.ldb : 1, b_j = tb ? 1 : p.ldb;
    const T* A = static_cast<const T*>(p.A);
    const T* B = static_cast<const T*>(p.B);
    Args<T, TC, Acc> a = {};
    if ((plan.config & kConfigSwapped) == 0) {
        a.w = A, a.w_r = a_i, a.w_k = a_k;
        a.x = B, a.x_k = b_k, a.x_v = b_j;
        a.y = static_cast<TC*>(p.C), a.y_r = 1, a.y_v = p.ldc;
        a.rows = p.m, a.vectors = p.n;
    } else {
        a.w = B, a.w_r = b_j, a.w_k = b_k;
        a.x = A, a.x_k = a_k, a.x_v = a_i;
        a.y = static_cast<TC*>(p.C), a.y_r = p.ldc, a.y_v = 1;
        a.rows = p.n, a.vectors = p.m;
    }
    a.k = p.k;
    a.alpha = static_cast<Acc>(p.alpha);
    a.beta = static_cast<Acc>(p.beta);
    a.k_per_split = plan.bk;
    return a;
}

template <class TC>
Epilogue<TC> epilogue_of(const Problem& p, const Plan& plan) {
    return {make_epilogue_args<TC>(p), (plan.config & kConfigSwapped) != 0};
}

// Whether every piece of W a lane loads is one aligned load (the kernel's kWide).
template <class T, class TC, class Acc>
bool wide_loads(const Args<T, TC, Acc>& a, bool dot) {
    const int64_t piece = vec_of(sizeof(T), dot) * static_cast<int64_t>(sizeof(T));
    const int64_t stride = (dot ? a.w_r : a.w_k) * static_cast<int64_t>(sizeof(T));
    return reinterpret_cast<uintptr_t>(a.w) % piece == 0 && stride % piece == 0;
}

template <class T, class TC, class Acc, bool kDot>
cudaError_t launch_form(const Args<T, TC, Acc>& a, const Epilogue<TC>& epi, dim3 grid, cudaStream_t stream) {
    if (wide_loads(a, kDot))
        return launch_with_smem(few_vectors_kernel<T, TC, Acc, kDot, true>, grid, threads_of(sizeof(T), kDot),
                                kSmemBytes, stream, a, epi);
    return launch_with_smem(few_vectors_kernel<T, TC, Acc, kDot, false>, grid, threads_of(sizeof(T), kDot),
                            kSmemBytes, stream, a, epi);
}

template <class T, class TC>
cudaError_t launch_typed(const Problem& p, const Plan& plan, cudaStream_t stream) {
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    Args<T, TC, Acc> a = args_of<T, TC, Acc>(p, plan);
    const bool dot = (plan.config & kConfigDot) != 0;
    const int64_t row_blocks = (a.rows + block_rows(sizeof(T), dot) - 1) / block_rows(sizeof(T), dot);
    const int64_t groups = (a.vectors + kMaxVectors - 1) / kMaxVectors;
    int64_t splits = plan.split.kind == SplitKind::kSplitK ? plan.split.pieces : 1;
    void* workspace = nullptr;
    if (splits > 1) {
        const size_t flag_bytes = workspace_flag_bytes(static_cast<size_t>(row_blocks * groups));
        const size_t sum_bytes = static_cast<size_t>(splits * a.rows * groups * kMaxVectors) * sizeof(Acc);
        if (allocate_workspace(&workspace, flag_bytes + sum_bytes, stream) != cudaSuccess ||
            cudaMemsetAsync(workspace, 0, flag_bytes, stream) != cudaSuccess) {
            cudaGetLastError();  // no memory: k in one piece, which needs none
            if (workspace != nullptr) cudaFreeAsync(workspace, stream);
            workspace = nullptr;
            splits = 1;
            a.k_per_split = a.k;
        } else {
            a.arrivals = static_cast<int*>(workspace);
            a.partials = reinterpret_cast<Acc*>(static_cast<char*>(workspace) + flag_bytes);
        }
    }
    const dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(splits), static_cast<unsigned>(groups));
    const Epilogue<TC> epi = epilogue_of<TC>(p, plan);
    const cudaError_t err = dot ? launch_form<T, TC, Acc, true>(a, epi, grid, stream)
                                : launch_form<T, TC, Acc, false>(a, epi, grid, stream);
    if (workspace != nullptr) cudaFreeAsync(workspace, stream);  // after the kernel, in stream order
    return err;
}

cudaError_t launch_f32(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return launch_typed<float, float>(p, plan, stream);
}

cudaError_t launch_f64(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return launch_typed<double, double>(p, plan, stream);
}

cudaError_t launch_half(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return tensor::with_half_types(p, [&](auto t, auto tc) {
        return launch_typed<typename decltype(t)::type, typename decltype(tc)::type>(p, plan, stream);
    });
}

constexpr const char* kFastPath =
    "all ops; 16-byte loads of the big matrix where it and its leading dimension are 16-byte aligned (else "
    "element loads)";

KernelInfo row(const char* name, int level, gemmkit_dtype dtype, gemmkit_compute compute, int elem_bytes,
               bool (*supports)(const Problem&, std::string*),
               cudaError_t (*launch)(const Problem&, const Plan&, cudaStream_t), const void* (*entry)()) {
    return {.name = name, .level = level, .min_sm = 80,
            .dtype = dtype, .compute = compute,
            .description = "matrix times a few vectors at the speed of memory: CUDA-core FMAs, 16-byte loads of the "
                           "big matrix, k split across the SMs (docs/ladder/few_vectors.md)",
            .fast_path = kFastPath,
            .fast_ops = kAllOps, .fast_alignment = 16,
            .tile = {block_rows(elem_bytes, true), kMaxVectors, chunk_k(elem_bytes == 8 ? 8 : 4, true),
                     threads_of(elem_bytes, true)},
            .rules = PlanRules::kFewVectors,
            .supports = supports, .launch = launch,
            .entry = entry,
            .dynamic_smem_bytes = kSmemBytes,
            .blocks_per_sm = blocks_per_sm(true)};
}

}  // namespace

// serves_auto stays false: the plan's few-vectors rule (few_vectors_rules.cpp) picks these rows
// for the shapes they serve, not the ladder's level order.
void add_few_vectors_kernels(std::vector<KernelInfo>* table) {
    table->push_back(row("sgemm.14_few_vectors", 14, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 4, sgemm::supports_f32_simt,
                         launch_f32, entry_of<&few_vectors_kernel<float, float, float, true, true>>));
    tensor::add_half_pair(table,
                          row("f16.15_few_vectors", 15, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 2, nullptr, launch_half,
                              entry_of<&few_vectors_kernel<tensor::half, tensor::half, float, true, true>>),
                          "bf16.15_few_vectors",
                          entry_of<&few_vectors_kernel<tensor::bf16, tensor::bf16, float, true, true>>);
    table->push_back(row("dgemm.10_few_vectors", 10, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, 8, dgemm::supports_f64,
                         launch_f64, entry_of<&few_vectors_kernel<double, double, double, true, true>>));
}

}  // namespace gemmkit::skinny

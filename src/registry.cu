// The kernel table, assembled from each family's rows (src/kernels/<family>/*.cu).
#include "registry.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/dgemm/registry_rows.hpp"
#include "kernels/sgemm/registry_rows.hpp"
#include "kernels/skinny/registry_rows.hpp"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit {
namespace {

// "f16" of "f16.03_mma_ldmatrix".
std::string family_of(const KernelInfo& info) {
    const char* dot = std::strchr(info.name, '.');
    return dot == nullptr ? std::string(info.name) : std::string(info.name, dot);
}

std::vector<KernelInfo> build_registry() {
    std::vector<KernelInfo> table;
    sgemm::add_ladder_kernels(&table);
    sgemm::add_tuned_kernels(&table);
    sgemm::add_async_kernels(&table);
    sgemm::add_split_k_kernels(&table);
    tensor::add_wmma_kernels(&table);  // each step adds its f16 and bf16 rows together...
    tensor::add_mma_ldmatrix_kernels(&table);
    tensor::add_pipeline_kernels(&table);
    tensor::add_tf32_kernels(&table);
    tensor::add_hopper_kernels(&table);
    dgemm::add_dgemm_kernels(&table);
    skinny::add_few_vectors_kernels(&table);  // one row a type, the last step of each ladder
    tensor::add_hopper_grouped(&table);        // grouped calls only, after the plain ladders
    tensor::add_hopper_fp8(&table);            // FP8 operands only
    // ...so group rows by family, keeping each family's ladder order (families in order of
    // first appearance): `list` and the bench then show one family at a time.
    std::vector<std::string> families;
    for (const KernelInfo& info : table)
        if (std::find(families.begin(), families.end(), family_of(info)) == families.end())
            families.push_back(family_of(info));
    std::stable_sort(table.begin(), table.end(), [&](const KernelInfo& a, const KernelInfo& b) {
        return std::find(families.begin(), families.end(), family_of(a)) <
               std::find(families.begin(), families.end(), family_of(b));
    });
    return table;
}

}  // namespace

const std::vector<KernelInfo>& registry() {
    static const std::vector<KernelInfo> kTable = build_registry();
    return kTable;
}

const KernelInfo* find_kernel(const char* name) {
    if (name == nullptr) return nullptr;
    for (const KernelInfo& info : registry())
        if (std::strcmp(info.name, name) == 0) return &info;
    return nullptr;
}

bool has_types(const Problem& p, gemmkit_dtype abc, gemmkit_compute compute, const char* kind,
               const char* compute_name, std::string* why) {
    if (p.a_type != abc || p.b_type != abc || p.c_type != abc) {
        *why = std::string(kind) + " kernel; the problem has A/B/C of " + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type) + "/" + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != compute) {
        *why = std::string(kind) + " kernel; compute must be " + compute_name;
        return false;
    }
    return true;
}

bool row_supports(const KernelInfo& info, const Problem& p, std::string* why) {
    if (batched(p) && !info.batches) {
        *why = "it runs one problem a launch, not a batch (gemmkit list marks those that do: \"batches\")";
        return false;
    }
    if (grouped(p) != info.groups) {
        *why = info.groups ? "it runs grouped calls only (gemmkit_gemm_grouped_ex)"
                           : "it runs no grouped call (gemmkit list marks those that do: \"groups\")";
        return false;
    }
    return info.supports(p, why);
}

bool serves_fast(const KernelInfo& info, const Problem& p) {
    if ((info.fast_ops & op_bit(p.transa, p.transb)) == 0) return false;
    return operands_aligned(p, info.fast_alignment);
}

}  // namespace gemmkit

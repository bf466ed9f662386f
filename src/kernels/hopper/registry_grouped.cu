// Registry rows and launchers of the grouped GEMM (grouped.cuh), which run grouped calls only
// (gemmkit_gemm_grouped_ex): f16.16_grouped_tma_store and bf16.16_grouped_tma_store, which auto
// serves, and f16.16_grouped and bf16.16_grouped, their register-epilogue forms, named only.
#include <type_traits>

#include "kernels/hopper/grouped.cuh"
#include "kernels/hopper/launch.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::hopper {
namespace {

// kTmaStore: grouped_tma_store_kernel, which TMA-stores the tiles whole inside their group
// where the plan says (choose_tma_store); else grouped_kernel.
template <class T, class TC, bool kTransA, bool kTransB, bool kTmaStore>
cudaError_t launch_grouped_kernel(const Problem& p, const Plan& plan, cudaStream_t stream) {
    using Cfg = std::conditional_t<kTmaStore, GroupedTmaStoreCfg, GroupedCfg>;
    using SlabA = SharedSlabOfA<T, Cfg, kTransA>;
    using SlabB = SharedSlabOfB<T, Cfg, kTransB>;
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    // A: one matrix a group (coordinate 2 of its map); B: the whole of op(B)'s n columns.
    CUtensorMap map_a, map_b;
    cudaError_t err = encode_tensor_map(&map_a, p.A, p.a_type, ta ? p.k : p.m, ta ? p.m : p.k, p.lda, SlabA::kBoxRows,
                                        SlabA::kBoxCols, p.groups.count, p.batch.stride_a);
    if (err != cudaSuccess) return err;
    err = encode_tensor_map(&map_b, p.B, p.b_type, tb ? p.n : p.k, tb ? p.k : p.n, p.ldb, SlabB::kBoxRows,
                            SlabB::kBoxCols);
    if (err != cudaSuccess) return err;
    OutputArgs<TC> out = make_output_args<TC>(p);
    out.stride_c = 0;                       // the groups share C, each its own columns
    out.a_step = p.batch.stride_a != 0;     // group g reads A's matrix g (0: all read matrix 0)
    out.b_step = 0;                         // B's map holds one matrix
    constexpr auto kernel = [] {
        if constexpr (kTmaStore)
            return grouped_tma_store_kernel<T, TC, kTransA, kTransB>;
        else
            return grouped_kernel<T, TC, kTransA, kTransB>;
    }();
    constexpr int smem = grouped_smem_bytes<T, Cfg>();
    // As many clusters as fit at once, but no more than pair-tiles there can be: along n each
    // group has at most one partial tile, and kGroupColumnAlign - 1 columns before its own,
    // beyond ceil(n / BN) in all.
    const int fit = ClusterGrid<Cfg>::clusters(reinterpret_cast<const void*>(kernel), smem, plan.sm_count);
    const int64_t cols = p.n + (kGroupColumnAlign - 1) * p.groups.count;
    const int64_t most = pair_grid<Cfg>(p.m, 1).x * ((cols + Cfg::BN - 1) / Cfg::BN + p.groups.count);
    const dim3 grid(static_cast<unsigned>((most < fit ? most : fit) * Cfg::kCluster));
    if constexpr (!kTmaStore) {
        return launch_with_smem(kernel, grid, Cfg::kThreads, smem, stream, map_a, map_b, out, p.groups.ends,
                                static_cast<int>(p.groups.count));
    } else {
        CUtensorMap map_c = {};  // unused (zeros) where every tile takes the register epilogue
        out.tma_store = plan.epilogue == EpiloguePath::kTmaStore &&
                        encode_tensor_map(&map_c, p.C, p.c_type, p.m, p.n, p.ldc, c_box_rows(sizeof(TC)),
                                          c_box_cols(sizeof(TC))) == cudaSuccess;
        return launch_with_smem(kernel, grid, Cfg::kThreads, smem, stream, map_a, map_b, map_c, out, p.groups.ends,
                                static_cast<int>(p.groups.count));
    }
}

template <bool kTmaStore>
cudaError_t launch_grouped(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return tensor::with_half_types(p, [&](auto t, auto tc) {
        using T = typename decltype(t)::type;
        using TC = typename decltype(tc)::type;
        return with_ops(p, [&](auto a, auto b) {
            return launch_grouped_kernel<T, TC, decltype(a)::value, decltype(b)::value, kTmaStore>(p, plan, stream);
        });
    });
}

// What the grouped kernel needs beyond its types: TMA reads A (every group's matrix) and B.
template <gemmkit_dtype kAB>
bool supports_grouped(const Problem& p, std::string* why) {
    if (!tensor::supports_half<kAB>(p, why)) return false;
    const int64_t cols_a = p.transa == GEMMKIT_OP_N ? p.k : p.m;
    if (!tma_addressable(p.A, p.lda, p.a_type) || !tma_addressable(p.B, p.ldb, p.b_type) ||
        (p.groups.count > 1 && !tma_batch_stride(p.batch.stride_a, p.lda, cols_a, p.a_type))) {
        *why = "the grouped kernel reads A and B by TMA: both 16-byte aligned, lda, ldb and stride_a multiples of 16 "
               "bytes, stride_a 0 or at least one matrix of A";
        return false;
    }
    return true;
}

}  // namespace
}  // namespace gemmkit::hopper

namespace gemmkit::tensor {
namespace {

// The BF16 row of an FP16 grouped row: its name, type, check and kernel.
KernelInfo bf16_row(KernelInfo row, const char* name, const void* (*entry)()) {
    row.name = name;
    row.dtype = GEMMKIT_R_16BF;
    row.supports = hopper::supports_grouped<GEMMKIT_R_16BF>;
    row.entry = entry;
    return row;
}

}  // namespace

void add_hopper_grouped(std::vector<KernelInfo>* table) {
    using hopper::GroupedCfg;
    KernelInfo f16{.name = "f16.16_grouped", .level = 16, .min_sm = 90, .dtype = GEMMKIT_R_16F,
                   .compute = GEMMKIT_COMPUTE_32F,
                   .description = "a mixture of experts' layer in one launch: C's columns cut into groups by "
                                  "ends on the device, each group's own A, step 10's persistent clusters on "
                                  "128x128 tiles numbered group by group",
                   .fast_path = "all ops; A and B 16-byte aligned with lda, ldb, stride_a multiples of 16 bytes "
                                "(TMA; else NOT_SUPPORTED)",
                   .fast_alignment = 16, .tile = tile_of<GroupedCfg>(), .serves_auto = false,
                   .supports = hopper::supports_grouped<GEMMKIT_R_16F>, .launch = hopper::launch_grouped<false>,
                   .entry = entry_of<&hopper::grouped_kernel<half, half, false, false>>,
                   .dynamic_smem_bytes = hopper::grouped_smem_bytes<half>(),
                   .groups = true};
    // auto serves the rows with TMA stores for the tiles inside a group (GroupedTmaStoreEpilogue):
    // on 4 H200s they were 0-9% faster than the register epilogue on every layer of
    // bench --suite grouped (docs/plan.md#grouped).
    KernelInfo f16_tma = f16;
    f16_tma.name = "f16.16_grouped_tma_store";
    f16_tma.description = "the grouped GEMM with step 11's TMA-store epilogue for the tiles inside a group";
    f16_tma.serves_auto = true;
    f16_tma.rules = PlanRules::kTmaStoreTiles;
    f16_tma.launch = hopper::launch_grouped<true>;
    f16_tma.entry = entry_of<&hopper::grouped_tma_store_kernel<half, half, false, false>>;
    f16_tma.dynamic_smem_bytes = hopper::grouped_smem_bytes<half, hopper::GroupedTmaStoreCfg>();
    table->push_back(f16_tma);
    table->push_back(bf16_row(f16_tma, "bf16.16_grouped_tma_store",
                              entry_of<&hopper::grouped_tma_store_kernel<tensor::bf16, tensor::bf16, false, false>>));
    table->push_back(f16);
    table->push_back(bf16_row(f16, "bf16.16_grouped",
                              entry_of<&hopper::grouped_kernel<tensor::bf16, tensor::bf16, false, false>>));
}

}  // namespace gemmkit::tensor

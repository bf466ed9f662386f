// The FP8 family's rows (fp8.cuh), which gemmkit_gemm_scaled_ex (and gemmkit_gemm_ex with FP8
// operands, unscaled) runs: fp8.01_wgmma_scaled and fp8.02_promoted; their launcher and what
// they support.
#include "chunking.hpp"
#include "kernels/hopper/fp8.cuh"
#include "kernels/hopper/launch.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::hopper {
namespace {

template <class Cfg>
constexpr int fp8_smem_bytes() {
    using T = Fp8Operands<false, false>;  // any: one byte an element
    return ring_smem_bytes<SharedSlabOfA<T, Cfg, true>, SharedSlabOfB<T, Cfg, false>, Cfg::kStages>() +
           Cfg::kStagingBytes;
}

template <class Cfg, class T, class TC>
cudaError_t launch_fp8_kernel(const Problem& p, const Plan& plan, cudaStream_t stream) {
    using SlabA = SharedSlabOfA<T, Cfg, true>;
    using SlabB = SharedSlabOfB<T, Cfg, false>;
    // A stored k x m and B stored k x n, k contiguous in both (op(A) = T, op(B) = N).
    CUtensorMap map_a, map_b, map_c = {};  // map_c unused (zeros) where the register epilogue runs (the plan's)
    cudaError_t err =
        encode_tensor_map(&map_a, p.A, p.a_type, p.k, p.m, p.lda, SlabA::kBoxRows, SlabA::kBoxCols);
    if (err != cudaSuccess) return err;
    err = encode_tensor_map(&map_b, p.B, p.b_type, p.k, p.n, p.ldb, SlabB::kBoxRows, SlabB::kBoxCols);
    if (err != cudaSuccess) return err;
    OutputArgs<TC> out = make_output_args<TC>(p);
    out.tma_store = plan.epilogue == EpiloguePath::kTmaStore &&
                    encode_tensor_map(&map_c, p.C, p.c_type, p.m, p.n, p.ldc, c_box_rows(sizeof(TC)),
                                      c_box_cols(sizeof(TC))) == cudaSuccess;
    // Block scales vary along k: the main loop applies them (Fp8BlockScales), the epilogue none.
    const bool block = p.scaling.mode == GEMMKIT_SCALE_BLOCK;
    const Fp8Scales scales{block ? nullptr : p.scaling.a, block ? nullptr : p.scaling.b,
                           p.scaling.mode == GEMMKIT_SCALE_OUTER};
    const Fp8BlockScales blocks{p.scaling.a, p.scaling.b, static_cast<int>(p.m), static_cast<int>(p.n),
                                static_cast<int>((p.n + 127) / 128), block};
    constexpr auto kernel = fp8_kernel<T, TC, Cfg>;
    constexpr int smem = fp8_smem_bytes<Cfg>();
    const dim3 grid = ClusterGrid<Cfg>::grid(p, reinterpret_cast<const void*>(kernel), smem, plan.sm_count);
    return launch_with_smem(kernel, grid, Cfg::kThreads, smem, stream, map_a, map_b, map_c, out, scales, blocks);
}

// The formats of A and B, then C's type.
template <class Cfg>
cudaError_t launch_fp8(const Problem& p, const Plan& plan, cudaStream_t stream) {
    auto with_c = [&]<class T>() {
        switch (p.c_type) {
            case GEMMKIT_R_16F: return launch_fp8_kernel<Cfg, T, tensor::half>(p, plan, stream);
            case GEMMKIT_R_16BF: return launch_fp8_kernel<Cfg, T, tensor::bf16>(p, plan, stream);
            default: return launch_fp8_kernel<Cfg, T, float>(p, plan, stream);  // supports_fp8: f32
        }
    };
    if (p.a_type == GEMMKIT_R_8F_E5M2) return with_c.template operator()<Fp8Operands<true, false>>();
    if (p.b_type == GEMMKIT_R_8F_E5M2) return with_c.template operator()<Fp8Operands<false, true>>();
    return with_c.template operator()<Fp8Operands<false, false>>();
}

// What the FP8 kernel takes: FP8 A and B (at most one E5M2), both K-major and TMA-readable,
// C of FP32, FP16 or BF16, FP32 accumulation, and sizes within one launch (the outer scales are
// not moved with the chunks of chunking.hpp).
bool supports_fp8(const Problem& p, std::string* why) {
    if (!fp8(p.a_type) || !fp8(p.b_type)) {
        *why = std::string("FP8 kernel; the problem has A/B of ") + dtype_name(p.a_type) + "/" + dtype_name(p.b_type);
        return false;
    }
    if (p.a_type == GEMMKIT_R_8F_E5M2 && p.b_type == GEMMKIT_R_8F_E5M2) {
        *why = "A and B are both E5M2: E5M2 is taken for at most one operand (as cuBLASLt); make the other E4M3";
        return false;
    }
    if (p.c_type != GEMMKIT_R_32F && p.c_type != GEMMKIT_R_16F && p.c_type != GEMMKIT_R_16BF) {
        *why = std::string("c_type = ") + dtype_name(p.c_type) + ": FP8 GEMMs write C of f32, f16 or bf16";
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_32F) {
        *why = "FP8 kernels accumulate in FP32: compute must be GEMMKIT_COMPUTE_32F";
        return false;
    }
    if (p.transa != GEMMKIT_OP_T || p.transb != GEMMKIT_OP_N) {
        *why = std::string("ops ") + ops_name(p.transa, p.transb) +
               ": FP8 wgmma reads both operands K-major; pass transa = GEMMKIT_OP_T with A stored k x m and "
               "transb = GEMMKIT_OP_N with B stored k x n (row-major: A M x K, B N x K)";
        return false;
    }
    if (!tma_addressable(p.A, p.lda, p.a_type) || !tma_addressable(p.B, p.ldb, p.b_type)) {
        *why = "the FP8 kernel reads A and B by TMA: both 16-byte aligned, lda and ldb multiples of 16";
        return false;
    }
    const ChunkLimits lim;
    if (p.m > lim.max_m || p.n > lim.max_n || p.k > lim.max_k) {
        *why = "the FP8 kernel takes m, k <= " + std::to_string(lim.max_m) + " and n <= " + std::to_string(lim.max_n);
        return false;
    }
    return true;
}

// Step 1 keeps each tile's sums in the tensor cores for all of k: block scales, which change
// every 128 of k, have no place to be applied.
bool supports_fp8_whole_k(const Problem& p, std::string* why) {
    if (p.scaling.mode == GEMMKIT_SCALE_BLOCK) {
        *why = "block scales are applied as the sums move into FP32 every 128 of k; this kernel keeps the sums in the "
               "tensor cores for all of k: use fp8.02_promoted";
        return false;
    }
    return supports_fp8(p, why);
}

}  // namespace
}  // namespace gemmkit::hopper

namespace gemmkit::tensor {

void add_hopper_fp8(std::vector<KernelInfo>* table) {
    using hopper::Fp8Cfg, hopper::Fp8PromotedCfg, hopper::Fp8Operands;
    const KernelInfo step1{
        .name = "fp8.01_wgmma_scaled", .level = 1, .min_sm = 90, .dtype = GEMMKIT_R_8F_E4M3,
        .compute = GEMMKIT_COMPUTE_32F,
        .description = "f16 step 11's pipeline (persistent clusters, multicast, TMA stores) on FP8 wgmmas "
                       "(k = 32), 128x256 tiles of 128-deep slabs; per-tensor or outer scales on the "
                       "accumulators before the epilogue; sums kept in the tensor cores for all of k",
        .fast_path = "A op T, B op N (both K-major; else NOT_SUPPORTED); A and B 16-byte aligned with lda, ldb "
                     "multiples of 16 (TMA; else NOT_SUPPORTED)",
        .fast_ops = op_bit(GEMMKIT_OP_T, GEMMKIT_OP_N), .fast_alignment = 16, .tile = tile_of<Fp8Cfg>(),
        .serves_auto = true, .rules = PlanRules::kTmaStoreTiles, .supports = hopper::supports_fp8_whole_k,
        .launch = hopper::launch_fp8<Fp8Cfg>,
        .entry = entry_of<&hopper::fp8_kernel<Fp8Operands<false, false>, tensor::bf16, Fp8Cfg>>,
        .dynamic_smem_bytes = hopper::fp8_smem_bytes<Fp8Cfg>(), .fast_accum = true};
    table->push_back(step1);
    KernelInfo step2 = step1;
    step2.name = "fp8.02_promoted";
    step2.level = 2;
    step2.description = "step 1 with each slab's sums moved into FP32 registers every 128 of k (as cuBLASLt "
                        "by default), the slab's wgmmas in two parts of 128 columns; block scales (1x128 of A, "
                        "128x128 of B) applied as the sums move";
    step2.tile = tile_of<Fp8PromotedCfg>();
    step2.launch = hopper::launch_fp8<Fp8PromotedCfg>;
    step2.entry = entry_of<&hopper::fp8_kernel<Fp8Operands<false, false>, tensor::bf16, Fp8PromotedCfg>>;
    step2.supports = hopper::supports_fp8;  // block scales too, applied as the sums are promoted
    step2.dynamic_smem_bytes = hopper::fp8_smem_bytes<Fp8PromotedCfg>();
    step2.fast_accum = false;
    table->push_back(step2);
}

}  // namespace gemmkit::tensor

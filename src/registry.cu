// The kernel table. Adding a kernel = include its header and add one row.
#include "registry.hpp"

#include <cstring>

#include "kernels/sgemm/01_naive.cuh"
#include "kernels/sgemm/02_coalesced.cuh"
#include "kernels/sgemm/03_smem_tiling.cuh"
#include "kernels/sgemm/04_register_blocking_1d.cuh"
#include "kernels/sgemm/05_register_blocking_2d.cuh"
#include "kernels/sgemm/06_vectorized.cuh"
#include "kernels/sgemm/07_bank_conflict_free.cuh"
#include "kernels/sgemm/08_double_buffering.cuh"
#include "kernels/sgemm/09_two_level_prefetch.cuh"
#include "kernels/sgemm/10_warp_tiling.cuh"

namespace gemmkit {
namespace {

// The FP32 SIMT ladder serves any FP32 problem with FP32 accumulation.
bool supports_f32_simt(const Problem& p, std::string* why) {
    if (p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F) {
        *why = std::string("FP32 kernel; the problem has A/B/C of ") + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type) + "/" + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_32F) {
        *why = "FP32 kernel; compute must be GEMMKIT_COMPUTE_32F";
        return false;
    }
    return true;
}

template <auto kKernel>
const void* entry_of() { return reinterpret_cast<const void*>(kKernel); }

template <class Cfg>
constexpr TileShape tile_of() { return {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::kThreads}; }

constexpr const char* kVec4FastPath =
    "all ops; A and B 16-byte aligned with lda, ldb divisible by 4 (else 4-byte loads)";

constexpr unsigned kOpsWithAN = op_bit(GEMMKIT_OP_N, GEMMKIT_OP_N) | op_bit(GEMMKIT_OP_N, GEMMKIT_OP_T);

std::vector<KernelInfo> build_registry() {
    using namespace sgemm;
    return {
        {"sgemm.01_naive", 1, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "one thread per C element, warps along C's columns (uncoalesced)",
         "none: the teaching baseline", 0u, 4, {1, 1, 1, 1024}, supports_f32_simt, launch_naive,
         entry_of<&naive_kernel<false, false>>},
        {"sgemm.02_coalesced", 2, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "one thread per C element, warps along C's rows (coalesced)",
         "op(A) = N (NN, NT); any alignment", kOpsWithAN, 4, {1, 1, 1, 1024}, supports_f32_simt, launch_coalesced,
         entry_of<&coalesced_kernel<false, false>>},
        {"sgemm.03_smem_tiling", 3, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "32x32 tiles of A and B staged in shared memory",
         "all ops; any alignment", kAllOps, 4,
         tile_of<SmemTilingCfg>(), supports_f32_simt,
         launch_smem_tiling, entry_of<&smem_tiling_kernel<false, false>>},
        {"sgemm.04_register_blocking_1d", 4, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "64x64 tiles, 8 results per thread along a row of C",
         "all ops; any alignment", kAllOps, 4,
         tile_of<RegisterBlocking1dCfg>(), supports_f32_simt, launch_register_blocking_1d, entry_of<&register_blocking_1d_kernel<false, false>>},
        {"sgemm.05_register_blocking_2d", 5, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "128x128 tiles, BK 8, an 8x8 block of C per thread (256 threads)",
         "all ops; any alignment", kAllOps, 4,
         tile_of<RegisterBlocking2dCfg>(), supports_f32_simt, launch_register_blocking_2d, entry_of<&register_blocking_2d_kernel<false, false>>},
        {"sgemm.06_vectorized", 6, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "step 05 with 128-bit global loads and LDS.128 fragment reads", kVec4FastPath, kAllOps, 16,
         tile_of<VectorizedCfg>(), supports_f32_simt, launch_vectorized,
         entry_of<&vectorized_kernel<false, false, true>>},
        {"sgemm.07_bank_conflict_free", 7, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "8x8 thread tile as 4x4 quadrants, padded rows: no shared-memory bank conflicts", kVec4FastPath, kAllOps,
         16, tile_of<BankConflictFreeCfg>(), supports_f32_simt, launch_bank_conflict_free,
         entry_of<&bank_conflict_free_kernel<false, false, true>>},
        {"sgemm.08_double_buffering", 8, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "two shared buffers: the next K-slab loads while this one computes", kVec4FastPath, kAllOps, 16,
         tile_of<DoubleBufferingCfg>(), supports_f32_simt, launch_double_buffering,
         entry_of<&double_buffering_kernel<false, false, true>>},
        {"sgemm.09_two_level_prefetch", 9, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "double-buffered register fragments too: shared latency hidden behind FMAs", kVec4FastPath, kAllOps, 16,
         tile_of<TwoLevelPrefetchCfg>(), supports_f32_simt, launch_two_level_prefetch,
         entry_of<&two_level_prefetch_kernel<false, false, true>>},
        {"sgemm.10_warp_tiling", 10, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "64x32 warp tiles of 8x4 lanes: less shared traffic per FMA", kVec4FastPath, kAllOps, 16,
         tile_of<WarpTilingCfg>(), supports_f32_simt, launch_warp_tiling,
         entry_of<&warp_tiling_kernel<false, false, true>>},
    };
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

namespace {
bool aligned(const void* ptr, int bytes) { return reinterpret_cast<uintptr_t>(ptr) % bytes == 0; }
}  // namespace

bool serves_fast(const KernelInfo& info, const Problem& p) {
    if ((info.fast_ops & op_bit(p.transa, p.transb)) == 0) return false;
    const int al = info.fast_alignment;
    const auto ld_ok = [&](int64_t ld, gemmkit_dtype t) { return ld * static_cast<int64_t>(dtype_size(t)) % al == 0; };
    return aligned(p.A, al) && aligned(p.B, al) && aligned(p.C, al) && ld_ok(p.lda, p.a_type) &&
           ld_ok(p.ldb, p.b_type) && ld_ok(p.ldc, p.c_type);
}

const KernelInfo* choose_kernel(const Problem& p, int sm, std::string* why) {
    const KernelInfo* best_any = nullptr;
    const KernelInfo* best_fast = nullptr;
    std::string reason;
    for (const KernelInfo& info : registry()) {
        if (info.min_sm > sm) continue;
        if (!info.supports(p, &reason)) continue;
        if (best_any == nullptr || info.level > best_any->level) best_any = &info;
        if (serves_fast(info, p) && (best_fast == nullptr || info.level > best_fast->level)) best_fast = &info;
    }
    if (best_fast != nullptr) return best_fast;
    if (best_any == nullptr)
        *why = std::string("no kernel serves A/B/C = ") + dtype_name(p.a_type) + "/" + dtype_name(p.b_type) + "/" +
               dtype_name(p.c_type) + " with this compute type on sm_" + std::to_string(sm);
    return best_any;
}

}  // namespace gemmkit

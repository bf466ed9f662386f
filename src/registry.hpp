// The table of kernels. Tests, the bench, `explain` and `auto` dispatch all
// iterate over it; nothing chooses a kernel by number.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "plan/plan.hpp"
#include "problem.hpp"

namespace gemmkit {

// Which of the plan's rules configure a row (plan.cpp, src/plan/*_rules.cu): none (the row runs
// one configuration), kTmaStoreTiles (one configuration, whose epilogue TMA-stores C where C
// takes it: the FP8 rows and the grouped _tma_store rows), or its family's.
enum class PlanRules {
    kNone, kPipeline, kTf32Pipeline, kHopper, kTf32Hopper, kDmmaStreamK, kDmmaSized, kSplitK, kFewVectors,
    kTmaStoreTiles
};

// Bit for one op combination in KernelInfo::fast_ops.
constexpr unsigned op_bit(gemmkit_op a, gemmkit_op b) { return 1u << (2 * (a == GEMMKIT_OP_T) + (b == GEMMKIT_OP_T)); }
constexpr unsigned kAllOps = 0xFu;

// What `explain` needs to reason about a kernel's data reuse.
struct TileShape {
    int BM, BN, BK;  // block tile of C, and the K-slab staged per step (BM = BN = 1: no on-chip reuse)
    int threads;     // threads per block
};

// A row of the table: what a kernel is. Rows are written with designated initializers.
struct KernelInfo {
    const char* name = nullptr;  // "<family>.<step>_<technique>", e.g. "sgemm.05_register_blocking_2d"
    int level = 0;               // its place in its family's ladder (teaching order)
    int min_sm = 0;              // oldest architecture it runs on, as 10 * major + minor
    gemmkit_dtype dtype = GEMMKIT_R_32F;           // type of A, B and C
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;  // accumulation mode
    const char* description = "";     // the technique in one line
    const char* fast_path = "";       // in words: which ops/alignments run at full speed
    unsigned fast_ops = kAllOps;      // op_bit()s that run at full speed
    int fast_alignment = 16;          // bytes the fast path needs of A, B, C pointers and lda*size etc.
    TileShape tile = {};
    // Whether `auto` may choose it (plan.cpp: the highest level among these, or the tuning
    // table's), apart from its teaching level. Every row can still be run by name.
    bool serves_auto = false;
    PlanRules rules = PlanRules::kNone;  // what configures it in a plan
    // Whether it can run `p` at all (any speed); otherwise *why (never NULL) names the reason.
    bool (*supports)(const Problem& p, std::string* why) = nullptr;
    // Runs `plan` on a problem whose m, n, k already fit the chunk limits (chunking.hpp).
    cudaError_t (*launch)(const Problem& p, const Plan& plan, cudaStream_t stream) = nullptr;
    // Its NN __global__ function, for resource reports (cudaFuncGetAttributes).
    const void* (*entry)() = nullptr;
    int dynamic_smem_bytes = 0;  // requested at launch, beyond its static __shared__ arrays
    // Blocks an SM holds at once where a rule counts block slots (split-K): what the compiled
    // kernel gets on sm_90; a GPU test checks it against the occupancy calculator.
    int blocks_per_sm = 0;
    // TF32 rows: whether the kernel truncates FP32 A and B to TF32 on p (wgmma reads the top 19
    // bits of each word) rather than rounding them to nearest (cvt.rn); null: it rounds.
    bool (*truncates_tf32)(const Problem& p) = nullptr;
    // Hopper rows: operands TMA cannot read are copied into aligned workspaces (pad_copy.hpp)
    // rather than served by an older step's kernel.
    bool copies_unaligned = false;
    // Whether launch runs a batch (problem.hpp, Batch) in one launch, a problem a layer of the
    // grid (select_batch, launch_common.cuh). Other rows refuse batched problems.
    bool batches = false;
    // Whether launch runs a grouped call (problem.hpp, Groups). Such a row runs nothing else, and
    // no other row runs a grouped call.
    bool groups = false;
    // FP8 rows: whether the kernel keeps each tile's sums in the tensor cores' FP8 accumulation
    // for all of k (cuBLASLt's FAST_ACCUM) rather than moving them into FP32 every slab. `auto`
    // serves such a row only to calls that ask for it (gemmkit_scaling::fast_accum).
    bool fast_accum = false;
};

// Whether the generic checks (gemmkit verify, the bench's ladder, the kernel and epilogue GPU
// suites), which make plain problems of a row's own types, can run the row: not a grouped row
// (grouped calls only: grouped_gpu_test.cpp, bench --suite grouped) nor an FP8 row (FP8 data and
// scales: fp8_gpu_test.cpp, bench --suite fp8).
inline bool checked_generically(const KernelInfo& info) { return !info.groups && !fp8(info.dtype); }

// KernelInfo::launch for a kernel with a single configuration: Launch(p, stream).
template <cudaError_t (*Launch)(const Problem&, cudaStream_t)>
cudaError_t runs_alone(const Problem& p, const Plan& /*plan*/, cudaStream_t stream) {
    return Launch(p, stream);
}

// For a family whose A, B and C all have type `abc` and whose accumulation is `compute`
// (named `compute_name`): whether p has those types; otherwise *why says what a `kind` kernel
// ("FP32", "TF32", "FP64") needs.
bool has_types(const Problem& p, gemmkit_dtype abc, gemmkit_compute compute, const char* kind,
               const char* compute_name, std::string* why);

// KernelInfo::entry for a __global__ function: entry_of<&my_kernel<...>>.
template <auto kKernel>
const void* entry_of() { return reinterpret_cast<const void*>(kKernel); }

// KernelInfo::tile of a configuration struct with BM, BN, BK and kThreads.
template <class Cfg>
constexpr TileShape tile_of() { return {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::kThreads}; }

// All kernels, in family then ladder order.
const std::vector<KernelInfo>& registry();

// Exact-name lookup; nullptr if unknown.
const KernelInfo* find_kernel(const char* name);

// Whether the row can run p at all: a batch only if its launch takes batches (KernelInfo::batches),
// then its own supports(). Otherwise *why says why not.
bool row_supports(const KernelInfo& info, const Problem& p, std::string* why);

// True when the kernel runs `p` at full speed (op combination and alignment).
bool serves_fast(const KernelInfo& info, const Problem& p);

// `auto`'s registry row for p on a GPU of compute capability `sm` (plan_gemm's first decision,
// plan.hpp, which depends on no other device fact); nullptr with *why where none serves p there.
const KernelInfo* choose_kernel(const Problem& p, int sm, std::string* why);

}  // namespace gemmkit

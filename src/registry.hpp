// The table of kernels. Tests, the bench, `explain` and `auto` dispatch all
// iterate over it; nothing chooses a kernel by number.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "problem.hpp"

namespace gemmkit {

// Bit for one op combination in KernelInfo::fast_ops.
constexpr unsigned op_bit(gemmkit_op a, gemmkit_op b) { return 1u << (2 * (a == GEMMKIT_OP_T) + (b == GEMMKIT_OP_T)); }
constexpr unsigned kAllOps = 0xFu;

// What `explain` needs to reason about a kernel's data reuse.
struct TileShape {
    int BM, BN, BK;  // block tile of C, and the K-slab staged per step (BM = BN = 1: no on-chip reuse)
    int threads;     // threads per block
};

struct KernelInfo {
    const char* name;         // "<family>.<step>_<technique>", e.g. "sgemm.05_register_blocking_2d"
    int level;                // place in its family's ladder
    gemmkit_dtype dtype;      // type of A, B and C
    gemmkit_compute compute;  // accumulation mode
    int min_sm;               // oldest architecture it runs on, as 10 * major + minor
    const char* description;  // the technique in one line
    const char* fast_path;    // in words: which ops/alignments run at full speed
    unsigned fast_ops;        // op_bit()s that run at full speed
    int fast_alignment;       // bytes the fast path needs of A, B, C pointers and lda*size etc.
    TileShape tile;
    // Whether it can run `p` at all (any speed); otherwise *why (never NULL) names the reason.
    bool (*supports)(const Problem& p, std::string* why);
    // Launches on a problem whose m, n, k already fit the chunk limits (chunking.hpp).
    cudaError_t (*launch)(const Problem& p, cudaStream_t stream);
    // Its NN __global__ function, for resource reports (cudaFuncGetAttributes).
    const void* (*entry)();
    int dynamic_smem_bytes = 0;  // requested at launch, beyond its static __shared__ arrays
    // TF32 rows: whether the kernel truncates FP32 A and B to TF32 on p (wgmma reads the top 19
    // bits of each word) rather than rounding them to nearest (cvt.rn); null: it rounds.
    bool (*truncates_tf32)(const Problem& p) = nullptr;
    // Hopper rows: operands TMA cannot read are copied into aligned workspaces (pad_copy.hpp)
    // rather than served by an older step's kernel.
    bool copies_unaligned = false;
};

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

// True when the kernel runs `p` at full speed (op combination and alignment).
bool serves_fast(const KernelInfo& info, const Problem& p);

// `auto`, in two stages:
//  1. Tuned: for FP32 A/B/C with GEMMKIT_COMPUTE_32F, the kernel the tuning table records for
//     tuning::shape_class(p) (src/tuning/sgemm_table.csv, written by `gemmkit tune --write`),
//     provided it is registered, supports p and its min_sm <= sm. It wins even when it does not
//     serve p at full speed (the unaligned classes): it was measured fastest on such problems.
//  2. Otherwise (other types, no row for the class, or that kernel unusable here): the
//     highest-level kernel of the problem's types, runnable on `sm`, preferring one that serves
//     the problem at full speed.
// nullptr if no kernel supports p on `sm`; then *why says what is missing.
const KernelInfo* choose_kernel(const Problem& p, int sm, std::string* why);

}  // namespace gemmkit

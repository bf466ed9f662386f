// The few-vectors rule (docs/plan.md#few-vectors): which problems are a matrix times a few
// vectors, and how the few-vectors kernel (kernels/skinny/few_vectors.cuh) covers them.
#include <algorithm>
#include <string>

#include "kernels/skinny/geometry.hpp"
#include "plan/rules.hpp"
#include "plan/split_policy.hpp"
#include "registry.hpp"

namespace gemmkit {
namespace {

int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Where the few-vectors row beats its type's other steps (H100, 2026-11-27,
// docs/ladder/few_vectors.md#measured): FP32 only. 4096 x 16 x 4096 ran 1.05x cuBLAS TN and 1.53x
// NN, 16 x 4096 x 4096 NN 0.80x, 16 x 14336 x 4096 NN 0.81x, where auto ran 0.51x (issue 43's
// table), 0.73x and 0.18x. FP16/BF16 (0.3-0.5x; step 14 ~0.98x) and FP64 (0.4-0.7x; step 09 ~0.9x)
// keep their tensor-core steps.
bool served(const Problem& p) { return p.a_type == GEMMKIT_R_32F && p.compute == GEMMKIT_COMPUTE_32F; }

}  // namespace

const KernelInfo* few_vectors_row(const Problem& p, const DeviceFacts& d, Plan* plan) {
    const int64_t vectors = std::min(p.m, p.n);
    if (vectors > skinny::kMaxVectors || !served(p)) return nullptr;
    std::string ignored;
    for (const KernelInfo& info : registry()) {
        if (info.rules != PlanRules::kFewVectors || info.min_sm > d.sm || !row_supports(info, p, &ignored)) continue;
        plan->note("kernel", info.name,
                   std::string(p.n <= p.m ? "n" : "m") + " = " + std::to_string(vectors) + " <= " +
                       std::to_string(skinny::kMaxVectors) +
                       ": a matrix times a few vectors, bound by memory; the few-vectors kernel streams it");
        return &info;
    }
    return nullptr;
}

void plan_few_vectors(const Problem& p, const DeviceFacts& d, Plan* plan) {
    using namespace skinny;
    // With few rows the kernel forms C^T = op(B)^T op(A)^T, so that the big matrix is always W;
    // the dot form where W's k is contiguous, else the axpy form.
    const bool swapped = p.m < p.n;
    const bool dot = swapped ? p.transb == GEMMKIT_OP_N : p.transa == GEMMKIT_OP_T;
    const int elem = static_cast<int>(dtype_size(p.a_type));
    const int64_t rows = swapped ? p.n : p.m, vectors = swapped ? p.m : p.n;
    const int rows_per_block = block_rows(elem, dot);
    plan->config = (dot ? kConfigDot : 0) | (swapped ? kConfigSwapped : 0);
    plan->config_name = std::string(dot ? "dot form" : "axpy form") + ", " + std::to_string(rows_per_block) +
                        " rows a block" + (swapped ? ", C^T" : "");
    plan->bm = rows_per_block, plan->bn = kMaxVectors;
    plan->stages = 1, plan->cluster = 1;
    plan->note("tiles", plan->config_name,
               std::string(dot ? "the big matrix's k is contiguous: lanes read along k, sums added across the warp"
                               : "the big matrix's rows are contiguous: lanes read along rows, warps split k") +
                   (swapped ? "; few rows, so C^T = op(B)^T op(A)^T" : ""));

    // As many ranges of k as fit C's blocks into the block slots in one round: a second, partial
    // round would leave SMs idle while it streams.
    const int64_t blocks = std::max<int64_t>(1, ceil_div64(rows, rows_per_block) * ceil_div64(vectors, kMaxVectors));
    const int64_t slots = int64_t{d.sm_count} * blocks_per_sm(dot);
    const int64_t pieces_fit = std::max<int64_t>(1, slots / blocks);
    int64_t pieces = std::max<int64_t>(1, std::min(pieces_fit, p.k / kFewVectorsMinRangeK));
    const int64_t k_per_split = ceil_div64(ceil_div64(p.k, pieces), kSplitAlign) * kSplitAlign;
    pieces = k_per_split > 0 ? ceil_div64(p.k, k_per_split) : 1;
    plan->bk = static_cast<int>(pieces > 1 ? k_per_split : p.k);
    plan->split.tiles = blocks;
    plan->split.workers = blocks * pieces;
    if (pieces > 1) {
        plan->split.kind = SplitKind::kSplitK;
        plan->split.pieces = pieces;
        plan->note("split", "split-K: " + std::to_string(pieces) + " ranges of " + std::to_string(k_per_split),
                   std::to_string(blocks) + " blocks a range fit " + std::to_string(slots) +
                       " block slots; the last block of each row block adds the ranges in order");
    } else {
        plan->note("split", "none",
                   pieces_fit == 1 ? std::to_string(blocks) + " blocks fill more than half of the " +
                                         std::to_string(slots) + " block slots"
                                   : "k is too short to split (" + std::to_string(kFewVectorsMinRangeK) + " a range at least)");
    }
    plan->epilogue = EpiloguePath::kRegisters;
}

}  // namespace gemmkit

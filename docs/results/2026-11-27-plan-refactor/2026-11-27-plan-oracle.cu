// The plan refactor's oracle: the choices `auto` made before the plan existed (commit 9fe087a),
// worked out by that commit's own rule chains, recorded instead of launched, and printed in the
// corpus's format. Its output for the corpus must equal `gemmkit plan --corpus` line for line.
//
// What is taken from 9fe087a unchanged, and copied here because the refactor removed it:
//  - choose_kernel's level rule over every row (registry.cu), before rows said serves_auto;
//  - the Hopper steps' type chain (Small, Narrow, Columns, Deep, Mid, kWeighSmall, OneRound:
//    kernels/hopper/registry.cu) and launch_step_kernel's walk down it, with the rules it read
//    (leaves_clusters_idle, small_tiles_serve, mid_tiles_pay: kernels/hopper/launch.cuh), and
//    launch_hopper_step / launch_tf32_step / launch_with_copies / launch_padded's copies;
//  - launch_tuned_typed's tile rule (tensor/05_tuned.cuh), launch_dmma_sized's (dgemm/09),
//    launch_split_k's count (sgemm/13).
// sm_count_or(132) reads 132 here, as it did on the H100. Functions the refactor left as they
// were (operand_copies, tma_writes_c, plan_edge_peel, stream_k_plan, column_tiles_pay, ...) are
// called from the tree. Build (from the repository root, after the library):
//   nvcc -std=c++20 -Isrc -Iinclude -Ibuild/generated docs/results/2026-11-27-plan-refactor/2026-11-27-plan-oracle.cu \
//        build/libgemmkit_support.a -Lbuild -lgemmkit -lcudart -o build/plan_oracle
#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/dgemm/09_sized_tiles.cuh"
#include "kernels/hopper/10_sized_tiles.cuh"
#include "kernels/hopper/peeled_edges.hpp"
#include "kernels/hopper/stream_k.hpp"
#include "kernels/hopper/tensor_map.hpp"
#include "kernels/sgemm/split_k_policy.hpp"
#include "kernels/tensor/06_tf32.cuh"
#include "plan/corpus.hpp"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "tuning/shape_class.hpp"
#include "tuning/tuning_table.hpp"

using namespace gemmkit;
using namespace gemmkit::hopper;

namespace {

constexpr int64_t kSms = 132;

// ---- 9fe087a's Hopper steps, as types (registry.cu), without their kernels ----
template <class CfgT, bool kTmaStore_, bool kPads_>
struct StepOf {
    using Cfg = CfgT;
    static constexpr bool kTmaStore = kTmaStore_;
    static constexpr bool kPadsUnaligned = kPads_;
};
using WgmmaTmaStep = StepOf<WgmmaTmaCfg, false, false>;
using TmaRingStep = StepOf<TmaRingCfg, false, false>;
using WarpSpecializedStep = StepOf<WarpSpecializedCfg, false, false>;
using PersistentStep = StepOf<PersistentCfg, false, false>;
using ClusterMulticastStep = StepOf<ClusterMulticastCfg, false, false>;
using TmaStoreStep = StepOf<TmaStoreCfg, true, true>;
struct StreamKStep : TmaStoreStep {
    static constexpr bool kStreamK = true;
};
struct DeferredEpilogueStep : StreamKStep {
    using OneRound = TmaStoreStep;
};
template <class CfgT>
struct TmaStoreStepOn {
    using Cfg = CfgT;
    static constexpr bool kTmaStore = true;
};
template <class CfgT>
struct SizedStep : TmaStoreStepOn<CfgT> {
    static constexpr bool kStreamK = true;
};
template <class CfgT, class DeepCfgT>
struct MicroTileStepOn : SizedStep<CfgT> {
    using Deep = SizedStep<DeepCfgT>;
};
using MicroTileStep = MicroTileStepOn<MicroTileCfg, DeepMicroTileCfg>;
using Tf32MicroTileStep = MicroTileStepOn<Tf32MicroTileCfg, Tf32DeepMicroTileCfg>;
struct TinyTileStep : SizedStep<TinyTileCfg> {
    using Small = MicroTileStep;
    static constexpr bool kWeighSmall = true;
};
struct SmallTileStep : SizedStep<SmallTileCfg> {
    using Small = TinyTileStep;
};
struct SizedTilesStep : DeferredEpilogueStep {
    using Small = SmallTileStep;
    using Narrow = SizedStep<NarrowTileCfg>;
    using Columns = MicroTileStep;
    using Mid = SizedStep<MidTileCfg>;
};
struct Tf32Step : TmaStoreStepOn<Tf32Cfg> {};
struct Tf32StreamKStep : Tf32Step {
    static constexpr bool kStreamK = true;
};
struct Tf32TinyTileStep : SizedStep<Tf32TinyTileCfg> {
    using Small = Tf32MicroTileStep;
    static constexpr bool kWeighSmall = true;
};
struct Tf32SmallTileStep : SizedStep<Tf32SmallTileCfg> {
    using Small = Tf32TinyTileStep;
};
struct Tf32SizedTilesStep : Tf32StreamKStep {
    using Small = Tf32SmallTileStep;
    using Narrow = SizedStep<Tf32NarrowTileCfg>;
    using Columns = Tf32MicroTileStep;
    using Mid = SizedStep<Tf32MidTileCfg>;
};

// ---- 9fe087a's launch.cuh rules, sm_count_or(132) = 132 ----
template <class Cfg>
bool leaves_clusters_idle(const Problem& p) {
    return 2 * pair_tiles<Cfg>(p.m, p.n) <= kSms / Cfg::kCluster;
}
template <class Cfg, class MidCfg>
bool mid_tiles_pay(const Problem& p) {
    const int64_t clusters = kSms / Cfg::kCluster;
    constexpr double kScale = static_cast<double>(MidCfg::BM) * MidCfg::BN / (Cfg::BM * Cfg::BN);
    return narrow_tiles_pay(pair_tiles<Cfg>(p.m, p.n), pair_tiles<MidCfg>(p.m, p.n), clusters, slab_count<Cfg>(p.k),
                            kScale, MidCfg::kSlabPenalty);
}
template <class Step>
constexpr bool weighs_small_tiles() {
    if constexpr (requires { Step::kWeighSmall; })
        return Step::kWeighSmall;
    else
        return false;
}
template <class Step>
bool small_tiles_serve(const Problem& p) {
    if constexpr (weighs_small_tiles<Step>()) {
        using Cfg = typename Step::Cfg;
        using SmallCfg = typename Step::Small::Cfg;
        return small_tiles_pay(pair_tiles<Cfg>(p.m, p.n), kSms / Cfg::kCluster, tile_scale<Cfg>(),
                               pair_tiles<SmallCfg>(p.m, p.n), kSms / SmallCfg::kCluster, tile_scale<SmallCfg>(),
                               slab_count<Cfg>(p.k));
    }
    return true;
}
template <class Step>
constexpr bool is_stream_k_step() {
    if constexpr (requires { Step::kStreamK; })
        return Step::kStreamK;
    else
        return false;
}

template <class Cfg>
void record_tiles(Plan* plan) {
    plan->bm = Cfg::BM, plan->bn = Cfg::BN, plan->stages = Cfg::kStages;
    plan->cluster = 1;
    if constexpr (requires { Cfg::kCluster; }) plan->cluster = Cfg::kCluster;
    std::string s = std::to_string(plan->bm) + "x" + std::to_string(plan->bn);
    plan->config_name = (plan->cluster > 1 ? s + " pair-tiles" : s + " tiles") + ", " + std::to_string(plan->stages) +
                        " stages";
}

// 9fe087a's launch_step_kernel, recording what it would launch.
template <class Step, bool kTransB>
void walk(const Problem& p, Plan* plan) {
    if constexpr (requires { typename Step::Narrow; })
        if constexpr (!kTransB)
            if (p.n <= Step::Narrow::Cfg::BN) return walk<typename Step::Narrow, kTransB>(p, plan);
    if constexpr (requires { typename Step::Columns; })
        if (p.n <= Step::Columns::Cfg::BN && column_tiles_pay(pair_tiles<typename Step::Columns::Cfg>(p.m, p.n), kSms))
            return walk<typename Step::Columns, kTransB>(p, plan);
    if constexpr (requires { typename Step::Deep; })
        if (deep_ring_pays(pair_tiles<typename Step::Cfg>(p.m, p.n), kSms, slab_count<typename Step::Cfg>(p.k)))
            return walk<typename Step::Deep, kTransB>(p, plan);
    if constexpr (requires { typename Step::Small; })
        if (leaves_clusters_idle<typename Step::Cfg>(p) && small_tiles_serve<Step>(p))
            return walk<typename Step::Small, kTransB>(p, plan);
    if constexpr (requires { typename Step::Mid; })
        if (mid_tiles_pay<typename Step::Cfg, typename Step::Mid::Cfg>(p))
            return walk<typename Step::Mid, kTransB>(p, plan);
    using Cfg = typename Step::Cfg;
    record_tiles<Cfg>(plan);
    if constexpr (Step::kTmaStore) {
        const bool tma = tma_writes_c(p) && Cfg::BN >= 64;  // narrower tiles store from registers (06_tma_store.cuh)
        plan->epilogue = tma ? EpiloguePath::kTmaStore : EpiloguePath::kRegisters;
        if constexpr (is_stream_k_step<Step>()) {
            const int64_t clusters = kSms / Cfg::kCluster, pairs = pair_tiles<Cfg>(p.m, p.n);
            const int slabs = slab_count<Cfg>(p.k);
            const StreamKPlan sk = stream_k_plan(pairs, clusters, slabs, tile_scale<Cfg>());
            plan->split = {SplitKind::kStreamK, pairs, slabs, sk.split_pairs, sk.split_pairs > 0 ? sk.clusters : clusters};
            if constexpr (requires { typename Step::OneRound; }) plan->deferred_epilogue = !(pairs <= clusters);
        }
    }
}

template <class Step>
void walk_ops(const Problem& q, Plan* plan) {
    if (q.transb == GEMMKIT_OP_T)
        walk<Step, true>(q, plan);
    else
        walk<Step, false>(q, plan);
}

template <class Cfg, class SmallCfg>
void pipeline_tiles(const Problem& p, Plan* plan) {
    const int64_t tiles = int64_t{ceil_div(p.m, Cfg::BM)} * ceil_div(p.n, Cfg::BN);
    const bool small = 2 * tiles <= kSms;
    plan->bm = small ? SmallCfg::BM : Cfg::BM;
    plan->bn = small ? SmallCfg::BN : Cfg::BN;
    plan->stages = small ? SmallCfg::kStages : Cfg::kStages;
    plan->config_name = std::to_string(plan->bm) + "x" + std::to_string(plan->bn) + " tiles, " +
                        std::to_string(plan->stages) + " stages";
    plan->epilogue = EpiloguePath::kStaged;
}

// launch_hopper_step (16-bit) and launch_tf32_step, with their copies.
template <class Step>
void hopper(const Problem& p, bool tf32, Plan* plan) {
    bool pads = tf32;
    if constexpr (requires { Step::kPadsUnaligned; }) pads = pads || Step::kPadsUnaligned;
    Problem q = p;
    if (tf32 && p.transb == GEMMKIT_OP_T) {
        plan->transpose_b = true;
        q.transb = GEMMKIT_OP_N;
        q.B = reinterpret_cast<const void*>(uintptr_t{5} << 40);  // the transpose's aligned workspace
        q.ldb = (q.k + 31) / 32 * 32;
    }
    auto pipeline = [&] {
        if (tf32)
            pipeline_tiles<tensor::Tf32PipelineCfg, tensor::Tf32SmallCfg>(p, plan);
        else
            pipeline_tiles<tensor::TunedCfg, tensor::TunedSmallCfg>(p, plan);
    };
    if (!pads) {
        if (!tma_reads_operands(q)) return pipeline();
        return walk_ops<Step>(q, plan);
    }
    const OperandCopies copies = operand_copies(q);
    plan->copy_a = copies.a, plan->copy_b = copies.b;
    if (copies.any()) {
        const EdgePeel peel = plan_edge_peel(q, copies.a, copies.b, kSms);
        plan->peel_rows = peel.rows, plan->peel_cols = peel.cols;
        q.m -= peel.rows, q.n -= peel.cols;
    }
    walk_ops<Step>(q, plan);
}

// 9fe087a's choose_kernel: the tuning table, then the highest level over every row.
const KernelInfo* old_choose(const Problem& p) {
    if (p.a_type == GEMMKIT_R_32F && p.b_type == GEMMKIT_R_32F && p.c_type == GEMMKIT_R_32F &&
        p.compute == GEMMKIT_COMPUTE_32F) {
        const KernelInfo* info = find_kernel(tuning::tuned_kernel_for(tuning::shape_class(p)));
        std::string ignored;
        if (info != nullptr && info->min_sm <= 90 && info->supports(p, &ignored)) return info;
    }
    const KernelInfo* best_any = nullptr;
    const KernelInfo* best_fast = nullptr;
    std::string reason;
    for (const KernelInfo& info : registry()) {
        if (info.min_sm > 90 || !info.supports(p, &reason)) continue;
        if (best_any == nullptr || info.level > best_any->level) best_any = &info;
        if (serves_fast(info, p) && (best_fast == nullptr || info.level > best_fast->level)) best_fast = &info;
    }
    return best_fast != nullptr ? best_fast : best_any;
}

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

std::string old_plan(const Problem& p) {
    Plan plan;
    plan.kernel = old_choose(p);
    if (plan.kernel == nullptr) return "no plan";
    const KernelInfo& k = *plan.kernel;
    plan.bm = k.tile.BM, plan.bn = k.tile.BN;
    plan.config_name = std::to_string(k.tile.BM) + "x" + std::to_string(k.tile.BN) + " tiles";
    const bool half = starts_with(k.name, "f16.") || starts_with(k.name, "bf16.");
    if (half && k.level == 5) {
        pipeline_tiles<tensor::TunedCfg, tensor::TunedSmallCfg>(p, &plan);
    } else if (starts_with(k.name, "tf32.") && k.level == 6) {
        pipeline_tiles<tensor::Tf32PipelineCfg, tensor::Tf32SmallCfg>(p, &plan);
    } else if (half && k.level >= 6) {
        switch (k.level) {
            case 6: hopper<WgmmaTmaStep>(p, false, &plan); break;
            case 7: hopper<TmaRingStep>(p, false, &plan); break;
            case 8: hopper<WarpSpecializedStep>(p, false, &plan); break;
            case 9: hopper<PersistentStep>(p, false, &plan); break;
            case 10: hopper<ClusterMulticastStep>(p, false, &plan); break;
            case 11: hopper<TmaStoreStep>(p, false, &plan); break;
            case 12: hopper<StreamKStep>(p, false, &plan); break;
            case 13: hopper<DeferredEpilogueStep>(p, false, &plan); break;
            default: hopper<SizedTilesStep>(p, false, &plan); break;
        }
    } else if (starts_with(k.name, "tf32.") && k.level >= 7) {
        if (k.level == 7) hopper<Tf32Step>(p, true, &plan);
        else if (k.level == 8) hopper<Tf32StreamKStep>(p, true, &plan);
        else hopper<Tf32SizedTilesStep>(p, true, &plan);
    } else if (starts_with(k.name, "dgemm.") && k.level >= 8) {
        using namespace dgemm;
        auto dmma = [&](auto cfg) {
            using Cfg = decltype(cfg);
            plan.bm = Cfg::BM, plan.bn = Cfg::BN, plan.stages = Cfg::kStages;
            plan.config_name = std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + " tiles, " +
                               std::to_string(Cfg::kStages) + " stages, " + std::to_string(Cfg::kMinBlocks) +
                               " blocks an SM";
            const DmmaStreamKPlan sk = dmma_stream_k_plan<Cfg>(p.m, p.n, p.k, kSms);
            plan.split = {SplitKind::kStreamK, sk.tiles, sk.slabs, sk.split, sk.shares};
        };
        if (k.level == 8) {
            dmma(DmmaStreamKCfg{});
        } else {
            const bool small = small_dmma_tiles_serve<DmmaStreamKCfg, DmmaSmallCfg>(p.m, p.n, p.k, kSms);
            switch (dmma_narrow_tile(p.m, p.n, small)) {
                case DmmaNarrowTile::kCols16: dmma(DmmaCols16Cfg{}); break;
                case DmmaNarrowTile::kCols32: dmma(DmmaCols32Cfg{}); break;
                case DmmaNarrowTile::kCols64: dmma(DmmaCols64Cfg{}); break;
                case DmmaNarrowTile::kRows16: dmma(DmmaRows16Cfg{}); break;
                case DmmaNarrowTile::kRows32: dmma(DmmaRows32Cfg{}); break;
                case DmmaNarrowTile::kRows64: dmma(DmmaRows64Cfg{}); break;
                case DmmaNarrowTile::kNone:
                    if (small)
                        dmma(DmmaSmallCfg{});
                    else
                        dmma(DmmaStreamKCfg{});
                    break;
            }
        }
    } else if (starts_with(k.name, "sgemm.13_")) {
        const int64_t tiles = int64_t{ceil_div(p.m, k.tile.BM)} * ceil_div(p.n, k.tile.BN);
        const int splits = sgemm::split_k_count(tiles, kSms * k.blocks_per_sm, p.k, k.tile.BK);
        plan.split = {splits > 1 ? SplitKind::kSplitK : SplitKind::kNone, tiles, (p.k + k.tile.BK - 1) / k.tile.BK,
                      splits > 1 ? splits : 0, splits > 1 ? tiles * splits : tiles};
    }
    return plan_summary(plan);
}

}  // namespace

int main() {
    for (const PlanCase& c : plan_corpus()) {
        Problem p;
        std::string why;
        if (!problem_of(c, &p, &why)) return 1;
        std::printf("%s: %s\n", case_name(c).c_str(), old_plan(p).c_str());
    }
    return 0;
}

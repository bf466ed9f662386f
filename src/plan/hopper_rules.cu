// The Hopper steps' plan (f16/bf16 steps 06-14, tf32 07-09): which operands are copied first,
// the tiles (step 14 / tf32 09 sizes them to the problem), the split along k and the epilogue.
// The rules and their evidence: docs/plan.md#hopper.
#include <string>

#include "kernels/hopper/01_wgmma_tma.cuh"
#include "kernels/hopper/02_tma_ring.cuh"
#include "kernels/hopper/10_sized_tiles.cuh"
#include "kernels/hopper/batch_path.hpp"
#include "kernels/hopper/peeled_edges.hpp"
#include "kernels/hopper/stream_k.hpp"
#include "kernels/hopper/tensor_map.hpp"
#include "plan/configs.hpp"
#include "plan/rules.hpp"

namespace gemmkit {
namespace {

using namespace hopper;

template <class Cfg>
void set_tiles(Plan* plan, HopperTiles tiles) {
    take_tiles<Cfg>(static_cast<int>(tiles), plan);
}

// The pair-tiles of Cfg over every problem of q's batch (one problem: its own).
template <class Cfg>
int64_t pairs_of(const Problem& q) {
    return batch_pair_tiles<Cfg>(q.m, q.n, q.batch.count);
}

// The clusters of Cfg the GPU runs at once (one CTA an SM).
template <class Cfg>
int64_t clusters_of(const DeviceFacts& d) {
    return d.sm_count / Cfg::kCluster;
}

// Whether pair-tiles of Cfg would leave at least half of the GPU's clusters idle on q.
template <class Cfg>
bool leaves_clusters_idle(const Problem& q, const DeviceFacts& d) {
    return 2 * pairs_of<Cfg>(q) <= clusters_of<Cfg>(d);
}

// The configurations of step 14 (16-bit) or tf32 09.
template <class Wide_, class Narrow_, class Micro_, class MicroDeep_, class Tiny_, class Small_, class Mid_>
struct SizedTileSet {
    using Wide = Wide_;
    using Narrow = Narrow_;
    using Micro = Micro_;
    using MicroDeep = MicroDeep_;
    using Tiny = Tiny_;
    using Small = Small_;
    using Mid = Mid_;
};
using SizedTiles16 =
    SizedTileSet<TmaStoreCfg, NarrowTileCfg, MicroTileCfg, DeepMicroTileCfg, TinyTileCfg, SmallTileCfg, MidTileCfg>;
using SizedTilesTf32 = SizedTileSet<Tf32Cfg, Tf32NarrowTileCfg, Tf32MicroTileCfg, Tf32DeepMicroTileCfg, Tf32TinyTileCfg,
                                    Tf32SmallTileCfg, Tf32MidTileCfg>;

// 64 x 64 tiles, with a 12-stage ring where a single partial round of them streams long operands.
template <class Set>
void micro_tiles(const Problem& q, const DeviceFacts& d, Plan* plan) {
    using Micro = typename Set::Micro;
    if (deep_ring_pays(pairs_of<Micro>(q), d.sm_count, slab_count<Micro>(q.k))) {
        set_tiles<typename Set::MicroDeep>(plan, HopperTiles::kMicro64Deep);
        plan->note("ring", "12 stages", "a single partial round of 64x64 tiles streams slabs >= 32 (deep_ring_pays)");
    } else {
        set_tiles<Micro>(plan, HopperTiles::kMicro64);
    }
}

// How long Cfg's pair-tiles of every problem of q take on d by stream-K's cost model
// (schedule_slabs, in slabs of a 128 x 256 tile), times the configuration's slab penalty.
template <class Cfg>
double schedule_cost(const Problem& q, const DeviceFacts& d) {
    double penalty = 1.0;
    if constexpr (requires { Cfg::kSlabPenalty; }) penalty = Cfg::kSlabPenalty;
    return penalty * schedule_slabs(pairs_of<Cfg>(q), clusters_of<Cfg>(d), slab_count<Cfg>(q.k), tile_scale<Cfg>());
}

// A batch of problems smaller than a 256 x 256 pair-tile: the rules below size tiles for one C
// and would run the widest tiles half past each problem's edge (a 128 x 128 problem in a pair of
// 128 x 256 tiles: three quarters idle). Here every configuration's schedule of all the
// problems' pair-tiles is costed (schedule_cost) and the shortest taken, the wider on a tie.
template <class Set>
void batch_tiles(const Problem& q, const DeviceFacts& d, Plan* plan) {
    using Wide = typename Set::Wide;
    using Mid = typename Set::Mid;
    using Small = typename Set::Small;
    using Tiny = typename Set::Tiny;
    using Micro = typename Set::Micro;
    const double costs[] = {schedule_cost<Wide>(q, d), schedule_cost<Mid>(q, d), schedule_cost<Small>(q, d),
                            schedule_cost<Tiny>(q, d), schedule_cost<Micro>(q, d)};
    int best = 0;
    for (int i = 1; i < 5; ++i)
        if (costs[i] < costs[best]) best = i;
    switch (best) {
        case 0: set_tiles<Wide>(plan, HopperTiles::kStep); break;
        case 1: set_tiles<Mid>(plan, HopperTiles::kMid128x192); break;
        case 2: set_tiles<Small>(plan, HopperTiles::kSmall128); break;
        case 3: set_tiles<Tiny>(plan, HopperTiles::kTiny128x64); break;
        default: micro_tiles<Set>(q, d, plan); break;
    }
    plan->note("tiles", plan->config_name,
               "a batch of problems smaller than 256x256 pair-tiles: the shortest schedule of all their pair-tiles "
               "(batch_tiles)");
}

// Step 14's tiles for q (which TMA reads as it is or from its copies): the smallest that still
// fill the GPU, narrow ones for a C of few columns, 128 x 192 where those finish sooner.
template <class Set>
void size_tiles(const Problem& q, const DeviceFacts& d, Plan* plan) {
    using Wide = typename Set::Wide;
    using Micro = typename Set::Micro;
    using Tiny = typename Set::Tiny;
    using Small = typename Set::Small;
    using Mid = typename Set::Mid;
    const bool b_k_major = q.transb == GEMMKIT_OP_N;
    if (b_k_major && q.n <= Set::Narrow::BN) {
        set_tiles<typename Set::Narrow>(plan, HopperTiles::kNarrow64x16);
        plan->note("tiles", plan->config_name, "n <= 16 with B K-major: a matrix times a few vectors");
        return;
    }
    if (q.n <= Micro::BN && column_tiles_pay(pairs_of<Micro>(q), d.sm_count)) {
        micro_tiles<Set>(q, d, plan);
        plan->note("tiles", plan->config_name, "n <= 64 and 64x64 tiles fill half of the SMs (column_tiles_pay)");
        return;
    }
    if (q.batch.count > 1 && (q.m < 2 * Wide::BM || q.n < Wide::BN)) return batch_tiles<Set>(q, d, plan);
    if (leaves_clusters_idle<Wide>(q, d)) {
        if (!leaves_clusters_idle<Small>(q, d)) {
            set_tiles<Small>(plan, HopperTiles::kSmall128);
            plan->note("tiles", plan->config_name, "128x256 pairs would leave half of the clusters idle");
            return;
        }
        const bool micro_pays =
            leaves_clusters_idle<Tiny>(q, d) &&
            small_tiles_pay(pairs_of<Tiny>(q), clusters_of<Tiny>(d), tile_scale<Tiny>(),
                            pairs_of<Micro>(q), clusters_of<Micro>(d), tile_scale<Micro>(),
                            slab_count<Tiny>(q.k));
        if (micro_pays) {
            micro_tiles<Set>(q, d, plan);
            plan->note("tiles", plan->config_name,
                       "128x64 pairs would leave half of the clusters idle and stream-K cuts them no less "
                       "(small_tiles_pay)");
        } else {
            set_tiles<Tiny>(plan, HopperTiles::kTiny128x64);
            plan->note("tiles", plan->config_name,
                       leaves_clusters_idle<Tiny>(q, d)
                           ? "128x128 pairs would leave half of the clusters idle; 64x64 tiles would be cut "
                             "more along k (small_tiles_pay)"
                           : "128x128 pairs would leave half of the clusters idle");
        }
        return;
    }
    const double mid_scale = static_cast<double>(Mid::BM) * Mid::BN / (Wide::BM * Wide::BN);
    if (narrow_tiles_pay(pairs_of<Wide>(q), pairs_of<Mid>(q), clusters_of<Wide>(d),
                         slab_count<Wide>(q.k), mid_scale, Mid::kSlabPenalty)) {
        set_tiles<Mid>(plan, HopperTiles::kMid128x192);
        plan->note("tiles", plan->config_name, "they finish sooner than 128x256 pairs by stream-K's cost model");
        return;
    }
    set_tiles<Wide>(plan, HopperTiles::kStep);
    plan->note("tiles", plan->config_name, "the problem fills the clusters with the widest tiles");
}

// Stream-K's split of the tiles the plan names (steps 12-14, tf32 08-09).
template <class Cfg>
void split_stream_k(const Problem& q, const DeviceFacts& d, Plan* plan) {
    const int64_t pairs = pairs_of<Cfg>(q), clusters = clusters_of<Cfg>(d);
    const int slabs = slab_count<Cfg>(q.k);
    const StreamKPlan sk = stream_k_plan(pairs, clusters, slabs, tile_scale<Cfg>());
    plan->split = {SplitKind::kStreamK, pairs, slabs, sk.split_pairs, sk.split_pairs > 0 ? sk.clusters : clusters};
    if (sk.split_pairs > 0)
        plan->note("split", "stream-K",
                   "the last " + std::to_string(sk.split_pairs) + " of " + std::to_string(pairs) +
                       " pair-tiles cut along k over " + std::to_string(sk.clusters) +
                       " clusters: it saves more slabs than it costs (stream_k_plan)");
    else
        plan->note("split", "none", "whole tiles: the last round is busy enough, or a split would cost more than it saves");
}

// The stream-K split of whichever configuration size_tiles chose.
template <class Set>
void split_sized(const Problem& q, const DeviceFacts& d, Plan* plan) {
    switch (static_cast<HopperTiles>(plan->config)) {
        case HopperTiles::kNarrow64x16: return split_stream_k<typename Set::Narrow>(q, d, plan);
        case HopperTiles::kMicro64: return split_stream_k<typename Set::Micro>(q, d, plan);
        case HopperTiles::kMicro64Deep: return split_stream_k<typename Set::MicroDeep>(q, d, plan);
        case HopperTiles::kTiny128x64: return split_stream_k<typename Set::Tiny>(q, d, plan);
        case HopperTiles::kSmall128: return split_stream_k<typename Set::Small>(q, d, plan);
        case HopperTiles::kMid128x192: return split_stream_k<typename Set::Mid>(q, d, plan);
        default: return split_stream_k<typename Set::Wide>(q, d, plan);
    }
}

// Step 13 (and step 14 on its own tiles): each tile's epilogue under the next tile's wgmmas,
// except where every pair-tile runs in the first round (nothing to hide it under): there the
// whole tiles run step 11's kernel.
void defer_epilogue(const DeviceFacts& d, Plan* plan) {
    const bool one_round = plan->split.tiles <= d.sm_count / plan->cluster;
    plan->deferred_epilogue = !one_round;
    plan->note("epilogue timing", one_round ? "at the tile's end" : "deferred",
               one_round ? "every pair-tile runs in the first round: nothing to hide an epilogue under"
                         : "a tile's epilogue runs under the next tile's wgmmas");
}

// What the 16-bit steps 06-13 run on their own tiles.
template <class Cfg>
void own_tiles(Plan* plan, const char* what) {
    set_tiles<Cfg>(plan, HopperTiles::kStep);
    plan->note("tiles", plan->config_name, what);
}

}  // namespace

void plan_hopper_step(const Problem& p, const DeviceFacts& d, int level, bool tf32, Plan* plan) {
    // The mma.sync pipeline runs where the sm_90a kernels are not loaded, where TMA cannot read an
    // operand the step does not copy, and where there is no memory for the copies.
    Plan pipeline = *plan;
    plan_pipeline(p, d, tf32, &pipeline);
    plan->fallback_config = pipeline.config;
    auto run_pipeline = [&](const char* why) {
        const KernelInfo* row = plan->kernel;
        *plan = pipeline;
        plan->kernel = row;
        plan->fallback_config = pipeline.config;
        plan->config = static_cast<int>(HopperTiles::kPipeline);
        plan->note_before_last("kernel", "mma.sync pipeline", why);
    };
    if (!d.hopper_code) return run_pipeline("the sm_90a kernels (wgmma, TMA) are not loaded for this device");
    // A batch runs on the wgmma kernels where TMA reads it as it is: a copy or a transpose would
    // be one a problem.
    if (const char* why = batch_pipeline_reason(p, tf32)) return run_pipeline(why);
    // Steps 11 and on (tf32: all) copy what TMA cannot read; the earlier ones run the pipeline.
    const bool pads = tf32 || level >= 11;
    Problem q = p;
    if (tf32 && p.transb == GEMMKIT_OP_T) {
        plan->transpose_b = true;
        plan->note("transpose", "B", "TF32 wgmma reads B K-major only: B of op T is transposed into a workspace");
        q.transb = GEMMKIT_OP_N;
        q.ldb = q.k;  // the workspace's columns are aligned (pad_copy.hpp)
        q.B = nullptr;
    }
    if (!pads || batched(p)) {
        if (!tma_reads_operands(p))
            return run_pipeline("TMA cannot read A or B (16-byte columns) and this step copies none");
    } else {
        OperandCopies copies = operand_copies(p);
        if (plan->transpose_b) copies.b = false;
        plan->copy_a = copies.a, plan->copy_b = copies.b;
        if (copies.any()) {
            std::string which = copies.a && copies.b ? "A, B" : copies.a ? "A" : "B";
            const bool unreadable = copies.b || !tma_addressable(p.A, p.lda, p.a_type);
            plan->note("copies", which,
                       unreadable ? "TMA cannot read them (columns off 16 bytes); copied into aligned workspaces"
                                  : "A is large and its columns start on odd 16-byte boundaries (copies_pay_for_a)");
            const EdgePeel peel = plan_edge_peel(q, copies.a, copies.b, d.sm_count);
            plan->peel_rows = peel.rows, plan->peel_cols = peel.cols;
            if (peel.any())
                plan->note("peel", std::to_string(peel.rows) + " rows, " + std::to_string(peel.cols) + " columns",
                           "C's last few rows/columns past a multiple of 256 are formed by the copies");
            q.m -= peel.rows, q.n -= peel.cols;
        }
    }
    if (tf32) {
        if (level == 9) {
            size_tiles<SizedTilesTf32>(q, d, plan);
            split_sized<SizedTilesTf32>(q, d, plan);
        } else {
            own_tiles<Tf32Cfg>(plan, "step 07's 128x256 pair-tiles");
            if (level == 8) split_stream_k<Tf32Cfg>(q, d, plan);
        }
    } else if (level == 14) {
        size_tiles<SizedTiles16>(q, d, plan);
        split_sized<SizedTiles16>(q, d, plan);
        if (plan->config == static_cast<int>(HopperTiles::kStep)) defer_epilogue(d, plan);
    } else {
        switch (level) {
            case 6: own_tiles<WgmmaTmaCfg>(plan, "one warpgroup, one stage"); break;
            case 7: own_tiles<TmaRingCfg>(plan, "a 4-stage TMA ring"); break;
            case 8: own_tiles<WarpSpecializedCfg>(plan, "a producer warpgroup feeds two consumers"); break;
            case 9: own_tiles<PersistentCfg>(plan, "one block an SM walks the tiles"); break;
            case 10: own_tiles<ClusterMulticastCfg>(plan, "clusters of 2 share B's slabs"); break;
            default: own_tiles<TmaStoreCfg>(plan, "clusters of 2, TMA-store epilogue"); break;
        }
        if (level >= 12) split_stream_k<TmaStoreCfg>(q, d, plan);
        if (level == 13) defer_epilogue(d, plan);
    }
    if (tf32 || level >= 11) choose_tma_store(q, plan, /*may_stage=*/true);
}

void choose_tma_store(const Problem& p, Plan* plan, bool may_stage) {
    const bool wide = plan->bn >= 64;  // at least a staged piece
    const bool tma = tma_writes_c(p) && wide;
    const bool staged = !tma && may_stage && wide && p.beta == 0.0;
    plan->epilogue = tma ? EpiloguePath::kTmaStore : staged ? EpiloguePath::kStaged : EpiloguePath::kRegisters;
    plan->note("epilogue", epilogue_name(plan->epilogue),
               tma      ? grouped(p) ? "beta 0, C's columns whole 16-byte chunks and 16-byte aligned; the tiles whole "
                                       "inside their group (the others write C from registers)"
                                     : "beta 0, C's columns whole 16-byte chunks and 16-byte aligned"
               : staged ? "TMA cannot store C (its columns off 16 bytes); beta 0: staged as for TMA, then copied "
                          "out by the warpgroup, a column's rows at a time (docs/ladder/hopper.md#lab-staged-copy-out)"
               : !wide  ? "a tile narrower than a staged piece writes C from registers"
                        : "TMA cannot store C here and C is read (beta != 0), or the row stages nothing");
}

}  // namespace gemmkit

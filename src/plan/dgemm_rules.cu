// FP64 steps 08-09's plan: the tiles (step 09 sizes them to the problem) and stream-K's split of
// the last round. Evidence: docs/plan.md#fp64.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/dgemm/dmma_configs.hpp"
#include "plan/configs.hpp"
#include "plan/rules.hpp"

namespace gemmkit {
namespace {

using namespace dgemm;

template <class Cfg>
void set_dmma_tiles(const Problem& p, const DeviceFacts& d, DmmaTiles tiles, Plan* plan) {
    take_tiles<Cfg>(static_cast<int>(tiles), plan);
    plan->config_name += ", " + std::to_string(Cfg::kMinBlocks) + " blocks an SM";
    DmmaStreamKPlan sk = dmma_stream_k_plan<Cfg>(p.m, p.n, p.k, d.sm_count);
    if (batched(p)) {  // the launch runs step 07's kernel alone, a block a tile of every problem
        sk.split = 0;
        sk.tiles *= p.batch.count;
        sk.shares = static_cast<int>(std::min<int64_t>(sk.tiles, INT32_MAX));
    }
    plan->split = {SplitKind::kStreamK, sk.tiles, sk.slabs, sk.split, sk.shares};
    if (batched(p))
        plan->note("split", "none", "a batch: its problems take the grid's third dimension");
    else if (sk.split > 0)
        plan->note("split", "stream-K",
                   "the last " + std::to_string(sk.split) + " of " + std::to_string(sk.tiles) +
                       " tiles shared out along k over " + std::to_string(sk.shares) +
                       " blocks: a short last round after few whole ones (dmma_stream_k_split)");
    else
        plan->note("split", "none", "whole tiles: no last round short enough to gain from a split");
}

DmmaTiles narrow_tiles(DmmaNarrowTile t) {
    switch (t) {
        case DmmaNarrowTile::kCols16: return DmmaTiles::kCols16;
        case DmmaNarrowTile::kCols32: return DmmaTiles::kCols32;
        case DmmaNarrowTile::kCols64: return DmmaTiles::kCols64;
        case DmmaNarrowTile::kRows16: return DmmaTiles::kRows16;
        case DmmaNarrowTile::kRows32: return DmmaTiles::kRows32;
        case DmmaNarrowTile::kRows64: return DmmaTiles::kRows64;
        case DmmaNarrowTile::kNone: break;
    }
    return DmmaTiles::k128;
}

}  // namespace

void plan_dmma(const Problem& p, const DeviceFacts& d, bool sized, Plan* plan) {
    DmmaTiles tiles = DmmaTiles::k128;
    if (sized) {
        // A batch's tiles run side by side: 64 x 64 ones where the 128 x 128 ones of all its
        // problems are fewer than the SMs.
        const int64_t batch_tiles = (p.m + DmmaStreamKCfg::BM - 1) / DmmaStreamKCfg::BM *
                                    ((p.n + DmmaStreamKCfg::BN - 1) / DmmaStreamKCfg::BN) * p.batch.count;
        const bool small = batched(p) ? batch_tiles < d.sm_count
                                      : small_dmma_tiles_serve<DmmaStreamKCfg, DmmaSmallCfg>(p.m, p.n, p.k, d.sm_count);
        const DmmaNarrowTile narrow = dmma_narrow_tile(p.m, p.n, small);
        tiles = narrow != DmmaNarrowTile::kNone ? narrow_tiles(narrow) : small ? DmmaTiles::k64 : DmmaTiles::k128;
    }
    switch (tiles) {
        case DmmaTiles::k64: set_dmma_tiles<DmmaSmallCfg>(p, d, tiles, plan); break;
        case DmmaTiles::kCols16: set_dmma_tiles<DmmaCols16Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::kCols32: set_dmma_tiles<DmmaCols32Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::kCols64: set_dmma_tiles<DmmaCols64Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::kRows16: set_dmma_tiles<DmmaRows16Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::kRows32: set_dmma_tiles<DmmaRows32Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::kRows64: set_dmma_tiles<DmmaRows64Cfg>(p, d, tiles, plan); break;
        case DmmaTiles::k128: set_dmma_tiles<DmmaStreamKCfg>(p, d, tiles, plan); break;
    }
    const char* why = !sized                     ? "step 08's tiles"
                      : tiles == DmmaTiles::k128 ? "128x128 tiles fill the SMs, or step 08's shares are long"
                      : tiles == DmmaTiles::k64  ? "128x128 tiles are fewer than the SMs and step 08's shares short "
                                                   "(dmma_small_tiles_pay)"
                                                 : "C has at most 64 columns (rows): tiles as narrow as C "
                                                   "(dmma_narrow_tile)";
    plan->note_before_last("tiles", plan->config_name, why);
}

}  // namespace gemmkit

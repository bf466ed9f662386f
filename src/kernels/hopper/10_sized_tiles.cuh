// Hopper step 10 (level 14 of the f16 and bf16 families, 9 of tf32): tiles sized to the problem.
//
// What changed since step 9: nothing in a kernel; the plan picks the tile. Steps 6-9 cut C
// into pair-tiles of 256 x 256 (a cluster of two 128 x 256 CTAs), which a small C has few of:
// 1024^3 has 16 for 66 clusters, so 50 clusters idle and each busy one runs a whole tile's
// slabs. Stream-K (step 8) shares long tiles out along k, but a tile of few slabs gains nothing
// from being cut. Here a problem whose 256 x 256 pair-tiles would leave at least half of the
// clusters idle runs step 8's kernel on CTA tiles of 128 x 128 (each consumer warpgroup one
// m64n128 wgmma a k16 step, 64 accumulators): four times the tiles, each a quarter of the work,
// with the same ring, multicast, TMA-store epilogue and stream-K plan (whose split cost counts
// the smaller slabs and partial sums). Smaller slabs leave room for six stages. The epilogue is
// not deferred: with at most two tiles a CTA there is little to hide it under. TF32 does the same
// with its steps 7 and 8 (m64n128k8 wgmmas).
// Where even 128 x 128 tiles would leave half of the clusters idle (1024^3: 32 pairs of them for
// 66 clusters), the same kernel runs on 128 x 64 CTA tiles (m64n64 wgmmas, 32 accumulators a
// thread, 8 stages): 1024^3 is then 128 tiles for 132 SMs, cuBLAS's own tiling there. Such a
// tile's A slab is twice its B slab, so its clusters lie along n and share A (each CTA loads one
// of A's two boxes, multicast), as cuBLAS's kernel for 1024^3 does: a third less L2 traffic a
// slab. The CTAs load only their first 4 slabs whole before the partner is ready, not the 8 of
// the ring, which paid where A's loads cost most (docs/ladder/hopper.md#lab-128x64-clusters).
// Where those pairs too would leave half of the clusters idle (512^3: 16), 64 x 64 tiles with a
// single consumer warpgroup each (m64n64 wgmmas, 8 stages, clusters of one): 64 CTAs at 512^3
// instead of 32 (docs/ladder/hopper.md#lab-64x64-tiles). Not where stream-K would cut the
// 128 x 64 pairs along k and run the 64 x 64 tiles whole (small_tiles_pay, stream_k.hpp): there
// they ran slower.
// A C of at most 16 columns with B K-major (op N; TF32's B always is, after its transpose), a
// matrix times a few vectors, runs on 64 x 16 tiles instead (m64n16 wgmmas): the 64 x 64 tiles
// it took spent 3/4 of their wgmmas and B slabs past C's edge (docs/ladder/hopper.md#lab-few-vectors).
// A C of at most 64 columns runs on the 64 x 64 tiles wherever they fill half of
// the SMs (column_tiles_pay, stream_k.hpp): the wider tiles the other rules took there ran most
// of their width past C. And where a single partial round of 64 x 64 tiles streams long
// operands (4096 x 32..128 x 4096, a layer applied to a few dozen tokens), their ring holds 12
// slabs instead of 8 (deep_ring_pays). Measured: docs/ladder/hopper.md#lab-few-columns.
// Everything else runs step 9. (The choice: size_tiles in src/plan/hopper_rules.cu, which takes
// the smallest tiles that still fill the GPU; docs/plan.md#hopper.)
// Preconditions: as step 6.
#pragma once

#include "kernels/hopper/07_tf32.cuh"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/stream_k.hpp"

namespace gemmkit::hopper {

struct SmallTileCfg : TmaStoreCfg {
    static constexpr int BN = 128, kStages = 6;
};
struct Tf32SmallTileCfg : Tf32Cfg {  // the same for TF32 (level 9 of the tf32 family)
    static constexpr int BN = 128, kStages = 6;
};
// Between the two: pairs of 128 x 192 CTA tiles (m64n192 wgmmas, 96 accumulators, 4 stages)
// where they finish sooner than the 256 x 256 pairs by stream-K's cost model (mid_tiles_pay,
// launch.cuh): 1536^3 keeps 48 of 66 clusters busy instead of 36, 3072^3 runs three rounds of
// three-quarter slabs instead of two and a split third. A 192-row B slab of op T is three TMA
// boxes: the cluster's CTAs load one and two. kSlabPenalty: a slab's time against its area's
// share of a 256-wide slab's (stream_k.hpp).
struct MidTileCfg : TmaStoreCfg {
    static constexpr int BN = 192, kStages = 4;
    static constexpr double kSlabPenalty = kMidSlabPenalty16Bit;
};
struct Tf32MidTileCfg : Tf32Cfg {
    static constexpr int BN = 192, kStages = 4;
    static constexpr double kSlabPenalty = kMidSlabPenaltyTf32;
};
struct TinyTileCfg : TmaStoreCfg {
    static constexpr int BN = 64, kStages = 8, kCluster = 2, kSlabsAlone = 4;
    static constexpr bool kClusterAlongN = true;
};
struct Tf32TinyTileCfg : Tf32Cfg {
    static constexpr int BN = 64, kStages = 8, kCluster = 2;
    static constexpr bool kClusterAlongN = true;
};
// Where even 128 x 64 tiles leave half of the clusters idle (512^3: 16 pairs for 66 clusters),
// 64 x 64 tiles with one consumer warpgroup (m64n64 wgmmas) in clusters of one: twice the CTAs,
// each half the work; not where their stream-K plan is the worse one (small_tiles_pay,
// stream_k.hpp).
template <class Base>
struct MicroTiles : Base {
    static constexpr int BM = 64, BN = 64, kStages = 8, kCluster = 1;
    static constexpr int kConsumers = 1, kThreads = 128 * (1 + kConsumers);
    static constexpr int kStagingBytes = kConsumers * staging_bytes();
};
// The same with a ring of 12 stages, where a few such tiles stream long operands (deep_ring_pays,
// stream_k.hpp).
template <class Base>
struct DeepMicroTiles : MicroTiles<Base> {
    static constexpr int kStages = 12;
};
using MicroTileCfg = MicroTiles<TmaStoreCfg>;
using DeepMicroTileCfg = DeepMicroTiles<TmaStoreCfg>;
// A C of at most 16 columns with B of op N (a matrix times a few vectors): 64 x 16 tiles (m64n16
// wgmmas, 8 accumulators a thread), whose B slab is 16 rows of k (2 KiB), so the ring holds 16
// stages of A's 8 KiB slabs; C is written from registers (a TMA-store piece is 64 columns wide).
// Stream-K counts a slab as a 64 x 64 one's: it loads as much of A, which is what it waits on.
template <class Base>
struct NarrowTiles : Base {
    static constexpr int BM = 64, BN = 16, kStages = 16, kCluster = 1;
    static constexpr int kConsumers = 1, kThreads = 128 * (1 + kConsumers);
    static constexpr int kStagingBytes = 0;
    static constexpr double kSlabScale = 64.0 * 64 / (128 * 256);
};
using NarrowTileCfg = NarrowTiles<TmaStoreCfg>;
using Tf32NarrowTileCfg = NarrowTiles<Tf32Cfg>;
static_assert(registers_fit_launch_pool<NarrowTileCfg>() && registers_fit_launch_pool<Tf32NarrowTileCfg>(),
              "the block's registers at launch");
using Tf32MicroTileCfg = MicroTiles<Tf32Cfg>;
using Tf32DeepMicroTileCfg = DeepMicroTiles<Tf32Cfg>;
static_assert(registers_fit_launch_pool<MicroTileCfg>() && registers_fit_launch_pool<Tf32MicroTileCfg>(),
              "the block's registers at launch");
template <class T, class Cfg>
constexpr bool fits_shared_memory() {
    return ring_smem_bytes<SlabOfA<T, Cfg, false>, SharedSlabOfB<T, Cfg, false>, Cfg::kStages>() + Cfg::kStagingBytes <=
           227 * 1024;
}
static_assert(fits_shared_memory<__half, MidTileCfg>() && fits_shared_memory<float, Tf32MidTileCfg>() &&
                  fits_shared_memory<__half, SmallTileCfg>() && fits_shared_memory<float, Tf32SmallTileCfg>() &&
                  fits_shared_memory<__half, TinyTileCfg>() && fits_shared_memory<float, Tf32TinyTileCfg>() &&
                  fits_shared_memory<__half, MicroTileCfg>() && fits_shared_memory<float, Tf32MicroTileCfg>() &&
                  fits_shared_memory<__half, DeepMicroTileCfg>() && fits_shared_memory<float, Tf32DeepMicroTileCfg>() &&
                  fits_shared_memory<__half, NarrowTileCfg>() && fits_shared_memory<float, Tf32NarrowTileCfg>(),
              "the ring and the staging fit an SM's shared memory");

}  // namespace gemmkit::hopper

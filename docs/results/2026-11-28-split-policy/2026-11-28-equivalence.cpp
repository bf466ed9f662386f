// The split policy's refactor (src/plan/split_policy.hpp): the old per-family functions against
// the new policy on every input below. old/ holds the three headers as they were at 1b93d4a
// (git show 1b93d4a:src/kernels/{hopper/stream_k.hpp,dgemm/stream_k_policy.hpp,sgemm/split_k_policy.hpp}),
// old_hopper_policy.hpp the hopper one up to `struct StreamKSplit` (its policy part), closed with "}".
//   g++ -std=c++20 -O2 -I<dir of old/> -Isrc 2026-11-28-equivalence.cpp && ./a.out
#define __host__
#define __device__
#include <cstdio>
#include <cstdint>
namespace gemmkit::hopper { struct WorkUnit { int a; }; }
#include "old/stream_k_policy.hpp"  // git show 1b93d4a:src/kernels/dgemm/stream_k_policy.hpp
#include "old/split_k_policy.hpp"
// only the policy part of the hopper header: up to StreamKSplit
#include "old_hopper_policy.hpp"
#include "plan/split_policy.hpp"
int main() {
    long checked = 0, bad = 0;
    const double scales[] = {1.0, 0.75, 0.5, 0.25, 0.125, 0.2, 0.35};
    for (int64_t workers : {16, 33, 47, 66, 93, 114, 132, 264, 396}) 
    for (int64_t units = 0; units <= 40 * workers; ++units)
    for (int64_t slabs : {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 23, 24, 25, 31, 32, 33, 40, 47, 48, 63, 64, 65, 100, 128, 129, 200, 256, 257, 512, 1000}) {
        for (double s : scales) {
            auto o = gemmkit::hopper::stream_k_plan(units, workers, slabs, s);
            auto n = gemmkit::split_last_round(gemmkit::kHopperStreamK, units, workers, slabs, s);
            ++checked;
            if (o.split_pairs != n.units || (n.units && (o.clusters != n.workers || o.share != n.share || o.cost != n.cost))) {
                if (bad++ < 10) printf("hopper %ld %ld %ld %g: %ld/%ld vs %ld/%ld\n", units, workers, slabs, s, o.split_pairs, o.clusters, n.units, n.workers);
            }
        }
        auto o = gemmkit::dgemm::dmma_stream_k_split(units, workers, slabs);
        auto n = gemmkit::split_last_round(gemmkit::kDmmaStreamK, units, workers, slabs);
        ++checked;
        if (o.tiles != n.units || o.blocks != (n.units ? n.workers : 0)) {
            if (bad++ < 20) printf("dmma %ld %ld %ld: %ld/%ld vs %ld/%ld\n", units, workers, slabs, o.tiles, o.blocks, n.units, n.workers);
        }
        if (units > 0) {
            ++checked;
            if (gemmkit::dgemm::dmma_stream_k_blocks(units, workers, slabs) != gemmkit::last_round_workers(gemmkit::kDmmaStreamK, units, workers, slabs)) { if (bad++ < 30) printf("blocks %ld %ld %ld\n", units, workers, slabs); }
        }
        for (int bk : {8, 16, 32}) for (int64_t k : {1, 63, 64, 127, 128, 512, 1000, 4096, 100000}) {
            ++checked;
            if (gemmkit::sgemm::split_k_count(units, workers, k, bk) != gemmkit::split_k_ranges(gemmkit::kSgemmSplitK, units, workers, k, bk)) { if (bad++ < 40) printf("splitk\n"); }
        }
    }
    printf("checked %ld, differing %ld\n", checked, bad);
    return bad != 0;
}

// When FP64 step 08 (08_dmma_stream_k.cuh) shares tiles out along k. Host code: the launcher
// and the tests ask the same functions.
#pragma once

#include <cstdint>

namespace gemmkit::dgemm {

// A split costs the shares' kernel launch after the whole tiles' (the machine drains between
// them), the partial sums' round trip through L2 and a second epilogue a tile: on the H100 about
// 30 slabs' time at 4096^3 (the split there bought back 62 slabs a block and gained 1.3%, half
// of that). So the last round is shared out only where that buys back at least
// kMinDmmaGainSlabs slabs a block (2048^3: 8 slabs, and the split lost 4%), in shares of at
// least kMinDmmaShareSlabs.
inline constexpr int kMinDmmaGainSlabs = 24;
inline constexpr int kMinDmmaShareSlabs = 8;

// How many of `tiles` tiles (the last ones) to share out along k among `blocks` blocks, with
// `slabs` K-slabs a tile; 0 for none. Unlike Hopper step 12 (hopper::stream_k_pairs) it splits
// a last round that is mostly busy too: an FP64 slab is ~1 us of DMMAs, so 4096^3's last round
// (100 of 132 blocks busy: shares of 194 slabs instead of 256) is worth splitting.
inline int64_t dmma_stream_k_tiles(int64_t tiles, int64_t blocks, int64_t slabs) {
    if (tiles <= 0 || blocks <= 0 || slabs <= 0) return 0;
    const int64_t rest = tiles % blocks;
    const int64_t share = rest * slabs / blocks;  // slabs a block, rounded down
    return share >= kMinDmmaShareSlabs && slabs - share >= kMinDmmaGainSlabs ? rest : 0;
}

// The same for step 08's own tiles on an m x n x k problem, on a GPU of `sm_count` SMs (ladder.cu).
int64_t dmma_stream_k_tiles_of(int64_t m, int64_t n, int64_t k, int64_t sm_count);

}  // namespace gemmkit::dgemm

#include "analysis/occupancy.hpp"

#include <algorithm>

namespace gemmkit::analysis {

bool sm_limits_for(int sm, SmLimits* out) {
    // {sm, max warps/SM, max blocks/SM, shared bytes/SM usable by blocks, reserved/block, alloc unit}
    struct Row {
        int sm, warps, blocks;
        size_t smem, reserved, unit;
    };
    static constexpr Row kRows[] = {
        {70, 64, 32, 96 * 1024, 0, 256},      // V100
        {75, 32, 16, 64 * 1024, 0, 256},      // T4, RTX 20
        {80, 64, 32, 164 * 1024, 1024, 128},  // A100
        {86, 48, 16, 100 * 1024, 1024, 128},  // RTX 30, A6000
        {89, 48, 24, 100 * 1024, 1024, 128},  // RTX 40, L40
        {90, 64, 32, 228 * 1024, 1024, 128},  // H100, H200
    };
    SmLimits lim;
    bool found = false;
    const Row* row = &kRows[std::size(kRows) - 1];
    for (const Row& r : kRows)
        if (r.sm == sm) row = &r, found = true;
    lim.sm = row->sm;
    lim.max_warps_per_sm = row->warps;
    lim.max_blocks_per_sm = row->blocks;
    lim.smem_per_sm = row->smem;
    lim.smem_reserved_per_block = row->reserved;
    lim.smem_alloc_unit = row->unit;
    *out = lim;
    return found;
}

namespace {
size_t round_up(size_t x, size_t unit) { return (x + unit - 1) / unit * unit; }
}  // namespace

Occupancy theoretical_occupancy(const SmLimits& lim, int threads_per_block, int regs_per_thread,
                                size_t smem_per_block) {
    Occupancy occ;
    const int warps_per_block = (threads_per_block + 31) / 32;
    if (threads_per_block <= 0 || threads_per_block > 1024 || regs_per_thread > lim.max_regs_per_thread ||
        warps_per_block > lim.max_warps_per_sm) {
        occ.limiter = "too large";
        return occ;
    }
    // Registers are granted per warp, rounded up to the allocation unit, inside one of the
    // register file's sub-partitions; the hardware checks a block's registers as if its warps
    // were spread evenly over all of them (cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit).
    const int regs_per_warp = static_cast<int>(round_up(static_cast<size_t>(std::max(regs_per_thread, 1)) * 32,
                                                        static_cast<size_t>(lim.reg_alloc_unit)));
    const int warps_spread = static_cast<int>(round_up(warps_per_block, lim.sub_partitions));
    const int warps_per_part = lim.regs_per_sm / lim.sub_partitions / regs_per_warp;
    const int by_regs = regs_per_warp * warps_spread > lim.regs_per_block
                            ? 0
                            : warps_per_part * lim.sub_partitions / warps_per_block;
    const size_t smem = round_up(smem_per_block + lim.smem_reserved_per_block, lim.smem_alloc_unit);
    const int by_smem = smem == 0 ? lim.max_blocks_per_sm : static_cast<int>(lim.smem_per_sm / smem);
    const int by_threads = lim.max_warps_per_sm / warps_per_block;
    const int by_blocks = lim.max_blocks_per_sm;

    // The smallest limit wins; on a tie, name the first in this order.
    const struct {
        int blocks;
        const char* name;
    } limits[] = {{by_regs, "registers"}, {by_smem, "shared memory"}, {by_threads, "threads"}, {by_blocks, "blocks"}};
    occ.blocks_per_sm = by_blocks;
    occ.limiter = "blocks";
    for (const auto& l : limits)
        if (l.blocks < occ.blocks_per_sm) occ.blocks_per_sm = l.blocks, occ.limiter = l.name;
    if (occ.blocks_per_sm == 0) return occ;
    occ.active_warps = occ.blocks_per_sm * warps_per_block;
    occ.fraction = static_cast<double>(occ.active_warps) / lim.max_warps_per_sm;
    return occ;
}

double tile_arithmetic_intensity(const TileShape& tile, size_t element_bytes) {
    return 2.0 * tile.BM * tile.BN / (static_cast<double>(tile.BM + tile.BN) * static_cast<double>(element_bytes));
}

}  // namespace gemmkit::analysis

// Theoretical occupancy and tile arithmetic intensity: pure arithmetic, no device needed.
#pragma once

#include <cstddef>

#include "registry.hpp"

namespace gemmkit::analysis {

// Per-SM limits that decide how many blocks fit (CUDA programming guide, "compute capabilities").
struct SmLimits {
    int sm = 0;                    // 10 * major + minor
    int regs_per_sm = 65536;
    int regs_per_block = 65536;    // the most one block may hold
    int sub_partitions = 4;        // the register file is split 4 ways; a warp lives in one part
    int reg_alloc_unit = 256;      // registers are granted per warp in units of this many
    int max_regs_per_thread = 255;
    int max_warps_per_sm = 64;
    int max_blocks_per_sm = 32;
    size_t smem_per_sm = 0;        // bytes usable by blocks
    size_t smem_reserved_per_block = 0;  // the runtime's own share per block (1 KiB from sm_80)
    size_t smem_alloc_unit = 128;
};

// Limits for a compute capability; sm_70, 75, 80, 86, 89 and 90 are tabulated.
// Returns false for others (and fills the sm_90 values).
bool sm_limits_for(int sm, SmLimits* out);

struct Occupancy {
    int blocks_per_sm = 0;
    int active_warps = 0;
    double fraction = 0;    // active warps / max warps per SM
    const char* limiter = "";  // "registers", "shared memory", "threads", "blocks", or "too large"
};

Occupancy theoretical_occupancy(const SmLimits& lim, int threads_per_block, int regs_per_thread,
                                size_t smem_per_block);

// FLOPs per byte the block tile moves from global memory: each BK step loads (BM + BN) * BK
// elements and does 2 * BM * BN * BK FLOPs, so 2*BM*BN / ((BM + BN) * bytes). BM = BN = 1
// (no on-chip reuse) gives 1 / bytes: one multiply-add per two elements.
double tile_arithmetic_intensity(const TileShape& tile, size_t element_bytes);

}  // namespace gemmkit::analysis

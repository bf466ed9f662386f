// The configurations a family's launcher can run: a plan names one (Plan::config), the launcher
// switches over them. Adding a configuration means a value here, its rule in the family's plan
// (src/plan/*_rules.cu) and its case in the launcher.
#pragma once

namespace gemmkit {

// Hopper steps (f16/bf16 06-14, tf32 07-09). kStep: the step's own tiles; kPipeline: the
// mma.sync pipeline of step 05 (tf32 06), where TMA cannot read the operands and the step copies
// none, or the sm_90a kernels are not loaded. The others: step 14's (tf32 09's) sized tiles.
enum class HopperTiles : int {
    kStep = 0,
    kPipeline,
    kNarrow64x16,
    kMicro64,
    kMicro64Deep,
    kTiny128x64,
    kSmall128,
    kMid128x192,
};

// FP64 steps 08-09 (dmma): step 08's 128 x 128 tiles, step 09's 64 x 64 and narrow ones.
enum class DmmaTiles : int { k128 = 0, k64, kCols16, kCols32, kCols64, kRows16, kRows32, kRows64 };

// f16/bf16 step 05 and tf32 step 06 (mma.sync pipeline): 256 x 128 tiles, or 128 x 128 ones
// where those leave half of the SMs idle.
enum class PipelineTiles : int { kLarge = 0, kSmall };

}  // namespace gemmkit

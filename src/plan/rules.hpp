// The families' rules: each fills in the plan of a registry row it owns (plan.cpp calls them,
// by the row's PlanRules). Host code, no CUDA calls; device facts come in as a parameter.
#pragma once

#include <string>

#include "plan/plan.hpp"

namespace gemmkit {

// A plan's configuration `config` and its tile fields from the configuration struct Cfg (BM,
// BN, BK, kStages, and kCluster where it has one), named "BMxBN tiles, S stages" ("pair-tiles"
// for clusters of two CTAs).
template <class Cfg>
void take_tiles(int config, Plan* plan) {
    plan->config = config;
    plan->bm = Cfg::BM, plan->bn = Cfg::BN, plan->bk = Cfg::BK;
    plan->stages = Cfg::kStages;
    plan->cluster = 1;
    if constexpr (requires { Cfg::kCluster; }) plan->cluster = Cfg::kCluster;
    plan->config_name = std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) +
                        (plan->cluster > 1 ? " pair-tiles, " : " tiles, ") + std::to_string(Cfg::kStages) + " stages";
}

// f16/bf16 Hopper steps (`level` 6-14) and tf32 ones (7-9).
void plan_hopper_step(const Problem& p, const DeviceFacts& d, int level, bool tf32, Plan* plan);
// Step 6's epilogue (Hopper step 11 on): TMA stores where C takes them (tma_writes_c) and the
// tile is at least a staged piece wide; where TMA cannot store C but C is not read (beta 0), the
// pieces staged all the same and copied out by the warpgroup, if the row's kernel does that
// (may_stage: steps 11-14 and TF32's; the grouped and FP8 rows do not); else the thread's own
// stores from registers.
void choose_tma_store(const Problem& p, Plan* plan, bool may_stage);
// f16/bf16 step 05 and tf32 step 06: the mma.sync pipeline's tiles.
void plan_pipeline(const Problem& p, const DeviceFacts& d, bool tf32, Plan* plan);
// FP64 step 08 (128 x 128 tiles, stream-K) and step 09 (tiles sized to the problem).
void plan_dmma(const Problem& p, const DeviceFacts& d, bool sized, Plan* plan);
// FP32 step 13: the split along k of step 12's tiles.
void plan_split_k(const Problem& p, const DeviceFacts& d, Plan* plan);
// The few-vectors rows (kernels/skinny): auto's row where C has few columns or rows (nullptr
// where it has not), and the kernel's form and split of k.
const KernelInfo* few_vectors_row(const Problem& p, const DeviceFacts& d, Plan* plan);
void plan_few_vectors(const Problem& p, const DeviceFacts& d, Plan* plan);

}  // namespace gemmkit

// plan_gemm: the one place where `auto` chooses. First the registry row (the few-vectors rule,
// else the tuning table for FP32, else the highest-level row that `auto` may serve), then that
// row's configuration by its family's rules (rules.hpp). docs/plan.md describes both.
#include "plan/plan.hpp"

#include <cstring>
#include <sstream>

#include "plan/rules.hpp"
#include "registry.hpp"
#include "tuning/shape_class.hpp"
#include "tuning/tuning_table.hpp"

namespace gemmkit {
namespace {

bool is_auto(const char* kernel) { return kernel == nullptr || std::strcmp(kernel, "auto") == 0; }

// Whether info may serve p's types: every row runs only problems whose A or B has its dtype (the
// FP8 rows take E5M2 for one of them; tests/host/registry_test.cpp checks it for every row).
// Asked first, it spares the plan the supports() of the other types' rows, which spell out their
// refusals in strings: those took ~40% of a plan's ~4.8 us (docs/plan.md#cost).
bool types_may_match(const KernelInfo& info, const Problem& p) {
    return info.dtype == p.a_type || info.dtype == p.b_type;
}

bool runs_on(const KernelInfo& info, const Problem& p, const DeviceFacts& d) {
    std::string ignored;
    return info.min_sm <= d.sm && types_may_match(info, p) && row_supports(info, p, &ignored);
}

// FP32 with FP32 compute: the kernel `gemmkit tune` measured fastest for p's shape class, if it
// is registered, supports p and runs on d.
const KernelInfo* tuned_row(const Problem& p, const DeviceFacts& d, Plan* plan) {
    if (p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F ||
        p.compute != GEMMKIT_COMPUTE_32F)
        return nullptr;
    const std::string cls = tuning::shape_class(p);
    const KernelInfo* info = find_kernel(tuning::tuned_kernel_for(cls));
    if (info == nullptr || !runs_on(*info, p, d)) return nullptr;
    plan->note("kernel", info->name, "the tuning table's fastest for shape class " + cls);
    return info;
}

// A call that rows of its own serve (`mine`: grouped calls, FP8 operands) takes the highest
// level of them `auto` serves that runs it, with `note` as the reason; no other row stands in
// for them. Where none can run p, *why gives the reason of the last of them that `relevant`
// names (TMA's alignment, say, or the ops FP8 needs), else generic()'s; the reasons are made
// only then, off the path of a call that runs.
template <class Mine, class Relevant, class Generic>
const KernelInfo* own_row(const Problem& p, const DeviceFacts& d, Plan* plan, std::string* why, Mine mine,
                          Relevant relevant, Generic generic, const char* note) {
    const KernelInfo* best = nullptr;
    for (const KernelInfo& info : registry())
        if (mine(info) && info.serves_auto && runs_on(info, p, d) && (best == nullptr || info.level > best->level))
            best = &info;
    if (best != nullptr) {
        plan->note("kernel", best->name, note);
        return best;
    }
    *why = generic();
    for (const KernelInfo& info : registry()) {
        if (!mine(info) || !info.serves_auto || !relevant(info)) continue;
        std::string reason;
        if (row_supports(info, p, &reason))  // then it is the device that is too old
            reason = "needs sm_" + std::to_string(info.min_sm) + "; the device is sm_" + std::to_string(d.sm);
        *why = std::string(info.name) + ": " + reason;
    }
    return nullptr;
}

// A grouped call: the grouped row of its types.
const KernelInfo* grouped_row(const Problem& p, const DeviceFacts& d, Plan* plan, std::string* why) {
    return own_row(
        p, d, plan, why, [](const KernelInfo& info) { return info.groups; },
        [&](const KernelInfo& info) { return info.dtype == p.a_type; },
        [&] {
            return std::string("no grouped kernel serves A/B/C = ") + dtype_name(p.a_type) + "/" +
                   dtype_name(p.b_type) + "/" + dtype_name(p.c_type) + " (FP16/BF16 with FP32 accumulation, on sm_90)";
        },
        "the grouped row of these types: one launch for every group");
}

// FP8 operands: the FP8 row (fp8.cuh) that keeps its sums as the call asks (fast_accum: in the
// tensor cores' FP8 accumulation for all of k; else moved into FP32 every slab, cuBLASLt's default).
const KernelInfo* fp8_row(const Problem& p, const DeviceFacts& d, Plan* plan, std::string* why) {
    return own_row(
        p, d, plan, why,
        [&](const KernelInfo& info) { return fp8(info.dtype) && info.fast_accum == p.scaling.fast_accum; },
        [](const KernelInfo&) { return true; }, [] { return std::string("no FP8 kernel is registered"); },
        p.scaling.fast_accum ? "the FP8 row that keeps its sums in the tensor cores (fast_accum = 1)"
                             : "the FP8 row that moves its sums into FP32 every 128 of k (fast_accum = 0)");
}

// The highest-level row `auto` may serve that runs p on d, preferring one that serves p at full
// speed (its op combination and alignment).
const KernelInfo* level_row(const Problem& p, const DeviceFacts& d, Plan* plan, std::string* why) {
    const KernelInfo* best_any = nullptr;
    const KernelInfo* best_fast = nullptr;
    for (const KernelInfo& info : registry()) {
        if (!info.serves_auto || !runs_on(info, p, d)) continue;
        if (best_any == nullptr || info.level > best_any->level) best_any = &info;
        if (serves_fast(info, p) && (best_fast == nullptr || info.level > best_fast->level)) best_fast = &info;
    }
    if (best_fast != nullptr) {
        plan->note("kernel", best_fast->name, "the highest step auto serves for these types on sm_" + std::to_string(d.sm));
        return best_fast;
    }
    if (best_any == nullptr) {
        *why = std::string("no kernel serves A/B/C = ") + dtype_name(p.a_type) + "/" + dtype_name(p.b_type) + "/" +
               dtype_name(p.c_type) + " with this compute type on sm_" + std::to_string(d.sm);
        return nullptr;
    }
    plan->note("kernel", best_any->name, "the highest step auto serves; none serves these ops/alignment at full speed");
    return best_any;
}

void configure(const Problem& p, const DeviceFacts& d, Plan* plan) {
    const KernelInfo& info = *plan->kernel;
    const TileShape& t = info.tile;
    plan->bm = t.BM, plan->bn = t.BN, plan->bk = t.BK;
    switch (info.rules) {
        case PlanRules::kPipeline: return plan_pipeline(p, d, false, plan);
        case PlanRules::kTf32Pipeline: return plan_pipeline(p, d, true, plan);
        case PlanRules::kHopper: return plan_hopper_step(p, d, info.level, false, plan);
        case PlanRules::kTf32Hopper: return plan_hopper_step(p, d, info.level, true, plan);
        case PlanRules::kDmmaStreamK: return plan_dmma(p, d, false, plan);
        case PlanRules::kDmmaSized: return plan_dmma(p, d, true, plan);
        case PlanRules::kSplitK: return plan_split_k(p, d, plan);
        case PlanRules::kFewVectors: return plan_few_vectors(p, d, plan);
        case PlanRules::kTmaStoreTiles:
        case PlanRules::kNone: break;
    }
    plan->config_name = std::to_string(t.BM) + "x" + std::to_string(t.BN) + " tiles";
    if (info.rules == PlanRules::kTmaStoreTiles) choose_tma_store(p, plan, /*may_stage=*/false);
}

// The fused epilogue in words, e.g. "bias + gelu-tanh + aux".
std::string fused_name(const Epilogue& e) {
    static const char* const kActivations[] = {"", "relu", "gelu-tanh", "gelu-erf", "silu"};
    std::string s = e.bias != nullptr ? "bias" : "";
    if (e.activation != GEMMKIT_ACTIVATION_NONE) s += (s.empty() ? "" : " + ") + std::string(kActivations[e.activation]);
    if (e.aux != nullptr) s += (s.empty() ? "" : " + ") + std::string("aux");
    return s;
}

}  // namespace

bool plan_gemm(const Problem& p, const DeviceFacts& d, const char* kernel, Plan* out, std::string* why, bool explain) {
    Plan plan;
    plan.explain = explain;
    plan.sm_count = d.sm_count;
    plan.batch = p.batch.count;
    plan.pointer_arrays = pointer_arrays(p);
    const KernelInfo* info = nullptr;
    if (!is_auto(kernel)) {
        info = find_kernel(kernel);
        if (info == nullptr) {
            *why = std::string("kernel = \"") + kernel + "\" is not registered (gemmkit list shows the names)";
            return false;
        }
        if (!row_supports(*info, p, why)) {
            *why = std::string(info->name) + ": " + *why;
            return false;
        }
        plan.note("kernel", info->name, "named by the caller");
    } else if (grouped(p)) {
        info = grouped_row(p, d, &plan, why);
        if (info == nullptr) return false;
    } else if (fp8(p.a_type) || fp8(p.b_type)) {
        info = fp8_row(p, d, &plan, why);
        if (info == nullptr) return false;
    } else {
        // A matrix times a few vectors first: bound by memory, it has a kernel of its own for
        // the types where that was measured faster (few_vectors_rules.cu).
        info = few_vectors_row(p, d, &plan);
        if (info == nullptr) info = tuned_row(p, d, &plan);
        if (info == nullptr) info = level_row(p, d, &plan, why);
        if (info == nullptr) return false;
    }
    if (info->min_sm > d.sm) {
        *why = std::string(info->name) + " needs sm_" + std::to_string(info->min_sm) + "; the device is sm_" +
               std::to_string(d.sm);
        return false;
    }
    plan.kernel = info;
    if (batched(p))
        plan.note("batch", std::to_string(p.batch.count) + (plan.pointer_arrays ? " (pointer arrays)" : " (strided)"),
                  "one launch for all the problems; only rows whose launch takes batches serve it");
    if (grouped(p))
        plan.note("groups", std::to_string(p.groups.count),
                  "C's columns cut by the ends on the device; the kernel numbers the groups' tiles itself");
    if (fp8(p.a_type) || fp8(p.b_type)) {
        if (p.scaling.mode == GEMMKIT_SCALE_BLOCK)
            plan.note("scales", "blocks (1 x 128 of A, 128 x 128 of B)",
                      "applied to each 128 of k's sums as they move into FP32 (fp8.cuh, Fp8BlockScales)");
        else
            plan.note("scales",
                      p.scaling.mode == GEMMKIT_SCALE_OUTER ? "outer (a row of A, a column of B)" : "per tensor",
                      "applied to the FP32 accumulators of each tile before alpha, beta and the epilogue (fp8.cuh)");
    }
    if (fused_epilogue(p))
        plan.note("fused epilogue", fused_name(p.epilogue),
                  "applied to each value where the kernel writes C, after alpha and beta; the kernel and its "
                  "tiles are the plain GEMM's (docs/epilogues.md)");
    configure(p, d, &plan);
    *out = std::move(plan);
    return true;
}

const KernelInfo* choose_kernel(const Problem& p, int sm, std::string* why) {
    DeviceFacts d;
    builtin_device_facts("h100", &d);
    d.sm = sm;
    Plan plan;
    return plan_gemm(p, d, nullptr, &plan, why) ? plan.kernel : nullptr;
}

const char* split_kind_name(SplitKind kind) {
    switch (kind) {
        case SplitKind::kSplitK: return "split-k";
        case SplitKind::kStreamK: return "stream-k";
        case SplitKind::kNone: break;
    }
    return "none";
}

const char* epilogue_name(EpiloguePath e) {
    switch (e) {
        case EpiloguePath::kStaged: return "staged";
        case EpiloguePath::kTmaStore: return "tma-store";
        case EpiloguePath::kRegisters: break;
    }
    return "registers";
}

std::string plan_summary(const Plan& plan) {
    std::ostringstream s;
    s << (plan.kernel != nullptr ? plan.kernel->name : "none") << " | " << plan.config_name;
    if (plan.batch > 1 || plan.pointer_arrays)
        s << " | batch " << plan.batch << (plan.pointer_arrays ? " (pointer arrays)" : "");
    if (plan.split.kind != SplitKind::kNone) {
        s << " | " << split_kind_name(plan.split.kind);
        if (plan.split.kind == SplitKind::kSplitK)
            s << " " << plan.split.pieces << " ranges";
        else if (plan.split.pieces > 0)
            s << " " << plan.split.pieces << "/" << plan.split.tiles << " tiles on " << plan.split.workers;
        else
            s << " off, " << plan.split.tiles << " tiles on " << plan.split.workers;
    }
    if (plan.transpose_b) s << " | transpose B";
    if (plan.copy_a || plan.copy_b) s << " | copy " << (plan.copy_a && plan.copy_b ? "A,B" : plan.copy_a ? "A" : "B");
    if (plan.peel_rows > 0 || plan.peel_cols > 0) s << " | peel " << plan.peel_rows << "x" << plan.peel_cols;
    s << " | " << epilogue_name(plan.epilogue) << (plan.deferred_epilogue ? " deferred" : "");
    return s.str();
}

std::string plan_reasons(const Plan& plan) {
    std::string s;
    for (const Decision& d : plan.reasons) s += "    " + d.what + ": " + d.choice + " (" + d.why + ")\n";
    return s;
}

}  // namespace gemmkit

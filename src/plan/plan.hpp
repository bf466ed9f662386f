// The plan: everything `auto` (or a named kernel) decides about one GEMM, as a value.
//
// plan_gemm(problem, device facts) is a pure host function: no CUDA calls, no global state. It
// picks the registry row, the row's tile configuration, stages and cluster, the split along k
// (split-K or stream-K), which operands are copied first, and the epilogue, each with a one-line
// reason. The launchers only execute a plan (a switch over the family's configurations);
// `gemmkit plan` prints one for any shape, and the golden corpus (tests/host/plan_corpus.txt)
// records the plans of 1,212 problems so that every change to a rule shows up as a diff.
// docs/plan.md describes the rules and links each one's evidence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plan/device_facts.hpp"
#include "problem.hpp"

namespace gemmkit {

struct KernelInfo;

// One decision and why it went that way.
struct Decision {
    std::string what;    // "tiles", "split", "copies", ...
    std::string choice;  // "128x128, 6 stages, clusters of 2"
    std::string why;     // one line
};

enum class SplitKind { kNone, kSplitK, kStreamK };

// How the work of C's tiles is shared out along k.
//  split-K: `pieces` ranges of k for every tile, `workers` = pieces (a grid dimension), partial
//           sums added by a second kernel;
//  stream-K: the last `pieces` work tiles (Hopper: pair-tiles) cut along k into `workers` equal
//           shares (blocks or clusters), the other tiles whole.
struct SplitPlan {
    SplitKind kind = SplitKind::kNone;
    int64_t tiles = 0;    // work tiles of C (Hopper: pair-tiles of a cluster)
    int64_t slabs = 0;    // K-slabs a tile
    int64_t pieces = 0;   // split-K: ranges of k; stream-K: tiles cut along k (0: none)
    int64_t workers = 0;  // blocks (Hopper: clusters) that run the grid or share the cut tiles
};

enum class EpiloguePath { kRegisters, kStaged, kTmaStore };

struct Plan {
    const KernelInfo* kernel = nullptr;  // the registry row that runs
    int config = 0;                      // the row's configuration (its family's list; the launcher's switch)
    int fallback_config = 0;             // Hopper rows: the pipeline's tiles, where it runs instead
    std::string config_name;             // e.g. "128x128 pair-tiles"
    int bm = 0, bn = 0, bk = 0;          // CTA tile and K-slab of that configuration
    int stages = 0, cluster = 1;
    SplitPlan split;
    bool copy_a = false, copy_b = false;  // operands copied into aligned workspaces first
    bool transpose_b = false;             // TF32 wgmma: B of op T transposed into a workspace first
    int64_t peel_rows = 0, peel_cols = 0;  // C's last rows / columns formed by those copies
    EpiloguePath epilogue = EpiloguePath::kRegisters;
    bool deferred_epilogue = false;  // Hopper step 13: a tile's epilogue under the next tile's wgmmas
    int sm_count = 0;                // the device's, for the grids (from the facts planned for)
    int64_t batch = 1;               // problems run in one launch, one a layer of the grid (Batch)
    bool pointer_arrays = false;     // their matrices from device arrays of pointers
    std::vector<Decision> reasons;  // empty where explain is false
    // Whether note() records the reasons. `gemmkit plan` and the corpus print them; a GEMM call
    // does not ask for them and skips their strings, half of planning's time (docs/plan.md#cost).
    bool explain = true;

    void note(std::string_view what, std::string_view choice, std::string_view why) {
        if (explain) reasons.push_back({std::string(what), std::string(choice), std::string(why)});
    }
    // A decision told before the last one noted: a rule that takes back the choice that one named.
    void note_before_last(std::string_view what, std::string_view choice, std::string_view why) {
        if (explain && !reasons.empty())
            reasons.insert(reasons.end() - 1, {std::string(what), std::string(choice), std::string(why)});
    }
};

// The plan for p on a device with facts d. `kernel`: nullptr or "auto" for `auto`'s choice, else a
// registry name. Returns false (with *why) when no kernel serves p there, or the named one
// cannot (unknown, wrong types, needs a newer GPU). explain: whether the plan keeps its reasons.
bool plan_gemm(const Problem& p, const DeviceFacts& d, const char* kernel, Plan* out, std::string* why,
               bool explain = true);

// One line that names every field of the plan (the golden corpus's format), and the reasons, one
// a line, indented.
std::string plan_summary(const Plan& plan);
std::string plan_reasons(const Plan& plan);

const char* split_kind_name(SplitKind kind);
const char* epilogue_name(EpiloguePath e);

}  // namespace gemmkit

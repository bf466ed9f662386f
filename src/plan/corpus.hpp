// The golden plan corpus: 1,084 problems that reach both sides of every rule in the plan (few
// columns and few rows, deep k, small tiles and stream-K, odd leading dimensions that take
// copies, C that TMA cannot store), 112 strided batches and 16 FP8 problems, their plans as text.
// tests/host/plan_corpus.txt holds the text for the built-in H100; the host test fails on any
// difference, so every change to a rule shows up there as a reviewable diff. Regenerate it with
//   gemmkit plan --corpus > tests/host/plan_corpus.txt
#pragma once

#include <string>
#include <vector>

#include "plan/device_facts.hpp"
#include "problem.hpp"

namespace gemmkit {

// A problem the plan is asked for: no memory behind it. The operands sit at fake 256-byte-aligned
// addresses; `pad` elements are added to each packed leading dimension (1: odd, TMA cannot read).
struct PlanCase {
    std::string type;  // f32 | tf32 | f16 | bf16 | f16.f32c | bf16.f32c | f64 | e4m3 | e4m3.fast
    gemmkit_op transa = GEMMKIT_OP_N, transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    int64_t pad = 0;
    bool beta = false;  // beta != 0 (C is read)
    int64_t batch = 1;  // a strided batch of this many problems, packed one after another
};

// The problem of a case, or false (*why) for an unknown type name.
bool problem_of(const PlanCase& c, Problem* p, std::string* why);

std::vector<PlanCase> plan_corpus();

// "bf16 TN 4096x16x4096 pad0 beta0" — a case's name in the corpus ("... batch 64" for a batch).
std::string case_name(const PlanCase& c);

// The corpus as text: a line a case, "<case name>: <plan_summary>", on device d.
std::string corpus_text(const DeviceFacts& d);

}  // namespace gemmkit

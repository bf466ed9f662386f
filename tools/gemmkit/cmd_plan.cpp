// gemmkit plan: what `auto` runs for a shape, and why (plan_gemm, src/plan/plan.hpp), on a
// built-in device or the current one. Needs no GPU unless --device current.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "device_state.hpp"
#include "dist/dist_plan.hpp"
#include "plan/corpus.hpp"
#include "plan/plan.hpp"

#ifdef GEMMKIT_HAVE_NCCL
#include <nccl.h>
#endif

namespace gemmkit::cli {

std::vector<const KernelInfo*> print_plans(const Options& o, const DeviceFacts& d) {
    std::vector<const KernelInfo*> chosen;
    Problem probe;
    std::string bad;
    if (!problem_of({o.type, GEMMKIT_OP_N, GEMMKIT_OP_N, 1, 1, 1, 0, false}, &probe, &bad))
        throw std::invalid_argument("--" + bad);
    std::printf("device: %s (sm_%d, %d SMs)\n", d.name.c_str(), d.sm, d.sm_count);
    const std::vector<OpPair> ops = o.ops.empty() ? std::vector<OpPair>{{GEMMKIT_OP_N, GEMMKIT_OP_N}} : o.ops;
    for (const Shape& s : o.shapes)
        for (const OpPair& op : ops) {
            const PlanCase c{o.type, op.a, op.b, s.m, s.n, s.k, 0, false, o.batch};
            Problem p;
            std::string why;
            if (!problem_of(c, &p, &why)) throw std::invalid_argument("--" + why);
            Plan plan;
            std::printf("%s\n", case_name(c).c_str());
            if (!plan_gemm(p, d, nullptr, &plan, &why)) {
                std::printf("  no plan: %s\n", why.c_str());
                continue;
            }
            std::printf("  %s\n%s", plan_summary(plan).c_str(), plan_reasons(plan).c_str());
            if (std::find(chosen.begin(), chosen.end(), plan.kernel) == chosen.end()) chosen.push_back(plan.kernel);
        }
    return chosen;
}

bool plan_facts(const std::string& device, const char* command, DeviceFacts* d) {
    if (device == "current") {
        if (!require_device(command)) return false;
        return current_device_facts(d) == GEMMKIT_SUCCESS;
    }
    if (builtin_device_facts(device, d)) return true;
    std::string names;
    for (const std::string& n : builtin_device_names()) names += n + ", ";
    std::fprintf(stderr, "gemmkit %s: --device = '%s': use %scurrent\n", command, device.c_str(), names.c_str());
    return false;
}

namespace {

// With --gpus P: gemmkit_dist's plans (src/dist/dist_plan.hpp) for a tensor-parallel MLP of
// --hidden and --ffn, split over P GPUs, at each --m token count: its AllGather-GEMM (the
// up-projection, n_local = ffn / P, k = hidden) and GEMM-ReduceScatter (the down-projection,
// n = hidden, k_local = ffn / P).
int print_dist_plans(const Options& o, const DeviceFacts& d) {
    dist::DistFacts facts;
    facts.sm_count = d.sm_count;
    // A context plans on the copy engines where NCCL has them (2.28+, docs/dist.md#transports):
    // here, where the NCCL this program was built with has.
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    facts.copy_engines = true;
#endif
    dist::DistRequest request;
    request.comm_sms = o.comm_sms;
    request.pieces = o.pieces;
    const int P = o.gpus;
    const int64_t width = o.ffn / P;
    std::printf("device: %s (%d SMs), %d GPUs, hidden %lld, FFN %lld (%lld a GPU)\n", d.name.c_str(), d.sm_count, P,
                static_cast<long long>(o.hidden), static_cast<long long>(o.ffn), static_cast<long long>(width));
    for (const Shape& s : o.shapes) {
        const dist::DistShape gather{dist::DistOp::kAllGatherGemm, s.m, width, o.hidden, P, 2};
        const dist::DistShape scatter{dist::DistOp::kGemmReduceScatter, s.m, o.hidden, width, P, 2};
        std::printf("AllGather-GEMM m=%lld: %s\n", static_cast<long long>(s.m),
                    dist::describe(dist::plan_dist(gather, facts, request)).c_str());
        std::printf("GEMM-ReduceScatter m=%lld: %s\n", static_cast<long long>(s.m),
                    dist::describe(dist::plan_dist(scatter, facts, request)).c_str());
    }
    return 0;
}

}  // namespace

int cmd_plan(const Options& o) {
    DeviceFacts d;
    if (!plan_facts(o.device, "plan", &d)) return 2;
    if (o.gpus > 0) {
        if (o.shapes.empty() || o.ffn % o.gpus != 0) {
            std::fprintf(stderr, "gemmkit plan --gpus: give the token counts with --m, and an --ffn that --gpus divides\n");
            return 2;
        }
        return print_dist_plans(o, d);
    }
    if (o.corpus) {
        std::fputs(corpus_text(d).c_str(), stdout);
        return 0;
    }
    if (o.shapes.empty()) {
        std::fprintf(stderr, "gemmkit plan: give the shapes with --mnk MxNxK (or --m/--n/--k)\n");
        return 2;
    }
    try {
        print_plans(o, d);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "gemmkit plan: %s\n", e.what());
        return 2;
    }
    return 0;
}

}  // namespace gemmkit::cli

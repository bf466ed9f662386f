#include <chrono>
#include <cstdio>
#include "plan/plan.hpp"
#include "plan/device_facts.hpp"
using namespace gemmkit;
int main() {
    DeviceFacts d; builtin_device_facts("h100", &d);
    Problem p; p.transa = GEMMKIT_OP_T; p.transb = GEMMKIT_OP_N; p.m = 4096; p.n = 16; p.k = 4096;
    p.A = (const void*)(1ull<<40); p.B = (const void*)(2ull<<40); p.C = (void*)(3ull<<40);
    p.lda = 4096; p.ldb = 4096; p.ldc = 4096; p.a_type = p.b_type = p.c_type = GEMMKIT_R_16BF;
    p.compute = GEMMKIT_COMPUTE_32F;
    for (int big = 0; big < 2; ++big) {
        if (big) p.n = 4096;
        Plan plan; std::string why;
        const int N = 200000;
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < N; ++i) { Plan q; plan_gemm(p, d, nullptr, &q, &why); }
        auto t1 = std::chrono::steady_clock::now();
        plan_gemm(p, d, nullptr, &plan, &why);
        std::printf("n=%lld: %.3f us per plan_gemm; %zu reasons; %s\n", (long long)p.n,
            std::chrono::duration<double, std::micro>(t1 - t0).count() / N, plan.reasons.size(), plan_summary(plan).c_str());
    }
}

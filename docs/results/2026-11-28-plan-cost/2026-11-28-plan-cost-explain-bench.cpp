// plan_gemm's host time with its reasons kept (explain, as `gemmkit plan`) and without (as the
// API's calls), alternating, three rounds of 200,000 plans a shape and mode. Built against the
// tree's src/plan sources and a CI build's libgemmkit_internal.a (the rest of the registry).
#include <chrono>
#include <cstdio>
#include "plan/device_facts.hpp"
#include "plan/plan.hpp"
using namespace gemmkit;
int main() {
    DeviceFacts d;
    builtin_device_facts("h200", &d);
    struct Shape { gemmkit_dtype t; gemmkit_compute c; int64_t m, n, k; const char* kernel; };
    const Shape shapes[] = {{GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 4096, 16, 4096, "auto"},
                            {GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 4096, 4096, 4096, "auto"},
                            {GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 64, 64, 64, "auto"},
                            {GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 2049, 2049, 2049, "auto"},
                            {GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 1024, 1024, 1024, "f16.05_tuned_256x128x32_s4"},
                            {GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 1024, 1024, 1024, "auto"},
                            {GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, 1000, 1000, 1000, "auto"}};
    for (int round = 1; round <= 3; ++round)
        for (const Shape& s : shapes) {
            Problem p;
            p.transa = s.n == 16 ? GEMMKIT_OP_T : GEMMKIT_OP_N;
            p.m = s.m, p.n = s.n, p.k = s.k;
            p.lda = p.transa == GEMMKIT_OP_T ? s.k : s.m, p.ldb = s.k, p.ldc = s.m;
            p.A = reinterpret_cast<const void*>(1ull << 40), p.B = reinterpret_cast<const void*>(2ull << 40);
            p.C = reinterpret_cast<void*>(3ull << 40);
            p.a_type = p.b_type = p.c_type = s.t, p.compute = s.c;
            double us[2];
            for (int explain = 1; explain >= 0; --explain) {
                const int n = 200000;
                std::string why;
                const auto t0 = std::chrono::steady_clock::now();
                for (int i = 0; i < n; ++i) {
                    Plan q;
                    plan_gemm(p, d, s.kernel, &q, &why, explain != 0);
                }
                us[explain] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
            }
            Plan plan;
            std::string why;
            plan_gemm(p, d, s.kernel, &plan, &why);
            std::printf("round %d %-6s %s %lldx%lldx%lld: explain %.3f us, without %.3f us; %s\n", round,
                        dtype_name(s.t), s.kernel, static_cast<long long>(s.m), static_cast<long long>(s.n),
                        static_cast<long long>(s.k), us[1], us[0], plan_summary(plan).c_str());
        }
}

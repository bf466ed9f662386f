// The few-vectors path (kernels/skinny) as a user reaches it through `auto`: its plan splits k
// and takes a workspace from the pool on every call, which must work under CUDA graph capture
// (the graph replays the allocation, the counters' memset and the free) and from several threads
// at once (each call has its own workspace and counters).
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "device_state.hpp"
#include "plan/plan.hpp"

namespace gemmkit::test {
namespace {

class FewVectorsGpuTest : public GpuTest {};

// The plan `auto` makes for h on this device.
Plan plan_of(const HostGemm& h) {
    Problem p;
    p.transa = h.transa, p.transb = h.transb;
    p.m = h.m, p.n = h.n, p.k = h.k;
    p.lda = h.lda, p.ldb = h.ldb, p.ldc = h.ldc;
    DeviceFacts d;
    EXPECT_EQ(current_device_facts(&d), GEMMKIT_SUCCESS);
    Plan plan;
    std::string why;
    EXPECT_TRUE(plan_gemm(p, d, "auto", &plan, &why)) << why;
    return plan;
}

TEST_F(FewVectorsGpuTest, SplitKUnderGraphCaptureReplaysCorrectly) {
    // 3000 x 16: 94 blocks of 32 rows, fewer than the block slots, so k is split.
    HostGemm h = HostGemm::random(GEMMKIT_OP_T, GEMMKIT_OP_N, 3000, 16, 2100, 0, 1.0f, 0.0f, 0xF00D);
    const Plan plan = plan_of(h);
    ASSERT_EQ(plan.kernel->rules, PlanRules::kFewVectors) << plan_summary(plan);
    ASSERT_EQ(plan.split.kind, SplitKind::kSplitK) << plan_summary(plan);
    DeviceGemm d(h);
    cudaStream_t stream = nullptr;
    ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    // No call before the capture: the first one also creates the library's workspace pool.
    cudaGraph_t graph = nullptr;
    ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const gemmkit_status s = d.run(stream, "auto");
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    cudaGetLastError();  // a failed capture's error is this test's, not the next one's
    ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    cudaGraphExec_t exec = nullptr;
    ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    // Each replay must start from zeroed counters: C is poisoned between replays, so a replay
    // whose last-block election went wrong would leave it poisoned.
    for (int replay = 0; replay < 3; ++replay) {
        ASSERT_CUDA(cudaMemsetAsync(d.C.data(), 0xFF, d.C.size() * sizeof(float), stream));
        ASSERT_CUDA(cudaGraphLaunch(exec, stream));
        const verify::CompareResult r = h.check(download(d.C, stream));
        EXPECT_TRUE(r.pass) << "replay " << replay << ", " << h.describe() << ": " << verify::describe(r);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
}

TEST_F(FewVectorsGpuTest, ConcurrentThreadsWithSplitsGetCorrectResults) {
    // Few columns (dot form) and few rows (axpy form on C^T), both split along k.
    HostGemm gemms[2] = {HostGemm::random(GEMMKIT_OP_T, GEMMKIT_OP_N, 2500, 8, 3000, 0, 1.0f, 0.5f, 0xBEE1),
                         HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_T, 12, 2600, 2900, 1, 1.0f, 0.0f, 0xBEE2)};
    for (const HostGemm& h : gemms) ASSERT_EQ(plan_of(h).split.kind, SplitKind::kSplitK) << h.describe();
    std::vector<float> out[2];
    const std::vector<std::string> error = run_on_threads(2, [&](int id, cudaStream_t stream) -> std::string {
        DeviceGemm d(gemms[id]);
        // beta may be nonzero: each round starts from the original C, copied once the round
        // before has finished with it (the copy is on the legacy stream, which does not wait for
        // this non-blocking one).
        for (int round = 0; round < 20; ++round) {
            CUDA_CHECK(cudaStreamSynchronize(stream));
            d.C.copy_from_host(gemms[id].C.data());
            CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
            const gemmkit_status s = d.run(stream, "auto");
            if (s != GEMMKIT_SUCCESS) return "round " + std::to_string(round) + ": " + status_text(s);
        }
        out[id] = download(d.C, stream);
        return "";
    });
    for (int id = 0; id < 2; ++id) {
        ASSERT_EQ(error[id], "") << "thread " << id;
        const verify::CompareResult r = gemms[id].check(out[id]);
        EXPECT_TRUE(r.pass) << "thread " << id << ", " << gemms[id].describe() << ": " << verify::describe(r);
    }
}

}  // namespace
}  // namespace gemmkit::test

// The plan against the device it runs on: the facts the library reads, and the block slots a
// rule counts (src/plan/plan.hpp).
#include <string>

#include "gpu_test.hpp"
#include "device_state.hpp"
#include "plan/corpus.hpp"
#include "plan/plan.hpp"
#include "registry.hpp"

namespace gemmkit {
namespace {

class PlanGpuTest : public test::GpuTest {};

// split-K counts the GPU's block slots with a row's blocks_per_sm: it must be what the compiled
// kernel gets.
TEST_F(PlanGpuTest, BlocksPerSmIsWhatTheOccupancyCalculatorSays) {
    if (sm_ < 90) GTEST_SKIP() << "blocks_per_sm is stated for sm_90";
    int checked = 0;
    for (const KernelInfo& k : registry()) {
        if (k.blocks_per_sm == 0) continue;
        int per_sm = 0;
        ASSERT_CUDA(resident_blocks_per_sm(k.entry(), k.tile.threads, k.dynamic_smem_bytes, &per_sm));
        EXPECT_EQ(per_sm, k.blocks_per_sm) << k.name;
        ++checked;
    }
    EXPECT_GT(checked, 0);
}

// The facts read from the device are the device's, and where it is a 132-SM Hopper, the corpus
// plans the same on them as on the built-in H100 facts (which `gemmkit plan` uses without a GPU).
TEST_F(PlanGpuTest, CurrentFactsPlanAsTheBuiltInOnes) {
    DeviceFacts d;
    ASSERT_EQ(current_device_facts(&d), GEMMKIT_SUCCESS);
    int sms = 0, device = 0;
    ASSERT_CUDA(cudaGetDevice(&device));
    ASSERT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    EXPECT_EQ(d.sm_count, sms);
    EXPECT_EQ(d.sm, sm_);
    EXPECT_GT(d.l2_bytes, 0);
    if (d.sm != 90 || d.sm_count != 132) GTEST_SKIP() << "not a 132-SM Hopper: " << d.name;
    EXPECT_TRUE(d.hopper_code) << "the sm_90a kernels are not loaded (built for another architecture?)";
    DeviceFacts h100;
    ASSERT_TRUE(builtin_device_facts("h100", &h100));
    EXPECT_TRUE(corpus_text(d) == corpus_text(h100));
}

// gemmkit_set_sm_limit caps the SM count the plan sizes grids for (as a GEMM beside NCCL's
// kernels needs), and a GEMM planned that way is still right.
TEST_F(PlanGpuTest, SmLimitCapsTheFactsAndTheGemmStaysRight) {
    DeviceFacts all;
    ASSERT_EQ(current_device_facts(&all), GEMMKIT_SUCCESS);
    const int limit = all.sm_count - 8;
    const test::HostGemm h = test::HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_T, 1000, 1500, 700, 3, 1.5f, 0.5f, 91);
    test::DeviceGemm d(h);
    ASSERT_EQ(gemmkit_set_sm_limit(limit), GEMMKIT_SUCCESS);
    DeviceFacts limited;
    const gemmkit_status facts_status = current_device_facts(&limited);
    const gemmkit_status run_status = d.run(stream_, nullptr);
    ASSERT_EQ(gemmkit_set_sm_limit(0), GEMMKIT_SUCCESS);
    ASSERT_EQ(facts_status, GEMMKIT_SUCCESS);
    EXPECT_EQ(limited.sm_count, limit);
    ASSERT_EQ(run_status, GEMMKIT_SUCCESS) << test::status_text(run_status);
    const verify::CompareResult r = h.check(test::download(d.C, stream_));
    EXPECT_TRUE(r.pass) << h.describe() << ": " << verify::describe(r);
    DeviceFacts again;
    ASSERT_EQ(current_device_facts(&again), GEMMKIT_SUCCESS);
    EXPECT_EQ(again.sm_count, all.sm_count);
}

}  // namespace
}  // namespace gemmkit

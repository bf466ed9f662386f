// What `gemmkit explain` reports, checked against the hardware: every kernel's resources
// are readable and sane (no spills), and the occupancy arithmetic of analysis/occupancy.hpp
// agrees with the CUDA runtime's own occupancy calculator.
#include <string>
#include <vector>

#include "analysis/kernel_report.hpp"
#include "analysis/occupancy.hpp"
#include "device_state.hpp"
#include "gpu_test.hpp"

namespace gemmkit::test {
namespace {

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (const KernelInfo& info : registry()) names.emplace_back(info.name);
    return names;
}

class KernelExplain : public GpuTest, public ::testing::WithParamInterface<std::string> {
protected:
    // The parameter's registry entry; nullptr (and a failure) if it is gone.
    const KernelInfo* kernel_for_device() {
        const KernelInfo* info = find_kernel(GetParam().c_str());
        EXPECT_NE(info, nullptr) << GetParam() << " vanished from the registry";
        return info;
    }
};

TEST_P(KernelExplain, ResourcesAreSaneAndDoNotSpill) {
    const KernelInfo* info = kernel_for_device();
    if (info == nullptr) return;
    if (info->min_sm > sm_) GTEST_SKIP() << info->name << " needs sm_" << info->min_sm << "; device is sm_" << sm_;

    analysis::KernelResources r;
    std::string err;
    ASSERT_TRUE(analysis::kernel_resources(*info, &r, &err)) << info->name << ": " << err;
    EXPECT_GT(r.regs_per_thread, 0) << info->name;
    EXPECT_LE(r.regs_per_thread, 255) << info->name << ": more registers than a thread can address";
    // Local memory is spills or an indexed stack array: both are bugs in a ladder kernel.
    EXPECT_EQ(r.local_bytes, 0u) << info->name << " uses " << r.local_bytes << " bytes of local memory per thread";
    // The block size the registry states must be launchable with the registers it got.
    EXPECT_LE(info->tile.threads, r.max_threads)
        << info->name << " launches " << info->tile.threads << " threads but the compiled kernel allows " << r.max_threads;
}

TEST_P(KernelExplain, TheoreticalOccupancyMatchesRuntime) {
    const KernelInfo* info = kernel_for_device();
    if (info == nullptr) return;
    if (info->min_sm > sm_) GTEST_SKIP() << info->name << " needs sm_" << info->min_sm << "; device is sm_" << sm_;
    analysis::SmLimits lim;
    if (!analysis::sm_limits_for(sm_, &lim)) GTEST_SKIP() << "sm_" << sm_ << " is not tabulated in analysis/occupancy";

    analysis::KernelResources r;
    std::string err;
    ASSERT_TRUE(analysis::kernel_resources(*info, &r, &err)) << info->name << ": " << err;
    const int threads = info->tile.threads;
    const int dynamic = info->dynamic_smem_bytes;
    // The runtime counts static plus dynamic shared memory per block; so must the model.
    const analysis::Occupancy model =
        analysis::theoretical_occupancy(lim, threads, r.regs_per_thread, r.static_smem + static_cast<size_t>(dynamic));

    const void* fn = info->entry();
    ASSERT_NE(fn, nullptr) << info->name;
    // The library's cached count (split-K sizes its split by it) opts the kernel in itself.
    int cached_blocks = -1;
    ASSERT_CUDA(resident_blocks_per_sm(fn, threads, dynamic, &cached_blocks));
    ASSERT_CUDA(opt_in_smem(fn, dynamic));  // above 48 KiB a kernel must opt in, as its launch function does
    int runtime_blocks = -1;
    ASSERT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime_blocks, fn, threads, dynamic));

    EXPECT_EQ(model.blocks_per_sm, runtime_blocks)
        << info->name << " on sm_" << sm_ << ": " << threads << " threads, " << r.regs_per_thread << " regs, "
        << r.static_smem << " B static + " << dynamic << " B dynamic smem; model says " << model.blocks_per_sm
        << " blocks (limited by " << model.limiter << "), cudaOccupancyMaxActiveBlocksPerMultiprocessor says "
        << runtime_blocks;
    EXPECT_EQ(cached_blocks, runtime_blocks) << info->name << ": resident_blocks_per_sm";
}

INSTANTIATE_TEST_SUITE_P(Registry, KernelExplain, ::testing::ValuesIn(kernel_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return test_name_part(p.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelExplain);

}  // namespace
}  // namespace gemmkit::test

// gemmkit profile's reader of Nsight Compute text reports, on a real report (an H200, 2026-11-21:
// cuBLAS's SGEMM kernel at 4096^3, as `gemmkit bench` ran it under ncu).
#include <gtest/gtest.h>

#include "ncu_report.hpp"

using gemmkit::cli::NcuReport;
using gemmkit::cli::parse_ncu_report;

namespace {

const char kReport[] = R"NCU(
sgemm.11_tuned_256x128x8       NN    4096   4096   4096    3.1755    3.1755    3.1755    43.28    91.7%   64.7%
cublas                         NN    4096   4096   4096    2.9114    2.9114    2.9114    47.21   100.0%   70.6%
==PROF== Disconnected from process 921
[921] gemmkit@127.0.0.1
  sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas (16, 32, 1)x(256, 1, 1), Context 1, Stream 13, Device 0, CC 9.0
    Warning: Data collection happened without fixed GPU frequencies. Profiling results may be inconsistent.
    Section: Compute Workload Analysis
    -------------------- ----------- ------------
    Metric Name          Metric Unit Metric Value
    -------------------- ----------- ------------
    Executed Ipc Active   inst/cycle         3.59
    Executed Ipc Elapsed  inst/cycle         3.47
    Issue Slots Busy               %        86.81
    Issued Ipc Active     inst/cycle         3.59
    SM Busy                        %        86.81
    -------------------- ----------- ------------

    OPT   FMA is the highest-utilized pipeline (76.8%) based on elapsed cycles in the workload, taking into account the
          rates of its different instructions. It executes 32-bit floating point (FADD, FMUL, FMAD, ...) and integer
          (IMUL, IMAD) operations. The pipeline is well-utilized, but might become a bottleneck if more work is added.
          Based on the number of executed instructions, the highest utilized pipeline (76.8%) is FMA. It executes
          32-bit floating point (FADD, FMUL, FMAD, ...) and integer (IMUL, IMAD) operations. Comparing the two, the
          overall pipeline utilization appears to be caused by frequent, low-latency instructions. See the Profiling
          Guide (https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#metrics-decoder) or hover over the
          pipeline name to understand the workloads handled by each pipeline. The Instruction Statistics section shows
          the mix of executed instructions for this workload.

    Section: Scheduler Statistics
    ---------------------------- ----------- ------------
    Metric Name                  Metric Unit Metric Value
    ---------------------------- ----------- ------------
    One or More Eligible                   %        89.67
    Issued Warp Per Scheduler                        0.90
    No Eligible                            %        10.33
    Active Warps Per Scheduler          warp         2.00
    Eligible Warps Per Scheduler        warp         1.57
    ---------------------------- ----------- ------------

    Section: Warp State Statistics
    ---------------------------------------- ----------- ------------
    Metric Name                              Metric Unit Metric Value
    ---------------------------------------- ----------- ------------
    Warp Cycles Per Issued Instruction             cycle         2.23
    Warp Cycles Per Executed Instruction           cycle         2.23
    Avg. Active Threads Per Warp                                   32
    Avg. Not Predicated Off Threads Per Warp                    31.72
    ---------------------------------------- ----------- ------------

    WRN   The optional metric smsp__pcsamp_sample_count could not be found. Collecting it as an additional metric could
          enable the rule to provide more guidance.

    Section: Launch Statistics
    -------------------------------- --------------- ---------------
    Metric Name                          Metric Unit    Metric Value
    -------------------------------- --------------- ---------------
    Block Size                                                   256
    Cluster Scheduling Policy                           PolicySpread
    Cluster Size                                                   0
    Function Cache Configuration                     CachePreferNone
    Grid Size                                                    512
    Registers Per Thread             register/thread             254
    Shared Memory Configuration Size           Kbyte          233.47
    Driver Shared Memory Per Block       Kbyte/block            1.02
    Dynamic Shared Memory Per Block      Kbyte/block           67.58
    Static Shared Memory Per Block        byte/block               0
    # SMs                                         SM             132
    Stack Size                                                 1,024
    Threads                                   thread         131,072
    # TPCs                                                        66
    Enabled TPC IDs                                              all
    Uses Green Context                                             0
    Waves Per SM                                                3.88
    -------------------------------- --------------- ---------------

    OPT   Est. Speedup: 25%
          A wave of thread blocks is defined as the maximum number of blocks that can be executed in parallel on the
          target GPU. The number of blocks in a wave depends on the number of multiprocessors and the theoretical
          occupancy of the kernel. This kernel launch results in 3 full waves and a partial wave of 117 thread blocks.
          Under the assumption of a uniform execution duration of all thread blocks, this partial wave may account for
          up to 25.0% of the total runtime of this kernel. Try launching a grid with no partial wave. The overall
          impact of this tail effect also lessens with the number of full waves executed for a grid. See the Hardware
          Model (https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#metrics-hw-model) description for
          more details on launch configurations.

    Section: Occupancy
    ------------------------------- ----------- ------------
    Metric Name                     Metric Unit Metric Value
    ------------------------------- ----------- ------------
    Max Active Clusters                 cluster            0
    Max Cluster Size                      block            8
    Overall GPU Occupancy                     %            0
    Cluster Occupancy                         %            0
    Block Limit Barriers                  block           32
    Block Limit SM                        block           32
    Block Limit Registers                 block            1
    Block Limit Shared Mem                block            3
    Block Limit Warps                     block            8
    Theoretical Active Warps per SM        warp            8
    Theoretical Occupancy                     %        12.50
    Achieved Occupancy                        %        12.50
    Achieved Active Warps Per SM           warp         8.00
    ------------------------------- ----------- ------------

    OPT   Est. Local Speedup: 87.5%
          The 2.00 theoretical warps per scheduler this kernel can issue according to its occupancy are below the
          hardware maximum of 16. This kernel's theoretical occupancy (12.5%) is limited by the number of required
          registers.

)NCU";

}  // namespace

TEST(NcuReport, FindsTheProfiledKernelNotTheProgramOutput) {
    const NcuReport r = parse_ncu_report(kReport);
    EXPECT_EQ(r.kernel.rfind("sm80_xmma_gemm_f32f32", 0), 0u) << r.kernel;
    EXPECT_NE(r.kernel.find("(16, 32, 1)x(256, 1, 1)"), std::string::npos);
}

TEST(NcuReport, ReadsMetricsWithAndWithoutUnits) {
    const NcuReport r = parse_ncu_report(kReport);
    std::string unit;
    EXPECT_EQ(r.value("Issue Slots Busy", &unit), "86.81");
    EXPECT_EQ(unit, "%");
    EXPECT_EQ(r.value("Registers Per Thread", &unit), "254");
    EXPECT_EQ(unit, "register/thread");
    EXPECT_EQ(r.value("Block Size", &unit), "256");  // no unit column
    EXPECT_EQ(unit, "");
    EXPECT_EQ(r.value("Theoretical Occupancy"), "12.50");
    EXPECT_EQ(r.value("No Eligible"), "10.33");
}

TEST(NcuReport, MissingMetricIsEmpty) {
    const NcuReport r = parse_ncu_report(kReport);
    EXPECT_EQ(r.value("Duration"), "");  // this report has no Speed Of Light section
    EXPECT_EQ(r.value("Issue Slots"), "");  // names match whole, not by prefix
}

TEST(NcuReport, ProgramOutputIsNotAMetric) {
    const NcuReport r = parse_ncu_report(kReport);
    for (const auto& m : r.metrics) {
        EXPECT_EQ(m.name.find("sgemm."), std::string::npos) << m.name;
        EXPECT_EQ(m.name.find("Warning"), std::string::npos) << m.name;
    }
}

TEST(NcuReport, FindingsKeepKindFirstSentenceAndEstimate) {
    const NcuReport r = parse_ncu_report(kReport);
    ASSERT_EQ(r.findings.size(), 4u);
    EXPECT_EQ(r.findings[0].kind, "OPT");
    EXPECT_EQ(r.findings[0].text.rfind("FMA is the highest-utilized pipeline (76.8%)", 0), 0u) << r.findings[0].text;
    EXPECT_EQ(r.findings[0].text.back(), '.');
    EXPECT_EQ(r.findings[0].estimate, "");
    EXPECT_EQ(r.findings[1].kind, "WRN");
    EXPECT_EQ(r.findings[2].estimate, "Est. Speedup: 25%");
    EXPECT_EQ(r.findings[2].text.rfind("A wave of thread blocks is defined", 0), 0u) << r.findings[2].text;
    EXPECT_EQ(r.findings[3].estimate, "Est. Local Speedup: 87.5%");
}

TEST(NcuReport, EmptyTextHasNothing) {
    const NcuReport r = parse_ncu_report("");
    EXPECT_TRUE(r.kernel.empty());
    EXPECT_TRUE(r.metrics.empty());
    EXPECT_TRUE(r.findings.empty());
}

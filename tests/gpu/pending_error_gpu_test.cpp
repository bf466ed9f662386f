// An error the caller left pending is not the library's: a call made while one is pending
// returns GEMMKIT_CUDA_ERROR without launching and leaves the error for the caller to read
// (cudaGetLastError after the launch would otherwise have returned and cleared it).
#include <cstddef>
#include <string>

#include "gpu_test.hpp"

namespace gemmkit::test {
namespace {

TEST_F(GpuTest, PendingCallerErrorIsReportedAndLeftPending) {
    DeviceBuffer<float> A(16), B(16), C(16);
    const float one = 1.0f, zero = 0.0f;
    // A failed allocation sets a non-sticky "last error" on this thread and nothing else.
    void* huge = nullptr;
    ASSERT_EQ(cudaMalloc(&huge, static_cast<size_t>(1) << 62), cudaErrorMemoryAllocation);
    ASSERT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);

    EXPECT_EQ(gemmkit_sgemm(stream_, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 4, 4, &one, A.data(), 4, B.data(), 4, &zero,
                            C.data(), 4),
              GEMMKIT_CUDA_ERROR);
    const std::string msg = gemmkit_last_error();
    EXPECT_NE(msg.find("earlier CUDA error is pending"), std::string::npos) << msg;
    EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation) << "the caller's error must stay pending";

    // Cleared, the same call runs.
    EXPECT_EQ(gemmkit_sgemm(stream_, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 4, 4, &one, A.data(), 4, B.data(), 4, &zero,
                            C.data(), 4),
              GEMMKIT_SUCCESS)
        << gemmkit_last_error();
}

}  // namespace
}  // namespace gemmkit::test

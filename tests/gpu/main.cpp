// main() of the GPU tests. Without a device the tests still run, so each reports
// SKIPPED with its reason, and the program exits 77: ctest's SKIP_RETURN_CODE, so CI
// (no GPU) shows the GPU tests as skipped instead of passed or failed.
#include <cstdio>

#include <gtest/gtest.h>

#include "gpu_test.hpp"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    // --gtest_list_tests runs nothing, so there is nothing to report as skipped.
    if (GTEST_FLAG_GET(list_tests)) return result;
    if (gemmkit::test::device_presence().count == 0) {
        std::printf("no CUDA device: GPU tests skipped\n");
        // A failure without a device is a bug in the tests themselves: never hide it as a skip.
        return result == 0 ? 77 : result;
    }
    return result;
}

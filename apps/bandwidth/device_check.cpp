#include "bandwidth/device_check.hpp"

#include <iterator>

#include "bandwidth/ops.hpp"
#include "common/check.hpp"
#include "gemmkit/gemmkit.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::bandwidth {
namespace {

// The runs' elements of d_array, in run order: one copy per run.
std::vector<float> read_runs(const float* d_array, const std::vector<IndexRun>& runs, cudaStream_t stream) {
    std::vector<float> out(static_cast<size_t>(elements_in(runs)));
    size_t at = 0;
    for (const IndexRun& r : runs) {
        CUDA_CHECK(cudaMemcpyAsync(out.data() + at, d_array + r.first, static_cast<size_t>(r.count) * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
        at += static_cast<size_t>(r.count);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

}  // namespace

CheckResult verify_op(Op op, int64_t n, float* x, float* y, int max_blocks, uint64_t seed, cudaStream_t stream) {
    verify::fill_uniform(x, n, 2 * seed, stream);
    if (op == Op::kSaxpy) verify::fill_uniform(y, n, 2 * seed + 1, stream);
    else verify::fill_nan(y, n, stream);
    const std::vector<IndexRun> runs = check_runs(n, seed);
    const std::vector<float> x_in = read_runs(x, runs, stream);
    const std::vector<float> y_in = read_runs(y, runs, stream);
    CUDA_CHECK(launch_op(op, StreamArgs{n, kSaxpyAlpha, x, y, max_blocks}, stream));
    const std::vector<float> y_out = read_runs(y, runs, stream);
    return compare_bits(runs, op == Op::kSaxpy ? saxpy_reference(kSaxpyAlpha, x_in, y_in) : x_in, y_out);
}

std::vector<std::string> verify_edge_cases(uint64_t seed, cudaStream_t stream, int* cases) {
    constexpr int64_t kLengths[] = {1, 3, 5, 1023, 262147};
    struct Offsets {
        int x, y;  // floats past a 256-byte-aligned allocation
    };
    constexpr Offsets kOffsets[] = {{0, 0}, {1, 1}, {0, 1}};
    constexpr int64_t kLongest = kLengths[std::size(kLengths) - 1];
    DeviceBuffer<float> x(kLongest + 1), y(kLongest + 1);
    std::vector<std::string> failures;
    int count = 0;
    for (Op op : kOps) {
        int max_blocks = 0;
        CUDA_CHECK(full_wave_blocks(op, &max_blocks));
        for (int64_t n : kLengths) {
            for (const Offsets& off : kOffsets) {
                ++count;
                const CheckResult r = verify_op(op, n, x.data() + off.x, y.data() + off.y, max_blocks, seed, stream);
                if (!r.pass())
                    failures.push_back(std::string(op_name(op)) + " n=" + std::to_string(n) + " x+" +
                                       std::to_string(off.x) + " y+" + std::to_string(off.y) + ": " + describe(r));
            }
        }
    }
    if (cases != nullptr) *cases = count;
    return failures;
}

}  // namespace gemmkit::bandwidth

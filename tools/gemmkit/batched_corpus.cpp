#include "batched_corpus.hpp"

#include <algorithm>

namespace gemmkit::cli {
namespace {

constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;

// About 60 (row, type) pairs: at bench_batched.cpp's timing defaults, a few minutes on an H100.
const std::vector<BatchedShape> kCorpus = {
    // The rows, as it writes them: torch.bmm of (batch, M, K) @ (batch, K, N).
    from_bmm("issue", 64, 512, 512, 128),
    from_bmm("issue", 64, 512, 128, 512),
    from_bmm("issue", 512, 128, 128, 128),
    from_bmm("issue", 1024, 64, 64, 64),
    from_bmm("issue", 16, 2048, 2048, 2048),

    {"odd", 7, 33, 65, 129, N, N},
    {"odd", 129, 127, 255, 63, N, N},

    {.row_class = "broadcast-b", .batch = 32, .m = 512, .n = 1024, .k = 1024, .a = N, .b = N, .broadcast_b = true},

    // 8 elements of gap keep every problem's matrices 16-byte aligned; ld+3 and 5 do not.
    {.row_class = "padded", .batch = 64, .m = 256, .n = 256, .k = 256, .a = N, .b = N, .stride_pad = 8},
    {.row_class = "padded", .batch = 64, .m = 256, .n = 256, .k = 256, .a = N, .b = N, .ld_pad = 3, .stride_pad = 5},

    {"ops", 64, 512, 512, 128, T, N},

    {.row_class = "pointers", .batch = 512, .m = 128, .n = 128, .k = 128, .a = N, .b = N, .pointer_arrays = true},
};

int64_t allocation(int64_t batch, int64_t stride, int64_t extent) {
    return std::max<int64_t>(1, stride == 0 ? extent : (batch - 1) * stride + extent);
}

}  // namespace

const std::vector<std::string>& batched_classes() {
    static const std::vector<std::string> kClasses = {"issue", "odd", "broadcast-b", "padded", "ops", "pointers"};
    return kClasses;
}

const std::vector<BatchedShape>& batched_corpus() { return kCorpus; }

int64_t matrix_extent(int64_t rows, int64_t cols, int64_t ld) { return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows; }

BatchLayout layout_of(const BatchedShape& s) {
    const int64_t rows_a = s.a == N ? s.m : s.k, cols_a = s.a == N ? s.k : s.m;
    const int64_t rows_b = s.b == N ? s.k : s.n, cols_b = s.b == N ? s.n : s.k;
    BatchLayout l;
    l.lda = std::max<int64_t>(1, rows_a) + s.ld_pad;
    l.ldb = std::max<int64_t>(1, rows_b) + s.ld_pad;
    l.ldc = std::max<int64_t>(1, s.m) + s.ld_pad;
    // torch's contiguous strides (ld times the stored columns), plus the gap.
    l.stride_a = l.lda * cols_a + s.stride_pad;
    l.stride_b = s.broadcast_b ? 0 : l.ldb * cols_b + s.stride_pad;
    l.stride_c = l.ldc * s.n + s.stride_pad;
    l.a_elements = allocation(s.batch, l.stride_a, matrix_extent(rows_a, cols_a, l.lda));
    l.b_elements = allocation(s.batch, l.stride_b, matrix_extent(rows_b, cols_b, l.ldb));
    l.c_elements = allocation(s.batch, l.stride_c, matrix_extent(s.m, s.n, l.ldc));
    return l;
}

std::string layout_name(const BatchedShape& s) {
    std::string name;
    auto add = [&](const std::string& part) { name += (name.empty() ? "" : " ") + part; };
    if (s.ld_pad != 0) add("ld+" + std::to_string(s.ld_pad));
    if (s.stride_pad != 0) add("stride+" + std::to_string(s.stride_pad));
    if (s.broadcast_b) add("B shared");
    if (s.pointer_arrays) add("pointers");
    return name.empty() ? "tight" : name;
}

double batched_flops(const BatchedShape& s) {
    return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) *
           static_cast<double>(s.batch);
}

double batched_bytes(const BatchedShape& s, size_t ab_size, size_t c_size) {
    const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
    const double batch = static_cast<double>(s.batch), b_copies = s.broadcast_b ? 1 : batch;
    return static_cast<double>(ab_size) * (m * k * batch + k * n * b_copies) + static_cast<double>(c_size) * m * n * batch;
}

}  // namespace gemmkit::cli

// The Hopper steps' copies of operands TMA cannot read (kernels/hopper/pad_copy.cu): each
// column of a copy starts on a whole 128-byte line (a column starting inside a line made every
// slab row the TMA loads touch two lines: the BF16 GEMM at 4097^3 took 279 us instead of 246 on
// an H100), holds the operand's values, and is zero past the operand's rows up to its 16-byte
// chunk's end.
#include <cstdint>
#include <vector>

#include "gpu_test.hpp"
#include "kernels/hopper/pad_copy.hpp"

namespace gemmkit::test {
namespace {

class PadCopyGpu : public GpuTest {
protected:
    // A host matrix of `rows` x `cols` (leading dimension ld) holding 1 + r + 1000 c, zero elsewhere.
    template <class E>
    static std::vector<E> numbered(int64_t rows, int64_t cols, int64_t ld) {
        std::vector<E> host(static_cast<size_t>(ld * cols), E{0});
        for (int64_t c = 0; c < cols; ++c)
            for (int64_t r = 0; r < rows; ++r) host[static_cast<size_t>(r + c * ld)] = static_cast<E>(1 + r + 1000 * c);
        return host;
    }

    // The workspace's first `count` elements, after which it is freed (stream-ordered).
    template <class E>
    std::vector<E> fetch_and_free(const hopper::PaddedOperand& out, int64_t count) {
        std::vector<E> copy(static_cast<size_t>(count));
        EXPECT_EQ(cudaMemcpyAsync(copy.data(), out.data, copy.size() * sizeof(E), cudaMemcpyDeviceToHost, stream_),
                  cudaSuccess);
        EXPECT_EQ(cudaFreeAsync(out.data, stream_), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
        return copy;
    }

    // Pads a rows x cols matrix of E with leading dimension ld (values 1 + r + 1000 c), stored
    // `offset` elements into its buffer, which ends at its last element, and checks the copy.
    // Returns the copy's leading dimension.
    template <class E>
    int64_t check_pad(int64_t rows, int64_t cols, int64_t ld, int64_t offset = 0) {
        std::vector<E> host = numbered<E>(rows, cols, ld);
        host.resize(static_cast<size_t>((cols - 1) * ld + rows));  // nothing past the last element
        host.insert(host.begin(), static_cast<size_t>(offset), E{7});
        DeviceBuffer<E> src(host.size());
        upload(src, host, stream_);

        hopper::PaddedOperand out;
        EXPECT_EQ(hopper::pad_operand(src.data() + offset, ld, rows, cols, sizeof(E), stream_, &out), cudaSuccess);
        if (out.data == nullptr) return 0;
        const std::vector<E> copy = fetch_and_free<E>(out, out.ld * cols);

        EXPECT_EQ(out.ld * static_cast<int64_t>(sizeof(E)) % 128, 0) << "ld " << out.ld;
        EXPECT_GE(out.ld, rows);
        const int64_t chunk = 16 / sizeof(E), filled = (rows + chunk - 1) / chunk * chunk;
        int64_t wrong = 0;
        for (int64_t c = 0; c < cols; ++c)
            for (int64_t r = 0; r < filled; ++r) {
                const E want = r < rows ? static_cast<E>(1 + r + 1000 * c) : E{0};
                wrong += copy[static_cast<size_t>(r + c * out.ld)] != want;
            }
        EXPECT_EQ(wrong, 0) << rows << " x " << cols << ", ld " << ld << ", " << sizeof(E) << "-byte elements";
        return out.ld;
    }
};

TEST_F(PadCopyGpu, TwoByteColumnsStartOnWholeLines) {
    EXPECT_EQ(check_pad<uint16_t>(37, 5, 41), 64);     // 74 bytes a column -> one 128-byte line
    EXPECT_EQ(check_pad<uint16_t>(65, 3, 65), 128);    // 130 bytes -> two lines
    EXPECT_EQ(check_pad<uint16_t>(64, 4, 67), 64);     // exactly one line: no padding beyond it
}

// Columns that start anywhere in a 16-byte chunk (odd ld, an offset base), chunks that run past
// a column's rows into the next column's storage, and a buffer that ends at the operand's last
// element (a read past it would be out of bounds).
TEST_F(PadCopyGpu, ColumnsStartingAnywhereInAChunk) {
    for (const int64_t offset : {0, 1, 3, 6, 7}) {
        check_pad<uint16_t>(129, 17, 131, offset);  // ld 131: each column 2 bytes further on
        check_pad<uint16_t>(9, 16, 9, offset);      // 9 rows: chunks run into the next column
        check_pad<uint16_t>(1, 9, 1, offset);
        check_pad<uint32_t>(67, 9, 69, offset % 4);
        check_pad<uint32_t>(5, 8, 5, offset % 4);
    }
}

TEST_F(PadCopyGpu, FourByteColumnsStartOnWholeLines) {
    EXPECT_EQ(check_pad<uint32_t>(37, 5, 41), 64);     // 148 bytes -> two lines
    EXPECT_EQ(check_pad<uint32_t>(3, 7, 5), 32);
}

// A transpose for TF32's B with op T: dst(c, r) = src(r, c); its columns start on lines too.
TEST_F(PadCopyGpu, TransposeColumnsStartOnWholeLines) {
    const int64_t rows = 33, cols = 45, ld = 35;
    const std::vector<float> host = numbered<float>(rows, cols, ld);
    DeviceBuffer<float> src(host.size());
    upload(src, host, stream_);
    hopper::PaddedOperand out;
    ASSERT_EQ(hopper::transpose_operand(src.data(), ld, rows, cols, stream_, &out), cudaSuccess);
    const std::vector<float> copy = fetch_and_free<float>(out, out.ld * rows);
    EXPECT_EQ(out.ld, 64);  // 45 columns of the source become rows: 180 bytes -> two lines
    int64_t wrong = 0;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < 48; ++c) {  // 45 values, then zeros to the 16-byte chunk's end
            const float want = c < cols ? host[static_cast<size_t>(r + c * ld)] : 0.0f;
            wrong += copy[static_cast<size_t>(c + r * out.ld)] != want;
        }
    EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace gemmkit::test

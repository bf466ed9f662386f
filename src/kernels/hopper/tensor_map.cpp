#include "kernels/hopper/tensor_map.hpp"
#include "kernels/hopper/batch_path.hpp"

#include <cudaTypedefs.h>

namespace gemmkit::hopper {
namespace {

// cuTensorMapEncodeTiled is a driver API function: fetched through the runtime, so the library
// links no libcuda (the driver already has it loaded). Looked up once.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* ptr = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
    }();
    return fn;
}

CUtensorMapDataType map_type(gemmkit_dtype type) {
    switch (type) {
        case GEMMKIT_R_16F: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
        case GEMMKIT_R_16BF: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
        case GEMMKIT_R_64F: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
        case GEMMKIT_R_8F_E4M3:  // TMA moves FP8 as bytes
        case GEMMKIT_R_8F_E5M2: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
        default: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    }
}

// Whether every column of the matrix at `base` with leading dimension `ld` starts on a multiple
// of `bytes` (its base and its column stride both are).
bool columns_on(const void* base, int64_t ld, gemmkit_dtype type, int64_t bytes) {
    const int64_t ld_bytes = ld * static_cast<int64_t>(dtype_size(type));
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(base) % bytes) == 0 && ld_bytes % bytes == 0;
}

}  // namespace

bool tma_addressable(const void* base, int64_t ld, gemmkit_dtype type) {
    return columns_on(base, ld, type, 16) && ld * static_cast<int64_t>(dtype_size(type)) < (int64_t{1} << 40);
}

bool on_128_byte_columns(const void* base, int64_t ld, gemmkit_dtype type) { return columns_on(base, ld, type, 128); }

bool tma_batch_stride(int64_t stride, int64_t ld, int64_t cols, gemmkit_dtype type) {
    const int64_t bytes = stride * static_cast<int64_t>(dtype_size(type));
    return stride == 0 || (bytes % 16 == 0 && stride >= ld * cols && bytes < (int64_t{1} << 40));
}

bool tma_reads_operands(const Problem& p) {
    const Batch& b = p.batch;
    const int64_t cols_a = p.transa == GEMMKIT_OP_N ? p.k : p.m, cols_b = p.transb == GEMMKIT_OP_N ? p.n : p.k;
    const bool strides = b.count <= 1 || (!b.arrays && tma_batch_stride(b.stride_a, p.lda, cols_a, p.a_type) &&
                                          tma_batch_stride(b.stride_b, p.ldb, cols_b, p.b_type));
    return strides && tma_addressable(p.A, p.lda, p.a_type) && tma_addressable(p.B, p.ldb, p.b_type);
}

bool copies_pay_for_a(const Problem& p) {
    // Where TMA reads A (16-byte columns, tma_addressable), columns off 32 bytes are odd 16-byte ones.
    const bool odd_16_byte_columns = !columns_on(p.A, p.lda, p.a_type, 32);
    return odd_16_byte_columns && p.n >= kCopyAMinN &&
           p.m * p.k * static_cast<int64_t>(dtype_size(p.a_type)) >= kCopyAMinBytes;
}

OperandCopies operand_copies(const Problem& p) {
    return {!tma_addressable(p.A, p.lda, p.a_type) || copies_pay_for_a(p), !tma_addressable(p.B, p.ldb, p.b_type)};
}

bool tma_writes_c(const Problem& p) {
    const int64_t column_bytes = p.m * static_cast<int64_t>(dtype_size(p.c_type));
    const size_t size = dtype_size(p.c_type);
    const bool stride = p.batch.count <= 1 || tma_batch_stride(p.batch.stride_c, p.ldc, p.n, p.c_type);
    return (size == 2 || size == 4) && p.beta == 0.0 && column_bytes % 16 == 0 && stride &&
           tma_addressable(p.C, p.ldc, p.c_type);
}

cudaError_t encode_tensor_map(CUtensorMap* map, const void* base, gemmkit_dtype type, uint64_t rows, uint64_t cols,
                              int64_t ld, uint32_t box_rows, uint32_t box_cols, int64_t batch, int64_t stride) {
    // A batch of one never moves by its stride, which may then be anything (tma_reads_operands and
    // tma_writes_c ask nothing of it either): a strided call of batch_count 1 with an odd stride.
    if (!tma_addressable(base, ld, type) || rows == 0 || cols == 0 || batch < 1 ||
        (batch > 1 && !tma_batch_stride(stride, ld, static_cast<int64_t>(cols), type)))
        return cudaErrorInvalidValue;
    const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_tiled();
    if (encode == nullptr) return cudaErrorNotSupported;
    // One matrix (a batch of one, or every problem reading the same one): a third dimension of 1,
    // its stride any valid one, here the matrix's columns rounded up to 16 bytes.
    const bool one = batch == 1 || stride == 0;
    const cuuint64_t size = dtype_size(type), col_bytes = static_cast<cuuint64_t>(ld) * size;
    const cuuint64_t dims[3] = {rows, cols, one ? 1 : static_cast<cuuint64_t>(batch)};
    const cuuint64_t strides[2] = {col_bytes, one ? (col_bytes * cols + 15) / 16 * 16 : stride * size};
    const cuuint32_t box[3] = {box_rows, box_cols, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    // L2 fetches a box's lines in 256-byte pairs. Where columns start off 128-byte lines, each
    // 128-byte row of a box spans two lines, and promoting both to 256 bytes fetches up to four
    // times its bytes: 128 bytes ran faster there (docs/ladder/hopper.md#lab-l2-promotion).
    const CUtensorMapL2promotion promotion =
        on_128_byte_columns(base, ld, type) ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    const CUresult res = encode(map, map_type(type), 3, const_cast<void*>(base), dims, strides, box,
                                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return res == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

const char* batch_pipeline_reason(const Problem& p, bool tf32) {
    if (!batched(p)) return nullptr;
    if (pointer_arrays(p)) return "a batch of pointer arrays: TMA reads strided batches only";
    if (!tma_reads_operands(p)) return "a batch that TMA cannot read as it is (16-byte columns and strides)";
    if (tf32 && p.transb == GEMMKIT_OP_T)
        return "a batch with B of op T: TF32 wgmma would need each problem's B transposed";
    return nullptr;
}

}  // namespace gemmkit::hopper

#include "shape_corpus.hpp"

namespace gemmkit::cli {
namespace {

constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;

// Transformer sizes: hidden 4096 (FFN 14336) and 8192 (FFN 28672). Weights are the A of TN calls
// (C = W^T x, m = weight rows, n = tokens) and the B of NN calls (m = tokens).
// Keep it near 70 rows: x 5 types, at bench_shapes.cpp's timing defaults, about 4 minutes on an H100.
const std::vector<CorpusShape> kCorpus = {
    // First: the rows the repeat check times again at the end.
    {"cube", 1024, 1024, 1024, N, N, 0},
    {"few-vectors", 4096, 16, 4096, T, N, 0},
    {"few-vectors", 16, 4096, 4096, N, N, 0},

    {"cube", 256, 256, 256, N, N, 0},
    {"cube", 384, 384, 384, N, N, 0},
    {"cube", 512, 512, 512, N, N, 0},
    {"cube", 640, 640, 640, N, N, 0},
    {"cube", 768, 768, 768, N, N, 0},
    {"cube", 896, 896, 896, N, N, 0},
    {"cube", 1000, 1000, 1000, N, N, 0},
    {"cube", 1280, 1280, 1280, N, N, 0},
    {"cube", 1536, 1536, 1536, N, N, 0},

    {"few-vectors", 4096, 1, 4096, T, N, 0},
    {"few-vectors", 4096, 8, 4096, T, N, 0},
    {"few-vectors", 4096, 32, 4096, T, N, 0},
    {"few-vectors", 4096, 64, 4096, T, N, 0},
    {"few-vectors", 4096, 128, 4096, T, N, 0},
    {"few-vectors", 14336, 1, 4096, T, N, 0},
    {"few-vectors", 14336, 16, 4096, T, N, 0},
    {"few-vectors", 14336, 128, 4096, T, N, 0},
    {"few-vectors", 4096, 16, 14336, T, N, 0},
    {"few-vectors", 8192, 16, 8192, T, N, 0},
    {"few-vectors", 28672, 1, 8192, T, N, 0},
    {"few-vectors", 28672, 16, 8192, T, N, 0},
    {"few-vectors", 28672, 64, 8192, T, N, 0},
    {"few-vectors", 8192, 16, 28672, T, N, 0},
    {"few-vectors", 16, 4096, 4096, T, N, 0},
    {"few-vectors", 1, 4096, 4096, N, N, 0},
    {"few-vectors", 8, 4096, 4096, N, N, 0},
    {"few-vectors", 32, 4096, 4096, N, N, 0},
    {"few-vectors", 64, 4096, 4096, N, N, 0},
    {"few-vectors", 128, 4096, 4096, N, N, 0},
    {"few-vectors", 16, 14336, 4096, N, N, 0},
    {"few-vectors", 16, 28672, 8192, N, N, 0},
    {"few-vectors", 4096, 1, 4096, N, N, 0},
    {"few-vectors", 4096, 16, 4096, N, N, 0},
    {"few-vectors", 4096, 128, 4096, N, N, 0},

    {"deep-k", 512, 512, 8192, N, N, 0},
    {"deep-k", 512, 512, 8192, T, N, 0},
    {"deep-k", 256, 256, 16384, N, N, 0},
    {"deep-k", 1024, 1024, 16384, N, N, 0},

    {"wide-k", 2048, 2048, 1024, N, N, 0},
    {"wide-k", 4096, 4096, 1024, N, N, 0},
    {"wide-k", 8192, 2048, 1024, N, N, 0},
    {"wide-k", 8192, 8192, 1024, N, N, 0},
    {"wide-k", 16384, 16384, 1024, N, N, 0},

    {"unaligned", 4097, 4097, 4097, N, N, 0},
    {"unaligned", 1023, 1025, 1027, N, N, 0},
    {"unaligned", 2049, 2047, 1023, T, N, 0},
    {"unaligned", 1001, 999, 1003, N, T, 0},
    {"unaligned", 4097, 17, 4096, T, N, 0},
    {"unaligned", 1024, 1024, 1024, N, N, 1},
    {"unaligned", 1024, 1024, 1024, N, T, 3},
    {"unaligned", 4096, 4096, 4096, N, N, 1},
    {"unaligned", 4096, 4096, 4096, T, N, 3},
    {"unaligned", 4096, 16, 4096, T, N, 1},
    {"unaligned", 33, 4096, 4097, N, N, 3},

    {"all-ops", 4096, 4096, 4096, N, N, 0},
    {"all-ops", 4096, 4096, 4096, N, T, 0},
    {"all-ops", 4096, 4096, 4096, T, N, 0},
    {"all-ops", 4096, 4096, 4096, T, T, 0},
    {"all-ops", 1536, 1536, 1536, N, T, 0},
    {"all-ops", 1536, 1536, 1536, T, T, 0},
    {"all-ops", 4096, 16, 4096, N, T, 0},
    {"all-ops", 4096, 16, 4096, T, T, 0},

    {"big", 6144, 6144, 6144, N, N, 0},
    {"big", 8192, 8192, 8192, N, N, 0},
    {"big", 8192, 8192, 8192, T, N, 0},
};

}  // namespace

const std::vector<std::string>& corpus_classes() {
    static const std::vector<std::string> kClasses = {"cube",      "few-vectors", "deep-k", "wide-k",
                                                      "unaligned", "all-ops",     "big"};
    return kClasses;
}

const std::vector<CorpusShape>& shape_corpus() { return kCorpus; }

const std::vector<CorpusType>& corpus_types() {
    static const std::vector<CorpusType> kTypes = {
        {"f32", GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F},
        {"tf32", GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32},
        {"f16", GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F},
        {"bf16", GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F},
        {"f64", GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F},
    };
    return kTypes;
}

double operand_bytes(int64_t m, int64_t n, int64_t k, size_t ab_size, size_t c_size) {
    const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
    return static_cast<double>(ab_size) * (dm * dk + dk * dn) + static_cast<double>(c_size) * dm * dn;
}

double arithmetic_intensity(int64_t m, int64_t n, int64_t k, size_t ab_size, size_t c_size) {
    const double bytes = operand_bytes(m, n, k, ab_size, c_size);
    return bytes > 0 ? 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / bytes : 0;
}

}  // namespace gemmkit::cli

#include "tuning/shape_class.hpp"

#include <iterator>
#include <limits>

namespace gemmkit::tuning {
namespace {

// Upper edges of the size buckets, in tiles; above the last one is "tiles>1024".
constexpr int64_t kTileEdges[] = {16, 64, 256, 1024};

// A square side whose tile count is exactly the bucket's upper edge (512 -> 4 x 4 = 16 tiles),
// and twice the last edge's side for the open bucket (8192 -> 4096 tiles).
constexpr int64_t kClassSides[] = {512, 1024, 2048, 4096, 8192};
static_assert(std::size(kClassSides) == std::size(kTileEdges) + 1, "one side per size bucket");

constexpr int64_t kClassDepths[] = {kDeepK, 4 * kDeepK};  // one per depth bucket

std::string size_bucket(int64_t tiles) {
    for (int64_t edge : kTileEdges)
        if (tiles <= edge) return "tiles<=" + std::to_string(edge);
    return "tiles>" + std::to_string(kTileEdges[std::size(kTileEdges) - 1]);
}

enum class Layout { kAligned, kRagged, kUnaligned };

const char* layout_name(Layout l) {
    return l == Layout::kAligned ? "aligned" : l == Layout::kRagged ? "ragged" : "unaligned";
}

Layout layout_of(int64_t m, int64_t n, bool aligned) {
    if (!aligned) return Layout::kUnaligned;
    return m % kClassTile == 0 && n % kClassTile == 0 ? Layout::kAligned : Layout::kRagged;
}

std::string class_key(int64_t m, int64_t n, int64_t k, bool aligned, gemmkit_op transa, gemmkit_op transb) {
    return size_bucket(output_tiles(m, n)) + (k <= kDeepK ? "/k<=" : "/k>") + std::to_string(kDeepK) + "/" +
           layout_name(layout_of(m, n, aligned)) + "/" + ops_name(transa, transb);
}

std::vector<ClassShape> build_class_shapes() {
    std::vector<ClassShape> out;
    for (int64_t side : kClassSides)
        for (int64_t k : kClassDepths)
            for (Layout layout : {Layout::kAligned, Layout::kRagged, Layout::kUnaligned})
                for (gemmkit_op ta : {GEMMKIT_OP_N, GEMMKIT_OP_T})
                    for (gemmkit_op tb : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
                        // Ragged: 24 less in m, n and k (4072; 1000 for 1024), still multiples
                        // of 4 floats and in the same buckets. Unaligned: odd sizes, so that no
                        // leading dimension (m, n or k, whatever the ops) is a multiple of 4
                        // floats: one less (4095, k = 1023: still in the same buckets) and half
                        // the side plus one (4097: 33 tiles a side, the last nearly empty), where
                        // the tile shape decides how many blocks idle in the last wave; 4095 and
                        // 4097 preferred different tiles (docs/ladder/fp32.md#lab-h100).
                        std::vector<ClassShape> shapes;
                        if (layout == Layout::kAligned) shapes = {{"", side, side, k, true, ta, tb}};
                        if (layout == Layout::kRagged) shapes = {{"", side - 24, side - 24, k - 24, true, ta, tb}};
                        if (layout == Layout::kUnaligned)
                            shapes = {{"", side - 1, side - 1, k - 1, false, ta, tb},
                                      {"", side / 2 + 1, side / 2 + 1, k - 1, false, ta, tb}};
                        for (ClassShape s : shapes) {
                            s.shape_class = class_key(s.m, s.n, s.k, s.aligned, ta, tb);
                            out.push_back(s);
                        }
                    }
    return out;
}

}  // namespace

int64_t output_tiles(int64_t m, int64_t n) {
    if (m <= 0 || n <= 0) return 0;
    const int64_t tm = (m - 1) / kClassTile + 1, tn = (n - 1) / kClassTile + 1;  // no overflow near INT64_MAX
    if (tm > std::numeric_limits<int64_t>::max() / tn) return std::numeric_limits<int64_t>::max();
    return tm * tn;
}

bool aligned_for_class(const Problem& p) {
    return operands_aligned(p, kClassAlignmentBytes);
}

std::string shape_class(const Problem& p) {
    return class_key(p.m, p.n, p.k, aligned_for_class(p), p.transa, p.transb);
}

const std::vector<ClassShape>& class_shapes() {
    static const std::vector<ClassShape> kShapes = build_class_shapes();
    return kShapes;
}

}  // namespace gemmkit::tuning

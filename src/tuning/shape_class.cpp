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

std::string class_key(int64_t tiles, int64_t k, bool aligned) {
    return size_bucket(tiles) + (k <= kDeepK ? "/k<=" : "/k>") + std::to_string(kDeepK) +
           (aligned ? "/aligned" : "/unaligned");
}

std::vector<ClassShape> build_class_shapes() {
    std::vector<ClassShape> out;
    for (int64_t side : kClassSides)
        for (int64_t k : kClassDepths)
            for (bool aligned : {true, false}) {
                // Odd sizes: lda = m, ldb = k and ldc = m are then not multiples of 4 floats.
                // One less (not one more) keeps the tile count and the depth bucket: 4095 is
                // still 32 tiles per side and k = 1023 is still k<=1024. Unaligned classes get a
                // second representative just past a tile edge, half the side plus one (4097:
                // 33 tiles a side, the last nearly empty), where the tile shape decides how many
                // blocks idle in the last wave; 4095 and 4097 preferred different tiles by 10%.
                const int64_t d = aligned ? 0 : 1;
                std::vector<int64_t> sides{side - d};
                if (!aligned) sides.push_back(side / 2 + 1);
                for (int64_t mn : sides) {
                    ClassShape s{"", mn, mn, k - d, aligned};
                    s.shape_class = class_key(output_tiles(s.m, s.n), s.k, aligned);
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

std::string shape_class(const Problem& p) { return class_key(output_tiles(p.m, p.n), p.k, aligned_for_class(p)); }

const std::vector<ClassShape>& class_shapes() {
    static const std::vector<ClassShape> kShapes = build_class_shapes();
    return kShapes;
}

}  // namespace gemmkit::tuning

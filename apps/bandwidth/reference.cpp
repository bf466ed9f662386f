#include "bandwidth/reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace gemmkit::bandwidth {

float saxpy_value(float a, float x, float y) { return std::fmaf(a, x, y); }

std::vector<float> saxpy_reference(float a, const std::vector<float>& x, const std::vector<float>& y) {
    if (x.size() != y.size())
        throw std::invalid_argument("saxpy_reference: x has " + std::to_string(x.size()) + " elements, y " +
                                    std::to_string(y.size()));
    std::vector<float> out(y.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = saxpy_value(a, x[i], y[i]);
    return out;
}

std::vector<IndexRun> check_runs(int64_t n, uint64_t seed) {
    if (n < 1) throw std::invalid_argument("check_runs: an array of " + std::to_string(n) + " elements");
    if (n <= kCheckAllElements) return {{0, n}};
    // mt19937_64's output sequence is fixed by the standard, so a seed names the same indices
    // everywhere (uniform_int_distribution's is not; the modulo bias over < 2^63 is negligible).
    std::mt19937_64 rng(seed);
    const int64_t middle = n - 2 * kCheckEdge;
    std::vector<int64_t> picks(kCheckRandom);
    for (int64_t& i : picks) i = kCheckEdge + static_cast<int64_t>(rng() % static_cast<uint64_t>(middle));
    std::sort(picks.begin(), picks.end());
    std::vector<IndexRun> runs = {{0, kCheckEdge}};
    for (int64_t i : picks) {
        IndexRun& last = runs.back();
        if (i < last.first + last.count) continue;  // a repeated pick
        if (i == last.first + last.count) ++last.count;
        else runs.push_back({i, 1});
    }
    IndexRun& last = runs.back();
    if (last.first + last.count == n - kCheckEdge) last.count += kCheckEdge;
    else runs.push_back({n - kCheckEdge, kCheckEdge});
    return runs;
}

int64_t elements_in(const std::vector<IndexRun>& runs) {
    int64_t total = 0;
    for (const IndexRun& r : runs) total += r.count;
    return total;
}

CheckResult compare_bits(const std::vector<IndexRun>& runs, const std::vector<float>& want,
                         const std::vector<float>& got) {
    const int64_t total = elements_in(runs);
    if (static_cast<int64_t>(want.size()) != total || static_cast<int64_t>(got.size()) != total)
        throw std::invalid_argument("compare_bits: the runs hold " + std::to_string(total) + " elements, want " +
                                    std::to_string(want.size()) + ", got " + std::to_string(got.size()));
    CheckResult r;
    r.checked = total;
    size_t k = 0;
    for (const IndexRun& run : runs) {
        for (int64_t i = run.first; i < run.first + run.count; ++i, ++k) {
            if (std::bit_cast<uint32_t>(want[k]) == std::bit_cast<uint32_t>(got[k])) continue;
            if (r.mismatches++ == 0) {
                r.first_index = i;
                r.want = want[k];
                r.got = got[k];
            }
        }
    }
    return r;
}

std::string describe(const CheckResult& r) {
    char buf[256];
    if (r.checked == 0) {
        std::snprintf(buf, sizeof buf, "no elements checked");
    } else if (r.mismatches == 0) {
        std::snprintf(buf, sizeof buf, "%lld of %lld elements bit-exact", static_cast<long long>(r.checked),
                      static_cast<long long>(r.checked));
    } else {
        std::snprintf(buf, sizeof buf,
                      "%lld of %lld elements differ; first y[%lld] = 0x%08x (%.9g), want 0x%08x (%.9g)",
                      static_cast<long long>(r.mismatches), static_cast<long long>(r.checked),
                      static_cast<long long>(r.first_index), std::bit_cast<uint32_t>(r.got), r.got,
                      std::bit_cast<uint32_t>(r.want), r.want);
    }
    return buf;
}

}  // namespace gemmkit::bandwidth

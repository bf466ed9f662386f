// Command-line grammar of the gemmkit tool: pure parsing, no device, tested on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmkit/gemmkit.h"

namespace gemmkit::cli {

struct Shape {
    int64_t m = 0, n = 0, k = 0;
    bool operator==(const Shape&) const = default;
};

// One list of sizes, items separated by commas. Each item is
//   N          a single size
//   A:B:xF     A, A*F, A*F^2, ... up to B (F >= 2)
//   A:B:+S     A, A+S, A+2S, ... up to B (S >= 1)
// Sizes are >= 0. On error returns false and *err says which item and why.
bool parse_size_list(const std::string& text, std::vector<int64_t>* out, std::string* err);

// --mnk: comma-separated shapes, each N (N x N x N) or MxNxK.
bool parse_shapes(const std::string& text, std::vector<Shape>* out, std::string* err);

// Every (m, n, k) of the three lists, m outermost. An empty n list follows m
// (n = m, pairwise); likewise an empty k list follows m.
std::vector<Shape> shape_product(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                                 const std::vector<int64_t>& k);

// POSIX shell patterns (fnmatch(3), no flags): '*' matches any run of characters ('/' and '.'
// included), '?' any one, '[...]' one of a set ('[45]', '[0-9]', '[!a]'), '\\' quotes the next
// character; everything else matches itself. Case-sensitive; the whole text must match.
bool glob_match(const char* pattern, const char* text);

// `globs` is comma-separated; true when any of them matches.
bool matches_any(const std::string& globs, const char* name);

// "NN,NT" or "all". Each pair is op(A) op(B).
struct OpPair {
    gemmkit_op a, b;
};
bool parse_ops(const std::string& text, std::vector<OpPair>* out, std::string* err);

struct Options {
    std::string command;              // list | verify | bench | tune | explain | info | help
    std::vector<std::string> positional;
    std::string kernels = "*";        // --kernels GLOB[,GLOB]
    std::vector<Shape> shapes;        // from --mnk or --m/--n/--k; empty: the command's default suite
    std::vector<OpPair> ops;          // --ops; empty: the command's default
    bool c_f32 = false;               // --c-type same|f32: FP16/BF16 kernels write C of their own type, or FP32
    int warmup = 3;                   // --warmup W
    int iters = 20;                   // --iters I (timed repeats of each contender)
    double max_seconds = 3.0;         // --max-seconds: stop repeating a slow kernel after this long
    bool flush_by_reading = false;    // --l2-flush write|read: how the timers evict the L2 before each call
    uint64_t seed = 2024;             // --seed
    std::string csv, json;            // --csv F, --json F
    std::string samples;              // --samples F: bench writes every timed call's time there
    std::string write;                // --write F: tune writes its table there
    std::string classes = "*";        // --classes GLOB[,GLOB]: the shape classes tune measures
    std::vector<int64_t> mib;         // --mib LIST: bandwidth buffer sizes in MiB (size-list grammar)
    std::vector<Shape> lmn;           // --lmn S[,S]: rowmean-matvec sizes, each LxMxN (m = L, n = M, k = N)
    std::string versions;             // --versions GLOB[,GLOB]: rowmean-matvec versions (cpu, v1..v5)
    bool quiet = false;               // --quiet: no progress on stderr
};

// Parses argv[1..]. On error returns false with *err naming the option.
bool parse_options(int argc, const char* const* argv, Options* out, std::string* err);

}  // namespace gemmkit::cli

#include "cli_args.hpp"

#include <charconv>
#include <cmath>
#include <fnmatch.h>
#include <type_traits>
#include <sstream>

namespace gemmkit::cli {
namespace {

constexpr size_t kMaxListLength = 100000;

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, sep)) parts.push_back(part);
    if (!text.empty() && text.back() == sep) parts.push_back("");
    return parts;
}

// A whole non-negative decimal number, nothing else.
bool parse_count(const std::string& s, int64_t* out) {
    if (s.empty()) return false;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

bool parse_item(const std::string& item, std::vector<int64_t>* out, std::string* err) {
    const std::vector<std::string> f = split(item, ':');
    int64_t a = 0, b = 0, step = 0;
    if (f.size() == 1) {
        if (!parse_count(f[0], &a)) return *err = "'" + item + "' is not a size (a whole number >= 0)", false;
        out->push_back(a);
        return true;
    }
    if (f.size() != 3 || !parse_count(f[0], &a) || !parse_count(f[1], &b) || f[2].size() < 2 ||
        !parse_count(f[2].substr(1), &step) || (f[2][0] != 'x' && f[2][0] != '+'))
        return *err = "'" + item + "' is not a range: use A:B:xF (geometric) or A:B:+S (arithmetic)", false;
    if (a > b) return *err = "range '" + item + "' starts above its end", false;
    const bool geometric = f[2][0] == 'x';
    if (geometric && (step < 2 || a == 0))
        return *err = "range '" + item + "': a geometric range needs A >= 1 and a factor >= 2", false;
    if (!geometric && step < 1) return *err = "range '" + item + "': the step must be >= 1", false;
    // Stop before the next value would pass b (or overflow), and refuse absurd lists.
    for (int64_t v = a;;) {
        if (out->size() >= kMaxListLength)
            return *err = "range '" + item + "' has more than " + std::to_string(kMaxListLength) + " values", false;
        out->push_back(v);
        if (geometric ? v > b / step : v > b - step) break;
        v = geometric ? v * step : v + step;
    }
    return true;
}

}  // namespace

bool parse_size_list(const std::string& text, std::vector<int64_t>* out, std::string* err) {
    out->clear();
    if (text.empty()) return *err = "empty size list", false;
    for (const std::string& item : split(text, ','))
        if (!parse_item(item, out, err)) return false;
    return true;
}

bool parse_shapes(const std::string& text, std::vector<Shape>* out, std::string* err) {
    out->clear();
    if (text.empty()) return *err = "empty shape list", false;
    for (const std::string& item : split(text, ',')) {
        const std::vector<std::string> f = split(item, 'x');
        Shape s;
        if (f.size() == 1 && parse_count(f[0], &s.m)) {
            s.n = s.k = s.m;
        } else if (f.size() != 3 || !parse_count(f[0], &s.m) || !parse_count(f[1], &s.n) || !parse_count(f[2], &s.k)) {
            return *err = "'" + item + "' is not a shape: use N (a cube) or MxNxK", false;
        }
        out->push_back(s);
    }
    return true;
}

std::vector<Shape> shape_product(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                                 const std::vector<int64_t>& k) {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < m.size(); ++i) {
        const std::vector<int64_t> ns = n.empty() ? std::vector<int64_t>{m[i]} : n;
        const std::vector<int64_t> ks = k.empty() ? std::vector<int64_t>{m[i]} : k;
        for (int64_t nv : ns)
            for (int64_t kv : ks) shapes.push_back({m[i], nv, kv});
    }
    return shapes;
}

bool glob_match(const char* pattern, const char* text) {
    // fnmatch(3) from libc rather than a hand-written matcher: no dependency to fetch, and the
    // POSIX shell grammar people already know. Flags 0: '*' also crosses '/' (tune's class names
    // hold slashes: '*/NN') and a leading '.'; '\\' quotes the next character.
    return fnmatch(pattern, text, 0) == 0;
}

bool matches_any(const std::string& globs, const char* name) {
    for (const std::string& g : split(globs, ','))
        if (!g.empty() && glob_match(g.c_str(), name)) return true;
    return false;
}

bool parse_ops(const std::string& text, std::vector<OpPair>* out, std::string* err) {
    out->clear();
    if (text.empty()) return *err = "empty op list", false;
    if (text == "all") {
        for (gemmkit_op a : {GEMMKIT_OP_N, GEMMKIT_OP_T})
            for (gemmkit_op b : {GEMMKIT_OP_N, GEMMKIT_OP_T}) out->push_back({a, b});
        return true;
    }
    auto op_of = [](char c, gemmkit_op* op) {
        if (c != 'N' && c != 'T') return false;
        *op = c == 'N' ? GEMMKIT_OP_N : GEMMKIT_OP_T;
        return true;
    };
    for (const std::string& item : split(text, ',')) {
        OpPair pair{};
        if (item.size() != 2 || !op_of(item[0], &pair.a) || !op_of(item[1], &pair.b))
            return *err = "'" + item + "' is not an op pair: use NN, NT, TN, TT or all", false;
        out->push_back(pair);
    }
    return true;
}

bool parse_options(int argc, const char* const* argv, Options* out, std::string* err) {
    Options o;
    std::vector<int64_t> m, n, k;
    bool have_mnk = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) {
            (o.command.empty() ? o.command : o.positional.emplace_back()) = arg;
            continue;
        }
        if (arg == "--quiet") {
            o.quiet = true;
            continue;
        }
        if (arg == "--help") {
            o.command = "help";
            continue;
        }
        if (i + 1 >= argc) return *err = arg + " needs a value", false;
        const std::string value = argv[++i];
        // Counts and seeds are whole numbers (from_chars on the target's own type, so a
        // 64-bit seed keeps every bit); --max-seconds is a finite number.
        auto number = [&](auto* target, auto lo) {
            std::remove_pointer_t<decltype(target)> v{};
            auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            bool ok = ec == std::errc() && end == value.data() + value.size() && v >= lo;
            if constexpr (std::is_floating_point_v<decltype(v)>) ok = ok && std::isfinite(v);
            if (!ok) return *err = arg + " = '" + value + "' is not a number >= " + std::to_string(lo), false;
            *target = v;
            return true;
        };
        // An option of two words: `first` or `second` (`use`: the error's advice); *is_second
        // says which.
        auto either = [&](const char* first, const char* second, const char* use, bool* is_second) {
            if (value != first && value != second) return *err = arg + " = '" + value + "': use " + use, false;
            *is_second = value == second;
            return true;
        };
        bool ok = true;
        if (arg == "--kernels") o.kernels = value;
        else if (arg == "--mnk") ok = parse_shapes(value, &o.shapes, err), have_mnk = true;
        else if (arg == "--m") ok = parse_size_list(value, &m, err);
        else if (arg == "--n") ok = parse_size_list(value, &n, err);
        else if (arg == "--k") ok = parse_size_list(value, &k, err);
        else if (arg == "--ops") ok = parse_ops(value, &o.ops, err);
        else if (arg == "--c-type") ok = either("same", "f32", "same (C of A/B's type) or f32", &o.c_f32);
        else if (arg == "--l2-flush")
            ok = either("write", "read", "write (a memset) or read (loads only)", &o.flush_by_reading);
        else if (arg == "--warmup") ok = number(&o.warmup, 0);
        else if (arg == "--iters") ok = number(&o.iters, 1);
        else if (arg == "--max-seconds") ok = number(&o.max_seconds, 0.0);
        else if (arg == "--seed") ok = number(&o.seed, uint64_t{0});
        else if (arg == "--csv") o.csv = value;
        else if (arg == "--json") o.json = value;
        else if (arg == "--samples") o.samples = value;
        else if (arg == "--write") o.write = value;
        else if (arg == "--classes") o.classes = value;
        else if (arg == "--mib") ok = parse_size_list(value, &o.mib, err);
        else if (arg == "--lmn") ok = parse_shapes(value, &o.lmn, err);
        else if (arg == "--versions") o.versions = value;
        else return *err = "unknown option " + arg, false;
        if (!ok) {
            if (err->rfind(arg, 0) != 0) *err = arg + ": " + *err;
            return false;
        }
    }
    if (!m.empty() || !n.empty() || !k.empty()) {
        if (have_mnk) return *err = "--mnk and --m/--n/--k are alternatives; give one", false;
        if (m.empty()) return *err = "--n/--k need --m", false;
        o.shapes = shape_product(m, n, k);
    }
    if (!o.samples.empty() && o.command != "bench") return *err = "--samples: only bench writes samples", false;
    *out = o;
    return true;
}

}  // namespace gemmkit::cli

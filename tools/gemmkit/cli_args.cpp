#include "cli_args.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fnmatch.h>
#include <sstream>
#include <type_traits>
#include <utility>

#include "shape_corpus.hpp"

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

struct Pending {
    Options o;
    std::vector<int64_t> m, n, k;  // --m, --n, --k: combined into o.shapes at the end
    bool have_mnk = false;
};

namespace {

// A whole number (or, for double, a finite number) >= lo, nothing else: from_chars on the
// target's own type, so a 64-bit seed keeps every bit.
template <class T>
bool number(const std::string& value, T lo, T* target, std::string* err) {
    T v{};
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    bool ok = ec == std::errc() && end == value.data() + value.size() && v >= lo;
    if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(v);
    if (!ok) {
        std::ostringstream min;
        min << lo;
        return *err = "'" + value + "' is not " + (std::is_floating_point_v<T> ? "a number" : "a whole number") +
                      " >= " + min.str(),
               false;
    }
    *target = v;
    return true;
}

// One of two words: false for `first`, true for `second`; `use` is the error's advice.
bool either(const std::string& value, const char* first, const char* second, const char* use, bool* is_second,
            std::string* err) {
    if (value != first && value != second) return *err = "'" + value + "': use " + use, false;
    *is_second = value == second;
    return true;
}

bool file_name(const std::string& value, std::string* target, std::string* err) {
    if (value.empty()) return *err = "needs a file name", false;
    *target = value;
    return true;
}

// --types: comma-separated names of corpus_types(), each at most once, in the order given.
bool type_list(const std::string& value, std::vector<std::string>* out, std::string* err) {
    const std::vector<CorpusType>& known = corpus_types();
    out->clear();
    if (value.empty()) return *err = "empty type list", false;
    for (const std::string& name : split(value, ',')) {
        if (std::none_of(known.begin(), known.end(), [&](const CorpusType& t) { return name == t.name; }))
            return *err = "'" + name + "' is not a type: use f32, tf32, f16, bf16 or f64", false;
        if (std::find(out->begin(), out->end(), name) != out->end())
            return *err = "'" + name + "' is named twice", false;
        out->push_back(name);
    }
    return true;
}

// Options that choose what bench times, which the corpus suites (shapes, batched, epilogue,
// grouped, fp8) fix.
constexpr const char* kNotForCorpusSuites[] = {"--kernels", "--mnk",    "--m",    "--n",      "--k",
                                                "--ops",     "--c-type", "--json", "--samples"};

// The commands. Fields: name, positional arguments, how many at most, summary.
const std::vector<CommandSpec> kCommands = {
    {"list", "", 0, "the registered kernels and what each serves at full speed"},
    {"verify", "", 0, "check kernels against a double-precision reference"},
    {"bench", "", 0, "verify, then time kernels against cuBLAS (default: the ladder suite)"},
    {"tune", "", 0,
     "time the FP32 configurations (default: steps 11+) per shape class;\n"
     "--write FILE records the winners for auto (src/tuning/sgemm_table.csv)"},
    {"explain", "[KERNEL]", 1, "registers, shared memory, spills, occupancy, arithmetic intensity"},
    {"plan", "", 0,
     "what auto runs for --mnk shapes of --type (f32 tf32 f16 bf16 f64 e4m3) and --ops, and\n"
     "why, on --device h100|h200 (built-in facts, no GPU needed) or current;\n"
     "--corpus prints the golden plan corpus (tests/host/plan_corpus.txt);\n"
     "--gpus P --m LIST: gemmkit_dist's plans (docs/dist.md)"},
    {"info", "", 0, "the device: SMs, clocks, memory, theoretical peaks"},
    {"bandwidth", "", 0, "SAXPY and copies, 1 MiB to 4 GiB (--mib LIST): GB/s, % of theoretical DRAM"},
    {"rowmean-matvec", "", 0, "case study: batched row means + mat-vec, cpu and v1..v5 (--lmn LxMxN, --versions)"},
    {"profile", "TARGET", 1,
     "Nsight Compute on one launch of a kernel (or rowmean.v1..v5), summarized;\n"
     "--mnk / --lmn pick the size, --write FILE keeps ncu's full report"},
    {"dist-bench", "", 0,
     "tensor-parallel AllGather-GEMM and GEMM-ReduceScatter on --gpus GPUs (NCCL, one\n"
     "process each), overlapped vs NCCL + gemmkit and NCCL + cuBLAS one after the other"},
    {"help", "[COMMAND]", 1, "the commands and options, or one command's (also -h, --help)"},
};

// The options. Fields: name, value in help (nullptr: a flag), the commands that take it, help,
// and what it does to the options read so far.
const std::vector<OptionSpec> kOptions = {
    {"--kernels", "GLOB[,GLOB]", "list verify bench tune explain",
     "kernels by name pattern (* ? [...]), e.g. 'sgemm.*', 'sgemm.0[45]*' (default: all)",
     [](const std::string& v, Pending* p, std::string*) { return p->o.kernels = v, true; }},
    {"--mnk", "S[,S...]", "verify bench profile plan explain", "shapes: N (N^3) or MxNxK, e.g. 4096,7x33x129",
     [](const std::string& v, Pending* p, std::string* err) {
         p->have_mnk = true;
         return parse_shapes(v, &p->o.shapes, err);
     }},
    {"--m", "LIST", "verify bench plan explain dist-bench",
     "sizes: N, A:B:xF (geometric), A:B:+S (arithmetic); the shapes are every (m, n, k)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_size_list(v, &p->m, err); }},
    {"--n", "LIST", "verify bench plan explain", "sizes of n, as --m (default: n = m)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_size_list(v, &p->n, err); }},
    {"--k", "LIST", "verify bench plan explain", "sizes of k, as --m (default: k = m)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_size_list(v, &p->k, err); }},
    {"--ops", "all|NN,NT,TN,TT", "verify bench plan explain", "op(A) op(B) combinations (verify default: all; bench: NN)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_ops(v, &p->o.ops, err); }},
    {"--c-type", "same|f32", "verify bench", "C of the FP16/BF16 kernels in their A/B type (default) or FP32",
     [](const std::string& v, Pending* p, std::string* err) {
         return either(v, "same", "f32", "same (C of A/B's type) or f32", &p->o.c_f32, err);
     }},
    {"--warmup", "W", "bench tune bandwidth rowmean-matvec dist-bench", "untimed calls per contender before timing (default 3)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 0, &p->o.warmup, err); }},
    {"--iters", "I", "bench tune bandwidth rowmean-matvec dist-bench", "timed calls per contender (default 20)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 1, &p->o.iters, err); }},
    {"--max-seconds", "S", "bench tune bandwidth rowmean-matvec",
     "stop repeating a slow contender after S seconds (default 3; tune: per candidate)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 0.0, &p->o.max_seconds, err); }},
    {"--l2-flush", "write|read", "bench tune rowmean-matvec",
     "evict the L2 before each timed call by a memset of twice its size (default),\n"
     "or by reading that much (no dirty lines left)",
     [](const std::string& v, Pending* p, std::string* err) {
         return either(v, "write", "read", "write (a memset) or read (loads only)", &p->o.flush_by_reading, err);
     }},
    {"--seed", "S", "verify bench tune bandwidth rowmean-matvec dist-bench", "random inputs' seed (default 2024)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, uint64_t{0}, &p->o.seed, err); }},
    {"--csv", "FILE", "bench bandwidth rowmean-matvec dist-bench", "also write the results to FILE (CSV, RFC 4180)",
     [](const std::string& v, Pending* p, std::string* err) { return file_name(v, &p->o.csv, err); }},
    {"--json", "FILE", "bench", "also write the results to FILE (JSON; a number that is not finite is null)",
     [](const std::string& v, Pending* p, std::string* err) { return file_name(v, &p->o.json, err); }},
    {"--samples", "FILE", "bench", "also write every timed call's time, in call order (kernel and cuBLAS)",
     [](const std::string& v, Pending* p, std::string* err) { return file_name(v, &p->o.samples, err); }},
    {"--write", "FILE", "tune profile", "tune: write the winners as a tuning table; profile: keep ncu's report",
     [](const std::string& v, Pending* p, std::string* err) { return file_name(v, &p->o.write, err); }},
    {"--classes", "GLOB[,GLOB]", "tune", "only these shape classes, e.g. '*/NN'; --write keeps FILE's other rows",
     [](const std::string& v, Pending* p, std::string*) { return p->o.classes = v, true; }},
    {"--mib", "LIST", "bandwidth", "buffer sizes in MiB (size-list grammar, e.g. 1:4096:x2)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_size_list(v, &p->o.mib, err); }},
    {"--lmn", "S[,S]", "rowmean-matvec profile", "sizes LxMxN (default 512x512x1024,1024^3)",
     [](const std::string& v, Pending* p, std::string* err) { return parse_shapes(v, &p->o.lmn, err); }},
    {"--versions", "GLOB[,GLOB]", "rowmean-matvec", "which of cpu, v1..v5 (default: all)",
     [](const std::string& v, Pending* p, std::string*) { return p->o.versions = v, true; }},
    // plan checks --type and --device itself, against the types and devices it knows.
    {"--type", "T", "plan explain", "f32, tf32, f16, bf16, f16.f32c, bf16.f32c (C in FP32), f64, e4m3 or e4m3.fast (FP8, C in BF16; default f16)",
     [](const std::string& v, Pending* p, std::string*) { return p->o.type = v, true; }},
    {"--device", "D", "plan explain", "h100 (default), h200, or current (the GPU's own facts)",
     [](const std::string& v, Pending* p, std::string*) { return p->o.device = v, true; }},
    {"--batch", "N", "plan", "plan a strided batch of N problems of each shape, packed (default 1)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, int64_t{1}, &p->o.batch, err); }},
    {"--corpus", nullptr, "plan", "print the golden plan corpus",
     [](const std::string&, Pending* p, std::string*) { return p->o.corpus = true, true; }},
    {"--gpus", "P", "dist-bench plan",
     "dist-bench: GPUs (ranks), one process each (default: every visible GPU);\n"
     "plan: gemmkit_dist's plans for an MLP of --hidden and --ffn on P GPUs, at --m tokens",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 1, &p->o.gpus, err); }},
    {"--hidden", "H", "dist-bench plan", "the model's hidden size: k of AllGather-GEMM, n of GEMM-ReduceScatter (default 8192)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, int64_t{1}, &p->o.hidden, err); }},
    {"--ffn", "F", "dist-bench plan", "the FFN size, split over the GPUs (default 28672)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, int64_t{1}, &p->o.ffn, err); }},
    {"--comm-sms", "N", "dist-bench plan", "SMs the overlapped GEMMs leave to NCCL (default: the plan's)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 0, &p->o.comm_sms, err); }},
    {"--pieces", "N", "dist-bench plan", "pieces a rank's block is cut into for the overlap (default: the plan's)",
     [](const std::string& v, Pending* p, std::string* err) { return number(v, 0, &p->o.pieces, err); }},
    {"--suite", "ladder|shapes|batched|epilogue|grouped|fp8", "bench",
     "ladder: the default suite; shapes: the shape corpus (~70 shapes in classes), auto\n"
     "against cuBLAS for each --types, then its first rows again (the repeat check);\n"
     "batched: the batched corpus (strided and pointer-array batches), auto against\n"
     "cuBLAS's batched calls for each --types; epilogue: linear layers with a fused\n"
     "bias and activation against cuBLASLt's epilogues (default types bf16, f16);\n"
     "grouped: mixture-of-experts layers against cuBLAS's loop and grouped calls (f16, bf16);\n"
     "fp8: FP8 GEMMs with per-tensor, outer-vector and block scales against cuBLASLt (E4M3\n"
     "in, BF16 out; no --types); the corpora's timing defaults: --warmup 2 --iters 10\n"
     "--max-seconds 0.5",
     [](const std::string& v, Pending* p, std::string* err) {
         if (v != "ladder" && v != "shapes" && v != "batched" && v != "epilogue" && v != "grouped" && v != "fp8")
             return *err = "'" + v + "': use ladder, shapes, batched, epilogue, grouped or fp8", false;
         return p->o.suite = v, true;
     }},
    {"--types", "LIST", "bench", "--suite shapes|batched|epilogue|grouped: some of f32,tf32,f16,bf16,f64 (default: all five)",
     [](const std::string& v, Pending* p, std::string* err) { return type_list(v, &p->o.types, err); }},
    {"--quiet", nullptr, "verify bench tune bandwidth rowmean-matvec profile",
     "no progress on stderr; verify prints failures only",
     [](const std::string&, Pending* p, std::string*) { return p->o.quiet = true, true; }},
};

// Lines of `text` after the first, indented to `column`.
std::string indented(const char* text, size_t column) {
    std::string out;
    for (const char* c = text; *c != '\0'; ++c) {
        out += *c;
        if (*c == '\n') out.append(column, ' ');
    }
    return out;
}

std::string command_line(const CommandSpec& c) {
    const std::string head = std::string(c.name) + (c.args[0] != '\0' ? " " : "") + c.args;
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-20s ", head.c_str());
    return buf + indented(c.summary, 23) + "\n";
}

std::string option_line(const OptionSpec& o) {
    const std::string head = std::string(o.name) + (o.value != nullptr ? std::string(" ") + o.value : "");
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-23s ", head.c_str());
    // A head wider than its column ("--suite ladder|shapes|batched|epilogue") has the help start below it.
    const std::string lead = head.size() > 23 ? "  " + head + "\n" + std::string(26, ' ') : std::string(buf);
    return lead + indented(o.help, 26) + "\n";
}

bool check_writable(const std::string& path, std::string* err) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    if (existed && std::filesystem::is_directory(path, ec)) return *err = "'" + path + "' is a directory", false;
    // "a" neither truncates an existing file nor moves the data of one that tune reads first.
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr) return *err = "cannot write '" + path + "': " + std::strerror(errno), false;
    std::fclose(f);
    if (!existed) std::remove(path.c_str());
    return true;
}

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

const std::vector<CommandSpec>& command_table() { return kCommands; }
const std::vector<OptionSpec>& option_table() { return kOptions; }

const CommandSpec* find_command(const std::string& name) {
    for (const CommandSpec& c : kCommands)
        if (name == c.name) return &c;
    return nullptr;
}

const OptionSpec* find_option(const std::string& name) {
    for (const OptionSpec& o : kOptions)
        if (name == o.name) return &o;
    return nullptr;
}

bool accepts(const OptionSpec& option, const std::string& command) {
    const std::vector<std::string> words = split(option.commands, ' ');
    return std::find(words.begin(), words.end(), command) != words.end();
}

bool parse_options(int argc, const char* const* argv, Options* out, std::string* err) {
    Pending p;
    Options& o = p.o;
    std::vector<const OptionSpec*> given;
    auto fail = [&](const std::string& why) {
        *err = why;
        out->command = o.command;
        return false;
    };
    bool options_ended = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--" && !options_ended) {
            options_ended = true;
            continue;
        }
        if (options_ended || arg.size() < 2 || arg[0] != '-') {
            if (!o.command.empty()) {
                o.positional.push_back(arg);
            } else if (find_command(arg) != nullptr) {
                o.command = arg;
            } else {
                return fail("unknown command '" + arg + "'");
            }
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            o.help = true;
            continue;
        }
        const size_t eq = arg.find('=');
        const std::string name = arg.substr(0, eq);
        const OptionSpec* spec = name.rfind("--", 0) == 0 ? find_option(name) : nullptr;
        if (spec == nullptr) {
            const bool one_dash = name.rfind("--", 0) != 0 && find_option("-" + name) != nullptr;
            return fail("unknown option " + name + (one_dash ? "; did you mean -" + name + "?" : ""));
        }
        std::string value;
        if (spec->value == nullptr) {
            if (eq != std::string::npos) return fail(name + " takes no value");
        } else if (eq != std::string::npos) {
            value = arg.substr(eq + 1);
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return fail(name + " needs a value: " + name + " " + spec->value);
        }
        if (!spec->apply(value, &p, err)) return fail(name + ": " + *err);
        given.push_back(spec);
    }
    if (o.command == "help" && !o.positional.empty() && find_command(o.positional[0]) == nullptr)
        return fail("unknown command '" + o.positional[0] + "'");
    if (!o.help && !o.command.empty()) {  // help is asked for: show it, whatever else is wrong
        for (const OptionSpec* spec : given)
            if (!accepts(*spec, o.command)) return fail(std::string(spec->name) + " is not an option of " + o.command);
        const CommandSpec& c = *find_command(o.command);
        if (o.positional.size() > static_cast<size_t>(c.max_positional))
            return fail("unexpected argument '" + o.positional[c.max_positional] + "'; " + o.command +
                        (c.max_positional == 0 ? " takes no arguments" : std::string(" takes ") + c.args));
        const bool corpus_suite = o.suite == "shapes" || o.suite == "batched" || o.suite == "epilogue" ||
                                  o.suite == "grouped" || o.suite == "fp8";
        if (corpus_suite)
            for (const OptionSpec* spec : given)
                for (const char* name : kNotForCorpusSuites)
                    if (std::strcmp(name, spec->name) == 0)
                        return fail(std::string(name) + " does not apply to --suite " + o.suite +
                                    " (its corpus fixes what is timed)");
        // fp8 fixes its types (E4M3 in, BF16 out): none of --types's is an FP8 type.
        if (!o.types.empty() && o.suite == "fp8")
            return fail("--types does not apply to --suite fp8 (E4M3 in, BF16 out)");
        if (!o.types.empty() && !corpus_suite)
            return fail("--types needs --suite shapes, batched, epilogue or grouped");
    }
    if (!p.m.empty() || !p.n.empty() || !p.k.empty()) {
        if (p.have_mnk) return fail("--mnk and --m/--n/--k are alternatives; give one");
        if (p.m.empty()) return fail("--n/--k need --m");
        o.shapes = shape_product(p.m, p.n, p.k);
    }
    for (const OptionSpec* spec : given) o.given.push_back(spec->name);
    *out = o;
    return true;
}

bool was_given(const Options& o, const char* option) {
    return std::find(o.given.begin(), o.given.end(), option) != o.given.end();
}

std::string error_line(const std::string& command, const std::string& err) {
    if (command.empty() || command == "help") return "gemmkit: " + err + " (see gemmkit help)";
    return "gemmkit " + command + ": " + err + " (see gemmkit " + command + " --help)";
}

std::string usage() {
    std::string out = "usage: gemmkit <command> [options]\n\ncommands:\n";
    for (const CommandSpec& c : kCommands) out += command_line(c);
    out += "\noptions (gemmkit <command> --help lists a command's own; --name=value works too):\n";
    for (const OptionSpec& o : kOptions) out += option_line(o);
    return out;
}

std::string command_help(const CommandSpec& c) {
    std::string options;
    for (const OptionSpec& o : kOptions)
        if (accepts(o, c.name)) options += option_line(o);
    std::string out = std::string("usage: gemmkit ") + c.name + (c.args[0] != '\0' ? " " : "") + c.args +
                      (options.empty() ? "" : " [options]") + "\n" + indented(c.summary, 0) + "\n";
    if (!options.empty()) out += "\noptions:\n" + options;
    return out;
}

bool check_arguments(const Options& o, const std::vector<std::string>& kernel_names, std::string* err) {
    if (accepts(*find_option("--kernels"), o.command)) {
        const bool positional = o.command == "explain" && !o.positional.empty();  // explain KERNEL
        const std::string globs = positional ? o.positional[0] : o.kernels;
        const std::string what = positional ? "" : "--kernels: ";
        std::vector<std::string> names = kernel_names;
        if (o.command == "bench") names.push_back("auto");  // bench's contender: what the API picks
        if (globs.empty()) return *err = what + "no pattern given", false;
        for (const std::string& glob : split(globs, ',')) {
            if (glob.empty()) return *err = what + "an empty pattern in '" + globs + "'", false;
            bool any = false;
            for (const std::string& name : names) any = any || glob_match(glob.c_str(), name.c_str());
            if (!any) return *err = what + "'" + glob + "' matches no kernel (gemmkit list shows the names)", false;
        }
    }
    const std::pair<const char*, const std::string*> outputs[] = {
        {"--csv", &o.csv}, {"--json", &o.json}, {"--samples", &o.samples}, {"--write", &o.write}};
    for (const auto& [option, path] : outputs)
        if (!path->empty() && !check_writable(*path, err)) return *err = option + std::string(": ") + *err, false;
    return true;
}

std::string no_device_reason(cudaError_t error, const char* error_text, int driver_version, int runtime_version) {
    if (driver_version == 0) return "no NVIDIA driver found (libcuda.so.1 cannot be loaded)";
    if (error == cudaErrorNoDevice) return "the NVIDIA driver (CUDA " + cuda_version(driver_version) + ") sees no GPU";
    if (error == cudaErrorInsufficientDriver)
        return "the NVIDIA driver supports CUDA " + cuda_version(driver_version) + ", older than the CUDA " +
               cuda_version(runtime_version) + " runtime gemmkit is built with: update the driver";
    return std::string("the CUDA runtime reports: ") + error_text;
}

}  // namespace gemmkit::cli

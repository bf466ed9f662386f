// Command-line grammar of the gemmkit tool: parsing, help text, and the checks of arguments that
// need no device. No CUDA calls; tested on the host.
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
    std::string command;              // a name from command_table(); "" when none was given
    bool help = false;                // -h / --help: print the command's help (or the usage), run nothing
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
    std::string write;                // --write F: tune writes its table there, profile ncu's report
    std::string classes = "*";        // --classes GLOB[,GLOB]: the shape classes tune measures
    std::vector<int64_t> mib;         // --mib LIST: bandwidth buffer sizes in MiB (size-list grammar)
    std::vector<Shape> lmn;           // --lmn S[,S]: rowmean-matvec sizes, each LxMxN (m = L, n = M, k = N)
    std::string versions;             // --versions GLOB[,GLOB]: rowmean-matvec versions (cpu, v1..v5)
    bool quiet = false;               // --quiet: no progress on stderr
    std::string type = "f16";         // --type: plan's element types (f32 tf32 f16 bf16 f16.f32c bf16.f32c f64)
    std::string device = "h100";      // --device h100|h200|current: the facts plan plans for
    bool corpus = false;              // --corpus: plan prints the golden corpus
    int64_t batch = 1;                // --batch: plan's problems as a strided batch of this many
    int gpus = 0;                     // --gpus P: dist-bench's ranks; 0: every visible GPU
    int64_t hidden = 8192;            // --hidden H: dist-bench's model width
    int64_t ffn = 28672;              // --ffn F: dist-bench's FFN width, split over the ranks
    int comm_sms = 0;                 // --comm-sms N: SMs left to NCCL during overlap; 0: the plan's
    int pieces = 0;                   // --pieces N: the overlap's pieces a block; 0: the plan's
    std::string suite = "ladder";     // --suite ladder|shapes|batched: bench's default suite, or a corpus
    std::vector<std::string> types;   // --types LIST: the corpus suites' types; empty: all five
    std::vector<std::string> given;   // the options named on the command line ("--iters"), in order
};

// Whether `option` ("--iters") was on the command line, not left at its default.
bool was_given(const Options& o, const char* option);

// The grammar is two tables. A command is a row of command_table(); an option is a row of
// option_table() that names the commands accepting it and applies its value to Options. Adding a
// command: its row here, the commands word in the rows of the options it takes, and its handler in
// main.cpp. Adding an option: one row (and its Options field). Help text is generated from both.

struct CommandSpec {
    const char* name;     // "explain"
    const char* args;     // its positional arguments in the usage line: "", "[KERNEL]", "TARGET"
    int max_positional;   // how many it takes at most
    const char* summary;  // for `gemmkit help`; '\n' starts a continuation line
};

struct Pending;  // the options read so far (cli_args.cpp)

struct OptionSpec {
    const char* name;      // "--mnk"
    const char* value;     // its value in help, "S[,S...]"; nullptr: a flag, which takes none
    const char* commands;  // the commands that accept it, separated by spaces
    const char* help;      // for `gemmkit help`; '\n' starts a continuation line
    bool (*apply)(const std::string& value, Pending* p, std::string* err);  // false: *err says why
};

const std::vector<CommandSpec>& command_table();
const std::vector<OptionSpec>& option_table();
const CommandSpec* find_command(const std::string& name);  // nullptr: no such command
const OptionSpec* find_option(const std::string& name);    // "--mnk"; nullptr: no such option
bool accepts(const OptionSpec& option, const std::string& command);

// Parses argv[1..]: the first word that is not an option or an option's value is the command,
// later ones its positional arguments. Options may come before or after the command, as
// `--name value` or `--name=value`; `--` ends the options. -h and --help ask for help.
// On error returns false with *err naming the bad argument; out->command is then the command
// if one was recognized (for error_line), the rest of *out unchanged.
bool parse_options(int argc, const char* const* argv, Options* out, std::string* err);

// The one line a parse error prints: the message and where help is, e.g.
// "gemmkit bench: unknown option --bogus (gemmkit bench --help lists its options)".
std::string error_line(const std::string& command, const std::string& err);

// `gemmkit help`: every command and option. command_help: one command's usage and options.
std::string usage();
std::string command_help(const CommandSpec& command);

// What parsing cannot check but needs no device, for the command's options: each --kernels glob
// (explain's KERNEL) matches one of `kernel_names` (bench also takes "auto"), and each output file
// (--csv, --json, --samples, --write) can be written. A file that did not exist is created to
// find out, and removed again. Run before the device is touched, so a typo costs nothing.
bool check_arguments(const Options& o, const std::vector<std::string>& kernel_names, std::string* err);

// Why no CUDA GPU can be used, in words a user can act on: `error` is what the CUDA runtime said
// (cudaGetDeviceCount; cudaErrorNoDevice when it counted none), error_text its string,
// driver_version what cudaDriverGetVersion gave (0: no driver found), runtime_version the
// runtime's (cudaRuntimeGetVersion). cudart reports a missing driver as "CUDA driver version is
// insufficient for CUDA runtime version": that text is kept only where the driver is too old.
std::string no_device_reason(cudaError_t error, const char* error_text, int driver_version, int runtime_version);

}  // namespace gemmkit::cli

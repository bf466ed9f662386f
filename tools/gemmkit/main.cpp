// gemmkit — list, verify, benchmark, tune and explain the GEMM kernels.
//
// The grammar (commands, options, help text) is the two tables of cli_args.cpp; this file runs
// a parsed command. The parser is written here rather than taken from a library such as CLI11:
// the tool must build from a clean clone on machines with no network and no extra packages (the
// GPU machine), so it depends on nothing beyond libc (fnmatch) and the C++ standard library.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "registry.hpp"

namespace {

using gemmkit::cli::Options;

// Each command of cli_args.cpp's command_table() and the function that runs it ("help" is
// answered below).
struct Handler {
    const char* command;
    int (*run)(const Options&);
};
constexpr Handler kHandlers[] = {
    {"list", gemmkit::cli::cmd_list},
    {"verify", gemmkit::cli::cmd_verify},
    {"bench", gemmkit::cli::cmd_bench},
    {"tune", gemmkit::cli::cmd_tune},
    {"explain", gemmkit::cli::cmd_explain},
    {"info", gemmkit::cli::cmd_info},
    {"bandwidth", gemmkit::cli::cmd_bandwidth},
    {"rowmean-matvec", gemmkit::cli::cmd_rowmean_matvec},
    {"profile", gemmkit::cli::cmd_profile},
    {"plan", gemmkit::cli::cmd_plan},
    {"dist-bench", gemmkit::cli::cmd_dist_bench},
};

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (const gemmkit::KernelInfo& k : gemmkit::registry()) names.emplace_back(k.name);
    return names;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace gemmkit::cli;
    Options o;
    std::string err;
    if (!parse_options(argc, argv, &o, &err)) {
        std::fprintf(stderr, "%s\n", error_line(o.command, err).c_str());
        return 2;
    }
    if (o.help || o.command == "help") {
        const std::string topic = o.command == "help" ? (o.positional.empty() ? "" : o.positional[0]) : o.command;
        std::fputs(topic.empty() ? usage().c_str() : command_help(*find_command(topic)).c_str(), stdout);
        return 0;
    }
    if (o.command.empty()) {
        std::fputs(usage().c_str(), stderr);
        return 2;
    }
    // Everything that needs no device is checked before one is touched.
    if (!check_arguments(o, kernel_names(), &err)) {  // a value, not the grammar: no pointer to help
        std::fprintf(stderr, "gemmkit %s: %s\n", o.command.c_str(), err.c_str());
        return 2;
    }
    for (const Handler& h : kHandlers) {
        if (o.command != h.command) continue;
        try {
            return h.run(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gemmkit %s: %s\n", o.command.c_str(), e.what());
            return 1;
        }
    }
    // A command in cli_args.cpp's table without a row in kHandlers above.
    std::fprintf(stderr, "gemmkit %s: this build has no handler for it (tools/gemmkit/main.cpp, kHandlers)\n",
                 o.command.c_str());
    return 2;
}

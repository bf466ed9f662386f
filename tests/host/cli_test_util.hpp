// The CLI's parse_options as the host tests call it: argv without the program name.
#pragma once

#include <string>
#include <vector>

#include "cli_args.hpp"

namespace gemmkit::test {

struct Parsed {
    bool ok;
    gemmkit::cli::Options opt;
    std::string err;
};

inline Parsed parse(std::vector<const char*> args) {
    args.insert(args.begin(), "gemmkit");
    Parsed r;
    r.ok = gemmkit::cli::parse_options(static_cast<int>(args.size()), args.data(), &r.opt, &r.err);
    return r;
}

}  // namespace gemmkit::test

// Reading Nsight Compute's text report: the metric rows of its sections and its rule findings.
// Pure text processing, tested on the host.
#pragma once

#include <string>
#include <vector>

namespace gemmkit::cli {

struct NcuMetric {
    std::string name, unit, value;  // as printed: "Duration", "ms", "2.81"
};

struct NcuFinding {
    std::string kind;      // "OPT" (optimization opportunity), "WRN" or "INF"
    std::string estimate;  // "Est. Speedup: 25%" when ncu gives one, else ""
    std::string text;      // the finding's first sentence
};

struct NcuReport {
    std::string kernel;  // the profiled kernel's header line ("name (grid)x(block), ...")
    std::vector<NcuMetric> metrics;
    std::vector<NcuFinding> findings;
    // The value of the first metric with this exact name (and unit into *unit); "" if absent.
    std::string value(const std::string& name, std::string* unit = nullptr) const;
};

// Parses `ncu --page details` text output (one profiled kernel).
NcuReport parse_ncu_report(const std::string& text);

}  // namespace gemmkit::cli

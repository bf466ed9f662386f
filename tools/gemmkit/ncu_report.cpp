#include "ncu_report.hpp"

#include <sstream>

namespace gemmkit::cli {
namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits at runs of two or more spaces: ncu aligns its columns that way, and names contain
// single spaces ("Compute (SM) Throughput").
std::vector<std::string> columns(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
            if (!trim(cur).empty()) out.push_back(trim(cur));
            cur.clear();
            while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
        } else {
            cur += line[i];
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// ncu wraps long findings; the summary keeps the first sentence.
std::string first_sentence(const std::string& s) {
    const size_t dot = s.find(". ");
    return dot == std::string::npos ? s : s.substr(0, dot + 1);
}

}  // namespace

std::string NcuReport::value(const std::string& name, std::string* unit) const {
    for (const NcuMetric& m : metrics)
        if (m.name == name) {
            if (unit != nullptr) *unit = m.unit;
            return m.value;
        }
    return "";
}

namespace {
// A finding's kind when the line opens one ("OPT ...", "WRN ...", "INF ..."), else "".
std::string finding_kind(const std::string& t) {
    for (const char* kind : {"OPT", "WRN", "INF"})
        if (starts_with(t, std::string(kind) + " ")) return kind;
    return "";
}
}  // namespace

NcuReport parse_ncu_report(const std::string& text) {
    NcuReport r;
    std::istringstream in(text);
    std::string line;
    bool in_finding = false;  // a finding's text continues on the following indented lines
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.empty() || starts_with(t, "---") || starts_with(t, "Metric Name") || starts_with(t, "==PROF==") ||
            starts_with(t, "Section:")) {
            in_finding = false;
            continue;
        }
        // Kernel header: two-space indent, "name (gx, gy, gz)x(bx, by, bz), Context ..."
        if (!starts_with(line, "   ") && t.find(")x(") != std::string::npos && t.find("Context") != std::string::npos) {
            if (r.kernel.empty()) r.kernel = t;
            in_finding = false;
            continue;
        }
        if (const std::string kind = finding_kind(t); !kind.empty()) {
            // "OPT   Est. Speedup: 25%" puts the estimate on the first line and the text below it.
            const std::string rest = trim(t.substr(kind.size()));
            const bool estimate = starts_with(rest, "Est. ");
            r.findings.push_back({kind, estimate ? rest : "", estimate ? "" : rest});
            in_finding = true;
            continue;
        }
        if (in_finding) {
            std::string& body = r.findings.back().text;
            body += (body.empty() ? "" : " ") + t;
            continue;
        }
        const std::vector<std::string> cols = columns(line);
        if (starts_with(line, "    ") && (cols.size() == 2 || cols.size() == 3))
            r.metrics.push_back({cols[0], cols.size() == 3 ? cols[1] : "", cols.back()});
    }
    for (NcuFinding& f : r.findings) f.text = first_sentence(f.text);
    return r;
}

}  // namespace gemmkit::cli

#include "tune_table.hpp"

#include <map>
#include <set>
#include <stdexcept>

namespace gemmkit::cli {

std::vector<TableRow> read_table_rows(std::istream& in) {
    std::vector<TableRow> rows;
    std::set<std::string> seen;
    bool header_seen = false;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        if (!header_seen) {  // the first other line is the header
            header_seen = true;
            continue;
        }
        const size_t comma = line.find(',');
        if (comma == 0 || comma == std::string::npos || comma + 1 == line.size() || line[comma + 1] == ',')
            throw std::runtime_error("line " + std::to_string(number) + " is not 'class,kernel,...': " + line);
        TableRow row{line.substr(0, comma), line};
        if (!seen.insert(row.shape_class).second)
            throw std::runtime_error("line " + std::to_string(number) + ": class " + row.shape_class + " has two rows");
        rows.push_back(row);
    }
    return rows;
}

std::vector<std::string> merge_table_rows(const std::vector<TableRow>& kept, const std::vector<TableRow>& fresh,
                                          const std::vector<std::string>& class_order) {
    std::map<std::string, std::string> line_of;
    for (const TableRow& r : kept) line_of[r.shape_class] = r.line;
    for (const TableRow& r : fresh) line_of[r.shape_class] = r.line;  // re-tuned rows replace kept ones
    std::vector<std::string> out;
    for (const std::string& cls : class_order)
        if (auto it = line_of.find(cls); it != line_of.end()) out.push_back(it->second);
    return out;
}

}  // namespace gemmkit::cli

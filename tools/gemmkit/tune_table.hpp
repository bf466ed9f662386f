// The tuning table file (src/tuning/sgemm_table.csv) as text: its rows, and the merge a partial
// `gemmkit tune --classes GLOB --write F` makes, which re-tunes some classes and keeps F's rows
// for the others. No device; tested on the host.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace gemmkit::cli {

struct TableRow {
    std::string shape_class;  // the first field
    std::string line;         // the whole line, as written
};

// The data rows of a table file: lines after the "class,kernel,..." header that are neither
// '#' comments nor blank. Throws std::runtime_error naming the line when a row has no kernel
// field or a class appears twice.
std::vector<TableRow> read_table_rows(std::istream& in);

// The rows to write: every class of `class_order` that `fresh` or `kept` has a row for, in that
// order, taking fresh's row where both have one. Rows of classes not in class_order are dropped
// (a class that no longer exists).
std::vector<std::string> merge_table_rows(const std::vector<TableRow>& kept, const std::vector<TableRow>& fresh,
                                          const std::vector<std::string>& class_order);

}  // namespace gemmkit::cli

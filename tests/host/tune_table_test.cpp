// The tuning table file as text: reading its rows, and the merge of a partial re-tune
// (`gemmkit tune --classes GLOB --write F`) with the rows F already holds.
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tune_table.hpp"

namespace {

using gemmkit::cli::merge_table_rows;
using gemmkit::cli::read_table_rows;
using gemmkit::cli::TableRow;

std::vector<TableRow> rows_of(const std::string& text) {
    std::istringstream in(text);
    return read_table_rows(in);
}

const char* const kTable =
    "# sgemm tuning table\n"
    "# measured: somewhere\n"
    "class,kernel,tflops\n"
    "a/NN,k1,1.00\n"
    "\n"
    "# a comment between rows\n"
    "a/NT,k2,2.00\r\n"
    "b/NN,k3,3.00\n";

TEST(ReadTableRows, SkipsCommentsBlankLinesAndTheHeader) {
    const auto rows = rows_of(kTable);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].shape_class, "a/NN");
    EXPECT_EQ(rows[0].line, "a/NN,k1,1.00");
    EXPECT_EQ(rows[1].shape_class, "a/NT");
    EXPECT_EQ(rows[1].line, "a/NT,k2,2.00");  // a CRLF file reads the same
    EXPECT_EQ(rows[2].shape_class, "b/NN");
}

TEST(ReadTableRows, AFileWithOnlyAHeaderHasNoRows) {
    EXPECT_TRUE(rows_of("# c\nclass,kernel\n").empty());
    EXPECT_TRUE(rows_of("").empty());
}

TEST(ReadTableRows, RejectsRowsWithoutAKernelAndRepeatedClasses) {
    EXPECT_THROW(rows_of("class,kernel\na/NN\n"), std::runtime_error);
    EXPECT_THROW(rows_of("class,kernel\na/NN,\n"), std::runtime_error);
    EXPECT_THROW(rows_of("class,kernel\n,k1\n"), std::runtime_error);
    EXPECT_THROW(rows_of("class,kernel\na/NN,,1\n"), std::runtime_error);
    try {
        rows_of("class,kernel\na/NN,k1\na/NN,k2\n");
        FAIL() << "a repeated class must throw";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("a/NN"), std::string::npos) << e.what();
    }
}

TEST(MergeTableRows, FreshRowsReplaceKeptOnesInClassOrder) {
    const std::vector<TableRow> kept = {{"a/NT", "a/NT,old"}, {"b/NN", "b/NN,old"}};
    const std::vector<TableRow> fresh = {{"b/NN", "b/NN,new"}, {"a/NN", "a/NN,new"}};
    const auto out = merge_table_rows(kept, fresh, {"a/NN", "a/NT", "b/NN", "b/NT"});
    EXPECT_EQ(out, (std::vector<std::string>{"a/NN,new", "a/NT,old", "b/NN,new"}));  // b/NT: no row anywhere
}

TEST(MergeTableRows, DropsClassesThatNoLongerExist) {
    const auto out = merge_table_rows({{"gone/NN", "gone/NN,k"}, {"a/NN", "a/NN,k"}}, {}, {"a/NN"});
    EXPECT_EQ(out, (std::vector<std::string>{"a/NN,k"}));
}

TEST(MergeTableRows, AFullTuneIsItsOwnRows) {
    const std::vector<TableRow> fresh = {{"a/NN", "a/NN,x"}, {"a/NT", "a/NT,y"}};
    EXPECT_EQ(merge_table_rows({}, fresh, {"a/NN", "a/NT"}), (std::vector<std::string>{"a/NN,x", "a/NT,y"}));
}

}  // namespace

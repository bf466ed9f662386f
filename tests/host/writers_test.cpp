// The fields of the gemmkit tool's CSV and JSON files: RFC 4180 quoting, RFC 8259 escapes, and
// non-finite numbers (JSON null, CSV empty).
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "writers.hpp"

namespace {

using gemmkit::cli::csv_field;
using gemmkit::cli::csv_number;
using gemmkit::cli::json_number;
using gemmkit::cli::json_string;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T>
std::string text_of(T value) {
    std::ostringstream s;
    s << value;
    return s.str();
}

TEST(CsvField, PlainTextIsWrittenAsItIs) {
    EXPECT_EQ(csv_field("sgemm.05_register_blocking_2d"), "sgemm.05_register_blocking_2d");
    EXPECT_EQ(csv_field("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(csv_field(""), "");
}

TEST(CsvField, CommaQuoteOrLineBreakGetsQuoted) {
    EXPECT_EQ(csv_field("FAILED: rel err 1e-2, max 3"), "\"FAILED: rel err 1e-2, max 3\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("cr\rhere"), "\"cr\rhere\"");
}

// RFC 4180 2.7: a quote inside a quoted field is written twice.
TEST(CsvField, QuotesInsideAreDoubled) {
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("\""), "\"\"\"\"");
}

TEST(JsonString, PlainTextIsQuoted) { EXPECT_EQ(json_string("bf16.12_stream_k"), "\"bf16.12_stream_k\""); }

TEST(JsonString, QuoteAndBackslashAreEscaped) {
    EXPECT_EQ(json_string("a\"b"), "\"a\\\"b\"");
    EXPECT_EQ(json_string("C:\\path"), "\"C:\\\\path\"");
}

// RFC 8259 section 7: every character below U+0020 must be escaped.
TEST(JsonString, ControlCharactersAreEscaped) {
    EXPECT_EQ(json_string("a\nb\tc\rd\be\ff"), "\"a\\nb\\tc\\rd\\be\\ff\"");
    EXPECT_EQ(json_string(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
    EXPECT_EQ(json_string(std::string("a\0b", 3)), "\"a\\u0000b\"");
}

// UTF-8 beyond ASCII needs no escape; DEL (0x7f) is not a control character to JSON.
TEST(JsonString, OtherBytesPassThrough) {
    EXPECT_EQ(json_string("\xc2\xb5s \x7f"), "\"\xc2\xb5s \x7f\"");
    EXPECT_EQ(json_string("gemmkit bench \xe2\x80\x94 H100"), "\"gemmkit bench \xe2\x80\x94 H100\"");
}

TEST(CsvNumber, FiniteNumbersAsTheStreamWritesThem) {
    EXPECT_EQ(text_of(csv_number(1.5)), "1.5");
    EXPECT_EQ(text_of(csv_number(0)), "0");
    EXPECT_EQ(text_of(csv_number(-2.25e-7)), "-2.25e-07");
}

TEST(CsvNumber, NonFiniteIsAnEmptyField) {
    EXPECT_EQ(text_of(csv_number(kNaN)), "");
    EXPECT_EQ(text_of(csv_number(-kNaN)), "");
    EXPECT_EQ(text_of(csv_number(kInf)), "");
    EXPECT_EQ(text_of(csv_number(-kInf)), "");
}

TEST(JsonNumber, FiniteNumbersAsTheStreamWritesThem) {
    EXPECT_EQ(text_of(json_number(812.5)), "812.5");
    EXPECT_EQ(text_of(json_number(1e20)), "1e+20");  // a valid JSON number
}

TEST(JsonNumber, NonFiniteIsNull) {
    EXPECT_EQ(text_of(json_number(kNaN)), "null");
    EXPECT_EQ(text_of(json_number(kInf)), "null");
    EXPECT_EQ(text_of(json_number(-kInf)), "null");
}

}  // namespace

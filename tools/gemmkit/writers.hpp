// Fields of the files the gemmkit tool writes (--csv, --json, --samples): one function per kind
// of field, so that every writer quotes, escapes and guards numbers the same way. Pure, header
// only; tested on the host (tests/host/writers_test.cpp).
//
//   CSV (RFC 4180): a text field is written as it is unless it holds a comma, a double quote, CR
//   or LF; then it is enclosed in double quotes, with each quote inside doubled.
//   JSON (RFC 8259): a string escapes '"', '\' and every control character below U+0020 (\b \f
//   \n \r \t by name, the others as \u00XX); other bytes pass through, the text being UTF-8.
//   Non-finite numbers (NaN, +-inf; e.g. a ratio to a time never measured) have no JSON form and
//   no agreed CSV one: JSON gets null, CSV an empty field, which CSV readers take as missing.
//
// A hand-written writer rather than a JSON/CSV library: the tool must build from a clean clone on
// machines with no network and no extra packages (the GPU machine), and these few rules are all
// it needs.
#pragma once

#include <cmath>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gemmkit::cli {

// A CSV field holding `text`, quoted only where RFC 4180 requires it.
inline std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// A JSON string holding `text`, with its quotes.
inline std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    static constexpr char kHex[] = "0123456789abcdef";
                    out += "\\u00";
                    out += kHex[(c >> 4) & 0xf];
                    out += kHex[c & 0xf];
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// `f << csv_number(x)`: x as the stream formats it, or nothing when x is not finite.
struct CsvNumber {
    double value;
};
inline CsvNumber csv_number(double value) { return {value}; }
inline std::ostream& operator<<(std::ostream& os, CsvNumber n) {
    if (std::isfinite(n.value)) os << n.value;
    return os;
}

// `f << json_number(x)`: x as the stream formats it, or null when x is not finite.
struct JsonNumber {
    double value;
};
inline JsonNumber json_number(double value) { return {value}; }
inline std::ostream& operator<<(std::ostream& os, JsonNumber n) {
    if (std::isfinite(n.value)) os << n.value;
    else os << "null";
    return os;
}

// Opens `path` for writing, or throws naming it.
inline std::ofstream open_output(const std::string& path) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    return f;
}

// Flushes `f`, or throws naming `path`: a full disk shows up here, not as a short file.
inline void close_output(std::ofstream& f, const std::string& path) {
    if (!f.flush()) throw std::runtime_error("cannot write " + path + " (written only in part)");
    f.close();
}

}  // namespace gemmkit::cli

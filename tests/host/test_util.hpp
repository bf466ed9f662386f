// Small helpers shared by the host tests, and by the GPU tests that check messages (gmock is not
// linked, so no matchers).
#pragma once

#include <cctype>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "plan/device_facts.hpp"

namespace gemmkit::test {

// EXPECT_TRUE(contains(msg, "lda")) prints both strings when it fails.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& needle) {
    if (text.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << needle << "\"";
}

// EXPECT_TRUE(names(msg, "lda")): `arg` appears in `msg` as a whole identifier ("A" in "A is
// NULL", not in "lda"; "m" in "m differs", not in "comm").
inline ::testing::AssertionResult names(const std::string& msg, const std::string& arg) {
    const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t pos = msg.find(arg); pos != std::string::npos; pos = msg.find(arg, pos + 1)) {
        const bool left_ok = pos == 0 || !ident(msg[pos - 1]);
        const bool right_ok = pos + arg.size() == msg.size() || !ident(msg[pos + arg.size()]);
        if (left_ok && right_ok) return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "\"" << msg << "\" does not name \"" << arg << "\"";
}

// An address that is never dereferenced: argument checks only look at its value.
template <class T>
T* fake_ptr(uintptr_t address) {
    return reinterpret_cast<T*>(address);
}

// The built-in facts of an H100 (what `gemmkit plan` plans for without a GPU).
inline DeviceFacts h100_facts() {
    DeviceFacts d;
    EXPECT_TRUE(builtin_device_facts("h100", &d));
    return d;
}

}  // namespace gemmkit::test

// Small helpers shared by the host tests (gmock is not linked, so no matchers).
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace gemmkit::test {

// EXPECT_TRUE(contains(msg, "lda")) prints both strings when it fails.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& needle) {
    if (text.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << needle << "\"";
}

// An address that is never dereferenced: argument checks only look at its value.
template <class T>
T* fake_ptr(uintptr_t address) {
    return reinterpret_cast<T*>(address);
}

}  // namespace gemmkit::test

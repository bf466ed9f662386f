// The element type the Hopper pipeline carries for FP8 operands (fp8.cuh). The slabs and TMA only
// need its size, one byte; the wgmmas need to know which FP8 format each of A and B holds, since
// one instruction names both (wgmma_slab.cuh). So the type is a pair of formats, not one format.
#pragma once

#include <cstdint>
#include <type_traits>

namespace gemmkit::hopper {

// A's and B's formats: E4M3, or E5M2 where the flag is set.
template <bool kE5M2A_, bool kE5M2B_>
struct Fp8Operands {
    static constexpr bool kE5M2A = kE5M2A_, kE5M2B = kE5M2B_;
    uint8_t bits;
};
static_assert(sizeof(Fp8Operands<false, false>) == 1, "one byte an element, as the slabs count it");

template <class T>
inline constexpr bool is_fp8_operands = false;
template <bool kA, bool kB>
inline constexpr bool is_fp8_operands<Fp8Operands<kA, kB>> = true;

}  // namespace gemmkit::hopper

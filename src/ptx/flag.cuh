// A flag in global memory that one CTA raises and another waits for, at GPU scope: st.release
// makes the raiser's earlier writes (and, through a barrier before it, its block's) visible to
// whoever reads the flag with ld.acquire and then shares that with its own block by a barrier.
// PTX ISA, "Memory Consistency Model" (release and acquire patterns) and "Data Movement and
// Conversion Instructions: ld, st" (.acquire, .release, .gpu).
#pragma once

namespace gemmkit::ptx {

__device__ __forceinline__ void flag_raise(int* flag) {
    asm volatile("st.release.gpu.global.s32 [%0], 1;\n" ::"l"(flag) : "memory");
}

// Spins until *flag is non-zero.
__device__ __forceinline__ void flag_wait(const int* flag) {
    int up = 0;
    for (;;) {
        asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(up) : "l"(flag) : "memory");
        if (up != 0) return;
        __nanosleep(32);
    }
}

}  // namespace gemmkit::ptx

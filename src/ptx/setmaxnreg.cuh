// setmaxnreg (sm_90a): a warpgroup hands registers back to the SM's pool or takes more from it,
// so that warps with little to hold (a copy producer) leave room for warps with large
// accumulator tiles. Takes effect only under a register cap at entry
// (__launch_bounds__(threads, 1)); ptxas warns (C7508) when it cannot honour it.
// PTX ISA, "Miscellaneous Instructions: setmaxnreg". kRegs: 24..256, a multiple of 8.
#pragma once

namespace gemmkit::ptx {

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
    static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
    static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

}  // namespace gemmkit::ptx

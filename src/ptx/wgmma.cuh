// wgmma: warpgroup-wide matrix multiply-accumulate on Hopper's tensor cores (sm_90a). Four
// consecutive warps (a warpgroup) issue one asynchronous instruction that multiplies a 64 x K
// tile of A by a K x N tile of B, both read from shared memory through 64-bit descriptors, into
// a 64 x N FP32 accumulator spread over the warpgroup's registers.
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions":
// wgmma.mma_async, wgmma.fence, wgmma.commit_group, wgmma.wait_group; "Matrix Descriptor
// Format" and "Shared Memory Matrix Layout" for the descriptors.
//
// Accumulator fragment (m64nN, FP32): thread t of the warpgroup, warp w = t / 32, lane l, holds
// d[4j + 2h + c] = D(16w + l/4 + 8h, 8j + 2(l%4) + c) for j < N/8, h, c in {0, 1}: the m16n8
// accumulator of mma.sync, repeated over N/8 column blocks, one 16-row slice per warp.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gemmkit::ptx {

// A shared-memory matrix descriptor for the 128-byte swizzle (the layout TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B): start address, leading- and stride-dimension byte offsets.
// The swizzle pattern repeats every 1024 bytes, so tiles start on 1024-byte boundaries
// (base offset 0); a start address inside a 128-byte row (K-major k-steps) is allowed.
__device__ __forceinline__ uint64_t smem_descriptor_sw128(uint32_t addr, uint32_t lead_bytes, uint32_t stride_bytes) {
    auto encode = [](uint32_t x) { return static_cast<uint64_t>((x & 0x3FFFF) >> 4); };
    return encode(addr) | encode(lead_bytes) << 16 | encode(stride_bytes) << 32 | 1ull << 62;
}

// Orders this thread's earlier register writes (accumulators) before the next wgmma reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Closes the group of wgmma instructions issued since the last commit.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Waits until at most kPending committed groups are unfinished; only then may the accumulators
// be read or the shared tiles of finished groups be overwritten.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// PTX has no range syntax for the accumulator operands: they are written out.
#define GK_WGMMA_D8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define GK_WGMMA_D32 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define GK_WGMMA_D64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GK_WGMMA_D96 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define GK_WGMMA_D128 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

#define GK_WGMMA_F8(d, i)                                                                          \
    "+f"(d[i + 0]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define GK_WGMMA_F32(d, i) GK_WGMMA_F8(d, i), GK_WGMMA_F8(d, i + 8), GK_WGMMA_F8(d, i + 16), GK_WGMMA_F8(d, i + 24)
#define GK_WGMMA_F64(d, i) \
    GK_WGMMA_F8(d, i), GK_WGMMA_F8(d, i + 8), GK_WGMMA_F8(d, i + 16), GK_WGMMA_F8(d, i + 24), \
        GK_WGMMA_F8(d, i + 32), GK_WGMMA_F8(d, i + 40), GK_WGMMA_F8(d, i + 48), GK_WGMMA_F8(d, i + 56)

// One m64nNk16 step with FP16/BF16 inputs: d = a * b + (accumulate ? d : 0). kTransA / kTransB
// select the MN-major layout of A / B in shared memory (K-major otherwise). The inputs follow
// the N/2 accumulators, so their operand numbers are N/2 .. N/2 + 4 ("%128".."%132" for N = 256).
#define GK_WGMMA_16BIT(N, TYPE, REGS, IN0, IN1, IN2, IN3, IN4, ...)                                    \
    asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, " IN2 ", 0;\n"                                  \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" REGS "}, " IN0 ", " \
                 IN1 ", acc, 1, 1, " IN3 ", " IN4 ";\n}\n"                                                \
                 : __VA_ARGS__                                                                          \
                 : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransA ? 1 : 0),  \
                   "n"(kTransB ? 1 : 0))
#define GK_WGMMA_IN_N256 "%128", "%129", "%130", "%131", "%132"
#define GK_WGMMA_IN_N128 "%64", "%65", "%66", "%67", "%68"
#define GK_WGMMA_IN_N64 "%32", "%33", "%34", "%35", "%36"
#define GK_WGMMA_IN_N16 "%8", "%9", "%10", "%11", "%12"
#define GK_WGMMA_IN_N192 "%96", "%97", "%98", "%99", "%100"
#define GK_WGMMA(...) GK_WGMMA_16BIT(__VA_ARGS__)  // expands the IN lists into five arguments first

template <int N, class T, bool kTransA, bool kTransB>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "FP16 or BF16 inputs");
    constexpr bool kF16 = std::is_same_v<T, __half>;
    if constexpr (N == 256 && kF16)
        GK_WGMMA(256, "f16", GK_WGMMA_D128, GK_WGMMA_IN_N256, GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (N == 256)
        GK_WGMMA(256, "bf16", GK_WGMMA_D128, GK_WGMMA_IN_N256, GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (N == 192 && kF16)
        GK_WGMMA(192, "f16", GK_WGMMA_D96, GK_WGMMA_IN_N192, GK_WGMMA_F64(d, 0), GK_WGMMA_F32(d, 64));
    else if constexpr (N == 192)
        GK_WGMMA(192, "bf16", GK_WGMMA_D96, GK_WGMMA_IN_N192, GK_WGMMA_F64(d, 0), GK_WGMMA_F32(d, 64));
    else if constexpr (N == 128 && kF16)
        GK_WGMMA(128, "f16", GK_WGMMA_D64, GK_WGMMA_IN_N128, GK_WGMMA_F64(d, 0));
    else if constexpr (N == 128)
        GK_WGMMA(128, "bf16", GK_WGMMA_D64, GK_WGMMA_IN_N128, GK_WGMMA_F64(d, 0));
    else if constexpr (N == 64 && kF16)
        GK_WGMMA(64, "f16", GK_WGMMA_D32, GK_WGMMA_IN_N64, GK_WGMMA_F32(d, 0));
    else if constexpr (N == 64)
        GK_WGMMA(64, "bf16", GK_WGMMA_D32, GK_WGMMA_IN_N64, GK_WGMMA_F32(d, 0));
    else if constexpr (N == 16 && kF16)
        GK_WGMMA(16, "f16", GK_WGMMA_D8, GK_WGMMA_IN_N16, GK_WGMMA_F8(d, 0));
    else if constexpr (N == 16)
        GK_WGMMA(16, "bf16", GK_WGMMA_D8, GK_WGMMA_IN_N16, GK_WGMMA_F8(d, 0));
    else
        static_assert(N == 16 || N == 64 || N == 128 || N == 192 || N == 256,
                      "instantiated for N = 16, 64, 128, 192 and 256");
}

// One m64nNk8 step with TF32 inputs (FP32 words in memory; the tensor core reads their sign,
// exponent and top 10 mantissa bits), N = 16, 64, 128, 192 or 256. TF32 has no transpose bits: both operands
// are K-major. A from shared memory (desc_a), or from registers: a[i] = A(16w + l/4 + 8 (i % 2),
// l % 4 + 4 (i / 2)) for thread l of warp w, the A fragment of mma.sync m16n8k8 one 16-row slice
// per warp ("Register Fragments and Shared Memory Matrix Layouts", matrix A, .tf32).
// d = a * b + (accumulate ? d : 0), as wgmma_m64k16 (scale-d is a predicate).
#define GK_WGMMA_TF32(N, REGS, A, P, ...)                                                                    \
    asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, " P ", 0;\n"                                          \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" REGS "}, " A ", acc, 1, 1;\n}\n" \
                 : __VA_ARGS__)
template <int N>
__device__ __forceinline__ void wgmma_m64k8_tf32(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    const int acc = accumulate;
    if constexpr (N == 256)
        GK_WGMMA_TF32(256, GK_WGMMA_D128, "%128, %129", "%130", GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64)
                      : "l"(desc_a), "l"(desc_b), "r"(acc));
    else if constexpr (N == 192)
        GK_WGMMA_TF32(192, GK_WGMMA_D96, "%96, %97", "%98", GK_WGMMA_F64(d, 0), GK_WGMMA_F32(d, 64)
                      : "l"(desc_a), "l"(desc_b), "r"(acc));
    else if constexpr (N == 128)
        GK_WGMMA_TF32(128, GK_WGMMA_D64, "%64, %65", "%66", GK_WGMMA_F64(d, 0) : "l"(desc_a), "l"(desc_b), "r"(acc));
    else if constexpr (N == 64)
        GK_WGMMA_TF32(64, GK_WGMMA_D32, "%32, %33", "%34", GK_WGMMA_F32(d, 0) : "l"(desc_a), "l"(desc_b), "r"(acc));
    else if constexpr (N == 16)
        GK_WGMMA_TF32(16, GK_WGMMA_D8, "%8, %9", "%10", GK_WGMMA_F8(d, 0) : "l"(desc_a), "l"(desc_b), "r"(acc));
    else
        static_assert(N == 16 || N == 64 || N == 128 || N == 192 || N == 256,
                      "instantiated for N = 16, 64, 128, 192 and 256");
}

template <int N>
__device__ __forceinline__ void wgmma_m64k8_tf32(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                                 bool accumulate) {
    const int acc = accumulate;
    if constexpr (N == 256)
        GK_WGMMA_TF32(256, GK_WGMMA_D128, "{%128, %129, %130, %131}, %132", "%133", GK_WGMMA_F64(d, 0),
                      GK_WGMMA_F64(d, 64)
                      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(acc));
    else if constexpr (N == 192)
        GK_WGMMA_TF32(192, GK_WGMMA_D96, "{%96, %97, %98, %99}, %100", "%101", GK_WGMMA_F64(d, 0),
                      GK_WGMMA_F32(d, 64)
                      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(acc));
    else if constexpr (N == 128)
        GK_WGMMA_TF32(128, GK_WGMMA_D64, "{%64, %65, %66, %67}, %68", "%69", GK_WGMMA_F64(d, 0)
                      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(acc));
    else if constexpr (N == 64)
        GK_WGMMA_TF32(64, GK_WGMMA_D32, "{%32, %33, %34, %35}, %36", "%37", GK_WGMMA_F32(d, 0)
                      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(acc));
    else if constexpr (N == 16)
        GK_WGMMA_TF32(16, GK_WGMMA_D8, "{%8, %9, %10, %11}, %12", "%13", GK_WGMMA_F8(d, 0)
                      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(acc));
    else
        static_assert(N == 16 || N == 64 || N == 128 || N == 192 || N == 256,
                      "instantiated for N = 16, 64, 128, 192 and 256");
}

// One m64nNk32 step with FP8 inputs (E4M3 or E5M2 each, kE5M2A / kE5M2B), N = 128 or 256:
// d = a * b + (accumulate ? d : 0). FP8 wgmma has no transpose bits: A and B are K-major, as
// for TF32. 32 elements of k are 32 bytes, one quarter of a 128-byte swizzled row.
#define GK_WGMMA_FP8(N, TA, TB, REGS, IN, P, ...)                                                                  \
    asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, " P ", 0;\n"                                                \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." TA "." TB " {" REGS "}, " IN ", acc, 1, 1;\n}\n" \
                 : __VA_ARGS__                                                                                    \
                 : "l"(desc_a), "l"(desc_b), "r"(acc))
template <int N, bool kE5M2A, bool kE5M2B>
__device__ __forceinline__ void wgmma_m64k32_fp8(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                                 bool accumulate) {
    const int acc = accumulate;
    static_assert(N == 128 || N == 256, "instantiated for N = 128 and 256");
    if constexpr (N == 256 && !kE5M2A && !kE5M2B)
        GK_WGMMA_FP8(256, "e4m3", "e4m3", GK_WGMMA_D128, "%128, %129", "%130", GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (N == 256 && kE5M2A && !kE5M2B)
        GK_WGMMA_FP8(256, "e5m2", "e4m3", GK_WGMMA_D128, "%128, %129", "%130", GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (N == 256 && !kE5M2A && kE5M2B)
        GK_WGMMA_FP8(256, "e4m3", "e5m2", GK_WGMMA_D128, "%128, %129", "%130", GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (N == 256)
        GK_WGMMA_FP8(256, "e5m2", "e5m2", GK_WGMMA_D128, "%128, %129", "%130", GK_WGMMA_F64(d, 0), GK_WGMMA_F64(d, 64));
    else if constexpr (!kE5M2A && !kE5M2B)
        GK_WGMMA_FP8(128, "e4m3", "e4m3", GK_WGMMA_D64, "%64, %65", "%66", GK_WGMMA_F64(d, 0));
    else if constexpr (kE5M2A && !kE5M2B)
        GK_WGMMA_FP8(128, "e5m2", "e4m3", GK_WGMMA_D64, "%64, %65", "%66", GK_WGMMA_F64(d, 0));
    else if constexpr (!kE5M2A && kE5M2B)
        GK_WGMMA_FP8(128, "e4m3", "e5m2", GK_WGMMA_D64, "%64, %65", "%66", GK_WGMMA_F64(d, 0));
    else
        GK_WGMMA_FP8(128, "e5m2", "e5m2", GK_WGMMA_D64, "%64, %65", "%66", GK_WGMMA_F64(d, 0));
}

#undef GK_WGMMA_16BIT
#undef GK_WGMMA_TF32
#undef GK_WGMMA_FP8
#undef GK_WGMMA
#undef GK_WGMMA_IN_N256
#undef GK_WGMMA_IN_N128
#undef GK_WGMMA_IN_N64
#undef GK_WGMMA_IN_N192
#undef GK_WGMMA_F64
#undef GK_WGMMA_F32
#undef GK_WGMMA_F8
#undef GK_WGMMA_D128
#undef GK_WGMMA_D96
#undef GK_WGMMA_D64
#undef GK_WGMMA_D32

}  // namespace gemmkit::ptx

// The partial sums of a stream-K piece, device side (Hopper step 8's StreamKSchedule and FP64
// step 08's shares' kernel both run it): a piece adds the sums that earlier pieces of its tile
// left, in TileSumTree's order (stream_k.hpp), and, unless it ends the tile, leaves its own for
// a later piece and raises its flag. A slot holds one group of kThreads threads' accumulators as
// 16-byte vectors (float4 or double2), thread t's at [vector][t], so that a warp's loads and
// stores are whole 512-byte lines; they go through L2 only (.cg), being read once, elsewhere.
#pragma once

#include "kernels/hopper/stream_k.hpp"
#include "ptx/flag.cuh"

namespace gemmkit::hopper {

// The 16-byte vector a slot holds of accumulators of type T, and how to move one in and out.
template <class T>
struct SumVector;
template <>
struct SumVector<float> {
    using type = float4;
    __device__ static void add(float* acc, const float4& v) { acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w; }
    __device__ static float4 of(const float* acc) { return make_float4(acc[0], acc[1], acc[2], acc[3]); }
};
template <>
struct SumVector<double> {
    using type = double2;
    __device__ static void add(double* acc, const double2& v) { acc[0] += v.x, acc[1] += v.y; }
    __device__ static double2 of(const double* acc) { return make_double2(acc[0], acc[1]); }
};

// After a piece of kThreads threads (t: this thread's place among them) has run its slabs into
// acc: adds the earlier pieces' sums it owes (earlier piece i's slot is slot_of(i), its flag
// ready[slot_of(i)]), and returns true where acc then holds the tile's whole sum; else leaves acc
// in slot `own` and returns false. sync() is the barrier of the kThreads threads.
template <int kThreads, int kAccs, class T, class SlotOf, class Sync>
__device__ __forceinline__ bool settle_tile_sums(const TileSumTree& tree, T* acc, int t, SlotOf slot_of, int own,
                                                 typename SumVector<T>::type* partials, int* ready, Sync sync) {
    using V = SumVector<T>;
    constexpr int kLanes = sizeof(typename V::type) / sizeof(T), kVecs = kAccs / kLanes;
    constexpr int kGroup = kVecs < 8 ? kVecs : 8;  // loads in flight: 32 registers, not all of acc's
    static_assert(kAccs % kLanes == 0 && kVecs % kGroup == 0, "whole groups of vectors");
    for (int a = tree.first(); a >= 0; a = tree.next(a)) {
        const int slot = slot_of(a);
        if (t == 0) ptx::flag_wait(ready + slot);
        sync();  // every thread may read them now
        const typename V::type* sums = partials + static_cast<size_t>(slot) * kVecs * kThreads;
#pragma unroll
        for (int i0 = 0; i0 < kVecs; i0 += kGroup) {
            typename V::type v[kGroup];
#pragma unroll
            for (int i = 0; i < kGroup; ++i) v[i] = __ldcg(sums + (i0 + i) * kThreads + t);
#pragma unroll
            for (int i = 0; i < kGroup; ++i) V::add(acc + kLanes * (i0 + i), v[i]);
        }
    }
    if (tree.ends_tile) return true;
    // Not the tile's end: leave the sums (this piece's and those it added) for a later piece.
    typename V::type* sums = partials + static_cast<size_t>(own) * kVecs * kThreads;
#pragma unroll
    for (int i = 0; i < kVecs; ++i) __stcg(sums + i * kThreads + t, V::of(acc + kLanes * i));
    sync();  // every thread's sums are written
    if (t == 0) ptx::flag_raise(ready + own);
    return false;
}

}  // namespace gemmkit::hopper

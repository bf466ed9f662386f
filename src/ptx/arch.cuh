// Which Hopper instructions a compilation pass may emit. nvcc compiles device code once per
// target in CMAKE_CUDA_ARCHITECTURES; wgmma and setmaxnreg exist only on sm_90a, TMA, mbarrier
// transactions, clusters and the FP64 m16n8k8 mma only from sm_90. The Hopper kernels keep their bodies for the host
// pass and sm_90a and trap elsewhere, so that a build for another GPU (README:
// -DCMAKE_CUDA_ARCHITECTURES=80) still compiles; their launcher checks which image was loaded
// (hopper::hopper_code_loaded) and never starts a trapping one.
#pragma once

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMMKIT_HOPPER_CODE 1  // host pass, or device pass for sm_90a
#else
#define GEMMKIT_HOPPER_CODE 0
#endif

// The same for what sm_90 itself has (the FP64 m16n8k8 mma, mbarrier waits by parity): the
// DMMA kernel's body (its launcher asks cudaFuncGetAttributes for PTX 9.0).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GEMMKIT_SM90_CODE 1
#else
#define GEMMKIT_SM90_CODE 0
#endif

// __cluster_dims__ is an error below sm_90.
#if GEMMKIT_SM90_CODE
#define GEMMKIT_CLUSTER_DIMS(x, y, z) __cluster_dims__(x, y, z)
#else
#define GEMMKIT_CLUSTER_DIMS(x, y, z)
#endif

// gemmkit._C: the C API, one call per function, for the Python layer (python/gemmkit/).
//
// Arrays arrive already described as raw device addresses, sizes, leading dimensions and
// gemmkit dtypes: the Python layer reads them from torch tensors, __cuda_array_interface__ or
// DLPack (dlpack_view below), checks them, and maps row-major to column-major. This file adds
// no policy; the C API checks every argument again before any device work.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "gemmkit/gemmkit.h"

namespace nb = nanobind;

namespace {

// DLPack's C ABI (dlpack.h, v0.8 and v1.x), the fields read here.
struct DLDevice {
    int32_t device_type;
    int32_t device_id;
};
struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
};
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};
constexpr uint64_t kDLFlagReadOnly = 1;

// The current device for the duration of one call, restored after (torch and CuPy keep their
// own notion of the current device; a call must not change it under them).
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        if (device < 0 || cudaGetDevice(&previous_) != cudaSuccess || previous_ == device) {
            previous_ = -1;
            return;
        }
        if (cudaSetDevice(device) != cudaSuccess) previous_ = -1;
    }
    ~DeviceScope() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = -1;
};

// alpha and beta as the C API takes them: pointers to values of the compute type (double for
// GEMMKIT_COMPUTE_64F, float otherwise).
struct Scalars {
    Scalars(double a, double b, int compute)
        : f64(compute == GEMMKIT_COMPUTE_64F), a64(a), b64(b), a32(static_cast<float>(a)), b32(static_cast<float>(b)) {}
    const void* alpha() const { return f64 ? static_cast<const void*>(&a64) : static_cast<const void*>(&a32); }
    const void* beta() const { return f64 ? static_cast<const void*>(&b64) : static_cast<const void*>(&b32); }
    bool f64;
    double a64, b64;
    float a32, b32;
};

// gemmkit_gemm_ex with addresses as integers; returns the gemmkit_status (the Python layer
// raises, with gemmkit_last_error(), read on this same thread).
int gemm(uintptr_t stream, int device, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
         uintptr_t A, int a_type, int64_t lda, uintptr_t B, int b_type, int64_t ldb, double beta, uintptr_t C,
         int c_type, int64_t ldc, int compute, const std::optional<std::string>& kernel) {
    const Scalars s(alpha, beta, compute);
    DeviceScope scope(device);
    return gemmkit_gemm_ex(reinterpret_cast<cudaStream_t>(stream), static_cast<gemmkit_op>(transa),
                           static_cast<gemmkit_op>(transb), m, n, k, s.alpha(), reinterpret_cast<const void*>(A),
                           static_cast<gemmkit_dtype>(a_type), lda, reinterpret_cast<const void*>(B),
                           static_cast<gemmkit_dtype>(b_type), ldb, s.beta(), reinterpret_cast<void*>(C),
                           static_cast<gemmkit_dtype>(c_type), ldc, static_cast<gemmkit_compute>(compute),
                           kernel ? kernel->c_str() : nullptr);
}

// gemmkit_gemm_strided_batched_ex likewise: problem z of batch_count reads A + z*stride_a and
// B + z*stride_b and writes C + z*stride_c (strides in elements, 0 for one operand shared by
// every problem); returns the gemmkit_status.
int gemm_strided_batched(uintptr_t stream, int device, int transa, int transb, int64_t m, int64_t n, int64_t k,
                         double alpha, uintptr_t A, int a_type, int64_t lda, int64_t stride_a, uintptr_t B,
                         int b_type, int64_t ldb, int64_t stride_b, double beta, uintptr_t C, int c_type, int64_t ldc,
                         int64_t stride_c, int64_t batch_count, int compute, const std::optional<std::string>& kernel) {
    const Scalars s(alpha, beta, compute);
    DeviceScope scope(device);
    return gemmkit_gemm_strided_batched_ex(
        reinterpret_cast<cudaStream_t>(stream), static_cast<gemmkit_op>(transa), static_cast<gemmkit_op>(transb), m,
        n, k, s.alpha(), reinterpret_cast<const void*>(A), static_cast<gemmkit_dtype>(a_type), lda, stride_a,
        reinterpret_cast<const void*>(B), static_cast<gemmkit_dtype>(b_type), ldb, stride_b, s.beta(),
        reinterpret_cast<void*>(C), static_cast<gemmkit_dtype>(c_type), ldc, stride_c, batch_count,
        static_cast<gemmkit_compute>(compute), kernel ? kernel->c_str() : nullptr);
}

// gemmkit_gemm_epilogue_ex likewise, with a fused epilogue: C = activation(alpha op(A) op(B) +
// beta C + bias per row of C), bias (m values of C's type) and aux (the pre-activation, ld_aux)
// 0 where absent; returns the gemmkit_status.
int gemm_epilogue(uintptr_t stream, int device, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                  uintptr_t A, int a_type, int64_t lda, uintptr_t B, int b_type, int64_t ldb, double beta, uintptr_t C,
                  int c_type, int64_t ldc, int compute, int activation, uintptr_t bias, uintptr_t aux, int64_t ld_aux,
                  const std::optional<std::string>& kernel) {
    const Scalars s(alpha, beta, compute);
    DeviceScope scope(device);
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.activation = static_cast<gemmkit_activation>(activation);
    e.bias = reinterpret_cast<const void*>(bias);
    e.bias_type = e.aux_type = static_cast<gemmkit_dtype>(c_type);
    e.aux = reinterpret_cast<void*>(aux);
    e.ld_aux = ld_aux;
    return gemmkit_gemm_epilogue_ex(reinterpret_cast<cudaStream_t>(stream), static_cast<gemmkit_op>(transa),
                                    static_cast<gemmkit_op>(transb), m, n, k, s.alpha(), reinterpret_cast<const void*>(A),
                                    static_cast<gemmkit_dtype>(a_type), lda, reinterpret_cast<const void*>(B),
                                    static_cast<gemmkit_dtype>(b_type), ldb, s.beta(), reinterpret_cast<void*>(C),
                                    static_cast<gemmkit_dtype>(c_type), ldc, static_cast<gemmkit_compute>(compute), &e,
                                    kernel ? kernel->c_str() : nullptr);
}

// gemmkit_gemm_grouped_ex likewise: group g of group_count multiplies C's columns ends[g - 1] ..
// ends[g] - 1 (ends: a device array of int32) by A + g*stride_a, adding bias + g*bias_stride (0:
// no bias); returns the gemmkit_status.
int gemm_grouped(uintptr_t stream, int device, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                 uintptr_t A, int a_type, int64_t lda, int64_t stride_a, uintptr_t B, int b_type, int64_t ldb,
                 double beta, uintptr_t C, int c_type, int64_t ldc, uintptr_t ends, int64_t group_count, int compute,
                 uintptr_t bias, int64_t bias_stride, const std::optional<std::string>& kernel) {
    const Scalars s(alpha, beta, compute);
    DeviceScope scope(device);
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.bias = reinterpret_cast<const void*>(bias);
    e.bias_type = static_cast<gemmkit_dtype>(c_type);
    e.bias_stride = bias_stride;
    return gemmkit_gemm_grouped_ex(
        reinterpret_cast<cudaStream_t>(stream), static_cast<gemmkit_op>(transa), static_cast<gemmkit_op>(transb), m,
        n, k, s.alpha(), reinterpret_cast<const void*>(A), static_cast<gemmkit_dtype>(a_type), lda, stride_a,
        reinterpret_cast<const void*>(B), static_cast<gemmkit_dtype>(b_type), ldb, s.beta(), reinterpret_cast<void*>(C),
        static_cast<gemmkit_dtype>(c_type), ldc, reinterpret_cast<const int32_t*>(ends), group_count,
        static_cast<gemmkit_compute>(compute), bias != 0 ? &e : nullptr, kernel ? kernel->c_str() : nullptr);
}

// gemmkit_gemm_scaled_ex likewise: FP8 A (op T) and B (op N) with scales on the device (0: none;
// mode 0 per tensor, 1 outer; fast_accum as gemmkit_scaling's), a bias per row of C (0: none);
// returns the gemmkit_status.
int gemm_scaled(uintptr_t stream, int device, int64_t m, int64_t n, int64_t k, double alpha, uintptr_t A, int a_type,
                int64_t lda, uintptr_t B, int b_type, int64_t ldb, double beta, uintptr_t C, int c_type, int64_t ldc,
                int mode, uintptr_t scale_a, uintptr_t scale_b, bool fast_accum, uintptr_t bias,
                const std::optional<std::string>& kernel) {
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    DeviceScope scope(device);
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;
    scaling.mode = static_cast<gemmkit_scale_mode>(mode);
    scaling.scale_a = reinterpret_cast<const float*>(scale_a);
    scaling.scale_b = reinterpret_cast<const float*>(scale_b);
    scaling.fast_accum = fast_accum ? 1 : 0;
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.bias = reinterpret_cast<const void*>(bias);
    e.bias_type = static_cast<gemmkit_dtype>(c_type);
    return gemmkit_gemm_scaled_ex(reinterpret_cast<cudaStream_t>(stream), GEMMKIT_OP_T, GEMMKIT_OP_N, m, n, k, &a,
                                  reinterpret_cast<const void*>(A), static_cast<gemmkit_dtype>(a_type), lda,
                                  reinterpret_cast<const void*>(B), static_cast<gemmkit_dtype>(b_type), ldb, &b,
                                  reinterpret_cast<void*>(C), static_cast<gemmkit_dtype>(c_type), ldc, &scaling,
                                  bias != 0 ? &e : nullptr, kernel ? kernel->c_str() : nullptr);
}

// gemmkit_quantize_fp8: x (k x mn, ld ldx) into FP8 q (ld ldq) and its scales (mode 0 per
// tensor, 1 per column); returns the gemmkit_status.
int quantize_fp8(uintptr_t stream, int device, int64_t k, int64_t mn, uintptr_t x, int x_type, int64_t ldx,
                 uintptr_t q, int q_type, int64_t ldq, int mode, uintptr_t scales) {
    DeviceScope scope(device);
    return gemmkit_quantize_fp8(reinterpret_cast<cudaStream_t>(stream), k, mn, reinterpret_cast<const void*>(x),
                                static_cast<gemmkit_dtype>(x_type), ldx, reinterpret_cast<void*>(q),
                                static_cast<gemmkit_dtype>(q_type), ldq, static_cast<gemmkit_scale_mode>(mode),
                                reinterpret_cast<float*>(scales));
}

// For scripts/python-overhead: `iters` back-to-back calls of gemm() with these arguments,
// timed with CUDA events on `stream`; returns milliseconds per call. The C API's own time, with
// no Python between calls, to compare the Python entry points against.
double time_gemm(int iters, uintptr_t stream, int device, int transa, int transb, int64_t m, int64_t n, int64_t k,
                 double alpha, uintptr_t A, int a_type, int64_t lda, uintptr_t B, int b_type, int64_t ldb,
                 double beta, uintptr_t C, int c_type, int64_t ldc, int compute,
                 const std::optional<std::string>& kernel) {
    if (iters < 1) throw nb::value_error("iters must be at least 1");
    DeviceScope scope(device);
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaError_t err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    if (err == cudaSuccess) err = cudaEventRecord(start, s);
    int status = 0;
    for (int i = 0; i < iters && err == cudaSuccess && status == 0; ++i)
        status = gemm(stream, -1, transa, transb, m, n, k, alpha, A, a_type, lda, B, b_type, ldb, beta, C, c_type,
                      ldc, compute, kernel);
    if (err == cudaSuccess) err = cudaEventRecord(stop, s);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    if (status != 0) throw std::runtime_error(std::string("gemmkit: ") + gemmkit_last_error());
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error(std::string("gemmkit: timing failed: ") + cudaGetErrorString(err));
    }
    return ms / iters;
}

using DLView = std::tuple<uintptr_t, std::vector<int64_t>, std::optional<std::vector<int64_t>>, int, int, int, int,
                          int, bool>;

DLView describe(const DLTensor& t, bool read_only) {
    std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
    std::optional<std::vector<int64_t>> strides;
    if (t.strides != nullptr) strides.emplace(t.strides, t.strides + t.ndim);
    const uintptr_t data = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
    return {data,          shape,         strides, t.dtype.code, t.dtype.bits, t.dtype.lanes, t.device.device_type,
            t.device.device_id, read_only};
}

// Reads a DLPack capsule ("dltensor" or "dltensor_versioned") and releases it at once: the
// address stays valid while the array it came from lives, which the caller holds on to.
// Returns (address incl. byte_offset, shape, strides or None, dtype code, bits, lanes,
// device type, device id, read-only).
DLView dlpack_view(nb::handle capsule) {
    PyObject* o = capsule.ptr();
    if (PyCapsule_IsValid(o, "dltensor_versioned")) {
        auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(o, "dltensor_versioned"));
        if (m->version.major != 1) throw nb::type_error("DLPack: only major version 1 of the versioned ABI is read");
        DLView view = describe(m->dl_tensor, (m->flags & kDLFlagReadOnly) != 0);
        PyCapsule_SetName(o, "used_dltensor_versioned");
        if (m->deleter != nullptr) m->deleter(m);
        return view;
    }
    if (PyCapsule_IsValid(o, "dltensor")) {
        auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(o, "dltensor"));
        DLView view = describe(m->dl_tensor, false);
        PyCapsule_SetName(o, "used_dltensor");
        if (m->deleter != nullptr) m->deleter(m);
        return view;
    }
    throw nb::type_error("not an unused DLPack capsule (\"dltensor\" or \"dltensor_versioned\")");
}

// The device that owns `ptr` (cudaPointerGetAttributes), or -1 for memory CUDA does not know.
int pointer_device(uintptr_t ptr) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return attr.type == cudaMemoryTypeUnregistered ? -1 : attr.device;
}

// Makes `waiter` wait for the work queued so far on `producer` (__cuda_array_interface__'s
// stream): an event recorded on one, waited on by the other. Raises RuntimeError on failure.
void stream_wait(uintptr_t waiter, uintptr_t producer, int device) {
    DeviceScope scope(device);
    cudaEvent_t event = nullptr;
    cudaError_t err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
    if (err == cudaSuccess) err = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(waiter), event, 0);
    if (event != nullptr) cudaEventDestroy(event);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error(std::string("gemmkit: waiting for the array's stream failed: ") +
                                 cudaGetErrorString(err));
    }
}

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (int i = 0; i < gemmkit_kernel_count(); ++i) names.emplace_back(gemmkit_kernel_name(i));
    return names;
}

}  // namespace

NB_MODULE(_C, m) {
    m.doc() = "gemmkit's C API for the Python layer (use the gemmkit package, not this module)";
    m.def("gemm", &gemm, nb::arg("stream"), nb::arg("device"), nb::arg("transa"), nb::arg("transb"), nb::arg("m"),
          nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("A"), nb::arg("a_type"), nb::arg("lda"), nb::arg("B"),
          nb::arg("b_type"), nb::arg("ldb"), nb::arg("beta"), nb::arg("C"), nb::arg("c_type"), nb::arg("ldc"),
          nb::arg("compute"), nb::arg("kernel").none());
    m.def("gemm_strided_batched", &gemm_strided_batched, nb::arg("stream"), nb::arg("device"), nb::arg("transa"),
          nb::arg("transb"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("A"),
          nb::arg("a_type"), nb::arg("lda"), nb::arg("stride_a"), nb::arg("B"), nb::arg("b_type"), nb::arg("ldb"),
          nb::arg("stride_b"), nb::arg("beta"), nb::arg("C"), nb::arg("c_type"), nb::arg("ldc"), nb::arg("stride_c"),
          nb::arg("batch_count"), nb::arg("compute"), nb::arg("kernel").none());
    m.def("gemm_epilogue", &gemm_epilogue, nb::arg("stream"), nb::arg("device"), nb::arg("transa"), nb::arg("transb"),
          nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("A"), nb::arg("a_type"), nb::arg("lda"),
          nb::arg("B"), nb::arg("b_type"), nb::arg("ldb"), nb::arg("beta"), nb::arg("C"), nb::arg("c_type"),
          nb::arg("ldc"), nb::arg("compute"), nb::arg("activation"), nb::arg("bias"), nb::arg("aux"),
          nb::arg("ld_aux"), nb::arg("kernel").none());
    m.def("gemm_grouped", &gemm_grouped, nb::arg("stream"), nb::arg("device"), nb::arg("transa"), nb::arg("transb"),
          nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("A"), nb::arg("a_type"), nb::arg("lda"),
          nb::arg("stride_a"), nb::arg("B"), nb::arg("b_type"), nb::arg("ldb"), nb::arg("beta"), nb::arg("C"),
          nb::arg("c_type"), nb::arg("ldc"), nb::arg("ends"), nb::arg("group_count"), nb::arg("compute"),
          nb::arg("bias"), nb::arg("bias_stride"), nb::arg("kernel").none());
    m.def("gemm_scaled", &gemm_scaled, nb::arg("stream"), nb::arg("device"), nb::arg("m"), nb::arg("n"),
          nb::arg("k"), nb::arg("alpha"), nb::arg("A"), nb::arg("a_type"), nb::arg("lda"), nb::arg("B"),
          nb::arg("b_type"), nb::arg("ldb"), nb::arg("beta"), nb::arg("C"), nb::arg("c_type"), nb::arg("ldc"),
          nb::arg("mode"), nb::arg("scale_a"), nb::arg("scale_b"), nb::arg("fast_accum"), nb::arg("bias"),
          nb::arg("kernel").none());
    m.def("quantize_fp8", &quantize_fp8, nb::arg("stream"), nb::arg("device"), nb::arg("k"), nb::arg("mn"),
          nb::arg("x"), nb::arg("x_type"), nb::arg("ldx"), nb::arg("q"), nb::arg("q_type"), nb::arg("ldq"),
          nb::arg("mode"), nb::arg("scales"));
    m.def("time_gemm", &time_gemm, nb::arg("iters"), nb::arg("stream"), nb::arg("device"), nb::arg("transa"),
          nb::arg("transb"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("alpha"), nb::arg("A"),
          nb::arg("a_type"), nb::arg("lda"), nb::arg("B"), nb::arg("b_type"), nb::arg("ldb"), nb::arg("beta"),
          nb::arg("C"), nb::arg("c_type"), nb::arg("ldc"), nb::arg("compute"), nb::arg("kernel").none());
    m.def("last_error", [] { return std::string(gemmkit_last_error()); });
    m.def("status_string", [](int s) { return std::string(gemmkit_status_string(static_cast<gemmkit_status>(s))); });
    m.def("version", &gemmkit_version);
    m.def("header_version", [] { return GEMMKIT_VERSION; });
    m.def("kernel_names", &kernel_names);
    m.def("dlpack_view", &dlpack_view, nb::arg("capsule"));
    m.def("pointer_device", &pointer_device, nb::arg("ptr"));
    m.def("stream_wait", &stream_wait, nb::arg("waiter"), nb::arg("producer"), nb::arg("device"));
    m.def("device_count", &device_count);
}

"""gemm, matmul, bmm and linear over device arrays: torch tensors, CuPy arrays, anything with
__cuda_array_interface__ or DLPack (JAX, ...).

Row-major, like PyTorch: a (M, K) times b (K, N) gives (M, N). The library is column-major
(cuBLAS semantics); a row-major matrix is the transpose of the column-major one in the same
memory, so each call is mapped by strides alone, without copies: an operand whose last
dimension has stride 1 is read as stored, one whose first dimension has stride 1 (a transposed
view such as ``weight.T``) is read with the library's op T. An input with neither (a view
with steps in both dimensions, a stride of 0 from ``expand``) is copied first for torch and
CuPy arrays and rejected for other producers; ``out`` must have one of the two layouts.

Leading batch dimensions are one strided-batched GEMM (gemmkit_gemm_strided_batched_ex) where
each operand steps by one stride over them, a stride of 0 for a broadcast operand; matmul says
what happens where they do not.

Every argument is checked here before any device work, and the C API checks again. Errors
raise ``ValueError`` (a bad value) or ``TypeError`` (a type or kind of array gemmkit does not
take), carrying gemmkit's message; ``RuntimeError`` subclasses report CUDA failures.
"""

import itertools
import sys

from . import _C

# gemmkit_dtype and gemmkit_compute (gemmkit.h).
R_32F, R_64F, R_16F, R_16BF = 0, 1, 2, 3
COMPUTE_32F, COMPUTE_32F_FAST_TF32, COMPUTE_64F = 0, 1, 2
_DTYPE_NAME = {R_32F: "float32", R_64F: "float64", R_16F: "float16", R_16BF: "bfloat16"}
_ITEMSIZE = {R_32F: 4, R_64F: 8, R_16F: 2, R_16BF: 2}
_COMPUTE = {"32f": COMPUTE_32F, "tf32": COMPUTE_32F_FAST_TF32, "64f": COMPUTE_64F}
_CAI_TYPESTR = {"<f4": R_32F, "<f8": R_64F, "<f2": R_16F}
_DLPACK_CUDA, _DLPACK_CUDA_MANAGED = 2, 13
_ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")
# gemmkit_activation (gemmkit.h) of each name: 'gelu' is PyTorch's default, the erf form.
_ACTIVATION_CODE = {None: 0, "relu": 1, "gelu_tanh": 2, "gelu": 3, "silu": 4}

# gemmkit_status (gemmkit.h).
_INVALID_VALUE, _NOT_SUPPORTED, _CUDA_ERROR, _ALLOC_FAILED, _UNKNOWN_KERNEL = 1, 2, 3, 4, 5


class GemmkitError(Exception):
    """A failed gemmkit call; ``status`` is the C API's status name."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class InvalidValueError(GemmkitError, ValueError):
    """GEMMKIT_INVALID_VALUE or GEMMKIT_UNKNOWN_KERNEL: a bad argument, named in the message."""


class NotSupportedError(GemmkitError, NotImplementedError):
    """GEMMKIT_NOT_SUPPORTED: valid, but no (chosen) kernel serves it on this device."""


class CudaError(GemmkitError, RuntimeError):
    """GEMMKIT_CUDA_ERROR or GEMMKIT_ALLOC_FAILED: the CUDA runtime failed."""


def _raise_status(status):
    message = _C.last_error()
    name = _C.status_string(status)
    text = f"{name}: {message}" if message else name
    if status in (_INVALID_VALUE, _UNKNOWN_KERNEL):
        raise InvalidValueError(text, name)
    if status == _NOT_SUPPORTED:
        raise NotSupportedError(text, name)
    raise CudaError(text, name)


class _View:
    """A device array as the C API sees it: address, shape, strides in elements, gemmkit dtype."""

    __slots__ = ("obj", "kind", "ptr", "shape", "strides", "dtype", "device", "stream", "readonly")

    def __init__(self, obj, kind, ptr, shape, strides, dtype, device, stream=None, readonly=False):
        self.obj, self.kind, self.ptr = obj, kind, ptr
        self.shape, self.strides, self.dtype = tuple(shape), tuple(strides), dtype
        self.device, self.stream, self.readonly = device, stream, readonly

    def matrix(self, index_offset, transpose=False):
        """The last two dimensions at element offset index_offset, optionally transposed."""
        (r, c), (s0, s1) = self.shape[-2:], self.strides[-2:]
        ptr = self.ptr + index_offset * _ITEMSIZE[self.dtype]
        if transpose:
            return ptr, (c, r), (s1, s0)
        return ptr, (r, c), (s0, s1)


def _torch():
    return sys.modules.get("torch")


def _is_torch(x):
    torch = _torch()
    return torch is not None and isinstance(x, torch.Tensor)


def _is_cupy(x):
    return type(x).__module__.split(".", 1)[0] == "cupy"


_TORCH_DTYPES = None


def _torch_dtypes():
    global _TORCH_DTYPES
    if _TORCH_DTYPES is None:
        torch = _torch()
        _TORCH_DTYPES = {torch.float32: R_32F, torch.float64: R_64F, torch.float16: R_16F, torch.bfloat16: R_16BF}
    return _TORCH_DTYPES


def _contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _view(x, name, dlpack_stream):
    """Describes x; raises TypeError for what is not a CUDA array of a served dtype."""
    if _is_torch(x):
        if not x.is_cuda:
            raise TypeError(f"{name} is on {x.device}; gemmkit takes CUDA device arrays")
        dtype = _torch_dtypes().get(x.dtype)
        if dtype is None:
            raise TypeError(f"{name} has dtype {x.dtype}; gemmkit serves float32, float64, float16 and bfloat16")
        return _View(x, "torch", x.data_ptr(), x.shape, x.stride(), dtype, x.get_device())
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai["typestr"]
        dtype = _CAI_TYPESTR.get(typestr)
        if dtype is None:
            raise TypeError(f"{name} has typestr {typestr!r}; gemmkit serves <f4, <f8 and <f2 through "
                            f"__cuda_array_interface__ (bfloat16 through DLPack)")
        shape = tuple(cai["shape"])
        ptr, readonly = cai["data"]
        strides = cai.get("strides")
        if strides is None:
            strides = _contiguous_strides(shape)
        else:
            item = _ITEMSIZE[dtype]
            if any(s % item for s in strides):
                raise ValueError(f"{name} has strides {tuple(strides)} bytes, not whole {_DTYPE_NAME[dtype]} elements")
            strides = tuple(s // item for s in strides)
        device = _C.pointer_device(ptr) if ptr else -1
        if ptr and device < 0:
            raise TypeError(f"{name}'s __cuda_array_interface__ address is not device memory")
        return _View(x, "cupy" if _is_cupy(x) else "cai", ptr, shape, strides, dtype, device,
                     cai.get("stream"), bool(readonly))
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        device_type, device_id = x.__dlpack_device__()
        if int(device_type) not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            raise TypeError(f"{name} is not on a CUDA device (DLPack device type {int(device_type)}); "
                            f"gemmkit takes CUDA device arrays")
        try:
            capsule = x.__dlpack__(stream=dlpack_stream, max_version=(1, 0))
        except TypeError:  # a producer older than DLPack 1.0 takes no max_version
            capsule = x.__dlpack__(stream=dlpack_stream)
        ptr, shape, strides, code, bits, lanes, _, dev, readonly = _C.dlpack_view(capsule)
        dtype = {(2, 32): R_32F, (2, 64): R_64F, (2, 16): R_16F, (4, 16): R_16BF}.get((code, bits))
        if dtype is None or lanes != 1:
            raise TypeError(f"{name} has DLPack dtype (code {code}, {bits} bits, {lanes} lanes); gemmkit "
                            f"serves float32, float64, float16 and bfloat16")
        if strides is None:
            strides = _contiguous_strides(shape)
        return _View(x, "dlpack", ptr, shape, strides, dtype, dev, None, readonly)
    raise TypeError(f"{name} is a {type(x).__module__}.{type(x).__qualname__}, not a device array (gemmkit takes "
                    f"torch tensors and arrays with __cuda_array_interface__ or __dlpack__)")


def _stream_handle(stream, name="stream"):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"{name} is a {type(stream).__qualname__}; pass an int (cudaStream_t), a torch.cuda.Stream "
                    f"or a cupy.cuda.Stream")


def _default_stream(first, device):
    """The stream the producer of `first` would use: torch's or CuPy's current one, else 0."""
    if _is_torch(first):
        torch = _torch()
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(device) if raw is not None else torch.cuda.current_stream(device).cuda_stream
    if _is_cupy(first):
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def _dlpack_stream(stream):
    # DLPack's stream argument for CUDA: 1 names the legacy default stream (0 is not allowed).
    return 1 if stream == 0 else stream


def _as_colmajor(shape, strides):
    """(t, ld): the matrix is op(D) of the column-major D with leading dimension ld, op T if t.
    None when neither dimension has stride 1 (or the other stride is too small to be a layout)."""
    (r, c), (s0, s1) = shape, strides
    if (c <= 1 or s1 == 1) and (r <= 1 or s0 >= max(1, c)):
        return True, (s0 if r > 1 else max(1, c))  # row-major: D = X^T, c rows of leading dimension s0
    if (r <= 1 or s0 == 1) and (c <= 1 or s1 >= max(1, r)):
        return False, (s1 if c > 1 else max(1, r))  # column-major: D = X
    return None


def _compute_for(dtype, compute, c_dtype):
    """Checks the type combination (gemmkit.h) and returns the gemmkit_compute."""
    if compute is None:
        code = COMPUTE_64F if dtype == R_64F else COMPUTE_32F
    else:
        code = _COMPUTE.get(compute) if isinstance(compute, str) else None
        if code is None:
            raise ValueError(f"compute = {compute!r}; use None, '32f', 'tf32' or '64f'")
    if dtype == R_32F:
        ok_c, ok_compute = (R_32F,), (COMPUTE_32F, COMPUTE_32F_FAST_TF32)
    elif dtype == R_64F:
        ok_c, ok_compute = (R_64F,), (COMPUTE_64F,)
    else:
        ok_c, ok_compute = (dtype, R_32F), (COMPUTE_32F,)
    if c_dtype not in ok_c:
        raise TypeError(f"out has dtype {_DTYPE_NAME[c_dtype]}; with {_DTYPE_NAME[dtype]} inputs it must be "
                        + " or ".join(_DTYPE_NAME[t] for t in ok_c))
    if code not in ok_compute:
        raise TypeError(f"compute = {compute!r} does not serve {_DTYPE_NAME[dtype]} inputs; use "
                        + " or ".join(repr(k) for k, v in _COMPUTE.items() if v in ok_compute))
    return code


def _check_kernel(kernel):
    if kernel is not None and not isinstance(kernel, str):
        raise TypeError(f"kernel is a {type(kernel).__qualname__}; pass a name from gemmkit.kernels() or 'auto'")
    return kernel


def _batch_shape(a_shape, b_shape):
    """Broadcast batch dimensions of a (..., M, K) and b (..., K, N), as torch.matmul does."""
    a_b, b_b = a_shape[:-2], b_shape[:-2]
    n = max(len(a_b), len(b_b))
    a_b, b_b = (1,) * (n - len(a_b)) + tuple(a_b), (1,) * (n - len(b_b)) + tuple(b_b)
    out = []
    for i, (x, y) in enumerate(zip(a_b, b_b)):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"batch dimensions {tuple(a_shape[:-2])} of a and {tuple(b_shape[:-2])} of b do not "
                             f"broadcast (dimension {i}: {x} and {y})")
        out.append(max(x, y))
    return tuple(out)


def check_matmul(a_shape, a_dtype_name, b_shape, b_dtype_name, names=("a", "b")):
    """Shape and dtype rules of matmul, without touching data (shared with the fake tensors).
    Returns the result shape."""
    an, bn = names
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise ValueError(f"{an} has shape {tuple(a_shape)} and {bn} {tuple(b_shape)}; gemmkit needs matrices "
                         f"(2 or more dimensions; add a dimension of 1 for a vector)")
    if a_shape[-1] != b_shape[-2]:
        raise ValueError(f"{an} is {tuple(a_shape)} and {bn} is {tuple(b_shape)}: {an}'s last dimension "
                         f"({a_shape[-1]}) must equal {bn}'s second-to-last ({b_shape[-2]})")
    if a_dtype_name != b_dtype_name:
        raise TypeError(f"{an} is {a_dtype_name} and {bn} is {b_dtype_name}; gemmkit multiplies matrices of one type")
    return _batch_shape(a_shape, b_shape) + (a_shape[-2], b_shape[-1])


def check_linear(x_shape, x_dtype_name, w_shape, w_dtype_name, bias_shape=None, bias_dtype_name=None):
    """Shape and dtype rules of linear; returns the result shape."""
    if len(x_shape) < 1 or len(w_shape) != 2:
        raise ValueError(f"x has shape {tuple(x_shape)} and weight {tuple(w_shape)}; linear needs x (..., in) "
                         f"and weight (out, in)")
    if x_shape[-1] != w_shape[1]:
        raise ValueError(f"x's last dimension ({x_shape[-1]}) must equal weight's second ({w_shape[1]}): "
                         f"weight is (out, in) = {tuple(w_shape)}")
    if x_dtype_name != w_dtype_name:
        raise TypeError(f"x is {x_dtype_name} and weight is {w_dtype_name}; gemmkit multiplies matrices of one type")
    if bias_shape is not None:
        if tuple(bias_shape) != (w_shape[0],):
            raise ValueError(f"bias has shape {tuple(bias_shape)}; it must be ({w_shape[0]},), weight's out")
        if bias_dtype_name != x_dtype_name:
            raise TypeError(f"bias is {bias_dtype_name} and x is {x_dtype_name}; they must have one type")
    return tuple(x_shape[:-1]) + (w_shape[0],)


def _has_layout(view):
    return len(view.shape) < 2 or _as_colmajor(view.shape[-2:], view.strides[-2:]) is not None


def _batch_strides(view, nb):
    """The view's element strides over nb broadcast batch dimensions: 0 where it has none (a
    missing or size-1 dimension, broadcast to every index)."""
    lead = view.shape[:-2]
    return (0,) * (nb - len(lead)) + tuple(s if n != 1 else 0 for s, n in zip(view.strides[:-2], lead))


def _batch_groups(batch, strides):
    """The batch dimensions (sizes `batch`; `strides`, one tuple per operand) merged, from the
    innermost outward, wherever every operand steps evenly across them: [(count, (stride of
    each operand))], outermost first, a group's index z at z * stride. Sizes of 1 drop out; one
    group (or none) is one strided batch."""
    groups = []
    for d in range(len(batch) - 1, -1, -1):
        if batch[d] == 1:
            continue
        s = tuple(st[d] for st in strides)
        if groups:
            count, inner = groups[-1]
            if all(x == y * count for x, y in zip(s, inner)):
                groups[-1] = (count * batch[d], inner)
                continue
        groups.append((batch[d], s))
    groups.reverse()
    return groups


def _check_copyable(view, name):
    if not _has_layout(view) and view.kind not in ("torch", "cupy"):
        raise ValueError(f"{name} has strides {view.strides[-2:]} in its last two dimensions; gemmkit needs one of "
                         f"them to be 1 (copy it to a contiguous array first)")


def _materialize(view, name, stream):
    """An input whose last two dimensions have no stride-1 dimension, copied (torch, CuPy) on
    the stream the GEMM runs on, so that the copy is ordered before it and its memory is not
    reused while the GEMM reads it."""
    if _has_layout(view):
        return view
    if view.kind == "torch":
        return _view(_on_stream(view.obj, stream, view.obj.contiguous), name, None)
    import cupy

    return _view(_on_stream(view.obj, stream, lambda: cupy.ascontiguousarray(view.obj)), name, None)


def _run(a, b, c, *, trans_a, trans_b, alpha, beta, compute, kernel, stream, names=("a", "b", "out"),
         epilogue=None):
    """c[...] = alpha * op(a) @ op(b) + beta * c[...] for views with matching batch shapes.

    epilogue: None, or (activation code, bias address) to fuse where the call is one GEMM whose
    output is row-major (its columns are C's rows, one bias value each). Returns whether it
    was fused; if not, the caller applies it."""
    an, bn, cn = names
    for v, name in ((a, an), (b, bn), (c, cn)):
        if len(v.shape) < 2:
            raise ValueError(f"{name} has shape {v.shape}; gemmkit needs matrices (2 or more dimensions)")
    if a.dtype != b.dtype:
        raise TypeError(f"{an} is {_DTYPE_NAME[a.dtype]} and {bn} is {_DTYPE_NAME[b.dtype]}; gemmkit multiplies "
                        f"matrices of one type")
    code = _compute_for(a.dtype, compute, c.dtype)
    if c.readonly:
        raise ValueError(f"{cn} is read-only")
    devices = {v.device for v in (a, b, c) if v.device >= 0}
    if len(devices) > 1:
        raise ValueError(f"{an}, {bn} and {cn} are on devices {a.device}, {b.device} and {c.device}; "
                         f"gemmkit needs them on one")
    device = devices.pop() if devices else -1
    if c.ptr != 0 and c.ptr in (a.ptr, b.ptr):
        raise ValueError(f"{cn} is the memory of {an if c.ptr == a.ptr else bn}; gemmkit needs a separate output")
    a_shape = a.shape[:-2] + ((a.shape[-1], a.shape[-2]) if trans_a else a.shape[-2:])
    b_shape = b.shape[:-2] + ((b.shape[-1], b.shape[-2]) if trans_b else b.shape[-2:])
    if a_shape[-1] != b_shape[-2]:
        raise ValueError(f"op({an}) is {a_shape[-2:]} and op({bn}) is {b_shape[-2:]}: the inner dimensions differ")
    want = _batch_shape(a_shape, b_shape) + (a_shape[-2], b_shape[-1])
    if c.shape != want:
        raise ValueError(f"{cn} has shape {c.shape}; the product is {want}")
    cc = _as_colmajor(c.shape[-2:], c.strides[-2:])
    if cc is None:
        raise ValueError(f"{cn} has strides {c.strides[-2:]} in its last two dimensions; gemmkit writes an output "
                         f"with one of them 1 and the other at least the length of that row or column")
    M, K, N = a_shape[-2], a_shape[-1], b_shape[-1]
    for name, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} is a {type(value).__qualname__}; pass a Python number")
    alpha, beta = float(alpha), float(beta)
    _check_copyable(a, an)
    _check_copyable(b, bn)
    batch = want[:-2]
    count = 1
    for size in batch:
        count *= size
    c_bs = _batch_strides(c, len(batch))
    tc, ldc = cc
    m, n = (N, M) if tc else (M, N)  # C as the library sees it (column-major)
    extent = ldc * (n - 1) + m  # elements from a C's first to its last
    c_groups = _batch_groups(batch, (c_bs,))
    if count > 1 and m > 0 and n > 0 and (len(c_groups) > 1 or c_groups[0][1][0] < extent):
        raise ValueError(f"{cn} has batch strides {c.strides[:-2]} over batch {c.shape[:-2]}; gemmkit writes a "
                         f"batch of matrices one stride apart, at least {extent} elements (one matrix) so that "
                         f"none overlap")
    if count == 0:
        return epilogue is not None
    a = _materialize(a, an, stream)
    b = _materialize(b, bn, stream)
    a_bs, b_bs = _batch_strides(a, len(batch)), _batch_strides(b, len(batch))

    # b shared by the whole batch, a and out stepping evenly over rows: one GEMM of count * M rows.
    if batch and not trans_a and not any(b_bs):
        fa, fc = _fold(a), _fold(c)
        if (len(fa.shape) == len(fc.shape) == 2 and fa.shape[0] == fc.shape[0] == count * M
                and _has_layout(fa) and _as_colmajor(fc.shape, fc.strides) is not None):
            a, c, M, batch = fa, fc, count * M, ()
            tc, ldc = _as_colmajor(c.shape, c.strides)
            m, n = (N, M) if tc else (M, N)
            a_bs = b_bs = c_bs = ()

    # The batch as strided batches: the innermost dimensions over which every operand keeps one
    # stride are one call; dimensions outside them (a partly broadcast operand, batch
    # dimensions out of order) are looped, one call per index. A negative stride (CuPy) leaves
    # every index its own GEMM. Layouts are the first matrix's: every matrix has the same.
    groups = _batch_groups(batch, (a_bs, b_bs, c_bs))
    if not groups or min(groups[-1][1]) < 0:
        groups.append((1, (0, 0, 0)))
    *outer, (inner, (sa, sb, sc)) = groups
    _, sha, sta = a.matrix(0, trans_a)
    _, shb, stb = b.matrix(0, trans_b)
    ta, lda = _as_colmajor(sha, sta)
    tb, ldb = _as_colmajor(shb, stb)
    ia, ic = _ITEMSIZE[a.dtype], _ITEMSIZE[c.dtype]
    if epilogue is not None and tc and not outer and inner == 1:
        activation, bias = epilogue
        status = _C.gemm_epilogue(stream, device, 0 if tb else 1, 0 if ta else 1, m, n, K, alpha, b.ptr, b.dtype, ldb,
                                  a.ptr, a.dtype, lda, beta, c.ptr, c.dtype, ldc, code, activation, bias, 0, 1, kernel)
        if status:
            _raise_status(status)
        return True
    batched = inner > 1
    for index in itertools.product(*(range(size) for size, _ in outer)):
        pa, pb, pc = a.ptr, b.ptr, c.ptr
        for i, (_, (step_a, step_b, step_c)) in zip(index, outer):
            pa, pb, pc = pa + i * step_a * ia, pb + i * step_b * ia, pc + i * step_c * ic
        if tc:  # C row-major: its column-major memory is C^T = op(B)^T op(A)^T
            args = (0 if tb else 1, 0 if ta else 1, m, n, K, alpha, pb, b.dtype, ldb, sb, pa, a.dtype, lda, sa)
        else:
            args = (1 if ta else 0, 1 if tb else 0, m, n, K, alpha, pa, a.dtype, lda, sa, pb, b.dtype, ldb, sb)
        if batched:
            status = _C.gemm_strided_batched(stream, device, *args, beta, pc, c.dtype, ldc, sc, inner, code, kernel)
            if status == 0:
                continue
            if status != _NOT_SUPPORTED:
                _raise_status(status)
            batched = False  # a kernel that runs one problem a launch (kernel=): each index its own GEMM
        transa, transb, m_, n_, k_, al, p1, t1, ld1, s1, p2, t2, ld2, s2 = args
        for z in range(inner):
            status = _C.gemm(stream, device, transa, transb, m_, n_, k_, al, p1 + z * s1 * ia, t1, ld1,
                             p2 + z * s2 * ia, t2, ld2, beta, pc + z * sc * ic, c.dtype, ldc, code, kernel)
            if status:
                _raise_status(status)
    return False


def _empty(like, shape, dtype, device):
    """A new array of the producer of `like` (torch or CuPy)."""
    if like.kind == "torch":
        torch = _torch()
        inverse = {v: k for k, v in _torch_dtypes().items()}
        return torch.empty(shape, dtype=inverse[dtype], device=like.obj.device)
    if like.kind == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            return cupy.empty(shape, dtype=_DTYPE_NAME[dtype])
    raise TypeError(f"gemmkit allocates results only as torch tensors and CuPy arrays; for a "
                    f"{type(like.obj).__module__} array pass out= (a torch or CuPy array)")


def _prepare(arrays, names, stream):
    """Views of the arrays (None stays None) and the stream handle to run on."""
    handle = _stream_handle(stream)
    first = next(x for x in arrays if x is not None)
    if handle is None and (_is_torch(first) or _is_cupy(first)):
        views = [None if x is None else _view(x, n, None) for x, n in zip(arrays, names)]
        handle = _default_stream(first, views[0].device)
    else:
        if handle is None:
            handle = 0
        views = [None if x is None else _view(x, n, _dlpack_stream(handle)) for x, n in zip(arrays, names)]
    for v in views:  # a producer's stream other than ours (__cuda_array_interface__ v3): wait for it
        if v is not None and v.stream not in (None, handle) and not (v.stream == 1 and handle == 0) and v.ptr:
            _C.stream_wait(handle, v.stream, v.device)
    return views, handle


def gemm(a, b, *, out=None, trans_a=False, trans_b=False, alpha=1.0, beta=0.0, compute=None, kernel=None,
         stream=None):
    """out = alpha * op(a) @ op(b) + beta * out, row-major, op(x) = x.T where trans_x.

    a, b: device arrays (torch, CuPy, JAX, ...) of one dtype, (M, K) and (K, N) after op, or
    with leading batch dimensions that broadcast. out: (..., M, N); allocated (torch/CuPy
    inputs) when None, in which case beta must be 0. dtype: float32 (compute '32f', or
    'tf32' for the tensor cores), float64 ('64f'), float16/bfloat16 (out of the same type or
    float32). kernel: None/'auto' or a name from gemmkit.kernels(). stream: an int
    cudaStream_t, a torch or CuPy stream; by default torch's or CuPy's current stream, else the
    legacy default stream. Returns out.
    """
    views, handle = _prepare((a, b, out), ("a", "b", "out"), stream)
    return _gemm(*views, out, handle, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta, compute=compute,
                 kernel=kernel)


def _gemm(va, vb, vc, out, handle, *, trans_a, trans_b, alpha, beta, compute, kernel):
    """gemm on views from _prepare; allocates out (after every check that needs no out) if None."""
    kernel = _check_kernel(kernel)
    if vc is None:
        if beta != 0:
            raise ValueError(f"beta = {beta} reads out, but out is None; pass out=")
        a_shape = va.shape[:-2] + ((va.shape[-1], va.shape[-2]) if trans_a else va.shape[-2:])
        b_shape = vb.shape[:-2] + ((vb.shape[-1], vb.shape[-2]) if trans_b else vb.shape[-2:])
        if va.dtype != vb.dtype:
            raise TypeError(f"a is {_DTYPE_NAME[va.dtype]} and b is {_DTYPE_NAME[vb.dtype]}; gemmkit multiplies "
                            f"matrices of one type")
        shape = check_matmul(a_shape, _DTYPE_NAME[va.dtype], b_shape, _DTYPE_NAME[vb.dtype])
        _compute_for(va.dtype, compute, va.dtype)
        _check_copyable(va, "a")
        _check_copyable(vb, "b")
        out = _empty(va, shape, va.dtype, va.device)
        vc = _view(out, "out", _dlpack_stream(handle))
    _run(va, vb, vc, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta, compute=compute, kernel=kernel,
         stream=handle)
    return out


_RAW_STREAM = None


def _torch_fast(a, b, b_is_weight, bias=None, activation=None):
    """The common case on its own short path (it is on every call of the torch ops): CUDA torch
    tensors of one served dtype, a (M, K) or contiguous (..., M, K), b (K, N) or, for linear,
    weight (N, K), on one device, each with a stride-1 dimension; torch's current stream, a new
    row-major output. Returns None for anything else, which the general path then serves (and
    names what is wrong). The C API checks every argument again."""
    global _RAW_STREAM
    dtype = _TORCH_DTYPES.get(a.dtype) if _TORCH_DTYPES is not None else None
    if dtype is None or b.dtype != a.dtype or b.dim() != 2 or not (a.is_cuda and b.is_cuda):
        return None
    if a.dim() != 2:
        if a.dim() < 2 or not a.is_contiguous() or a.numel() == 0:
            return None
        lead = a.shape[:-1]
        a = a.view(-1, a.shape[-1])
    else:
        lead = a.shape[:1]
    M, K = a.shape
    if b_is_weight:
        N, Kb = b.shape
        sb1, sb0 = b.stride()  # op(b) = weight.T: (K, N) with the strides swapped
    else:
        Kb, N = b.shape
        sb0, sb1 = b.stride()
    device = a.get_device()
    if Kb != K or b.get_device() != device:
        return None
    if bias is not None and (bias.dtype != a.dtype or bias.shape != (N,) or not bias.is_cuda
                             or bias.get_device() != device or (N > 1 and bias.stride(0) != 1)):
        return None
    la = _as_colmajor((M, K), a.stride())
    lb = _as_colmajor((K, N), (sb0, sb1))
    if la is None or lb is None:
        return None
    if _RAW_STREAM is None:
        torch = _torch()
        _RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda d: torch.cuda.current_stream(d).cuda_stream)
    out = _torch().empty(lead + (N,), dtype=a.dtype, device=a.device)
    # out is row-major: its column-major memory is out^T = op(b)^T op(a)^T (see _run).
    (ta, lda), (tb, ldb) = la, lb
    compute = COMPUTE_64F if dtype == R_64F else COMPUTE_32F
    if bias is None and activation is None:
        status = _C.gemm(_RAW_STREAM(device), device, 0 if tb else 1, 0 if ta else 1, N, M, K, 1.0, b.data_ptr(),
                         dtype, ldb, a.data_ptr(), dtype, lda, 0.0, out.data_ptr(), dtype, max(1, N), compute, None)
    else:  # bias and activation fused: C's rows are out's columns, one bias value each
        status = _C.gemm_epilogue(_RAW_STREAM(device), device, 0 if tb else 1, 0 if ta else 1, N, M, K, 1.0,
                                  b.data_ptr(), dtype, ldb, a.data_ptr(), dtype, lda, 0.0, out.data_ptr(), dtype,
                                  max(1, N), compute, _ACTIVATION_CODE[activation],
                                  0 if bias is None else bias.data_ptr(), 0, 1, None)
    if status:
        _raise_status(status)
    return out


def _matmul(a, b, out=None, compute=None, kernel=None, stream=None):
    if out is None and compute is None and kernel is None and stream is None and _is_torch(a) and _is_torch(b):
        _torch_dtypes()
        result = _torch_fast(a, b, False)
        if result is not None:
            return result
    return gemm(a, b, out=out, compute=compute, kernel=kernel, stream=stream)


def _wants_autograd(*tensors):
    torch = _torch()
    return (torch is not None and torch.is_grad_enabled()
            and any(_is_torch(t) and t.requires_grad for t in tensors if t is not None))


def _matmul_autograd(a, b):
    """matmul of torch tensors through the operators, so that autograd records it: mm for
    matrices and for a batch against one matrix (the batch folded into rows, as torch.matmul
    does), bmm for the rest, batches broadcast by expand (a view; reshape copies only an
    operand whose broadcast batch is not one stride)."""
    torch = _torch()
    shape = check_matmul(tuple(a.shape), _torch_dtype_name(a), tuple(b.shape), _torch_dtype_name(b))
    batch, (M, K, N) = shape[:-2], (a.shape[-2], a.shape[-1], b.shape[-1])
    count = 1
    for size in batch:
        count *= size
    if b.dim() == 2:
        if a.dim() == 2:
            return torch.ops.gemmkit.mm(a, b)
        return torch.ops.gemmkit.mm(a.reshape(count * M, K), b).reshape(shape)
    a3 = a.expand(batch + (M, K)).reshape(count, M, K)
    b3 = b.expand(batch + (K, N)).reshape(count, K, N)
    return torch.ops.gemmkit.bmm(a3, b3).reshape(shape)


def _torch_dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def matmul(a, b, *, out=None, compute=None, kernel=None, stream=None):
    """a @ b, as torch.matmul for matrices: (..., M, K) @ (..., K, N) -> (..., M, N), batch
    dimensions broadcast.

    A batch is one strided-batched GEMM: the broadcast batch dimensions are flattened into one
    index where each operand steps by one stride over them (0 for an operand shared by every
    index: a missing, size-1 or expanded batch). Where they do not (a partly broadcast operand,
    batch dimensions out of order), the innermost dimensions that do are one call and the rest
    are looped, one call per index; nothing is copied for it. A batch against one matrix whose
    rows fold (a contiguous a) is one GEMM of all the rows. out must be a batch of
    non-overlapping matrices one stride apart. A kernel= that runs one problem a launch gets one
    GEMM per index. Torch tensors that require grad go through torch.ops.gemmkit.mm or .bmm
    (autograd) when there is no out= and options are defaults."""
    if (out is None and compute is None and kernel is None and stream is None and _is_torch(a) and _is_torch(b)
            and _wants_autograd(a, b)):
        return _matmul_autograd(a, b)
    return _matmul(a, b, out=out, compute=compute, kernel=kernel, stream=stream)


def check_bmm(a_shape, a_dtype_name, b_shape, b_dtype_name, names=("a", "b")):
    """Shape and dtype rules of bmm (torch.bmm's: 3-D, one batch size, no broadcasting), shared
    with the fake tensors. Returns the result shape."""
    an, bn = names
    if len(a_shape) != 3 or len(b_shape) != 3:
        raise ValueError(f"{an} has shape {tuple(a_shape)} and {bn} {tuple(b_shape)}; bmm takes batches of "
                         f"matrices, 3 dimensions each (gemmkit.matmul broadcasts other shapes)")
    if a_shape[0] != b_shape[0]:
        raise ValueError(f"{an} has a batch of {a_shape[0]} and {bn} of {b_shape[0]}; bmm needs one batch size "
                         f"(gemmkit.matmul broadcasts)")
    return check_matmul(a_shape, a_dtype_name, b_shape, b_dtype_name, names)


def _bmm(a, b, out=None, compute=None, kernel=None, stream=None):
    (va, vb, vc), handle = _prepare((a, b, out), ("a", "b", "out"), stream)
    check_bmm(va.shape, _DTYPE_NAME[va.dtype], vb.shape, _DTYPE_NAME[vb.dtype])
    return _gemm(va, vb, vc, out, handle, trans_a=False, trans_b=False, alpha=1.0, beta=0.0, compute=compute,
                 kernel=kernel)


def bmm(a, b, *, out=None, compute=None, kernel=None, stream=None):
    """a @ b for batches of matrices, as torch.bmm: a (B, M, K) and b (B, K, N) of one batch
    size B (no broadcasting) give (B, M, N), one strided-batched GEMM (see matmul). Options as
    gemm's. Torch tensors that require grad go through torch.ops.gemmkit.bmm (autograd) when
    there is no out= and options are defaults."""
    if (out is None and compute is None and kernel is None and stream is None and _is_torch(a) and _is_torch(b)
            and _wants_autograd(a, b)):
        return _torch().ops.gemmkit.bmm(a, b)
    return _bmm(a, b, out=out, compute=compute, kernel=kernel, stream=stream)


def _activate(y, activation):
    if activation is None:
        return y
    if _is_torch(y):
        f = _torch().nn.functional
        if activation == "relu":
            return f.relu_(y)
        if activation == "gelu":
            return y.copy_(f.gelu(y))
        if activation == "gelu_tanh":
            return y.copy_(f.gelu(y, approximate="tanh"))
        return y.copy_(f.silu(y))
    if _is_cupy(y) and activation == "relu":
        import cupy

        return cupy.maximum(y, 0, out=y)
    raise TypeError(f"activation {activation!r} on a {type(y).__module__} array: gemmkit applies activations to "
                    f"torch tensors (and relu to CuPy arrays)")


def _linear(x, weight, bias=None, activation=None, *, out=None, compute=None, kernel=None, stream=None):
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError(f"activation = {activation!r}; use None or one of {', '.join(map(repr, _ACTIVATIONS))}")
    if (out is None and compute is None and kernel is None and stream is None
            and _is_torch(x) and _is_torch(weight) and (bias is None or _is_torch(bias))):
        _torch_dtypes()
        result = _torch_fast(x, weight, True, bias, activation)
        if result is not None:
            return result
    views, handle = _prepare((x, weight, bias, out), ("x", "weight", "bias", "out"), stream)
    vx, vw, vbias, vout = views
    shape = check_linear(vx.shape, _DTYPE_NAME[vx.dtype], vw.shape, _DTYPE_NAME[vw.dtype],
                         None if vbias is None else vbias.shape, None if vbias is None else _DTYPE_NAME[vbias.dtype])
    if vout is None:
        _compute_for(vx.dtype, compute, vx.dtype)
        _check_copyable(vx, "x")
        _check_copyable(vw, "weight")
        out = _empty(vx, shape, vx.dtype, vx.device)
        vout = _view(out, "out", _dlpack_stream(handle))
    elif vout.shape != shape:
        raise ValueError(f"out has shape {vout.shape}; the result is {shape}")
    if len(vx.shape) == 1:  # one vector: a 1 x in matrix, and out a 1 x out one
        vx = _View(vx.obj, vx.kind, vx.ptr, (1,) + vx.shape, (0,) + vx.strides, vx.dtype, vx.device)
        vo = _View(vout.obj, vout.kind, vout.ptr, (1,) + vout.shape, (0,) + vout.strides, vout.dtype, vout.device,
                   None, vout.readonly)
    else:
        fx, fo = _fold(vx), _fold(vout)
        vx, vo = (fx, fo) if len(fx.shape) == 2 and len(fo.shape) == 2 else (vx, vout)
    epilogue = None  # fused where the bias is contiguous (the epilogue reads bias[i] for row i)
    if (bias is not None or activation is not None) and (vbias is None or vbias.shape[0] < 2 or vbias.strides[0] == 1):
        epilogue = (_ACTIVATION_CODE[activation], 0 if vbias is None else vbias.ptr)
    fused = _run(vx, vw, vo, trans_a=False, trans_b=True, alpha=1.0, beta=0.0, compute=compute,
                 kernel=_check_kernel(kernel), stream=handle, names=("x", "weight", "out"), epilogue=epilogue)
    if (bias is not None or activation is not None) and not fused:  # not one GEMM, a column-major out or a
        # strided bias: element-wise passes
        if vbias is not None and vbias.kind not in ("torch", "cupy"):
            raise TypeError("bias on this layout is added by the array's own library (torch or CuPy)")
        if bias is not None:
            _on_stream(out, handle, lambda: out.__iadd__(bias))
        if activation is not None:
            _on_stream(out, handle, lambda: _activate(out, activation))
    return out


def _on_stream(like, handle, fn):
    """Runs fn (torch or CuPy element-wise work) on the stream the GEMM ran on."""
    if _is_torch(like):
        torch = _torch()
        if handle == torch.cuda.current_stream(like.device).cuda_stream:
            return fn()
        with torch.cuda.stream(torch.cuda.ExternalStream(handle, device=like.device)):
            return fn()
    import cupy

    if handle == cupy.cuda.get_current_stream().ptr:
        return fn()
    with cupy.cuda.ExternalStream(handle):
        return fn()


def _fold(v):
    """(..., M, K) as (B*M, K) when the leading dimensions step evenly over rows (a view, no copy);
    otherwise unchanged (then the batch is a strided batch, see _run)."""
    shape, strides = v.shape, v.strides
    rows, row_stride = shape[-2], strides[-2]
    for n, s in zip(reversed(shape[:-2]), reversed(strides[:-2])):
        if n != 1 and s != rows * row_stride:
            return v
        rows *= n
    return _View(v.obj, v.kind, v.ptr, (rows, shape[-1]), (row_stride, strides[-1]), v.dtype, v.device, v.stream,
                 v.readonly)


def linear(x, weight, bias=None, activation=None, *, out=None, compute=None, kernel=None, stream=None):
    """activation(x @ weight.T + bias), as torch.nn.functional.linear: x (..., in), weight
    (out, in), bias (out,) or None; activation None, 'relu', 'gelu', 'gelu_tanh' or 'silu'.

    The GEMM reads weight as stored (its transpose is the library's op T, no copy), and adds the
    bias and applies the activation in its own epilogue (gemmkit_gemm_epilogue_ex); where out
    is column-major or x's leading dimensions do not fold into rows, they are one element-wise
    pass each (torch or CuPy, same stream). Torch tensors that require grad go through
    torch.ops.gemmkit.linear (autograd) when there is no out= and options are defaults."""
    if (out is None and compute is None and kernel is None and stream is None
            and _wants_autograd(x, weight, bias)):
        y = _torch().ops.gemmkit.linear(x, weight, bias)
        if activation is None:
            return y
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation = {activation!r}; use None or one of {', '.join(map(repr, _ACTIVATIONS))}")
        f = _torch().nn.functional
        return {"relu": f.relu, "gelu": f.gelu, "silu": f.silu,
                "gelu_tanh": lambda t: f.gelu(t, approximate="tanh")}[activation](y)
    return _linear(x, weight, bias, activation, out=out, compute=compute, kernel=kernel, stream=stream)


def _offsets_view(offs, name, dlpack_stream):
    """(address, length) of a 1-D contiguous CUDA int32 array; TypeError or ValueError naming it."""
    if _is_torch(offs):
        if not offs.is_cuda or offs.dtype != _torch().int32:
            raise TypeError(f"{name} is a {offs.dtype} tensor on {offs.device}; it must be a CUDA int32 tensor "
                            f"(the ends stay on the device)")
        shape, strides, ptr = tuple(offs.shape), tuple(offs.stride()), offs.data_ptr()
    elif getattr(offs, "__cuda_array_interface__", None) is not None:
        cai = offs.__cuda_array_interface__
        if cai["typestr"] != "<i4":
            raise TypeError(f"{name} has typestr {cai['typestr']!r}; it must be int32 (<i4)")
        shape, ptr = tuple(cai["shape"]), cai["data"][0]
        strides = _contiguous_strides(shape) if cai.get("strides") is None else tuple(x // 4 for x in cai["strides"])
        if ptr and _C.pointer_device(ptr) < 0:
            raise TypeError(f"{name}'s __cuda_array_interface__ address is not device memory")
    elif hasattr(offs, "__dlpack__") and hasattr(offs, "__dlpack_device__"):
        if int(offs.__dlpack_device__()[0]) not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            raise TypeError(f"{name} is not on a CUDA device; the ends stay on the device")
        ptr, shape, strides, code, bits, lanes, _, _, _ = _C.dlpack_view(offs.__dlpack__(stream=dlpack_stream))
        if (code, bits, lanes) != (0, 32, 1):
            raise TypeError(f"{name} has DLPack dtype (code {code}, {bits} bits); it must be int32")
        shape = tuple(shape)
        strides = _contiguous_strides(shape) if strides is None else tuple(strides)
    else:
        raise TypeError(f"{name} is a {type(offs).__qualname__}, not a CUDA int32 array")
    if len(shape) != 1:
        raise ValueError(f"{name} must be 1-D, one end a group; it has shape {shape}")
    if shape[0] > 1 and strides[0] != 1:
        raise ValueError(f"{name} must be contiguous; it has stride {strides[0]}")
    return ptr, shape[0]


def check_grouped_mm(x_shape, x_dtype_name, w_shape, w_dtype_name, groups, bias_shape=None):
    """The shape of grouped_mm's result, or ValueError / TypeError naming the argument."""
    if len(x_shape) != 2:
        raise ValueError(f"x must be 2-D (tokens, in); it has shape {tuple(x_shape)}")
    if len(w_shape) != 3:
        raise ValueError(f"weight must be 3-D (groups, out, in); it has shape {tuple(w_shape)}")
    if x_dtype_name != w_dtype_name:
        raise TypeError(f"x is {x_dtype_name} and weight is {w_dtype_name}; both must be one type")
    if x_dtype_name not in ("float16", "bfloat16"):
        raise TypeError(f"x is {x_dtype_name}; grouped_mm takes float16 and bfloat16")
    if x_shape[1] != w_shape[2]:
        raise ValueError(f"x has {x_shape[1]} features and weight takes {w_shape[2]}")
    if groups != w_shape[0]:
        raise ValueError(f"offs has {groups} ends and weight {w_shape[0]} groups; they must match")
    if bias_shape is not None and tuple(bias_shape) != (w_shape[0], w_shape[1]):
        raise ValueError(f"bias has shape {tuple(bias_shape)}; it must be (groups, out) = {(w_shape[0], w_shape[1])}")
    return (x_shape[0], w_shape[1])


def grouped_mm(x, weight, offs, *, bias=None, out=None, kernel=None, stream=None):
    """A mixture of experts' layer in one launch (gemmkit_gemm_grouped_ex), as torch._grouped_mm
    with offs: out[t] = x[t] @ weight[g].T (+ bias[g]) for the tokens t of group g, which are
    rows offs[g - 1] .. offs[g] - 1 of x (offs[-1] = 0).

    x: (tokens, in), rows contiguous; weight: (groups, out, in), rows contiguous (each group an
    nn.Linear weight); offs: a CUDA int32 array of groups cumulative ends, read on the device
    (no host sync, so it can be captured in a CUDA graph); bias: (groups, out) or None. float16
    or bfloat16; out (tokens, out) of their type or float32, allocated when None. Rows of out
    past offs[-1] are not written. Ends out of order or past tokens make the kernel write nothing.
    """
    views, handle = _prepare((x, weight, bias, out), ("x", "weight", "bias", "out"), stream)
    vx, vw, vbias, vout = views
    ends, groups = _offsets_view(offs, "offs", _dlpack_stream(handle))
    shape = check_grouped_mm(vx.shape, _DTYPE_NAME[vx.dtype], vw.shape, _DTYPE_NAME[vw.dtype], groups,
                             None if vbias is None else vbias.shape)
    for v, name in ((vx, "x"), (vw, "weight"), (vbias, "bias")):
        if v is not None and v.shape[-1] > 1 and v.strides[-1] != 1:
            raise ValueError(f"{name}'s last dimension must have stride 1; it has {v.strides[-1]}")
    if vbias is not None and vbias.dtype != vx.dtype and (vout is None or vbias.dtype != vout.dtype):
        raise TypeError(f"bias is {_DTYPE_NAME[vbias.dtype]}; it must have out's type")
    if vout is None:
        out = _empty(vx, shape, vx.dtype, vx.device)
        vout = _view(out, "out", _dlpack_stream(handle))
    elif tuple(vout.shape) != shape:
        raise ValueError(f"out has shape {tuple(vout.shape)}; the result is {shape}")
    elif vout.shape[1] > 1 and vout.strides[1] != 1:
        raise ValueError(f"out's rows must be contiguous; its last dimension has stride {vout.strides[1]}")
    tokens, features = shape
    # Column-major, the library's terms: C = out^T (features x tokens), A = weight[g] read with
    # op T, B = x^T (in x tokens) as stored; C's columns are the tokens, cut into groups by offs.
    status = _C.gemm_grouped(handle, vx.device, 1, 0, features, tokens, vx.shape[1], 1.0, vw.ptr, vw.dtype,
                             max(vw.strides[1], 1), vw.strides[0], vx.ptr, vx.dtype, max(vx.strides[0], 1), 0.0,
                             vout.ptr, vout.dtype, max(vout.strides[0], 1), ends, groups, COMPUTE_32F,
                             0 if vbias is None else vbias.ptr, 0 if vbias is None else vbias.strides[0],
                             _check_kernel(kernel))
    if status != 0:
        _raise_status(status)
    return out


R_8F_E4M3, R_8F_E5M2 = 4, 5
SCALE_TENSOR, SCALE_OUTER = 0, 1


def _fp8_dtypes(torch):
    return {torch.float8_e4m3fn: R_8F_E4M3, torch.float8_e5m2: R_8F_E5M2}


def check_scaled_mm(a_shape, b_shape, scale_a_numel, scale_b_numel):
    """The result's shape and the scale mode of scaled_mm, or ValueError naming the argument."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise ValueError(f"a and b must be 2-D; they have shapes {tuple(a_shape)} and {tuple(b_shape)}")
    (m, k), (kb, n) = a_shape, b_shape
    if kb != k:
        raise ValueError(f"a is {m} x {k} and b is {kb} x {n}: a's columns must equal b's rows")
    if scale_a_numel == 1 and scale_b_numel == 1:
        return (m, n), SCALE_TENSOR
    if scale_a_numel == m and scale_b_numel == n:
        return (m, n), SCALE_OUTER
    raise ValueError(f"scale_a has {scale_a_numel} values and scale_b {scale_b_numel}: give one each (per tensor) "
                     f"or {m} and {n} (a row of a, a column of b)")


def scaled_mm(a, b, scale_a, scale_b, *, out_dtype=None, bias=None, use_fast_accum=False, out=None, kernel=None):
    """FP8 matrix product with scales (gemmkit_gemm_scaled_ex), as torch._scaled_mm:
    out = (scale_a * a) @ (scale_b * b) (+ bias), on torch's current stream.

    a: (M, K) row-major; b: (K, N) column-major (b.t() contiguous: an nn.Linear weight w of shape
    (N, K) passes as w.t()). float8_e4m3fn, or one of them float8_e5m2. scale_a, scale_b:
    float32 CUDA tensors of one value each (per tensor), or of M and N values (a row of a, a
    column of b). out_dtype: torch.bfloat16 (default), torch.float16 or torch.float32; bias: (N,)
    of out_dtype or None. use_fast_accum: keep the sums in the tensor cores' FP8 accumulation for
    all of K (faster, less accurate), as torch's flag; by default they move into FP32 every 128
    of K. Torch tensors only.
    """
    torch = _torch()
    if torch is None or not all(_is_torch(t) for t in (a, b, scale_a, scale_b)):
        raise TypeError("scaled_mm takes torch tensors (a, b, scale_a, scale_b)")
    fp8 = _fp8_dtypes(torch)
    for t, name in ((a, "a"), (b, "b")):
        if t.dtype not in fp8:
            raise TypeError(f"{name} is {t.dtype}; scaled_mm takes torch.float8_e4m3fn or torch.float8_e5m2")
    for t, name in ((scale_a, "scale_a"), (scale_b, "scale_b")):
        if t.dtype != torch.float32:
            raise TypeError(f"{name} is {t.dtype}; scales are torch.float32")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    out_dtype = out_dtype or torch.bfloat16
    c_type = _torch_dtypes().get(out_dtype)
    if c_type not in (R_32F, R_16F, R_16BF):
        raise TypeError(f"out_dtype is {out_dtype}; scaled_mm writes torch.bfloat16, torch.float16 or torch.float32")
    shape, mode = check_scaled_mm(a.shape, b.shape, scale_a.numel(), scale_b.numel())
    m, n = shape
    k = a.shape[1]
    if a.shape[1] > 1 and a.stride(1) != 1:
        raise ValueError(f"a must be row-major (its rows contiguous); it has strides {tuple(a.stride())}")
    if b.shape[0] > 1 and b.stride(0) != 1:
        raise ValueError(f"b must be column-major (b.t() contiguous); it has strides {tuple(b.stride())}")
    if bias is not None:
        if not _is_torch(bias) or bias.dtype != out_dtype or tuple(bias.shape) != (n,) or not bias.is_contiguous():
            raise ValueError(f"bias must be a contiguous ({n},) tensor of {out_dtype}")
    given = [t for t in (a, b, scale_a, scale_b, bias, out) if t is not None]
    if not all(t.is_cuda and t.device == a.device for t in given):
        raise ValueError("a, b, the scales, bias and out must be CUDA tensors on one device")
    if out is None:
        out = torch.empty(shape, dtype=out_dtype, device=a.device)
    elif tuple(out.shape) != shape or out.dtype != out_dtype or (n > 1 and out.stride(1) != 1):
        raise ValueError(f"out must be a row-major {shape} tensor of {out_dtype}")
    device = a.get_device()
    handle = torch.cuda.current_stream(device).cuda_stream
    # Column-major, the library's terms: C = out^T (N x M) = op(A) op(B) with A = b as stored
    # (K x N, K contiguous: op T) and B = a as stored (K x M: op N). A row of a is a column of C,
    # so torch's scale_a is the library's scale_b, and the other way round.
    status = _C.gemm_scaled(handle, device, n, m, k, 1.0, b.data_ptr(), fp8[b.dtype], max(b.stride(1), 1),
                            a.data_ptr(), fp8[a.dtype], max(a.stride(0), 1), 0.0, out.data_ptr(), c_type,
                            max(out.stride(0), 1), mode, scale_b.data_ptr(), scale_a.data_ptr(), bool(use_fast_accum),
                            0 if bias is None else bias.data_ptr(), _check_kernel(kernel))
    if status != 0:
        _raise_status(status)
    return out


def quantize_fp8(x, dtype=None, *, scaling="tensor"):
    """FP8 values and their scales for scaled_mm, computed on the device (gemmkit_quantize_fp8):
    returns (q, scale) with x ~ scale * q, on torch's current stream.

    x: a 2-D CUDA tensor of torch.bfloat16, torch.float16 or torch.float32 with its rows
    contiguous (an activation a of (M, K), or a weight w of (N, K), which scaled_mm takes as
    w.t()). dtype: torch.float8_e4m3fn (default) or torch.float8_e5m2. scaling: "tensor" (scale
    of shape (), amax(|x|) / the format's largest value) or "row" (scale of shape (M,), one a
    row: scaled_mm's outer scales). An all-zero x (or row) gets scale 1; values saturate. Torch
    tensors only.
    """
    torch = _torch()
    if torch is None or not _is_torch(x):
        raise TypeError("quantize_fp8 takes a torch tensor")
    dtype = dtype or torch.float8_e4m3fn
    fp8 = _fp8_dtypes(torch)
    if dtype not in fp8:
        raise TypeError(f"dtype is {dtype}; quantize_fp8 writes torch.float8_e4m3fn or torch.float8_e5m2")
    x_type = _torch_dtypes().get(x.dtype)
    if x_type not in (R_32F, R_16F, R_16BF):
        raise TypeError(f"x is {x.dtype}; quantize_fp8 takes torch.bfloat16, torch.float16 or torch.float32")
    if scaling not in ("tensor", "row"):
        raise ValueError(f"scaling is {scaling!r}; use 'tensor' or 'row'")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D; it has shape {tuple(x.shape)}")
    rows, cols = x.shape
    if (cols > 1 and x.stride(1) != 1) or (rows > 1 and x.stride(0) < cols):
        raise ValueError(f"x must have its rows contiguous and apart; it has strides {tuple(x.stride())}")
    if not x.is_cuda:
        raise ValueError("x must be a CUDA tensor")
    q = torch.empty((rows, cols), dtype=dtype, device=x.device)
    # An empty x or row has amax 0, so scale 1; the library writes nothing then.
    make = torch.ones if x.numel() == 0 else torch.empty
    scale = make((rows,) if scaling == "row" else (), dtype=torch.float32, device=x.device)
    device = x.get_device()
    handle = torch.cuda.current_stream(device).cuda_stream
    # Column-major, the library's terms: x's rows are columns of k = cols values (ld x.stride(0)).
    status = _C.quantize_fp8(handle, device, cols, rows, x.data_ptr(), x_type, max(x.stride(0), cols, 1),
                             q.data_ptr(), fp8[dtype], max(cols, 1), 1 if scaling == "row" else 0, scale.data_ptr())
    if status != 0:
        _raise_status(status)
    return q, scale


def kernels():
    """The registered kernel names, in ladder order (what kernel= takes)."""
    return _C.kernel_names()


def device_count():
    """CUDA devices visible to the library (0 without a GPU or driver)."""
    return _C.device_count()

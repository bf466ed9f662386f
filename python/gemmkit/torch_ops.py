"""torch.ops.gemmkit: mm, bmm, linear and scaled_mm as PyTorch custom operators (torch.library).

Each has a fake (meta) implementation, so torch.compile(fullgraph=True) traces through it
without a graph break, and autograd whose backward is gemmkit GEMMs again:
    mm(a, b) = a @ b               grad_a = grad @ b.T, grad_b = a.T @ grad
    bmm(a, b) = a @ b, (B, M, K) @ (B, K, N), one strided-batched GEMM
                                   grad_a = grad @ b.mT, grad_b = a.mT @ grad (bmm again)
    linear(x, w, bias) = x @ w.T + bias
                                   grad_x = grad @ w, grad_w = grad.T @ x, grad_bias = grad.sum(0)
    scaled_mm(a, b, scale_a, scale_b, bias, out_dtype, use_fast_accum)
                                   gemmkit.scaled_mm: FP8, as torch._scaled_mm (no autograd,
                                   as torch._scaled_mm has none)
Transposed operands are strides, not copies (see gemmkit._api). The CUDA implementation runs on
torch's current stream and makes no allocation but its output (from torch's caching allocator)
and no synchronization, so the ops can be captured in CUDA graphs (after a warm-up call, as
torch.cuda.graphs asks: a kernel's first call on a device may set up workspaces).

Imported by `import gemmkit` where torch is installed.
"""

import torch

from . import _api

_lib = torch.library.Library("gemmkit", "DEF")
_lib.define("mm(Tensor a, Tensor b) -> Tensor")
_lib.define("bmm(Tensor a, Tensor b) -> Tensor")
_lib.define("linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor")
_lib.define("scaled_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
            "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor")


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _check_mm(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"gemmkit::mm takes matrices; a has shape {tuple(a.shape)} and b {tuple(b.shape)} "
                         f"(gemmkit.matmul serves batches)")
    return _api.check_matmul(tuple(a.shape), _dtype_name(a), tuple(b.shape), _dtype_name(b))


def _check_bmm(a, b):
    # The op's errors name it, as gemmkit::mm's do (the rules are gemmkit.bmm's).
    try:
        return _api.check_bmm(tuple(a.shape), _dtype_name(a), tuple(b.shape), _dtype_name(b))
    except (ValueError, TypeError) as e:
        raise type(e)(f"gemmkit::bmm: {e}") from None


def _check_linear(x, weight, bias):
    return _api.check_linear(tuple(x.shape), _dtype_name(x), tuple(weight.shape), _dtype_name(weight),
                             None if bias is None else tuple(bias.shape), None if bias is None else _dtype_name(bias))


_api._torch_dtypes()  # the fast path's table, filled once here


# The CUDA kernels: the common case straight to the short path, anything else (and every error
# message) through the general one.
def _mm_cuda(a, b):
    out = _api._torch_fast(a, b, False) if a.dim() == 2 else None
    if out is not None:
        return out
    _check_mm(a, b)
    return _api._matmul(a, b)


def _bmm_cuda(a, b):
    _check_bmm(a, b)
    return _api._bmm(a, b)


def _linear_cuda(x, weight, bias=None):
    out = _api._torch_fast(x, weight, True, bias)
    return out if out is not None else _api._linear(x, weight, bias)


def _scaled_mm_cuda(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False):
    return _api.scaled_mm(a, b, scale_a, scale_b, out_dtype=out_dtype, bias=bias, use_fast_accum=use_fast_accum)


_lib.impl("mm", _mm_cuda, "CUDA")
_lib.impl("bmm", _bmm_cuda, "CUDA")
_lib.impl("linear", _linear_cuda, "CUDA")
_lib.impl("scaled_mm", _scaled_mm_cuda, "CUDA")


@torch.library.register_fake("gemmkit::mm")
def _mm_fake(a, b):
    return a.new_empty(_check_mm(a, b))


@torch.library.register_fake("gemmkit::bmm")
def _bmm_fake(a, b):
    return a.new_empty(_check_bmm(a, b))


@torch.library.register_fake("gemmkit::linear")
def _linear_fake(x, weight, bias=None):
    return x.new_empty(_check_linear(x, weight, bias))


@torch.library.register_fake("gemmkit::scaled_mm")
def _scaled_mm_fake(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False):
    fp8 = _api._fp8_dtypes(torch)
    if a.dtype not in fp8 or b.dtype not in fp8:
        raise TypeError(f"gemmkit::scaled_mm: a is {a.dtype} and b is {b.dtype}; it takes torch.float8_e4m3fn or "
                        f"torch.float8_e5m2")
    try:
        shape, _ = _api.check_scaled_mm(tuple(a.shape), tuple(b.shape), scale_a.numel(), scale_b.numel())
    except ValueError as e:
        raise ValueError(f"gemmkit::scaled_mm: {e}") from None
    return a.new_empty(shape, dtype=out_dtype or torch.bfloat16)


def _mm_setup(ctx, inputs, output):
    a, b = inputs
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.gemmkit.mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmkit.mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = torch.ops.gemmkit.bmm(grad, b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    grad_b = torch.ops.gemmkit.bmm(a.transpose(1, 2), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _linear_setup(ctx, inputs, output):
    x, weight, bias = inputs
    ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, weight if ctx.needs_input_grad[0] else None)
    ctx.x_shape = x.shape


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    grad2d = grad.reshape(-1, grad.shape[-1])
    grad_x = grad_w = grad_bias = None
    if ctx.needs_input_grad[0]:
        grad_x = torch.ops.gemmkit.mm(grad2d, weight).reshape(ctx.x_shape)
    if ctx.needs_input_grad[1]:
        grad_w = torch.ops.gemmkit.mm(grad2d.t(), x.reshape(-1, x.shape[-1]))
    # needs_input_grad has no entry for a bias left at its default (None).
    if len(ctx.needs_input_grad) < 3:
        return grad_x, grad_w
    if ctx.needs_input_grad[2]:
        grad_bias = grad2d.sum(0)
    return grad_x, grad_w, grad_bias


torch.library.register_autograd("gemmkit::mm", _mm_backward, setup_context=_mm_setup)
torch.library.register_autograd("gemmkit::bmm", _bmm_backward, setup_context=_mm_setup)
torch.library.register_autograd("gemmkit::linear", _linear_backward, setup_context=_linear_setup)

"""gemmkit: CUDA GEMM kernels from the optimization ladder, served through a cuBLAS-style C API.

    import torch, gemmkit
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    c = gemmkit.matmul(a, b)                    # a @ b
    y = torch.ops.gemmkit.linear(a, b, None)    # a @ b.T, with autograd and torch.compile

gemm, matmul, bmm and linear take torch tensors, CuPy arrays and anything with
__cuda_array_interface__ or DLPack (JAX, ...). Importing gemmkit needs no GPU; where torch is
installed, it also registers the torch.ops.gemmkit operators (gemmkit.torch_ops).
gemmkit.dist has tensor-parallel layers on NCCL; it loads its library (and NCCL) on first use.
"""

from . import _C, dist
from ._api import (
    CudaError,
    GemmkitError,
    InvalidValueError,
    NotSupportedError,
    bmm,
    device_count,
    gemm,
    grouped_mm,
    kernels,
    linear,
    matmul,
    quantize_fp8,
    scaled_mm,
)


def _version_string(v):
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"


#: The library's version (gemmkit_version(), GEMMKIT_VERSION_* in gemmkit.h).
__version__ = _version_string(_C.version())

try:
    import torch as _torch  # noqa: F401
except ImportError:
    _torch = None
if _torch is not None:
    from . import torch_ops  # noqa: F401  (registers torch.ops.gemmkit.*)

__all__ = [
    "CudaError",
    "GemmkitError",
    "InvalidValueError",
    "NotSupportedError",
    "__version__",
    "bmm",
    "device_count",
    "dist",
    "gemm",
    "grouped_mm",
    "kernels",
    "linear",
    "matmul",
    "quantize_fp8",
    "scaled_mm",
]

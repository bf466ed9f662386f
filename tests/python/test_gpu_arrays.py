"""CuPy (__cuda_array_interface__) and JAX (DLPack) arrays on a GPU, against torch or their
own matmul. Each test skips where its library or a GPU is missing."""

import importlib.util
import os

import pytest

from conftest import HAS_GPU

import gemmkit

needs_cupy = pytest.mark.skipif(not (HAS_GPU and importlib.util.find_spec("cupy")), reason="needs CuPy and a GPU")
needs_jax = pytest.mark.skipif(not (HAS_GPU and importlib.util.find_spec("jax")), reason="needs JAX and a GPU")


def rel_err(out, ref):
    import numpy as np

    out, ref = np.asarray(out, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-300))


@needs_cupy
@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12), ("float16", 5e-3)])
def test_cupy_matmul(dtype, tol):
    import cupy

    rng = cupy.random.default_rng(7)
    a = rng.standard_normal((65, 33)).astype(dtype)
    b = rng.standard_normal((33, 17)).astype(dtype)
    out = gemmkit.matmul(a, b)
    assert isinstance(out, cupy.ndarray) and out.dtype == a.dtype and out.shape == (65, 17)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert rel_err(out.get(), ref.get()) < tol


@needs_cupy
def test_cupy_views_linear_and_stream():
    import cupy

    rng = cupy.random.default_rng(8)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:  # made on the stream that reads them: a non-blocking one does not wait for the default
        a = rng.standard_normal((40, 30), dtype=cupy.float32).T  # (30, 40), column-major
        b = rng.standard_normal((80, 50), dtype=cupy.float32)[::2]  # (40, 50), padded rows
        out = gemmkit.matmul(a, b)
    stream.synchronize()
    assert rel_err(out.get(), (a.astype(cupy.float64) @ b.astype(cupy.float64)).get()) < 1e-5
    x = rng.standard_normal((3, 5, 16), dtype=cupy.float32)
    w = rng.standard_normal((8, 16), dtype=cupy.float32)
    bias = rng.standard_normal(8, dtype=cupy.float32)
    y = gemmkit.linear(x, w, bias, activation="relu")
    assert rel_err(y.get(), cupy.maximum(x @ w.T + bias, 0).get()) < 1e-5


@needs_cupy
def test_cupy_batches():
    import cupy

    rng = cupy.random.default_rng(9)
    a = rng.standard_normal((8, 33, 17), dtype=cupy.float32)
    b = rng.standard_normal((8, 17, 9), dtype=cupy.float32)
    w = rng.standard_normal((17, 9), dtype=cupy.float32)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    out = gemmkit.bmm(a, b)
    assert isinstance(out, cupy.ndarray) and out.shape == (8, 33, 9)
    assert rel_err(out.get(), ref.get()) < 1e-5
    # A negative batch stride (one GEMM per index) and a shared b (a strided batch, stride 0).
    for x, y in [(a[::-1], b[::-1]), (a[::2], w), (a[:1], b)]:
        assert rel_err(gemmkit.matmul(x, y).get(), (x.astype(cupy.float64) @ y.astype(cupy.float64)).get()) < 1e-5
    into = cupy.full((8, 33, 9), cupy.nan, dtype=cupy.float32)
    assert gemmkit.matmul(a, b, out=into) is into
    assert rel_err(into.get(), ref.get()) < 1e-5


@needs_jax
def test_jax_inputs_through_dlpack():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    import numpy as np

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    a = jax.random.normal(jax.random.PRNGKey(0), (33, 17), dtype=jnp.float32)
    b = jax.random.normal(jax.random.PRNGKey(1), (17, 9), dtype=jnp.float32)
    b16 = b.astype(jnp.bfloat16)
    with pytest.raises(TypeError, match="pass out="):
        gemmkit.matmul(a, b)  # gemmkit allocates only torch and CuPy results
    torch = pytest.importorskip("torch")
    out = torch.empty(33, 9, device="cuda")
    a.block_until_ready()
    gemmkit.gemm(a, b, out=out)
    torch.cuda.synchronize()
    ref = np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)
    assert rel_err(out.cpu().numpy(), ref) < 1e-5
    out16 = torch.empty(33, 9, device="cuda", dtype=torch.float32)
    gemmkit.gemm(a.astype(jnp.bfloat16), b16, out=out16)
    torch.cuda.synchronize()
    assert rel_err(out16.cpu().numpy(), ref) < 2e-2

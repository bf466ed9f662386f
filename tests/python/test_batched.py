"""Batched GEMM from Python: gemmkit.bmm, and matmul's batch dimensions as strided batches.

Without a GPU: the checks (shapes, out's batch stride), the binding's arguments reaching the
C API, and which calls a batch becomes (the binding replaced by a recorder: strides, leading
dimensions, the row-major to column-major swap, broadcasts, loops, the fallback of a kernel
that runs one problem a launch). With torch and a GPU: results against torch.matmul/bmm in
every type, broadcasts, strided and transposed batches, out=, autograd, opcheck, CUDA graphs
and torch.compile. Each test skips where what it needs is missing."""

import pytest

from conftest import HAS_TORCH, needs_torch_gpu

import gemmkit
from gemmkit import _C, _api

if HAS_TORCH:
    import torch

F32 = _api.R_32F


class Arr:
    """__cuda_array_interface__ of shape and element strides at a made-up address (its device
    is asked of _C.pointer_device, which the recorder answers)."""

    def __init__(self, shape, strides=None, ptr=0, typestr="<f4"):
        item = {"<f4": 4, "<f8": 8, "<f2": 2}[typestr]
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False), "version": 3,
            "strides": None if strides is None else tuple(s * item for s in strides)}


A0, B0, C0 = 0x100000, 0x200000, 0x300000

GEMM_ARGS = ("stream", "device", "transa", "transb", "m", "n", "k", "alpha", "A", "a_type", "lda", "B", "b_type",
             "ldb", "beta", "C", "c_type", "ldc", "compute", "kernel")
BATCHED_ARGS = ("stream", "device", "transa", "transb", "m", "n", "k", "alpha", "A", "a_type", "lda", "stride_a", "B",
                "b_type", "ldb", "stride_b", "beta", "C", "c_type", "ldc", "stride_c", "batch_count", "compute",
                "kernel")


@pytest.fixture
def calls(monkeypatch):
    """The C API calls a Python call makes, as ("gemm" | "batched", {argument: value}); every
    address is on device 0. calls.batched_status is what the batched call answers."""
    class Log(list):
        batched_status = 0

    log = Log()

    def gemm(*args):
        log.append(("gemm", dict(zip(GEMM_ARGS, args))))
        return 0

    def batched(*args):
        log.append(("batched", dict(zip(BATCHED_ARGS, args))))
        return log.batched_status

    monkeypatch.setattr(_C, "gemm", gemm)
    monkeypatch.setattr(_C, "gemm_strided_batched", batched)
    monkeypatch.setattr(_C, "pointer_device", lambda ptr: 0)
    return log


def pick(call, *names):
    return tuple(call[n] for n in names)


def test_a_batch_is_one_strided_call(calls):
    # Row-major C (3, 2, 5) is C^T = B^T A^T column-major: b first, m = N, n = M.
    gemmkit.matmul(Arr((3, 2, 4), ptr=A0), Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"]
    c = calls[0][1]
    assert pick(c, "transa", "transb", "m", "n", "k") == (0, 0, 5, 2, 4)
    assert pick(c, "A", "lda", "stride_a", "B", "ldb", "stride_b") == (B0, 5, 20, A0, 4, 8)
    assert pick(c, "C", "ldc", "stride_c", "batch_count", "device") == (C0, 5, 10, 3, 0)


def test_column_major_out_keeps_the_operands_in_order(calls):
    gemmkit.matmul(Arr((3, 2, 4), ptr=A0), Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), (10, 1, 2), ptr=C0))
    c = calls[0][1]
    assert pick(c, "transa", "transb", "m", "n", "k") == (1, 1, 2, 5, 4)
    assert pick(c, "A", "lda", "stride_a", "B", "ldb", "stride_b") == (A0, 4, 8, B0, 5, 20)
    assert pick(c, "ldc", "stride_c", "batch_count") == (2, 10, 3)


def test_padded_out_batch_stride(calls):
    gemmkit.bmm(Arr((3, 2, 4), ptr=A0), Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), (16, 8, 1), ptr=C0))
    assert pick(calls[0][1], "ldc", "stride_c", "batch_count") == (8, 16, 3)


def test_one_matrix_for_the_batch_is_stride_0(calls):
    # a[::2]-like batch (stride 16, not 2 * 4): the rows do not fold, b (4, 5) is shared.
    gemmkit.matmul(Arr((3, 2, 4), (16, 4, 1), ptr=A0), Arr((4, 5), ptr=B0), out=Arr((3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"]
    assert pick(calls[0][1], "A", "stride_a", "B", "stride_b", "batch_count") == (B0, 0, A0, 16, 3)


def test_a_batch_against_one_matrix_folds_into_rows(calls):
    gemmkit.matmul(Arr((3, 2, 4), ptr=A0), Arr((4, 5), ptr=B0), out=Arr((3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["gemm"]
    assert pick(calls[0][1], "m", "n", "k", "A", "lda", "B", "ldb", "ldc") == (5, 6, 4, B0, 5, A0, 4, 5)


@pytest.mark.parametrize("a", [Arr((1, 2, 4), ptr=A0), Arr((3, 2, 4), (0, 4, 1), ptr=A0)], ids=["size1", "expanded"])
def test_a_broadcast_a_is_stride_0(calls, a):
    gemmkit.matmul(a, Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"]
    assert pick(calls[0][1], "A", "stride_a", "B", "stride_b", "batch_count") == (B0, 20, A0, 0, 3)


def test_several_batch_dimensions_flatten(calls):
    gemmkit.matmul(Arr((2, 3, 2, 4), ptr=A0), Arr((2, 3, 4, 5), ptr=B0), out=Arr((2, 3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"]
    assert pick(calls[0][1], "stride_a", "stride_b", "stride_c", "batch_count") == (20, 8, 10, 6)


def test_a_partly_broadcast_batch_loops_its_outer_dimension(calls):
    # (4, 1) against (1, 5): over the inner 5, a is shared (stride 0); the outer 4 is a loop.
    gemmkit.matmul(Arr((4, 1, 2, 3), ptr=A0), Arr((1, 5, 3, 6), ptr=B0), out=Arr((4, 5, 2, 6), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"] * 4
    for i, (_, c) in enumerate(calls):
        assert pick(c, "A", "stride_a", "B", "stride_b", "batch_count") == (B0, 18, A0 + i * 6 * 4, 0, 5)
        assert pick(c, "C", "stride_c") == (C0 + i * 60 * 4, 12)


def test_batch_dimensions_out_of_order_loop(calls):
    # a (3, 5, ...) stored as (5, 3, ...): strides (8, 24); out of order, so 3 calls of 5.
    gemmkit.matmul(Arr((3, 5, 2, 4), (8, 24, 4, 1), ptr=A0), Arr((3, 5, 4, 5), ptr=B0),
                   out=Arr((3, 5, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["batched"] * 3
    for i, (_, c) in enumerate(calls):
        assert pick(c, "B", "stride_b", "A", "stride_a") == (A0 + i * 8 * 4, 24, B0 + i * 100 * 4, 20)
        assert pick(c, "C", "stride_c", "batch_count") == (C0 + i * 50 * 4, 10, 5)


def test_a_negative_batch_stride_is_one_gemm_per_index(calls):
    gemmkit.matmul(Arr((3, 2, 4), (-8, 4, 1), ptr=A0), Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), ptr=C0))
    assert [kind for kind, _ in calls] == ["gemm"] * 3
    assert [c["B"] for _, c in calls] == [A0, A0 - 32, A0 - 64]
    assert [c["C"] for _, c in calls] == [C0, C0 + 40, C0 + 80]


def test_a_kernel_without_batches_runs_each_index(calls):
    calls.batched_status = 2  # GEMMKIT_NOT_SUPPORTED: the named row runs one problem a launch
    gemmkit.matmul(Arr((4, 1, 2, 3), ptr=A0), Arr((1, 5, 3, 6), ptr=B0), out=Arr((4, 5, 2, 6), ptr=C0),
                   kernel="sgemm.01_naive")
    kinds = [kind for kind, _ in calls]
    assert kinds == ["batched"] + ["gemm"] * 20  # asked once, then every index its own GEMM
    gemms = [c for kind, c in calls if kind == "gemm"]
    assert [c["C"] for c in gemms] == [C0 + z * 12 * 4 for z in range(20)]
    assert [c["A"] for c in gemms[:5]] == [B0 + z * 18 * 4 for z in range(5)]
    assert all(c["kernel"] == "sgemm.01_naive" for c in gemms)


def test_an_empty_batch_makes_no_call(calls):
    gemmkit.bmm(Arr((0, 2, 4), ptr=A0), Arr((0, 4, 5), ptr=B0), out=Arr((0, 2, 5), ptr=C0))
    assert calls == []


@pytest.mark.parametrize("strides", [(0, 5, 1), (5, 5, 1), (-10, 5, 1)], ids=["expanded", "overlapping", "negative"])
def test_out_must_not_overlap(calls, strides):
    with pytest.raises(ValueError, match=r"out has batch strides \(-?\d+,\) over batch \(3,\); .* at least 10 "
                                         r"elements"):
        gemmkit.bmm(Arr((3, 2, 4), ptr=A0), Arr((3, 4, 5), ptr=B0), out=Arr((3, 2, 5), strides, ptr=C0))
    assert calls == []


def test_out_needs_one_batch_stride(calls):
    # A batch (2, 3) stored as (3, 2): no one stride steps over it.
    with pytest.raises(ValueError, match=r"out has batch strides \(10, 20\) over batch \(2, 3\)"):
        gemmkit.matmul(Arr((2, 3, 2, 4), ptr=A0), Arr((2, 3, 4, 5), ptr=B0),
                       out=Arr((2, 3, 2, 5), (10, 20, 5, 1), ptr=C0))
    assert calls == []


def test_bmm_takes_3d_arrays_of_one_batch():
    with pytest.raises(ValueError, match=r"a has shape \(2, 3\) and b \(2, 3, 4\); bmm takes batches of matrices"):
        gemmkit.bmm(Arr((2, 3)), Arr((2, 3, 4)), out=Arr((2, 2, 4)))
    with pytest.raises(ValueError, match=r"a has a batch of 2 and b of 3; bmm needs one batch size"):
        gemmkit.bmm(Arr((2, 2, 3)), Arr((3, 3, 4)), out=Arr((2, 2, 4)))
    with pytest.raises(ValueError, match=r"a's last dimension \(3\) must equal b's second-to-last \(5\)"):
        gemmkit.bmm(Arr((2, 2, 3)), Arr((2, 5, 4)), out=Arr((2, 2, 4)))
    with pytest.raises(TypeError, match="a is float32 and b is float16"):
        gemmkit.bmm(Arr((2, 2, 3)), Arr((2, 3, 4), typestr="<f2"), out=Arr((2, 2, 4)))
    with pytest.raises(ValueError, match=r"out has shape \(2, 2, 5\); the product is \(2, 2, 4\)"):
        gemmkit.bmm(Arr((2, 2, 3)), Arr((2, 3, 4)), out=Arr((2, 2, 5)))


def test_batched_call_reaches_the_c_api():
    # Every Python check passes; the library refuses the NULL output before any device work.
    with pytest.raises(gemmkit.InvalidValueError, match=r"^GEMMKIT_INVALID_VALUE: C is NULL$"):
        gemmkit.bmm(Arr((3, 2, 4)), Arr((3, 4, 5)), out=Arr((3, 2, 5)))


# The binding itself: each argument reaches its place in gemmkit_gemm_strided_batched_ex.


def raw(**kw):
    args = dict(stream=0, device=-1, transa=0, transb=0, m=4, n=3, k=2, alpha=1.0, A=0x1000, a_type=F32, lda=4,
                stride_a=8, B=0x2000, b_type=F32, ldb=2, stride_b=6, beta=0.0, C=0x3000, c_type=F32, ldc=4,
                stride_c=12, batch_count=2, compute=_api.COMPUTE_32F, kernel=None)
    args.update(kw)
    return _C.gemm_strided_batched(**args)


@pytest.mark.parametrize("kw, message", [
    (dict(batch_count=-1), "batch_count = -1 is negative"),
    (dict(stride_a=-1), "stride_a = -1 is negative"),
    (dict(stride_b=-2), "stride_b = -2 is negative"),
    (dict(stride_c=-3), "stride_c = -3 is negative"),
    (dict(stride_c=11), "stride_c = 11 is less than ldc * (n - 1) + m = 12"),
    (dict(ldc=5, stride_c=13), "stride_c = 13 is less than ldc * (n - 1) + m = 14"),
    (dict(lda=3), "lda = 3 is less than"),
])
def test_raw_batched_arguments_are_checked(kw, message):
    assert _C.status_string(raw(**kw)) == "GEMMKIT_INVALID_VALUE"
    assert _C.last_error().startswith(message)


def test_raw_empty_batch_is_a_no_op():
    assert raw(batch_count=0, C=0, A=0, B=0) == 0


# On a GPU, with torch.

TOL = {"float32": 1e-5, "float16": 5e-3, "bfloat16": 2e-2, "float64": 1e-12}
DTYPES = ["float32", "float16", "bfloat16", "float64"]


def rel_err(out, ref):
    out, ref = out.double(), ref.double()
    return ((out - ref).norm() / ref.norm().clamp_min(1e-300)).item()


def rand(*shape, dtype="float32", **kw):
    return torch.randn(*shape, device="cuda", dtype=getattr(torch, dtype), **kw)


@pytest.fixture
def seeded():
    torch.manual_seed(2025)


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bmnk", [(1, 1, 1, 1), (3, 7, 33, 129), (5, 127, 129, 33), (2, 64, 64, 64), (7, 257, 31, 7)],
                         ids=lambda s: "x".join(map(str, s)))
def test_bmm_matches_torch(dtype, bmnk):
    b_, m, n, k = bmnk
    a, b = rand(b_, m, k, dtype=dtype), rand(b_, k, n, dtype=dtype)
    out = gemmkit.bmm(a, b)
    assert out.dtype == a.dtype and out.shape == (b_, m, n)
    assert rel_err(out, torch.bmm(a.double(), b.double())) < TOL[dtype]


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["b_shared", "b_shared_strided_a", "a_size1", "a_expanded", "partly_broadcast",
                                  "four_dims", "sliced", "transposed_matrices", "batch_out_of_order"])
def test_matmul_batches_match_torch(dtype, case):
    B, M, N, K = 5, 33, 17, 29
    if case == "b_shared":  # a contiguous: its rows fold into one GEMM
        a, b = rand(B, M, K, dtype=dtype), rand(K, N, dtype=dtype)
    elif case == "b_shared_strided_a":  # rows that do not fold: a strided batch with b's stride 0
        a, b = rand(2 * B, M, K, dtype=dtype)[::2], rand(K, N, dtype=dtype)
    elif case == "a_size1":
        a, b = rand(1, M, K, dtype=dtype), rand(B, K, N, dtype=dtype)
    elif case == "a_expanded":
        a, b = rand(M, K, dtype=dtype).expand(B, M, K), rand(B, K, N, dtype=dtype)
    elif case == "partly_broadcast":
        a, b = rand(4, 1, M, K, dtype=dtype), rand(1, 3, K, N, dtype=dtype)
    elif case == "four_dims":
        a, b = rand(2, 3, M, K, dtype=dtype), rand(2, 3, K, N, dtype=dtype)
    elif case == "sliced":  # batch strides of two matrices, padded rows
        a = rand(2 * B, M, K + 3, dtype=dtype)[::2, :, :K]
        b = rand(2 * B, K, N, dtype=dtype)[1::2]
    elif case == "transposed_matrices":  # column-major matrices, the library's op T
        a, b = rand(B, K, M, dtype=dtype).transpose(1, 2), rand(B, N, K, dtype=dtype).transpose(1, 2)
    else:
        a, b = rand(3, B, M, K, dtype=dtype).transpose(0, 1), rand(K, N, dtype=dtype)
    out = gemmkit.matmul(a, b)
    ref = torch.matmul(a.double(), b.double())
    assert out.shape == ref.shape and out.dtype == a.dtype
    assert rel_err(out, ref) < TOL[dtype]


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_tf32_batch():
    a, b = rand(4, 65, 33), rand(4, 33, 17)
    assert rel_err(gemmkit.bmm(a, b, compute="tf32"), torch.bmm(a.double(), b.double())) < 2e-3


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("layout", ["row", "padded", "column"])
def test_bmm_into_out(layout):
    B, M, N, K = 6, 31, 23, 17
    a, b = rand(B, M, K, dtype="bfloat16"), rand(B, K, N, dtype="bfloat16")
    if layout == "row":
        store = torch.full((B, M, N), float("nan"), device="cuda")
        out = store
    elif layout == "padded":
        store = torch.full((B, M + 2, N + 5), float("nan"), device="cuda")
        out = store[:, :M, :N]
    else:
        store = torch.full((B, N, M), float("nan"), device="cuda")
        out = store.transpose(1, 2)
    assert gemmkit.bmm(a, b, out=out) is out  # bf16 inputs into a float32 out
    assert rel_err(out, torch.bmm(a.double(), b.double())) < 1e-3
    if layout == "padded":  # the padding is not written
        assert torch.isnan(store[:, M:]).all() and torch.isnan(store[:, :, N:]).all()


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_gemm_batch_alpha_beta():
    a, b, c0 = rand(4, 17, 9), rand(4, 17, 13), rand(4, 9, 13)
    out = c0.clone()
    gemmkit.gemm(a, b, out=out, trans_a=True, alpha=0.5, beta=-2.0)
    ref = 0.5 * torch.bmm(a.double().transpose(1, 2), b.double()) - 2.0 * c0.double()
    assert rel_err(out, ref) < 1e-5


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_overlapping_out_is_refused():
    a, b = rand(3, 4, 5), rand(3, 5, 6)
    with pytest.raises(ValueError, match="out has batch strides"):
        gemmkit.bmm(a, b, out=torch.empty(4, 6, device="cuda").expand(3, 4, 6))


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_named_kernel_without_batches_runs_each_index():
    name = next(n for n in gemmkit.kernels() if n.startswith("sgemm.01"))
    a, b = rand(3, 33, 17), rand(3, 17, 9)
    assert rel_err(gemmkit.bmm(a, b, kernel=name), torch.bmm(a.double(), b.double())) < 1e-5


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_more_problems_than_a_grid_layer():
    a, b = rand(65537, 3, 2), rand(65537, 2, 4)
    assert rel_err(gemmkit.bmm(a, b), torch.bmm(a.double(), b.double())) < 1e-5


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_empty_sizes():
    assert gemmkit.bmm(rand(0, 3, 4), rand(0, 4, 5)).shape == (0, 3, 5)
    out = gemmkit.bmm(rand(3, 4, 0), rand(3, 0, 5))  # k = 0: zeros, as torch
    assert out.shape == (3, 4, 5) and (out == 0).all()


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_argument_errors_on_the_gpu():
    with pytest.raises(ValueError, match="bmm needs one batch size"):
        gemmkit.bmm(rand(2, 3, 4), rand(3, 4, 5))
    with pytest.raises(ValueError, match="gemmkit::bmm"):
        torch.ops.gemmkit.bmm(rand(3, 4), rand(4, 5))


# torch.ops.gemmkit.bmm and autograd


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_opcheck_bmm():
    for args in [(rand(3, 33, 17), rand(3, 17, 9)),
                 (rand(2, 16, 8, dtype="bfloat16"), rand(2, 8, 24, dtype="bfloat16")),
                 (rand(6, 8, 4)[::2], rand(3, 6, 4).transpose(1, 2)),
                 (rand(2, 8, 4, requires_grad=True), rand(2, 4, 6, requires_grad=True))]:
        torch.library.opcheck(torch.ops.gemmkit.bmm.default, args)


@needs_torch_gpu
def test_bmm_gradcheck_float64():
    a = torch.randn(3, 5, 4, device="cuda", dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, 2, device="cuda", dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.ops.gemmkit.bmm, (a, b))


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("a_shape, b_shape", [
    ((4, 9, 7), (4, 7, 5)),        # bmm
    ((4, 9, 7), (7, 5)),           # a batch against one matrix: mm of the rows
    ((1, 9, 7), (4, 7, 5)),        # a broadcast
    ((2, 1, 9, 7), (3, 7, 5)),     # both broadcast
])
def test_matmul_routes_autograd_through_the_ops(a_shape, b_shape):
    a, b = rand(*a_shape, requires_grad=True), rand(*b_shape, requires_grad=True)
    out = gemmkit.matmul(a, b)
    assert out.grad_fn is not None
    grad = torch.randn_like(out)
    out.backward(grad)
    a2, b2 = a.detach().double().requires_grad_(), b.detach().double().requires_grad_()
    ref = torch.matmul(a2, b2)
    ref.backward(grad.double())
    assert rel_err(out, ref) < 1e-5
    assert rel_err(a.grad, a2.grad) < 1e-5 and rel_err(b.grad, b2.grad) < 1e-5


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_bmm_routes_autograd_through_the_op():
    a, b = rand(3, 8, 5, requires_grad=True), rand(3, 5, 6, requires_grad=True)
    gemmkit.bmm(a, b).sum().backward()
    assert rel_err(a.grad, torch.ones(3, 8, 6, device="cuda") @ b.detach().transpose(1, 2)) < 1e-5
    assert rel_err(b.grad, a.detach().transpose(1, 2) @ torch.ones(3, 8, 6, device="cuda")) < 1e-5


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_torch_compile_fullgraph_bmm():
    torch._dynamo.reset()

    def attention_scores(q, k, v):
        s = torch.ops.gemmkit.bmm(q, k.transpose(1, 2)) * q.shape[-1] ** -0.5
        return torch.ops.gemmkit.bmm(torch.softmax(s, dim=-1), v)

    q, k, v = (rand(4, 32, 16, dtype="bfloat16") for _ in range(3))
    eager = attention_scores(q, k, v)
    compiled = torch.compile(attention_scores, fullgraph=True)(q, k, v)  # a graph break raises
    explanation = torch._dynamo.explain(attention_scores)(q, k, v)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1
    assert rel_err(compiled, eager) < 2e-2


@needs_torch_gpu
@pytest.mark.usefixtures("seeded")
def test_cuda_graph_replay_of_batches():
    static_a, static_b, static_w = rand(6, 48, 32), rand(6, 32, 40), rand(32, 24)

    def run():
        return (gemmkit.matmul(static_a, static_b), torch.ops.gemmkit.bmm(static_a, static_b),
                gemmkit.matmul(static_a[::2], static_w))  # a strided batch against one matrix

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up on a side stream, as torch.cuda.graphs asks
        for _ in range(2):
            run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = run()
    for _ in range(2):
        static_a.copy_(rand(6, 48, 32))
        static_b.copy_(rand(6, 32, 40))
        graph.replay()
        torch.cuda.synchronize()
        refs = (torch.matmul(static_a.double(), static_b.double()),) * 2 + (
            torch.matmul(static_a[::2].double(), static_w.double()),)
        for out, ref in zip(outs, refs):
            assert rel_err(out, ref) < 1e-5  # a stale replay would be off by ~100%

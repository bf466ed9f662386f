"""Grouped GEMM from Python: gemmkit.grouped_mm (a mixture of experts' layer in one launch).

Without a GPU: the checks (shapes, dtypes, offs), and the call that reaches the C API (the
binding replaced by a recorder: the row-major to column-major mapping, strides, the bias's
stride). With torch and a GPU: results against one torch matmul a group, empty groups, a
bias, rows past offs[-1] left alone, and a CUDA graph replayed with new offs."""

import pytest

from conftest import HAS_TORCH, needs_torch_gpu

import gemmkit
from gemmkit import _C, _api

if HAS_TORCH:
    import torch


class Arr:
    """__cuda_array_interface__ of shape and element strides at a made-up address."""

    def __init__(self, shape, strides=None, ptr=0, typestr="<f2"):
        item = {"<f4": 4, "<f2": 2, "<i4": 4, "<i8": 8}[typestr]
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False), "version": 3,
            "strides": None if strides is None else tuple(s * item for s in strides)}


X0, W0, O0, E0, B0 = 0x100000, 0x200000, 0x300000, 0x400000, 0x500000
GROUPED_ARGS = ("stream", "device", "transa", "transb", "m", "n", "k", "alpha", "A", "a_type", "lda", "stride_a", "B",
                "b_type", "ldb", "beta", "C", "c_type", "ldc", "ends", "group_count", "compute", "bias",
                "bias_stride", "kernel")


@pytest.fixture
def calls(monkeypatch):
    log = []

    def grouped(*args):
        log.append(dict(zip(GROUPED_ARGS, args)))
        return 0

    monkeypatch.setattr(_C, "gemm_grouped", grouped)
    monkeypatch.setattr(_C, "pointer_device", lambda ptr: 0)
    return log


def test_signature():
    import inspect

    assert list(inspect.signature(gemmkit.grouped_mm).parameters) == ["x", "weight", "offs", "bias", "out", "kernel",
                                                                     "stream"]
    assert "grouped_mm" in gemmkit.__all__


def test_a_layer_is_one_grouped_call_in_column_major_terms(calls):
    x, w, out = Arr((300, 64), ptr=X0), Arr((4, 128, 64), ptr=W0), Arr((300, 128), ptr=O0)
    gemmkit.grouped_mm(x, w, Arr((4,), ptr=E0, typestr="<i4"), out=out, stream=0)
    (c,) = calls
    # C = out^T: 128 features x 300 tokens; A = weight[g] with op T; B = x^T as stored.
    assert (c["transa"], c["transb"], c["m"], c["n"], c["k"]) == (1, 0, 128, 300, 64)
    assert (c["A"], c["lda"], c["stride_a"], c["B"], c["ldb"], c["C"], c["ldc"]) == (W0, 64, 128 * 64, X0, 64, O0, 128)
    assert (c["ends"], c["group_count"], c["bias"], c["bias_stride"]) == (E0, 4, 0, 0)


def test_a_bias_moves_by_its_row_stride(calls):
    x, w, out = Arr((300, 64), ptr=X0), Arr((4, 128, 64), ptr=W0), Arr((300, 128), ptr=O0)
    gemmkit.grouped_mm(x, w, Arr((4,), ptr=E0, typestr="<i4"), bias=Arr((4, 128), (136, 1), ptr=B0), out=out,
                       stream=0)
    assert (calls[0]["bias"], calls[0]["bias_stride"]) == (B0, 136)


@pytest.mark.parametrize("x, w, offs, match, error", [
    (Arr((300, 64)), Arr((4, 128, 64)), Arr((4,), typestr="<i8"), "offs", TypeError),
    (Arr((300, 64)), Arr((4, 128, 64)), Arr((3,), typestr="<i4"), "offs has 3 ends", ValueError),
    (Arr((300, 64)), Arr((4, 128, 64)), Arr((2, 2), typestr="<i4"), "offs must be 1-D", ValueError),
    (Arr((300, 64)), Arr((4, 128, 64)), Arr((4,), (2,), typestr="<i4"), "offs must be contiguous", ValueError),
    (Arr((300, 48)), Arr((4, 128, 64)), Arr((4,), typestr="<i4"), "x has 48 features", ValueError),
    (Arr((300, 64)), Arr((128, 64)), Arr((4,), typestr="<i4"), "weight must be 3-D", ValueError),
    (Arr((300, 64), typestr="<f4"), Arr((4, 128, 64), typestr="<f4"), Arr((4,), typestr="<i4"),
     "float16 and bfloat16", TypeError),
    (Arr((300, 64), (1, 300)), Arr((4, 128, 64)), Arr((4,), typestr="<i4"), "x's last dimension", ValueError),
])
def test_bad_arguments_name_themselves(calls, x, w, offs, match, error):
    with pytest.raises(error, match=match):
        gemmkit.grouped_mm(x, w, offs, out=Arr((300, 128)), stream=0)
    assert calls == []


def test_out_shape_is_checked(calls):
    with pytest.raises(ValueError, match="out has shape"):
        gemmkit.grouped_mm(Arr((300, 64)), Arr((4, 128, 64)), Arr((4,), typestr="<i4"), out=Arr((300, 64)), stream=0)


def test_c_api_message_reaches_python(monkeypatch):
    monkeypatch.setattr(_C, "pointer_device", lambda ptr: 0)
    # The real binding: A is NULL (address 0), which the C API names.
    with pytest.raises(gemmkit.InvalidValueError, match="A is NULL"):
        gemmkit.grouped_mm(Arr((300, 64), ptr=0), Arr((4, 128, 64), ptr=0), Arr((4,), ptr=E0, typestr="<i4"),
                           out=Arr((300, 128), ptr=O0), stream=0)


def reference(x, w, offs, bias=None):
    out = torch.zeros(x.shape[0], w.shape[1], dtype=torch.float32, device=x.device)
    begin = 0
    for g, end in enumerate(offs.tolist()):
        out[begin:end] = x[begin:end].float() @ w[g].float().T + (0 if bias is None else bias[g].float())
        begin = end
    return out


@needs_torch_gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_results_match_one_matmul_a_group(dtype):
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the grouped kernel needs sm_90")
    torch.manual_seed(0)
    t = getattr(torch, dtype)
    x = torch.randn(1000, 256, dtype=t, device="cuda")
    w = torch.randn(6, 384, 256, dtype=t, device="cuda") / 16
    bias = torch.randn(6, 384, dtype=t, device="cuda")
    offs = torch.tensor([16, 16, 300, 301, 700, 960], dtype=torch.int32, device="cuda")  # rows 960.. not written
    out = torch.full((1000, 384), 7.0, dtype=t, device="cuda")
    gemmkit.grouped_mm(x, w, offs, bias=bias, out=out)
    want = reference(x, w, offs, bias)
    torch.testing.assert_close(out[:960].float(), want[:960], rtol=2e-2, atol=2e-2)
    assert bool((out[960:] == 7.0).all())


@needs_torch_gpu
def test_a_cuda_graph_reads_new_offs_on_replay():
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the grouped kernel needs sm_90")
    x = torch.randn(512, 128, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(4, 256, 128, dtype=torch.bfloat16, device="cuda") / 8
    offs = torch.tensor([128, 256, 384, 512], dtype=torch.int32, device="cuda")
    out = torch.zeros(512, 256, dtype=torch.bfloat16, device="cuda")
    gemmkit.grouped_mm(x, w, offs, out=out)  # warm up outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        gemmkit.grouped_mm(x, w, offs, out=out)
    for ends in ([100, 100, 400, 512], [0, 0, 0, 512]):
        offs.copy_(torch.tensor(ends, dtype=torch.int32))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out.float(), reference(x, w, offs), rtol=2e-2, atol=2e-2)

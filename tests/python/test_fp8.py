"""FP8 from Python: gemmkit.scaled_mm (gemmkit_gemm_scaled_ex), as torch._scaled_mm.

Without a GPU: the shape and scale checks (check_scaled_mm), and that anything but torch
tensors is refused. With torch and an sm_90 GPU: results against the product of the
dequantized inputs in float64, per-tensor and row/column scales, every output type, a bias,
an E5M2 operand, and torch._scaled_mm on the same inputs where torch has it."""

import pytest

from conftest import HAS_TORCH, needs_torch_gpu

import gemmkit
from gemmkit import _api

if HAS_TORCH:
    import torch


def test_signature():
    import inspect

    assert list(inspect.signature(gemmkit.scaled_mm).parameters) == ["a", "b", "scale_a", "scale_b", "out_dtype",
                                                                    "bias", "use_fast_accum", "out", "kernel"]
    assert "scaled_mm" in gemmkit.__all__


def test_shapes_and_scale_modes():
    assert _api.check_scaled_mm((64, 128), (128, 32), 1, 1) == ((64, 32), _api.SCALE_TENSOR)
    assert _api.check_scaled_mm((64, 128), (128, 32), 64, 32) == ((64, 32), _api.SCALE_OUTER)
    with pytest.raises(ValueError, match="a's columns must equal b's rows"):
        _api.check_scaled_mm((64, 128), (96, 32), 1, 1)
    with pytest.raises(ValueError, match="scale_a has 64 values and scale_b 1"):
        _api.check_scaled_mm((64, 128), (128, 32), 64, 1)
    with pytest.raises(ValueError, match="must be 2-D"):
        _api.check_scaled_mm((2, 64, 128), (128, 32), 1, 1)


def test_other_arrays_are_refused():
    with pytest.raises(TypeError, match="torch tensors"):
        gemmkit.scaled_mm([1], [2], [1.0], [1.0])


def _sm90():
    return HAS_TORCH and torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)


needs_sm90 = pytest.mark.skipif(not _sm90(), reason="needs torch and an sm_90 GPU (FP8 wgmma)")


def _operands(m, n, k, a_dtype=None, b_dtype=None, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.randn(m, k, device="cuda", generator=g) * 2).to(a_dtype or torch.float8_e4m3fn)
    b = (torch.randn(n, k, device="cuda", generator=g) * 2).to(b_dtype or torch.float8_e4m3fn).t()  # column-major
    return a, b


def _reference(a, b, sa, sb, bias=None):
    r = (a.double() * sa.double().reshape(-1, 1)) @ (b.double() * sb.double().reshape(1, -1))
    return r if bias is None else r + bias.double()


@needs_torch_gpu
@needs_sm90
@pytest.mark.parametrize("out_dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("rowwise", [False, True])
@pytest.mark.parametrize("shape", [(1, 16, 16), (127, 129, 48), (256, 512, 1024), (1000, 40, 4096)])
def test_matches_the_dequantized_product(out_dtype, rowwise, shape):
    m, n, k = shape
    out_dtype = getattr(torch, out_dtype)
    a, b = _operands(m, n, k)
    if rowwise:
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") + 0.5
    else:
        sa = torch.tensor(0.75, device="cuda")
        sb = torch.tensor(1.25, device="cuda")
    out = gemmkit.scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
    ref = _reference(a, b, sa, sb)
    assert out.dtype == out_dtype and out.shape == (m, n)
    # FP8 products are exact, but the tensor cores add them up in fewer bits than FP32 (about
    # 13, measured on the H200; docs/ladder/fp8.md#step-01): that summation over k, plus out's
    # rounding. A scale applied wrongly is off by 10% or more.
    rounding = {torch.bfloat16: 2**-8, torch.float16: 2**-11, torch.float32: 2**-22}[out_dtype]
    scale = ref.abs().max().item() + 1e-30
    assert (out.double() - ref).abs().max().item() <= scale * (2 * rounding + 2**-13 * k**0.5)


@needs_torch_gpu
@needs_sm90
def test_bias_and_an_e5m2_operand():
    m, n, k = 200, 96, 512
    a, b = _operands(m, n, k, b_dtype=torch.float8_e5m2)
    sa, sb = torch.tensor(2.0, device="cuda"), torch.tensor(0.5, device="cuda")
    bias = torch.randn(n, device="cuda").to(torch.bfloat16)
    out = gemmkit.scaled_mm(a, b, sa, sb, bias=bias)
    ref = _reference(a, b, sa, sb, bias)
    assert (out.double() - ref).abs().max().item() <= ref.abs().max().item() * 2**-7


@needs_torch_gpu
@needs_sm90
def test_agrees_with_torch_scaled_mm():
    m, n, k = 512, 256, 1024
    a, b = _operands(m, n, k, seed=3)
    sa, sb = torch.tensor(1.5, device="cuda"), torch.tensor(0.25, device="cuda")
    ours = gemmkit.scaled_mm(a, b, sa, sb, out_dtype=torch.float32)
    theirs = torch._scaled_mm(a, b, sa, sb, out_dtype=torch.float32)
    # cuBLASLt moves its sums into FP32 as it goes; fp8.01 keeps them in the tensor cores' own
    # accumulation (docs/ladder/fp8.md#step-01): measured 1e-3 of the largest value apart.
    assert (ours - theirs).abs().max().item() <= 2**-8 * theirs.abs().max().item()


@needs_torch_gpu
@needs_sm90
def test_fast_accum_keeps_the_sums_in_the_tensor_cores():
    m, n, k = 256, 256, 16384
    a, b = _operands(m, n, k, seed=5)
    one = torch.tensor(1.0, device="cuda")
    ref = _reference(a, b, one, one)
    err = {}
    for fast in (False, True):
        out = gemmkit.scaled_mm(a, b, one, one, out_dtype=torch.float32, use_fast_accum=fast)
        err[fast] = ((out.double() - ref).norm() / ref.norm()).item()
    # Both within the bound of the sums kept in ~13 bits; moved into FP32 every 128 of k, the
    # error is the smaller (docs/ladder/fp8.md#step-02).
    assert err[True] <= 2**-13 * k**0.5
    assert err[False] < err[True]


@needs_torch_gpu
@needs_sm90
def test_the_torch_op_checks_and_compiles():
    a, b = _operands(128, 64, 256, seed=7)
    sa, sb = torch.tensor(0.5, device="cuda"), torch.tensor(2.0, device="cuda")
    before = [t.view(torch.uint8).clone() for t in (a, b)]
    # opcheck's test_schema compares inputs before and after the call with arithmetic that
    # PyTorch 2.11 lacks for float8 ("mul_cuda" not implemented for 'Float8_e4m3fn'), so the
    # other three checks run here and the no-mutation rule is checked on the operands' bytes.
    torch.library.opcheck(torch.ops.gemmkit.scaled_mm.default, (a, b, sa, sb),
                          test_utils=("test_autograd_registration", "test_faketensor",
                                      "test_aot_dispatch_dynamic"))
    torch.ops.gemmkit.scaled_mm(a, b, sa, sb)
    assert all(torch.equal(x.view(torch.uint8), y) for x, y in zip((a, b), before))
    compiled = torch.compile(lambda a, b: torch.ops.gemmkit.scaled_mm(a, b, sa, sb), fullgraph=True)
    assert torch.equal(compiled(a, b), gemmkit.scaled_mm(a, b, sa, sb))


@needs_torch_gpu
@needs_sm90
def test_bad_layouts_are_refused_before_any_work():
    a, b = _operands(64, 32, 128)
    one = torch.tensor(1.0, device="cuda")
    with pytest.raises(ValueError, match="column-major"):
        gemmkit.scaled_mm(a, b.contiguous(), one, one)
    with pytest.raises(TypeError, match="float8"):
        gemmkit.scaled_mm(a.to(torch.bfloat16), b, one, one)
    out = torch.full((64, 32), 7.0, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="scale_a has"):
        gemmkit.scaled_mm(a, b, torch.ones(64, device="cuda"), one, out=out)
    assert bool((out == 7.0).all())


# --- quantize_fp8 -----------------------------------------------------------------------------

def test_quantize_refuses_other_arrays():
    with pytest.raises(TypeError, match="torch tensor"):
        gemmkit.quantize_fp8([1.0, 2.0])
    assert "quantize_fp8" in gemmkit.__all__


def _fp8_max(dtype):
    return 448.0 if dtype == torch.float8_e4m3fn else 57344.0


@needs_torch_gpu
@pytest.mark.parametrize("scaling", ["tensor", "row"])
@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("x_dtype", ["bfloat16", "float16", "float32"])
def test_quantize_follows_the_rule(scaling, dtype, x_dtype):
    dtype, x_dtype = getattr(torch, dtype), getattr(torch, x_dtype)
    g = torch.Generator(device="cuda").manual_seed(5)
    x = (torch.randn(37, 300, device="cuda", generator=g) * torch.logspace(-3, 3, 37, device="cuda")[:, None])
    x[4] = 0  # an all-zero row
    x = x.to(x_dtype)
    q, scale = gemmkit.quantize_fp8(x, dtype, scaling=scaling)
    assert q.dtype == dtype and q.shape == x.shape and scale.dtype == torch.float32
    amax = x.float().abs().amax(dim=1 if scaling == "row" else None)
    # The rule's float divisions, correctly rounded: in double, then to float (exact for one
    # division of floats). Not amax / 448 on float tensors: PyTorch's CUDA division by a scalar
    # multiplies by its reciprocal, an ulp off.
    want = torch.where(amax == 0, torch.ones_like(amax), (amax.double() / _fp8_max(dtype)).float())
    assert torch.equal(scale, want)
    inv = (1.0 / (want[:, None] if scaling == "row" else want).double()).float()
    expected = (x.float() * inv).clamp(-_fp8_max(dtype), _fp8_max(dtype)).to(dtype)
    assert torch.equal(q.view(torch.uint8), expected.view(torch.uint8))


@needs_sm90
def test_quantized_operands_multiply_close_to_the_originals():
    g = torch.Generator(device="cuda").manual_seed(9)
    a = torch.randn(64, 512, device="cuda", generator=g, dtype=torch.bfloat16)
    w = torch.randn(48, 512, device="cuda", generator=g, dtype=torch.bfloat16)  # a weight (N, K)
    qa, sa = gemmkit.quantize_fp8(a, scaling="row")
    qw, sw = gemmkit.quantize_fp8(w, scaling="row")
    out = gemmkit.scaled_mm(qa, qw.t(), sa, sw, out_dtype=torch.float32)
    ref = a.double() @ w.double().t()
    assert ((out.double() - ref).norm() / ref.norm()).item() < 0.0625


@needs_torch_gpu
def test_quantize_checks_its_arguments():
    x = torch.ones(4, 8, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="float8"):
        gemmkit.quantize_fp8(x, torch.float16)
    with pytest.raises(TypeError, match="x is torch.float64"):
        gemmkit.quantize_fp8(x.double())
    with pytest.raises(ValueError, match="'tensor' or 'row'"):
        gemmkit.quantize_fp8(x, scaling="column")
    with pytest.raises(ValueError, match="rows contiguous"):
        gemmkit.quantize_fp8(x.t())
    q, scale = gemmkit.quantize_fp8(x[:0])
    assert q.shape == (0, 8) and scale.item() == 1.0

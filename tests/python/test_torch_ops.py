"""torch.ops.gemmkit without a GPU: the operators are registered with the documented schemas,
their fake (meta) implementations give the result shapes and refuse bad ones, and
torch.export traces a model through them as one graph. Skipped where torch is missing."""

import pytest

from conftest import HAS_TORCH, needs_torch

pytestmark = needs_torch

if HAS_TORCH:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

import gemmkit  # noqa: F401  (registers the operators)


def test_schemas():
    assert str(torch.ops.gemmkit.mm.default._schema) == "gemmkit::mm(Tensor a, Tensor b) -> Tensor"
    assert str(torch.ops.gemmkit.bmm.default._schema) == "gemmkit::bmm(Tensor a, Tensor b) -> Tensor"
    assert (str(torch.ops.gemmkit.linear.default._schema)
            == "gemmkit::linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor")
    assert (str(torch.ops.gemmkit.scaled_mm.default._schema)
            == "gemmkit::scaled_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
               "ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor")


def test_scaled_mm_fake_shapes_and_refusals():
    m = dict(device="meta")
    a = torch.empty(7, 64, dtype=torch.float8_e4m3fn, **m)
    b = torch.empty(32, 64, dtype=torch.float8_e4m3fn, **m).t()
    one = torch.empty((), **m)
    y = torch.ops.gemmkit.scaled_mm(a, b, one, one)
    assert y.shape == (7, 32) and y.dtype == torch.bfloat16
    z = torch.ops.gemmkit.scaled_mm(a, b, torch.empty(7, 1, **m), torch.empty(1, 32, **m), out_dtype=torch.float32)
    assert z.shape == (7, 32) and z.dtype == torch.float32
    with pytest.raises(ValueError, match="gemmkit::scaled_mm: scale_a has 7 values and scale_b 1"):
        torch.ops.gemmkit.scaled_mm(a, b, torch.empty(7, **m), one)
    with pytest.raises(TypeError, match="gemmkit::scaled_mm: a is torch.bfloat16"):
        torch.ops.gemmkit.scaled_mm(a.to(torch.bfloat16), b, one, one)


@pytest.mark.parametrize("device", ["meta", "fake"])
def test_fake_shapes(device):
    def make(*shape, dtype=torch.bfloat16):
        return torch.empty(*shape, dtype=dtype, device="meta" if device == "meta" else "cpu")

    def run():
        y = torch.ops.gemmkit.mm(make(7, 33), make(33, 129))
        z = torch.ops.gemmkit.linear(make(2, 5, 64), make(48, 64), make(48))
        v = torch.ops.gemmkit.linear(make(64), make(48, 64))
        w = torch.ops.gemmkit.bmm(make(3, 7, 33), make(3, 33, 129))
        e = torch.ops.gemmkit.bmm(make(0, 7, 33), make(0, 33, 5))
        return y, z, v, w, e

    if device == "fake":
        with FakeTensorMode():
            y, z, v, w, e = run()
    else:
        y, z, v, w, e = run()
    assert y.shape == (7, 129) and y.dtype == torch.bfloat16
    assert z.shape == (2, 5, 48)
    assert v.shape == (48,)
    assert w.shape == (3, 7, 129) and w.dtype == torch.bfloat16
    assert e.shape == (0, 7, 5)


def test_fake_refuses_bad_shapes_and_types():
    m = dict(device="meta")
    with pytest.raises(ValueError, match="must equal"):
        torch.ops.gemmkit.mm(torch.empty(3, 4, **m), torch.empty(5, 6, **m))
    with pytest.raises(ValueError, match="gemmkit::mm takes matrices"):
        torch.ops.gemmkit.mm(torch.empty(2, 3, 4, **m), torch.empty(4, 6, **m))
    with pytest.raises(TypeError, match="a is float32 and b is float16"):
        torch.ops.gemmkit.mm(torch.empty(3, 4, **m), torch.empty(4, 6, dtype=torch.float16, **m))
    with pytest.raises(ValueError, match=r"bias has shape \(7,\)"):
        torch.ops.gemmkit.linear(torch.empty(3, 4, **m), torch.empty(6, 4, **m), torch.empty(7, **m))


def test_bmm_fake_refuses_bad_shapes_and_types():
    m = dict(device="meta")
    with pytest.raises(ValueError, match=r"a has shape \(3, 4\) and b \(4, 5\); bmm takes batches of matrices"):
        torch.ops.gemmkit.bmm(torch.empty(3, 4, **m), torch.empty(4, 5, **m))
    with pytest.raises(ValueError, match="bmm takes batches of matrices"):
        torch.ops.gemmkit.bmm(torch.empty(1, 2, 3, 4, **m), torch.empty(1, 2, 4, 5, **m))
    with pytest.raises(ValueError, match=r"a has a batch of 2 and b of 1; bmm needs one batch size"):
        torch.ops.gemmkit.bmm(torch.empty(2, 3, 4, **m), torch.empty(1, 4, 5, **m))
    with pytest.raises(ValueError, match=r"a's last dimension \(4\) must equal b's second-to-last \(6\)"):
        torch.ops.gemmkit.bmm(torch.empty(2, 3, 4, **m), torch.empty(2, 6, 5, **m))
    with pytest.raises(TypeError, match="a is float32 and b is bfloat16"):
        torch.ops.gemmkit.bmm(torch.empty(2, 3, 4, **m), torch.empty(2, 4, 5, dtype=torch.bfloat16, **m))


def test_export_traces_one_graph():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(64, 128)
            self.down = torch.nn.Linear(128, 64)

        def forward(self, x):
            h = torch.relu(torch.ops.gemmkit.linear(x, self.up.weight, self.up.bias))
            y = torch.ops.gemmkit.linear(h, self.down.weight, self.down.bias)
            z = torch.ops.gemmkit.mm(y, y.t())
            return torch.ops.gemmkit.bmm(z.reshape(4, 4, 16), y.reshape(4, 16, 16))

    with FakeTensorMode(allow_non_fake_inputs=True):
        exported = torch.export.export(Block(), (torch.empty(16, 64),))
    targets = [str(n.target) for n in exported.graph.nodes if n.op == "call_function"]
    assert targets.count("gemmkit.linear.default") == 2
    assert targets.count("gemmkit.mm.default") == 1
    assert targets.count("gemmkit.bmm.default") == 1


def test_autograd_is_registered():
    # The backward formulas on meta tensors: shapes of every gradient.
    a = torch.empty(5, 4, device="meta", requires_grad=True)
    b = torch.empty(4, 3, device="meta", requires_grad=True)
    ga, gb = torch.autograd.grad(torch.ops.gemmkit.mm(a, b), (a, b), torch.empty(5, 3, device="meta"))
    assert ga.shape == a.shape and gb.shape == b.shape
    a3 = torch.empty(2, 5, 4, device="meta", requires_grad=True)
    b3 = torch.empty(2, 4, 3, device="meta", requires_grad=True)
    ga, gb = torch.autograd.grad(torch.ops.gemmkit.bmm(a3, b3), (a3, b3), torch.empty(2, 5, 3, device="meta"))
    assert ga.shape == a3.shape and gb.shape == b3.shape
    x = torch.empty(2, 3, 4, device="meta", requires_grad=True)
    w = torch.empty(6, 4, device="meta", requires_grad=True)
    bias = torch.empty(6, device="meta", requires_grad=True)
    grads = torch.autograd.grad(torch.ops.gemmkit.linear(x, w, bias), (x, w, bias), torch.empty(2, 3, 6, device="meta"))
    assert [g.shape for g in grads] == [x.shape, w.shape, bias.shape]

"""gemmkit.dist: its arguments checked before any call (no GPU needed: a context stand-in and
CPU tensors), and, on 2 GPUs, both layers against torch over 2 processes. Skipped, with the
reason, where libgemmkit_dist.so was not built (no NCCL), torch is missing, or GPUs are."""

import ctypes
import os

import pytest

from conftest import HAS_TORCH, HAS_TORCH_CUDA, needs_torch

import gemmkit
from gemmkit import dist as gd

if HAS_TORCH:
    import torch

needs_dist = pytest.mark.skipif(not gd.available(), reason=f"gemmkit.dist: {gd.unavailable_reason()}")

# Relative Frobenius error bounds against an FP64 reference, as in test_gpu_torch.py.
TOL = {"bfloat16": 2e-2, "float16": 5e-3}


def test_is_the_package_attribute():
    assert gemmkit.dist is gd


def test_available_says_why_not():
    assert isinstance(gd.available(), bool)
    assert (gd.unavailable_reason() == "") == gd.available()


@needs_dist
def test_row_begin_is_the_libraries():
    # 10 rows over 3 ranks: 4, 3, 3 (the first m % P ranks hold one more).
    assert [gd.row_begin(10, 3, r) for r in range(4)] == [0, 4, 7, 10]
    with pytest.raises(ValueError, match="needs m >= 0"):
        gd.row_begin(10, 3, 4)
    with pytest.raises(TypeError, match="ranks is a float"):
        gd.row_begin(10, 3.0, 1)


@needs_dist
def test_c_api_names_what_is_wrong():
    lib = gd._load()
    out = ctypes.c_void_p(1)
    assert lib.gemmkit_dist_create(None, None, ctypes.byref(out)) == 1  # GEMMKIT_INVALID_VALUE
    assert out.value is None
    assert "comm" in lib.gemmkit_dist_last_error().decode()


@needs_dist
@needs_torch
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(schedule="fast"), ValueError, "schedule = 'fast'"),
    (dict(comm_sms=-1), ValueError, r"comm_sms = -1 is not in 0\.\.64"),
    (dict(comm_sms=65), ValueError, r"comm_sms = 65 is not in 0\.\.64"),
    (dict(comm_sms="8"), TypeError, "comm_sms is a str"),
    (dict(timeout_ms=-5), ValueError, "timeout_ms = -5 is negative"),
])
def test_context_options_are_checked_first(kwargs, error, match):
    with pytest.raises(error, match=match):
        gd.Context(**kwargs)


@needs_dist
@needs_torch
def test_context_needs_torch_distributed():
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        pytest.skip("a process group is already initialized here")
    with pytest.raises(RuntimeError, match="init_process_group"):
        gd.Context()


def stand_in(rank, size, device=0):
    """A context as the checks see it, with no communicator behind it (close() does nothing)."""
    ctx = gd.Context.__new__(gd.Context)
    ctx._lib, ctx._handle, ctx._comm = gd._load(), 0, None
    ctx.rank, ctx.size, ctx.device, ctx.schedule = rank, size, device, "auto"
    return ctx


def cpu(*shape, dtype=None):
    return torch.zeros(*shape, dtype=dtype or torch.bfloat16)


@needs_dist
@needs_torch
@pytest.mark.parametrize("call, error, match", [
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(5, 8), "ctx"), TypeError, "ctx is a str"),
    (lambda c: gd.all_gather_linear([[1.0]], cpu(5, 8), c), TypeError, "x_local is a builtins.list"),
    (lambda c: gd.all_gather_linear(cpu(8), cpu(5, 8), c), ValueError, r"x_local has shape \(8,\)"),
    (lambda c: gd.all_gather_linear(cpu(3, 8, dtype=torch.float32), cpu(5, 8), c), TypeError,
     "x_local has dtype torch.float32"),
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(5, 8, dtype=torch.float16), c), TypeError,
     "x_local is torch.bfloat16 and weight is torch.float16"),
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(8, 5).t(), c), ValueError,
     r"weight has strides \(1, 5\); its last dimension must have stride 1"),
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(5, 7), c), ValueError,
     "its second dimension must be x_local's k = 8"),
    # rank 1 of 3 holds rows [4, 7) of m = 10: 3 rows, not 4.
    (lambda c: gd.all_gather_linear(cpu(4, 8), cpu(5, 8), c, m=10), ValueError,
     r"x_local has 4 rows; rank 1 of 3 holds rows \[4, 7\) of m = 10"),
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(5, 8), c, m=10.0), TypeError, "m is a float"),
    (lambda c: gd.all_gather_linear(cpu(3, 8), cpu(5, 8), c, m=10), ValueError,
     "x_local is on cpu; ctx's device is cuda:0"),
    (lambda c: gd.linear_reduce_scatter(cpu(10, 8), cpu(6, 4), c), ValueError,
     "its second dimension must be x's k_local = 8"),
    (lambda c: gd.linear_reduce_scatter(cpu(10, 8)[:, ::2], cpu(6, 4), c), ValueError,
     r"x has strides \(8, 2\)"),
    (lambda c: gd.linear_reduce_scatter(cpu(10, 8), cpu(6, 8), c), ValueError, "x is on cpu"),
])
def test_op_arguments_are_checked_before_any_call(call, error, match):
    with pytest.raises(error, match=match):
        call(stand_in(rank=1, size=3))


@needs_dist
@needs_torch
def test_closed_context_is_refused():
    ctx = stand_in(rank=0, size=2)
    ctx.close()
    with pytest.raises(ValueError, match="ctx is closed"):
        gd.linear_reduce_scatter(cpu(4, 8), cpu(6, 8), ctx)


# Two processes, one GPU each. Every rank makes the same full tensors (same seed, on the CPU),
# takes its share, and checks its result against torch on its own GPU.

def rel_err(out, ref):
    out, ref = out.double(), ref.double()
    return ((out - ref).norm() / ref.norm().clamp_min(1e-300)).item()


def _worker(rank, world, folder):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    torch.distributed.init_process_group("nccl", init_method=f"file://{folder}/init", rank=rank, world_size=world)
    try:
        checked = []
        for schedule in ("auto", "sequential", "overlap"):
            with gd.Context(schedule=schedule, timeout_ms=30000) as ctx:
                assert (ctx.rank, ctx.size, ctx.device) == (rank, world, rank)
                for dtype in (torch.bfloat16, torch.float16):
                    name = str(dtype).replace("torch.", "")
                    for m in (64, 37):  # 37: ranks hold 19 and 18 rows
                        g = torch.Generator().manual_seed(1000 + m)
                        begin, end = gd.row_begin(m, world, rank), gd.row_begin(m, world, rank + 1)

                        # AllGather-GEMM: x [m, 96] by rows, w [2 * 40, 96] by output features.
                        k, n_local = 96, 40
                        x = torch.randn(m, k, generator=g).to(dtype).cuda()
                        w = torch.randn(world * n_local, k, generator=g).to(dtype).cuda()
                        w_local = w[rank * n_local:(rank + 1) * n_local]
                        y = gd.all_gather_linear(x[begin:end], w_local, ctx, m=None if m % world == 0 else m)
                        assert y.shape == (m, n_local) and y.dtype == dtype
                        err = rel_err(y, x.double() @ w.double().T[:, rank * n_local:(rank + 1) * n_local])
                        assert err < TOL[name], (schedule, name, m, "all_gather_linear", err)
                        assert gd.last_plan() != ""

                        # GEMM-ReduceScatter: x [m, 2 * 48] and w [72, 2 * 48] by input features;
                        # the slices are strided views (ld = 96), not copies.
                        k_local, n = 48, 72
                        x = torch.randn(m, world * k_local, generator=g).to(dtype).cuda()
                        w = torch.randn(n, world * k_local, generator=g).to(dtype).cuda()
                        part = slice(rank * k_local, (rank + 1) * k_local)
                        y = gd.linear_reduce_scatter(x[:, part], w[:, part], ctx)
                        assert y.shape == (end - begin, n) and y.dtype == dtype
                        err = rel_err(y, (x.double() @ w.double().T)[begin:end])
                        assert err < TOL[name], (schedule, name, m, "linear_reduce_scatter", err)
                        checked.append((schedule, name, m))

                # The ranks disagree on m: every rank gets the library's error, and nothing hangs.
                x = torch.randn(16 + rank, 32, device="cuda", dtype=torch.bfloat16)
                w = torch.randn(24, 32, device="cuda", dtype=torch.bfloat16)
                with pytest.raises(RuntimeError, match="m differs between ranks"):
                    gd.linear_reduce_scatter(x, w, ctx)
        torch.cuda.synchronize()
        with open(f"{folder}/rank{rank}", "w") as f:
            f.write(str(len(checked)))
    finally:
        torch.distributed.destroy_process_group()


@needs_dist
@pytest.mark.skipif(not HAS_TORCH_CUDA or torch.cuda.device_count() < 2,
                    reason="needs torch with 2 CUDA devices")
def test_two_gpus_match_torch(tmp_path):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    import torch.multiprocessing as mp

    mp.spawn(_worker, args=(2, str(tmp_path)), nprocs=2, join=True)
    # 3 schedules x 2 dtypes x 2 shapes, each both layers, on each rank.
    assert [(tmp_path / f"rank{r}").read_text() for r in range(2)] == ["12", "12"]

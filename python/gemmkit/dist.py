"""gemmkit.dist: tensor-parallel linear layers on NCCL, for torch tensors and a
torch.distributed process group (the C library gemmkit_dist, docs/dist.md).

    import torch, torch.distributed as dist, gemmkit.dist as gd
    dist.init_process_group("nccl")                   # one process per GPU
    torch.cuda.set_device(dist.get_rank())
    with gd.Context() as ctx:                         # collective over the group
        h = gd.all_gather_linear(x_local, w_up, ctx)  # column-parallel: [m, n_local]
        y = gd.linear_reduce_scatter(h, w_down, ctx)  # row-parallel: this rank's rows of [m, n]

Weights are in torch.nn.Linear's layout, [out, in]. Every call is collective: all ranks of the
context call it with the same shape (the library checks, and every rank gets the error
otherwise). Calls run on torch's current stream and return without waiting.

libgemmkit_dist.so is loaded with ctypes from beside this file (or from the path in
GEMMKIT_DIST_LIBRARY), and NCCL's libnccl.so.2 from the process (PyTorch's), NCCL_ROOT or the
nvidia-nccl-cu13 wheel. Importing this module needs neither, nor torch: available() says whether
the library loads, and why not.
"""

import ctypes
import importlib.util
import os

# gemmkit_dtype, gemmkit_op, gemmkit_status (gemmkit.h); gemmkit_dist_schedule (gemmkit_dist.h).
_R_16F, _R_16BF = 2, 3
_OP_T = 1
_SCHEDULES = {"auto": 0, "sequential": 1, "overlap": 2}
_MAX_COMM_SMS = 64  # gemmkit_dist_create's range for options->comm_sms

_LIBRARY_NAME = "libgemmkit_dist.so"


class DistError(RuntimeError):
    """A gemmkit_dist call failed; ``status`` is the C API's status name."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]  # ncclUniqueId: NCCL_UNIQUE_ID_BYTES


class _Options(ctypes.Structure):
    _fields_ = [("schedule", ctypes.c_int), ("pieces", ctypes.c_int), ("comm_sms", ctypes.c_int),
                ("link_gbps", ctypes.c_double), ("timeout_ms", ctypes.c_int)]  # gemmkit_dist_options


_lib = None
_reason = None


def _nccl_wheel_library():
    try:
        spec = importlib.util.find_spec("nvidia.nccl")
    except (ImportError, ValueError):  # no `nvidia` package at all
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "lib", "libnccl.so.2")
    return path if os.path.exists(path) else None


def _load_nccl():
    """The process's libnccl.so.2 where one is loaded (PyTorch's), else NCCL_ROOT's or the
    wheel's (cmake/nccl.cmake's order), loaded global so that libgemmkit_dist.so links against
    that one. None of them: the library's RPATH and the system's folders are tried."""
    try:
        ctypes.CDLL("libnccl.so.2", mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)
        return
    except OSError:
        pass
    root = os.environ.get("NCCL_ROOT")
    for path in (os.path.join(root, "lib", "libnccl.so.2") if root else None, _nccl_wheel_library()):
        if path is not None and os.path.exists(path):
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            return


def _declare(lib):
    c_int, c_int64, c_void_p, c_char_p = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
    op_args = [c_void_p, c_void_p, c_int64, c_int64, c_int64, c_void_p, c_int64, c_void_p, c_int, c_int64,
               c_void_p, c_int64, c_int]
    signatures = {
        "gemmkit_dist_create": (c_int, [c_void_p, ctypes.POINTER(_Options), ctypes.POINTER(c_void_p)]),
        "gemmkit_dist_destroy": (c_int, [c_void_p]),
        "gemmkit_dist_rank": (c_int, [c_void_p]),
        "gemmkit_dist_size": (c_int, [c_void_p]),
        "gemmkit_dist_row_begin": (c_int64, [c_int64, c_int, c_int]),
        "gemmkit_dist_allgather_gemm": (c_int, op_args),
        "gemmkit_dist_gemm_reducescatter": (c_int, op_args),
        "gemmkit_dist_last_plan": (c_char_p, []),
        "gemmkit_dist_last_error": (c_char_p, []),
        "gemmkit_status_string": (c_char_p, [c_int]),
        # NCCL through the library's handle: the libnccl.so.2 it is linked with.
        "ncclGetUniqueId": (c_int, [ctypes.POINTER(_UniqueId)]),
        "ncclCommInitRank": (c_int, [ctypes.POINTER(c_void_p), c_int, _UniqueId, c_int]),
        "ncclCommDestroy": (c_int, [c_void_p]),
        "ncclGetErrorString": (c_char_p, [c_int]),
    }
    for name, (restype, argtypes) in signatures.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes


def _load():
    """The library, loaded once; raises RuntimeError saying why it cannot be."""
    global _lib, _reason
    if _lib is not None:
        return _lib
    if _reason is None:
        path = os.environ.get("GEMMKIT_DIST_LIBRARY") or os.path.join(os.path.dirname(__file__), _LIBRARY_NAME)
        if not os.path.exists(path):
            _reason = (f"{path} does not exist: gemmkit builds it only where CMake finds NCCL (install "
                       f"nvidia-nccl-cu13, which PyTorch installs, or set NCCL_ROOT, then reinstall gemmkit with "
                       f"--no-build-isolation; docs/dist.md)")
        else:
            try:
                _load_nccl()
                lib = ctypes.CDLL(path)
                _declare(lib)
                _lib = lib
                return lib
            except (OSError, AttributeError) as e:
                _reason = f"loading {path}: {e}"
    raise RuntimeError(f"gemmkit.dist is not available: {_reason}")


def available():
    """True when libgemmkit_dist.so and NCCL load; unavailable_reason() says why not."""
    try:
        _load()
        return True
    except RuntimeError:
        return False


def unavailable_reason():
    """Why available() is False; "" when it is True."""
    return "" if available() else _reason


def row_begin(m, ranks, rank):
    """First of the m rows rank `rank` of `ranks` holds (rank == ranks gives m): the first
    m % ranks ranks hold one row more (gemmkit_dist_row_begin)."""
    begin = _load().gemmkit_dist_row_begin(_int(m, "m"), _int(ranks, "ranks"), _int(rank, "rank"))
    if begin < 0:
        raise ValueError(f"m = {m}, ranks = {ranks}, rank = {rank}: needs m >= 0, ranks >= 1 and 0 <= rank <= ranks")
    return begin


def last_plan():
    """The plan of this thread's last call, one line a decision ("" before any)."""
    return _load().gemmkit_dist_last_plan().decode()


def _int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} is a {type(value).__qualname__}; pass an int")
    return value


def _torch():
    import torch

    return torch


def _raise_status(lib, status):
    name = lib.gemmkit_status_string(status).decode()
    message = lib.gemmkit_dist_last_error().decode()
    raise DistError(f"{name}: {message}" if message else name, name)


def _nccl_check(lib, result, what):
    if result != 0:
        raise DistError(f"{what}: {lib.ncclGetErrorString(result).decode()}", "ncclResult_t")


class Context:
    """gemmkit_dist's context over a torch.distributed process group (default: the world), on
    torch's current device: an NCCL communicator of its own (rank 0 makes the unique id,
    broadcast over `group`) and gemmkit_dist_create on it. Collective: every rank of the group
    makes one. close(), or leaving a with block, destroys it.

    schedule: "auto" (the plan chooses, docs/dist.md), "overlap" or "sequential". comm_sms: SMs
    left to NCCL during overlap, 0..64 (0: the plan's). timeout_ms: how long a shape exchange
    waits for the peers (0: 60000) before the call fails instead of hanging."""

    def __init__(self, group=None, *, schedule="auto", comm_sms=0, timeout_ms=0):
        self._handle = self._comm = None
        if not isinstance(schedule, str) or schedule not in _SCHEDULES:
            raise ValueError(f"schedule = {schedule!r}; use {', '.join(map(repr, _SCHEDULES))}")
        if _int(comm_sms, "comm_sms") < 0 or comm_sms > _MAX_COMM_SMS:
            raise ValueError(f"comm_sms = {comm_sms} is not in 0..{_MAX_COMM_SMS}")
        if _int(timeout_ms, "timeout_ms") < 0:
            raise ValueError(f"timeout_ms = {timeout_ms} is negative")
        lib = _load()
        torch = _torch()
        import torch.distributed as dist

        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError("torch.distributed is not initialized: call torch.distributed.init_process_group first")
        if group is None:
            group = dist.group.WORLD
        rank, size = dist.get_rank(group), dist.get_world_size(group)
        if rank < 0:
            raise ValueError("group does not contain this process")
        device = torch.cuda.current_device()

        uid = _UniqueId()
        if rank == 0:
            _nccl_check(lib, lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
        box = [ctypes.string_at(ctypes.addressof(uid), ctypes.sizeof(uid)) if rank == 0 else None]
        get_global_rank = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
        dist.broadcast_object_list(box, src=0 if group is dist.group.WORLD else get_global_rank(group, 0), group=group)
        uid = _UniqueId.from_buffer_copy(box[0])

        comm = ctypes.c_void_p()
        _nccl_check(lib, lib.ncclCommInitRank(ctypes.byref(comm), size, uid, rank), "ncclCommInitRank")
        options = _Options(schedule=_SCHEDULES[schedule], pieces=0, comm_sms=comm_sms, link_gbps=0.0,
                           timeout_ms=timeout_ms)
        handle = ctypes.c_void_p()
        status = lib.gemmkit_dist_create(comm, ctypes.byref(options), ctypes.byref(handle))
        if status != 0:
            try:
                _raise_status(lib, status)
            finally:
                lib.ncclCommDestroy(comm)
        self._lib, self._handle, self._comm = lib, handle.value, comm.value
        self.group, self.device, self.schedule = group, device, schedule
        #: This process's rank in the context, and the number of ranks.
        self.rank, self.size = lib.gemmkit_dist_rank(self._handle), lib.gemmkit_dist_size(self._handle)

    @property
    def closed(self):
        return self._handle is None

    def close(self):
        """Destroys the context, then its NCCL communicator. Idempotent."""
        handle, comm = self._handle, self._comm
        self._handle = self._comm = None
        if handle:
            self._lib.gemmkit_dist_destroy(handle)
        if comm:
            self._lib.ncclCommDestroy(comm)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit the library may already be gone
            pass

    def __repr__(self):
        state = "closed" if self.closed else f"rank {self.rank} of {self.size}, cuda:{self.device}"
        return f"<gemmkit.dist.Context {state}, schedule {self.schedule!r}>"


def _check_context(ctx):
    if not isinstance(ctx, Context):
        raise TypeError(f"ctx is a {type(ctx).__qualname__}; pass a gemmkit.dist.Context")
    if ctx.closed:
        raise ValueError("ctx is closed")


def _matrix(t, name, torch):
    """Checks a 2-D bf16/fp16 tensor whose last dimension has stride 1; returns its ld."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} is a {type(t).__module__}.{type(t).__qualname__}; pass a torch tensor")
    if t.dim() != 2:
        raise ValueError(f"{name} has shape {tuple(t.shape)}; pass a matrix (2 dimensions)")
    if t.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError(f"{name} has dtype {t.dtype}; gemmkit.dist serves torch.bfloat16 and torch.float16")
    (rows, cols), (s0, s1) = t.shape, t.stride()
    if cols > 1 and s1 != 1:
        raise ValueError(f"{name} has strides {(s0, s1)}; its last dimension must have stride 1 (.contiguous())")
    if rows > 1 and s0 < max(1, cols):
        raise ValueError(f"{name} has strides {(s0, s1)}; its rows overlap (stride {s0} < {cols} columns)")
    return s0 if rows > 1 else max(1, cols)


def _check_device(ctx, tensors):
    for t, name in tensors:
        if not t.is_cuda or t.get_device() != ctx.device:
            raise ValueError(f"{name} is on {t.device}; ctx's device is cuda:{ctx.device}")


def _rows_of(ctx, m):
    lib = ctx._lib
    return lib.gemmkit_dist_row_begin(m, ctx.size, ctx.rank), lib.gemmkit_dist_row_begin(m, ctx.size, ctx.rank + 1)


def _call(ctx, torch, fn, *args):
    """fn(ctx, stream, *args) on torch's current stream of ctx's device, that device current."""
    def run():
        status = fn(ctx._handle, torch.cuda.current_stream(ctx.device).cuda_stream, *args)
        if status != 0:
            _raise_status(ctx._lib, status)

    if torch.cuda.current_device() == ctx.device:
        run()
    else:
        with torch.cuda.device(ctx.device):
            run()


def _layer_operands(ctx, x, x_name, weight, weight_dims):
    """The checks both layers make: ctx, then x and weight as 16-bit matrices of one dtype whose
    second dimensions (k, as weight_dims names it) agree. Returns (torch, ldx, ldw)."""
    _check_context(ctx)
    torch = _torch()
    ldx = _matrix(x, x_name, torch)
    ldw = _matrix(weight, "weight", torch)
    if weight.dtype != x.dtype:
        raise TypeError(f"{x_name} is {x.dtype} and weight is {weight.dtype}; they must have one dtype")
    k_name, k = weight_dims[1], x.shape[1]
    if weight.shape[1] != k:
        raise ValueError(f"weight has shape {tuple(weight.shape)} and {x_name} {tuple(x.shape)}: weight is "
                         f"[{weight_dims[0]}, {k_name}], so its second dimension must be {x_name}'s {k_name} = {k}")
    return torch, ldx, ldw


def all_gather_linear(x_local, weight, ctx, *, m=None):
    """y = allgather_rows(x) @ weight.T, a column-parallel linear layer (AllGather-GEMM).

    x_local [rows, k]: this rank's rows of x [m, k], rows [row_begin(m, size, rank),
    row_begin(m, size, rank + 1)). weight [n_local, k]: this rank's output features, in
    torch.nn.Linear's layout. m defaults to rows * ctx.size. Returns y [m, n_local]: every row,
    this rank's features."""
    torch, ldx, ldw = _layer_operands(ctx, x_local, "x_local", weight, ("n_local", "k"))
    (rows, k), n_local = x_local.shape, weight.shape[0]
    if m is None:
        m = rows * ctx.size
    elif _int(m, "m") < 0:
        raise ValueError(f"m = {m} is negative")
    begin, end = _rows_of(ctx, m)
    if rows != end - begin:
        raise ValueError(f"x_local has {rows} rows; rank {ctx.rank} of {ctx.size} holds rows [{begin}, {end}) "
                         f"of m = {m} ({end - begin} rows)")
    _check_device(ctx, ((x_local, "x_local"), (weight, "weight")))
    y = torch.empty((m, n_local), dtype=x_local.dtype, device=x_local.device)
    _call(ctx, torch, ctx._lib.gemmkit_dist_allgather_gemm, m, n_local, k, x_local.data_ptr(), ldx,
          weight.data_ptr(), _OP_T, ldw, y.data_ptr(), max(1, n_local),
          _R_16BF if x_local.dtype == torch.bfloat16 else _R_16F)
    return y


def linear_reduce_scatter(x, weight, ctx):
    """This rank's rows of sum over ranks of x_r @ weight_r.T, a row-parallel linear layer
    (GEMM-ReduceScatter).

    x [m, k_local]: every row, this rank's slice of the input features. weight [n, k_local]: the
    same slice of a torch.nn.Linear weight. Returns [rows, n], rows [row_begin(m, size, rank),
    row_begin(m, size, rank + 1)) of the summed [m, n]."""
    torch, ldx, ldw = _layer_operands(ctx, x, "x", weight, ("n", "k_local"))
    (m, k_local), n = x.shape, weight.shape[0]
    _check_device(ctx, ((x, "x"), (weight, "weight")))
    begin, end = _rows_of(ctx, m)
    y = torch.empty((end - begin, n), dtype=x.dtype, device=x.device)
    _call(ctx, torch, ctx._lib.gemmkit_dist_gemm_reducescatter, m, n, k_local, x.data_ptr(), ldx,
          weight.data_ptr(), _OP_T, ldw, y.data_ptr(), max(1, n), _R_16BF if x.dtype == torch.bfloat16 else _R_16F)
    return y


__all__ = ["Context", "DistError", "all_gather_linear", "available", "last_plan", "linear_reduce_scatter",
           "row_begin", "unavailable_reason"]

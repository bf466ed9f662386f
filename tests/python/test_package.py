"""What needs no GPU: the package imports, reports its version, has the documented signatures,
and checks its arguments (in Python and in the C API) before any device work."""

import inspect
import pathlib
import re

import pytest

import gemmkit
from gemmkit import _C, _api

ROOT = pathlib.Path(__file__).resolve().parents[2]


class FakeDeviceArray:
    """__cuda_array_interface__ with address 0: enough for every check before the device."""

    def __init__(self, shape, typestr="<f4", strides=None, readonly=False, ptr=0):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "strides": strides,
                                         "data": (ptr, readonly), "version": 3}


def header_version():
    text = (ROOT / "include" / "gemmkit" / "gemmkit.h").read_text()
    parts = [re.search(rf"#define GEMMKIT_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_version_is_the_headers():
    assert gemmkit.__version__ == header_version()
    assert _C.version() == _C.header_version()


def test_kernels_lists_the_registry_in_ladder_order():
    names = gemmkit.kernels()
    assert len(names) > 10
    assert names[0].startswith("sgemm.01")
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("fn, params", [
    (gemmkit.gemm, ["a", "b", "out", "trans_a", "trans_b", "alpha", "beta", "compute", "kernel", "stream"]),
    (gemmkit.matmul, ["a", "b", "out", "compute", "kernel", "stream"]),
    (gemmkit.bmm, ["a", "b", "out", "compute", "kernel", "stream"]),
    (gemmkit.linear, ["x", "weight", "bias", "activation", "out", "compute", "kernel", "stream"]),
])
def test_signatures(fn, params):
    assert list(inspect.signature(fn).parameters) == params


def test_bmm_is_exported():
    assert "bmm" in gemmkit.__all__ and gemmkit.bmm is _api.bmm


def test_error_classes_are_the_builtin_ones():
    assert issubclass(gemmkit.InvalidValueError, ValueError)
    assert issubclass(gemmkit.NotSupportedError, RuntimeError)
    assert issubclass(gemmkit.CudaError, RuntimeError)


def test_not_an_array_is_a_type_error():
    with pytest.raises(TypeError, match="a is a builtins.list, not a device array"):
        gemmkit.matmul([[1.0]], FakeDeviceArray((1, 1)))


def test_host_dlpack_array_is_a_type_error():
    class HostDLPack:
        def __dlpack__(self, stream=None):
            raise AssertionError("must not be exported: the device type already says CPU")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match="b is not on a CUDA device"):
        gemmkit.matmul(FakeDeviceArray((2, 2)), HostDLPack())


def test_unserved_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="a has typestr '<i4'"):
        gemmkit.matmul(FakeDeviceArray((2, 2), "<i4"), FakeDeviceArray((2, 2)))


def test_mixed_dtypes_are_a_type_error():
    with pytest.raises(TypeError, match="a is float32 and b is float16"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4), "<f2"), out=FakeDeviceArray((2, 4)))


def test_inner_dimensions_must_agree():
    with pytest.raises(ValueError, match=r"the inner dimensions differ"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((4, 5)), out=FakeDeviceArray((2, 5)))


def test_out_shape_is_checked():
    with pytest.raises(ValueError, match=r"out has shape \(2, 4\); the product is \(2, 5\)"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 5)), out=FakeDeviceArray((2, 4)))


def test_trans_flags_change_the_shapes():
    # op(a) = a.T is (3, 2) @ (2, 5): fine up to the C API, which then refuses the NULL address.
    with pytest.raises(gemmkit.InvalidValueError, match="GEMMKIT_INVALID_VALUE: .* is NULL"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((2, 5)), out=FakeDeviceArray((3, 5)), trans_a=True)


def test_c_api_message_reaches_python_as_value_error():
    # Every Python check passes; the library refuses (no device work: NULL is caught first).
    with pytest.raises(ValueError, match=r"^GEMMKIT_INVALID_VALUE: C is NULL$"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4)))


def test_beta_without_out_is_a_value_error():
    with pytest.raises(ValueError, match="beta = 1.0 reads out, but out is None"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), beta=1.0)


def test_result_of_an_unknown_producer_needs_out():
    with pytest.raises(TypeError, match="pass out="):
        gemmkit.matmul(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)))


def test_compute_names_are_checked():
    with pytest.raises(ValueError, match="compute = 'fast'"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4)), compute="fast")
    with pytest.raises(TypeError, match="does not serve float16 inputs"):
        gemmkit.gemm(FakeDeviceArray((2, 3), "<f2"), FakeDeviceArray((3, 4), "<f2"),
                     out=FakeDeviceArray((2, 4), "<f2"), compute="tf32")


def test_out_dtype_must_fit_the_inputs():
    with pytest.raises(TypeError, match="out has dtype float16; with float32 inputs it must be float32"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4), "<f2"))


def test_read_only_out_is_refused():
    with pytest.raises(ValueError, match="out is read-only"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4), readonly=True))


def test_out_without_a_unit_stride_is_refused():
    with pytest.raises(ValueError, match=r"out has strides \(8, 2\)"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)),
                     out=FakeDeviceArray((2, 4), strides=(32, 8)))


def test_input_without_a_unit_stride_from_an_unknown_producer_is_refused():
    with pytest.raises(ValueError, match=r"a has strides \(6, 2\)"):
        gemmkit.gemm(FakeDeviceArray((2, 3), strides=(24, 8)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4)))


def test_batch_dimensions_must_broadcast():
    with pytest.raises(ValueError, match="do not broadcast"):
        gemmkit.matmul(FakeDeviceArray((2, 2, 3)), FakeDeviceArray((3, 3, 4)), out=FakeDeviceArray((2, 2, 4)))


def test_linear_checks_weight_and_bias():
    with pytest.raises(ValueError, match=r"x's last dimension \(3\) must equal weight's second \(5\)"):
        gemmkit.linear(FakeDeviceArray((2, 3)), FakeDeviceArray((4, 5)), out=FakeDeviceArray((2, 4)))
    with pytest.raises(ValueError, match=r"bias has shape \(3,\); it must be \(4,\)"):
        gemmkit.linear(FakeDeviceArray((2, 5)), FakeDeviceArray((4, 5)), FakeDeviceArray((3,)),
                       out=FakeDeviceArray((2, 4)))
    with pytest.raises(ValueError, match="activation = 'tanh'"):
        gemmkit.linear(FakeDeviceArray((2, 5)), FakeDeviceArray((4, 5)), activation="tanh",
                       out=FakeDeviceArray((2, 4)))


def test_stream_must_be_a_stream():
    with pytest.raises(TypeError, match="stream is a str"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4)), stream="s")


def test_kernel_must_be_a_name():
    with pytest.raises(TypeError, match="kernel is a int"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3, 4)), out=FakeDeviceArray((2, 4)), kernel=3)


# The C API through the raw binding: statuses before any device work, on any machine.
F32, F16 = _api.R_32F, _api.R_16F


def raw(**kw):
    args = dict(stream=0, device=-1, transa=0, transb=0, m=4, n=3, k=2, alpha=1.0, A=0x1000, a_type=F32, lda=4,
                B=0x2000, b_type=F32, ldb=2, beta=0.0, C=0x3000, c_type=F32, ldc=4, compute=_api.COMPUTE_32F,
                kernel=None)
    args.update(kw)
    return _C.gemm(**args)


def test_raw_bad_lda_is_invalid_value_naming_lda():
    assert _C.status_string(raw(lda=3)) == "GEMMKIT_INVALID_VALUE"
    assert _C.last_error().startswith("lda = 3 ")


def test_raw_unserved_type_combination_is_not_supported_without_a_device():
    # f16 A with f32 B: no kernel serves it, which the registry answers without a GPU.
    assert _C.status_string(raw(a_type=F16)) == "GEMMKIT_NOT_SUPPORTED"
    assert "no kernel serves A/B/C = f16/f32/f32" in _C.last_error()


def test_raw_unknown_kernel():
    assert _C.status_string(raw(kernel="sgemm.99_nope")) == "GEMMKIT_UNKNOWN_KERNEL"
    assert "sgemm.99_nope" in _C.last_error()


def test_raise_status_maps_each_status():
    raw(lda=3)
    with pytest.raises(gemmkit.InvalidValueError, match="lda = 3"):
        _api._raise_status(1)
    with pytest.raises(gemmkit.NotSupportedError):
        _api._raise_status(2)
    with pytest.raises(gemmkit.CudaError):
        _api._raise_status(3)


@pytest.mark.parametrize("shape, strides, expected", [
    ((4, 3), (3, 1), (True, 3)),      # row-major
    ((4, 3), (5, 1), (True, 5)),      # row-major, padded rows
    ((4, 3), (1, 4), (False, 4)),     # column-major (a transposed view)
    ((1, 3), (0, 1), (True, 3)),      # one row: its stride never matters
    ((4, 1), (1, 0), (True, 1)),      # one column
    ((4, 3), (6, 2), None),           # steps in both dimensions
    ((4, 3), (0, 1), None),           # rows overlap (expand)
    ((4, 3), (2, 1), None),           # rows shorter than the row
])
def test_layouts(shape, strides, expected):
    assert _api._as_colmajor(shape, strides) == expected


def test_vectors_are_refused_by_gemm():
    with pytest.raises(ValueError, match=r"b has shape \(3,\); gemmkit needs matrices"):
        gemmkit.gemm(FakeDeviceArray((2, 3)), FakeDeviceArray((3,)), out=FakeDeviceArray((2, 1)))

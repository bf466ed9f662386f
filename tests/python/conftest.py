"""Shared fixtures: which of torch, a GPU, CuPy and JAX this machine has. Tests that need one
it lacks are skipped with the reason, so CI (no GPU, no torch) runs the rest for real."""

import importlib.util

import pytest

import gemmkit


def _has(module):
    return importlib.util.find_spec(module) is not None


HAS_TORCH = _has("torch")


def _torch_cuda():
    if not HAS_TORCH:
        return False
    import torch

    return torch.cuda.is_available()


HAS_GPU = gemmkit.device_count() > 0
HAS_TORCH_CUDA = HAS_GPU and _torch_cuda()

needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
needs_torch_gpu = pytest.mark.skipif(not HAS_TORCH_CUDA, reason="needs torch with a CUDA device (none here)")
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")

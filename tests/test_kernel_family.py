"""The tests run torch's AVX2 kernels on x86 machines that have them
(benchmarks/kernel_family.py: verdicts measured on one machine hold on the next)."""
import os

import pytest

from benchmarks import kernel_family


def test_torch_runs_the_pinned_kernels_here():
    torch = pytest.importorskip("torch")
    if os.environ.get("ATEN_CPU_CAPABILITY") != kernel_family.KERNELS:
        pytest.skip("not an x86 machine with AVX2: torch keeps its own choice")
    assert torch.backends.cpu.get_cpu_capability() == "AVX2"


def test_too_late_once_torch_is_imported_without_the_setting(monkeypatch):
    pytest.importorskip("torch")             # imported: torch has chosen its kernels
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    assert kernel_family.use_avx2_kernels() is False
    assert "ATEN_CPU_CAPABILITY" not in os.environ

"""Test-session settings.

The models in these tests are tiny. On a 2-core machine, BLAS and torch thread
pools cost more in synchronisation than they gain (measured: a `check` run took
33 s on 2 threads and 6 s on 1), and pytest-xdist already runs one worker per
core. So every worker computes single-threaded.
"""
import os

import pytest

from benchmarks.kernel_family import use_avx2_kernels

# Before torch is imported: the AVX2 kernels on every x86 machine, so a verdict measured on
# one machine is the verdict on the next (benchmarks/kernel_family.py says why).
use_avx2_kernels()

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

try:
    from threadpoolctl import threadpool_limits
    threadpool_limits(1)
except ImportError:  # threadpoolctl is optional: the env vars above still apply to new processes
    pass

try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    pass


# The torch test files opt in with: pytestmark = pytest.mark.usefixtures("one_torch_thread")
@pytest.fixture
def one_torch_thread():
    """Tiny models run far faster on one torch thread; the old count is put back after each test."""
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# Hypothesis explores new random examples on every run; on CI the same examples run every
# time (derandomize), so a landing is never decided by a lucky or unlucky draw. Locally the
# exploration goes on (and a failing example is saved and replayed first).
try:
    from hypothesis import settings as _hypothesis_settings
    _hypothesis_settings.register_profile("ci", derandomize=True)
    if os.environ.get("CI"):
        _hypothesis_settings.load_profile("ci")
except ImportError:
    pass


def pytest_addoption(parser):
    """``--real-bugs``: which reproduced bug reports to replay (tests/real_bug_tiers.py says why)."""
    from real_bug_tiers import DEFAULT_TIER, TIERS
    parser.addoption("--real-bugs", dest="real_bugs", choices=TIERS, default=DEFAULT_TIER,
                     help="replay the real-bug cases' fixed sample (default), the rest, or all")

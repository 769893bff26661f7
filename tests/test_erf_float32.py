"""The float32 erf (one rational approximation on one range) and the GELU built on it:
accuracy in float32 ulps over a dense grid, special values, agreement with torch, and
the coefficients re-derivable by tools/fit_erf_float32.py."""
import importlib.util
import math
import os

import numpy as np
import pytest

import minigrad as mg
from minigrad import ops
from minigrad.ops import special
from minigrad.ops.special import FLOAT32_CLAMP, erf, erf_float32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def every_nth_float32(low, high, n):
    """Every n-th float32 in [low, high] (consecutive bit patterns: dense everywhere)."""
    first, last = np.array([low, high], dtype=np.float32).view(np.int32)
    return np.arange(first, last + 1, n, dtype=np.int32).view(np.float32)


def ulps(approx, reference):
    """|approx - reference| in units in the last place of float32 at the reference."""
    spacing = np.spacing(np.abs(reference).astype(np.float32)).astype(np.float64)
    return np.abs(approx.astype(np.float64) - reference) / spacing


def test_float32_erf_within_a_few_ulp_on_a_dense_grid():
    x = every_nth_float32(2.0 ** -40, 4.5, 1009)           # ~350k values, tiny to saturated
    x = np.concatenate([x, -x])
    result = erf(x)
    assert result.dtype == np.float32
    error = ulps(result, erf(x.astype(np.float64)))         # float64 path: Cody's, ~1e-15
    assert error.max() <= 8.0                                # every float32: 7.0 (the tool)
    assert error.mean() < 1.0
    assert np.array_equal(np.sign(result), np.sign(x))       # odd, no sign flip near zero
    assert np.abs(result).max() <= 1.0                       # never beyond +-1


def test_float32_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 50.0, -50.0, FLOAT32_CLAMP, 1e-45],
                 dtype=np.float32)
    out = erf(x)
    assert out[0] == 0.0 and not np.signbit(out[0]) and out[1] == 0.0 and np.signbit(out[1])
    assert out[2] == 1.0 and out[3] == -1.0 and np.isnan(out[4])
    assert out[5] == 1.0 and out[6] == -1.0 and out[7] == 1.0
    assert out[8] == np.float32(1e-45) or out[8] == np.float32(2e-45)   # a subnormal: x*2/sqrt(pi)
    assert erf_float32(np.float32(0.5) * np.ones((2, 0, 3), np.float32)).shape == (2, 0, 3)


def test_float32_erf_and_gelu_agree_with_torch_on_a_dense_grid():
    torch = pytest.importorskip("torch")
    x = np.linspace(-10, 10, 400_001, dtype=np.float32)
    np.testing.assert_allclose(erf(x), torch.special.erf(torch.from_numpy(x)).numpy(),
                               rtol=0, atol=5e-7)
    a = mg.tensor(x, requires_grad=True)
    out = ops.gelu(a)
    cotangent = np.random.default_rng(0).standard_normal(x.shape).astype(np.float32)
    out.backward(cotangent)
    t = torch.from_numpy(x.copy()).requires_grad_()
    expected = torch.nn.functional.gelu(t)
    expected.backward(torch.from_numpy(cotangent))
    assert out.data.dtype == np.float32 and a.grad.dtype == np.float32
    scale = np.maximum(np.abs(x), 1.0)      # gelu ~ x: float32 error grows with |x|
    assert np.max(np.abs(out.data - expected.detach().numpy()) / scale) < 1e-6
    assert np.max(np.abs(a.grad - t.grad.numpy()) / np.maximum(np.abs(cotangent), 1.0)) < 2e-6


def test_float64_gelu_gradient_by_finite_differences_and_against_torch():
    torch = pytest.importorskip("torch")
    x = np.concatenate([np.linspace(-6, 6, 61), [-0.0, 1e-8, 20.0, -20.0]])
    t = torch.tensor(x, requires_grad=True)
    a = mg.tensor(x, requires_grad=True)
    ops.gelu(a).backward(np.ones_like(x))
    torch.nn.functional.gelu(t).backward(torch.ones_like(t))
    np.testing.assert_allclose(a.grad, t.grad.numpy(), rtol=1e-13, atol=1e-15)
    step = 1e-6                  # central differences in float64 (gelu is elementwise)
    numeric = (ops.gelu(mg.tensor(x + step)).data - ops.gelu(mg.tensor(x - step)).data) / (2 * step)
    np.testing.assert_allclose(a.grad, numeric, rtol=1e-7, atol=1e-8)


def test_the_fitting_tool_rederives_the_shipped_coefficients():
    path = os.path.join(ROOT, "tools", "fit_erf_float32.py")
    spec = importlib.util.spec_from_file_location("fit_erf_float32", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    p, q, fit_error = tool.fit(5, 5, FLOAT32_CLAMP)
    assert fit_error < 3e-8
    shipped_p, shipped_q = special._P_FLOAT32[::-1], special._Q_FLOAT32[::-1]   # lowest first
    np.testing.assert_allclose(np.float32(p), shipped_p, rtol=1e-6)
    np.testing.assert_allclose(np.float32(q), shipped_q, rtol=1e-6)
    x = every_nth_float32(0.01, 4.0, 20011)
    assert np.array_equal(tool.erf_float32(x, p, q, FLOAT32_CLAMP), erf_float32(x))
    assert math.isclose(float(erf_float32(np.float32(1.0))), math.erf(1.0), rel_tol=2e-7)

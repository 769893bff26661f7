"""Every primitive's backward against central differences - no PyTorch involved.

The same table as the differential harness (tests/op_cases.py), checked the way
``torch.autograd.gradcheck`` checks: float64, eps = 1e-6, atol 1e-5, rtol 1e-3,
a random cotangent v. For L(x) = <v, f(x)>:

* element-wise: dL/dx_k ~ (L(x + eps e_k) - L(x - eps e_k)) / (2 eps) on up to
  COORDINATES entries of each input (all of them for small inputs);
* directional: for a random direction u over all inputs at once,
  (L(x + eps u) - L(x - eps u)) / (2 eps) ~ sum_i <grad_i, u_i>.

So the project's correctness does not rest on PyTorch alone. This file also
checks float32-in/float32-out for every primitive, and that a zero cotangent
gives zero gradients (a backward that adds a constant would pass a sum() check
with the wrong slope and still be caught here).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg

from minigrad.ops import unbroadcast
from op_cases import CASE_BY_NAME, CASES, Example, replaced_backward, run_minigrad
from strategies import seeds

EPS = 1e-6
ATOL, RTOL = 1e-5, 1e-3
COORDINATES = 16
SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _objective(case, arrays, params, cotangent):
    with mg.no_grad():
        out, _ = run_minigrad(case, arrays, params, requires_grad=False)
    return float(np.sum(cotangent * out.data))


def _gradients(inputs):
    return [np.zeros(t.shape) if t.grad is None else t.grad for t in inputs]


def check_central_differences(case, example, seed):
    """Raise AssertionError where ``case``'s backward disagrees with central differences."""
    rng = np.random.default_rng(seed)
    arrays = [np.array(a, dtype=np.float64) for a in example.arrays]
    out, inputs = run_minigrad(case, arrays, example.params)
    cotangent = rng.normal(size=out.shape)
    out.backward(cotangent)
    analytic = _gradients(inputs)

    for index, array in enumerate(arrays):
        coordinates = np.arange(array.size)
        if array.size > COORDINATES:
            coordinates = rng.choice(array.size, COORDINATES, replace=False)
        numeric = []
        for k in coordinates:
            shifted = [a.copy() for a in arrays]
            shifted[index].flat[k] += EPS
            plus = _objective(case, shifted, example.params, cotangent)
            shifted[index].flat[k] -= 2 * EPS
            minus = _objective(case, shifted, example.params, cotangent)
            numeric.append((plus - minus) / (2 * EPS))
        np.testing.assert_allclose(analytic[index].flat[coordinates], numeric, atol=ATOL, rtol=RTOL,
                                   err_msg=f"{case.name}: gradient of input {index}")

    direction = [rng.normal(size=a.shape) for a in arrays]
    plus = _objective(case, [a + EPS * u for a, u in zip(arrays, direction)], example.params, cotangent)
    minus = _objective(case, [a - EPS * u for a, u in zip(arrays, direction)], example.params, cotangent)
    predicted = sum(float(np.sum(g * u)) for g, u in zip(analytic, direction))
    np.testing.assert_allclose(predicted, (plus - minus) / (2 * EPS), atol=ATOL, rtol=RTOL,
                               err_msg=f"{case.name}: directional derivative")


@pytest.mark.parametrize("case", CASES, ids=str)
@SETTINGS
@given(data=st.data())
def test_backward_matches_central_differences(case, data):
    strategy = case.example if case.numeric_example is None else case.numeric_example
    check_central_differences(case, data.draw(strategy, label="example"),
                              data.draw(seeds(), label="seed"))


def test_the_check_catches_a_wrong_backward():
    """The harness can fail: a backward that forgets the chain-rule factor is caught."""
    mul = CASE_BY_NAME["mul"]
    example = Example((np.array([[1.5, -2.0, 0.3]]), np.array([[0.7], [1.1]])))
    check_central_differences(mul, example, seed=0)          # the real backward passes
    broken = lambda ctx, grad: tuple(unbroadcast(grad, s.shape) for s in ctx.saved_tensors)
    with replaced_backward("mul", broken), pytest.raises(AssertionError):
        check_central_differences(mul, example, seed=0)


@pytest.mark.parametrize("case", CASES, ids=str)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_zero_cotangent_gives_zero_gradients(case, data):
    example = data.draw(case.example, label="example")
    out, inputs = run_minigrad(case, example.arrays, example.params)
    out.backward(np.zeros(out.shape))
    for index, grad in enumerate(_gradients(inputs)):
        assert not np.any(grad), f"{case.name}: input {index} got a gradient from a zero cotangent"


@pytest.mark.parametrize("case", CASES, ids=str)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_float32_in_float32_out(case, data):
    """float32 inputs give a float32 output and float32 gradients close to the float64 ones."""
    example = data.draw(case.example, label="example")
    out, inputs = run_minigrad(case, example.arrays, example.params, dtype=np.float32)
    expected_dtype = (case.output_dtype(np.dtype(np.float32), example.params) if case.output_dtype
                      else np.dtype(np.float32))
    assert out.dtype == expected_dtype, f"{case.name}: float32 in, {out.dtype} out"
    rng = np.random.default_rng(data.draw(seeds(), label="seed"))
    cotangent = rng.normal(size=out.shape)
    out.backward(cotangent.astype(out.dtype))
    for index, tensor in enumerate(inputs):
        assert tensor.grad is None or tensor.grad.dtype == np.float32, (
            f"{case.name}: gradient of input {index} is {tensor.grad.dtype}")

    reference, reference_inputs = run_minigrad(case, example.arrays, example.params)
    reference.backward(cotangent)
    scale = 1 + np.abs(reference.data).max(initial=0)
    np.testing.assert_allclose(out.data, reference.data, rtol=1e-4, atol=1e-4 * scale)
    for ours, theirs in zip(_gradients(inputs), _gradients(reference_inputs)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-3 * (1 + np.abs(theirs).max(initial=0)))

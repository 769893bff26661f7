"""Every minigrad primitive against PyTorch: forward values and input gradients, float64.

The table of cases (tests/op_cases.py) says how to build inputs of
Hypothesis-generated shapes (broadcasting, size-1 axes, non-square) and how to
call each primitive in both frameworks. Each backward is driven by a *random*
cotangent, never only ``sum()``: an all-ones cotangent hides transposed or
permuted gradients and wrong scale factors that cancel in a plain sum.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.autograd import observe_ops
from minigrad.ops import REGISTRY

from op_cases import CASE_BY_NAME, CASES, Example, replaced_backward, run_minigrad
from strategies import seeds

torch = pytest.importorskip("torch")

FLOAT64 = dict(rtol=1e-6, atol=1e-9)
FLOAT32 = dict(rtol=1e-5, atol=1e-6)   # only the cast-to-float32 case produces float32 here
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_registered_primitive_has_a_case():
    """Adding a primitive without describing it in tests/op_cases.py fails here."""
    missing = sorted(set(REGISTRY) - {case.name for case in CASES})
    assert not missing, f"primitives without a test case in tests/op_cases.py: {missing}"
    unknown = sorted({case.name for case in CASES} - set(REGISTRY))
    assert not unknown, f"cases for primitives that are not registered: {unknown}"


def check_against_torch(case, example, seed):
    """Raise AssertionError where ``case`` disagrees with PyTorch (values, dtype, gradients)."""
    applied = []
    with observe_ops(lambda record: applied.append(record.name)):
        out, inputs = run_minigrad(case, example.arrays, example.params)
    assert case.name in applied, f"the case for {case.name!r} never ran that primitive: {applied}"

    torch_inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in example.arrays]
    expected = case.torch(torch, torch_inputs, example.params)
    assert out.shape == tuple(expected.shape)
    assert str(out.dtype) == str(expected.dtype).replace("torch.", "")
    tolerance = FLOAT64 if out.dtype == np.float64 else FLOAT32
    np.testing.assert_allclose(out.data, expected.detach().numpy(), **tolerance,
                               err_msg=f"{case.name} forward")

    cotangent = np.random.default_rng(seed).normal(size=out.shape).astype(out.dtype)
    out.backward(cotangent)
    expected.backward(torch.from_numpy(cotangent))
    for index, (ours, theirs) in enumerate(zip(inputs, torch_inputs)):
        reference = np.zeros(theirs.shape) if theirs.grad is None else theirs.grad.numpy()
        got = np.zeros(ours.shape) if ours.grad is None else ours.grad
        assert got.shape == reference.shape
        np.testing.assert_allclose(got, reference, **FLOAT64,
                                   err_msg=f"{case.name}: gradient of input {index}")


@pytest.mark.parametrize("case", CASES, ids=str)
@SETTINGS
@given(data=st.data())
def test_forward_and_backward_match_torch(case, data):
    check_against_torch(case, data.draw(case.example, label="example"),
                        data.draw(seeds(), label="cotangent seed"))


def test_the_harness_catches_what_a_sum_would_hide():
    """The harness can fail: a softmax backward that returns zeros is caught.

    Under ``out.sum().backward()`` the true softmax gradient is zero too (the
    outputs always sum to 1), so only a random cotangent exposes this bug.
    """
    softmax = CASE_BY_NAME["softmax"]
    example = Example((np.array([[0.3, -1.2, 2.0], [0.5, 0.1, -0.4]]),), {"axis": -1})
    check_against_torch(softmax, example, seed=0)            # the real backward passes
    x = mg.tensor(example.arrays[0], dtype=np.float64, requires_grad=True)
    mg.ops.softmax(x).sum().backward()
    assert np.allclose(x.grad, 0)                            # what a sum() check would see

    with replaced_backward("softmax", lambda ctx, grad: (np.zeros_like(grad),)), \
            pytest.raises(AssertionError):
        check_against_torch(softmax, example, seed=0)

"""The shortcuts minigrad takes on the hot path of a training step give torch's results:
each case here exercises the shortcut and its fallback side by side."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import ops

torch = pytest.importorskip("torch")


def _leaf(array, requires_grad=True):
    return mg.tensor(array, requires_grad=requires_grad)


@pytest.mark.parametrize("a_layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("b_layout", ["contiguous", "weight.T"])
@pytest.mark.parametrize("a_needs_grad", [True, False])
def test_stacked_rows_times_one_matrix_match_torch(a_layout, b_layout, a_needs_grad):
    """(batch, time, k) @ (k, n): one product over all rows when a is C-contiguous."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 5))
    if a_layout == "transposed":                      # not C-contiguous: the batched path
        a = np.ascontiguousarray(np.swapaxes(a, 1, 2)).swapaxes(1, 2)
    b = rng.standard_normal((5, 6)) if b_layout == "contiguous" else rng.standard_normal((6, 5)).T
    cotangent = rng.standard_normal((2, 3, 4, 6))
    ours_a, ours_b = _leaf(a, a_needs_grad), _leaf(b)
    out = ops.matmul(ours_a, ours_b)
    out.backward(cotangent)
    theirs_a = torch.tensor(a, requires_grad=a_needs_grad)
    theirs_b = torch.tensor(b, requires_grad=True)
    expected = theirs_a @ theirs_b
    expected.backward(torch.tensor(cotangent))
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours_b.grad, theirs_b.grad.numpy(), rtol=1e-12, atol=1e-12)
    if a_needs_grad:
        assert ours_a.grad.shape == a.shape
        np.testing.assert_allclose(ours_a.grad, theirs_a.grad.numpy(), rtol=1e-12, atol=1e-12)
    else:
        assert ours_a.grad is None

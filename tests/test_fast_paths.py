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


# --- axis_reductions: the same values as NumPy's reductions ---------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from minigrad.ops.axis_reductions import max_last, mean_last, sum_last, sum_leading  # noqa: E402

_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=7)
_floats = st.one_of(st.floats(-1e6, 1e6, width=32), st.sampled_from([np.nan, np.inf, -np.inf]))
_arrays = st.one_of(hnp.arrays(st.sampled_from([np.float32, np.float64]), _shapes, elements=_floats),
                    hnp.arrays(np.int64, _shapes, elements=st.integers(-1000, 1000)),
                    hnp.arrays(np.bool_, _shapes))


@settings(max_examples=150, deadline=None)
@given(_arrays)
def test_axis_reductions_equal_numpys(a):
    if a.dtype == np.bool_:
        np.testing.assert_array_equal(sum_last(a), a.sum(-1, keepdims=True))
        return
    with np.errstate(all="ignore"):
        if a.shape[-1] > 0:
            np.testing.assert_array_equal(max_last(a), a.max(-1, keepdims=True))
            np.testing.assert_array_equal(max_last(a, keepdims=False), a.max(-1))
        tolerance = dict(rtol=1e-5 if a.dtype == np.float32 else 1e-12, atol=1e-6 * a.size)
        np.testing.assert_allclose(sum_last(a), a.sum(-1, keepdims=True), **tolerance)
        np.testing.assert_allclose(sum_last(a, keepdims=False), a.sum(-1), **tolerance)
        if a.shape[-1] > 0:
            np.testing.assert_allclose(mean_last(a), a.mean(-1, keepdims=True), **tolerance)
        for count in range(a.ndim + 1):
            np.testing.assert_allclose(sum_leading(a, count), a.sum(axis=tuple(range(count))),
                                       **tolerance)
            assert sum_leading(a, count).shape == a.shape[count:]


def test_softmax_and_layer_norm_on_the_fast_axis_match_torch_in_float64():
    rng = np.random.default_rng(1)
    scores = rng.standard_normal((2, 3, 5, 5)) * 10
    scores[..., 1, 3:] = -np.inf                       # a causal-style mask
    cotangent = rng.standard_normal(scores.shape)
    for ours_op, torch_op in [(ops.softmax, torch.softmax), (ops.log_softmax, torch.log_softmax)]:
        a = _leaf(scores)
        out = ours_op(a, -1)
        out.backward(cotangent)
        t = torch.tensor(scores, requires_grad=True)
        expected = torch_op(t, -1)
        expected.backward(torch.tensor(cotangent))
        finite = np.isfinite(expected.detach().numpy())
        np.testing.assert_allclose(out.data[finite], expected.detach().numpy()[finite], rtol=1e-12)
        np.testing.assert_allclose(a.grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)
    x = rng.standard_normal((4, 6, 8))
    weight, bias = rng.standard_normal(8), rng.standard_normal(8)
    cotangent = rng.standard_normal(x.shape)
    leaves = [_leaf(v) for v in (x, weight, bias)]
    mg.nn.functional.layer_norm(leaves[0], (8,), leaves[1], leaves[2]).backward(cotangent)
    tensors = [torch.tensor(v, requires_grad=True) for v in (x, weight, bias)]
    torch.nn.functional.layer_norm(tensors[0], (8,), tensors[1], tensors[2]).backward(
        torch.tensor(cotangent))
    for leaf, tensor in zip(leaves, tensors):
        np.testing.assert_allclose(leaf.grad, tensor.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_layer_norm_shortcut_gives_the_general_paths_values_bit_for_bit():
    """The usual layer norm (last axis, weight and bias) skips the general forward's checks and
    helpers, not its arithmetic: a (3, 1)-shaped normalized_shape given as a list takes the
    general path on the same numbers, and both agree exactly, in float32 and float64."""
    rng = np.random.default_rng(2)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((5, 7, 12)).astype(dtype) * 3 + 1
        weight, bias = rng.standard_normal(12).astype(dtype), rng.standard_normal(12).astype(dtype)
        shortcut = ops.REGISTRY["layer_norm"].apply(x, weight, bias, normalized_shape=(12,))
        general = ops.REGISTRY["layer_norm"].apply(x, weight, bias, normalized_shape=[12])
        assert shortcut.dtype == dtype
        np.testing.assert_array_equal(shortcut.data, general.data)


@pytest.mark.parametrize("ignore_index", [-100, 0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_shortcut_and_its_fallbacks_match_torch_in_float64(ignore_index, reduction):
    """Valid class ids without weights or smoothing take the shortcut (softmax from the saved
    exponentials); ids equal to an ignore_index inside the class range take the general path.
    Both give torch's loss and gradient; the shortcut's loss is the general path's exactly."""
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((9, 6)) * 4
    target = rng.integers(0, 6, 9)
    target[2] = 0
    cotangent = rng.standard_normal(9) if reduction == "none" else rng.standard_normal(())
    ours = _leaf(logits)
    out = ops.cross_entropy(ours, target, ignore_index=ignore_index, reduction=reduction)
    out.backward(cotangent)
    theirs = torch.tensor(logits, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(theirs, torch.tensor(target),
                                                 ignore_index=ignore_index, reduction=reduction)
    expected.backward(torch.tensor(cotangent))
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-10, atol=1e-14)
    if ignore_index == -100:   # the shortcut's loss against the general path (an all-ones weight)
        general = ops.cross_entropy(_leaf(logits), target, weight=np.ones(6), reduction=reduction)
        np.testing.assert_array_equal(out.data, general.data)


@pytest.mark.parametrize("ids", [[3, 0, 4, 1], [2, 2, 0, 2], [5, 1, 1, 0]])
def test_embedding_gradient_assigns_unique_ids_and_sums_repeated_ones(ids):
    """All-different ids (positions) are assigned, repeated ids summed: both equal np.add.at."""
    from minigrad.ops.lookup import scatter_add_rows
    rows = np.random.default_rng(4).standard_normal((4, 3))
    ids = np.array(ids, dtype=np.uint32)
    expected = np.zeros((6, 3))
    np.add.at(expected, ids.astype(np.intp), rows)
    np.testing.assert_array_equal(scatter_add_rows(ids, rows, 6), expected)

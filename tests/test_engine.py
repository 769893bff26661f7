"""The autograd engine itself: graph walking, accumulation, no_grad, hooks, detach, errors."""
import time

import numpy as np
import pytest

import minigrad as mg
from minigrad import ops
from minigrad.autograd import observe_ops
from minigrad.ops import REGISTRY


def leaf(values, dtype=np.float64):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True, dtype=dtype)


# --- graph shape ---------------------------------------------------------------------------

def test_deep_chain_of_20000_nodes_backpropagates_without_recursion():
    x = leaf(0.5)
    y = x
    for _ in range(10_000):      # 20,000 nodes: a tanh and a scaled copy per step
        y = ops.tanh(y) * 1.0001
    start = time.perf_counter()
    y.backward()
    elapsed = time.perf_counter() - start
    # the same chain rule by hand: prod over steps of 1.0001 * (1 - tanh(z)^2)
    z, slope = 0.5, 1.0
    for _ in range(10_000):
        t = np.tanh(z)
        slope *= 1.0001 * (1 - t * t)
        z = 1.0001 * t
    assert y.data == pytest.approx(z, rel=1e-12)
    assert x.grad == pytest.approx(slope, rel=1e-9)
    # generous: the point is linear time (a quadratic walk would take minutes), not speed
    assert elapsed < 30.0, f"backward through 20,000 nodes took {elapsed:.1f} s"


def test_reused_tensor_sums_the_gradients_of_all_its_uses():
    x = leaf([1.5, -2.0, 0.5])
    y = x * x + x * 3.0 + x        # d/dx = 2x + 4
    z = y * y                      # y used twice too: d/dx = 2y (2x + 4)
    z.backward(np.array([1.0, 2.0, -1.0]))
    expected = np.array([1.0, 2.0, -1.0]) * 2 * (x.data ** 2 + 4 * x.data) * (2 * x.data + 4)
    np.testing.assert_allclose(x.grad, expected)


def test_diamond_graph_and_wide_fan_out():
    x = leaf([[0.3, -0.7]])
    a = x * 2.0
    total = a
    for _ in range(100):           # 'a' feeds 101 uses
        total = total + a
    total.sum().backward()
    np.testing.assert_allclose(x.grad, np.full((1, 2), 2.0 * 101))


def test_hook_on_a_reused_tensor_runs_once_with_the_summed_gradient():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    seen = []
    h.register_hook(lambda g: seen.append(g.copy()))
    (h * h + h).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], 2 * h.data + 1)


# --- no_grad, detach --------------------------------------------------------------------------

def test_no_grad_records_nothing_and_restores_the_mode_after_an_error():
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        y = x * 2.0
        assert not mg.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()
    with pytest.raises(ZeroDivisionError):
        with mg.no_grad():
            1 / 0
    assert mg.is_grad_enabled()
    with mg.no_grad():
        with mg.enable_grad():
            assert (x * 2.0).requires_grad


def test_detach_shares_data_and_stops_the_gradient():
    x = leaf([1.0, 2.0, 3.0])
    d = x.detach()
    assert not d.requires_grad and d.data is x.data
    y = (x * d).sum()              # d is a constant: dy/dx = d, not 2x
    y.backward()
    np.testing.assert_allclose(x.grad, [1.0, 2.0, 3.0])
    assert d.grad is None


# --- hooks and retain_grad ------------------------------------------------------------------------

def test_tensor_hooks_see_and_can_replace_the_gradient():
    x = leaf([1.0, -1.0])
    h = x * 3.0
    calls = []
    h.register_hook(lambda g: calls.append(g.copy()))
    h.register_hook(lambda g: g * 10)              # a returned value replaces the gradient
    (h * 2.0).sum().backward()
    np.testing.assert_allclose(calls[0], [2.0, 2.0])
    np.testing.assert_allclose(x.grad, [60.0, 60.0])


def test_removed_hook_is_not_called_and_leaf_hooks_run():
    x = leaf([1.0, 2.0])
    calls = []
    handle = x.register_hook(lambda g: calls.append("removed"))
    x.register_hook(lambda g: calls.append("kept"))
    handle.remove()
    (x * 2.0).sum().backward()
    assert calls == ["kept"]


def test_hook_on_tensor_without_grad_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0]).register_hook(lambda g: g)


def test_retain_grad_keeps_an_intermediate_gradient():
    x = leaf([1.0, 2.0])
    h = x * x
    h.retain_grad()
    (h * 3.0).sum().backward()
    np.testing.assert_allclose(h.grad, [3.0, 3.0])
    other = x * 2.0
    (other * 1.0).sum().backward()
    assert other.grad is None                      # not retained: intermediates keep no grad


# --- calling backward -------------------------------------------------------------------------

def test_backward_twice_accumulates_into_leaves():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    first = x.grad.copy()
    y.backward()                   # the graph is kept: a second call adds the same again
    np.testing.assert_allclose(x.grad, 2 * first)
    x.grad = None
    y.backward()
    np.testing.assert_allclose(x.grad, first)


def test_backward_on_a_non_scalar_without_grad_explains_itself():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 2.0
    with pytest.raises(RuntimeError, match=r"scalar output.*\(2, 2\)"):
        y.backward()
    with pytest.raises(ValueError, match=r"shape \(2, 2\).*\(3,\)"):
        y.backward(np.ones(3))
    y.backward(np.ones((2, 2)))    # with a gradient of the right shape it works
    np.testing.assert_allclose(x.grad, np.full((2, 2), 2.0))


def test_gradients_keep_the_leaf_dtype():
    x = leaf([1.0, 2.0], dtype=np.float32)
    (x * 2.0).sum().backward()
    assert x.grad.dtype == np.float32


# --- user Functions and the registry ------------------------------------------------------------

class Cube(mg.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 3

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * 3 * a ** 2,)


def test_user_function_plugs_into_the_graph():
    x = leaf([1.0, -2.0])
    (Cube.apply(x) * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad, 6 * x.data ** 2)


def test_user_function_with_a_wrongly_shaped_gradient_is_named_in_the_error():
    class Broken(mg.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum(axis=0)

        @staticmethod
        def backward(ctx, grad):
            return (grad,)                                  # forgot to expand back

    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"Broken.*shape \(2,\).*\(2, 2\)"):
        Broken.apply(x).sum().backward()


def test_replacing_a_registered_backward_changes_the_gradient_everywhere():
    x = leaf([1.0, 2.0])
    cls = REGISTRY["exp"]
    original = vars(cls)["backward"]
    cls.backward = staticmethod(lambda ctx, grad: (grad * 0.0,))
    try:
        x.exp().sum().backward()                          # a Tensor method, not ops.exp
        np.testing.assert_allclose(x.grad, [0.0, 0.0])
    finally:
        cls.backward = original
    x.grad = None
    x.exp().sum().backward()
    np.testing.assert_allclose(x.grad, np.exp(x.data))


def test_observe_ops_sees_every_primitive_with_its_constants():
    x = leaf(np.ones((2, 3)))
    records = []
    with observe_ops(records.append):
        ops.cross_entropy(x, np.array([0, 2]))
        ops.relu(x)
    assert [r.name for r in records] == ["cross_entropy", "relu"]
    target = records[0].kwargs["target"]
    assert target.dtype.kind == "i" and target.tolist() == [0, 2]   # integer targets stay integer
    ops.relu(x)
    assert len(records) == 2                                       # the observer is gone

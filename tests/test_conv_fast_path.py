"""conv2d's fast path (ops/winograd.py) and max_pool2d's side-by-side windows (ops/pool.py).

The fast path must compute what the readable im2col reference computes and what torch
computes: values and every gradient, in float64 tightly and in float32 within a small
multiple of float32 rounding; odd sizes, every padding, with and without bias, inputs
in any memory layout. The planted conv bug must still be planted when the fast path ran
the forward. Max pooling's fast path must keep torch's first-maximum rule, NaN and inf.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.autograd import Context
from minigrad.ops import REGISTRY, winograd

torch = pytest.importorskip("torch")

CONV = REGISTRY["conv2d"]


def relative_error(ours, theirs):
    theirs = np.asarray(theirs, dtype=np.float64)
    return np.abs(np.asarray(ours, dtype=np.float64) - theirs).max() / max(np.abs(theirs).max(), 1e-30)


def run_conv(x, weight, bias, padding, grad, fast=True, monkeypatch=None):
    """Forward and backward of the conv2d primitive on arrays: (out, (dx, dw[, db]), ctx)."""
    if not fast:
        monkeypatch.setattr(winograd, "applies", lambda *args: False)
    ctx = Context()
    ctx.needs_input_grad = (True, True) + ((True,) if bias is not None else ())
    inputs = (x, weight) if bias is None else (x, weight, bias)
    out = CONV.forward(ctx, *inputs, stride=(1, 1), padding=(padding, padding))
    grads = CONV.backward(ctx, grad)
    if monkeypatch is not None:
        monkeypatch.undo()
    return out, grads, ctx


def torch_conv(x, weight, bias, padding, grad):
    tensors = [torch.tensor(a, requires_grad=True) for a in (x, weight, bias) if a is not None]
    out = torch.nn.functional.conv2d(tensors[0], tensors[1],
                                     tensors[2] if bias is not None else None, padding=padding)
    out.backward(torch.tensor(grad))
    return out.detach().numpy(), [t.grad.numpy() for t in tensors]


CASES = [  # (n, c, k, h, w, padding, bias)
    (2, 5, 3, 6, 6, 1, True),
    (3, 4, 2, 7, 5, 1, True),      # odd output sizes: the last tiles stick out
    (2, 6, 3, 5, 8, 0, False),
    (1, 2, 4, 9, 9, 2, True),      # padding 2: outputs larger than the input
    (4, 3, 5, 3, 3, 1, False),     # a single tile
    (2, 8, 16, 12, 12, 1, True),
]


@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_fast_path_matches_torch(case, dtype, tolerance):
    n, c, k, h, w, padding, has_bias = case
    rng = np.random.default_rng(sum(case))
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    weight = rng.standard_normal((k, c, 3, 3)).astype(dtype)
    bias = rng.standard_normal(k).astype(dtype) if has_bias else None
    grad = rng.standard_normal((n, k, h + 2 * padding - 2, w + 2 * padding - 2)).astype(dtype)
    out, grads, ctx = run_conv(x, weight, bias, padding, grad)
    assert ctx.winograd is not None, "the fast path should have run"
    torch_out, torch_grads = torch_conv(x, weight, bias, padding, grad)
    assert out.shape == torch_out.shape and out.dtype == dtype
    assert relative_error(out, torch_out) < tolerance
    assert len(grads) == len(torch_grads)
    for ours, theirs in zip(grads, torch_grads):
        assert ours.shape == theirs.shape and ours.dtype == dtype
        assert relative_error(ours, theirs) < tolerance


@pytest.mark.parametrize("case", CASES[:3] + CASES[5:], ids=[str(c) for c in CASES[:3] + CASES[5:]])
def test_work_split_into_chunks_of_tile_rows_gives_the_same_result(case, monkeypatch):
    n, c, k, h, w, padding, has_bias = case
    rng = np.random.default_rng(sum(case))
    x, weight = rng.standard_normal((n, c, h, w)), rng.standard_normal((k, c, 3, 3))
    bias = rng.standard_normal(k) if has_bias else None
    grad = rng.standard_normal((n, k, h + 2 * padding - 2, w + 2 * padding - 2))
    whole_out, whole_grads, _ = run_conv(x, weight, bias, padding, grad)
    monkeypatch.setattr(winograd, "CHUNK_BYTES", 1)         # one tile row at a time
    assert len(winograd._chunks((3, 2), 8)) == 3
    out, grads, _ = run_conv(x, weight, bias, padding, grad)
    np.testing.assert_allclose(out, whole_out, rtol=1e-12, atol=1e-12)
    for chunked, whole in zip(grads, whole_grads):
        np.testing.assert_allclose(chunked, whole, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(2, 5), k=st.integers(1, 4), h=st.integers(1, 9),
       w=st.integers(1, 9), padding=st.integers(0, 2), has_bias=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_fast_path_agrees_with_the_im2col_reference(n, c, k, h, w, padding, has_bias, seed):
    if min(h, w) + 2 * padding < 3:
        return   # no window fits: conv2d refuses (tested elsewhere)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w))
    weight, bias = rng.standard_normal((k, c, 3, 3)), rng.standard_normal(k) if has_bias else None
    grad = rng.standard_normal((n, k, h + 2 * padding - 2, w + 2 * padding - 2))
    fast_out, fast_grads, _ = run_conv(x, weight, bias, padding, grad)
    with pytest.MonkeyPatch.context() as patch:
        slow_out, slow_grads, ctx = run_conv(x, weight, bias, padding, grad, fast=False,
                                             monkeypatch=patch)
    assert ctx.winograd is None
    np.testing.assert_allclose(fast_out, slow_out, rtol=1e-10, atol=1e-10)
    for fast, slow in zip(fast_grads, slow_grads):
        np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kwargs, shape", [
    (dict(stride=2), (2, 3, 3, 3)), (dict(dilation=2), (2, 3, 3, 3)),
    (dict(), (2, 3, 5, 5)), (dict(), (2, 1, 3, 3))])
def test_other_convolutions_take_the_reference_path(kwargs, shape):
    x = np.random.default_rng(0).standard_normal((2, shape[1], 9, 9))
    ctx = Context()
    ctx.needs_input_grad = (True, True)
    options = dict(stride=(1, 1), padding=(1, 1), dilation=(1, 1))
    options.update({key: (value, value) for key, value in kwargs.items()})
    CONV.forward(ctx, x, np.ones(shape), **options)
    assert ctx.winograd is None


@pytest.mark.parametrize("channels, kernel, stride", [(1, 3, 1), (3, 3, 1), (3, 5, 2)])
def test_an_empty_batch_gives_empty_outputs_and_zero_gradients(channels, kernel, stride):
    x = mg.tensor(np.zeros((0, channels, 5, 5)), requires_grad=True)
    weight = mg.tensor(np.ones((4, channels, kernel, kernel)), requires_grad=True)
    bias = mg.tensor(np.ones(4), requires_grad=True)
    out = mg.nn.functional.conv2d(x, weight, bias, stride=stride, padding=1)
    out.sum().backward()
    expected = torch.nn.functional.conv2d(torch.zeros(0, channels, 5, 5),
                                          torch.ones(4, channels, kernel, kernel), stride=stride,
                                          padding=1)
    assert out.shape == tuple(expected.shape) and x.grad.shape == x.shape
    assert not weight.grad.any() and not bias.grad.any()


def test_transforms_compute_a_correlation():
    rng = np.random.default_rng(0)
    for out, points in [(2, (0, 1, -1)), (4, (0, 1, -1, 2, -2)), (3, (0, 1, -1, 0.5))]:
        a_t, g, b_t = winograd.transforms(points, out, 3)
        kernel, signal = rng.standard_normal(3), rng.standard_normal(out + 2)
        direct = [kernel @ signal[i:i + 3] for i in range(out)]
        np.testing.assert_allclose(a_t @ ((g @ kernel) * (b_t @ signal)), direct, atol=1e-12)
    with pytest.raises(ValueError, match="distinct"):
        winograd.transforms((0, 1, 1), 2, 3)


def test_a_cnn_with_channels_last_activations_matches_torch():
    """conv -> relu -> conv -> relu -> max pool -> flatten -> linear, float64, all gradients:
    the layers between two fast convolutions see (H, W, N, C)-ordered arrays."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 3, 8, 8))
    target = rng.integers(0, 4, 3)

    def model(nn):
        return nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 5, 3, padding=1),
                             nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(5 * 16, 4))

    torch.manual_seed(0)
    theirs = model(torch.nn).double()
    ours = model(mg.nn).double()
    ours.load_state_dict({name: mg.tensor(value.detach().numpy())
                          for name, value in theirs.state_dict().items()})
    torch_loss = torch.nn.functional.cross_entropy(theirs(torch.tensor(x)), torch.tensor(target))
    torch_loss.backward()
    our_loss = mg.nn.functional.cross_entropy(ours(mg.tensor(x)), mg.tensor(target))
    our_loss.backward()
    assert abs(float(our_loss.data) - torch_loss.item()) < 1e-12
    for (name, theirs_p), ours_p in zip(theirs.named_parameters(), ours.parameters()):
        np.testing.assert_allclose(ours_p.grad, theirs_p.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)


def test_reference_path_convolutions_between_fast_ones_match_torch():
    """Strided, 1x1, dilated and 5x5 convolutions (the im2col path) fed by and feeding 3x3
    fast-path ones, a 1-channel first layer, no bias: values and all gradients, float64."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 1, 11, 11))

    def model(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                             nn.Conv2d(4, 6, 3, padding=1), nn.Conv2d(6, 5, 3, stride=2, padding=1),
                             nn.Tanh(), nn.Conv2d(5, 7, 1, bias=False), nn.Conv2d(7, 4, 3, padding=1),
                             nn.Conv2d(4, 3, 5, padding=4, dilation=2))

    torch.manual_seed(1)
    theirs = model(torch.nn).double()
    ours = model(mg.nn).double()
    ours.load_state_dict({name: mg.tensor(value.detach().numpy())
                          for name, value in theirs.state_dict().items()})
    cotangent = rng.standard_normal((2, 3, 6, 6))
    torch_x = torch.tensor(x, requires_grad=True)
    torch_out = theirs(torch_x)
    torch_out.backward(torch.tensor(cotangent))
    our_x = mg.tensor(x, requires_grad=True)
    out = ours(our_x)
    out.backward(mg.tensor(cotangent))
    np.testing.assert_allclose(out.data, torch_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(our_x.grad, torch_x.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, theirs_p), ours_p in zip(theirs.named_parameters(), ours.parameters()):
        np.testing.assert_allclose(ours_p.grad, theirs_p.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)


def test_the_planted_conv_bug_is_planted_when_the_fast_path_ran_forward():
    rng = np.random.default_rng(2)
    x = mg.tensor(rng.standard_normal((2, 4, 6, 6)), requires_grad=True)
    weight = mg.tensor(rng.standard_normal((3, 4, 3, 3)), requires_grad=True)
    cotangent = rng.standard_normal((2, 3, 6, 6))

    def gradients():
        x.grad = weight.grad = None
        mg.nn.functional.conv2d(x, weight, padding=1).backward(mg.tensor(cotangent))
        return np.array(x.grad), np.array(weight.grad)

    right_x, right_w = gradients()
    with mg.bugs.plant("conv2d_weight_grad_flipped"):
        wrong_x, wrong_w = gradients()
    np.testing.assert_allclose(wrong_w, right_w[..., ::-1, ::-1], rtol=1e-10)
    np.testing.assert_allclose(wrong_x, right_x, rtol=1e-10)
    assert np.abs(wrong_w - right_w).max() > 1e-3
    np.testing.assert_array_equal(gradients()[1], right_w)   # restored


# --- max pooling over side-by-side windows --------------------------------------------

def channels_last(array):
    """The same values as ``array`` (N, C, H, W), stored (H, W, N, C) as a conv leaves them."""
    return np.ascontiguousarray(array.transpose(2, 3, 0, 1)).transpose(2, 3, 0, 1)


@pytest.mark.parametrize("layout", [np.ascontiguousarray, channels_last])
@pytest.mark.parametrize("kernel, size", [(2, 8), (2, 7), (3, 9)])
def test_side_by_side_max_pool_matches_torch(layout, kernel, size):
    rng = np.random.default_rng(kernel * size)
    x = rng.integers(-3, 3, (2, 3, size, size)).astype(np.float32)   # many ties
    x[0, 0, :2, :2] = -np.inf
    grad_shape = (2, 3, size // kernel, size // kernel)
    grad = rng.standard_normal(grad_shape).astype(np.float32)
    grad[1, 2, 0, 0] = np.inf                                        # stays where it won
    ours_x = mg.tensor(layout(x), requires_grad=True)
    out, indices = mg.nn.functional.max_pool2d(ours_x, kernel, return_indices=True)
    out.backward(mg.tensor(grad))
    theirs_x = torch.tensor(x, requires_grad=True)
    torch_out, torch_indices = torch.nn.functional.max_pool2d(theirs_x, kernel,
                                                              return_indices=True)
    torch_out.backward(torch.tensor(grad))
    np.testing.assert_array_equal(out.data, torch_out.detach().numpy())
    np.testing.assert_array_equal(indices.data, torch_indices.numpy())
    np.testing.assert_array_equal(ours_x.grad, theirs_x.grad.numpy())


def test_side_by_side_max_pool_with_nan_takes_the_general_path():
    x = np.arange(32, dtype=np.float64).reshape(1, 2, 4, 4)
    x[0, 1, 1, 0] = np.nan
    ours_x = mg.tensor(channels_last(x), requires_grad=True)
    out = mg.nn.functional.max_pool2d(ours_x, 2)
    out.backward(mg.tensor(np.ones(out.shape)))
    theirs_x = torch.tensor(x, requires_grad=True)
    torch_out = torch.nn.functional.max_pool2d(theirs_x, 2)
    torch_out.backward(torch.ones(torch_out.shape, dtype=torch.float64))
    np.testing.assert_array_equal(out.data, torch_out.detach().numpy())
    np.testing.assert_array_equal(ours_x.grad, theirs_x.grad.numpy())

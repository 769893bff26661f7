"""Grouped convolutions (``groups``) in conv1d and the Conv1d / Conv2d layers, against torch.

Values and every gradient in float64 (and float32 within rounding), the layers built from
torch's weights, and torch's error when the channels do not split into the groups.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as mnn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype, tolerance", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("groups, c, o, options", [
    (2, 4, 6, dict()), (3, 3, 6, dict(stride=2, padding=1)), (4, 8, 4, dict(dilation=2)),
    (2, 4, 2, dict(padding="same")), (1, 3, 2, dict(padding=2))])
@pytest.mark.parametrize("bias", [True, False])
def test_grouped_conv1d_matches_torch(groups, c, o, options, bias, dtype, tolerance):
    rng = np.random.default_rng(groups * 10 + c)
    x = rng.standard_normal((3, c, 11)).astype(dtype)
    weight = rng.standard_normal((o, c // groups, 3)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype) if bias else None
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, weight, b) if a is not None]
    torch_out = torch.nn.functional.conv1d(theirs[0], theirs[1], theirs[2] if bias else None,
                                           groups=groups, **options)
    cotangent = rng.standard_normal(torch_out.shape).astype(dtype)
    torch_out.backward(torch.tensor(cotangent))
    ours = [mg.tensor(a, requires_grad=True) for a in (x, weight, b) if a is not None]
    out = mg.nn.functional.conv1d(ours[0], ours[1], ours[2] if bias else None, groups=groups,
                                  **options)
    out.backward(mg.tensor(cotangent))
    assert out.shape == tuple(torch_out.shape) and out.dtype == dtype
    scale = np.abs(torch_out.detach().numpy()).max()
    np.testing.assert_allclose(out.data, torch_out.detach().numpy(), atol=tolerance * scale)
    for mine, reference in zip(ours, theirs):
        reference = reference.grad.numpy()
        np.testing.assert_allclose(mine.grad, reference, atol=tolerance * np.abs(reference).max())


def test_unbatched_grouped_conv1d():
    x, weight = np.ones((4, 7)), np.arange(24.0).reshape(6, 2, 2)
    out = mg.nn.functional.conv1d(mg.tensor(x), mg.tensor(weight), groups=2)
    expected = torch.nn.functional.conv1d(torch.tensor(x), torch.tensor(weight), groups=2)
    np.testing.assert_allclose(out.data, expected.numpy())


@pytest.mark.parametrize("layer, shape", [("Conv1d", (2, 6, 9)), ("Conv2d", (2, 6, 7, 7))])
def test_grouped_layers_from_torch_weights_match_torch(layer, shape):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, layer)(6, 4, 3, padding=1, groups=2).double()
    ours = getattr(mnn, layer)(6, 4, 3, padding=1, groups=2).double()
    assert ours.weight.shape == tuple(theirs.weight.shape) == (4, 3) + (3,) * (len(shape) - 2)
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal(shape)
    theirs(torch.tensor(x)).sum().backward()
    out = ours(mg.tensor(x))
    out.sum().backward()
    expected = theirs(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out.data, expected, atol=1e-12 * np.abs(expected).max())
    expected = theirs.weight.grad.numpy()
    np.testing.assert_allclose(ours.weight.grad, expected, atol=1e-12 * np.abs(expected).max())
    # torch's initialisation bound uses fan_in = in_channels / groups * kernel size
    fresh = getattr(mnn, layer)(6, 4, 3, groups=2)
    bound = 1 / np.sqrt(3 * 3 ** (len(shape) - 2))
    assert np.abs(fresh.weight.data).max() <= bound


@pytest.mark.parametrize("layer", ["Conv1d", "Conv2d"])
def test_channels_that_do_not_split_into_groups_are_refused(layer):
    with pytest.raises(ValueError, match="divisible by groups"):
        getattr(mnn, layer)(6, 4, 3, groups=4)
    with pytest.raises(ValueError, match="positive int"):
        getattr(mnn, layer)(6, 4, 3, groups=0)


def test_conv1d_with_groups_that_do_not_fit_the_input_is_refused():
    with pytest.raises(ValueError, match="groups=2"):
        mg.nn.functional.conv1d(mg.tensor(np.ones((1, 4, 5))), mg.tensor(np.ones((2, 3, 3))),
                                groups=2)

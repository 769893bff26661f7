"""Options the OpInfo replay used to decline, now implemented, each against torch: negative
padding (cropping), batch_norm on a 1-D input, attention dropout (its statistics and the
gradient through the kept mask: the random draws themselves cannot agree), and matmul /
linear refusing an integer operand as torch does (two float precisions are promoted, as in NumPy)."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.random import generator

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(array):
    return (mg.tensor(array, requires_grad=True),
            torch.tensor(array, requires_grad=True))


# --- negative padding crops --------------------------------------------------------------------

@pytest.mark.parametrize("shape, pad", [((5, 3), (-1, -2, 1, 1)), ((1, 3, 4, 4), (-1, 1, -2, 1)),
                                        ((4,), (-4, 1)), ((2, 6), (-2, 0, 0, -1)),
                                        ((3, 4), (1, -3))])
def test_negative_padding_crops_like_torch(shape, pad):
    x = np.random.default_rng(0).standard_normal(shape)
    ours, theirs = _pair(x)
    out, expected = F.pad(ours, pad, value=7.0), TF.pad(theirs, pad, value=7.0)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    cotangent = np.random.default_rng(1).standard_normal(out.shape)
    out.backward(cotangent)
    expected.backward(torch.tensor(cotangent))
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


def test_cropping_more_than_a_dimension_is_one_clear_error():
    x = np.ones((2, 4))
    with pytest.raises(RuntimeError):
        TF.pad(torch.tensor(x), (-3, -3))
    with pytest.raises(ValueError, match=r"crop more than its 4 entries"):
        F.pad(mg.tensor(x), (-3, -3))


# --- batch_norm on a 1-D input ----------------------------------------------------------------

@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_an_empty_vector_is_empty_as_in_torch(training):
    ours, theirs = _pair(np.zeros(0))
    stats = [np.zeros(0), np.ones(0)]
    out = F.batch_norm(ours, *[mg.tensor(s) for s in stats], training=training)
    expected = TF.batch_norm(theirs, *[torch.tensor(s) for s in stats], training=training)
    assert out.shape == tuple(expected.shape) == (0,) and out.dtype == np.float64
    out.sum().backward()
    expected.sum().backward()
    assert ours.grad.shape == tuple(theirs.grad.shape) == (0,)


def test_batch_norm_of_a_non_empty_vector_is_refused_as_in_torch():
    x = np.arange(3.0)
    with pytest.raises(RuntimeError):
        TF.batch_norm(torch.tensor(x), torch.zeros(3, dtype=torch.float64),
                      torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"1-D input has no channel axis.*reshape\(1, -1\)"):
        F.batch_norm(mg.tensor(x), mg.zeros(3), mg.ones(3))


# --- attention dropout ---------------------------------------------------------------------------

def _attention_inputs(seed=0, batch=(2, 3), length=5, source=7, width=4):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(batch + (n, width)) for n in (length, source, source)]


def test_attention_dropout_drops_a_share_p_and_rescales_the_rest():
    """With value = identity, the output is the attention matrix after dropout."""
    p, source = 0.3, 64
    q, k, _ = _attention_inputs(batch=(4, 8), length=32, source=source)
    v = np.broadcast_to(np.eye(source), (4, 8, source, source)).copy()
    plain = F.scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v)).data
    mg.manual_seed(0)
    dropped = F.scaled_dot_product_attention(mg.tensor(q), mg.tensor(k), mg.tensor(v),
                                             dropout_p=p).data
    zero = dropped == 0
    n = zero.size
    assert abs(zero.mean() - p) < 4 * np.sqrt(p * (1 - p) / n)          # binomial, 4 sigma
    np.testing.assert_allclose(dropped[~zero], plain[~zero] / (1 - p), rtol=1e-12)
    reference = TF.scaled_dot_product_attention(*(torch.tensor(a) for a in (q, k, v)))
    np.testing.assert_allclose(plain, reference.numpy(), rtol=1e-10, atol=1e-12)


def test_attention_dropout_is_unbiased_on_average():
    q, k, v = _attention_inputs(seed=3)
    plain = F.scaled_dot_product_attention(*(mg.tensor(a) for a in (q, k, v))).data
    mg.manual_seed(1)
    draws = [F.scaled_dot_product_attention(*(mg.tensor(a) for a in (q, k, v)),
                                            dropout_p=0.5).data for _ in range(2000)]
    spread = np.std(draws, axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(np.mean(draws, axis=0) - plain) < 5 * spread + 1e-12)


@pytest.mark.parametrize("is_causal", [False, True])
def test_gradients_flow_through_the_kept_mask_as_in_torch(is_causal):
    """Replay minigrad's mask in torch's formula: outputs and all three gradients agree."""
    p = 0.4
    arrays = _attention_inputs(seed=2)
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    mg.manual_seed(7)
    out = F.scaled_dot_product_attention(*ours, dropout_p=p, is_causal=is_causal)
    mg.manual_seed(7)
    keep = generator().random(out.shape[:-1] + (arrays[1].shape[-2],)) >= p   # the same draw
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    q, k, v = theirs
    scores = q @ k.transpose(-2, -1) / np.sqrt(q.shape[-1])
    if is_causal:
        allowed = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    expected = (torch.softmax(scores, -1) * torch.tensor(keep) / (1 - p)) @ v
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    cotangent = np.random.default_rng(5).standard_normal(out.shape)
    out.backward(cotangent)
    expected.backward(torch.tensor(cotangent))
    for mine, torch_leaf in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad, torch_leaf.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_attention_dropout_of_one_drops_everything_as_torch():
    arrays = _attention_inputs(seed=4)
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    out = F.scaled_dot_product_attention(*ours, dropout_p=1.0)
    expected = TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays), dropout_p=1.0)
    np.testing.assert_array_equal(out.data, expected.numpy())
    assert not out.data.any()
    out.sum().backward()
    assert all(not t.grad.any() for t in ours)


# --- mixed dtypes in matmul and linear -----------------------------------------------------------

@pytest.mark.parametrize("left, right", [(np.int64, np.float32), (np.float32, np.int64)])
def test_matmul_with_an_integer_operand_is_refused_as_in_torch(left, right):
    a, b = np.ones((2, 3), dtype=left), np.ones((3, 4), dtype=right)
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.from_numpy(a) @ torch.from_numpy(b)
    with pytest.raises(TypeError, match=rf"must be floats, got {np.dtype(left)} @ "
                                        rf"{np.dtype(right)}; convert the integer operand first"):
        mg.tensor(a) @ mg.tensor(b)
    with pytest.raises(TypeError, match="must be floats"):
        mg.ops.matmul(mg.tensor(a[0]), mg.tensor(b))          # a vector too


@pytest.mark.parametrize("left, right", [(np.float64, np.float32), (np.float32, np.float64)])
def test_two_float_precisions_are_promoted_and_each_gradient_keeps_its_dtype(left, right):
    """Unlike torch (which refuses), minigrad promotes two float precisions as NumPy does:
    the public contract feeds NumPy float64 arrays to float32 layers. The values equal the
    product in float64; each operand's gradient comes back in its own dtype."""
    rng = np.random.default_rng(0)
    a = mg.tensor(rng.standard_normal((2, 3)).astype(left), requires_grad=True)
    b = mg.tensor(rng.standard_normal((3, 4)).astype(right), requires_grad=True)
    out = a @ b
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.data, a.data.astype(np.float64) @ b.data.astype(np.float64))
    out.sum().backward()
    assert a.grad.dtype == left and b.grad.dtype == right


def test_linear_takes_a_float64_input_and_refuses_integers_saying_what_to_do():
    layer = mg.nn.Linear(3, 2)                                  # float32 weights
    assert layer(mg.tensor(np.ones((4, 3)))).dtype == np.float64   # promoted, as in NumPy
    with pytest.raises(TypeError, match=r"input has dtype int64 but the weight float32; "
                                        r"pass input.to\('float32'\)"):
        layer(mg.tensor(np.ones((4, 3), dtype=np.int64)))
    out = layer(mg.tensor(np.ones((4, 3), np.float32)))       # the fix the message names
    assert out.dtype == np.float32


def test_same_dtype_products_still_agree_with_torch():
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        a, b = rng.standard_normal((2, 5, 3)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)
        np.testing.assert_allclose((mg.tensor(a) @ mg.tensor(b)).data,
                                   (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), rtol=1e-5,
                                   atol=1e-6)

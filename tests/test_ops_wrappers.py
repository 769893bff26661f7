"""Behaviour of the public op functions beyond one primitive's derivative: erf accuracy,
dropout's random mask, batch-norm running statistics, stability of the fused losses,
the conveniences of the torch-like signatures."""
import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import ops
from minigrad.ops.special import erf, erfc


def leaf(values, dtype=np.float64):
    return mg.tensor(np.asarray(values), requires_grad=True, dtype=dtype)


# --- erf ---------------------------------------------------------------------------------

def test_erf_matches_the_standard_library_to_a_few_ulps():
    x = np.concatenate([np.linspace(-6, 6, 4001), [0.0, 1e-300, -1e-12, 1.9999999, 2.0, -2.0000001]])
    reference = np.array([math.erf(v) for v in x])
    assert np.max(np.abs(erf(x) - reference)) < 2e-15


def test_erfc_keeps_relative_accuracy_in_the_tail():
    x = np.concatenate([np.linspace(-6, 2, 801), np.linspace(2, 26, 2401)])
    reference = np.array([math.erfc(v) for v in x])
    relative = np.abs(erfc(x) - reference) / reference
    assert np.max(relative[x >= 2]) < 5e-15          # continued fraction: the far tail
    assert np.max(relative) < 2e-13                  # worst just below 2, where erfc = 1 - erf


def test_erf_special_values():
    out = erf(np.array([np.inf, -np.inf, np.nan, 50.0]))
    assert out[0] == 1.0 and out[1] == -1.0 and np.isnan(out[2]) and out[3] == 1.0
    assert erfc(np.array([np.inf]))[0] == 0.0 and erfc(np.array([-np.inf]))[0] == 2.0


def test_float32_erf_and_gelu_stay_float32_and_agree_with_torch():
    torch = pytest.importorskip("torch")
    x = np.linspace(-12, 12, 20001).astype(np.float32)
    reference = torch.erf(torch.from_numpy(x).double()).numpy()
    assert erf(x).dtype == np.float32 and erfc(x).dtype == np.float32
    assert np.max(np.abs(erf(x) - reference)) < 4e-7           # float32: a few ulps of 1
    tail = (x > 2) & (x < 8)                                  # erfc(8) ~ 1e-29: float32 normal
    tail_reference = torch.erfc(torch.from_numpy(x[tail]).double()).numpy()
    assert np.max(np.abs(erfc(x[tail]) - tail_reference) / tail_reference) < 2e-6
    a = leaf(x[::50], dtype=np.float32)
    out = ops.gelu(a)
    out.backward(np.ones_like(out.data))
    t = torch.from_numpy(x[::50].copy()).requires_grad_()
    torch.nn.functional.gelu(t).sum().backward()
    assert out.dtype == np.float32 and a.grad.dtype == np.float32
    np.testing.assert_allclose(out.data, torch.nn.functional.gelu(t).detach().numpy(), atol=2e-6)
    np.testing.assert_allclose(a.grad, t.grad.numpy(), atol=2e-6)


def test_getitem_gradient_with_and_without_repeated_indices_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.arange(12.0).reshape(3, 4)
    for index in [(slice(1, 3), 2), (Ellipsis, None, slice(None, None, 2)), x > 4,
                  np.array([0, 2, 0]), (np.array([1, 1]), np.array([3, 3]))]:
        a = leaf(x)
        out = a[index]
        cotangent = np.random.default_rng(0).standard_normal(out.shape)
        out.backward(cotangent)
        t = torch.tensor(x, requires_grad=True)
        torch_index = tuple(torch.as_tensor(i) if isinstance(i, np.ndarray) else i
                            for i in (index if isinstance(index, tuple) else (index,)))
        t[torch_index].backward(torch.tensor(cotangent))
        np.testing.assert_allclose(a.grad, t.grad.numpy(), err_msg=str(index))


def test_exact_gelu_is_accurate_deep_in_the_negative_tail():
    x = np.array([-30.0, -12.0, -8.0])
    expected = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(ops.gelu(leaf(x)).data, expected, rtol=1e-12)


# --- dropout -------------------------------------------------------------------------------

def test_dropout_off_returns_the_same_tensor():
    x = leaf(np.ones(5))
    assert ops.dropout(x, p=0.5, training=False) is x
    assert ops.dropout(x, p=0.0) is x


def test_dropout_keeps_about_one_minus_p_and_rescales():
    mg.manual_seed(0)
    x = leaf(np.ones(200_000), dtype=np.float32)
    y = ops.dropout(x, p=0.3)
    assert y.dtype == np.float32
    kept = y.data != 0
    # binomial: 5 standard deviations around 0.7
    assert abs(kept.mean() - 0.7) < 5 * math.sqrt(0.7 * 0.3 / kept.size)
    np.testing.assert_allclose(y.data[kept], 1 / 0.7, rtol=1e-6)
    g = np.arange(kept.size, dtype=np.float32)
    y.backward(g)
    np.testing.assert_allclose(x.grad, g * kept / 0.7, rtol=1e-6)


def test_dropout_is_repeatable_from_the_seed_and_p_one_drops_everything():
    x = leaf(np.ones((4, 5)))
    mg.manual_seed(7)
    first = ops.dropout(x, p=0.5).data
    mg.manual_seed(7)
    np.testing.assert_array_equal(ops.dropout(x, p=0.5).data, first)
    y = ops.dropout(x, p=1.0)
    y.sum().backward()
    assert not y.data.any() and not x.grad.any() and not np.isnan(x.grad).any()


# --- batch norm running statistics -------------------------------------------------------

def test_batch_norm_updates_running_stats_in_place_like_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.normal(2.0, 3.0, size=(6, 3, 4, 5))
    mean_buffer, var_buffer = mg.tensor(np.zeros(3), dtype=np.float64), np.ones(3)
    storage = mean_buffer.data
    torch_mean, torch_var = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    for _ in range(3):
        ops.batch_norm(leaf(x), mean_buffer, var_buffer, training=True, momentum=0.2)
        torch.nn.functional.batch_norm(torch.tensor(x), torch_mean, torch_var, training=True,
                                       momentum=0.2)
    assert mean_buffer.data is storage                      # updated in place
    np.testing.assert_allclose(mean_buffer.data, torch_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(var_buffer, torch_var.numpy(), rtol=1e-12)   # unbiased variance

    before = var_buffer.copy()
    out = ops.batch_norm(leaf(x), mean_buffer, var_buffer, training=False)
    np.testing.assert_array_equal(var_buffer, before)       # eval leaves the buffers alone
    expected = torch.nn.functional.batch_norm(torch.tensor(x), torch_mean, torch_var, training=False)
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-10, atol=1e-12)


def test_batch_norm_eval_record_keeps_a_copy_of_the_statistics():
    running_mean, running_var = np.zeros(2), np.ones(2)
    records = []
    with mg.autograd.observe_ops(records.append):
        ops.batch_norm(leaf(np.ones((3, 2))), running_mean, running_var, training=False)
    running_mean += 5.0                       # a later training step changes the buffer ...
    assert records[0].kwargs["mean"].tolist() == [0.0, 0.0]   # ... not what this op used


# --- convenience of the signatures --------------------------------------------------------

def test_conv2d_unbatched_input_and_same_padding():
    rng = np.random.default_rng(1)
    image, weight = rng.normal(size=(2, 5, 6)), rng.normal(size=(3, 2, 3, 3))
    single = ops.conv2d(leaf(image), leaf(weight), padding="same")
    batched = ops.conv2d(leaf(image[None]), leaf(weight), padding=1)
    assert single.shape == (3, 5, 6)
    np.testing.assert_allclose(single.data, batched.data[0])
    x = leaf(image)
    ops.conv2d(x, leaf(weight), padding="valid").sum().backward()
    assert x.grad.shape == image.shape


def test_cross_entropy_is_stable_for_huge_logits():
    logits = leaf([[1e4, 0.0, -1e4], [0.0, 1e4, 0.0]], dtype=np.float32)
    loss = ops.cross_entropy(logits, np.array([2, 1]))
    assert np.isfinite(loss.data) and loss.dtype == np.float32
    assert loss.item() == pytest.approx(1e4, rel=1e-6)      # -log softmax = 2e4 for row 0, 0 for row 1
    loss.backward()
    np.testing.assert_allclose(logits.grad, [[0.5, 0, -0.5], [0, 0, 0]], atol=1e-6)


def test_cross_entropy_accepts_tensor_targets_and_keeps_them_integer():
    records = []
    with mg.autograd.observe_ops(records.append):
        ops.cross_entropy(leaf(np.zeros((2, 3))), mg.tensor([1, 2]))
    assert records[0].kwargs["target"].dtype == np.int64


def test_bce_with_logits_is_stable_and_takes_integer_labels_and_weights():
    x = leaf([[-500.0, 500.0], [3.0, -2.0]], dtype=np.float32)
    labels = np.array([[1, 0], [1, 1]])                     # integers: taken as the input's floats
    loss = ops.binary_cross_entropy_with_logits(x, labels, reduction="none")
    assert loss.dtype == np.float32 and np.all(np.isfinite(loss.data))
    np.testing.assert_allclose(loss.data[0], [500.0, 500.0], rtol=1e-6)
    weight = np.array([[1.0, 0.0], [2.0, 0.5]])
    weighted = ops.binary_cross_entropy_with_logits(x, labels, weight=weight, reduction="sum")
    assert weighted.item() == pytest.approx(float((loss.data * weight).sum()), rel=1e-6)


def test_mse_target_array_takes_the_input_dtype():
    out = ops.mse_loss(leaf([1.0, 2.0], dtype=np.float32), np.array([0.0, 0.0]))
    assert out.dtype == np.float32 and out.item() == pytest.approx(2.5)


def test_embedding_with_tensor_ids_accumulates_repeated_rows():
    weight = leaf(np.arange(6.0).reshape(3, 2))
    out = ops.embedding(mg.tensor([[2, 0], [2, 2]]), weight)
    assert out.shape == (2, 2, 2)
    out.sum().backward()
    np.testing.assert_allclose(weight.grad, [[1, 1], [0, 0], [3, 3]])


def test_layer_norm_accepts_an_int_shape_and_no_affine():
    x = leaf(np.arange(12.0).reshape(3, 4))
    out = ops.layer_norm(x, 4)
    np.testing.assert_allclose(out.data.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(out.data.var(axis=-1), 1 / (1 + 1e-5 / 1.25), rtol=1e-9)

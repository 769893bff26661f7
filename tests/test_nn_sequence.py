"""Sequence-model layers and functions against PyTorch, in float64.

Each case builds the torch layer, makes its minigrad twin with ``from_torch`` (so
the weights are identical), runs both on the same input, pulls a *random*
cotangent back through every output (an all-ones cotangent hides transposition
and scaling bugs), and compares the outputs, the input gradients and every
parameter gradient.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.nn as nn  # noqa: E402
import minigrad.nn.functional as F  # noqa: E402
from minigrad.interop import from_torch, to_torch  # noqa: E402

TF = torch.nn.functional
TOL = dict(rtol=1e-9, atol=1e-10)


def _flatten(out):
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _flatten(item)]
    return [out]


def _mg_inputs(arrays, grads):
    return [mg.tensor(a, requires_grad=g, dtype=a.dtype) if isinstance(a, np.ndarray) else a
            for a, g in zip(arrays, grads)]


def _torch_inputs(arrays, grads):
    return [torch.tensor(a, requires_grad=g) if isinstance(a, np.ndarray) else a
            for a, g in zip(arrays, grads)]


def compare(torch_fn, mg_fn, arrays, grads=None, seed=0, torch_module=None, mg_module=None):
    """Run both functions, pull random cotangents back, compare outputs and all gradients."""
    grads = grads or [isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in arrays]
    t_in, m_in = _torch_inputs(arrays, grads), _mg_inputs(arrays, grads)
    t_out, m_out = _flatten(torch_fn(*t_in)), _flatten(mg_fn(*m_in))
    assert len(t_out) == len(m_out)
    rng = np.random.default_rng(seed)
    t_total, m_total = 0, None
    for t, m in zip(t_out, m_out):
        assert tuple(t.shape) == m.shape
        np.testing.assert_allclose(m.data, t.detach().numpy(), **TOL)
        if not t.requires_grad:
            continue
        cot = rng.standard_normal(m.shape)
        t_total = t_total + (t * torch.tensor(cot)).sum()
        part = (m * mg.tensor(cot, dtype=np.float64)).sum()
        m_total = part if m_total is None else m_total + part
    if m_total is None:
        return m_out
    t_total.backward()
    m_total.backward()
    for t, m, g in zip(t_in, m_in, grads):
        if g:
            np.testing.assert_allclose(m.grad, t.grad.numpy(), **TOL)
    if torch_module is not None:
        mine = dict(mg_module.named_parameters())
        for name, param in torch_module.named_parameters():
            assert param.grad is not None, name
            np.testing.assert_allclose(mine[name].grad, param.grad.numpy(), err_msg=name, **TOL)
    return m_out


def compare_layer(torch_layer, arrays, grads=None, call=None, seed=0):
    torch_layer = torch_layer.double()
    twin = from_torch(torch_layer)
    call = call or (lambda layer, *xs: layer(*xs))
    return compare(lambda *xs: call(torch_layer, *xs), lambda *xs: call(twin, *xs), arrays,
                   grads, seed, torch_layer, twin)


def randn(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


# --- activations, conv1d, group norm, losses -----------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda m: m.SiLU(), lambda m: m.Softplus(), lambda m: m.Softplus(beta=2.0, threshold=1.5),
    lambda m: m.ELU(), lambda m: m.ELU(alpha=0.3)])
def test_activations_match_torch(make):
    torch.manual_seed(0)
    compare_layer(make(torch.nn), [randn(4, 7) * 2])


@pytest.mark.parametrize("kwargs,shape", [
    (dict(kernel_size=3), (2, 3, 9)),
    (dict(kernel_size=3, stride=2, padding=1, bias=False), (2, 3, 10)),
    (dict(kernel_size=2, dilation=2, padding=2), (1, 3, 8)),
    (dict(kernel_size=4, padding="same"), (2, 3, 7)),       # even reach: one more on the right
    (dict(kernel_size=3, padding="valid"), (3, 9)),         # unbatched
])
def test_conv1d_matches_torch(kwargs, shape):
    torch.manual_seed(1)
    compare_layer(torch.nn.Conv1d(3, 4, **kwargs), [randn(*shape)])


@pytest.mark.parametrize("groups,channels,shape,affine", [
    (2, 4, (3, 4, 5), True), (4, 4, (2, 4, 3, 3), True), (1, 6, (2, 6), False)])
def test_group_norm_matches_torch(groups, channels, shape, affine):
    torch.manual_seed(2)
    layer = torch.nn.GroupNorm(groups, channels, affine=affine)
    if affine:
        with torch.no_grad():
            layer.weight.normal_()
            layer.bias.normal_()
    compare_layer(layer, [randn(*shape)])


@pytest.mark.parametrize("make,target", [
    (lambda m: m.L1Loss(), "real"), (lambda m: m.L1Loss(reduction="sum"), "real"),
    (lambda m: m.SmoothL1Loss(), "real"), (lambda m: m.SmoothL1Loss(beta=0.3, reduction="none"), "real"),
    (lambda m: m.SmoothL1Loss(beta=0.0), "real"),
    (lambda m: m.BCELoss(), "probability"), (lambda m: m.BCELoss(reduction="sum"), "probability"),
    (lambda m: m.KLDivLoss(reduction="batchmean"), "probability"),
    (lambda m: m.KLDivLoss(reduction="sum", log_target=True), "log"),
    (lambda m: m.KLDivLoss(reduction="none"), "probability"),
])
def test_losses_match_torch_with_gradients_to_both_sides(make, target):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4))
    if target == "probability":
        y = rng.uniform(0.05, 0.95, (5, 4))
        y[0, 0] = 0.0                              # a zero target: kl_div's 0 log 0 = 0
        if "BCE" in repr(make(nn)):
            x = rng.uniform(0.05, 0.95, (5, 4))
        else:
            x = np.log(rng.uniform(0.05, 0.95, (5, 4)))
    elif target == "log":
        y = np.log(rng.uniform(0.05, 0.95, (5, 4)))
    else:
        y = rng.standard_normal((5, 4))
    # torch's target gradient of kl_div at a zero target is nan (log 0); compare the value only
    kl_with_zero = target == "probability" and "KLDiv" in repr(make(nn))
    compare_layer(make(torch.nn), [x, y], grads=[True, not kl_with_zero])


def test_bce_weight_and_clamped_log_match_torch():
    x = np.array([[0.0, 0.3, 1.0], [0.5, 0.9, 0.2]])
    y = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    w = np.array([1.0, 2.0, 0.5])
    out = F.binary_cross_entropy(mg.tensor(x, dtype=np.float64), mg.tensor(y, dtype=np.float64), weight=w)
    expected = TF.binary_cross_entropy(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w))
    np.testing.assert_allclose(out.data, expected.numpy(), **TOL)    # log(0) clamped at -100


def test_bce_rejects_values_outside_zero_one():
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0]))


@pytest.mark.parametrize("name,kwargs", [
    ("normalize", dict(dim=1)), ("normalize", dict(dim=-1, p=3.0)), ("normalize", dict(p=1.0)),
    ("cosine_similarity", dict(dim=1)), ("cosine_similarity", dict(dim=0))])
def test_vector_normalisation_matches_torch(name, kwargs):
    arrays = [randn(4, 5)] + ([randn(4, 5, seed=9)] if name == "cosine_similarity" else [])
    compare(lambda *xs: getattr(TF, name)(*xs, **kwargs),
            lambda *xs: getattr(F, name)(*xs, **kwargs), arrays)


def test_normalize_of_a_zero_row_is_zero_with_finite_gradient():
    x = mg.tensor(np.zeros((2, 3)), requires_grad=True, dtype=np.float64)
    out = F.normalize(x, dim=1)
    out.sum().backward()
    assert np.all(out.data == 0) and np.all(np.isfinite(x.grad))


@pytest.mark.parametrize("pad", [(1, 2), (0, 1, 2, 0), (1, 1, 1, 1, 1, 1)])
def test_pad_matches_torch(pad):
    compare(lambda x: TF.pad(x, pad, value=0.5), lambda x: F.pad(x, pad, value=0.5),
            [randn(2, 3, 4)])


def test_one_hot_matches_torch():
    ids = np.array([[0, 3], [2, 2]])
    np.testing.assert_array_equal(F.one_hot(mg.tensor(ids)).data,
                                  TF.one_hot(torch.tensor(ids)).numpy())
    assert F.one_hot(mg.tensor(ids), num_classes=6).shape == (2, 2, 6)
    with pytest.raises(ValueError, match="num_classes"):
        F.one_hot(mg.tensor(ids), num_classes=3)


# --- attention ----------------------------------------------------------------------------------
def _bool_mask(shape, seed):
    mask = np.random.default_rng(seed).random(shape) > 0.3
    mask[..., 0] = True      # every query keeps at least one key (a fully masked row is nan)
    return mask


@pytest.mark.parametrize("case", ["plain", "causal", "causal_rectangular", "bool_mask",
                                  "float_mask", "scale", "broadcast_kv"])
def test_scaled_dot_product_attention_matches_torch(case):
    q, k, v = randn(2, 3, 5, 4), randn(2, 3, 5, 4, seed=1), randn(2, 3, 5, 6, seed=2)
    kwargs = {}
    if case == "causal":
        kwargs = dict(is_causal=True)
    elif case == "causal_rectangular":
        q, kwargs = randn(2, 3, 3, 4), dict(is_causal=True)
    elif case == "bool_mask":
        kwargs = dict(attn_mask=_bool_mask((5, 5), 4))
    elif case == "float_mask":
        kwargs = dict(attn_mask=randn(2, 1, 5, 5, seed=5))
    elif case == "scale":
        kwargs = dict(scale=0.3, is_causal=True)
    elif case == "broadcast_kv":
        k, v = randn(1, 3, 5, 4, seed=1), randn(1, 3, 5, 6, seed=2)

    def with_mask(fn, wrap):
        extra = dict(kwargs)
        if "attn_mask" in extra:
            extra["attn_mask"] = wrap(extra["attn_mask"])
        return lambda *xs: fn(*xs, **extra)
    compare(with_mask(TF.scaled_dot_product_attention, torch.tensor),
            with_mask(F.scaled_dot_product_attention, lambda a: a), [q, k, v])


def test_attention_dropout_follows_minigrads_seed():
    q = mg.tensor(randn(1, 2, 4, 3))
    mg.manual_seed(5)
    first = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).data
    mg.manual_seed(5)
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).data, first)
    assert not np.allclose(first, F.scaled_dot_product_attention(q, q, q).data)


def test_attention_mask_and_causal_together_is_a_clear_error():
    q = mg.tensor(randn(1, 2, 3))
    with pytest.raises(ValueError, match="not both"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=np.ones((2, 2), bool), is_causal=True)


@pytest.mark.parametrize("case", ["plain", "batch_first", "attn_mask", "float_mask",
                                  "padding", "per_head_weights", "no_weights", "cross",
                                  "unbatched", "no_bias", "no_weights_masks"])
def test_multihead_attention_matches_torch(case):
    torch.manual_seed(6)
    batch_first = case in ("batch_first", "padding", "no_weights_masks")
    layer = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, bias=case != "no_bias")
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(0.1 * torch.randn_like(p))       # nonzero biases too
    length, source, n = 4, 4, 3
    if case == "cross":
        source = 6
    shape_q = (n, length, 8) if batch_first else (length, n, 8)
    shape_k = (n, source, 8) if batch_first else (source, n, 8)
    if case == "unbatched":
        shape_q, shape_k = (length, 8), (source, 8)
    q, k, v = randn(*shape_q), randn(*shape_k, seed=1), randn(*shape_k, seed=2)
    kwargs = {}
    if case in ("attn_mask", "no_weights_masks"):
        kwargs["attn_mask"] = np.triu(np.ones((length, source), bool), k=1)    # True = blocked
    if case == "float_mask":
        kwargs["attn_mask"] = randn(n * 2, length, source, seed=3)
    if case in ("padding", "no_weights_masks"):
        padding = np.zeros((n, source), bool)
        padding[0, -1] = padding[2, -2:] = True
        kwargs["key_padding_mask"] = padding
    if case == "per_head_weights":
        kwargs["average_attn_weights"] = False
    if case in ("no_weights", "no_weights_masks"):
        kwargs["need_weights"] = False

    def call(module, *xs):
        extra = {key: torch.tensor(val) if isinstance(module, torch.nn.Module) else val
                 for key, val in kwargs.items() if isinstance(val, np.ndarray)}
        flags = {key: val for key, val in kwargs.items() if not isinstance(val, np.ndarray)}
        return module(*xs, **extra, **flags)
    compare_layer(layer, [q, k, v], call=call)


@pytest.mark.parametrize("norm_first,activation,masked", [
    (False, "relu", False), (True, "gelu", True), (False, "gelu", True), (True, "relu", False)])
def test_transformer_encoder_layer_matches_torch(norm_first, activation, masked):
    torch.manual_seed(7)
    layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                             activation=activation, batch_first=True,
                                             norm_first=norm_first)
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(0.1 * torch.randn_like(p))
    x = randn(3, 5, 8)
    kwargs = {}
    if masked:
        kwargs = dict(src_mask=np.triu(np.ones((5, 5), bool), k=1), is_causal=True)

    def call(module, src):
        mask = kwargs.get("src_mask")
        if mask is not None and isinstance(module, torch.nn.Module):
            mask = torch.tensor(mask)
        return module(src, src_mask=mask, is_causal=kwargs.get("is_causal", False))
    compare_layer(layer, [x], call=call)


def test_encoder_layer_builds_the_causal_mask_from_the_hint():
    torch.manual_seed(8)
    layer = from_torch(torch.nn.TransformerEncoderLayer(4, 1, 8, dropout=0.0,
                                                        batch_first=True).double())
    x = mg.tensor(randn(1, 3, 4), dtype=np.float64)
    causal = layer(x, is_causal=True).data
    explicit = layer(x, src_mask=np.triu(np.ones((3, 3), bool), k=1)).data
    np.testing.assert_allclose(causal, explicit)
    assert not np.allclose(causal, layer(x).data)


# --- recurrent layers ------------------------------------------------------------------------------
RECURRENT_CASES = [
    dict(), dict(num_layers=2), dict(batch_first=True), dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False),
    dict(initial_state=True), dict(unbatched=True), dict(unbatched=True, initial_state=True),
]


def _recurrent_case(kind, case):
    case = dict(case)
    initial, unbatched = case.pop("initial_state", False), case.pop("unbatched", False)
    torch.manual_seed(9)
    layer = getattr(torch.nn, kind)(3, 4, **case)
    layers, directions = case.get("num_layers", 1), 2 if case.get("bidirectional") else 1
    length, n = 5, 2
    x = randn(length, 3) if unbatched else (
        randn(n, length, 3) if case.get("batch_first") else randn(length, n, 3))
    arrays = [x]
    if initial:
        state_shape = (layers * directions, 4) if unbatched else (layers * directions, n, 4)
        arrays.append(randn(*state_shape, seed=1))
        if kind == "LSTM":
            arrays.append(randn(*state_shape, seed=2))
    return layer, arrays


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("case", RECURRENT_CASES, ids=[str(c) for c in RECURRENT_CASES])
def test_recurrent_layers_match_torch(kind, case):
    layer, arrays = _recurrent_case(kind, case)

    def call(module, x, *state):
        if not state:
            return module(x)
        return module(x, tuple(state) if kind == "LSTM" else state[0])
    compare_layer(layer, arrays, call=call)


def test_rnn_relu_matches_torch():
    torch.manual_seed(10)
    compare_layer(torch.nn.RNN(3, 4, nonlinearity="relu", num_layers=2), [randn(6, 2, 3)])


def test_recurrent_dropout_between_layers_is_seeded_and_off_in_eval():
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = mg.tensor(randn(5, 2, 3).astype(np.float32))
    mg.manual_seed(1)
    first = lstm(x)[0].data
    mg.manual_seed(1)
    np.testing.assert_array_equal(lstm(x)[0].data, first)
    lstm.eval()
    np.testing.assert_array_equal(lstm(x)[0].data, lstm(x)[0].data)


def test_recurrent_layers_explain_bad_shapes():
    with pytest.raises(ValueError, match="input_size"):
        nn.GRU(3, 4)(mg.tensor(np.zeros((5, 2, 7), np.float32)))
    with pytest.raises(ValueError, match="h0"):
        nn.LSTM(3, 4)(mg.tensor(np.zeros((5, 2, 3), np.float32)),
                      (mg.tensor(np.zeros((2, 2, 4), np.float32)),
                       mg.tensor(np.zeros((1, 2, 4), np.float32))))


# --- names, layouts, interop --------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda m: m.LSTM(3, 4, num_layers=2, bidirectional=True),
    lambda m: m.GRU(3, 5, bias=False), lambda m: m.RNN(2, 3, nonlinearity="relu"),
    lambda m: m.MultiheadAttention(8, 4), lambda m: m.MultiheadAttention(6, 2, bias=False),
    lambda m: m.TransformerEncoderLayer(8, 2, 16, norm_first=True),
    lambda m: m.Conv1d(2, 3, 3), lambda m: m.GroupNorm(2, 4),
])
def test_parameter_names_and_shapes_match_torch(make):
    ours = {k: v.shape for k, v in make(nn).state_dict().items()}
    theirs = {k: tuple(v.shape) for k, v in make(torch.nn).state_dict().items()}
    assert list(ours) == list(theirs)
    assert ours == theirs


@pytest.mark.parametrize("make", [
    lambda m: m.LSTM(3, 4, num_layers=2, batch_first=True),
    lambda m: m.MultiheadAttention(8, 2, batch_first=True),
    lambda m: m.TransformerEncoderLayer(8, 2, 16, activation="gelu", norm_first=True),
    lambda m: m.Sequential(m.Conv1d(2, 3, 3), m.GroupNorm(1, 3), m.SiLU(), m.ELU(0.5),
                           m.Softplus(2.0)),
])
def test_float64_round_trips_are_exact_and_keep_options(make):
    torch.manual_seed(11)
    original = make(torch.nn).double()
    back = to_torch(from_torch(original))
    assert repr(back) == repr(original)
    for (name, a), (_, b) in zip(original.state_dict().items(), back.state_dict().items()):
        assert torch.equal(a, b), name
        assert a.dtype == b.dtype == torch.float64


def test_transformer_encoder_and_losses_round_trip_and_match_torch():
    torch.manual_seed(13)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(8),
                                          enable_nested_tensor=False).double()
    with torch.no_grad():
        encoder.layers[1].linear1.weight.mul_(2.0)     # the two layers differ
    compare_layer(encoder, [randn(2, 5, 8)])
    back = to_torch(from_torch(encoder))
    for (name, a), (_, b) in zip(encoder.state_dict().items(), back.state_dict().items()):
        assert torch.equal(a, b), name
    losses = [torch.nn.L1Loss(reduction="sum"), torch.nn.SmoothL1Loss(beta=0.5),
              torch.nn.BCELoss(weight=torch.tensor([1.0, 2.0])),
              torch.nn.KLDivLoss(reduction="batchmean", log_target=True)]
    for loss in losses:
        again = to_torch(from_torch(loss))
        assert repr(again) == repr(loss)
        assert dict(again.named_buffers()).keys() == dict(loss.named_buffers()).keys()
    assert from_torch(losses[2]).weight.data.tolist() == [1.0, 2.0]


def test_rnn_flatten_parameters_is_accepted():
    lstm = nn.LSTM(2, 3)
    assert lstm.flatten_parameters() is None


def test_load_state_dict_takes_a_torch_state_dict():
    torch.manual_seed(12)
    theirs = torch.nn.GRU(3, 4, num_layers=2).double()
    mine = nn.GRU(3, 4, num_layers=2, dtype=np.float64)
    mine.load_state_dict(theirs.state_dict())
    x = randn(4, 2, 3)
    np.testing.assert_allclose(mine(mg.tensor(x, dtype=np.float64))[0].data,
                               theirs(torch.tensor(x))[0].detach().numpy(), **TOL)


def test_default_initialisation_has_torchs_scale():
    lstm = nn.LSTM(3, 16)
    bound = 1 / np.sqrt(16)
    assert all(np.abs(p.data).max() <= bound for p in lstm.parameters())
    attention = nn.MultiheadAttention(8, 2)
    assert np.all(attention.in_proj_bias.data == 0) and np.all(attention.out_proj.bias.data == 0)

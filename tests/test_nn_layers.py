"""Every minigrad.nn layer and loss against its torch.nn twin, in float64.

Each case builds the torch layer, gives it random weights, builds the minigrad
layer with the same constructor arguments and loads the torch state dict into it.
Then both run the same input, and both backward passes take the same *random*
cotangent (an all-ones cotangent would hide transposition and scaling bugs).
Outputs, input gradients and every parameter gradient must agree.
"""
import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-9, 1e-11


def _randomize(torch_module, rng):
    """Random weights (and running statistics), so no gradient is trivially 0 or 1."""
    with torch.no_grad():
        for name, p in torch_module.named_parameters():
            p.copy_(torch.from_numpy(rng.normal(size=tuple(p.shape))))
        for name, b in torch_module.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.from_numpy(rng.normal(size=tuple(b.shape))))
            elif name.endswith("running_var"):
                b.copy_(torch.from_numpy(rng.uniform(0.5, 2.0, size=tuple(b.shape))))


def make_pair(name, kwargs, rng):
    """(minigrad layer, torch layer) in float64 with identical weights."""
    theirs = getattr(torch.nn, name)(**kwargs).double()
    _randomize(theirs, rng)
    mine = getattr(nn, name)(**kwargs).double()
    result = mine.load_state_dict(theirs.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    return mine, theirs


def run_both(mine, theirs, inputs, rng, input_grad=True):
    """Forward both with the same inputs, backward a random cotangent, compare everything."""
    mg_inputs = [mg.tensor(x, requires_grad=input_grad and x.dtype.kind == "f", dtype=x.dtype)
                 for x in inputs]
    t_inputs = [torch.tensor(x, requires_grad=input_grad and x.dtype.kind == "f")
                for x in inputs]
    out_mg = mine(*mg_inputs)
    out_t = theirs(*t_inputs)
    np.testing.assert_allclose(out_mg.data, out_t.detach().numpy(), rtol=RTOL, atol=ATOL,
                               err_msg="forward outputs differ")
    assert out_mg.dtype == np.float64
    cotangent = rng.normal(size=out_mg.shape)
    out_mg.backward(cotangent)
    out_t.backward(torch.from_numpy(cotangent))
    for i, (a, b) in enumerate(zip(mg_inputs, t_inputs)):
        if b.requires_grad:
            np.testing.assert_allclose(a.grad, b.grad.numpy(), rtol=RTOL, atol=ATOL,
                                       err_msg=f"gradient of input {i} differs")
    theirs_params = dict(theirs.named_parameters())
    for pname, p in mine.named_parameters():
        tp = theirs_params[pname]
        if tp.grad is None:
            assert p.grad is None or not p.grad.any(), pname
            continue
        np.testing.assert_allclose(p.grad, tp.grad.numpy(), rtol=RTOL, atol=ATOL,
                                   err_msg=f"gradient of parameter {pname} differs")
    return out_mg, out_t


LAYER_CASES = [
    ("Linear", dict(in_features=5, out_features=3), (4, 5)),
    ("Linear", dict(in_features=5, out_features=3, bias=False), (4, 5)),
    ("Linear", dict(in_features=5, out_features=2), (2, 3, 5)),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3), (2, 2, 6, 7)),
    ("Conv2d", dict(in_channels=2, out_channels=4, kernel_size=3, stride=2, padding=1),
     (2, 2, 7, 6)),
    ("Conv2d", dict(in_channels=3, out_channels=2, kernel_size=(3, 2), padding=(1, 0),
                    bias=False), (1, 3, 5, 5)),
    ("Conv2d", dict(in_channels=1, out_channels=2, kernel_size=3, padding="same"), (2, 1, 5, 5)),
    ("Conv2d", dict(in_channels=2, out_channels=2, kernel_size=2, dilation=2), (1, 2, 6, 6)),
    ("MaxPool2d", dict(kernel_size=2), (2, 3, 6, 6)),
    ("MaxPool2d", dict(kernel_size=3, stride=2, padding=1), (2, 2, 7, 5)),
    ("AvgPool2d", dict(kernel_size=2), (2, 3, 6, 6)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, padding=1), (1, 2, 7, 7)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, padding=1, count_include_pad=False), (1, 2, 5, 5)),
    ("Flatten", dict(), (2, 3, 4, 2)),
    ("Flatten", dict(start_dim=0, end_dim=1), (2, 3, 4)),
    ("ReLU", dict(), (4, 6)),
    ("LeakyReLU", dict(negative_slope=0.2), (4, 6)),
    ("Tanh", dict(), (4, 6)),
    ("Sigmoid", dict(), (4, 6)),
    ("GELU", dict(), (4, 6)),
    ("GELU", dict(approximate="tanh"), (4, 6)),
    ("Softmax", dict(dim=1), (4, 6)),
    ("Softmax", dict(dim=0), (4, 6)),
    ("LogSoftmax", dict(dim=-1), (3, 4, 5)),
    ("Identity", dict(), (3, 4)),
    ("LayerNorm", dict(normalized_shape=5), (4, 5)),
    ("LayerNorm", dict(normalized_shape=(3, 5)), (2, 3, 5)),
    ("LayerNorm", dict(normalized_shape=4, elementwise_affine=False), (3, 4)),
    ("LayerNorm", dict(normalized_shape=4, bias=False), (3, 4)),
]


@pytest.mark.parametrize("name,kwargs,shape", LAYER_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYER_CASES)])
def test_layer_matches_torch(name, kwargs, shape):
    rng = np.random.default_rng(hash((name, str(kwargs))) % 2 ** 32)
    mine, theirs = make_pair(name, kwargs, rng)
    run_both(mine, theirs, [rng.normal(size=shape)], rng)


BATCH_NORM_CASES = [
    ("BatchNorm1d", dict(num_features=4), (6, 4)),
    ("BatchNorm1d", dict(num_features=3), (5, 3, 7)),
    ("BatchNorm2d", dict(num_features=3), (4, 3, 5, 5)),
    ("BatchNorm2d", dict(num_features=3, momentum=None), (4, 3, 2, 2)),
    ("BatchNorm2d", dict(num_features=2, affine=False), (3, 2, 4, 4)),
    ("BatchNorm1d", dict(num_features=4, track_running_stats=False), (6, 4)),
    ("BatchNorm1d", dict(num_features=4, momentum=0.3, eps=1e-3), (6, 4)),
]


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name,kwargs,shape", BATCH_NORM_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BATCH_NORM_CASES)])
def test_batch_norm_matches_torch_and_updates_running_stats(name, kwargs, shape, train):
    rng = np.random.default_rng(7)
    mine, theirs = make_pair(name, kwargs, rng)
    mine.train(train)
    theirs.train(train)
    for _ in range(3):   # several batches: running statistics and num_batches_tracked evolve
        run_both(mine, theirs, [rng.normal(2.0, 3.0, size=shape)], rng)
    expected = {k: v.numpy() for k, v in theirs.state_dict().items()}
    got = mine.state_dict()
    assert list(got) == list(expected)
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key], rtol=RTOL, atol=ATOL, err_msg=key)


def test_embedding_matches_torch_including_padding_row():
    rng = np.random.default_rng(3)
    for kwargs in (dict(num_embeddings=10, embedding_dim=4),
                   dict(num_embeddings=10, embedding_dim=3, padding_idx=0)):
        mine, theirs = make_pair("Embedding", kwargs, rng)
        ids = rng.integers(0, 10, size=(3, 5))
        ids[0, :2] = 0
        ids[1, 1] = 0
        run_both(mine, theirs, [ids], rng)
    assert not mine.weight.grad[0].any()   # the padding row is never trained


def test_embedding_default_init_zeroes_padding_row():
    layer = nn.Embedding(6, 3, padding_idx=-1)
    assert layer.padding_idx == 5
    assert not layer.weight.data[5].any() and layer.weight.data[:5].any()


def test_dropout_masks_scale_and_gradient():
    mg.manual_seed(0)
    layer = nn.Dropout(p=0.25)
    x = mg.tensor(np.ones((200, 50)), requires_grad=True, dtype=np.float64)
    out = layer(x)
    kept = out.data != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(out.data[kept], 1 / 0.75)
    g = np.random.default_rng(0).normal(size=out.shape)
    out.backward(g)
    np.testing.assert_allclose(x.grad, g * kept / 0.75)
    # the same seed gives the same mask; eval mode is the identity
    mg.manual_seed(0)
    np.testing.assert_array_equal(nn.Dropout(p=0.25)(x).data, out.data)
    layer.eval()
    np.testing.assert_array_equal(layer(x).data, x.data)


def test_dropout_in_eval_matches_torch_identity():
    rng = np.random.default_rng(1)
    mine, theirs = make_pair("Dropout", dict(p=0.5), rng)
    mine.eval()
    theirs.eval()
    run_both(mine, theirs, [rng.normal(size=(3, 4))], rng)


def test_conv2d_accepts_unbatched_input():
    rng = np.random.default_rng(2)
    mine, theirs = make_pair("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3), rng)
    run_both(mine, theirs, [rng.normal(size=(2, 5, 5))], rng)


# --- losses ---------------------------------------------------------------------------
def _loss_pair(name, kwargs):
    def convert(value, lib):
        if isinstance(value, np.ndarray):
            return torch.from_numpy(value) if lib is torch.nn else value
        return value
    theirs = getattr(torch.nn, name)(**{k: convert(v, torch.nn) for k, v in kwargs.items()})
    mine = getattr(nn, name)(**kwargs)
    return mine, theirs


def _class_target(rng, n, c, extra=()):
    return rng.integers(0, c, size=(n,) + extra)


LOSS_CASES = [
    ("CrossEntropyLoss", dict(), "index", (6, 4)),
    ("CrossEntropyLoss", dict(reduction="sum"), "index", (6, 4)),
    ("CrossEntropyLoss", dict(reduction="none"), "index", (6, 4)),
    ("CrossEntropyLoss", dict(weight=np.array([0.2, 1.0, 2.0, 0.5])), "index", (6, 4)),
    ("CrossEntropyLoss", dict(label_smoothing=0.1), "index", (6, 4)),
    ("CrossEntropyLoss", dict(ignore_index=2), "index", (8, 3)),
    ("CrossEntropyLoss", dict(weight=np.array([0.3, 1.5, 1.0]), ignore_index=0,
                              label_smoothing=0.2), "index", (8, 3)),
    ("CrossEntropyLoss", dict(), "index", (3, 4, 2, 2)),
    ("CrossEntropyLoss", dict(), "probs", (5, 3)),
    ("CrossEntropyLoss", dict(label_smoothing=0.1, reduction="sum"), "probs", (5, 3)),
    ("NLLLoss", dict(), "index_logp", (6, 4)),
    ("NLLLoss", dict(weight=np.array([0.2, 1.0, 2.0, 0.5]), ignore_index=1), "index_logp", (7, 4)),
    ("MSELoss", dict(), "float", (4, 3)),
    ("MSELoss", dict(reduction="sum"), "float", (4, 3)),
    ("MSELoss", dict(reduction="none"), "float", (4, 3)),
    ("BCEWithLogitsLoss", dict(), "binary", (5, 3)),
    ("BCEWithLogitsLoss", dict(reduction="none"), "binary", (5, 3)),
    ("BCEWithLogitsLoss", dict(pos_weight=np.array([1.0, 3.0, 0.5])), "binary", (5, 3)),
    ("BCEWithLogitsLoss", dict(weight=np.array([2.0, 1.0, 0.5]), reduction="sum"), "binary",
     (5, 3)),
]


@pytest.mark.parametrize("name,kwargs,kind,shape", LOSS_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSS_CASES)])
def test_loss_matches_torch(name, kwargs, kind, shape):
    rng = np.random.default_rng(11)
    mine, theirs = _loss_pair(name, kwargs)
    x = rng.normal(size=shape) * 2
    if kind == "index":
        target = _class_target(rng, shape[0], shape[1], shape[2:])
        if kwargs.get("ignore_index") is not None:
            target[:2] = kwargs["ignore_index"]
    elif kind == "index_logp":
        x = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
        target = _class_target(rng, shape[0], shape[1])
        if "ignore_index" in kwargs:
            target[:2] = kwargs["ignore_index"]
    elif kind == "probs":
        p = rng.uniform(size=shape)
        target = p / p.sum(axis=1, keepdims=True)
    elif kind == "binary":
        target = (rng.uniform(size=shape) > 0.5).astype(np.float64)
    else:
        target = rng.normal(size=shape)
    out_mg = mine(mg.tensor(x, requires_grad=True, dtype=np.float64), target)
    xt = torch.tensor(x, requires_grad=True)
    out_t = theirs(xt, torch.from_numpy(target))
    np.testing.assert_allclose(out_mg.data, out_t.detach().numpy(), rtol=RTOL, atol=ATOL)
    mg_x = mg.tensor(x, requires_grad=True, dtype=np.float64)
    out_mg = mine(mg_x, target)
    cotangent = rng.normal(size=out_mg.shape)
    out_mg.backward(cotangent)
    out_t.backward(torch.from_numpy(cotangent))
    np.testing.assert_allclose(mg_x.grad, xt.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_losses_reject_unknown_reduction():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="average")
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(mg.tensor(np.zeros((2, 3))), np.array([0, 1]), reduction="avg")


# --- functional ---------------------------------------------------------------------------
def test_functional_matches_torch_functional():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4, 5))
    w = rng.normal(size=(2, 5))
    b = rng.normal(size=2)
    tf = torch.nn.functional
    pairs = [
        (lambda X: F.linear(X, mg.tensor(w, dtype=np.float64), mg.tensor(b, dtype=np.float64)),
         lambda X: tf.linear(X, torch.from_numpy(w), torch.from_numpy(b))),
        (lambda X: F.softmax(X, dim=1), lambda X: tf.softmax(X, dim=1)),
        (lambda X: F.log_softmax(X, dim=-1), lambda X: tf.log_softmax(X, dim=-1)),
        (lambda X: F.leaky_relu(X, 0.1), lambda X: tf.leaky_relu(X, 0.1)),
        (lambda X: F.gelu(X), lambda X: tf.gelu(X)),
        (lambda X: F.relu(X), lambda X: tf.relu(X)),
        (lambda X: F.tanh(X), lambda X: torch.tanh(X)),
        (lambda X: F.sigmoid(X), lambda X: torch.sigmoid(X)),
        (lambda X: F.flatten(X, 1), lambda X: torch.flatten(X, 1)),
        (lambda X: F.flatten(X), lambda X: torch.flatten(X)),
        (lambda X: F.layer_norm(X, (5,)), lambda X: tf.layer_norm(X, (5,))),
        (lambda X: F.dropout(X, 0.3, training=False), lambda X: tf.dropout(X, 0.3, False)),
    ]
    for mine, theirs in pairs:
        a = mg.tensor(x, requires_grad=True, dtype=np.float64)
        t = torch.tensor(x, requires_grad=True)
        out_a, out_t = mine(a), theirs(t)
        np.testing.assert_allclose(out_a.data, out_t.detach().numpy(), rtol=RTOL, atol=ATOL)
        g = rng.normal(size=out_a.shape)
        out_a.backward(g)
        out_t.backward(torch.from_numpy(g))
        np.testing.assert_allclose(a.grad, t.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_softmax_without_dim_warns_and_uses_torch_legacy_axis():
    x = np.random.default_rng(0).normal(size=(3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension"):
        out = F.softmax(mg.tensor(x, dtype=np.float64))
    np.testing.assert_allclose(out.data.sum(axis=1), 1.0)


def test_functional_batch_norm_updates_buffers_in_place():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3))
    mean, var = mg.tensor(np.zeros(3), dtype=np.float64), mg.tensor(np.ones(3), dtype=np.float64)
    tmean, tvar = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    out = F.batch_norm(mg.tensor(x, dtype=np.float64), mean, var, training=True, momentum=0.2)
    expected = torch.nn.functional.batch_norm(torch.from_numpy(x), tmean, tvar, training=True,
                                              momentum=0.2)
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(mean.data, tmean.numpy(), rtol=RTOL)
    np.testing.assert_allclose(var.data, tvar.numpy(), rtol=RTOL)


# --- layers are built from registered primitives ------------------------------------------
def test_replacing_a_registered_backward_changes_layer_gradients(monkeypatch):
    """Linear is matmul + add from the registry: a planted matmul backward must show up."""
    layer = nn.Linear(3, 2)
    x = mg.tensor(np.ones((4, 3), np.float32), requires_grad=True)
    layer(x).sum().backward()
    assert np.abs(layer.weight.grad).sum() > 0
    matmul = mg.ops.REGISTRY["matmul"]

    def zero_backward(ctx, grad):
        a, b = ctx.saved_tensors
        return np.zeros_like(a), np.zeros_like(b)

    monkeypatch.setattr(matmul, "backward", staticmethod(zero_backward))
    layer.zero_grad()
    layer(x).sum().backward()
    assert not layer.weight.grad.any()
    assert layer.bias.grad.any()   # add's backward is untouched


# --- initialisation --------------------------------------------------------------------------
def test_default_init_follows_torch_bounds_and_the_seed():
    mg.manual_seed(123)
    a = nn.Linear(400, 300)
    mg.manual_seed(123)
    b = nn.Linear(400, 300)
    np.testing.assert_array_equal(a.weight.data, b.weight.data)
    bound = 1 / math.sqrt(400)
    assert np.abs(a.weight.data).max() <= bound and np.abs(a.bias.data).max() <= bound
    # uniform(-bound, bound) has standard deviation bound / sqrt(3)
    assert abs(a.weight.data.std() - bound / math.sqrt(3)) < 0.02 * bound
    conv = nn.Conv2d(8, 16, 3)
    conv_bound = 1 / math.sqrt(8 * 9)
    assert np.abs(conv.weight.data).max() <= conv_bound
    assert np.abs(conv.weight.data).max() > 0.9 * conv_bound
    c = nn.Linear(400, 300)   # the generator moved on: a fresh layer differs
    assert not np.array_equal(a.weight.data, c.weight.data)


def test_parameters_use_the_default_dtype():
    assert nn.Linear(2, 2).weight.dtype == np.float32
    previous = mg.get_default_dtype()
    mg.set_default_dtype(np.float64)
    try:
        layer = nn.Conv2d(1, 2, 3)
        assert layer.weight.dtype == np.float64 and layer.bias.dtype == np.float64
        assert nn.BatchNorm1d(3).running_mean.dtype == np.float64
    finally:
        mg.set_default_dtype(previous)
    assert nn.Linear(2, 2, dtype=np.float64).weight.dtype == np.float64


def test_init_functions_match_torch_formulas():
    init = nn.init
    for args in (("linear",), ("relu",), ("tanh",), ("leaky_relu", 0.2), ("leaky_relu",),
                 ("sigmoid",), ("selu",), ("conv2d",)):
        assert init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))
    w = nn.Parameter(np.zeros((16, 8, 3, 3)))
    assert init._calculate_fan_in_and_fan_out(w) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(16, 8, 3, 3))
    mg.manual_seed(0)
    big = nn.Parameter(np.zeros((500, 400)), dtype=np.float64)
    init.kaiming_normal_(big, nonlinearity="relu")
    assert big.data.std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)
    init.kaiming_uniform_(big, mode="fan_out", nonlinearity="relu")
    assert np.abs(big.data).max() <= math.sqrt(6 / 500)
    init.xavier_uniform_(big, gain=2.0)
    assert np.abs(big.data).max() <= 2.0 * math.sqrt(6 / 900)
    init.xavier_normal_(big)
    assert big.data.std() == pytest.approx(math.sqrt(2 / 900), rel=0.02)
    init.normal_(big, 3.0, 0.5)
    assert big.data.mean() == pytest.approx(3.0, abs=0.01)
    init.constant_(big, 0.25)
    assert (big.data == 0.25).all() and big.dtype == np.float64
    init.zeros_(big)
    assert not big.data.any()
    init.ones_(big)
    assert (big.data == 1).all()
    with pytest.raises(ValueError, match="Fan in"):
        init.xavier_uniform_(nn.Parameter(np.zeros(3)))
    with pytest.raises(ValueError, match="nonlinearity"):
        init.calculate_gain("swish")


# --- bad input gets a clear error ----------------------------------------------------------------
def test_linear_with_wrong_in_features_names_both_shapes():
    layer = nn.Linear(64, 10)
    with pytest.raises(ValueError) as info:
        layer(mg.tensor(np.zeros((32, 63))))
    message = str(info.value)
    assert "(*, 64)" in message and "(32, 63)" in message and "in_features" in message


def test_conv_with_wrong_channels_names_both_shapes():
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(ValueError) as info:
        conv(mg.tensor(np.zeros((2, 1, 8, 8))))
    assert "(2, 1, 8, 8)" in str(info.value) and "3 input channels" in str(info.value)
    with pytest.raises(ValueError, match="4-D"):
        conv(mg.tensor(np.zeros((8, 8))))


def test_batch_norm_rejects_wrong_rank_and_width():
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(mg.tensor(np.zeros((4, 3))))
    with pytest.raises(ValueError, match="3 channels"):
        nn.BatchNorm1d(3)(mg.tensor(np.zeros((4, 5))))


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="padding_mode"):
        nn.Conv2d(4, 4, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="device"):
        nn.Linear(2, 2, device="cuda")
    with pytest.raises(ValueError, match="cross_entropy|target"):
        nn.CrossEntropyLoss()(mg.tensor(np.zeros((4, 3))), np.zeros((5,), dtype=np.int64))


# --- property: any Linear / Conv2d geometry agrees with torch ---------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(in_features=st.integers(1, 6), out_features=st.integers(1, 6),
       lead=st.lists(st.integers(1, 3), min_size=0, max_size=2), bias=st.booleans(),
       seed=st.integers(0, 2 ** 31))
def test_linear_any_geometry_matches_torch(in_features, out_features, lead, bias, seed):
    rng = np.random.default_rng(seed)
    mine, theirs = make_pair("Linear", dict(in_features=in_features, out_features=out_features,
                                            bias=bias), rng)
    run_both(mine, theirs, [rng.normal(size=tuple(lead) + (in_features,))], rng)


@settings(max_examples=15, deadline=None)
@given(channels=st.integers(1, 3), out=st.integers(1, 3), k=st.integers(1, 3),
       stride=st.integers(1, 2), padding=st.integers(0, 1), side=st.integers(3, 6),
       seed=st.integers(0, 2 ** 31))
def test_conv2d_any_geometry_matches_torch(channels, out, k, stride, padding, side, seed):
    rng = np.random.default_rng(seed)
    mine, theirs = make_pair("Conv2d", dict(in_channels=channels, out_channels=out, kernel_size=k,
                                            stride=stride, padding=padding), rng)
    run_both(mine, theirs, [rng.normal(size=(2, channels, side, side + 1))], rng)

"""The torch-like surface of minigrad tensors, each call against the same call in PyTorch.

tests/op_cases.py checks every *primitive*; this file checks what users type:
the methods and functions composed of primitives (squeeze, split, masked_fill,
tril, std, clamp with tensor bounds, ...), torch's spellings and defaults (dim=,
keepdim=, unbiased variance, max(dim=) giving values and indices), the
factories, and the defects of issue #12, one test each. Values and gradients
are compared in float64 with a random cotangent on every output.
"""
import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

torch = pytest.importorskip("torch")

TOL = dict(rtol=1e-7, atol=1e-10)


def _pair(*shapes, seed=0, low=None):
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(size=s) if low is None else rng.uniform(low, 2.0, size=s) for s in shapes]
    return ([mg.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def agree(mg_fn, torch_fn, *shapes, seed=0, low=None):
    """Run both, compare every output and, under a random cotangent, every input gradient."""
    ours_in, theirs_in = _pair(*shapes, seed=seed, low=low)
    ours, theirs = mg_fn(*ours_in), torch_fn(*theirs_in)
    ours = list(ours) if isinstance(ours, (tuple, list)) else [ours]
    theirs = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    assert len(ours) == len(theirs)
    rng = np.random.default_rng(seed + 1)
    mg_loss, torch_loss = 0, 0
    for o, t in zip(ours, theirs):
        assert o.shape == tuple(t.shape), (o.shape, t.shape)
        assert str(o.dtype) == str(t.dtype).replace("torch.", "")
        np.testing.assert_allclose(o.data, t.detach().numpy(), **TOL)
        if o.requires_grad:
            v = rng.normal(size=o.shape)
            mg_loss = mg_loss + (o * mg.tensor(v)).sum()
            torch_loss = torch_loss + (t * torch.tensor(v)).sum()
    if isinstance(mg_loss, mg.Tensor):
        mg_loss.backward()
        torch_loss.backward()
    for o, t in zip(ours_in, theirs_in):
        expected = np.zeros(o.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(o.shape) if o.grad is None else o.grad
        np.testing.assert_allclose(got, expected, **TOL)


# --- methods composed of primitives ------------------------------------------------------

COMPOSED = {
    "unsqueeze": (lambda x: x.unsqueeze(1), lambda x: x.unsqueeze(1), [(3, 4)]),
    "unsqueeze_last": (lambda x: x.unsqueeze(dim=-1), lambda x: x.unsqueeze(dim=-1), [(3, 4)]),
    "squeeze_all": (lambda x: x.squeeze(), lambda x: x.squeeze(), [(1, 3, 1, 2)]),
    "squeeze_dim": (lambda x: x.squeeze(2), lambda x: x.squeeze(2), [(1, 3, 1, 2)]),
    "squeeze_not_one": (lambda x: x.squeeze(1), lambda x: x.squeeze(1), [(1, 3, 1, 2)]),
    "split_size": (lambda x: x.split(2, dim=1), lambda x: x.split(2, dim=1), [(3, 5)]),
    "split_sections": (lambda x: mg.split(x, [1, 3, 1], 1), lambda x: torch.split(x, [1, 3, 1], 1),
                       [(3, 5)]),
    "chunk": (lambda x: x.chunk(3, dim=-1), lambda x: x.chunk(3, dim=-1), [(2, 7)]),
    "chunk_fewer": (lambda x: mg.chunk(x, 4), lambda x: torch.chunk(x, 4), [(6, 2)]),
    "masked_fill": (lambda x: x.masked_fill(x.data > 0.3, -1e9),
                    lambda x: x.masked_fill(x > 0.3, -1e9), [(4, 5)]),
    "causal_mask_softmax": (
        lambda x: x.masked_fill(mg.triu(mg.ones(4, 4), 1).data.astype(bool), float("-inf")).softmax(dim=-1),
        lambda x: x.masked_fill(torch.triu(torch.ones(4, 4), 1).bool(), float("-inf")).softmax(dim=-1),
        [(2, 4, 4)]),
    "tril": (lambda x: x.tril(), lambda x: x.tril(), [(2, 4, 5)]),
    "tril_diag": (lambda x: mg.tril(x, -1), lambda x: torch.tril(x, -1), [(4, 3)]),
    "triu_diag": (lambda x: mg.triu(x, 2), lambda x: torch.triu(x, 2), [(3, 5)]),
    "softmax_dim": (lambda x: x.softmax(dim=1), lambda x: x.softmax(dim=1), [(2, 3, 4)]),
    "log_softmax_dim": (lambda x: mg.log_softmax(x, dim=0), lambda x: torch.log_softmax(x, dim=0),
                        [(3, 4)]),
    "std": (lambda x: x.std(), lambda x: x.std(), [(4, 5)]),
    "std_dim": (lambda x: x.std(dim=1, keepdim=True), lambda x: x.std(dim=1, keepdim=True), [(4, 5)]),
    "var_default_unbiased": (lambda x: x.var(0), lambda x: x.var(0), [(4, 5)]),
    "var_biased": (lambda x: x.var(1, unbiased=False), lambda x: x.var(1, unbiased=False), [(4, 5)]),
    "var_correction": (lambda x: x.var(dim=1, correction=2), lambda x: x.var(dim=1, correction=2),
                       [(4, 5)]),
    "sum_dim_keepdim": (lambda x: x.sum(dim=(0, 2), keepdim=True),
                        lambda x: x.sum(dim=(0, 2), keepdim=True), [(2, 3, 4)]),
    "mean_dim": (lambda x: x.mean(dim=-1), lambda x: x.mean(dim=-1), [(2, 3)]),
    "amax_amin": (lambda x: (x.amax(dim=1), x.amin(dim=0)),
                  lambda x: (x.amax(dim=1), x.amin(dim=0)), [(3, 4)]),
    "max_min_all": (lambda x: (x.max(), x.min()), lambda x: (x.max(), x.min()), [(3, 4)]),
    "logsumexp": (lambda x: x.logsumexp(dim=1), lambda x: x.logsumexp(dim=1), [(3, 4)]),
    "prod": (lambda x: x.prod(dim=0), lambda x: x.prod(dim=0), [(3, 4)]),
    "cumsum": (lambda x: x.cumsum(dim=1), lambda x: x.cumsum(dim=1), [(3, 4)]),
    "norm": (lambda x: x.norm(), lambda x: x.norm(), [(3, 4)]),
    "norm_dim": (lambda x: x.norm(dim=1, keepdim=True), lambda x: x.norm(dim=1, keepdim=True),
                 [(3, 4)]),
    "norm_inf": (lambda x: x.norm(float("inf"), dim=0), lambda x: x.norm(float("inf"), dim=0),
                 [(3, 4)]),
    "norm_1": (lambda x: x.norm(1), lambda x: x.norm(1), [(3, 4)]),
    "math": (lambda x: (x.sin(), x.cos(), x.erf(), x.square(), x.expm1(), x.sign()),
             lambda x: (x.sin(), x.cos(), x.erf(), x.square(), x.expm1(), x.sign()), [(3, 4)]),
    "positive_math": (lambda x: (x.rsqrt(), x.reciprocal(), x.log1p(), x.sqrt()),
                      lambda x: (x.rsqrt(), x.reciprocal(), x.log1p(), x.sqrt()), [(3, 4)]),
    "expand": (lambda x: x.expand(2, 3, -1), lambda x: x.expand(2, 3, -1), [(3, 1)]),
    "expand_as": (lambda x, y: x.expand_as(y) * y, lambda x, y: x.expand_as(y) * y, [(1, 4), (3, 4)]),
    "repeat": (lambda x: x.repeat(2, 1, 3), lambda x: x.repeat(2, 1, 3), [(2, 3)]),
    "flip": (lambda x: x.flip(0, 2), lambda x: x.flip(0, 2), [(2, 3, 4)]),
    "flip_list": (lambda x: x.flip([1]), lambda x: x.flip([1]), [(2, 3)]),
    "transpose": (lambda x: x.transpose(0, 2), lambda x: x.transpose(0, 2), [(2, 3, 4)]),
    "transpose_fn": (lambda x: mg.transpose(x, -1, -2), lambda x: torch.transpose(x, -1, -2),
                     [(2, 3, 4)]),
    "view_contiguous": (lambda x: x.view(6, -1).contiguous(), lambda x: x.view(6, -1).contiguous(),
                        [(2, 3, 4)]),
    "flatten": (lambda x: x.flatten(1), lambda x: x.flatten(1), [(2, 3, 4)]),
    "clone": (lambda x: x.clone() * 2, lambda x: x.clone() * 2, [(3,)]),
    "outer": (lambda a, b: mg.outer(a, b), lambda a, b: torch.outer(a, b), [(3,), (4,)]),
    "einsum_attention": (lambda q, k: mg.einsum("bqd,bkd->bqk", q, k),
                         lambda q, k: torch.einsum("bqd,bkd->bqk", q, k), [(2, 3, 4), (2, 5, 4)]),
    "einsum_list": (lambda a, b: mg.einsum("ij,jk", [a, b]), lambda a, b: torch.einsum("ij,jk", [a, b]),
                    [(2, 3), (3, 4)]),
    "cat_stack_dim": (lambda a, b: (mg.cat([a, b], dim=1), mg.stack([a, b], dim=-1)),
                      lambda a, b: (torch.cat([a, b], dim=1), torch.stack([a, b], dim=-1)),
                      [(2, 3), (2, 3)]),
    "clamp_numbers": (lambda x: x.clamp(-0.5, 0.5), lambda x: x.clamp(-0.5, 0.5), [(3, 4)]),
    "clamp_min_only": (lambda x: x.clamp(min=0.1), lambda x: x.clamp(min=0.1), [(3, 4)]),
    "clamp_tensor_bounds": (lambda x, lo, hi: x.clamp(lo, hi + 1), lambda x, lo, hi: x.clamp(lo, hi + 1),
                            [(3, 4), (4,), (3, 1)]),
    "clamp_bounds_broadcast_larger": (lambda x, lo: mg.clamp(x, min=lo), lambda x, lo: torch.clamp(x, min=lo),
                                      [(4,), (3, 4)]),
    "pow_method": (lambda x: x.pow(3), lambda x: x.pow(3), [(3,)]),
    "add_sub_alpha": (lambda a, b: (mg.ops.add(a, b, alpha=2.5), mg.ops.sub(a, b, alpha=-0.5)),
                      lambda a, b: (torch.add(a, b, alpha=2.5), torch.sub(a, b, alpha=-0.5)),
                      [(2, 3), (3,)]),
    "masked_fill_learned_value": (lambda x, v: x.masked_fill(x.data > 0, v.sum()),
                                  lambda x, v: x.masked_fill(x > 0, v.sum()), [(3, 4), (2,)]),
}

POSITIVE = {"positive_math", "prod"}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_methods_match_torch(name):
    mg_fn, torch_fn, shapes = COMPOSED[name]
    agree(mg_fn, torch_fn, *shapes, low=0.2 if name in POSITIVE else None)


def test_index_select_gather_and_argmax():
    for seed in range(3):
        idx = np.random.default_rng(seed).integers(0, 4, size=6)
        agree(lambda x: x.index_select(1, idx), lambda x: x.index_select(1, torch.tensor(idx)),
              (3, 4), seed=seed)
        index = np.random.default_rng(seed).integers(0, 3, size=(2, 4))
        agree(lambda x: x.gather(0, index), lambda x: x.gather(0, torch.tensor(index)), (3, 5),
              seed=seed)
    x = np.random.default_rng(0).normal(size=(3, 4))
    for kwargs in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}):
        for fn in ("argmax", "argmin"):
            ours, theirs = getattr(mg.tensor(x), fn)(**kwargs), getattr(torch.tensor(x), fn)(**kwargs)
            assert ours.dtype == np.int64
            np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_the_dtype_option_computes_in_that_dtype_as_torch():
    x = np.random.default_rng(0).normal(size=(2, 3))
    for fn, kwargs in (("sum", {"dim": 1}), ("mean", {}), ("softmax", {"dim": 0}),
                       ("log_softmax", {"dim": 1}), ("cumsum", {"dim": 0}), ("prod", {"dim": 1})):
        ours = getattr(mg.tensor(x), fn)(dtype=mg.float32, **kwargs)
        theirs = getattr(torch.tensor(x), fn)(dtype=torch.float32, **kwargs)
        assert ours.dtype == np.float32, fn
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6, atol=1e-7)
    assert mg.tensor(np.arange(3)).sum(dtype=mg.float64).dtype == np.float64


def test_max_and_min_with_dim_give_values_and_indices_as_torch():
    x = np.random.default_rng(0).normal(size=(3, 4))
    for fn in ("max", "min"):
        ours = getattr(mg.tensor(x, requires_grad=True), fn)(dim=1, keepdim=True)
        theirs = getattr(torch.tensor(x), fn)(dim=1, keepdim=True)
        np.testing.assert_array_equal(ours.values.data, theirs.values.numpy())
        np.testing.assert_array_equal(ours.indices.data, theirs.indices.numpy())
        values, indices = ours                        # unpacks like torch's namedtuple
        assert values.requires_grad and indices.dtype == np.int64
    # NumPy's spelling keeps NumPy's meaning: the values only
    np.testing.assert_array_equal(mg.tensor(x).max(axis=1).data, x.max(axis=1))


def test_type_conversions_and_clone_storage():
    x = mg.tensor(np.array([1.5, -2.5]), requires_grad=True)
    assert x.float().dtype == np.float32 and x.double() is x
    assert x.long().dtype == np.int64 and x.long().tolist() == [1, -2]
    assert x.bool().dtype == np.bool_ and x.int().dtype == np.int32
    y = x.float()
    y.sum().backward()
    assert x.grad.dtype == np.float64 and x.grad.tolist() == [1.0, 1.0]
    c = x.clone()
    c.data[0] = 100.0
    assert x.data[0] == 1.5                          # a clone has its own storage
    assert x.contiguous() is x and x.dim() == 1


def test_axis_and_dim_cannot_disagree():
    x = mg.tensor(np.ones((2, 3)))
    assert x.sum(axis=1, dim=1).shape == (2,)
    with pytest.raises(TypeError, match="axis=0 and dim=1"):
        x.sum(axis=0, dim=1)


def test_shape_errors_say_what_was_expected():
    x = mg.tensor(np.ones((2, 3)))
    with pytest.raises(ValueError, match="only size-1 axes can grow"):
        x.expand(4, 3, 2)
    with pytest.raises(ValueError, match=r"add up to 4, but axis 1 has length 3"):
        x.split([1, 3], dim=1)
    with pytest.raises(IndexError, match="axis 3 is out of range.*2 dimensions goes at -3..2"):
        x.unsqueeze(3)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        mg.tril(mg.ones(3))
    with pytest.raises(TypeError, match="give the axis"):
        x.cumsum()
    with pytest.raises(IndexError, match=r"lie in 0..1"):
        x.gather(0, np.array([[2, 0, 0]]))


# --- factories ------------------------------------------------------------------------------

FACTORIES = [
    (lambda m: m.zeros(2, 3), ()), (lambda m: m.zeros((2, 3)), ()), (lambda m: m.ones([4]), ()),
    (lambda m: m.zeros(()), ()), (lambda m: m.empty(0, 3), ()),
    (lambda m: m.full((2, 2), 1.5), ()), (lambda m: m.full((2,), 7), ()),
    (lambda m: m.full((2,), True), ()),
    (lambda m: m.eye(3), ()), (lambda m: m.eye(2, 4), ()),
    (lambda m: m.arange(5), ()), (lambda m: m.arange(1, 7, 2), ()), (lambda m: m.arange(0.0, 1.0, 0.25), ()),
    (lambda m: m.arange(3, dtype=m.float64), ()),
    (lambda m: m.linspace(-1, 1, 5), ()), (lambda m: m.linspace(0, 1, 1), ()),
    (lambda m: m.ones(2, dtype=m.float64), ()), (lambda m: m.zeros(3, dtype=m.int64), ()),
    (lambda m: m.zeros_like(m.ones(2, 3, dtype=m.float64)), ()),
    (lambda m: m.ones_like(m.arange(3)), ()),
    (lambda m: m.full_like(m.ones(2), 3.0), ()),
]


@pytest.mark.parametrize("index", range(len(FACTORIES)))
def test_factories_match_torch_values_shapes_and_dtypes(index):
    make, _ = FACTORIES[index]
    ours, theirs = make(mg), make(torch)
    assert ours.shape == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6)


def test_random_factories_follow_the_seed_dtype_and_range():
    mg.manual_seed(3)
    a = mg.randn(1000, requires_grad=True)
    mg.manual_seed(3)
    b = mg.randn(1000)
    np.testing.assert_array_equal(a.data, b.data)            # minigrad's generator, repeatable
    assert a.dtype == np.float32 and a.requires_grad and abs(float(a.data.mean())) < 0.15
    u = mg.rand(2, 500, dtype=mg.float64)
    assert u.dtype == np.float64 and u.shape == (2, 500) and 0 <= u.data.min() and u.data.max() < 1
    r = mg.randint(2, 5, (300,))
    assert r.dtype == np.int64 and set(r.tolist()) == {2, 3, 4}
    assert mg.randint(3, (4, 2)).shape == (4, 2)
    like = mg.randn_like(mg.zeros(3, 2, dtype=mg.float64))
    assert like.shape == (3, 2) and like.dtype == np.float64
    with pytest.raises(ValueError, match="non-negative ints"):
        mg.zeros(-1)


def test_factories_honour_the_default_dtype():
    previous = mg.get_default_dtype()
    mg.set_default_dtype(np.float64)
    try:
        assert mg.zeros(2).dtype == np.float64 and mg.tensor([1.0]).dtype == np.float64
        assert mg.arange(3).dtype == np.int64
    finally:
        mg.set_default_dtype(previous)


# --- the defects and default differences of issue #12, each against torch ---------------------

def test_tensor_keeps_the_dtype_of_an_array_like_torch():
    for array in (np.ones(2), np.ones(2, dtype=np.float32), np.arange(3), np.array([True]),
                  np.float64(2.0)):
        assert str(mg.tensor(array).dtype) == str(torch.tensor(array).dtype).replace("torch.", "")
    for data in (1.5, [1.0, 2.0], [[1, 2]], 3, True):
        assert str(mg.tensor(data).dtype) == str(torch.tensor(data).dtype).replace("torch.", "")
    assert mg.tensor(np.ones(2), dtype=np.float32).dtype == np.float32


def test_float64_batchnorm_against_torch_is_exact_to_rounding():
    """The symptom in #12: a float64 input rounded to float32 made this differ by 1e-5."""
    x = np.random.default_rng(0).normal(size=(8, 3)) * 1e3 + 1.0 / 3
    ours, theirs = nn.BatchNorm1d(3, dtype=np.float64), torch.nn.BatchNorm1d(3).double()
    out = ours(mg.tensor(x))
    np.testing.assert_allclose(out.data, theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("fn", ["sum", "mean", "amax"])
def test_reducing_over_an_empty_tuple_reduces_everything(fn):
    x = np.random.default_rng(0).normal(size=(2, 3))
    agree(lambda t: getattr(t, fn)(axis=()), lambda t: getattr(t, fn)(dim=()), (2, 3))
    assert getattr(mg.tensor(x), fn)(dim=()).shape == ()


def test_softmax_over_an_empty_axis():
    for shape, dim in (((2, 0), -1), ((0, 3), 0), ((0,), 0)):
        agree(lambda t: (t.softmax(dim=dim), t.log_softmax(dim=dim)),
              lambda t: (t.softmax(dim=dim), t.log_softmax(dim=dim)), shape)


def test_transpose_of_a_0d_tensor():
    agree(lambda t: t.transpose(0, 0) * 2, lambda t: t.transpose(0, 0) * 2, ())
    agree(lambda t: t.transpose(-1, 0), lambda t: t.transpose(-1, 0), ())


def test_clamp_with_tensor_and_array_bounds():
    x = np.random.default_rng(0).normal(size=(3, 4))
    low = np.full((4,), -0.2)
    ours = mg.tensor(x).clamp(mg.tensor(low), mg.tensor(np.full((3, 1), 0.4)))
    theirs = torch.tensor(x).clamp(torch.tensor(low), torch.tensor(np.full((3, 1), 0.4)))
    np.testing.assert_array_equal(ours.data, theirs.numpy())
    # NumPy arrays as bounds: the backward of broadcast bounds used to crash
    x1 = mg.tensor(np.random.default_rng(1).normal(size=(4,)), requires_grad=True)
    out = x1.clamp(np.zeros((3, 4)), np.ones((3, 1)))
    assert out.shape == (3, 4)
    out.sum().backward()
    t1 = torch.tensor(x1.data, requires_grad=True)
    t1.clamp(torch.zeros(3, 4, dtype=torch.float64), torch.ones(3, 1, dtype=torch.float64)).sum().backward()
    np.testing.assert_array_equal(x1.grad, t1.grad.numpy())


def test_cross_entropy_probability_targets_that_require_grad_get_a_gradient():
    for smoothing in (0.0, 0.2):
        agree(lambda z, q: nn.functional.cross_entropy(z, q.softmax(dim=1), label_smoothing=smoothing),
              lambda z, q: torch.nn.functional.cross_entropy(z, q.softmax(dim=1),
                                                             label_smoothing=smoothing),
              (4, 3), (4, 3))
    agree(lambda z, q: nn.functional.cross_entropy(z, q.softmax(dim=1), reduction="none"),
          lambda z, q: torch.nn.functional.cross_entropy(z, q.softmax(dim=1), reduction="none"),
          (2, 3, 5), (2, 3, 5))


def test_variance_over_nothing_is_nan_as_in_torch():
    for shape, dim in (((0, 3), 0), ((3, 1), 1)):
        ours = mg.tensor(np.ones(shape)).var(dim=dim)
        theirs = torch.ones(shape, dtype=torch.float64).var(dim=dim)
        np.testing.assert_array_equal(ours.data, theirs.numpy())     # nan where torch has nan
        assert np.isnan(ours.data).all()


def test_power_zero_has_a_zero_gradient_at_zero():
    x = mg.tensor(np.array([0.0, 2.0, -1.0]), requires_grad=True)
    (x ** 0).sum().backward()
    t = torch.tensor([0.0, 2.0, -1.0], dtype=torch.float64, requires_grad=True)
    (t ** 0).sum().backward()
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


def test_prod_gradient_with_zeros_matches_torch():
    for values in ([0.0, 2.0, 3.0], [0.0, 0.0, 3.0], [1.5, -2.0, 4.0]):
        x = mg.tensor(np.array(values), requires_grad=True)
        x.prod().backward()
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        t.prod().backward()
        np.testing.assert_array_equal(x.grad, t.grad.numpy())


def test_norm_gradient_at_zero_is_zero_as_in_torch():
    x = mg.tensor(np.zeros(3), requires_grad=True)
    x.norm().backward()
    assert np.array_equal(x.grad, np.zeros(3))


def test_grouped_and_same_padded_convolution_match_torch():
    agree(lambda x, w, b: nn.functional.conv2d(x, w, b, groups=2),
          lambda x, w, b: torch.nn.functional.conv2d(x, w, b, groups=2), (2, 4, 5, 5), (6, 2, 3, 3), (6,))
    agree(lambda x, w: nn.functional.conv2d(x, w, padding="same", dilation=(1, 3)),
          lambda x, w: torch.nn.functional.conv2d(x, w, padding="same", dilation=(1, 3)),
          (1, 2, 6, 7), (3, 2, 2, 3))                      # even reach: the extra row goes after


def test_max_pooling_ceil_mode_and_indices_match_torch():
    x = np.random.default_rng(0).normal(size=(2, 3, 7, 6))
    for kwargs in ({"kernel_size": 2, "ceil_mode": True}, {"kernel_size": 3, "stride": 2, "padding": 1,
                                                           "ceil_mode": True, "return_indices": True}):
        agree(lambda t: nn.MaxPool2d(**kwargs)(t), lambda t: torch.nn.MaxPool2d(**kwargs)(t), x.shape)
    agree(lambda t: nn.functional.max_pool2d(t, 2, return_indices=True),
          lambda t: torch.nn.functional.max_pool2d(t, 2, return_indices=True), (3, 5, 4))


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": (2, 3), "stride": (3, 2), "ceil_mode": True, "divisor_override": 4},
])
def test_average_pooling_ceil_mode_matches_torch(kwargs):
    agree(lambda t: nn.AvgPool2d(**kwargs)(t), lambda t: torch.nn.AvgPool2d(**kwargs)(t), (2, 2, 7, 6))


def test_pooling_accepts_an_unbatched_image_like_conv2d():
    for ours, theirs in ((nn.functional.max_pool2d, torch.nn.functional.max_pool2d),
                         (nn.functional.avg_pool2d, torch.nn.functional.avg_pool2d)):
        agree(lambda x: ours(x, 2), lambda x: theirs(x, 2), (3, 4, 6))

"""The table of every minigrad primitive: how to build its inputs, how to call it in
minigrad, and how to call the same thing in PyTorch.

One ``Case`` per REGISTRY name. Three test files read this one table:

* tests/test_ops_differential.py - forward and backward against PyTorch (float64),
* tests/test_ops_numeric.py      - backward against central differences, no torch,
                                    plus float32-in/float32-out and zero cotangents.

``example`` is a Hypothesis strategy giving an ``Example``: the differentiable
inputs (float64 arrays, in the order the primitive takes them) and the constant
options (``params``). The ``minigrad`` and ``torch`` entries take the inputs as
their framework's tensors plus the params; ``torch`` also receives the torch
module, so this file imports without PyTorch.

Values come from a seeded NumPy generator with continuous distributions, so
ties and exact kinks (relu at 0, two equal maxima) have probability zero.
"""
import contextlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
from hypothesis import strategies as st

import minigrad as mg
import minigrad.nn  # noqa: F401  (registers the sequence-model primitives of minigrad.ops.sequence)
from minigrad import ops
from minigrad.ops import REGISTRY

from strategies import (away_from_zero, broadcast_shapes, image_geometry, matmul_shapes, normal,
                        positive, reduction_axes, seeds, shapes)


@dataclass(frozen=True)
class Example:
    arrays: tuple
    params: dict = field(default_factory=dict)

    def __repr__(self):  # what Hypothesis prints for a failing example
        return f"Example(shapes={[a.shape for a in self.arrays]}, params={self.params})"


@dataclass(frozen=True)
class Case:
    name: str                                  # the REGISTRY name this case exercises
    example: Any                               # strategy of Example
    minigrad: Callable                         # (tensors, params) -> minigrad Tensor
    torch: Callable                            # (torch, tensors, params) -> torch tensor
    numeric_example: Optional[Any] = None      # a different strategy for finite differences
    output_dtype: Optional[Callable] = None    # (input dtype, params) -> expected output dtype

    def __str__(self):
        return self.name


def _rng(draw):
    return np.random.default_rng(draw(seeds()))


def _tt(torch, value):
    """A constant for torch: integer and bool arrays keep their dtype, floats go float64."""
    array = np.asarray(value)
    if array.dtype.kind == "f":
        return torch.tensor(array, dtype=torch.float64)
    return torch.tensor(array)


# --- elementwise ---------------------------------------------------------------------------

@st.composite
def _binary(draw, left=normal, right=normal):
    shape_a, shape_b = draw(broadcast_shapes(2))
    rng = _rng(draw)
    return Example((left(rng, shape_a), right(rng, shape_b)))


@st.composite
def _unary(draw, values=normal, params=st.just({}), min_dims=0, min_side=1):
    shape = draw(shapes(min_dims=min_dims, min_side=min_side))
    return Example((values(_rng(draw), shape),), draw(params))


def _binary_case(name, torch_name, left=normal, right=normal):
    return Case(name, _binary(left, right),
                lambda t, p: getattr(ops, name)(t[0], t[1]),
                lambda torch, t, p: getattr(torch, torch_name)(t[0], t[1]))


def _unary_case(name, torch_call, values=normal, params=st.just({}), min_side=1, **extra):
    return Case(name, _unary(values, params, min_side=min_side),
                lambda t, p: REGISTRY[name].apply(t[0], **p),
                torch_call, **extra)


def _wide(rng, shape):
    return normal(rng, shape, scale=3.0)


_clip_bounds = st.sampled_from([(-0.5, 0.5), (None, 0.3), (-0.3, None), (0.2, 1.0)]).map(
    lambda b: {"low": b[0], "high": b[1]})

def _above_minus_one(rng, shape):
    return rng.uniform(-0.7, 3.0, size=shape)


ELEMENTWISE = [
    _binary_case("add", "add"),
    _binary_case("sub", "sub"),
    _binary_case("mul", "mul"),
    _binary_case("div", "div", right=away_from_zero),
    _binary_case("pow", "pow", left=positive),
    _binary_case("maximum", "maximum"),
    _binary_case("minimum", "minimum"),
    _unary_case("neg", lambda torch, t, p: -t[0]),
    _unary_case("exp", lambda torch, t, p: torch.exp(t[0])),
    _unary_case("log", lambda torch, t, p: torch.log(t[0]), values=positive),
    _unary_case("sqrt", lambda torch, t, p: torch.sqrt(t[0]), values=positive),
    _unary_case("abs", lambda torch, t, p: torch.abs(t[0])),
    # the primitives added for sequence models also run on empty tensors (a side of 0)
    _unary_case("log1p", lambda torch, t, p: torch.log1p(t[0]), values=_above_minus_one, min_side=0),
    _unary_case("expm1", lambda torch, t, p: torch.expm1(t[0]), min_side=0),
    _unary_case("sin", lambda torch, t, p: torch.sin(t[0]), values=_wide, min_side=0),
    _unary_case("cos", lambda torch, t, p: torch.cos(t[0]), values=_wide, min_side=0),
    _unary_case("erf", lambda torch, t, p: torch.erf(t[0]), min_side=0),
    _unary_case("clip", lambda torch, t, p: torch.clamp(t[0], min=p["low"], max=p["high"]),
                params=_clip_bounds),
    Case("cast", _unary(params=st.sampled_from([np.float64, np.float32]).map(lambda d: {"dtype": d})),
         lambda t, p: ops.cast(t[0], p["dtype"]),
         lambda torch, t, p: t[0].to({np.float64: torch.float64, np.float32: torch.float32}[p["dtype"]]),
         # finite differences through a float32 rounding measure the rounding, not the derivative
         numeric_example=_unary(params=st.just({"dtype": np.float64})),
         output_dtype=lambda dtype, p: np.dtype(p["dtype"])),
]


@st.composite
def _where(draw):
    shape_c, shape_a, shape_b = draw(broadcast_shapes(3))
    rng = _rng(draw)
    return Example((normal(rng, shape_a), normal(rng, shape_b)),
                   {"condition": rng.random(shape_c) < 0.5})


ELEMENTWISE.append(Case("where", _where(),
                        lambda t, p: ops.where(p["condition"], t[0], t[1]),
                        lambda torch, t, p: torch.where(_tt(torch, p["condition"]), t[0], t[1])))

# --- activations ---------------------------------------------------------------------------


@st.composite
def _along_axis(draw, values=normal):
    shape = draw(shapes(min_dims=1))
    return Example((values(_rng(draw), shape),), {"axis": draw(st.integers(-len(shape), len(shape) - 1))})


ACTIVATIONS = [
    _unary_case("relu", lambda torch, t, p: torch.relu(t[0])),
    _unary_case("tanh", lambda torch, t, p: torch.tanh(t[0]), values=_wide),
    _unary_case("sigmoid", lambda torch, t, p: torch.sigmoid(t[0]), values=_wide),
    _unary_case("leaky_relu",
                lambda torch, t, p: torch.nn.functional.leaky_relu(t[0], p["negative_slope"]),
                params=st.sampled_from([0.01, 0.2, 1.5]).map(lambda s: {"negative_slope": s})),
    _unary_case("gelu", lambda torch, t, p: torch.nn.functional.gelu(t[0], approximate=p["approximate"]),
                values=_wide,
                params=st.sampled_from(["none", "tanh"]).map(lambda a: {"approximate": a})),
    Case("softmax", _along_axis(_wide), lambda t, p: ops.softmax(t[0], axis=p["axis"]),
         lambda torch, t, p: torch.softmax(t[0], dim=p["axis"])),
    Case("log_softmax", _along_axis(_wide), lambda t, p: ops.log_softmax(t[0], axis=p["axis"]),
         lambda torch, t, p: torch.log_softmax(t[0], dim=p["axis"])),
]

# --- reductions ----------------------------------------------------------------------------


@st.composite
def _reduction(draw, with_unbiased=False, min_side=1, min_dims=1):
    shape = draw(shapes(min_dims=min_dims, min_side=min_side))
    axis = draw(reduction_axes(len(shape)))
    params = {"axis": axis, "keepdims": draw(st.booleans())}
    if with_unbiased:
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
        count = int(np.prod([shape[a] for a in axes]))
        params["unbiased"] = draw(st.booleans()) and count > 1   # n - 1 = 0 would divide by zero
    return Example((normal(_rng(draw), shape),), params)


def _dims(t, axis):
    return tuple(range(t.ndim)) if axis is None else axis


def _reduction_case(name, torch_call, **kwargs):
    return Case(name, _reduction(**kwargs), lambda t, p: getattr(ops, name)(t[0], **p), torch_call)


REDUCTIONS = [
    _reduction_case("sum", lambda torch, t, p: torch.sum(t[0], dim=_dims(t[0], p["axis"]),
                                                          keepdim=p["keepdims"]), min_side=0),
    _reduction_case("mean", lambda torch, t, p: torch.mean(t[0], dim=_dims(t[0], p["axis"]),
                                                            keepdim=p["keepdims"])),
    _reduction_case("max", lambda torch, t, p: torch.amax(t[0], dim=_dims(t[0], p["axis"]),
                                                           keepdim=p["keepdims"])),
    _reduction_case("var", lambda torch, t, p: torch.var(t[0], dim=_dims(t[0], p["axis"]),
                                                          correction=int(p["unbiased"]),
                                                          keepdim=p["keepdims"]),
                    with_unbiased=True),
]

# --- shape ops -----------------------------------------------------------------------------


@st.composite
def _reshape(draw):
    shape = draw(shapes())
    size = int(np.prod(shape))
    target = draw(st.sampled_from([(size,), (-1,), (1, size), (size, 1), tuple(reversed(shape)),
                                   (1,) + tuple(shape) + (1,)]))
    return Example((normal(_rng(draw), shape),), {"shape": target})


@st.composite
def _permute(draw):
    shape = draw(shapes())
    axes = draw(st.one_of(st.none(), st.permutations(range(len(shape))).map(tuple)))
    return Example((normal(_rng(draw), shape),), {"axes": axes})


@st.composite
def _getitem(draw):
    shape = draw(shapes(min_dims=1))
    rng = _rng(draw)
    kind = draw(st.sampled_from(["slices", "int", "int_array", "bool_mask", "ellipsis"]))
    if kind == "slices":
        index = []
        for side in shape:
            start = draw(st.integers(0, side - 1))
            index.append(slice(start, draw(st.integers(start + 1, side)), draw(st.integers(1, 2))))
        index = tuple(index)
    elif kind == "int":
        index = draw(st.integers(-shape[0], shape[0] - 1))
    elif kind == "int_array":  # repeated indices: their gradients must add up
        index = rng.integers(0, shape[0], size=draw(st.integers(1, 6)))
    elif kind == "bool_mask":
        index = rng.random(shape) < 0.6
    else:
        index = (Ellipsis, draw(st.integers(0, shape[-1] - 1)))
    return Example((normal(rng, shape),), {"index": index})


def _torch_index(torch, index):
    if isinstance(index, np.ndarray):
        return _tt(torch, index)
    return index


@st.composite
def _cat(draw):
    base = draw(shapes(min_dims=1))
    axis = draw(st.integers(-len(base), len(base) - 1))
    rng = _rng(draw)
    arrays = []
    for _ in range(draw(st.integers(1, 3))):
        shape = list(base)
        shape[axis] = draw(st.integers(1, 3))
        arrays.append(normal(rng, tuple(shape)))
    return Example(tuple(arrays), {"axis": axis})


@st.composite
def _stack(draw):
    shape = draw(shapes())
    rng = _rng(draw)
    arrays = tuple(normal(rng, shape) for _ in range(draw(st.integers(1, 3))))
    return Example(arrays, {"axis": draw(st.integers(-len(shape) - 1, len(shape)))})


@st.composite
def _pad(draw):
    shape = draw(shapes(min_dims=1))
    widths = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in shape)
    return Example((normal(_rng(draw), shape),),
                   {"pad_width": widths, "value": draw(st.sampled_from([0.0, -1.5]))})


def _torch_pad(torch, t, p):
    flat = [w for pair in reversed(p["pad_width"]) for w in pair]
    return torch.nn.functional.pad(t[0], flat, value=p["value"])


@st.composite
def _matmul(draw):
    shape_a, shape_b = draw(matmul_shapes())
    rng = _rng(draw)
    return Example((normal(rng, shape_a), normal(rng, shape_b)))


def _torch_prod(torch, t, p):
    """torch.prod reduces one axis at a time; several axes are reduced one after another."""
    out = t[0]
    for axis in sorted(_dims(t[0], p["axis"]) if not isinstance(p["axis"], int) else [p["axis"]],
                       key=lambda a: a % max(t[0].ndim, 1), reverse=True):
        out = torch.prod(out, dim=axis, keepdim=p["keepdims"])
    return out


@st.composite
def _norm(draw):
    example = draw(_reduction(min_dims=0))
    return Example(example.arrays, dict(example.params, p=draw(st.sampled_from([1.0, 2.0, 3.0, 0.5]))))


@st.composite
def _cumsum(draw):
    shape = draw(shapes(min_side=0))
    axis = draw(st.integers(-len(shape), len(shape) - 1)) if shape else draw(st.sampled_from([0, -1]))
    return Example((normal(_rng(draw), shape),), {"axis": axis})


REDUCTIONS += [
    _reduction_case("min", lambda torch, t, p: torch.amin(t[0], dim=_dims(t[0], p["axis"]),
                                                           keepdim=p["keepdims"]), min_dims=0),
    _reduction_case("prod", _torch_prod, min_side=0, min_dims=0),
    _reduction_case("logsumexp", lambda torch, t, p: torch.logsumexp(
        t[0], dim=_dims(t[0], p["axis"]), keepdim=p["keepdims"]), min_dims=0),
    Case("norm", _norm(), lambda t, p: ops.norm(t[0], p["p"], p["axis"], p["keepdims"]),
         lambda torch, t, p: torch.linalg.vector_norm(t[0], ord=p["p"], dim=_dims(t[0], p["axis"]),
                                                      keepdim=p["keepdims"])),
    Case("cumsum", _cumsum(), lambda t, p: ops.cumsum(t[0], p["axis"]),
         lambda torch, t, p: torch.cumsum(t[0], dim=p["axis"])),
]


@st.composite
def _expand(draw):
    shape = draw(shapes(min_side=0))
    lead = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))
    grown = tuple(draw(st.integers(1, 3)) if n == 1 else draw(st.sampled_from([n, -1]))
                  for n in shape)
    return Example((normal(_rng(draw), shape),), {"sizes": lead + grown})


@st.composite
def _repeat(draw):
    shape = draw(shapes(min_side=0))
    count = len(shape) + draw(st.integers(0, 1))
    return Example((normal(_rng(draw), shape),),
                   {"repeats": tuple(draw(st.integers(0, 3)) for _ in range(count))})


@st.composite
def _flip(draw):
    shape = draw(shapes(min_dims=1, min_side=0))
    axes = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                         unique_by=lambda a: a % len(shape)))
    return Example((normal(_rng(draw), shape),), {"axes": tuple(axes)})


@st.composite
def _gather(draw):
    shape = draw(shapes(min_dims=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    rng = _rng(draw)
    index_shape = tuple(draw(st.integers(0, 4)) if i == axis % len(shape) else draw(st.integers(1, n))
                        for i, n in enumerate(shape))
    index = rng.integers(0, shape[axis], size=index_shape)   # repeats likely: gradients add up
    return Example((normal(rng, shape),), {"axis": axis, "index": index})


_EINSUM_SPECS = ["ij,jk->ik", "bij,bjk->bik", "ii->i", "ii", "ij->", "i,j->ij", "ij->ji", "ij,ij->i",
                 "i,i->", "bhqd,bhkd->bhqk", "...ij,...jk->...ik", "ij,jk,kl->il", "iij->j", "ab,b",
                 "...i,...i->..."]


@st.composite
def _einsum(draw):
    spec = draw(st.sampled_from(_EINSUM_SPECS))
    size = {c: draw(st.integers(1, 3)) for c in "abcdefghijklmnopqrstuvwxyz"}
    batch = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    rng = _rng(draw)
    arrays = []
    for term in spec.split("->")[0].split(","):
        dims = tuple(size[c] for c in term.replace("...", ""))
        arrays.append(normal(rng, (batch if "..." in term else ()) + dims))
    return Example(tuple(arrays), {"spec": spec})


SHAPE_OPS_MORE = [
    Case("clone", _unary(min_side=0), lambda t, p: ops.clone(t[0]), lambda torch, t, p: t[0].clone()),
    Case("expand", _expand(), lambda t, p: ops.expand(t[0], p["sizes"]),
         lambda torch, t, p: t[0].expand(p["sizes"])),
    Case("repeat", _repeat(), lambda t, p: ops.repeat(t[0], p["repeats"]),
         lambda torch, t, p: t[0].repeat(p["repeats"])),
    Case("flip", _flip(), lambda t, p: ops.flip(t[0], p["axes"]),
         lambda torch, t, p: torch.flip(t[0], p["axes"])),
    Case("gather", _gather(), lambda t, p: ops.gather(t[0], p["axis"], p["index"]),
         lambda torch, t, p: torch.gather(t[0], p["axis"], _tt(torch, p["index"]))),
    Case("einsum", _einsum(), lambda t, p: ops.einsum(p["spec"], *t),
         lambda torch, t, p: torch.einsum(p["spec"], *t)),
]

SHAPE_OPS = [
    Case("reshape", _reshape(), lambda t, p: ops.reshape(t[0], p["shape"]),
         lambda torch, t, p: torch.reshape(t[0], p["shape"])),
    Case("permute", _permute(), lambda t, p: ops.permute(t[0], p["axes"]),
         lambda torch, t, p: t[0].permute(tuple(p["axes"]) if p["axes"] is not None
                                          else tuple(reversed(range(t[0].ndim))))),
    Case("getitem", _getitem(), lambda t, p: ops.getitem(t[0], p["index"]),
         lambda torch, t, p: t[0][_torch_index(torch, p["index"])]),
    Case("cat", _cat(), lambda t, p: ops.cat(t, axis=p["axis"]),
         lambda torch, t, p: torch.cat(t, dim=p["axis"])),
    Case("stack", _stack(), lambda t, p: ops.stack(t, axis=p["axis"]),
         lambda torch, t, p: torch.stack(t, dim=p["axis"])),
    Case("pad", _pad(), lambda t, p: ops.pad(t[0], p["pad_width"], value=p["value"]), _torch_pad),
    Case("matmul", _matmul(), lambda t, p: ops.matmul(t[0], t[1]),
         lambda torch, t, p: torch.matmul(t[0], t[1])),
    Case("identity", _unary(), lambda t, p: REGISTRY["identity"].apply(t[0]),
         lambda torch, t, p: t[0].view_as(t[0])),
]

# --- convolution and pooling -----------------------------------------------------------------


@st.composite
def _conv(draw):
    g = draw(image_geometry())
    n, c, h, w = g["shape"]
    rng = _rng(draw)
    out_channels = draw(st.integers(1, 3))
    arrays = (normal(rng, g["shape"]), normal(rng, (out_channels, c) + g["kernel"]))
    if draw(st.booleans()):
        arrays += (normal(rng, (out_channels,)),)
    return Example(arrays, {k: g[k] for k in ("stride", "padding", "dilation")})


@st.composite
def _max_pool(draw):
    g = draw(image_geometry(pool=True))
    stride = draw(st.sampled_from([None, g["stride"]]))
    return Example((normal(_rng(draw), g["shape"]),),
                   {"kernel_size": g["kernel"], "stride": stride, "padding": g["padding"],
                    "dilation": g["dilation"]})


@st.composite
def _avg_pool(draw):
    g = draw(image_geometry(pool=True, allow_dilation=False))
    return Example((normal(_rng(draw), g["shape"]),),
                   {"kernel_size": g["kernel"], "stride": draw(st.sampled_from([None, g["stride"]])),
                    "padding": g["padding"], "count_include_pad": draw(st.booleans()),
                    "divisor_override": draw(st.sampled_from([None, 3]))})


LAYERS = [
    Case("conv2d", _conv(), lambda t, p: ops.conv2d(*t, **p),
         lambda torch, t, p: torch.nn.functional.conv2d(*t, **p)),
    Case("max_pool2d", _max_pool(), lambda t, p: ops.max_pool2d(t[0], **p),
         lambda torch, t, p: torch.nn.functional.max_pool2d(t[0], **p)),
    Case("avg_pool2d", _avg_pool(), lambda t, p: ops.avg_pool2d(t[0], **p),
         lambda torch, t, p: torch.nn.functional.avg_pool2d(t[0], **p)),
]

# --- dropout and embedding -------------------------------------------------------------------


@st.composite
def _dropout(draw):
    shape = draw(shapes())
    rng = _rng(draw)
    p = draw(st.sampled_from([0.2, 0.5, 0.9]))
    return Example((normal(rng, shape),), {"mask": rng.random(shape) >= p, "scale": 1 / (1 - p)})


@st.composite
def _embedding(draw, with_padding_idx=True):
    rows, dim = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    rng = _rng(draw)
    ids = rng.integers(0, rows, size=draw(shapes(min_dims=1, max_dims=2)))  # repeats likely
    padding_idx = draw(st.one_of(st.none(), st.integers(0, rows - 1))) if with_padding_idx else None
    return Example((normal(rng, (rows, dim)),), {"ids": ids, "padding_idx": padding_idx})


LAYERS += [
    # torch draws its own masks, so the reference is the formula the primitive promises
    Case("dropout", _dropout(), lambda t, p: REGISTRY["dropout"].apply(t[0], **p),
         lambda torch, t, p: t[0] * _tt(torch, p["mask"]) * p["scale"]),
    Case("embedding", _embedding(),
         lambda t, p: ops.embedding(p["ids"], t[0], padding_idx=p["padding_idx"]),
         lambda torch, t, p: torch.nn.functional.embedding(_tt(torch, p["ids"]), t[0],
                                                           padding_idx=p["padding_idx"]),
         # padding_idx freezes its row by *convention* (torch zeroes that gradient although
         # the forward reads the row), so finite differences cannot agree there by design
         numeric_example=_embedding(with_padding_idx=False)),
]

# --- normalisation ---------------------------------------------------------------------------

_AFFINE = st.sampled_from([("weight", "bias"), ("weight",), ("bias",), ()])


def _affine_tensors(t, p):
    given = dict(zip(p["affine"], t[1:]))
    return given.get("weight"), given.get("bias")


@st.composite
def _layer_norm(draw):
    shape = draw(shapes(min_dims=1))
    normalized = tuple(shape[len(shape) - draw(st.integers(1, len(shape))):])
    affine = draw(_AFFINE)
    rng = _rng(draw)
    arrays = (normal(rng, shape),) + tuple(normal(rng, normalized) for _ in affine)
    return Example(arrays, {"normalized_shape": normalized, "affine": affine,
                            "eps": draw(st.sampled_from([1e-5, 0.1]))})


def _mg_layer_norm(t, p):
    weight, bias = _affine_tensors(t, p)
    return ops.layer_norm(t[0], p["normalized_shape"], weight, bias, eps=p["eps"])


def _torch_layer_norm(torch, t, p):
    weight, bias = _affine_tensors(t, p)
    return torch.nn.functional.layer_norm(t[0], p["normalized_shape"], weight, bias, eps=p["eps"])


@st.composite
def _batch_norm(draw):
    ndim = draw(st.integers(2, 4))
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 3))) + tuple(
        draw(st.integers(1, 3)) for _ in range(ndim - 2))
    training = draw(st.booleans())
    if training and int(np.prod(shape)) // shape[1] < 2:
        shape = (shape[0] + 1,) + shape[1:]   # a variance needs two values per channel
    affine = draw(_AFFINE)
    rng = _rng(draw)
    channels = shape[1]
    arrays = (normal(rng, shape),) + tuple(normal(rng, (channels,)) for _ in affine)
    return Example(arrays, {"training": training, "affine": affine, "eps": 1e-5,
                            "running_mean": normal(rng, (channels,)),
                            "running_var": positive(rng, (channels,))})


def _mg_batch_norm(t, p):
    weight, bias = _affine_tensors(t, p)
    if p["training"]:  # no buffers: the running-stat update is tested on its own
        return ops.batch_norm(t[0], None, None, weight, bias, training=True, eps=p["eps"])
    return ops.batch_norm(t[0], p["running_mean"], p["running_var"], weight, bias,
                          training=False, eps=p["eps"])


def _torch_batch_norm(torch, t, p):
    weight, bias = _affine_tensors(t, p)
    running = (None, None) if p["training"] else (_tt(torch, p["running_mean"]),
                                                  _tt(torch, p["running_var"]))
    return torch.nn.functional.batch_norm(t[0], *running, weight, bias, training=p["training"],
                                          eps=p["eps"])


NORMS = [
    Case("layer_norm", _layer_norm(), _mg_layer_norm, _torch_layer_norm),
    Case("batch_norm", _batch_norm(), _mg_batch_norm, _torch_batch_norm),
]

# --- losses ----------------------------------------------------------------------------------

_REDUCTION = st.sampled_from(["mean", "sum", "none"])


@st.composite
def _cross_entropy(draw):
    classes = draw(st.integers(1, 5))
    layout = draw(st.sampled_from(["single", "batch", "spatial"]))
    if layout == "single":
        shape, batch = (classes,), ()
    else:
        n = draw(st.integers(1, 4))
        extra = (draw(st.integers(1, 3)),) if layout == "spatial" else ()
        shape, batch = (n, classes) + extra, (n,) + extra
    rng = _rng(draw)
    logits = normal(rng, shape, scale=2.0)
    params = {"reduction": draw(_REDUCTION), "label_smoothing": draw(st.sampled_from([0.0, 0.15])),
              "weight": draw(st.sampled_from([None, "random"])), "ignore_index": -100}
    if params["weight"] is not None:
        params["weight"] = positive(rng, (classes,))
    if draw(st.booleans()):   # class indices, kept integer
        target = rng.integers(0, classes, size=batch)
        if draw(st.booleans()) and target.ndim:   # ignore some samples, never all
            ignore = draw(st.sampled_from([-100, 0])) if classes > 1 else -100
            ignored = rng.random(batch) < 0.4
            ignored.flat[0] = False
            target = np.where(ignored, ignore, target)
            if target.flat[0] == ignore:
                target.flat[0] = classes - 1
            params["ignore_index"] = ignore
    else:                      # class probabilities, shaped like the logits
        target = rng.dirichlet(np.ones(classes), size=batch)
        target = np.moveaxis(target, -1, 1) if len(shape) > 1 else target
    params["target"] = target
    return Example((logits,), params)


def _torch_cross_entropy(torch, t, p):
    weight = None if p["weight"] is None else _tt(torch, p["weight"])
    return torch.nn.functional.cross_entropy(
        t[0], _tt(torch, p["target"]), weight=weight, ignore_index=p["ignore_index"],
        reduction=p["reduction"], label_smoothing=p["label_smoothing"])


@st.composite
def _mse(draw):
    if draw(st.booleans()):
        shape_a = shape_b = draw(shapes())
    else:
        shape_a, shape_b = draw(broadcast_shapes(2))
    rng = _rng(draw)
    return Example((normal(rng, shape_a), normal(rng, shape_b)), {"reduction": draw(_REDUCTION)})


def _quietly(call):
    """mse_loss warns (as torch does) when shapes differ; the broadcast case is intended here."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return call(*args)
    return run


@st.composite
def _bce(draw):
    shape = draw(shapes())
    rng = _rng(draw)
    params = {"reduction": draw(_REDUCTION), "pos_weight": None}
    if len(shape) and draw(st.booleans()):
        params["pos_weight"] = positive(rng, shape[-1:])
    return Example((normal(rng, shape, scale=3.0), rng.uniform(0, 1, size=shape)), params)


def _torch_bce(torch, t, p):
    pos_weight = None if p["pos_weight"] is None else _tt(torch, p["pos_weight"])
    return torch.nn.functional.binary_cross_entropy_with_logits(
        t[0], t[1], reduction=p["reduction"], pos_weight=pos_weight)


LOSSES = [
    Case("cross_entropy", _cross_entropy(),
         lambda t, p: ops.cross_entropy(t[0], p["target"], weight=p["weight"],
                                        ignore_index=p["ignore_index"], reduction=p["reduction"],
                                        label_smoothing=p["label_smoothing"]),
         _torch_cross_entropy),
    Case("mse", _mse(), _quietly(lambda t, p: ops.mse_loss(t[0], t[1], reduction=p["reduction"])),
         _quietly(lambda torch, t, p: torch.nn.functional.mse_loss(t[0], t[1], reduction=p["reduction"]))),
    Case("bce_with_logits", _bce(),
         lambda t, p: ops.binary_cross_entropy_with_logits(t[0], t[1], reduction=p["reduction"],
                                                           pos_weight=p["pos_weight"]),
         _torch_bce),
]

# --- sequence models (minigrad/ops/sequence.py) ------------------------------------------------


@st.composite
def _cell(draw, gates):
    batch, hidden = draw(shapes(min_dims=0, max_dims=2)), draw(st.integers(1, 3))
    rng = _rng(draw)
    parts = [normal(rng, batch + (gates * hidden,), scale=1.5) for _ in range(1 if gates == 4 else 2)]
    return Example(tuple(parts) + (normal(rng, batch + (hidden,)),))


def _torch_lstm_cell(torch, t, p):
    i, f, g, o = t[0].chunk(4, dim=-1)
    c = torch.sigmoid(f) * t[1] + torch.sigmoid(i) * torch.tanh(g)
    return torch.stack([torch.sigmoid(o) * torch.tanh(c), c])


def _torch_gru_cell(torch, t, p):
    (i_r, i_z, i_n), (h_r, h_z, h_n) = t[0].chunk(3, dim=-1), t[1].chunk(3, dim=-1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * t[2]


@st.composite
def _attention(draw):
    batch = draw(shapes(min_dims=0, max_dims=2))
    queries, keys = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    depth, value_depth = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    rng = _rng(draw)
    arrays = (normal(rng, batch + (queries, depth)), normal(rng, batch + (keys, depth)),
              normal(rng, batch + (keys, value_depth)))
    params = {"scale": draw(st.sampled_from([1.0, 0.5])), "bias": None, "keep": None, "keep_scale": 1.0}
    if draw(st.booleans()):   # a causal-style mask: -inf above the diagonal, the first key always open
        params["bias"] = np.where(np.triu(np.ones((queries, keys)), 1) > 0, -np.inf, 0.0)
    if draw(st.booleans()):
        params["keep"] = rng.random(batch + (queries, keys)) >= 0.3
        params["keep_scale"] = 1 / 0.7
    return Example(arrays, params)


def _torch_attention(torch, t, p):
    scores = t[0] @ t[1].transpose(-1, -2) * p["scale"]
    if p["bias"] is not None:
        scores = scores + _tt(torch, p["bias"])
    weights = torch.softmax(scores, dim=-1)
    if p["keep"] is not None:
        weights = weights * _tt(torch, p["keep"]) * p["keep_scale"]
    return weights @ t[2]


SEQUENCE = [
    _unary_case("silu", lambda torch, t, p: torch.nn.functional.silu(t[0]), values=_wide),
    _unary_case("softplus", lambda torch, t, p: torch.nn.functional.softplus(t[0], **p), values=_wide,
                params=st.sampled_from([{"beta": 1.0, "threshold": 20.0},
                                        {"beta": 2.0, "threshold": 3.0}])),
    _unary_case("elu", lambda torch, t, p: torch.nn.functional.elu(t[0], **p), values=_wide,
                params=st.sampled_from([{"alpha": 1.0}, {"alpha": 0.5}])),
    Case("lstm_cell", _cell(4), lambda t, p: REGISTRY["lstm_cell"].apply(*t), _torch_lstm_cell),
    Case("gru_cell", _cell(3), lambda t, p: REGISTRY["gru_cell"].apply(*t), _torch_gru_cell),
    Case("scaled_dot_product_attention", _attention(),
         lambda t, p: REGISTRY["scaled_dot_product_attention"].apply(*t, **p), _torch_attention),
]

CASES = SEQUENCE + ELEMENTWISE + ACTIVATIONS + REDUCTIONS + SHAPE_OPS + SHAPE_OPS_MORE + LAYERS + NORMS + LOSSES
CASE_BY_NAME = {case.name: case for case in CASES}


def run_minigrad(case, arrays, params, dtype=np.float64, requires_grad=True):
    """Apply ``case`` in minigrad to copies of ``arrays`` cast to ``dtype``; returns (output, inputs)."""
    tensors = [mg.tensor(np.array(a, dtype=dtype), requires_grad=requires_grad, dtype=dtype)
               for a in arrays]
    return case.minigrad(tensors, params), tensors


@contextlib.contextmanager
def replaced_backward(name, backward):
    """Swap REGISTRY[name]'s backward for ``backward`` inside the block; restore it exactly."""
    cls = REGISTRY[name]
    original = vars(cls)["backward"]          # the staticmethod object itself
    cls.backward = staticmethod(backward)
    try:
        yield
    finally:
        cls.backward = original

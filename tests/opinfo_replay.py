"""Replay PyTorch's own OpInfo sample inputs on minigrad (used by tests/test_opinfo_replay.py).

``torch.testing._internal.common_methods_invocations.op_db`` holds, for every torch
operator, sample inputs written by PyTorch's developers: odd shapes, 0-d and empty
tensors, negative dims, broadcasting, keyword options. For each op minigrad has
(``ADAPTERS`` below, by OpInfo name), every float64 sample is run in both
frameworks: the outputs must agree (values, shapes, dtypes) and so must the
gradients of every float input under a random cotangent.

A sample has one of four outcomes:

* ``agree``    - forward and backward match;
* ``declined`` - it uses an option minigrad does not have: the call raised
  ``NotImplementedError`` or ``TypeError: ... unexpected keyword argument``
  (an adapter raises ``Unexpressible`` for options it knows are missing);
* ``crash``    - minigrad raised anything else although torch ran the sample;
* ``disagree`` - values, shapes, dtypes or gradients differ.

Samples on which torch itself raises are skipped.
"""
import collections

import numpy as np
import torch

import minigrad as mg
import minigrad.nn.functional as F

RTOL, ATOL = 1e-6, 1e-8


class Unexpressible(Exception):
    """The sample uses an option minigrad does not offer."""


def to_minigrad(value):
    """torch tensors become minigrad tensors (float ones keep requires_grad); the rest stays."""
    if isinstance(value, torch.Tensor):
        array = value.detach().numpy().copy()
        return mg.tensor(array, requires_grad=value.requires_grad and value.is_floating_point())
    if isinstance(value, (list, tuple)):
        return type(value)(to_minigrad(v) for v in value)
    if isinstance(value, dict):
        return {k: to_minigrad(v) for k, v in value.items()}
    if isinstance(value, torch.dtype):
        return {torch.float64: np.float64, torch.float32: np.float32, torch.int64: np.int64,
                torch.bool: np.bool_}.get(value, value)
    return value


def _no(kwargs, *names):
    for name in names:
        if kwargs.get(name) is not None:
            raise Unexpressible(f"option {name}")


def method(name, refuse=()):
    def call(x, args, kwargs):
        _no(kwargs, *refuse)
        return getattr(x, name)(*args, **{k: v for k, v in kwargs.items() if k not in refuse})
    return call


def function(fn, refuse=()):
    def call(x, args, kwargs):
        _no(kwargs, *refuse)
        return fn(x, *args, **{k: v for k, v in kwargs.items() if k not in refuse})
    return call


def _float_only(call):
    """Ops minigrad defines on floats only (a sample of integers is declined)."""
    def guarded(x, args, kwargs):
        if isinstance(x, mg.Tensor) and x.dtype.kind != "f":
            raise Unexpressible("integer input")
        return call(x, args, kwargs)
    return guarded


def _max_min(name):
    def call(x, args, kwargs):
        if args and isinstance(args[0], mg.Tensor):
            return (mg.ops.maximum if name == "max" else mg.ops.minimum)(x, args[0])
        if args:  # torch.max(x, dim, keepdim)
            kwargs = dict(kwargs, dim=args[0])
            if len(args) > 1:
                kwargs["keepdim"] = args[1]
        return getattr(x, name)(**kwargs)
    return call


def _var_std(name):
    def call(x, args, kwargs):
        kwargs = dict(kwargs)
        if args and isinstance(args[0], bool):      # torch.var(x, unbiased)
            kwargs["unbiased"], args = args[0], args[1:]
        if args:
            kwargs["dim"] = args[0]
        if len(args) > 1:
            kwargs["unbiased"] = args[1]
        if len(args) > 2:
            kwargs["keepdim"] = args[2]
        return getattr(x, name)(**kwargs)
    return call


def _reduction(name):
    def call(x, args, kwargs):
        _no(kwargs, "out")
        kwargs = dict(kwargs)
        if args:
            kwargs["dim"] = args[0]
        if len(args) > 1:
            kwargs["keepdim"] = args[1]
        if kwargs.get("dim") is None:
            kwargs.pop("dim", None)
        return getattr(x, name)(**kwargs)
    return call


def _softmax(fn):
    def call(x, args, kwargs):
        dim = args[0] if args else kwargs["dim"]
        return fn(x, dim=dim, dtype=kwargs.get("dtype"))
    return call


def _clamp(x, args, kwargs):
    low = args[0] if args else kwargs.get("min")
    high = args[1] if len(args) > 1 else kwargs.get("max")
    return x.clamp(low, high)


def _norm(x, args, kwargs):
    _no(kwargs, "dtype", "out")
    p = args[0] if args else kwargs.get("p", 2)
    if p == "nuc" or (p not in ("fro", None) and not isinstance(p, (int, float))):
        raise Unexpressible(f"p={p!r}")
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    if p is None or p == "fro":
        p = 2
    if dim is not None and not isinstance(dim, int) and len(dim) == 2 and p not in (2,):
        raise Unexpressible("matrix norm")
    return x.norm(p, dim=dim, keepdim=keepdim)


def _vector_norm(x, args, kwargs):
    _no(kwargs, "dtype", "out")
    ord_ = args[0] if args else kwargs.get("ord", 2)
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    return x.norm(ord_, dim=dim, keepdim=keepdim)


def _split(x, args, kwargs):
    sizes = args[0] if args else kwargs["split_size_or_sections"] if "split_size_or_sections" in kwargs \
        else kwargs["split_size"]
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    return x.split(list(sizes) if isinstance(sizes, (list, tuple)) else sizes, dim=dim)


def _repeat(x, args, kwargs):
    return x.repeat(*args)


def _expand(x, args, kwargs):
    return x.expand(*args)


def _squeeze(x, args, kwargs):
    dim = args[0] if args else kwargs.get("dim")
    return x.squeeze(tuple(dim) if isinstance(dim, list) else dim)


def _flip(x, args, kwargs):
    return x.flip(*args, **kwargs)


def _pad_constant(x, args, kwargs):
    pad = args[0] if args else kwargs["pad"]
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "constant")
    value = args[2] if len(args) > 2 else kwargs.get("value", 0.0)
    if mode != "constant":
        raise Unexpressible(f"mode {mode}")
    return F.pad(x, pad, value=value or 0.0)


def _where(x, args, kwargs):
    condition, other = args[0], args[1] if len(args) > 1 else kwargs["other"]
    return mg.where(condition, x, other)


def _masked_fill(x, args, kwargs):
    return x.masked_fill(*args)


def _einsum(x, args, kwargs):
    return mg.einsum(args[0], *x)


def _cat_stack(fn):
    def call(x, args, kwargs):
        dim = args[0] if args else kwargs.get("dim", 0)
        return fn(list(x), dim=dim)
    return call


def _getitem(x, args, kwargs):
    index = args[0]
    if isinstance(index, list):
        index = np.asarray([i.data if isinstance(i, mg.Tensor) else i for i in index])
    return x[index]


def _binary(fn):
    def call(x, args, kwargs):
        _no(kwargs, "rounding_mode", "out")
        return fn(x, args[0], **kwargs)
    return call


def _float_power_guard(x, args, kwargs):
    return x ** args[0]


def _linear(x, args, kwargs):
    weight = args[0] if args else kwargs["weight"]
    bias = args[1] if len(args) > 1 else kwargs.get("bias")
    return F.linear(x, weight, bias)


def _mse(x, args, kwargs):
    return F.mse_loss(x, *args, **kwargs)


def _cross_entropy(x, args, kwargs):
    return F.cross_entropy(x, *args, **kwargs)


def _reshape(x, args, kwargs):
    shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    return x.reshape(*shape)


def _transpose(x, args, kwargs):
    return x.transpose(*args)


def _permute(x, args, kwargs):
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    return x.permute(*dims)


def _unsqueeze(x, args, kwargs):
    return x.unsqueeze(args[0] if args else kwargs["dim"])


def _chunk(x, args, kwargs):
    return x.chunk(*args, **kwargs)


def _gather(x, args, kwargs):
    _no(kwargs, "sparse_grad")
    return x.gather(*args)


def _index_select(x, args, kwargs):
    return x.index_select(*args)


def _tri(name):
    def call(x, args, kwargs):
        diagonal = args[0] if args else kwargs.get("diagonal", 0)
        return getattr(x, name)(diagonal)
    return call


def _cumsum(x, args, kwargs):
    return x.cumsum(dim=args[0] if args else kwargs["dim"], dtype=kwargs.get("dtype"))


def _logsumexp(x, args, kwargs):
    dim = args[0] if args else kwargs["dim"]
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    return x.logsumexp(dim=dim, keepdim=keepdim)


def _prod(x, args, kwargs):
    if args:
        return x.prod(dim=args[0], keepdim=args[1] if len(args) > 1 else kwargs.get("keepdim", False))
    return x.prod(**kwargs)


def _arg(name):
    def call(x, args, kwargs):
        dim = args[0] if args else kwargs.get("dim")
        keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
        return getattr(x, name)(dim=dim, keepdim=keepdim)
    return call


def _embedding(weight, args, kwargs):   # OpInfo's sample puts the weight first
    return F.embedding(args[0], weight, *args[1:], **kwargs)


def _batch_norm(x, args, kwargs):
    return F.batch_norm(x, *args, **kwargs)


def _attention(q, args, kwargs):
    if kwargs.get("dropout_p", 0.0):
        raise Unexpressible("dropout draws random masks: the two frameworks cannot agree "
                            "(tests/test_torch_edge_options.py checks its statistics and gradients)")
    return F.scaled_dot_product_attention(q, *args, **kwargs)


def _functional(fn):
    return lambda x, args, kwargs: fn(x, *args, **kwargs)


ADAPTERS = {
    # elementwise math
    "abs": method("abs"), "exp": method("exp"), "log": method("log"), "log1p": method("log1p"),
    "expm1": method("expm1"), "sqrt": method("sqrt"), "rsqrt": method("rsqrt"),
    "sin": method("sin"), "cos": method("cos"), "tanh": method("tanh"), "sigmoid": method("sigmoid"),
    "erf": method("erf"), "neg": lambda x, a, k: -x, "reciprocal": method("reciprocal"),
    "square": method("square"), "sign": method("sign"),
    "add": _binary(mg.ops.add), "sub": _binary(mg.ops.sub), "mul": _binary(mg.ops.mul),
    "div.no_rounding_mode": _binary(mg.ops.div), "true_divide": _binary(mg.ops.div),
    "pow": _binary(mg.ops.pow), "maximum": _binary(mg.ops.maximum), "minimum": _binary(mg.ops.minimum),
    "matmul": _binary(mg.ops.matmul), "mm": _binary(mg.ops.matmul), "bmm": _binary(mg.ops.matmul),
    "outer": _binary(mg.outer),
    "clamp": _clamp, "where": _where, "masked_fill": _masked_fill,
    # activations
    "nn.functional.relu": _functional(F.relu), "nn.functional.leaky_relu": _functional(F.leaky_relu),
    "nn.functional.gelu": _functional(F.gelu), "softmax": _softmax(mg.softmax),
    "softmax.with_dtype": _softmax(mg.softmax), "log_softmax": _softmax(mg.log_softmax),
    "log_softmax.with_dtype": _softmax(mg.log_softmax),
    # reductions
    "sum": _reduction("sum"), "mean": _reduction("mean"), "amax": _reduction("amax"),
    "amin": _reduction("amin"), "max.reduction_no_dim": _max_min("max"),
    "max.reduction_with_dim": _max_min("max"), "min.reduction_no_dim": _max_min("min"),
    "min.reduction_with_dim": _max_min("min"), "max.binary": _max_min("max"),
    "min.binary": _max_min("min"), "argmax": _arg("argmax"), "argmin": _arg("argmin"),
    "var": _var_std("var"), "var.unbiased": _var_std("var"), "std": _var_std("std"),
    "std.unbiased": _var_std("std"), "prod": _prod, "logsumexp": _logsumexp, "cumsum": _cumsum,
    "norm": _norm, "linalg.vector_norm": _vector_norm,
    # shape and indexing
    "reshape": _reshape, "view": _reshape, "reshape_as": method("reshape_as"),
    "view_as": method("view_as"), "flatten": method("flatten"), "squeeze": _squeeze,
    "squeeze.multiple": _squeeze, "unsqueeze": _unsqueeze, "permute": _permute,
    "transpose": _transpose, "expand": _expand, "expand_as": method("expand_as"), "repeat": _repeat,
    "flip": _flip, "split": _split, "split.list_args": _split, "split_with_sizes": _split,
    "chunk": _chunk, "cat": _cat_stack(mg.cat), "stack": _cat_stack(mg.stack),
    "gather": _gather, "index_select": _index_select, "tril": _tri("tril"), "triu": _tri("triu"),
    "clone": method("clone"), "contiguous": method("contiguous"), "einsum": _einsum,
    "__getitem__": _getitem, "nn.functional.pad.constant": _pad_constant,
    # layers and losses
    "nn.functional.linear": _linear, "nn.functional.mse_loss": _mse,
    "nn.functional.cross_entropy": _cross_entropy, "nn.functional.embedding": _embedding,
    "nn.functional.batch_norm": _batch_norm, "nn.functional.scaled_dot_product_attention": _attention,
}
for _name in ("conv2d", "max_pool2d", "avg_pool2d", "layer_norm", "nll_loss", "binary_cross_entropy_with_logits", "silu", "softplus", "elu",
              "one_hot", "l1_loss", "smooth_l1_loss",
              "binary_cross_entropy", "kl_div", "normalize", "cosine_similarity", "conv1d",
              "group_norm"):
    ADAPTERS["nn.functional." + _name] = _functional(getattr(F, _name))
for _name in ("float", "double", "half", "long", "int", "bool", "to", "item"):
    ADAPTERS[_name] = method(_name)
ADAPTERS["zero_"] = lambda x, args, kwargs: x.clone().zero_()   # OpInfo zeroes a clone too
for _name in ("zeros", "ones", "full", "eye", "arange", "linspace"):
    ADAPTERS[_name] = _functional(getattr(mg, _name))
for _name in ("zeros_like", "ones_like", "full_like"):
    ADAPTERS[_name] = _functional(getattr(mg, _name))


def _outputs(result):
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def replay(opinfo, adapter, sample, seed):
    """The outcome of one sample: "agree", "declined", "crash: ..." or "disagree: ..."."""
    torch_args = (sample.input,) + tuple(sample.args)
    try:
        expected = opinfo.op(*torch_args, **sample.kwargs)
    except Exception:       # torch refuses its own sample in this configuration
        return "skipped"
    mg_input, mg_args, mg_kwargs = (to_minigrad(sample.input), to_minigrad(tuple(sample.args)),
                                    to_minigrad(dict(sample.kwargs)))
    try:
        got = adapter(mg_input, mg_args, mg_kwargs)
    except Unexpressible:
        return "declined"
    except NotImplementedError:
        return "declined"
    except TypeError as error:
        if "unexpected keyword argument" in str(error):
            return "declined"
        return f"crash: TypeError: {error}"
    except Exception as error:  # noqa: BLE001 - the replay reports every kind of crash
        return f"crash: {type(error).__name__}: {error}"
    ours, theirs = _outputs(got), _outputs(expected)
    if len(ours) != len(theirs):
        return f"disagree: {len(ours)} outputs, torch {len(theirs)}"
    for o, t in zip(ours, theirs):
        if not isinstance(t, torch.Tensor):   # a Python number (item()): its value must agree
            if isinstance(o, mg.Tensor) or not np.isclose(o, t, rtol=RTOL, atol=ATOL, equal_nan=True):
                return f"disagree: {o!r}, torch {t!r}"
            continue
        if o.shape != tuple(t.shape):
            return f"disagree: shape {o.shape}, torch {tuple(t.shape)}"
        if str(o.dtype) != str(t.dtype).replace("torch.", ""):
            return f"disagree: dtype {o.dtype}, torch {t.dtype}"
        if not np.allclose(o.data, t.detach().numpy(), rtol=RTOL, atol=ATOL, equal_nan=True):
            return "disagree: values"
    return _compare_gradients(torch_args, sample.kwargs, expected, mg_input, mg_args, ours, theirs, seed)


def _float_leaves(value, out):
    if isinstance(value, (torch.Tensor, mg.Tensor)):
        if value.requires_grad:
            out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _float_leaves(v, out)
    return out


def _compare_gradients(torch_args, torch_kwargs, expected, mg_input, mg_args, ours, theirs, seed):
    torch_leaves = _float_leaves(torch_args, [])
    mg_leaves = _float_leaves((mg_input,) + tuple(mg_args), [])
    pairs = [(o, t) for o, t in zip(ours, theirs)
             if isinstance(t, torch.Tensor) and t.requires_grad and o.dtype.kind == "f"]
    if not torch_leaves or not pairs:
        return "agree"
    if len(torch_leaves) != len(mg_leaves):
        return f"disagree: {len(mg_leaves)} inputs need grad, torch {len(torch_leaves)}"
    rng = np.random.default_rng(seed)
    cotangents = [rng.normal(size=o.shape) for o, _ in pairs]
    torch_grads = torch.autograd.grad([t for _, t in pairs], torch_leaves,
                                      [torch.tensor(c) for c in cotangents], allow_unused=True)
    if not any(o.requires_grad for o, _ in pairs):
        if any(g is not None and g.abs().sum() > 0 for g in torch_grads):
            return "disagree: minigrad output is not differentiable"
        return "agree"
    total = None
    for (o, _), c in zip(pairs, cotangents):
        if o.requires_grad:
            term = (o * mg.tensor(c.astype(o.dtype))).sum()
            total = term if total is None else total + term
    try:
        total.backward()
    except Exception as error:  # noqa: BLE001
        return f"crash in backward: {type(error).__name__}: {error}"
    for index, (leaf, g) in enumerate(zip(mg_leaves, torch_grads)):
        reference = np.zeros(leaf.shape) if g is None else g.numpy()
        got = np.zeros(leaf.shape) if leaf.grad is None else leaf.grad
        if got.shape != reference.shape or not np.allclose(got, reference, rtol=1e-5, atol=1e-7,
                                                           equal_nan=True):
            return f"disagree: gradient of input {index}"
    return "agree"


SAMPLE_DTYPE = {"nn.functional.one_hot": torch.int64}   # every other op: float64 samples


def opinfo_by_name():
    """OpInfo entries by full name ("name" or "name.variant")."""
    from torch.testing._internal.common_methods_invocations import op_db
    return {o.name + ("." + o.variant_test_name if o.variant_test_name else ""): o for o in op_db}


def replay_op(opinfo, adapter, name):
    """Counter of outcomes over every sample of one op, and the failures (outcome, sample)."""
    counts, failures = collections.Counter(), []
    dtype = SAMPLE_DTYPE.get(name, torch.float64)
    samples = opinfo.sample_inputs("cpu", dtype, requires_grad=dtype.is_floating_point)
    for index, sample in enumerate(samples):
        outcome = replay(opinfo, adapter, sample, seed=index)
        kind = outcome.split(":")[0].split(" ")[0]
        counts[kind] += 1
        if kind in ("crash", "disagree"):
            failures.append((outcome, sample))
    return counts, failures

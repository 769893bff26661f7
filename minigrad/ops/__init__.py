"""minigrad's primitives, one file per family, and plain functions that apply them.

``REGISTRY`` maps each primitive's name to its Function class. Everything else in
minigrad (Tensor methods, nn layers, losses) is composed of these functions.
"""
import numpy as np

from ..tensor import Tensor, as_tensor
from .registry import REGISTRY, register, unbroadcast
from . import elementwise as _elementwise
from . import activation as _activation
from . import reduce as _reduce
from . import shape as _shape
from . import linalg as _linalg

__all__ = ["REGISTRY", "register", "unbroadcast"]


def _pair(a, b):
    """Tensors for a binary op; a Python number takes the dtype of the tensor beside it."""
    if isinstance(a, Tensor) and not isinstance(b, Tensor) and np.isscalar(b):
        b = as_tensor(b, dtype=a.dtype if a.dtype.kind == "f" else None)
    if isinstance(b, Tensor) and not isinstance(a, Tensor) and np.isscalar(a):
        a = as_tensor(a, dtype=b.dtype if b.dtype.kind == "f" else None)
    return a, b


def _binary(name):
    def apply(a, b):
        return REGISTRY[name].apply(*_pair(a, b))
    apply.__name__ = name
    apply.__doc__ = f"Elementwise {name} with broadcasting."
    return apply


def _unary(name):
    def apply(a, **kwargs):
        return REGISTRY[name].apply(a, **kwargs)
    apply.__name__ = name
    apply.__doc__ = f"Apply the {name!r} primitive."
    return apply


add, sub, mul, div, pow, maximum, minimum, matmul = (
    _binary(n) for n in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "matmul"))
neg, exp, log, sqrt, abs, relu, tanh, sigmoid = (
    _unary(n) for n in ("neg", "exp", "log", "sqrt", "abs", "relu", "tanh", "sigmoid"))


def leaky_relu(a, negative_slope=0.01):
    return REGISTRY["leaky_relu"].apply(a, negative_slope=negative_slope)


def clip(a, low=None, high=None):
    return REGISTRY["clip"].apply(a, low=low, high=high)


def where(condition, a, b):
    """Pick from ``a`` where ``condition`` holds, else from ``b`` (gradient to the picked one)."""
    condition = condition.data if isinstance(condition, Tensor) else condition
    a, b = _pair(a, b)
    return REGISTRY["where"].apply(a, b, condition=np.asarray(condition, dtype=bool))


def cast(a, dtype):
    return REGISTRY["cast"].apply(a, dtype=np.dtype(dtype))


def softmax(a, axis=-1):
    return REGISTRY["softmax"].apply(a, axis=axis)


def log_softmax(a, axis=-1):
    return REGISTRY["log_softmax"].apply(a, axis=axis)


def sum(a, axis=None, keepdims=False):
    return REGISTRY["sum"].apply(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, keepdims=False):
    return REGISTRY["mean"].apply(a, axis=axis, keepdims=keepdims)


def max(a, axis=None, keepdims=False):
    return REGISTRY["max"].apply(a, axis=axis, keepdims=keepdims)


def var(a, axis=None, keepdims=False, unbiased=False):
    return REGISTRY["var"].apply(a, axis=axis, keepdims=keepdims, unbiased=unbiased)


def reshape(a, shape):
    return REGISTRY["reshape"].apply(a, shape=tuple(shape))


def permute(a, axes=None):
    return REGISTRY["permute"].apply(a, axes=axes)


def getitem(a, index):
    if isinstance(index, Tensor):
        index = index.data
    elif isinstance(index, tuple):
        index = tuple(i.data if isinstance(i, Tensor) else i for i in index)
    return REGISTRY["getitem"].apply(a, index=index)


def cat(tensors, axis=0):
    return REGISTRY["cat"].apply(*tensors, axis=axis)


def stack(tensors, axis=0):
    return REGISTRY["stack"].apply(*tensors, axis=axis)


def pad(a, pad_width, value=0.0):
    """NumPy-style padding: ``pad_width`` is one (before, after) pair per axis."""
    return REGISTRY["pad"].apply(a, pad_width=pad_width, value=value)


# --- neural-network primitives: activation, convolution, pooling, normalisation, losses ----------
# Signatures follow torch.nn.functional. Constants (ids, class targets, masks, running
# statistics) travel as keyword arguments; everything differentiable is an array input.
import warnings as _warnings

from . import special as _special
from . import conv as _conv
from . import pool as _pool
from . import masking as _masking
from . import lookup as _lookup
from . import norm as _norm
from . import loss as _loss
from .windows import pair as _pair_of_ints
from ..random import generator as _generator


def _constant(x):
    """The NumPy array behind a Tensor or array-like, for non-differentiable arguments."""
    return x.data if isinstance(x, Tensor) else np.asarray(x)


def _float_like(x, reference):
    """A target given as a plain array or integer tensor takes the reference's float dtype."""
    if isinstance(x, Tensor) and x.dtype.kind == "f":
        return x
    return Tensor(_constant(x), dtype=reference.dtype, _copy=False)


def gelu(x, approximate="none"):
    """GELU ``x * Phi(x)``; ``approximate="tanh"`` for the tanh approximation."""
    return REGISTRY["gelu"].apply(x, approximate=approximate)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C, H, W) (or unbatched (C, H, W)) with weight (O, C, kh, kw)."""
    if groups != 1:
        raise NotImplementedError(f"conv2d: groups={groups} is not supported, only groups=1")
    x, weight = as_tensor(x), as_tensor(weight)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            dil = _pair_of_ints(dilation, "dilation", 1)
            reach = [d * (k - 1) for d, k in zip(dil, weight.shape[-2:])]
            if _pair_of_ints(stride, "stride", 1) != (1, 1) or any(r % 2 for r in reach):
                raise ValueError("conv2d: padding='same' needs stride 1 and an odd kernel reach "
                                 f"(got stride {stride}, kernel {tuple(weight.shape[-2:])}); "
                                 "give the padding as numbers instead")
            padding = (reach[0] // 2, reach[1] // 2)
        else:
            raise ValueError(f"conv2d: padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    unbatched = x.ndim == 3
    if unbatched:
        x = reshape(x, (1,) + x.shape)
    inputs = (x, weight) if bias is None else (x, weight, bias)
    out = REGISTRY["conv2d"].apply(*inputs, stride=_pair_of_ints(stride, "stride", 1),
                                   padding=_pair_of_ints(padding, "padding"),
                                   dilation=_pair_of_ints(dilation, "dilation", 1))
    return reshape(out, out.shape[1:]) if unbatched else out


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each (kh, kw) window; ``stride`` defaults to ``kernel_size``."""
    if ceil_mode or return_indices:
        raise NotImplementedError("max_pool2d: ceil_mode and return_indices are not supported")
    return REGISTRY["max_pool2d"].apply(x, kernel_size=kernel_size, stride=stride, padding=padding,
                                        dilation=dilation)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over each (kh, kw) window; padded zeros count unless ``count_include_pad=False``."""
    if ceil_mode:
        raise NotImplementedError("avg_pool2d: ceil_mode is not supported")
    return REGISTRY["avg_pool2d"].apply(x, kernel_size=kernel_size, stride=stride, padding=padding,
                                        count_include_pad=count_include_pad,
                                        divisor_override=divisor_override)


def dropout(x, p=0.5, training=True):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    The mask is drawn here from minigrad's generator (``minigrad.manual_seed``) and
    passed to the deterministic ``dropout`` primitive. Not training, or ``p == 0``:
    ``x`` comes back unchanged (the very same tensor).
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be between 0 and 1, got {p}")
    x = as_tensor(x)
    if not training or p == 0:
        return x
    mask = _generator().random(x.shape) >= p      # kept with probability 1 - p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return REGISTRY["dropout"].apply(x, mask=mask, scale=scale)


def embedding(ids, weight, padding_idx=None):
    """Rows of ``weight`` (num_embeddings, dim) picked by integer ``ids`` of any shape."""
    return REGISTRY["embedding"].apply(weight, ids=_constant(ids), padding_idx=padding_idx)


def _affine_inputs(weight, bias):
    named = [(n, t) for n, t in (("weight", weight), ("bias", bias)) if t is not None]
    return tuple(t for _, t in named), tuple(n for n, _ in named)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` axes, then scale and shift."""
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    arrays, params = _affine_inputs(weight, bias)
    return REGISTRY["layer_norm"].apply(x, *arrays, normalized_shape=tuple(normalized_shape),
                                        eps=eps, params=params)


def _buffer(b, name):
    """The array to update in place: a Tensor's storage or the ndarray itself."""
    array = b.data if isinstance(b, Tensor) else b
    if not isinstance(array, np.ndarray):
        raise TypeError(f"batch_norm: {name} must be a Tensor or ndarray that can be updated in place, "
                        f"got {type(b).__name__}")
    return array


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over every axis but the channel axis 1, as ``F.batch_norm``.

    training=True: normalise with the batch statistics (gradient flows through them)
    and, when running buffers are given, update them in place:
    ``running = (1 - momentum) * running + momentum * batch`` with the *unbiased*
    batch variance, as torch. training=False: normalise with the running buffers.
    """
    x = as_tensor(input)
    arrays, params = _affine_inputs(weight, bias)
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm(training=False) needs running_mean and running_var; "
                             "pass training=True to normalise with batch statistics")
        # copies: the record of this op must not change when the buffers are updated later
        return REGISTRY["batch_norm"].apply(
            x, *arrays, training=False, mean=np.array(_constant(running_mean)),
            var=np.array(_constant(running_var)), eps=eps, params=params)
    out = REGISTRY["batch_norm"].apply(x, *arrays, training=True, eps=eps, params=params)
    if running_mean is not None or running_var is not None:
        if momentum is None:
            raise ValueError("batch_norm: momentum must be a number here (nn.BatchNorm handles "
                             "momentum=None, the cumulative average, itself)")
        axes = (0,) + tuple(range(2, x.ndim))
        count = x.data.size // x.shape[1]
        if running_mean is not None:
            mean_buffer = _buffer(running_mean, "running_mean")
            mean_buffer *= 1 - momentum
            mean_buffer += momentum * x.data.mean(axis=axes)
        if running_var is not None:
            var_buffer = _buffer(running_var, "running_var")
            var_buffer *= 1 - momentum
            var_buffer += momentum * x.data.var(axis=axes) * (count / (count - 1))
    return out


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Log-softmax and negative log-likelihood in one stable primitive, as ``F.cross_entropy``.

    ``input``: logits (N, C) or (N, C, d1, ...); ``target``: integer class indices
    (N, d1, ...) - kept integer - or float class probabilities shaped like ``input``.
    ``weight``: optional per-class weights (a constant).
    """
    if isinstance(weight, str):
        raise TypeError(f"cross_entropy: the third argument is the class weight; pass "
                        f"reduction={weight!r} as a keyword")
    return REGISTRY["cross_entropy"].apply(
        input, target=_constant(target), weight=None if weight is None else _constant(weight),
        reduction=reduction, ignore_index=ignore_index, label_smoothing=label_smoothing)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error; gradients flow to both input and (float) target."""
    input = as_tensor(input)
    target = _float_like(target, input)
    if input.shape != target.shape:
        _warnings.warn(
            f"mse_loss: input shape {input.shape} and target shape {target.shape} differ and will "
            "be broadcast, which is rarely intended (e.g. (N, 1) against (N,) gives (N, N)); "
            "reshape the target to the input's shape", UserWarning, stacklevel=2)
    return REGISTRY["mse"].apply(input, target, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross-entropy in one stable primitive; ``target`` in [0, 1], same shape.

    ``pos_weight`` (e.g. shape (classes,), a constant) weighs the positive term;
    ``weight`` rescales each element's loss before the reduction.
    """
    input = as_tensor(input)
    target = _float_like(target, input)
    pos_weight = None if pos_weight is None else _constant(pos_weight)
    if weight is None:
        return REGISTRY["bce_with_logits"].apply(input, target, reduction=reduction, pos_weight=pos_weight)
    _loss._check_reduction("binary_cross_entropy_with_logits", reduction)
    per_element = mul(REGISTRY["bce_with_logits"].apply(input, target, reduction="none",
                                                        pos_weight=pos_weight),
                      _float_like(weight, input))
    return per_element if reduction == "none" else (sum(per_element) if reduction == "sum"
                                                    else mean(per_element))

"""The ``nn.functional`` functions sequence models need, named and called like torch's.

Imported into ``minigrad.nn.functional`` (call them as ``F.silu``, ``F.pad``...).
Each is composed from registered primitives; the fused ones (silu, softplus, elu,
scaled_dot_product_attention) live in ``minigrad.ops.sequence``.
"""
import functools
import math

import numpy as np

from .. import ops
from ..ops import sequence as _sequence_ops  # noqa: F401  (registers the fused primitives)
from ..ops.registry import REGISTRY
from ..random import generator
from ..tensor import Tensor, as_tensor

__all__ = [
    "silu", "softplus", "elu", "scaled_dot_product_attention", "causal_mask", "one_hot", "pad",
    "l1_loss", "smooth_l1_loss", "binary_cross_entropy", "kl_div", "normalize",
    "cosine_similarity", "conv1d", "group_norm",
]



def _reduce(per_element, reduction):
    if reduction == "none":
        return per_element
    return ops.sum(per_element) if reduction == "sum" else ops.mean(per_element)


def _float_target(target, input):
    """A target given as an array or an integer tensor takes the input's float dtype."""
    if isinstance(target, Tensor) and target.dtype.kind == "f":
        return target
    array = target.data if isinstance(target, Tensor) else np.asarray(target)
    return Tensor(array, dtype=input.dtype, _copy=False)


def _same_shape(fn, input, target):
    if input.shape != target.shape:
        raise ValueError(f"{fn}: the target's shape {target.shape} must equal the input's shape "
                         f"{input.shape}; reshape one of them (broadcasting them is rarely meant)")


# --- activations ---------------------------------------------------------------------------
def silu(input, inplace=False):
    """x * sigmoid(x)."""
    return REGISTRY["silu"].apply(as_tensor(input))


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta; linear where beta x > threshold."""
    return REGISTRY["softplus"].apply(as_tensor(input), beta=beta, threshold=threshold)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha (exp(x) - 1) otherwise."""
    return REGISTRY["elu"].apply(as_tensor(input), alpha=alpha)


# --- attention -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def causal_mask(query_len, key_len):
    """Boolean (L, S) mask, True where query i may look at key j (j <= i), built once per size."""
    mask = np.tril(np.ones((query_len, key_len), dtype=bool))
    mask.setflags(write=False)
    return mask


def _additive_mask(attn_mask, dtype):
    """An attention mask as a constant added to the scores: bool True -> 0, False -> -inf."""
    array = attn_mask.data if isinstance(attn_mask, Tensor) else np.asarray(attn_mask)
    if array.dtype == bool:
        return np.where(array, 0.0, -np.inf).astype(dtype)
    if array.dtype.kind != "f":
        raise TypeError(f"attention masks must be boolean (True = may attend) or float (added to "
                        f"the scores), got dtype {array.dtype}")
    return array.astype(dtype, copy=False)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """softmax(q k^T / sqrt(E) + mask) v over the last two axes, as torch's.

    ``query`` (..., L, E), ``key`` (..., S, E), ``value`` (..., S, Ev). A boolean
    ``attn_mask`` says where a query *may* attend (True); a float one is added to
    the scores. ``is_causal`` lets query i see keys 0..i only. ``dropout_p`` drops
    attention weights (always, as torch's function does; layers pass 0 in eval).
    """
    query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise ValueError(f"scaled_dot_product_attention: query, key and value need at least 2 "
                         f"dims (..., L, E); got shapes {query.shape}, {key.shape}, {value.shape}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: expected query (..., L, E), key "
                         f"(..., S, E), value (..., S, Ev); got {query.shape}, {key.shape}, "
                         f"{value.shape}")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: give either attn_mask or is_causal=True, "
                         "not both (fold the causal pattern into the mask yourself)")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    length, source = query.shape[-2], key.shape[-2]
    bias = None
    if is_causal:
        bias = _additive_mask(causal_mask(length, source), query.dtype)
    elif attn_mask is not None:
        bias = _additive_mask(attn_mask, query.dtype)
    keep, keep_scale = None, 1.0
    if dropout_p > 0:
        batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2])
        keep = generator().random(batch + (length, source)) >= dropout_p
        keep_scale = 0.0 if dropout_p == 1 else 1.0 / (1.0 - dropout_p)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    return REGISTRY["scaled_dot_product_attention"].apply(
        query, key, value, scale=scale, bias=bias, keep=keep, keep_scale=keep_scale)


# --- shapes and encodings ------------------------------------------------------------------
def one_hot(tensor, num_classes=-1):
    """Integer class ids -> int64 one-hot vectors on a new last axis (no gradient)."""
    ids = tensor.data if isinstance(tensor, Tensor) else np.asarray(tensor)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expected an integer tensor of class ids, got dtype {ids.dtype}")
    if ids.size and ids.min() < 0:
        raise ValueError(f"one_hot: class ids must be non-negative, found {ids.min()}")
    if num_classes == -1:
        num_classes = int(ids.max()) + 1 if ids.size else 0
    if ids.size and ids.max() >= num_classes:
        raise ValueError(f"one_hot: class id {ids.max()} does not fit num_classes={num_classes}")
    return Tensor(ids[..., None] == np.arange(num_classes), dtype=np.int64)


def _crop(input, pad):
    """The input without the entries negative ``pad`` amounts remove (a slice: differentiable)."""
    index = [slice(None)] * input.ndim
    for i in range(len(pad) // 2):
        axis, before, after = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        start, stop = max(-before, 0), input.shape[axis] - max(-after, 0)
        if stop < start:
            raise ValueError(f"pad: the negative amounts ({before}, {after}) for dimension {axis} "
                             f"crop more than its {input.shape[axis]} entries (input shape "
                             f"{input.shape}); crop at most the dimension's size")
        index[axis] = slice(start, stop)
    return ops.getitem(input, tuple(index))


def pad(input, pad, mode="constant", value=None):
    """Pad with a constant, torch's order: ``pad = (last_before, last_after, prev_before, ...)``;
    a negative amount crops that many entries from that side instead."""
    input = as_tensor(input)
    if mode != "constant":
        raise NotImplementedError(f"pad: only mode='constant' is supported, got {mode!r}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: expected an even number of values, at most 2 per dimension "
                         f"({2 * input.ndim} for shape {input.shape}), got {len(pad)}")
    if any(p < 0 for p in pad):   # a negative amount crops that side first, as torch
        input = _crop(input, pad)
        pad = tuple(max(p, 0) for p in pad)
    pairs = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pairs[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return ops.pad(input, pairs, value=0.0 if value is None else value)


# --- losses ---------------------------------------------------------------------------------
def l1_loss(input, target, reduction="mean"):
    """Mean absolute error."""
    ops.check_reduction("l1_loss", reduction)
    input = as_tensor(input)
    target = _float_target(target, input)
    _same_shape("l1_loss", input, target)
    return _reduce(ops.abs(ops.sub(input, target)), reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Squared error below ``beta`` (scaled by 1/(2 beta)), absolute error above it."""
    ops.check_reduction("smooth_l1_loss", reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    input = as_tensor(input)
    target = _float_target(target, input)
    _same_shape("smooth_l1_loss", input, target)
    diff = ops.sub(input, target)
    size = ops.abs(diff)
    if beta == 0:
        return _reduce(size, reduction)
    quadratic = ops.mul(ops.mul(diff, diff), 0.5 / beta)
    per_element = ops.where(size.data < beta, quadratic, ops.sub(size, 0.5 * beta))
    return _reduce(per_element, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)) on probabilities p; each log is clamped at -100 as torch."""
    ops.check_reduction("binary_cross_entropy", reduction)
    input = as_tensor(input)
    target = _float_target(target, input)
    _same_shape("binary_cross_entropy", input, target)
    if input.data.size and (input.data.min() < 0 or input.data.max() > 1):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 and 1 "
                         f"(got {input.data.min():.4g} to {input.data.max():.4g}); apply a "
                         "sigmoid first, or use binary_cross_entropy_with_logits on raw scores")
    with np.errstate(divide="ignore"):            # log(0) = -inf, clamped just below
        log_p = ops.clip(ops.log(input), -100.0, None)
        log_not_p = ops.clip(ops.log(ops.sub(1.0, input)), -100.0, None)
    per_element = ops.neg(ops.add(ops.mul(target, log_p),
                                  ops.mul(ops.sub(1.0, target), log_not_p)))
    if weight is not None:
        per_element = ops.mul(per_element, _float_target(weight, input))
    return _reduce(per_element, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """KL(target || input) with ``input`` given as log-probabilities, as torch's.

    ``reduction="batchmean"`` divides the sum by the batch size (the true KL divergence);
    ``"mean"`` divides by the number of elements, as torch does.
    """
    ops.check_reduction("kl_div", reduction, ops.REDUCTIONS + ("batchmean",))
    input = as_tensor(input)
    target = _float_target(target, input)
    if log_target:
        per_element = ops.mul(ops.exp(target), ops.sub(target, input))
    else:
        positive = target.data > 0
        safe = ops.where(positive, target, 1.0)                 # log(0) never computed
        per_element = ops.mul(target, ops.sub(ops.log(safe), input))
    if reduction == "batchmean":
        batch = input.shape[0] if input.ndim else 1
        return ops.div(ops.sum(per_element), float(batch))
    return _reduce(per_element, reduction)


# --- normalisation of vectors ---------------------------------------------------------------
def _p_norm(input, p, dim, floor):
    """The p-norm over ``dim`` (any p torch.norm takes), kept >= floor (zero gradient below it)."""
    return ops.clamp(ops.norm(input, p, dim=dim, keepdim=True), min=float(floor))


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """x / max(||x||_p, eps) along ``dim``."""
    input = as_tensor(input)
    return ops.div(input, _p_norm(input, p, dim, eps))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """<x1, x2> / (max(||x1||, eps) max(||x2||, eps)) along ``dim``."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)   # as torch: broadcast, then the norms
    except ValueError:
        raise ValueError(f"cosine_similarity: x1 of shape {x1.shape} and x2 of shape "
                         f"{x2.shape} do not broadcast together; pass vectors of the same "
                         "shape (or one that broadcasts, e.g. (1, D) against (N, D))") from None
    x1, x2 = ops.expand(x1, shape), ops.expand(x2, shape)
    unit1 = ops.div(x1, _p_norm(x1, 2, dim, eps))
    unit2 = ops.div(x2, _p_norm(x2, 2, dim, eps))
    return ops.sum(ops.mul(unit1, unit2), axis=dim)


# --- convolution and group norm ---------------------------------------------------------------
def _single(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ValueError(f"conv1d: {name} must be an int or a 1-tuple, got {value!r}")
        value = value[0]
    return int(value)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of (N, C, L) (or unbatched (C, L)) with weight (O, C / groups, K).

    Runs as the 2-D convolution of a height-1 image, so it shares conv2d's primitive
    (``groups`` too: that many independent convolutions over slices of the channels).
    """
    input, weight = as_tensor(input), as_tensor(weight)
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"conv1d: groups must be a positive int, got {groups!r}")
    if input.ndim not in (2, 3) or weight.ndim != 3:
        raise ValueError(f"conv1d: expected input (N, C, L) or (C, L) and weight (O, C / groups, K), "
                         f"got shapes {input.shape} and {weight.shape}")
    if input.shape[-2] != weight.shape[1] * groups or weight.shape[0] % groups:
        raise ValueError(f"conv1d: with groups={groups} the weight of shape {weight.shape} expects "
                         f"{weight.shape[1] * groups} input channels and out_channels divisible by "
                         f"{groups}, got input of shape {input.shape}")
    unbatched = input.ndim == 2
    if unbatched:
        input = ops.reshape(input, (1,) + input.shape)
    stride, dilation = _single(stride, "stride"), _single(dilation, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"conv1d: padding must be an int, 'same' or 'valid', got {padding!r}")
        reach = dilation * (weight.shape[-1] - 1) if padding == "same" else 0
        if padding == "same" and stride != 1:
            raise ValueError("conv1d: padding='same' needs stride 1")
        if reach:   # an odd reach pads one more on the right, as torch
            input = ops.pad(input, [(0, 0), (0, 0), (reach // 2, reach - reach // 2)])
        padding = 0
    padding = _single(padding, "padding")
    n, c, length = input.shape
    image = ops.reshape(input, (n, c, 1, length))
    kernel = ops.reshape(weight, weight.shape[:2] + (1, weight.shape[2]))
    out = ops.conv2d(image, kernel, bias, stride=(1, stride), padding=(0, padding),
                     dilation=(1, dilation), groups=int(groups))
    out = ops.reshape(out, out.shape[:2] + out.shape[3:])
    return ops.reshape(out, out.shape[1:]) if unbatched else out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample's channels in ``num_groups`` groups, then scale/shift per channel.

    (N, C, *) is viewed as (N, G, C/G * prod(*)) and layer-normalised over the last
    axis with the layer-norm primitive.
    """
    input = as_tensor(input)
    if input.ndim < 2:
        raise ValueError(f"group_norm: expected input (N, C, *), got shape {input.shape}")
    channels = input.shape[1]
    if channels % num_groups:
        raise ValueError(f"group_norm: {channels} channels cannot be split into {num_groups} "
                         "equal groups; num_channels must be divisible by num_groups")
    per_group = channels // num_groups * int(np.prod(input.shape[2:]))
    grouped = ops.reshape(input, (input.shape[0], num_groups, per_group))
    normed = ops.layer_norm(grouped, (grouped.shape[-1],), eps=eps)
    out = ops.reshape(normed, input.shape)
    per_channel = (1, channels) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = ops.mul(out, ops.reshape(weight, per_channel))
    if bias is not None:
        out = ops.add(out, ops.reshape(bias, per_channel))
    return out

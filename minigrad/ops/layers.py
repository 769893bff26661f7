"""The neural-network functions: convolution, pooling, dropout, embedding, normalisation, losses.

Signatures follow ``torch.nn.functional`` (``minigrad.nn.functional`` re-exports
them). Each checks its arguments here, once, then applies one primitive.
Constants (ids, class targets, masks, running statistics) travel as keyword
arguments; everything differentiable is an array input.
"""
import warnings

import numpy as np

from .. import ops
from ..autograd import Context
from ..random import generator
from ..tensor import Tensor, as_tensor
from .registry import REGISTRY
from . import conv, pool, masking, lookup, normalization, loss  # noqa: F401 (registers them)
from .loss import REDUCTIONS, check_reduction  # noqa: F401 (re-exported by minigrad.ops)
from .windows import pair


_array = ops._array  # the NumPy array behind a Tensor or array-like (never differentiated)
builtins_max = ops.builtin_max


def _float_like(x, reference):
    """A target given as a plain array or integer tensor takes the reference's float dtype."""
    if isinstance(x, Tensor) and x.dtype.kind == "f":
        return x
    return Tensor(_array(x), dtype=reference.dtype, _copy=False)


def _batched(x, op, image_axes=3):
    """(x with a batch axis, whether one was added): layers also take one unbatched sample."""
    x = as_tensor(x)
    if x.ndim == image_axes:
        return ops.reshape(x, (1,) + x.shape), True
    if x.ndim != image_axes + 1:
        raise ValueError(f"{op}: expected an unbatched 3-D (C, H, W) or a 4-D input (N, C, H, W), "
                         f"got shape {x.shape}")
    return x, False


def _unbatched(out, added):
    return ops.reshape(out, out.shape[1:]) if added else out


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C, H, W) (or unbatched (C, H, W)) with weight (O, C / groups, kh, kw).

    ``groups`` > 1 splits the channels into that many independent convolutions
    (one primitive each) whose outputs are joined.
    """
    x, added = _batched(x, "conv2d")
    weight = as_tensor(weight)
    if isinstance(padding, str):
        x, padding = _string_padding(x, weight, padding, stride, dilation)
    options = dict(stride=pair(stride, "stride", 1), padding=pair(padding, "padding"),
                   dilation=pair(dilation, "dilation", 1))
    if groups == 1:
        inputs = (x, weight) if bias is None else (x, weight, bias)
        return _unbatched(REGISTRY["conv2d"].apply(*inputs, **options), added)
    if x.shape[1] % groups or weight.shape[0] % groups:
        raise ValueError(f"conv2d: groups={groups} must divide the input channels ({x.shape[1]}) "
                         f"and the output channels ({weight.shape[0]})")
    pieces = zip(ops.chunk(x, groups, dim=1), ops.chunk(weight, groups, dim=0),
                 ops.chunk(bias, groups, dim=0) if bias is not None else [None] * groups)
    outs = [REGISTRY["conv2d"].apply(*((xg, wg) if bg is None else (xg, wg, bg)), **options)
            for xg, wg, bg in pieces]
    return _unbatched(ops.cat(outs, dim=1), added)


def _string_padding(x, weight, padding, stride, dilation):
    """padding='valid' (none) or 'same' (output size = input size, stride 1), as torch.

    An even kernel reach cannot be padded equally on both sides: like torch, the
    extra row and column go after (bottom, right), padded here explicitly.
    """
    if padding == "valid":
        return x, 0
    if padding != "same":
        raise ValueError(f"conv2d: padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    if pair(stride, "stride", 1) != (1, 1):
        raise ValueError(f"conv2d: padding='same' needs stride 1, got stride {stride}")
    reach = [d * (k - 1) for d, k in zip(pair(dilation, "dilation", 1), weight.shape[-2:])]
    if any(r % 2 for r in reach):
        x = ops.pad(x, [(0, 0), (0, 0), (0, reach[0] % 2), (0, reach[1] % 2)])
    return x, (reach[0] // 2, reach[1] // 2)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each (kh, kw) window of (N, C, H, W) or (C, H, W); ``stride`` defaults to the kernel.

    ``ceil_mode``: a last, partial window where the input does not divide evenly (as torch).
    ``return_indices``: also each maximum's position in its (H, W) plane, flattened.
    """
    x, added = _batched(x, "max_pool2d")
    kernel = pair(kernel_size, "kernel_size", 1)
    stride = kernel if stride is None or stride in ((), []) else pair(stride, "stride", 1)
    options = dict(kernel_size=kernel, stride=stride, padding=pair(padding, "padding"),
                   dilation=pair(dilation, "dilation", 1))
    height, width = x.shape[2:]
    if ceil_mode:
        x = _ceil_overhang(x, **options)
    out = REGISTRY["max_pool2d"].apply(x, **options)
    if not return_indices:
        return _unbatched(out, added)
    ctx = Context()   # the primitive's forward names each window's winner; turn it into positions
    REGISTRY["max_pool2d"].forward(ctx, x.data, **options)
    indices = Tensor(pool.winner_positions(ctx, width), dtype=np.int64, _copy=False)
    return _unbatched(out, added), _unbatched(indices, added)


def _ceil_overhang(x, kernel_size, stride, padding, dilation, value=-np.inf):
    """``x`` with rows/columns of ``value`` after it, so a last partial window fits (ceil_mode).

    A last window must start inside the input or its left padding, as in torch.
    """
    extra = []
    for axis in (0, 1):
        size, reach = x.shape[2 + axis], dilation[axis] * (kernel_size[axis] - 1) + 1
        count = -(-(size + 2 * padding[axis] - reach) // stride[axis]) + 1
        if (count - 1) * stride[axis] >= size + padding[axis]:
            count -= 1
        extra.append(builtins_max(0, (count - 1) * stride[axis] + reach - size - 2 * padding[axis]))
    if not any(extra):
        return x
    return ops.pad(x, [(0, 0), (0, 0), (0, extra[0]), (0, extra[1])], value=value)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over each (kh, kw) window; padded zeros count unless ``count_include_pad=False``.

    ``ceil_mode``: a last, partial window where the input does not divide evenly; as
    in torch it averages over the part of the window inside the padded input.
    """
    x, added = _batched(x, "avg_pool2d")
    stride = None if stride in ((), []) else stride            # torch: empty means the kernel
    if not ceil_mode:
        out = REGISTRY["avg_pool2d"].apply(x, kernel_size=kernel_size, stride=stride,
                                           padding=padding, count_include_pad=count_include_pad,
                                           divisor_override=divisor_override)
        return _unbatched(out, added)
    kernel = pair(kernel_size, "kernel_size", 1)
    options = dict(kernel_size=kernel, stride=kernel if stride is None else pair(stride, "stride", 1),
                   padding=pair(padding, "padding"))
    size = x.shape[2:]
    sums = REGISTRY["avg_pool2d"].apply(_ceil_overhang(x, dilation=(1, 1), value=0.0, **options),
                                        divisor_override=1, **options)
    if divisor_override is None:
        divisor = _window_counts(size, sums.shape[2:], count_include_pad, **options)
    else:
        divisor = np.asarray(divisor_override)
    return _unbatched(ops.div(sums, Tensor(divisor, dtype=x.dtype)), added)


def _window_counts(size, out_hw, count_include_pad, kernel_size, stride, padding):
    """torch's avg_pool2d divisor per output: the window's part inside the padded input, or
    (count_include_pad=False) inside the input itself."""
    counts = []
    for axis in (0, 1):
        start = np.arange(out_hw[axis]) * stride[axis] - padding[axis]
        end = np.minimum(start + kernel_size[axis], size[axis] + padding[axis])
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size[axis])
        counts.append(end - start)
    return np.outer(counts[0], counts[1])


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
    mask = generator().random(x.shape) >= p      # kept with probability 1 - p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return REGISTRY["dropout"].apply(x, mask=mask, scale=scale)


def embedding(ids, weight, padding_idx=None, max_norm=None, scale_grad_by_freq=False):
    """Rows of ``weight`` (num_embeddings, dim) picked by integer ``ids`` of any shape."""
    if max_norm is not None or scale_grad_by_freq:
        raise NotImplementedError("minigrad's embedding does not support max_norm or "
                                  "scale_grad_by_freq")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return REGISTRY["embedding"].apply(weight, ids=_array(ids), padding_idx=padding_idx)


def _affine_inputs(weight, bias):
    if weight is not None and bias is not None:   # the usual case, without the lists below
        return (weight, bias), ("weight", "bias")
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


def _batch_norm_of_a_vector(x, *statistics_and_affine):
    """torch reads a 1-D input as (N,) with no channel axis, i.e. 0 channels: only an empty
    input with empty statistics runs (its output is empty); anything else is an error."""
    sizes = [np.size(_array(t)) for t in statistics_and_affine if t is not None]
    if x.shape != (0,) or any(sizes):
        raise ValueError(f"batch_norm expects input shaped (N, C), (N, C, L) or (N, C, H, W), got "
                         f"shape {x.shape}: a 1-D input has no channel axis; for one sample of C "
                         f"features pass input.reshape(1, -1)")
    return x.clone()


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over every axis but the channel axis 1, as ``F.batch_norm``.

    training=True: normalise with the batch statistics (gradient flows through them)
    and, when running buffers are given, update them in place:
    ``running = (1 - momentum) * running + momentum * batch`` with the *unbiased*
    batch variance, as torch. training=False: normalise with the running buffers.
    """
    x = as_tensor(input)
    if x.ndim == 1:
        return _batch_norm_of_a_vector(x, running_mean, running_var, weight, bias)
    arrays, params = _affine_inputs(weight, bias)
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm(training=False) needs running_mean and running_var; "
                             "pass training=True to normalise with batch statistics")
        # copies: the record of this op must not change when the buffers are updated later
        return REGISTRY["batch_norm"].apply(
            x, *arrays, training=False, mean=np.array(_array(running_mean)),
            var=np.array(_array(running_var)), eps=eps, params=params)
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
    (N, d1, ...) - kept integer - or float class probabilities shaped like ``input``
    (a tensor that requires grad gets its gradient). ``weight``: per-class weights
    (a constant).
    """
    if isinstance(weight, str):
        raise TypeError(f"cross_entropy: the third argument is the class weight; pass "
                        f"reduction={weight!r} as a keyword")
    options = dict(weight=None if weight is None else _array(weight), reduction=reduction,
                   ignore_index=ignore_index, label_smoothing=label_smoothing)
    if isinstance(target, Tensor) and target.requires_grad:
        # class probabilities that are themselves learned: a second array input
        return REGISTRY["cross_entropy"].apply(input, target, **options)
    return REGISTRY["cross_entropy"].apply(input, target=_array(target), **options)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error; gradients flow to both input and (float) target."""
    input = as_tensor(input)
    target = _float_like(target, input)
    if input.shape != target.shape:
        warnings.warn(
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
    pos_weight = None if pos_weight is None else _array(pos_weight)
    if weight is None:
        return REGISTRY["bce_with_logits"].apply(input, target, reduction=reduction, pos_weight=pos_weight)
    check_reduction("binary_cross_entropy_with_logits", reduction)
    per_element = ops.mul(REGISTRY["bce_with_logits"].apply(input, target, reduction="none",
                                                            pos_weight=pos_weight),
                          _float_like(weight, input))
    if reduction == "none":
        return per_element
    return ops.sum(per_element) if reduction == "sum" else ops.mean(per_element)

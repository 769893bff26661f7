"""Layer normalisation and batch normalisation, with their full backward passes.

Both compute ``xhat = (x - mean) / sqrt(var + eps)`` over some axes, then
``y = xhat * weight + bias``. They differ only in *which* axes: layer norm
normalises each sample over its last dimensions; batch norm normalises each
channel over the batch (and spatial) axes.

When mean and var are computed from x itself they depend on x, and the
gradient must flow through them too. With ``gx = dL/dxhat`` and ``m`` values per
group, the three paths (direct, through the mean, through the variance) sum to

    dL/dx = rstd * (gx - mean(gx) - xhat * mean(gx * xhat))

(the mean of gx removes the shift, the last term the scale). In evaluation mode
batch norm uses running statistics, constants, and only the direct path is left:
``dL/dx = rstd * gx``.

Weight and bias are optional. The primitive only receives the arrays that exist;
the ``params`` keyword names them in order, e.g. ``("weight", "bias")``, ``("bias",)``
or ``()``, so its inputs and its gradients are exactly the real ones.
"""
import numpy as np

from ..autograd import Function
from . import buffers
from .axis_reductions import mean_last, ones, sum_leading
from .registry import register

PARAM_NAMES = ("weight", "bias")


def _split_params(op, arrays, params):
    if params == PARAM_NAMES and len(arrays) == 2:   # the usual case: both, in order
        return arrays
    params = tuple(params)
    if any(p not in PARAM_NAMES for p in params) or len(set(params)) != len(params):
        raise ValueError(f"{op}: params must name distinct entries of {PARAM_NAMES}, got {params}")
    if len(arrays) != len(params):
        raise ValueError(f"{op}: params={params} names {len(params)} arrays after the input, "
                         f"but {len(arrays)} were given")
    found = dict(zip(params, arrays))
    return found.get("weight"), found.get("bias")


def _mean(x, axes):
    """Mean over ``axes``, kept as size-1 axes; layer norm's last axis the faster way."""
    if axes == (x.ndim - 1,):
        return mean_last(x)
    return x.mean(axis=axes, keepdims=True)


def _normalize(x, axes, eps, mean=None, var=None):
    if x.dtype.kind == "f" and (mean is None or mean.dtype == x.dtype):
        return _normalize_floats(x, axes, eps, mean, var)
    if mean is None:
        mean = _mean(x, axes)
        centered = x - mean
        var = _mean(centered * centered, axes)  # biased, as torch normalises
    else:
        centered = x - mean
    rstd = 1.0 / np.sqrt(var + eps)
    return (centered * rstd).astype(x.dtype, copy=False), rstd.astype(x.dtype, copy=False)


def _normalize_floats(x, axes, eps, mean, var):
    """``_normalize`` for a float x, in two new arrays (xhat, and one scratch array)."""
    centered = np.subtract(x, _mean(x, axes) if mean is None else mean, out=buffers.empty_like(x))
    if mean is None:
        var = _mean(np.multiply(centered, centered, out=buffers.empty_like(x)), axes)
    rstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    centered *= rstd
    return centered, rstd


def _through_statistics(grad_xhat, xhat, rstd, axes, owned=False):
    """dL/dx when mean and variance were computed from x over ``axes`` (see module doc).

    ``owned``: grad_xhat is this backward's own new array, so the result may be written
    over it; otherwise it is the incoming gradient, which is left as it is.
    """
    if grad_xhat.dtype != xhat.dtype or xhat.dtype.kind != "f":
        return rstd * (grad_xhat - _mean(grad_xhat, axes) - xhat * _mean(grad_xhat * xhat, axes))
    scratch = np.multiply(grad_xhat, xhat, out=buffers.empty_like(xhat))
    scale_term = _mean(scratch, axes)
    np.multiply(xhat, scale_term, out=scratch)
    out = grad_xhat if owned else buffers.empty_like(xhat)
    np.subtract(grad_xhat, _mean(grad_xhat, axes), out=out)
    out -= scratch
    out *= rstd
    return out


def _times(a, b):
    """``a * b`` where ``b`` broadcasts to ``a``: in a reused array when the dtypes agree."""
    if a.dtype != b.dtype:
        return a * b
    return np.multiply(a, b, out=buffers.empty_like(a))


def _affine(xhat, weight, bias, param_shape):
    same = all(p is None or p.dtype == xhat.dtype for p in (weight, bias))
    if same and (weight is not None or bias is not None):
        out = buffers.empty_like(xhat)
        if weight is not None:
            np.multiply(xhat, weight.reshape(param_shape), out=out)
            if bias is not None:
                out += bias.reshape(param_shape)
        else:
            np.add(xhat, bias.reshape(param_shape), out=out)
        return out
    out = xhat
    if weight is not None:
        out = out * weight.reshape(param_shape)
    if bias is not None:
        out = out + bias.reshape(param_shape)
    return out


def _affine_backward(ctx, grad, xhat, weight, param_axes):
    """Gradients of (weight, bias) in the order the primitive received them, and dL/dxhat."""
    grads = {}
    leading = param_axes == tuple(range(len(param_axes)))   # layer norm: sum_leading is faster
    total = (lambda g: sum_leading(g, len(param_axes))) if leading else \
        (lambda g: g.sum(axis=param_axes))
    if weight is not None:
        grads["weight"] = total(_times(grad, xhat)).reshape(weight.shape)
    if "bias" in ctx.params:
        grads["bias"] = total(grad).reshape(ctx.bias_shape)
    grad_xhat = grad if weight is None else _times(grad, weight.reshape(ctx.param_shape))
    return tuple(grads[name] for name in ctx.params), grad_xhat


@register("layer_norm")
class LayerNorm(Function):
    """Inputs: (x, *params) with params named by the ``params`` keyword."""

    @staticmethod
    def forward(ctx, x, *affine, normalized_shape=None, eps=1e-5, params=PARAM_NAMES):
        if _is_usual_layer_norm(x, affine, normalized_shape, params):
            return _last_axis_forward(ctx, x, affine[0], affine[1], eps)
        if normalized_shape is None:
            shape = x.shape[-1:]
        elif type(normalized_shape) is tuple and all(type(s) is int for s in normalized_shape):
            shape = normalized_shape
        else:
            shape = tuple(int(s) for s in np.atleast_1d(normalized_shape))
        if len(shape) == 0 or len(shape) > x.ndim or x.shape[x.ndim - len(shape):] != shape:
            raise ValueError(
                f"layer_norm: normalized_shape {shape} must equal the last dimensions of the input, "
                f"but the input has shape {x.shape}; pass normalized_shape={x.shape[-1:]} to "
                "normalise over the last axis")
        weight, bias = _split_params("layer_norm", affine, params)
        for name, p in (("weight", weight), ("bias", bias)):
            if p is not None and p.shape != shape:
                raise ValueError(f"layer_norm: {name} has shape {p.shape}, expected normalized_shape "
                                 f"{shape}")
        axes = tuple(range(x.ndim - len(shape), x.ndim))
        xhat, rstd = _normalize(x, axes, eps)
        ctx.params, ctx.axes, ctx.param_shape, ctx.bias_shape = tuple(params), axes, shape, shape
        ctx.save_for_backward(xhat, rstd, weight)
        return _affine(xhat, weight, bias, shape)

    @staticmethod
    def backward(ctx, grad):
        xhat, rstd, weight = ctx.saved_tensors
        if weight is not None and len(ctx.axes) == 1 and grad.dtype == xhat.dtype == \
                weight.dtype and xhat.dtype.kind == "f" and xhat.size:
            return _last_axis_backward(ctx, grad, xhat, rstd, weight)
        leading = tuple(range(grad.ndim - len(ctx.param_shape)))
        param_grads, grad_xhat = _affine_backward(ctx, grad, xhat, weight, leading)
        owned = grad_xhat is not grad
        return (_through_statistics(grad_xhat, xhat, rstd, ctx.axes, owned),) + param_grads


def _is_usual_layer_norm(x, affine, normalized_shape, params):
    """A transformer's layer norm: over the last axis, with weight and bias, all one float dtype,
    arguments as ``ops.layer_norm`` passes them (so the checks below ``forward``'s first line
    would all pass)."""
    if len(affine) != 2 or params != PARAM_NAMES or type(normalized_shape) is not tuple \
            or len(normalized_shape) != 1 or x.ndim == 0 or x.shape[-1:] != normalized_shape:
        return False
    weight, bias = affine
    return x.dtype.kind == "f" and x.dtype == weight.dtype == bias.dtype and x.size > 0 and \
        weight.shape == bias.shape == normalized_shape


def _last_axis_forward(ctx, x, weight, bias, eps):
    """The usual layer norm's forward (see ``_is_usual_layer_norm``), with the same arithmetic as
    the general path (``_normalize`` then ``_affine``), in fewer Python steps.

    It runs once per layer norm of every transformer block, on rows as short as 48, where the
    general path's checks and helper calls cost more than its arithmetic; the ctx it fills is the
    general path's (the backward and the bug catalogue's planted backward read it).
    """
    n = x.shape[-1]
    row_shape = x.shape[:-1] + (1,)
    average = ones(n, x.dtype)
    mean = (x.reshape(-1, n) @ average).reshape(row_shape)
    mean *= 1.0 / n
    xhat = np.subtract(x, mean, out=buffers.empty_like(x))
    square = np.multiply(xhat, xhat, out=buffers.empty_like(x))
    var = (square.reshape(-1, n) @ average).reshape(row_shape)
    var *= 1.0 / n
    var += eps
    rstd = np.divide(1.0, np.sqrt(var, out=var), out=var)
    xhat *= rstd
    out = np.multiply(xhat, weight, out=square)
    out += bias
    shape = x.shape[-1:]
    ctx.params, ctx.axes, ctx.param_shape, ctx.bias_shape = PARAM_NAMES, (x.ndim - 1,), shape, shape
    ctx.save_for_backward(xhat, rstd, weight)
    return out


def _last_axis_backward(ctx, grad, xhat, rstd, weight):
    """The usual layer norm's backward (over the last axis, with a weight) in fewer passes.

    With gx = grad * weight, the formula's two row means come from products made anyway:
    mean(gx) = (grad @ weight) / n, and mean(gx * xhat) = ((grad * xhat) @ weight) / n,
    where grad * xhat also gives the weight's gradient.
    """
    n, lead = xhat.shape[-1], xhat.ndim - 1
    row_shape = xhat.shape[:-1] + (1,)
    grad_xhat = np.multiply(grad, xhat, out=buffers.empty_like(xhat))
    grads = {"weight": sum_leading(grad_xhat, lead)}
    if "bias" in ctx.params:
        grads["bias"] = sum_leading(grad, lead)
    mean_gx = (grad.reshape(-1, n) @ weight).reshape(row_shape)
    mean_gx_xhat = (grad_xhat.reshape(-1, n) @ weight).reshape(row_shape)
    mean_gx *= 1.0 / n
    mean_gx_xhat *= 1.0 / n
    out = np.multiply(grad, weight, out=buffers.empty_like(xhat))
    out -= mean_gx
    scratch = grad_xhat if lead else buffers.empty_like(xhat)   # 1-D: grad_xhat is the
    out -= np.multiply(xhat, mean_gx_xhat, out=scratch)         # weight's gradient itself
    out *= rstd
    return (out,) + tuple(grads[name] for name in ctx.params)


@register("batch_norm")
class BatchNorm(Function):
    """Inputs: (x, *params). ``training=True``: normalise with the batch's own mean and
    (biased) variance, computed here from x, so the gradient flows through them.
    ``training=False``: normalise with the given ``mean``/``var`` (running statistics),
    which are constants.

    Batch statistics are computed inside, not passed in, so that the primitive is a
    function of x alone: re-running it on a perturbed x (a finite-difference check)
    renormalises with that x's statistics, exactly what the backward differentiates.
    """

    @staticmethod
    def forward(ctx, x, *affine, training=True, mean=None, var=None, eps=1e-5, params=PARAM_NAMES):
        if x.ndim < 2:
            raise ValueError(f"batch_norm expects input shaped (N, C), (N, C, L) or (N, C, H, W), "
                             f"got shape {x.shape}")
        channels = x.shape[1]
        weight, bias = _split_params("batch_norm", affine, params)
        for name, p in (("weight", weight), ("bias", bias), ("running mean", mean), ("running var", var)):
            if p is not None and np.shape(p) != (channels,):
                raise ValueError(f"batch_norm: {name} has shape {np.shape(p)}, expected ({channels},) "
                                 f"- one value per channel of the input {x.shape} (channels are axis 1)")
        axes = (0,) + tuple(range(2, x.ndim))
        param_shape = (1, channels) + (1,) * (x.ndim - 2)
        if training:
            if mean is not None or var is not None:
                raise ValueError("batch_norm(training=True) computes the batch statistics itself; "
                                 "pass mean/var only with training=False")
            if x.size // channels <= 1:
                raise ValueError(f"batch_norm in training mode needs more than one value per channel "
                                 f"to estimate a variance, got input shape {x.shape}")
            xhat, rstd = _normalize(x, axes, eps)
        else:
            if mean is None or var is None:
                raise ValueError("batch_norm(training=False) needs the running mean and var to "
                                 "normalise with (or use training=True for batch statistics)")
            xhat, rstd = _normalize(x, axes, eps, np.asarray(mean, x.dtype).reshape(param_shape),
                                    np.asarray(var, x.dtype).reshape(param_shape))
        ctx.params, ctx.axes, ctx.training = tuple(params), axes, training
        ctx.param_shape, ctx.bias_shape = param_shape, (channels,)
        ctx.save_for_backward(xhat, rstd, weight)
        return _affine(xhat, weight, bias, param_shape)

    @staticmethod
    def backward(ctx, grad):
        xhat, rstd, weight = ctx.saved_tensors
        param_grads, grad_xhat = _affine_backward(ctx, grad, xhat, weight, ctx.axes)
        if ctx.training:
            grad_x = _through_statistics(grad_xhat, xhat, rstd, ctx.axes, grad_xhat is not grad)
        else:
            grad_x = grad_xhat * rstd
        return (grad_x,) + param_grads

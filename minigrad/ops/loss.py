"""Loss functions as fused primitives: cross-entropy, mean squared error, BCE with logits.

Fusing matters for cross-entropy and BCE: computed as ``-log(softmax(z)[y])`` or
``-log(sigmoid(z))`` the intermediate probability underflows to 0 for confident
wrong predictions and the loss becomes inf. Working with log-probabilities
(log-sum-exp with the max subtracted, softplus written with ``log1p``) keeps both
the loss and its gradient finite, and the gradient takes its simple closed form:
``softmax(z) - onehot(y)`` for cross-entropy, ``sigmoid(z) - y`` for BCE.

Integer class targets are keyword constants (never differentiated); float targets
of mse/bce are array inputs and get gradients, as in torch.
"""
import numpy as np

from ..autograd import Function
from . import buffers
from .activation import shifted_exp, stable_sigmoid
from .axis_reductions import max_last, sum_last
from .registry import register, unbroadcast

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(op, reduction, allowed=REDUCTIONS):
    """The one check of every loss's ``reduction`` argument (kl_div adds "batchmean")."""
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {allowed}, got {reduction!r}")


def _reduce(per_element, reduction, count=None):
    if reduction == "none":
        return per_element
    total = per_element.sum()
    if reduction == "sum":
        return np.asarray(total)
    count = per_element.size if count is None else count
    with np.errstate(invalid="ignore", divide="ignore"):  # nothing counted: nan, as torch
        return np.asarray(total / count, dtype=per_element.dtype)


def _spread(grad, shape, reduction, count=None):
    """The gradient of each per-element loss, given the gradient of the reduced loss."""
    if reduction == "none":
        return grad
    if reduction == "mean":
        count = int(np.prod(shape)) if count is None else count
        with np.errstate(invalid="ignore", divide="ignore"):
            grad = grad / np.asarray(count, dtype=grad.dtype)
    return np.broadcast_to(grad, shape)


def _log_softmax_rows(z):
    if z.dtype.kind != "f":
        shifted = z - max_last(z)
        return shifted - np.log(sum_last(np.exp(shifted)))
    log_probs, _, sums = shifted_exp(z, keep_shifted=True)
    log_probs -= np.log(sums)
    return log_probs


def _cross_entropy_target(logits, target, batch_shape, ignore_index):
    """Validate the target; returns (kind, target, in_range) with kind "index" or "probability",
    and in_range True when every target lies in 0..classes-1 (whether ignore_index is one of
    those classes is the caller's to check)."""
    if target is None:
        raise ValueError("cross_entropy needs a target: class indices or class probabilities")
    target = np.asarray(target)
    expected = f"{batch_shape} (one integer class index per sample)"
    if target.dtype.kind == "f":
        if target.shape == logits.shape:
            return "probability", target, False
        raise TypeError(
            f"cross_entropy: target has dtype {target.dtype} and shape {target.shape}, but class "
            f"targets must be integers of shape {expected}; convert with target.astype(np.int64) "
            f"(tensor.long()), or pass class probabilities with the input's shape {logits.shape}")
    if target.dtype.kind not in "iu":
        raise TypeError(f"cross_entropy: target must hold integer class indices, got dtype {target.dtype}")
    if target.shape != batch_shape:
        hint = ""
        if target.shape == logits.shape:
            hint = " It has the input's shape: if it is one-hot, pass target.argmax(axis=1) instead."
        elif target.size == int(np.prod(batch_shape)):
            hint = f" Reshape it with target.reshape{batch_shape}."
        raise ValueError(f"cross_entropy: target has shape {target.shape}, but for input of shape "
                         f"{logits.shape} the expected target shape is {expected}.{hint}")
    classes = logits.shape[1] if logits.ndim > 1 else logits.shape[0]
    if target.size and 0 <= target.min() and target.max() < classes:
        return "index", target, True   # every id a class (the usual case): no mask to build
    used = target[target != ignore_index]
    if used.size and (used.min() < 0 or used.max() >= classes):
        bad = int(used.min() if used.min() < 0 else used.max())
        raise IndexError(f"cross_entropy: target contains class {bad}, but the input has {classes} "
                         f"classes, so targets must lie in 0..{classes - 1} (or equal "
                         f"ignore_index={ignore_index})")
    return "index", target, False


@register("cross_entropy")
class CrossEntropy(Function):
    """Softmax + negative log-likelihood in one stable step, as ``F.cross_entropy``.

    Input (N, C) or (N, C, d1, ...) logits, or (C,) for one sample; target integer
    indices of shape (N, d1, ...) (a keyword constant), or float class
    probabilities of the input's shape. ``weight`` (C,), ``ignore_index`` and
    ``label_smoothing`` as in torch. With class weights w and smoothing eps, a
    sample of class y loses

        (1 - eps) * w_y * (-log p_y) + eps / C * sum_c w_c * (-log p_c)

    and "mean" divides the total by sum of w_y over the samples not ignored.
    The gradient with respect to the logits, using d(-log p_k)/dz = p - onehot(k), is

        (1 - eps) * w_y * (p - onehot(y)) + eps / C * (sum(w) * p - w).
    """

    @staticmethod
    def forward(ctx, logits, *learned_target, target=None, weight=None, reduction="mean",
                ignore_index=-100, label_smoothing=0.0):
        # class probabilities that require grad come as a second array input, not a keyword
        if learned_target:
            target = learned_target[0]
        ctx.target = target   # read by tools that inspect the graph (nndebug's loss capture)
        check_reduction("cross_entropy", reduction)
        if logits.ndim == 0:
            raise ValueError("cross_entropy expects logits of shape (N, C), got a scalar")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
        batch_shape = (logits.shape[0],) + logits.shape[2:] if logits.ndim > 1 else ()
        kind, target, in_range = _cross_entropy_target(logits, target, batch_shape, ignore_index)
        classes = logits.shape[1] if logits.ndim > 1 else logits.shape[0]
        if in_range and weight is None and not label_smoothing and logits.ndim == 2 \
                and logits.dtype.kind == "f" and not 0 <= ignore_index < classes:
            return _usual_cross_entropy(ctx, logits, target, reduction)
        unweighted = weight
        if weight is None:
            weight = np.ones(classes, dtype=logits.dtype)
        weight = np.asarray(weight, dtype=logits.dtype)
        if weight.shape != (classes,):
            raise ValueError(f"cross_entropy: weight must hold one value per class, shape "
                             f"({classes},), got {weight.shape}")
        rows = logits if logits.ndim == 2 else \
            np.moveaxis(logits, 1, -1).reshape(-1, classes) if logits.ndim > 1 else logits[None]
        log_probs = _log_softmax_rows(rows)
        eps = label_smoothing
        if kind == "probability":
            probs = np.moveaxis(target, 1, -1).reshape(-1, classes) if logits.ndim > 1 else target[None]
            # the weighted, smoothed target distribution q: loss = -sum_c q_c log p_c
            probs = (probs.astype(logits.dtype) * (1 - eps) + eps / classes) * weight
            per_row = -(probs * log_probs).sum(axis=-1)
            valid, count = None, None
        else:
            flat = target.reshape(-1)
            valid = flat != ignore_index
            picked = np.where(valid, flat, 0)
            class_weight = valid.astype(logits.dtype) if unweighted is None else \
                weight[picked] * valid
            nll = -log_probs[np.arange(len(flat)), picked]
            per_row = (1 - eps) * class_weight * nll
            if eps:   # label smoothing: the uniform part of the target
                smooth = -sum_last(log_probs * weight, keepdims=False) / classes
                per_row = per_row + eps * smooth * valid
            probs, count = picked, class_weight.sum()
        ctx.save_for_backward(log_probs)
        ctx.kind, ctx.probs, ctx.valid, ctx.count, ctx.weight = kind, probs, valid, count, weight
        ctx.eps, ctx.reduction = eps, reduction
        ctx.logits_shape, ctx.batch_shape = logits.shape, batch_shape
        per_row = per_row.astype(logits.dtype, copy=False)
        return _reduce(per_row.reshape(batch_shape), reduction, count)

    @staticmethod
    def backward(ctx, grad):
        if ctx.kind == "usual":
            return (_usual_gradient(ctx, grad),)
        (log_probs,) = ctx.saved_tensors
        if ctx.kind == "index" and not ctx.eps and len(ctx.needs_input_grad) == 1:
            return (_index_target_gradient(ctx, grad, log_probs),)
        softmax = np.exp(log_probs)
        classes = log_probs.shape[-1]
        if ctx.kind == "probability":
            # d/dz [-sum_c q_c log p_c] = p * sum_c q_c - q
            local = softmax * ctx.probs.sum(axis=-1, keepdims=True) - ctx.probs
        else:
            picked, eps, weight = ctx.probs, ctx.eps, ctx.weight
            rows = np.arange(len(picked))
            class_weight = (weight[picked] * ctx.valid)[:, None]
            local = (1 - eps) * class_weight * softmax
            local[rows, picked] -= (1 - eps) * class_weight[:, 0]
            if eps:
                local += eps / classes * (weight.sum() * softmax - weight) * ctx.valid[:, None]
        per_row_grad = _spread(grad, ctx.batch_shape, ctx.reduction, ctx.count).reshape(-1, 1)
        grads = [local * per_row_grad]
        if len(ctx.needs_input_grad) > 1:
            # a learned probability target q: d/dq_c [-sum_c q'_c w_c log p_c] = -(1 - eps) w_c log p_c
            grads.append(-(1 - ctx.eps) * ctx.weight * log_probs * per_row_grad)
        return tuple(_rows_to_logits_layout(g.astype(log_probs.dtype, copy=False), ctx.logits_shape)
                     for g in grads)


def _usual_cross_entropy(ctx, logits, target, reduction):
    """The usual case (N, C) logits, class ids that are all valid, no weights, no smoothing:
    the general path's loss, with the same arithmetic, from fewer passes over the logits.

    Only the picked entries of the log-probabilities ``shifted - log(sums)`` enter the loss,
    so the full array is not made (``log(sums) - shifted[y]`` is exactly ``-log p_y``), and
    the backward takes softmax as ``exps / sums`` from the exponentials made here, where the
    general path takes ``exp`` of the log-probabilities once more. ctx.kind "usual" sends
    the backward (the correct one, or one the bug catalogue plants) to ``_usual_gradient``.
    """
    shifted, exps, sums = shifted_exp(logits, keep_shifted=True)
    picked = np.asarray(target).reshape(-1)
    nll = np.log(sums)[:, 0] - shifted[np.arange(len(picked)), picked]
    count = logits.dtype.type(len(picked))   # every sample counts once
    ctx.save_for_backward(exps, sums)
    ctx.kind, ctx.probs, ctx.count, ctx.eps, ctx.reduction = "usual", picked, count, 0.0, reduction
    ctx.logits_shape, ctx.batch_shape = logits.shape, picked.shape
    return _reduce(nll, reduction, count)


def _usual_gradient(ctx, grad):
    """``(softmax - onehot(y)) g`` per row (g: each sample's share of the loss's gradient), in
    one new array: softmax is ``exps / sums``, so the row scale ``g / sums`` is one pass."""
    exps, sums = ctx.saved_tensors
    per_row_grad = _spread(grad, ctx.batch_shape, ctx.reduction, ctx.count).reshape(-1, 1)
    local = np.multiply(exps, per_row_grad / sums, out=buffers.empty_like(exps))
    local[np.arange(len(ctx.probs)), ctx.probs] -= per_row_grad[:, 0]
    return local


def _index_target_gradient(ctx, grad, log_probs):
    """The usual case's gradient (class indices, no smoothing): (p - onehot(y)) w_y g, each
    row scaled by its class weight w_y and its loss's gradient g, in one new array."""
    picked = ctx.probs
    per_row_grad = _spread(grad, ctx.batch_shape, ctx.reduction, ctx.count).reshape(-1, 1)
    scale = (ctx.weight[picked] * ctx.valid)[:, None] * per_row_grad
    local = np.exp(log_probs, out=buffers.empty_like(log_probs))
    local *= scale
    local[np.arange(len(picked)), picked] -= scale[:, 0]
    return _rows_to_logits_layout(local, ctx.logits_shape)


def _rows_to_logits_layout(rows, shape):
    """Undo the (samples, classes) flattening: back to (C,) or (N, C, d1, ...)."""
    if len(shape) == 1:
        return rows[0]
    if len(shape) == 2:
        return rows
    moved = shape[:1] + shape[2:] + shape[1:2]
    return np.ascontiguousarray(np.moveaxis(rows.reshape(moved), -1, 1))


def _broadcast_or_explain(op, a, b, names=("input", "target")):
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"{op}: {names[0]} shape {a.shape} and {names[1]} shape {b.shape} cannot be "
                         "broadcast together; they should usually be equal") from None


@register("mse")
class MSE(Function):
    """Mean squared error ``(input - target)^2``, reduced; gradients to both sides."""

    @staticmethod
    def forward(ctx, input, target, reduction="mean"):
        check_reduction("mse_loss", reduction)
        _broadcast_or_explain("mse_loss", input, target)
        diff = input - target
        ctx.save_for_backward(diff)
        ctx.shapes, ctx.reduction = (input.shape, target.shape), reduction
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, grad):  # d(d^2)/d input = 2d,  d(d^2)/d target = -2d
        (diff,) = ctx.saved_tensors
        local = 2 * diff * _spread(grad, diff.shape, ctx.reduction)
        return unbroadcast(local, ctx.shapes[0]), unbroadcast(-local, ctx.shapes[1])


def _softplus(x):
    """log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|)."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


@register("bce_with_logits")
class BCEWithLogits(Function):
    """Binary cross-entropy on logits, ``F.binary_cross_entropy_with_logits``.

    Inputs (input, target); ``pos_weight`` is a keyword constant (torch does not
    differentiate it either). Per element, with ``w = 1 + (pos_weight - 1) * target``:
        loss = (1 - target) * x + w * softplus(-x)
    which is ``-[pos_weight * t log s(x) + (1 - t) log(1 - s(x))]`` written stably.
    Its derivatives: d/dx = (1 - t) - w * s(-x);  d/dt = -x + (pos_weight - 1) * softplus(-x).
    """

    @staticmethod
    def forward(ctx, input, target, reduction="mean", pos_weight=None):
        check_reduction("binary_cross_entropy_with_logits", reduction)
        if target.shape != input.shape:
            raise ValueError(f"binary_cross_entropy_with_logits: target shape {target.shape} must "
                             f"equal input shape {input.shape} (one 0/1 label per logit)")
        extra = 0.0  # pos_weight - 1
        if pos_weight is not None:
            pos_weight = np.asarray(pos_weight, dtype=input.dtype)
            try:
                fits = np.broadcast_shapes(pos_weight.shape, input.shape) == input.shape
            except ValueError:
                fits = False
            if not fits:
                raise ValueError(f"binary_cross_entropy_with_logits: pos_weight shape {pos_weight.shape}"
                                 f" must broadcast to the input shape {input.shape} (usually (classes,))")
            extra = pos_weight - 1
        soft = _softplus(-input)
        ctx.save_for_backward(input, target, soft)
        ctx.reduction, ctx.extra = reduction, extra
        per_element = ((1 - target) * input + (1 + extra * target) * soft).astype(input.dtype, copy=False)
        return _reduce(per_element, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t, soft = ctx.saved_tensors
        g = _spread(grad, x.shape, ctx.reduction)
        grad_input = g * ((1 - t) - (1 + ctx.extra * t) * stable_sigmoid(-x))
        grad_target = g * (-x + ctx.extra * soft)
        return grad_input.astype(x.dtype, copy=False), grad_target.astype(t.dtype, copy=False)

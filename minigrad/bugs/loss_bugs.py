"""Bugs in the backward of the fused loss primitives (cross-entropy, MSE, BCE with logits)."""
import copy

import numpy as np

from ..ops.activation import stable_sigmoid
from ..ops.registry import REGISTRY
from .base import constant, define, leaf, size



def _correct_backward(op):
    """The primitive's own backward, taken at import - before any bug can be planted."""
    cls = REGISTRY.get(op)
    return vars(cls)["backward"].__func__ if cls is not None and "backward" in vars(cls) else None


_CORRECT_CROSS_ENTROPY = _correct_backward("cross_entropy")
_CORRECT_BCE = _correct_backward("bce_with_logits")


def _primitive(op):
    return REGISTRY[op]


def _cross_entropy_example(rng):
    n, classes = size(rng, 2, 5), size(rng, 3, 5)
    logits = leaf(rng, (n, classes))
    target = rng.integers(0, classes, size=n)
    loss = _primitive("cross_entropy")
    return {"logits": logits}, lambda: loss.apply(logits, target=target, reduction="mean")


@define(
    name="cross_entropy_missing_batch_mean",
    op="cross_entropy",
    family="loss",
    summary="cross-entropy with reduction='mean' returns the gradient of the SUM: "
            "softmax - onehot, without dividing by the batch size",
    symptom="""The loss value is a mean but its gradient is batch-size times too large: a
        learning rate that works in the reference makes this run oscillate or diverge, and
        changing the batch size changes the behaviour dramatically.""",
    lesson="""
        For one sample, d(-log softmax(z)_y)/dz = softmax(z) - onehot(y). The loss with
        reduction="mean" is (1/N) * sum over the N samples, so each sample's gradient
        carries a factor 1/N:
            dL/dz_n = (softmax(z_n) - onehot(y_n)) / N
        The bug returns softmax - onehot for every row - the gradient of the summed loss
        while forward reports the mean. Forward and backward disagree by a factor N.

        Why nothing crashes: a factor changes no shape, and the direction of every step
        is right; only its size is N times too big.""",
    example=_cross_entropy_example,
)
def cross_entropy_missing_batch_mean(ctx, grad):
    # The learner's per-sample gradient (softmax - onehot, with class weights and label
    # smoothing) is right; only the last step, spreading the reduced loss's gradient over
    # the samples, treats "mean" like "sum". So this runs the correct backward with that
    # one decision changed rather than repeating its every line.
    as_sum = copy.copy(ctx)
    if as_sum.reduction == "mean":
        as_sum.reduction = "sum"
    return _CORRECT_CROSS_ENTROPY(as_sum, grad)


def _mse_example(rng):
    shape = (size(rng, 2, 5), size(rng, 1, 3))
    prediction, target = leaf(rng, shape), leaf(rng, shape)
    loss = _primitive("mse")
    return ({"prediction": prediction, "target": target},
            lambda: loss.apply(prediction, target, reduction="mean"))


@define(
    name="mse_missing_factor_two",
    op="mse",
    family="loss",
    summary="d(p - t)^2/dp is written as (p - t) instead of 2 (p - t)",
    symptom="""Regression trains at half speed, as if the learning rate were halved; nothing
        else looks wrong. Many people even think the 2 'does not matter' - it does when you
        compare against another framework or a tuned learning rate.""",
    lesson="""
        d/dp (p - t)^2 = 2 (p - t), and d/dt (p - t)^2 = -2 (p - t); with the mean over n
        elements each gets a further 1/n. The bug drops the 2 - usually because it was
        "absorbed" into a 1/2 in a textbook loss, (1/2)(p - t)^2, that this loss does not
        have. Forward computes the mean of (p - t)^2; backward differentiates half of it.

        Why nothing crashes: a factor of 2 changes no shape and no sign; the relative
        error in a gradient check is exactly 0.5 everywhere.""",
    example=_mse_example,
)
def mse_missing_factor_two(ctx, grad):
    from ..ops.registry import unbroadcast

    (diff,) = ctx.saved_tensors
    per_element = grad if ctx.reduction == "none" else np.broadcast_to(grad, diff.shape)
    if ctx.reduction == "mean":
        per_element = per_element / diff.size
    local = diff * per_element                               # the 2 is missing
    return unbroadcast(local, ctx.shapes[0]), unbroadcast(-local, ctx.shapes[1])


def _bce_example(rng):
    shape = (size(rng, 2, 5), size(rng, 1, 3))
    logits = leaf(rng, shape, low=-4.0, high=4.0)
    labels = constant(rng.integers(0, 2, size=shape), dtype=np.float64)
    loss = _primitive("bce_with_logits")
    return {"logits": logits}, lambda: loss.apply(logits, labels, reduction="mean")


@define(
    name="bce_with_logits_extra_sigmoid_factor",
    op="bce_with_logits",
    family="loss",
    summary="BCE-with-logits' gradient (s - t) is multiplied once more by the sigmoid's "
            "derivative s (1 - s)",
    symptom="""Confidently wrong predictions barely learn: their gradient vanishes
        (s (1 - s) ~ 0 when the logit is large), exactly the problem BCE-with-logits exists
        to avoid. Loss falls quickly at first, then stalls well above the reference.""",
    lesson="""
        With s = sigmoid(x), binary cross-entropy on logits has the simple derivative
            dL/dx = s - t
        because the 1/(s(1 - s)) from the log cancels the s(1 - s) of the sigmoid. The bug
        applies the chain rule "once more" and multiplies by s(1 - s), as if the loss
        were on probabilities and the sigmoid still had to be differentiated. The result
        is the gradient of a squared-error-like loss, which vanishes for saturated,
        confidently wrong logits.

        Why nothing crashes: s(1 - s) is elementwise and in (0, 0.25]; the sign of every
        gradient is still right.""",
    example=_bce_example,
)
def bce_with_logits_extra_sigmoid_factor(ctx, grad):
    # The learner derived s - t correctly, then "applied the chain rule through the
    # sigmoid" once more. So: the correct gradients, times s(1 - s) on the logits.
    x = ctx.saved_tensors[0]
    grads = _CORRECT_BCE(ctx, grad)
    s = stable_sigmoid(x)
    return ((grads[0] * s * (1 - s)).astype(x.dtype, copy=False),) + tuple(grads[1:])

"""Bugs in the backward of activation functions and the softmax family."""
import numpy as np

from ..ops.activation import stable_sigmoid
from .base import define, leaf, size


def _activation_example(op, min_size=2):
    """A (n, d) input with both signs present, kept off the kink at 0."""
    def example(rng):
        n = size(rng, 2, 4)
        d = max(size(rng, 2, 5), -(-min_size // n))
        x = leaf(rng, (n, d), away_from_zero=0.1)
        flat = x.data.reshape(-1)
        flat[0::2] = -np.abs(flat[0::2])      # every other element negative, the rest positive
        flat[1::2] = np.abs(flat[1::2])
        return {"x": x}, lambda: op(x)
    return example


@define(
    name="relu_no_mask",
    op="relu",
    family="activation",
    summary="ReLU's backward passes the gradient through unchanged, also for negative inputs",
    symptom="""Training still works, roughly, because the network behaves like a linear model
        in backward; but units that are off keep getting pushed as if they were on, weights
        of dead units drift, and the final accuracy is below the reference.""",
    lesson="""
        relu(a) = max(a, 0), so d relu/da = 1 where a > 0 and 0 where a < 0:
            dL/da = G * (a > 0)
        The bug returns G unchanged ("the derivative of relu is 1"), which is only the
        derivative on the positive side. Units that output 0 still receive a gradient,
        so parameters are updated for effects they did not have.

        Why nothing crashes: G has a's shape. On an all-positive test input the bug is
        invisible - always test activations on inputs of both signs.""",
    example=_activation_example(lambda x: x.relu()),
)
def relu_no_mask(ctx, grad):
    return (grad.copy(),)


def _leaky_relu(x):
    from .. import ops
    return ops.leaky_relu(x, negative_slope=0.1)


@define(
    name="leaky_relu_first_five_only",
    op="leaky_relu",
    family="activation",
    summary="the leaky-ReLU derivative is filled in by a debug loop that stops after 5 "
            "elements; all later elements keep slope 1",
    symptom="""Almost nothing: the loss curve is close to the reference, slightly worse.
        Elements after the fifth of every batch behave as if the activation were linear in
        backward. A gradient check that samples only the first few entries passes.""",
    lesson="""
        leaky_relu(a) = a for a > 0 and slope * a for a < 0, so its derivative is 1 or
        slope, element by element:  dL/da = G * where(a > 0, 1, slope).

        The bug builds the derivative as np.ones_like(a) and fills it in with a loop that
        was limited to range(5) while debugging on a tiny tensor. The first five elements
        are right; every later element keeps 1, so negative inputs past the fifth pass
        the full gradient instead of slope * G.

        Why nothing crashes: the array has the right shape from the start. A checker that
        looks at the first few elements only (a common shortcut for speed) finds nothing;
        check randomly chosen elements, or all of them.""",
    example=_activation_example(_leaky_relu, min_size=12),
)
def leaky_relu_first_five_only(ctx, grad):
    (a,) = ctx.saved_tensors
    derivative = np.ones_like(a)
    flat_a, flat_d = a.reshape(-1), derivative.reshape(-1)
    for i in range(min(5, a.size)):           # left over from debugging on a 5-element tensor
        flat_d[i] = 1.0 if flat_a[i] > 0 else ctx.slope
    return (grad * derivative,)


@define(
    name="tanh_not_squared",
    op="tanh",
    family="activation",
    summary="d tanh/da is written as 1 - tanh(a) instead of 1 - tanh(a)^2",
    symptom="""Saturated tanh units (outputs near -1) get a gradient near 2 instead of near 0,
        units near +1 look right. Training is unstable or slow, and activations drift towards
        -1 more than in the reference.""",
    lesson="""
        d tanh(a)/da = 1 - tanh(a)^2, always between 0 and 1 and smallest where tanh
        saturates at +-1. The bug forgets the square: 1 - tanh(a). For positive outputs
        that is still in [0, 1] and looks plausible; for an output of -0.9 it gives 1.9
        instead of 0.19.

        Why nothing crashes: 1 - t has t's shape, and for outputs near 0 both are close
        to 1, so a check at tiny inputs passes.""",
    example=_activation_example(lambda x: x.tanh()),
)
def tanh_not_squared(ctx, grad):
    (out,) = ctx.saved_tensors
    return (grad * (1 - out),)


@define(
    name="sigmoid_derivative_of_output",
    op="sigmoid",
    family="activation",
    summary="the formula s(x)(1 - s(x)) is applied to the saved OUTPUT, i.e. sigmoid is "
            "applied twice",
    symptom="""Saturated sigmoid units never stop receiving gradient (about 0.2 of it, however
        saturated they are), while units in the middle get slightly too little. Training
        does not stall the way a saturated sigmoid should, so the problem hides.""",
    lesson="""
        d sigma(a)/da = sigma(a) (1 - sigma(a)) = s (1 - s), where s is the OUTPUT that
        forward already saved. The bug saves the output s but then writes the textbook
        formula in terms of the input: sigma(s) (1 - sigma(s)). Since s is in (0, 1),
        sigma(s) is in (0.5, 0.73), so the 'derivative' is always about 0.2 - never the
        near-zero it should be for saturated units.

        Why nothing crashes: everything is elementwise and finite. Mixing up "what was
        saved" (input or output) is one of the most common backward mistakes.""",
    example=_activation_example(lambda x: (x * 2.0).sigmoid()),
)
def sigmoid_derivative_of_output(ctx, grad):
    (out,) = ctx.saved_tensors
    twice = stable_sigmoid(out)
    return (grad * twice * (1 - twice),)


def _softmax_example(op):
    def example(rng):
        x = leaf(rng, (size(rng, 2, 4), size(rng, 3, 6)))
        return {"x": x}, lambda: op(x)
    return example


@define(
    name="softmax_missing_cross_term",
    op="softmax",
    family="activation",
    summary="softmax's backward uses only the diagonal s(1 - s) of its Jacobian, dropping the "
            "-s_i s_j cross terms",
    symptom="""Classifiers with an explicit softmax learn, but more slowly and to a worse
        accuracy; raising one class's probability no longer lowers the others' in backward,
        so the logits of all classes drift together.""",
    lesson="""
        softmax couples all outputs: s_i = e^{a_i} / sum_j e^{a_j}, so
            ds_i/da_j = s_i (delta_ij - s_j)
        and the vector-Jacobian product is  dL/da = s * (G - sum_j G_j s_j).
        The bug treats softmax like an elementwise sigmoid and keeps only the diagonal,
        dL/da = G * s (1 - s), dropping the cross terms -s_i s_j that say "raising one
        probability lowers all the others".

        Why nothing crashes: the diagonal has the input's shape. With an all-ones
        upstream gradient (loss = sum of probabilities, a tempting test) the right
        answer is 0 and the bug gives s(1-s): test with random upstream gradients.""",
    example=_softmax_example(lambda x: x.softmax(axis=-1)),
)
def softmax_missing_cross_term(ctx, grad):
    (s,) = ctx.saved_tensors
    return (grad * s * (1 - s),)


@define(
    name="log_softmax_uses_log_probs",
    op="log_softmax",
    family="activation",
    summary="log_softmax's backward multiplies by the saved log-probabilities instead of the "
            "probabilities (forgets the exp)",
    symptom="""Cross-entropy training through log_softmax goes wrong quickly: the gradient
        of confident classes is scaled by large negative log-probabilities, logits grow,
        the loss stalls or rises after a good start.""",
    lesson="""
        log_softmax(a)_i = a_i - logsumexp(a), so
            dL/da = G - softmax(a) * sum_j G_j
        and softmax(a) = exp(log_softmax(a)), the exp of the saved output. The bug writes
        G - out * sum(G), using the log-probabilities where probabilities belong. They
        are negative and unbounded, so the correction term has the wrong sign and size.

        Why nothing crashes: out and exp(out) have the same shape; both are finite.""",
    example=_softmax_example(lambda x: x.log_softmax(axis=-1)),
)
def log_softmax_uses_log_probs(ctx, grad):
    (out,) = ctx.saved_tensors
    return (grad - out * grad.sum(axis=ctx.axis, keepdims=True),)


def _gelu_example(rng):
    from ..ops.registry import REGISTRY

    x = leaf(rng, (size(rng, 2, 4), size(rng, 3, 5)), low=-3.0, high=3.0)
    approximate = str(rng.choice(["none", "tanh"]))
    return {"x": x}, lambda: REGISTRY["gelu"].apply(x, approximate=approximate)


@define(
    name="gelu_drops_pdf_term",
    op="gelu",
    family="activation",
    summary="GELU's derivative is taken as Phi(x) only, dropping the x * phi(x) term of the "
            "product rule",
    symptom="""Networks with GELU train, a little worse than the reference. Negative inputs
        near -1 get almost no gradient where they should get a negative one, so units that
        drift negative stay there more often.""",
    lesson="""
        gelu(x) = x * Phi(x), with Phi the standard normal CDF and phi its density. By the
        product rule:
            d gelu/dx = Phi(x) + x * phi(x)
        (with approximate="tanh", the same shape of formula on the tanh approximation).
        The bug treats Phi(x) as a constant gate, like a ReLU's 0/1 mask, and returns
        G * Phi(x). The missing term matters most around |x| ~ 1: at x = -1 the right
        derivative is about -0.08, the bug says +0.16.

        Why nothing crashes: Phi(x) has x's shape and for large |x| the two agree (phi
        vanishes), so a test at large inputs passes.""",
    example=_gelu_example,
)
def gelu_drops_pdf_term(ctx, grad):
    from ..ops.special import normal_cdf

    (a,) = ctx.saved_tensors
    x = a.astype(np.float64)
    if ctx.approximate == "tanh":
        gate = 0.5 * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    else:
        gate = normal_cdf(x)
    return ((grad * gate).astype(a.dtype, copy=False),)

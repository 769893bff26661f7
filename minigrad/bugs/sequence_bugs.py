"""Bugs in the backward of sequence-model primitives: attention, recurrent cells, masks,
smooth activations, log-sum-exp.

These are the derivatives a learner writes when building an LSTM or a transformer
by hand. Each keeps every gradient's shape, so training runs and the loss falls -
often almost normally, because the bug only bites on the path that makes a
sequence model a sequence model (the step-to-step carry, the mask, the scale).
"""
import math

import numpy as np

from ..ops.registry import unbroadcast
from .base import define, leaf, size


def _primitive(op):
    from ..ops import sequence  # noqa: F401  (registers the sequence primitives)
    from ..ops.registry import REGISTRY
    return REGISTRY[op]


def _swap(a):
    return np.swapaxes(a, -1, -2)


# --- attention ---------------------------------------------------------------------------------

def _attention_example(rng):
    batch, heads, length, dim = size(rng, 1, 2), size(rng, 1, 2), size(rng, 3, 5), 4
    q, k = leaf(rng, (batch, heads, length, dim)), leaf(rng, (batch, heads, length, dim))
    v = leaf(rng, (batch, heads, length, size(rng, 2, 5)))
    causal = np.where(np.tril(np.ones((length, length), dtype=bool)), 0.0, -np.inf)
    attention = _primitive("scaled_dot_product_attention")
    return ({"q": q, "k": k, "v": v},
            lambda: attention.apply(q, k, v, scale=1 / math.sqrt(dim), bias=causal))


def _attention_backward(ctx, grad, scale_scores=True, softmax_axis=-1, transpose_keys=True,
                        weights=None):
    """The correct backward of scaled_dot_product_attention, with switches for the bugs."""
    q, k, v, saved_weights, used = ctx.saved_tensors
    weights = saved_weights if weights is None else weights
    grad_v = np.matmul(_swap(used), grad)
    grad_used = np.matmul(grad, _swap(v))
    if ctx.keep is not None:
        grad_used = grad_used * ctx.keep * ctx.keep_scale
    grad_scores = weights * (grad_used - (grad_used * weights).sum(axis=softmax_axis,
                                                                   keepdims=True))
    if scale_scores:
        grad_scores = grad_scores * ctx.scale
    grad_q = np.matmul(grad_scores, k)
    grad_k = np.matmul(_swap(grad_scores), q) if transpose_keys else np.matmul(grad_scores, q)
    return (unbroadcast(grad_q, q.shape), unbroadcast(grad_k, k.shape),
            unbroadcast(grad_v, v.shape))


@define(
    name="attention_scale_forgotten_in_backward",
    op="scaled_dot_product_attention",
    family="attention",
    summary="attention multiplies the scores by 1/sqrt(d) in forward but not their gradient "
            "in backward",
    symptom="""Queries and keys get gradients sqrt(d) times too large (8x for 64-dimensional
        heads) while values and everything else are right. Training with Adam looks almost
        normal (Adam divides the scale away); with SGD the attention projections jump
        around, the attention softmax saturates early and the loss is noisy.""",
    lesson="""
        Forward: scores = (q k^T) * s with s = 1/sqrt(d), weights = softmax(scores),
        out = weights v. Backward goes through the same steps in reverse:
            dL/dscores = softmax backward of dL/dweights
            dL/dq = (dL/dscores * s) k      dL/dk = (dL/dscores * s)^T q
        The scale is part of the chain: it multiplies the scores, so it multiplies their
        gradient. The bug drops it, and q and k receive sqrt(d) times their gradient.

        Why nothing crashes: a scalar factor changes no shape, and with d = 1 (or a test
        that only checks the direction of the gradient) the bug is invisible.""",
    example=_attention_example,
)
def attention_scale_forgotten_in_backward(ctx, grad):
    return _attention_backward(ctx, grad, scale_scores=False)


@define(
    name="attention_softmax_backward_over_queries",
    op="scaled_dot_product_attention",
    family="attention",
    summary="the softmax backward inside attention sums over the query axis instead of the "
            "key axis the softmax normalised",
    symptom="""Attention learns slowly and oddly: which key a query should look at is learned
        from the other queries' gradients. The loss still falls (values and the output
        projection learn normally), so the model looks like a weak but working one.""",
    lesson="""
        softmax normalises each query's row over the KEYS: weights[i, :] sums to 1. Its
        backward is s * (g - <g, s>) where the inner product runs over the same axis,
        the last one (keys). The bug sums over axis -2, the queries - the natural slip
        when scores are laid out (L, S) and the softmax axis is written as a number.

        Why nothing crashes: a keepdims sum over either axis broadcasts back to (L, S);
        when L = 1 (one query) the two sums coincide and the bug cannot be seen.""",
    example=_attention_example,
)
def attention_softmax_backward_over_queries(ctx, grad):
    return _attention_backward(ctx, grad, softmax_axis=-2)


@define(
    name="attention_key_grad_not_transposed",
    op="scaled_dot_product_attention",
    family="attention",
    summary="the key gradient is dscores @ q instead of dscores^T @ q",
    symptom="""Keys learn from the wrong queries: key j receives the gradient meant for query
        j's row. In self-attention (as many queries as keys) the shapes fit, so training runs;
        attention patterns stay blurry and the loss plateaus above the reference.""",
    lesson="""
        scores[i, j] = q_i . k_j, so dL/dk_j = sum_i dL/dscores[i, j] q_i: a sum over the
        QUERY axis, i.e. (dL/dscores)^T @ q. The bug writes dL/dscores @ q, summing over
        keys instead - the transpose forgotten.

        Why nothing crashes: in self-attention dL/dscores is square (L = S), so both
        products have k's shape. Cross-attention with L != S would fail loudly.""",
    example=_attention_example,
)
def attention_key_grad_not_transposed(ctx, grad):
    return _attention_backward(ctx, grad, transpose_keys=False)


@define(
    name="attention_backward_forgets_the_mask",
    op="scaled_dot_product_attention",
    family="attention",
    summary="attention's backward recomputes the softmax from q and k without the causal "
            "mask, so the future receives gradient",
    symptom="""A causal language model trains, but its gradients say that future tokens
        matter: keys and values of later positions are updated by earlier predictions. The
        training loss falls less than the reference and generations are worse; nothing
        looks broken.""",
    lesson="""
        Memory-saving attention (as in FlashAttention) does not keep the (L, S) weights; it
        recomputes them in backward from q and k. The recomputation must be the forward
        computation exactly: scores * scale + mask, then softmax. The bug leaves the mask
        out, so masked (future) positions get a weight > 0 in backward although they had 0
        in forward, and gradient flows to keys that the output never depended on.

        Why nothing crashes: the recomputed weights have the same shape and are a valid
        softmax; without a mask (an encoder) the bug does nothing at all.""",
    example=_attention_example,
)
def attention_backward_forgets_the_mask(ctx, grad):
    q, k, *_ = ctx.saved_tensors
    scores = np.matmul(q, _swap(k)) * ctx.scale            # "+ mask" forgotten here
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return _attention_backward(ctx, grad, weights=shifted / shifted.sum(axis=-1, keepdims=True))


# --- masks: where / masked_fill ---------------------------------------------------------------------

def _where_example(rng):
    shape = (size(rng, 2, 4), size(rng, 3, 5))
    a, b = leaf(rng, shape), leaf(rng, shape)
    condition = rng.random(shape) > 0.5
    condition.flat[0], condition.flat[1] = True, False       # both branches are used
    where = _primitive("where")
    return {"a": a, "b": b}, lambda: where.apply(a, b, condition=condition)


@define(
    name="where_gradient_leaks_to_both_branches",
    op="where",
    family="masking",
    summary="where (and so masked_fill) passes the full gradient to both branches instead of "
            "only to the one each element was taken from",
    symptom="""Masked positions keep learning: padding tokens, zeroed-out features or the
        'future' behind a finite mask get gradient as if they had been used. The model
        trains, but padded examples change the weights and the mask seems not to work.""",
    lesson="""
        out = where(c, a, b) takes each element from a where c holds and from b elsewhere.
        So d out / d a = c (1 where taken, 0 elsewhere) and d out / d b = not c: each
        element's gradient goes to the branch it came from, the other branch gets 0.
        masked_fill(x, mask, value) is where(mask, value, x): x's gradient must be zero at
        the masked places. The bug hands grad to both branches unmasked.

        Why nothing crashes: both gradients keep their shapes. Before a softmax a -inf fill
        hides the bug completely (softmax sends no gradient to a zero weight), which is
        why it survives in attention code and bites in padding code.""",
    example=_where_example,
)
def where_gradient_leaks_to_both_branches(ctx, grad):
    return unbroadcast(grad, ctx.shapes[0]), unbroadcast(grad, ctx.shapes[1])


# --- recurrent cells -----------------------------------------------------------------------------------

def _lstm_example(rng):
    n, hidden = size(rng, 2, 3), size(rng, 2, 4)
    gates, c_prev = leaf(rng, (n, 4 * hidden)), leaf(rng, (n, hidden))
    cell = _primitive("lstm_cell")
    return {"gates": gates, "c_prev": c_prev}, lambda: cell.apply(gates, c_prev)


def _lstm_backward(ctx, grad, input_gate_slope=None, through_tanh=True, carry=True):
    i, f, g, o, c_prev, tanh_c = ctx.saved_tensors
    grad_h, grad_c = grad[0], grad[1]
    grad_c = grad_c + grad_h * o * ((1 - tanh_c * tanh_c) if through_tanh else 1)
    input_slope = i * (1 - i) if input_gate_slope is None else input_gate_slope(i)
    grad_gates = np.concatenate([
        grad_c * g * input_slope,
        grad_c * c_prev * f * (1 - f),
        grad_c * i * (1 - g * g),
        grad_h * tanh_c * o * (1 - o),
    ], axis=-1)
    return grad_gates, (grad_c * f if carry else np.zeros_like(c_prev))


@define(
    name="lstm_input_gate_tanh_derivative",
    op="lstm_cell",
    family="recurrent",
    summary="the LSTM's input gate is differentiated as a tanh (1 - i^2) though it is a "
            "sigmoid (i (1 - i))",
    symptom="""The LSTM learns what to write into its memory far too eagerly: input-gate
        weights get gradients several times too large, most where the gate is nearly closed.
        The loss is noisy and falls more slowly than the reference.""",
    lesson="""
        An LSTM has three sigmoid gates (input i, forget f, output o) and one tanh candidate
        g. Their derivatives differ: sigma' = s (1 - s) (at most 0.25), tanh' = 1 - t^2 (at
        most 1). With four blocks side by side in one (N, 4H) array it is easy to apply the
        wrong formula to a block; here the input gate gets tanh's, 1 - i^2. A closed gate
        (i near 0) should pass almost no gradient and passes nearly all of it.

        Why nothing crashes: both formulas are elementwise on the same block.""",
    example=_lstm_example,
)
def lstm_input_gate_tanh_derivative(ctx, grad):
    return _lstm_backward(ctx, grad, input_gate_slope=lambda i: 1 - i * i)


@define(
    name="lstm_cell_tanh_not_differentiated",
    op="lstm_cell",
    family="recurrent",
    summary="h = o * tanh(c), but the gradient from h to c is o instead of o (1 - tanh(c)^2)",
    symptom="""The memory cell gets too much gradient from the hidden output, most when the
        cell is saturated (large |c|). Gradients grow along the sequence; training is noisy
        and needs a smaller learning rate than the reference.""",
    lesson="""
        h_t = o_t * tanh(c_t), so dL/dc_t gets o_t * (1 - tanh(c_t)^2) * dL/dh_t from the
        hidden output, plus the gradient arriving from the next step through c_{t+1}. The
        bug skips the tanh's derivative, as if h = o * c: exactly right only where c is 0,
        badly wrong where tanh(c) saturates.

        Why nothing crashes: dropping a factor keeps the shape, and at small cell values
        (a fresh model, tiny inputs) 1 - tanh^2 is close to 1.""",
    example=_lstm_example,
)
def lstm_cell_tanh_not_differentiated(ctx, grad):
    return _lstm_backward(ctx, grad, through_tanh=False)


@define(
    name="lstm_carry_gradient_dropped",
    op="lstm_cell",
    family="recurrent",
    summary="the LSTM cell returns a zero gradient for the previous cell state: the memory "
            "gets no gradient from later steps",
    symptom="""The LSTM trains like a model with a one-step memory: anything that needs
        information from more than one step back is never learned, the loss plateaus early,
        and truncating the sequence changes nothing. Nothing diverges.""",
    lesson="""
        c_t = f_t * c_{t-1} + i_t * g_t, so dL/dc_{t-1} = f_t * dL/dc_t: the gradient
        travels back through time along the cell state, scaled by the forget gate (that
        is the LSTM's whole point - with f near 1 it travels far). The bug treats c_{t-1}
        as a constant and returns zeros for it, silently truncating backpropagation
        through time to a single step.

        Why nothing crashes: a zero array has the right shape, and with one time step (the
        usual unit test) there is no earlier step to notice.""",
    example=_lstm_example,
)
def lstm_carry_gradient_dropped(ctx, grad):
    return _lstm_backward(ctx, grad, carry=False)


def _gru_example(rng):
    n, hidden = size(rng, 2, 3), size(rng, 2, 4)
    gi, gh = leaf(rng, (n, 3 * hidden)), leaf(rng, (n, 3 * hidden))
    h_prev = leaf(rng, (n, hidden))
    cell = _primitive("gru_cell")
    return {"gi": gi, "gh": gh, "h_prev": h_prev}, lambda: cell.apply(gi, gh, h_prev)


def _gru_backward(ctx, grad, reset_on_hidden=True, update_sign=1):
    r, z, n, h_n, h_prev = ctx.saved_tensors
    grad_n = grad * (1 - z) * (1 - n * n)
    grad_z = update_sign * grad * (h_prev - n) * z * (1 - z)
    grad_r = grad_n * h_n * r * (1 - r)
    grad_gi = np.concatenate([grad_r, grad_z, grad_n], axis=-1)
    grad_gh = np.concatenate([grad_r, grad_z, grad_n * r if reset_on_hidden else grad_n], axis=-1)
    return grad_gi, grad_gh, grad * z


@define(
    name="gru_reset_gate_forgotten_in_backward",
    op="gru_cell",
    family="recurrent",
    summary="the GRU's candidate uses r * (W_hn h + b_hn), but the gradient to that hidden "
            "part is not multiplied by the reset gate r",
    symptom="""The hidden-to-hidden weights of the candidate learn too fast whenever the reset
        gate is partly closed; the GRU overreacts to its own state, the loss is noisier and
        ends above the reference.""",
    lesson="""
        The GRU candidate is n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)): the reset
        gate r scales the hidden part only. So dL/d(hidden part) = r * dL/dn_pre, while the
        input part receives dL/dn_pre unscaled. The bug gives both parts the same gradient.

        Why nothing crashes: the two parts have the same shape, and with r near 1 (a fresh
        GRU often starts there) the bug barely shows.""",
    example=_gru_example,
)
def gru_reset_gate_forgotten_in_backward(ctx, grad):
    return _gru_backward(ctx, grad, reset_on_hidden=False)


@define(
    name="gru_update_gate_sign_flipped",
    op="gru_cell",
    family="recurrent",
    summary="the GRU's update-gate gradient uses (n - h_prev) instead of (h_prev - n)",
    symptom="""The update gate learns backwards: where keeping the old state would lower the
        loss, the gate opens to the new candidate, and the other way round. The GRU still
        trains through its other weights, so the loss falls, but more slowly.""",
    lesson="""
        h = (1 - z) * n + z * h_prev, so dh/dz = h_prev - n. Papers disagree on the
        convention (some write h = z * n + (1 - z) * h_prev, whose derivative is n -
        h_prev); mixing the forward of one with the backward of the other flips the sign of
        the update gate's gradient. Gradient descent then climbs on that gate.

        Why nothing crashes: a sign keeps the shape, and the loss still falls because every
        other weight learns correctly.""",
    example=_gru_example,
)
def gru_update_gate_sign_flipped(ctx, grad):
    return _gru_backward(ctx, grad, update_sign=-1)


# --- smooth activations ----------------------------------------------------------------------------

def _activation_example(op, **kwargs):
    def example(rng):
        x = leaf(rng, (size(rng, 2, 4), size(rng, 3, 5)), away_from_zero=0.1)
        primitive = _primitive(op)
        return {"x": x}, lambda: primitive.apply(x, **kwargs)
    return example


@define(
    name="silu_missing_product_rule",
    op="silu",
    family="activation",
    summary="SiLU's derivative is written as sigmoid(x), forgetting the product rule's "
            "x sigmoid'(x) term",
    symptom="""Units with large |x| get the right gradient, units near zero too little, and
        negative units a positive slope they do not have (SiLU dips below zero). Training
        works but ends worse than the reference.""",
    lesson="""
        silu(x) = x * sigmoid(x) is a product of two functions of x, so
            d/dx = sigmoid(x) + x * sigmoid(x) (1 - sigmoid(x)).
        The bug keeps only the first term, as if x were a constant factor.

        Why nothing crashes: sigmoid(x) has x's shape, and for large |x| the missing term
        vanishes, so a check at large inputs passes.""",
    example=_activation_example("silu"),
)
def silu_missing_product_rule(ctx, grad):
    a, s = ctx.saved_tensors
    return (grad * s,)


@define(
    name="softplus_derivative_missing_denominator",
    op="softplus",
    family="activation",
    summary="softplus's derivative is written as exp(beta x) instead of exp(beta x) / (1 + "
            "exp(beta x))",
    symptom="""Positive units get gradients that grow exponentially with their input; training
        is stable only with a tiny learning rate, and large activations explode after a few
        steps while the reference trains smoothly.""",
    lesson="""
        softplus(x) = log(1 + e^(beta x)) / beta. The chain rule through the log gives
            d/dx = e^(beta x) / (1 + e^(beta x)) = sigmoid(beta x),
        which is between 0 and 1. The bug differentiates only the inner exponential and
        forgets the log's 1 / (1 + e^(beta x)): right for very negative x, unbounded for
        positive x.

        Why nothing crashes: exp(beta x) has x's shape and stays finite for the inputs of a
        small test.""",
    example=_activation_example("softplus", beta=1.5),
)
def softplus_derivative_missing_denominator(ctx, grad):
    (scaled,) = ctx.saved_tensors
    slope = np.where(scaled > ctx.threshold, 1, np.exp(np.minimum(scaled, ctx.threshold)))
    return ((grad * slope).astype(grad.dtype, copy=False),)


@define(
    name="elu_negative_side_forgets_alpha",
    op="elu",
    family="activation",
    summary="ELU's derivative on the negative side is exp(x) instead of alpha * exp(x)",
    symptom="""With the default alpha = 1 nothing at all happens; with another alpha the
        negative side learns at the wrong rate (too fast for alpha < 1). The model trains, a
        little worse than the reference, and only when alpha was changed.""",
    lesson="""
        elu(x) = x for x > 0 and alpha (e^x - 1) otherwise, so the derivative on the
        negative side is alpha e^x. The bug drops alpha - which is invisible for the
        default alpha = 1, so every test written with the default passes.

        Why nothing crashes: a missing constant factor changes no shape. Lesson: test
        every argument of a function away from its default value.""",
    example=_activation_example("elu", alpha=0.4),
)
def elu_negative_side_forgets_alpha(ctx, grad):
    (a,) = ctx.saved_tensors
    slope = np.where(a > 0, 1, np.exp(np.minimum(a, 0)))
    return ((grad * slope).astype(grad.dtype, copy=False),)


# --- log-sum-exp -------------------------------------------------------------------------------------

def _logsumexp_example(rng):
    x = leaf(rng, (size(rng, 2, 4), size(rng, 3, 5)))
    primitive = _primitive("logsumexp")
    return {"x": x}, lambda: primitive.apply(x, axis=-1)


@define(
    name="logsumexp_backward_uses_the_max_shift",
    op="logsumexp",
    family="reduction",
    summary="logsumexp's backward is exp(x - max x) (the forward's shift) instead of "
            "exp(x - logsumexp x) = softmax(x)",
    symptom="""Every gradient through the log-sum-exp is too large by the factor sum(exp(x -
        max x)), between 1 and the number of classes: hand-written log-softmax losses train
        as if the learning rate were several times higher, and sharpen too fast.""",
    lesson="""
        logsumexp(x) = m + log(sum_i e^(x_i - m)) with m = max x, the shift that keeps the
        exponentials from overflowing. Its derivative is e^(x_i) / sum_j e^(x_j) =
        e^(x_i - logsumexp(x)) = softmax(x)_i. The bug reuses the forward's shifted
        exponentials e^(x_i - m) but forgets to divide by their sum.

        Why nothing crashes: the array has x's shape and is finite (the shift works); when
        one x_i dominates, the sum is close to 1 and the bug nearly vanishes.""",
    example=_logsumexp_example,
)
def logsumexp_backward_uses_the_max_shift(ctx, grad):
    from ..ops.reduce import expand_reduced
    a, _ = ctx.saved_tensors
    return (np.exp(a - a.max(axis=ctx.axes, keepdims=True))
            * expand_reduced(grad, ctx.axes, ctx.keepdims),)


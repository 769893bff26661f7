"""Fused primitives for sequence models: recurrent cells, attention, smooth activations.

Each could be composed from smaller primitives, but a learner who writes an
LSTM or attention by hand writes exactly these derivatives, so they live here
as one readable table each (and as single places where a planted bug sits).
Fusing also saves time: an LSTM step is one primitive instead of twelve.

Gate layouts follow torch: an LSTM's gate pre-activations are ``[i, f, g, o]``
along the last axis, a GRU's ``[r, z, n]``.
"""
import numpy as np

from ..autograd import Function
from .activation import stable_sigmoid
from .axis_reductions import max_last, sum_last
from .registry import register, unbroadcast


# --- smooth activations ---------------------------------------------------------------------
@register("silu")
class SiLU(Function):
    """x * sigmoid(x) (also called swish)."""

    @staticmethod
    def forward(ctx, a):
        s = stable_sigmoid(a)
        ctx.save_for_backward(a, s)
        return a * s

    @staticmethod
    def backward(ctx, grad):  # d/dx x s(x) = s + x s (1 - s)
        a, s = ctx.saved_tensors
        return (grad * (s * (1 + a * (1 - s))),)


@register("softplus")
class Softplus(Function):
    """log(1 + e^(beta x)) / beta, and plain x where beta x > threshold (as torch)."""

    @staticmethod
    def forward(ctx, a, beta=1.0, threshold=20.0):
        scaled = a * beta
        ctx.save_for_backward(scaled)
        ctx.threshold = threshold
        smooth = np.logaddexp(0, scaled) / beta       # log(1 + e^z) without overflow
        return np.where(scaled > threshold, a, smooth).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # d/dx = sigmoid(beta x), exactly 1 on the linear part
        (scaled,) = ctx.saved_tensors
        slope = np.where(scaled > ctx.threshold, 1, stable_sigmoid(scaled))
        return ((grad * slope).astype(grad.dtype, copy=False),)


@register("elu")
class ELU(Function):
    """x for x > 0, alpha (e^x - 1) otherwise."""

    @staticmethod
    def forward(ctx, a, alpha=1.0):
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        return np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0))).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):  # 1 on the positive side, alpha e^x on the other
        (a,) = ctx.saved_tensors
        slope = np.where(a > 0, 1, ctx.alpha * np.exp(np.minimum(a, 0)))
        return ((grad * slope).astype(grad.dtype, copy=False),)


# --- recurrent cells -------------------------------------------------------------------------
@register("lstm_cell")
class LSTMCell(Function):
    """One LSTM step from gate pre-activations; returns ``stack([h, c])``, shape (2, ..., H).

        i, f, o = sigmoid(.)   g = tanh(.)
        c = f * c_prev + i * g
        h = o * tanh(c)
    """

    @staticmethod
    def forward(ctx, gates, c_prev):
        i, f, g, o = np.split(gates, 4, axis=-1)
        i, f, o, g = stable_sigmoid(i), stable_sigmoid(f), stable_sigmoid(o), np.tanh(g)
        c = f * c_prev + i * g
        tanh_c = np.tanh(c)
        ctx.save_for_backward(i, f, g, o, c_prev, tanh_c)
        return np.stack([o * tanh_c, c])

    @staticmethod
    def backward(ctx, grad):
        i, f, g, o, c_prev, tanh_c = ctx.saved_tensors
        grad_h, grad_c = grad[0], grad[1]
        # c reaches the loss directly (the next step) and through h = o * tanh(c)
        grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
        grad_gates = np.concatenate([
            grad_c * g * i * (1 - i),              # input gate
            grad_c * c_prev * f * (1 - f),         # forget gate
            grad_c * i * (1 - g * g),              # candidate
            grad_h * tanh_c * o * (1 - o),         # output gate
        ], axis=-1)
        return grad_gates, grad_c * f


@register("gru_cell")
class GRUCell(Function):
    """One GRU step from the input part ``gi`` and the hidden part ``gh`` of the gates.

        r = sigmoid(gi_r + gh_r)   z = sigmoid(gi_z + gh_z)
        n = tanh(gi_n + r * gh_n)                (the reset gate scales the hidden part only)
        h = (1 - z) * n + z * h_prev
    """

    @staticmethod
    def forward(ctx, gi, gh, h_prev):
        i_r, i_z, i_n = np.split(gi, 3, axis=-1)
        h_r, h_z, h_n = np.split(gh, 3, axis=-1)
        r, z = stable_sigmoid(i_r + h_r), stable_sigmoid(i_z + h_z)
        n = np.tanh(i_n + r * h_n)
        ctx.save_for_backward(r, z, n, h_n, h_prev)
        return (1 - z) * n + z * h_prev

    @staticmethod
    def backward(ctx, grad):
        r, z, n, h_n, h_prev = ctx.saved_tensors
        grad_n = grad * (1 - z) * (1 - n * n)          # through tanh
        grad_z = grad * (h_prev - n) * z * (1 - z)
        grad_r = grad_n * h_n * r * (1 - r)
        grad_gi = np.concatenate([grad_r, grad_z, grad_n], axis=-1)
        grad_gh = np.concatenate([grad_r, grad_z, grad_n * r], axis=-1)
        return grad_gi, grad_gh, grad * z


# --- attention -------------------------------------------------------------------------------
def swap_last(a):
    return np.swapaxes(a, -1, -2)


@register("scaled_dot_product_attention")
class ScaledDotProductAttention(Function):
    """softmax(q k^T * scale + bias) v over the last two axes, batched over the leading ones.

    ``bias`` is an additive constant (0 where a query may look, -inf where it may
    not); ``keep`` an optional dropout mask on the attention weights, whose kept
    entries are multiplied by ``keep_scale``.
    """

    @staticmethod
    def forward(ctx, q, k, v, scale=1.0, bias=None, keep=None, keep_scale=1.0):
        scores = np.matmul(q, swap_last(k)) * scale
        if bias is not None:
            scores = scores + bias
        weights = np.exp(scores - max_last(scores))     # softmax over the keys
        weights /= sum_last(weights)
        used = weights if keep is None else weights * keep * keep_scale
        ctx.save_for_backward(q, k, v, weights, used)
        ctx.scale, ctx.keep, ctx.keep_scale = scale, keep, keep_scale
        return np.matmul(used, v).astype(q.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        q, k, v, weights, used = ctx.saved_tensors
        grad_v = np.matmul(swap_last(used), grad)
        grad_used = np.matmul(grad, swap_last(v))
        grad_weights = grad_used if ctx.keep is None else grad_used * ctx.keep * ctx.keep_scale
        # softmax backward along the key axis: s * (g - <g, s>)
        grad_scores = weights * (grad_weights - sum_last(grad_weights * weights))
        grad_scores = grad_scores * ctx.scale
        grad_q = np.matmul(grad_scores, k)
        grad_k = np.matmul(swap_last(grad_scores), q)
        return (unbroadcast(grad_q, q.shape), unbroadcast(grad_k, k.shape),
                unbroadcast(grad_v, v.shape))

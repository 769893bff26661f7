"""Bugs in the backward of layer primitives: convolution, pooling, normalisation,
embedding, dropout.

The examples call the registered primitives through ``REGISTRY[op].apply`` so
they depend only on the primitive itself, not on a layer class around it.
"""
import numpy as np

from .base import define, leaf, size


def _primitive(op):
    from ..ops.registry import REGISTRY
    return REGISTRY[op]


# --- convolution and pooling ---------------------------------------------------------

def _conv_example(rng):
    n, c, o = size(rng, 1, 2), size(rng, 1, 3), size(rng, 2, 3)
    h, w = size(rng, 4, 6), size(rng, 4, 6)
    x = leaf(rng, (n, c, h, w))
    weight, bias = leaf(rng, (o, c, 3, 3)), leaf(rng, (o,))
    padding = int(rng.integers(0, 2))
    conv = _primitive("conv2d")
    return ({"x": x, "weight": weight, "bias": bias},
            lambda: conv.apply(x, weight, bias, stride=(1, 1), padding=(padding, padding)))


@define(
    name="conv2d_weight_grad_flipped",
    op="conv2d",
    family="convolution",
    summary="conv2d's weight gradient is rotated by 180 degrees (kernel flipped), as in the "
            "textbook convolution - but forward is a cross-correlation",
    symptom="""Convolutional filters learn slowly or in the wrong direction: the loss falls much
        less than in the reference and accuracy stays lower, while fully-connected layers
        train normally. 1x1 convolutions are unaffected, which makes it confusing.""",
    lesson="""
        Deep-learning "convolution" is a cross-correlation: out[y, x] = sum_{i,j}
        in[y+i, x+j] * w[i, j], with no flip. Its weight gradient is the correlation of
        the input with the upstream gradient, again without a flip:
            dL/dw[o, c, i, j] = sum_{n, y, x} G[n, o, y, x] * in[n, c, y+i, x+j]
        The bug remembers that "convolution flips the kernel" from signal processing and
        rotates the weight gradient by 180 degrees (w_grad[..., ::-1, ::-1]). Each
        kernel entry receives the gradient of its mirror entry.

        Why nothing crashes: a flipped array keeps its shape. A 1x1 kernel has nothing to
        flip, so tests with 1x1 convolutions pass; the input gradient is still right.""",
    example=_conv_example,
)
def conv2d_weight_grad_flipped(ctx, grad):
    from ..ops.windows import add_windows, crop, windows

    padded, weight = ctx.saved_tensors
    cols = windows(padded, weight.shape[2:], ctx.stride, ctx.dilation, ctx.out_hw)
    grad_weight = np.tensordot(grad, cols, axes=([0, 2, 3], [0, 2, 3]))
    grad_weight = grad_weight[..., ::-1, ::-1]            # "convolution flips the kernel"
    grad_cols = np.moveaxis(np.tensordot(grad, weight, axes=([1], [0])), 3, 1)
    grad_input = crop(add_windows(grad_cols, padded.shape, ctx.stride, ctx.dilation), ctx.padding)
    grads = (np.ascontiguousarray(grad_input), np.ascontiguousarray(grad_weight))
    if ctx.has_bias:
        grads += (grad.sum(axis=(0, 2, 3)),)
    return grads


def _pool_example(op):
    def example(rng):
        x = leaf(rng, (size(rng, 1, 2), size(rng, 2, 3), 2 * size(rng, 2, 3), 2 * size(rng, 2, 3)))
        pool = _primitive(op)
        return {"x": x}, lambda: pool.apply(x, kernel_size=2, stride=2)
    return example


@define(
    name="max_pool2d_winner_transposed",
    op="max_pool2d",
    family="pooling",
    summary="max pooling sends each gradient to the mirror (j, i) of the window's winner "
            "(i, j): the winner index was found column-major and scattered row-major",
    symptom="""Convolutional layers below a max-pool learn from the wrong pixels about half
        the time: training is slower and noisier than the reference, the loss plateaus
        higher. No error, and windows whose maximum sits on the diagonal are right.""",
    lesson="""
        max pooling outputs the largest value of each window; only that winner affects
        the output, so dL/dx is G at the winner's position and 0 elsewhere in the window.
        The backward must put each gradient exactly where forward found the maximum.

        The bug finds the winner on the window transposed (column-major, e.g. after a
        swapaxes to make the window contiguous) but scatters with the row-major layout,
        so a winner at (i, j) receives nothing and (j, i) gets its gradient. Winners on
        the diagonal (i == j) land right, the others land on an element that did not win.

        Why nothing crashes: the gradient still goes to an element of the same window,
        so shapes and even the per-window gradient sums are right.""",
    example=_pool_example("max_pool2d"),
)
def max_pool2d_winner_transposed(ctx, grad):
    from ..ops.windows import add_windows, crop

    kh, kw = ctx.kernel
    row, col = ctx.winner // kw, ctx.winner % kw
    wrong = col * kh + row                                 # the winner index of the transposed window
    window_grad = np.zeros(grad.shape + (kh * kw,), dtype=grad.dtype)
    np.put_along_axis(window_grad, wrong, grad[..., None], axis=-1)
    window_grad = window_grad.reshape(grad.shape + (kh, kw))
    image = add_windows(window_grad, ctx.padded_shape, ctx.stride, ctx.dilation)
    return (np.ascontiguousarray(crop(image, ctx.padding)),)


@define(
    name="avg_pool2d_not_divided",
    op="avg_pool2d",
    family="pooling",
    summary="average pooling hands every window element the full output gradient, "
            "forgetting to divide by the window size",
    symptom="""Layers below an average pool get kernel_size^2 times too much gradient (4x for
        2x2 pooling): those layers behave as if their learning rate were 4x larger -
        oscillation, occasionally divergence, while the layers above look fine.""",
    lesson="""
        avg_pool2d outputs the mean of each window, (1/k) * sum of its k elements, so each
        element's share of the gradient is G / k (k = kh * kw, or the count of real
        pixels with count_include_pad=False). The bug copies the backward of sum pooling
        and gives each element the full G: the gradient is k times too large.

        Why nothing crashes: the spread gradient has the input's shape either way; a
        constant factor only shows as a relative error of k - 1 in a gradient check.""",
    example=_pool_example("avg_pool2d"),
)
def avg_pool2d_not_divided(ctx, grad):
    from ..ops.windows import add_windows, crop

    window_grad = np.broadcast_to(grad[..., None, None], grad.shape + ctx.kernel)
    image = add_windows(window_grad, ctx.padded_shape, ctx.stride, (1, 1))
    return (np.ascontiguousarray(crop(image, ctx.padding)),)


# --- dropout and embedding -------------------------------------------------------------

def _dropout_example(rng):
    x = leaf(rng, (size(rng, 2, 4), size(rng, 3, 6)))
    p = float(rng.choice([0.25, 0.5]))
    mask = rng.random(x.shape) >= p
    mask.flat[0] = True                                    # at least one unit kept
    dropout = _primitive("dropout")
    return {"x": x}, lambda: dropout.apply(x, mask=mask, scale=1.0 / (1.0 - p))


@define(
    name="dropout_not_rescaled",
    op="dropout",
    family="regularization",
    summary="dropout's backward applies the 0/1 mask but not the 1/(1-p) scale that forward "
            "applied",
    symptom="""Layers below dropout learn (1-p) times slower than they should (half as fast
        with p = 0.5): the loss falls visibly more slowly than the reference, and raising
        the learning rate seems to help.""",
    lesson="""
        Inverted dropout computes y = x * mask / (1 - p), so that the expected value of y
        is x. Its derivative is the same factor: dL/dx = G * mask / (1 - p). The bug
        remembers that "dropped units get no gradient" and applies the mask only, losing
        the 1/(1-p) scale: forward and backward disagree by a constant factor.

        Why nothing crashes: the mask has x's shape. Surviving units still get gradients
        with the right sign, only too small.""",
    example=_dropout_example,
)
def dropout_not_rescaled(ctx, grad):
    return (grad * (ctx.keep != 0),)


def _embedding_example(rng):
    rows, dim = size(rng, 4, 7), size(rng, 2, 4)
    weight = leaf(rng, (rows, dim))
    ids = rng.integers(0, rows, size=(size(rng, 2, 3), size(rng, 3, 5)))
    ids.flat[:2] = ids.flat[2]                             # one id appears at least three times
    embedding = _primitive("embedding")
    return {"weight": weight}, lambda: embedding.apply(weight, ids=ids)


@define(
    name="embedding_overwrites_repeated_ids",
    op="embedding",
    family="embedding",
    summary="the embedding gradient is written with assignment (w_grad[ids] = g): a token "
            "that appears several times in a batch keeps only one of its gradients",
    symptom="""Frequent tokens (the, padding, common classes) learn far too slowly - exactly
        the ones that appear most; rare tokens learn normally. Loss improves more slowly
        than the reference, mostly on frequent inputs.""",
    lesson="""
        out[k] = W[ids[k]]: row W[r] is copied once for every position k with ids[k] = r,
        so its gradient is the SUM of the gradients of all those positions:
            dL/dW[r] = sum over k with ids[k] == r of G[k]
        np.add.at(w_grad, ids, G) does this unbuffered scatter-add. The bug writes
        w_grad[ids] = G; NumPy fancy assignment with repeated indices keeps only the last
        write, so a token seen 50 times gets the gradient of one occurrence.

        Why nothing crashes: w_grad has W's shape. Batches without repeated ids - the
        usual toy test - give exactly the right answer.""",
    example=_embedding_example,
)
def embedding_overwrites_repeated_ids(ctx, grad):
    rows = grad.reshape(-1, grad.shape[-1])
    ids = ctx.ids.reshape(-1)
    if ctx.padding_idx is not None:
        keep = ids != ctx.padding_idx % ctx.num_rows
        rows, ids = rows[keep], ids[keep]
    weight_grad = np.zeros((ctx.num_rows, grad.shape[-1]), dtype=grad.dtype)
    weight_grad[ids] = rows                                # last write wins
    return (weight_grad,)


# --- normalisation ----------------------------------------------------------------------

def _layer_norm_example(rng):
    n, d = size(rng, 2, 4), size(rng, 3, 6)
    x, weight, bias = leaf(rng, (n, d)), leaf(rng, (d,), 0.5, 1.5), leaf(rng, (d,))
    norm = _primitive("layer_norm")
    return ({"x": x, "weight": weight, "bias": bias},
            lambda: norm.apply(x, weight, bias, normalized_shape=(d,), eps=1e-5,
                               params=("weight", "bias")))


def _batch_norm_example(rng):
    n, c = size(rng, 3, 5), size(rng, 2, 4)
    x, weight, bias = leaf(rng, (n, c)), leaf(rng, (c,), 0.5, 1.5), leaf(rng, (c,))
    norm = _primitive("batch_norm")
    return ({"x": x, "weight": weight, "bias": bias},
            lambda: norm.apply(x, weight, bias, training=True, eps=1e-5,
                               params=("weight", "bias")))


def _norm_without_statistics(ctx, grad, param_axes):
    """The 'simplified' backward: dL/dx = rstd * gamma * G, as if mean and std were constants."""
    xhat, rstd, weight = ctx.saved_tensors
    grads = {}
    if weight is not None:
        grads["weight"] = (grad * xhat).sum(axis=param_axes).reshape(weight.shape)
    if "bias" in ctx.params:
        grads["bias"] = grad.sum(axis=param_axes).reshape(ctx.bias_shape)
    grad_xhat = grad if weight is None else grad * weight.reshape(ctx.param_shape)
    return (grad_xhat * rstd,) + tuple(grads[name] for name in ctx.params)


_NORM_LESSON = """
    {name} computes
        xhat = (x - mean) / sqrt(var + eps),   y = gamma * xhat + beta,
    where mean and var are computed FROM x ({over}). So x reaches the
    output by three paths - directly, through the mean, through the variance - and with
    gx = gamma * G:
        dL/dx = rstd * (gx - mean(gx) - xhat * mean(gx * xhat))
    The bug keeps only the direct path, dL/dx = rstd * gx, treating mean and std as
    constants ({constant_case}). The two dropped
    terms remove the parts of the gradient that normalisation cancels anyway: shifting
    all of x, or scaling it, does not change xhat.

    Why nothing crashes: rstd * gx has x's shape and the gamma and beta gradients are
    still right, so the layer's own parameters look perfectly healthy."""


@define(
    name="layer_norm_ignores_statistics",
    op="layer_norm",
    family="normalization",
    summary="layer norm's backward treats the mean and variance as constants (the "
            "'simplified' rstd * gamma * G), dropping their gradient paths",
    symptom="""Training still works, a little worse than the reference: the layers feeding a
        LayerNorm receive gradients with components the normalisation cancels in forward. A
        gradient check passes on the LayerNorm's own weight and bias and fails on every layer
        below it.""",
    lesson=_NORM_LESSON.format(name="layer_norm", over="over each sample's last axes",
                               constant_case="right only for statistics that do not come from x"),
    example=_layer_norm_example,
)
def layer_norm_ignores_statistics(ctx, grad):
    leading = tuple(range(grad.ndim - len(ctx.param_shape)))
    return _norm_without_statistics(ctx, grad, leading)


@define(
    name="batch_norm_ignores_statistics",
    op="batch_norm",
    family="normalization",
    summary="batch norm's training-mode backward treats the batch mean and variance as "
            "constants, the way its eval-mode backward rightly does",
    symptom="""The layers below a BatchNorm get gradients that include directions batch norm
        removes in forward: training is slower and noisier than the reference, and a
        gradient check fails on every layer below the BatchNorm while its own weight and
        bias pass. Eval mode is unaffected, which hides it in inference tests.""",
    lesson=_NORM_LESSON.format(name="batch_norm (training mode)",
                               over="over the batch and spatial axes",
                               constant_case="right only in eval mode, with running statistics"),
    example=_batch_norm_example,
)
def batch_norm_ignores_statistics(ctx, grad):
    return _norm_without_statistics(ctx, grad, ctx.axes)

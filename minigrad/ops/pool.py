"""2-D max and average pooling, as ``torch.nn.functional.max_pool2d`` / ``avg_pool2d``.

Both look at every (kh, kw) window of the padded input (ops/windows.py).
Max pooling passes each output's gradient to the one input that won its window
(the first maximum in row-major order, as torch does; ties are a kink of the
function, so any single winner is a valid subgradient). Average pooling spreads
each output's gradient evenly over the values it averaged.
"""
import numpy as np

from ..autograd import Function
from .registry import register
from .windows import (add_windows, check_image, crop, output_size, pad_image, pair, windows,
                      windows_reach_input)


def _geometry(op, x, kernel_size, stride, padding, dilation=1):
    check_image(op, x)
    kernel = pair(kernel_size, "kernel_size", 1)
    stride = kernel if stride is None else pair(stride, "stride", 1)
    padding, dilation = pair(padding, "padding"), pair(dilation, "dilation", 1)
    for axis in (0, 1):
        if 2 * padding[axis] > kernel[axis]:
            raise ValueError(
                f"{op}: padding {padding} is more than half the kernel size {kernel}; a window "
                "could then lie almost entirely in the padding. Use padding <= kernel_size // 2")
    out_hw = tuple(output_size(op, x.shape[2 + axis], kernel[axis], stride[axis], padding[axis],
                               dilation[axis], ("height", "width")[axis]) for axis in (0, 1))
    for axis in (0, 1):
        if padding[axis] and not windows_reach_input(  # without padding every window is real
                x.shape[2 + axis], kernel[axis], stride[axis], padding[axis], dilation[axis],
                out_hw[axis]):
            raise ValueError(
                f"{op}: with kernel {kernel}, dilation {dilation} and padding {padding}, some windows "
                f"over an input of size {x.shape[2:]} touch only padding; reduce the padding or "
                "the dilation")
    return kernel, stride, padding, dilation, out_hw


@register("max_pool2d")
class MaxPool2d(Function):
    @staticmethod
    def forward(ctx, x, kernel_size=2, stride=None, padding=0, dilation=1):
        kernel, stride, padding, dilation, out_hw = _geometry(
            "max_pool2d", x, kernel_size, stride, padding, dilation)
        ctx.kernel, ctx.stride, ctx.padding, ctx.dilation = kernel, stride, padding, dilation
        ctx.side_by_side = None
        if stride == kernel and padding == (0, 0) and dilation == (1, 1):
            out = _max_side_by_side(ctx, x, out_hw)
            if out is not None:
                return out
        padded = pad_image(x, padding, value=-np.inf)  # padding never wins a window
        cols = windows(padded, kernel, stride, dilation, out_hw)
        n, c, oh, ow, kh, kw = cols.shape
        # element k = i * kw + j of every window, one (C, oh, ow, N) slice per k: the batch
        # axis last, as the image is stored, so this copy moves long contiguous runs
        stack = cols.transpose(4, 5, 1, 2, 3, 0).reshape(kh * kw, c, oh, ow, n)
        out = stack.max(axis=0)
        # the winner is the first maximum (row-major), like torch; a NaN counts as the maximum
        # (np.max passes it on). Walking the window backwards, the first hit is written last.
        winner = np.zeros(out.shape, dtype=np.intp)
        for k in reversed(range(len(stack))):
            np.putmask(winner, (stack[k] == out) | np.isnan(stack[k]), k)
        ctx.winner = winner.transpose(3, 0, 1, 2)[..., None]  # (N, C, oh, ow, 1) index into the window
        ctx.padded_shape = padded.shape
        return out.transpose(3, 0, 1, 2)

    @staticmethod
    def backward(ctx, grad):
        # window element k = i * kw + j receives the output's gradient where it was the winner,
        # exactly 0 elsewhere (a copy where it won, not g * mask: inf * 0 would be nan); the
        # parts are (C, oh, ow, N), the batch axis last like the image
        if ctx.side_by_side is not None:
            return (_max_side_by_side_backward(ctx, grad),)
        kh, kw = ctx.kernel
        winner, g = ctx.winner[..., 0].transpose(1, 2, 3, 0), grad.transpose(1, 2, 3, 0)
        parts = np.zeros((kh * kw,) + g.shape, dtype=grad.dtype)
        for k in range(kh * kw):
            np.copyto(parts[k], g, where=winner == k)
        window_grad = parts.reshape((kh, kw) + g.shape).transpose(5, 2, 3, 4, 0, 1)  # N,C,oh,ow,kh,kw
        image = add_windows(window_grad, ctx.padded_shape, ctx.stride, ctx.dilation)
        return (crop(image, ctx.padding),)


def _window_parts(x, kernel, out_hw):
    """Element k = i * kw + j of every window, when the windows lie side by side (stride =
    kernel, no padding): the strided view x[:, :, i::kh, j::kw], in x's own memory layout."""
    (kh, kw), (oh, ow) = kernel, out_hw
    return [x[:, :, i:i + kh * oh:kh, j:j + kw * ow:kw] for i in range(kh) for j in range(kw)]


def _max_side_by_side(ctx, x, out_hw):
    """The common max pool (2x2, stride 2) without copying windows out: a running maximum
    over the kh*kw strided views, in x's own memory layout (a convolution's output layout
    stays as it is). None when a NaN is present: the general path decides its winner."""
    parts = _window_parts(x, ctx.kernel, out_hw)
    out = parts[0].copy(order="K")
    winner = np.zeros_like(out, dtype=np.uint8 if len(parts) < 256 else np.intp)
    for k, part in enumerate(parts[1:], 1):
        # strictly greater: the first maximum wins. k only grows, so a max keeps the last k
        # that beat the running maximum (ufuncs only: np.where/copyto(where=) are slow on views)
        np.maximum(winner, (part > out) * winner.dtype.type(k), out=winner)
        np.maximum(out, part, out=out)
    if np.isnan(out).any():
        return None
    ctx.winner, ctx.side_by_side = winner[..., None], x
    ctx.padded_shape = x.shape
    return out


def _max_side_by_side_backward(ctx, grad):
    x, winner = ctx.side_by_side, ctx.winner[..., 0]
    grad_x = np.zeros_like(x)                    # x's layout, so the copies below stream
    g = np.empty_like(winner, dtype=grad.dtype)
    g[...] = grad
    finite = np.isfinite(g).all()                # then g * mask is exact; inf * 0 would be nan
    for k, part in enumerate(_window_parts(grad_x, ctx.kernel, winner.shape[2:])):
        if finite:
            np.multiply(g, winner == k, out=part)
        else:
            np.copyto(part, g, where=winner == k)
    return grad_x


def winner_positions(ctx, width):
    """Where each maximum of a max_pool2d forward came from: ``row * width + col`` of the
    unpadded input, shape (N, C, oh, ow), as torch's ``return_indices``."""
    kh, kw = ctx.kernel
    k = ctx.winner[..., 0].astype(np.intp)
    oh, ow = k.shape[2:]
    rows = (np.arange(oh)[:, None] * ctx.stride[0] + (k // kw) * ctx.dilation[0] - ctx.padding[0])
    cols = (np.arange(ow)[None, :] * ctx.stride[1] + (k % kw) * ctx.dilation[1] - ctx.padding[1])
    return (rows * width + cols).astype(np.int64)


@register("avg_pool2d")
class AvgPool2d(Function):
    @staticmethod
    def forward(ctx, x, kernel_size=2, stride=None, padding=0, count_include_pad=True,
                divisor_override=None):
        kernel, stride, padding, dilation, out_hw = _geometry(
            "avg_pool2d", x, kernel_size, stride, padding)
        padded = pad_image(x, padding)
        sums = windows(padded, kernel, stride, dilation, out_hw).sum(axis=(4, 5))
        if divisor_override is not None:
            divisor = np.asarray(divisor_override, dtype=x.dtype)
        elif count_include_pad:
            divisor = np.asarray(kernel[0] * kernel[1], dtype=x.dtype)
        else:  # count only the real pixels of each window
            ones = pad_image(np.ones((1, 1) + x.shape[2:], dtype=x.dtype), padding)
            divisor = windows(ones, kernel, stride, dilation, out_hw).sum(axis=(4, 5))
        ctx.divisor, ctx.kernel, ctx.stride, ctx.padding, ctx.padded_shape = (
            divisor, kernel, stride, padding, padded.shape)
        return (sums / divisor).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        share = (grad / ctx.divisor).astype(grad.dtype, copy=False)
        window_grad = np.broadcast_to(share[..., None, None], grad.shape + ctx.kernel)
        image = add_windows(window_grad, ctx.padded_shape, ctx.stride, (1, 1))
        return (np.ascontiguousarray(crop(image, ctx.padding)),)

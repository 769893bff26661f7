"""2-D convolution (cross-correlation, as ``torch.nn.functional.conv2d``).

With the input padded, stride s and dilation d:

    out[n, o, y, x] = b[o] + sum_{c, i, j} w[o, c, i, j] * in[n, c, y*s + i*d, x*s + j*d]

Forward ("im2col"): copy every (kh, kw, C) window into one matrix - a row per output
pixel, a column per (i, j, c) - and the whole convolution is one matrix product,
matrix @ weight^T (pixels x O). The matrix is kh*kw times the size of the input, but
it only lives for that one product.

Backward, one kernel offset (i, j) at a time: the pixels that offset read, for every
output pixel at once, are one strided slice of the image (ops/windows.py,
``kernel_offsets``), and with g = dL/dout as a (pixels x O) matrix
    dL/dw[:, :, i, j] = g^T @ slice                  (O x C)
    dL/dslice         = g @ w[:, :, i, j]            (pixels x C), added back onto the
                                                      image where the slice came from
    dL/db[o]          = sum of g[:, o] over all pixels
(dL/dslice is skipped when the input needs no gradient, e.g. the images of a first layer.)
Gradients of overlapping windows must be added back offset by offset anyway, so
working offset by offset never builds the big window-gradient matrix.

Images are kept (H, W, N, C) in memory, batch and channels last (see ops/windows.py,
``pad_channels_last``): the matrix rows run over (y, x, n), its copy moves runs of C
numbers, and the product comes out (out_h, out_w, N, O), returned as an (N, O, out_h,
out_w) view. That is also the layout of the fast path for 3x3 stride-1 kernels
(ops/winograd.py, used instead of this one where it applies), so the two paths hand
each other their outputs without reordering.
"""
import numpy as np

from ..autograd import Function
from . import winograd
from .registry import register
from .windows import (check_image, crop, kernel_offsets, output_size, pad_channels_last, pair,
                      windows)


@register("conv2d")
class Conv2d(Function):
    """Inputs: (input, weight) or (input, weight, bias); kwargs stride, padding, dilation (pairs)."""

    @staticmethod
    def forward(ctx, x, weight, *bias, stride=(1, 1), padding=(0, 0), dilation=(1, 1)):
        check_image("conv2d", x)
        stride, padding, dilation = (
            pair(stride, "stride", 1), pair(padding, "padding"), pair(dilation, "dilation", 1))
        if weight.ndim != 4:
            raise ValueError(f"conv2d expects a weight shaped (out_channels, in_channels, kh, kw), "
                             f"got shape {weight.shape}")
        if weight.shape[1] != x.shape[1]:
            raise ValueError(
                f"conv2d: the input of shape {x.shape} has {x.shape[1]} channels, but the weight "
                f"{weight.shape} expects {weight.shape[1]} input channels; weight is (out_channels, "
                "in_channels, kh, kw) - check the layer's in_channels")
        if len(bias) > 1 or (bias and bias[0].shape != (weight.shape[0],)):
            got = [b.shape for b in bias]
            raise ValueError(f"conv2d expects one bias of shape ({weight.shape[0]},), got {got}")
        kernel = weight.shape[2:]
        out_hw = (output_size("conv2d", x.shape[2], kernel[0], stride[0], padding[0], dilation[0], "height"),
                  output_size("conv2d", x.shape[3], kernel[1], stride[1], padding[1], dilation[1], "width"))
        ctx.has_bias, ctx.stride, ctx.padding, ctx.dilation, ctx.out_hw = (
            bool(bias), stride, padding, dilation, out_hw)
        ctx.winograd = None
        if winograd.applies(x, weight, stride, dilation):   # the fast path: see ops/winograd.py
            padded, out, ctx.winograd = winograd.conv3x3(x, weight, bias[0] if bias else None,
                                                         padding, out_hw)
            ctx.save_for_backward(padded, weight)
            return out
        padded = pad_channels_last(x, padding)
        ctx.save_for_backward(padded, weight)
        cols = windows(padded, kernel, stride, dilation, out_hw)       # (N, C, oh, ow, kh, kw) view
        # the copy into (oh, ow, N, kh, kw, C) order moves runs of C: C is innermost in memory
        matrix = cols.transpose(2, 3, 0, 4, 5, 1).reshape(out_hw[0] * out_hw[1] * len(x),
                                                          x.shape[1] * kernel[0] * kernel[1])
        out = matrix @ weight.transpose(0, 2, 3, 1).reshape(len(weight), -1).T  # (oh*ow*N, O)
        if bias:
            out += bias[0]
        return out.reshape(out_hw + (len(x), len(weight))).transpose(2, 3, 0, 1)  # (N, O, oh, ow)

    @staticmethod
    def backward(ctx, grad):
        if ctx.winograd is not None:
            return _winograd_backward(ctx, grad)
        padded, weight = ctx.saved_tensors
        image = padded.transpose(2, 3, 0, 1)                          # (H, W, N, C), as stored
        g = grad.transpose(2, 3, 0, 1).reshape(-1, len(weight))       # (oh*ow*N, O), a view
        grad_weight = np.zeros(weight.shape, dtype=np.result_type(grad, padded))
        # the images fed to a first layer need no gradient: skip half the work for them
        grad_image = np.zeros(image.shape, dtype=grad.dtype) if ctx.needs_input_grad[0] else None
        for i, j, rows, cols in kernel_offsets(weight.shape[2:], ctx.stride, ctx.dilation, ctx.out_hw):
            grad_weight[:, :, i, j] = g.T @ _pixels(image, rows, cols)
            if grad_image is not None:
                grad_slice = grad_image[rows, cols]                    # a view: += writes the image
                grad_slice += (g @ weight[:, :, i, j]).reshape(grad_slice.shape)
        grad_input = None if grad_image is None else crop(grad_image.transpose(2, 3, 0, 1),
                                                           ctx.padding)
        grads = (grad_input, grad_weight)
        if ctx.has_bias:
            grads += (g.sum(axis=0),)
        return grads


def _winograd_backward(ctx, grad):
    grad_image, grad_weight, grad_bias = winograd.conv3x3_backward(
        grad, ctx.winograd, ctx.saved_tensors[0].shape[2:], ctx.needs_input_grad[0],
        ctx.has_bias)
    grads = (None if grad_image is None else crop(grad_image, ctx.padding), grad_weight)
    return grads + ((grad_bias,) if ctx.has_bias else ())


def _pixels(image, rows, cols):
    """The pixels of an (H, W, N, C) image at ``rows`` x ``cols``, as a (pixels, C) matrix."""
    return image[rows, cols].reshape(-1, image.shape[3])

"""2-D convolution (cross-correlation, as ``torch.nn.functional.conv2d``).

Forward: every output pixel is the dot product of one (C, kh, kw) window of the
padded input with each of the O filters. With all windows as one strided view
(ops/windows.py) that is a single ``tensordot`` - one matrix product.

Backward, for ``out[n,o,y,x] = sum_{c,i,j} win[n,c,y,x,i,j] w[o,c,i,j] + b[o]``:
    dL/dw[o,c,i,j]  = sum_{n,y,x} g[n,o,y,x] win[n,c,y,x,i,j]
    dL/db[o]        = sum_{n,y,x} g[n,o,y,x]
    dL/dwin         = sum_o g[n,o,y,x] w[o,c,i,j], added back onto the input
                      where each window came from (``add_windows``, "col2im").
"""
import numpy as np

from ..autograd import Function
from .registry import register
from .windows import add_windows, check_image, crop, output_size, pad_image, pair, windows


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
                f"conv2d: the input has {x.shape[1]} channels (shape {x.shape}) but the weight "
                f"{weight.shape} expects {weight.shape[1]}; weight is (out_channels, in_channels, "
                "kh, kw) - check the layer's in_channels")
        if len(bias) > 1 or (bias and bias[0].shape != (weight.shape[0],)):
            got = [b.shape for b in bias]
            raise ValueError(f"conv2d expects one bias of shape ({weight.shape[0]},), got {got}")
        kernel = weight.shape[2:]
        out_hw = (output_size("conv2d", x.shape[2], kernel[0], stride[0], padding[0], dilation[0], "height"),
                  output_size("conv2d", x.shape[3], kernel[1], stride[1], padding[1], dilation[1], "width"))
        padded = pad_image(x, padding)
        cols = windows(padded, kernel, stride, dilation, out_hw)        # (N, C, oh, ow, kh, kw)
        # (O, C*kh*kw) @ (C*kh*kw, N*oh*ow): the window copy tensordot makes is then in the
        # view's cheap order (C, kh, kw, N, oh, ow) - about twice as fast as the other way round
        out = np.tensordot(weight, cols, axes=([1, 2, 3], [1, 4, 5]))  # (O, N, oh, ow)
        out = np.moveaxis(out, 0, 1)
        if bias:
            out = out + bias[0].reshape(1, -1, 1, 1)
        ctx.save_for_backward(padded, weight)
        ctx.has_bias, ctx.stride, ctx.padding, ctx.dilation, ctx.out_hw = (
            bool(bias), stride, padding, dilation, out_hw)
        return np.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        padded, weight = ctx.saved_tensors
        cols = windows(padded, weight.shape[2:], ctx.stride, ctx.dilation, ctx.out_hw)
        grad_weight = np.tensordot(cols, grad, axes=([0, 2, 3], [0, 2, 3]))  # (C, kh, kw, O)
        grad_weight = np.ascontiguousarray(np.moveaxis(grad_weight, 3, 0))  # (O, C, kh, kw)
        grad_cols = np.tensordot(grad, weight, axes=([1], [0]))              # (N, oh, ow, C, kh, kw)
        grad_cols = np.moveaxis(grad_cols, 3, 1)                            # (N, C, oh, ow, kh, kw)
        grad_input = crop(add_windows(grad_cols, padded.shape, ctx.stride, ctx.dilation), ctx.padding)
        grads = (np.ascontiguousarray(grad_input), grad_weight)
        if ctx.has_bias:
            grads += (grad.sum(axis=(0, 2, 3)),)
        return grads

"""Sliding windows over images, shared by convolution and pooling.

Convolution and pooling both look at every (kh, kw) window of a padded
(N, C, H, W) image. Two ways to see them:

* by window: ``windows`` returns them all at once as a strided view of shape
  (N, C, out_h, out_w, kh, kw) - no copying, no Python loop over pixels;
* by kernel offset: ``kernel_offsets`` gives, for each offset (i, j) of the
  kernel, the strided slice of the image that the offset reads for every output
  position at once (kh*kw slices of the output's size).

``add_windows`` is the way back from the first view: it adds a gradient of shape
(N, C, out_h, out_w, kh, kw) onto the image, one kernel offset at a time, so
windows that overlap add up their contributions.

Memory layout: batch axis last. NumPy loops over the innermost axis of an array
in C; every row outside it costs a little Python-free bookkeeping too. Small
images stored in the usual (N, C, H, W) order have rows of W numbers (8 for the
digits), so copying windows out or adding them back would be tens of thousands
of tiny loops. ``pad_image`` and ``add_windows`` therefore keep their images in
memory as (C, H, W, N) - the batch axis innermost - and hand out (N, C, H, W)
*views* of them (a transposed view costs nothing). The shapes and values are the
ordinary ones; only the strides differ, and every window operation runs along
rows of N numbers (the batch). Pooling returns its output in this layout too, so
the next layer reads it without a copy.

Convolution keeps its images (``pad_channels_last``) and outputs (H, W, N, C) instead -
channels innermost too - because its 3x3 fast path (ops/winograd.py) needs that layout,
and then a network of convolutions never reorders its activations (measured: a small
ResNet-like stack 24% faster than with each convolution converting to (C, H, W, N));
max pooling over side-by-side windows keeps whatever layout its input has (ops/pool.py).
"""
import numpy as np


def pair(value, name, minimum=0):
    """``3 -> (3, 3)``; ``(2, 3)`` stays; ``(3,)`` means (3, 3), as torch; else a clear error."""
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if is_int(value):
        result = (int(value), int(value))
    elif isinstance(value, (tuple, list)) and len(value) == 2 and all(is_int(v) for v in value):
        result = (int(value[0]), int(value[1]))
    else:
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    if min(result) < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return result


def output_size(op, size, kernel, stride, padding, dilation, axis_name):
    """Number of window positions along one axis; an error that explains itself if none fit."""
    span = dilation * (kernel - 1) + 1
    count = (size + 2 * padding - span) // stride + 1
    if count < 1:
        raise ValueError(
            f"{op}: the input {axis_name} {size} (plus padding {padding} on each side) is smaller "
            f"than the kernel's reach {span} (kernel {kernel}, dilation {dilation}); use a smaller "
            "kernel, more padding, or a larger input")
    return count


def windows_reach_input(size, kernel, stride, padding, dilation, count):
    """For one axis: does every window position cover at least one real (unpadded) pixel?

    With dilation a window can straddle the input and touch only padding on both
    sides; max pooling would then return -inf there.
    """
    starts = np.arange(count)[:, None] * stride + np.arange(kernel)[None, :] * dilation
    real = (starts >= padding) & (starts < padding + size)
    return bool(real.any(axis=1).all())


def pad_image(x, padding, value=0.0):
    """``x`` with ``padding`` = (ph, pw) pixels of ``value`` around each image, as an
    (N, C, H, W) view of a (C, H, W, N) array (batch axis last, see above).

    Without padding, an ``x`` already laid out batch axis last (the output of a pooling
    layer) comes back as it is: there is nothing to copy.
    """
    n, c, height, width = x.shape
    ph, pw = padding
    if ph == pw == 0 and x.transpose(1, 2, 3, 0).flags.c_contiguous:
        return x
    image = np.full((c, height + 2 * ph, width + 2 * pw, n), value, dtype=x.dtype)
    image[:, ph:ph + height, pw:pw + width, :] = x.transpose(1, 2, 3, 0)
    return image.transpose(3, 0, 1, 2)


def pad_channels_last(x, padding):
    """``x`` with ``padding`` = (ph, pw) zeros around each image, as an (N, C, H, W) view of
    an (H, W, N, C) array: the layout convolution keeps its images in (ops/conv.py).

    Without padding, an ``x`` already laid out that way (a convolution's output) comes
    back as it is.
    """
    n, c, height, width = x.shape
    ph, pw = padding
    if ph == pw == 0 and x.transpose(2, 3, 0, 1).flags.c_contiguous:
        return x
    image = np.zeros((height + 2 * ph, width + 2 * pw, n, c), dtype=x.dtype)
    image[ph:ph + height, pw:pw + width] = x.transpose(2, 3, 0, 1)
    return image.transpose(2, 3, 0, 1)


def windows(padded, kernel, stride, dilation, out_hw):
    """View of shape (N, C, out_h, out_w, kh, kw): window (i, j) of every image and channel."""
    kh, kw = kernel
    span_h, span_w = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    view = np.lib.stride_tricks.sliding_window_view(padded, (span_h, span_w), axis=(2, 3))
    view = view[:, :, ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]
    return view[:, :, :out_hw[0], :out_hw[1]]


def offset_slices(i, j, stride, dilation, out_hw):
    """The rows and columns of the padded image that kernel offset (i, j) reads, one per output."""
    top, left = i * dilation[0], j * dilation[1]
    return (slice(top, top + stride[0] * (out_hw[0] - 1) + 1, stride[0]),
            slice(left, left + stride[1] * (out_hw[1] - 1) + 1, stride[1]))


def kernel_offsets(kernel, stride, dilation, out_hw):
    """``(i, j, rows, cols)`` for every kernel offset, with ``offset_slices``' rows and columns."""
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            yield (i, j) + offset_slices(i, j, stride, dilation, out_hw)


def add_windows(window_grad, padded_shape, stride, dilation):
    """The adjoint of ``windows``: sum a (N, C, oh, ow, kh, kw) gradient back onto the image.

    Within one kernel offset the output positions touch distinct pixels (a
    strided slice), so a plain ``+=`` is exact; overlaps between offsets are
    handled by doing the offsets one after another. The image is built batch
    axis last (see above) and returned as an (N, C, H, W) view.
    """
    n, c, height, width = padded_shape
    out_hw = window_grad.shape[2:4]
    kh, kw = window_grad.shape[4:6]
    image = np.zeros((c, height, width, n), dtype=window_grad.dtype)
    batch_last = window_grad.transpose(1, 2, 3, 4, 5, 0)  # (C, oh, ow, kh, kw, N)
    for i, j, rows, cols in kernel_offsets((kh, kw), stride, dilation, out_hw):
        image[:, rows, cols, :] += batch_last[:, :, :, i, j, :]
    return image.transpose(3, 0, 1, 2)


def crop(padded, padding):
    ph, pw = padding
    return padded[:, :, ph:padded.shape[2] - ph, pw:padded.shape[3] - pw]


def check_image(op, x):
    if x.ndim != 4:
        raise ValueError(f"{op} expects a batch of images shaped (N, C, H, W), got shape {x.shape}; "
                         "add a batch axis with x.reshape(1, *x.shape) for a single image")

"""Sliding windows over images, shared by convolution and pooling.

Convolution and pooling both look at every (kh, kw) window of a padded
(N, C, H, W) image. ``windows`` returns them all at once as a strided view of
shape (N, C, out_h, out_w, kh, kw) - no copying, no Python loop over pixels
("im2col" without the copy). ``add_windows`` is the way back: it adds a
gradient of that shape onto the image, one kernel offset at a time (kh*kw
vectorised steps), so windows that overlap add up their contributions.
"""
import numpy as np


def pair(value, name, minimum=0):
    """``3 -> (3, 3)``; ``(2, 3)`` stays; anything else is a clear error."""
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
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
    ph, pw = padding
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def windows(padded, kernel, stride, dilation, out_hw):
    """View of shape (N, C, out_h, out_w, kh, kw): window (i, j) of every image and channel."""
    kh, kw = kernel
    span_h, span_w = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
    view = np.lib.stride_tricks.sliding_window_view(padded, (span_h, span_w), axis=(2, 3))
    view = view[:, :, ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]
    return view[:, :, :out_hw[0], :out_hw[1]]


def offset_slices(i, j, stride, dilation, out_hw):
    """Where kernel offset (i, j) lands in the padded image, for every output position."""
    top, left = i * dilation[0], j * dilation[1]
    return (slice(None), slice(None),
            slice(top, top + stride[0] * (out_hw[0] - 1) + 1, stride[0]),
            slice(left, left + stride[1] * (out_hw[1] - 1) + 1, stride[1]))


def add_windows(window_grad, padded_shape, stride, dilation):
    """The adjoint of ``windows``: sum a (N, C, oh, ow, kh, kw) gradient back onto the image.

    Within one kernel offset the output positions touch distinct pixels (a
    strided slice), so a plain ``+=`` is exact; overlaps between offsets are
    handled by doing the offsets one after another.
    """
    out_hw = window_grad.shape[2:4]
    kh, kw = window_grad.shape[4:6]
    image = np.zeros(padded_shape, dtype=window_grad.dtype)
    for i in range(kh):
        for j in range(kw):
            image[offset_slices(i, j, stride, dilation, out_hw)] += window_grad[:, :, :, :, i, j]
    return image


def crop(padded, padding):
    ph, pw = padding
    return padded[:, :, ph:padded.shape[2] - ph, pw:padded.shape[3] - pw]


def check_image(op, x):
    if x.ndim != 4:
        raise ValueError(f"{op} expects a batch of images shaped (N, C, H, W), got shape {x.shape}; "
                         "add a batch axis with x.reshape(1, *x.shape) for a single image")

"""2-D convolution and pooling layers (N, C, H, W), with torch's arguments and repr."""

import numpy as np

from ..tensor import get_default_dtype
from . import functional as F
from . import init
from .arguments import check_count, check_device
from .module import Module, Parameter


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _check_window(layer, kernel_size, stride, padding=0, dilation=1):
    """Kernel, stride and dilation positive, padding non-negative (ints or pairs of them)."""
    for name, value, minimum in (("kernel_size", kernel_size, 1), ("stride", stride, 1),
                                 ("padding", padding, 0), ("dilation", dilation, 1)):
        if value is None or isinstance(value, str):
            continue        # stride=None means the kernel; padding='same'/'valid' is checked apart
        for part in (value if isinstance(value, (tuple, list)) else (value,)):
            check_count(part, f"{layer}: {name}", minimum)


def _check_groups(in_channels, out_channels, groups):
    """torch's rule: groups split both channel counts evenly."""
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"groups must be a positive int, got {groups!r}")
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) must "
                         f"both be divisible by groups ({groups})")


class Conv2d(Module):
    """Cross-correlate (N, in_channels, H, W) with weight (out_channels, in_channels, kH, kW).

    Initialised like torch: kaiming_uniform with a=sqrt(5) and a bias from
    Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels * kH * kW.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        check_device(device)
        if padding_mode != "zeros":
            raise NotImplementedError("minigrad's Conv2d supports padding_mode='zeros' only")
        check_count(in_channels, "Conv2d: in_channels")
        check_count(out_channels, "Conv2d: out_channels")
        _check_window("Conv2d", kernel_size, stride, padding, dilation)
        _check_groups(in_channels, out_channels, groups)
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"padding must be an int, a pair, 'same' or 'valid', got {padding!r}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self.output_padding = (0, 0)
        dtype = np.dtype(dtype or get_default_dtype())
        shape = (self.out_channels, self.in_channels // groups) + self.kernel_size
        self.weight = Parameter(np.empty(shape, dtype=dtype), dtype=dtype)
        if bias:
            self.bias = Parameter(np.empty(self.out_channels, dtype=dtype), dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.layer_default_(self.weight, self.bias)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text


class MaxPool2d(Module):
    """Maximum over each kernel_size window; stride defaults to kernel_size."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        _check_window("MaxPool2d", kernel_size, stride, padding, dilation)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """Mean over each kernel_size window (padded zeros counted unless count_include_pad=False)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        _check_window("AvgPool2d", kernel_size, stride, padding)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding,
                            ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad,
                            divisor_override=self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value):
    return (int(value[0]),) if isinstance(value, (tuple, list)) else (int(value),)


class Conv1d(Module):
    """Cross-correlate (N, in_channels, L) with weight (out_channels, in_channels, K).

    Initialised like torch (as Conv2d, with fan_in = in_channels * K).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        check_device(device)
        if padding_mode != "zeros":
            raise NotImplementedError("minigrad's Conv1d supports padding_mode='zeros' only")
        check_count(in_channels, "Conv1d: in_channels")
        check_count(out_channels, "Conv1d: out_channels")
        _check_window("Conv1d", kernel_size, stride, padding, dilation)
        _check_groups(in_channels, out_channels, groups)
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"padding must be an int, 'same' or 'valid', got {padding!r}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride = _single(kernel_size), _single(stride)
        self.padding = padding if isinstance(padding, str) else _single(padding)
        self.dilation, self.groups, self.padding_mode = _single(dilation), groups, padding_mode
        self.output_padding = (0,)
        dtype = np.dtype(dtype or get_default_dtype())
        shape = (self.out_channels, self.in_channels // groups) + self.kernel_size
        self.weight = Parameter(np.empty(shape, dtype=dtype), dtype=dtype)
        if bias:
            self.bias = Parameter(np.empty(self.out_channels, dtype=dtype), dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.layer_default_(self.weight, self.bias)

    def forward(self, input):
        padding = self.padding if isinstance(self.padding, str) else self.padding[0]
        return F.conv1d(input, self.weight, self.bias, self.stride[0], padding, self.dilation[0],
                        self.groups)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,):
            text += f", padding={self.padding}"
        if self.dilation != (1,):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text

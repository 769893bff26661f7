"""Linear (fully connected) layer, plus Identity and Flatten, which only reshape."""

import numpy as np

from ..tensor import get_default_dtype
from . import functional as F
from . import init
from .arguments import check_count, check_device
from .module import Module, Parameter


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features), as torch lays it out.

    Default initialisation is torch's: kaiming_uniform with a=sqrt(5), which works
    out to Uniform(-1/sqrt(in_features), 1/sqrt(in_features)), and the bias drawn
    from the same range.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device)
        self.in_features = check_count(in_features, "Linear: in_features")
        self.out_features = check_count(out_features, "Linear: out_features")
        dtype = np.dtype(dtype or get_default_dtype())
        self.weight = Parameter(np.empty((self.out_features, self.in_features), dtype=dtype),
                                dtype=dtype)
        if bias:
            self.bias = Parameter(np.empty(self.out_features, dtype=dtype), dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.layer_default_(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Identity(Module):
    """Returns its input unchanged (a placeholder, e.g. to switch a layer off)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Module):
    """Merge axes start_dim..end_dim; the default keeps the batch axis: (N, C, H, W) -> (N, CHW)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"

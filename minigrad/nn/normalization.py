"""Batch normalisation and layer normalisation layers."""
import numpy as np

from ..tensor import Tensor, get_default_dtype
from . import functional as F
from . import init
from .arguments import check_count, check_device
from .module import Module, Parameter


class _BatchNorm(Module):
    """Normalise each channel over the batch (and spatial axes), then scale and shift.

    Training mode uses the batch's statistics and updates the running estimates
    (``running_mean``, ``running_var``, ``num_batches_tracked`` buffers); eval mode
    uses the running estimates. ``momentum=None`` gives a cumulative average, as torch.
    """

    _expected_dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        check_device(device)
        self.num_features = check_count(num_features, f"{type(self).__name__}: num_features")
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype = np.dtype(dtype or get_default_dtype())
        if affine:
            self.weight = Parameter(np.ones(self.num_features, dtype=dtype), dtype=dtype)
            if bias:
                self.bias = Parameter(np.zeros(self.num_features, dtype=dtype), dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(self.num_features, dtype=dtype),
                                                        dtype=dtype))
            self.register_buffer("running_var", Tensor(np.ones(self.num_features, dtype=dtype),
                                                       dtype=dtype))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input(self, input):
        if input.ndim not in self._expected_dims:
            wanted = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"{type(self).__name__} expected {wanted} input (got {input.ndim}D "
                             f"input of shape {input.shape})")
        if input.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}) expected "
                             f"{self.num_features} channels on axis 1, got input of shape "
                             f"{input.shape}")

    def forward(self, input):
        self._check_input(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.data += 1
            if self.momentum is None:   # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.data)
        use_batch_stats = self.training or self.running_mean is None
        running = (None, None) if (self.training and not self.track_running_stats) else \
            (self.running_mean, self.running_var)
        return F.batch_norm(input, running[0], running[1], self.weight, self.bias,
                            use_batch_stats, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) inputs."""
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) inputs."""
    _expected_dims = (4,)


class LayerNorm(Module):
    """Normalise each sample over its last ``len(normalized_shape)`` axes."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        check_device(device)
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dtype = np.dtype(dtype or get_default_dtype())
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape, dtype=dtype), dtype=dtype)
            if bias:
                self.bias = Parameter(np.zeros(self.normalized_shape, dtype=dtype), dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each sample over groups of channels (batch-size independent, unlike BatchNorm)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        check_device(device)
        check_count(num_groups, "GroupNorm: num_groups")
        check_count(num_channels, "GroupNorm: num_channels")
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels = int(num_groups), int(num_channels)
        self.eps, self.affine = eps, affine
        dtype = np.dtype(dtype or get_default_dtype())
        if affine:
            self.weight = Parameter(np.ones(self.num_channels, dtype=dtype), dtype=dtype)
            self.bias = Parameter(np.zeros(self.num_channels, dtype=dtype), dtype=dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"

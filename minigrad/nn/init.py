"""Weight initialisation, in place, with torch's names and formulas.

Every random draw comes from ``minigrad.random.generator()``, so
``mg.manual_seed(s)`` before building a model makes its weights repeatable.
Values are drawn in float64 and stored in the tensor's own dtype.

Why the scales: a layer with ``fan_in`` inputs sums that many terms, so weights
of variance ``gain**2 / fan_in`` keep the activations' variance roughly constant
from layer to layer (He et al. 2015 for ReLU-like units, Glorot & Bengio 2010
for the averaged ``fan_in + fan_out`` version).
"""
import math

import numpy as np

from ..random import generator
from ..tensor import Tensor


def _fill(tensor, values):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init functions work on minigrad tensors/parameters, got "
                        f"{type(tensor).__name__}")
    tensor.data[...] = np.asarray(values).astype(tensor.dtype, copy=False)
    return tensor


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' scale through ``nonlinearity`` (torch's table)."""
    linear_fns = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid")
    if nonlinearity in linear_fns:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity!r}; use one of linear, conv2d, "
                     "sigmoid, tanh, relu, leaky_relu, selu")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight laid out (out, in, *kernel) as torch lays it out."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for a tensor with fewer than 2 "
                         f"dimensions (got shape {tensor.shape})")
    receptive_field = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


calculate_fan_in_and_fan_out = _calculate_fan_in_and_fan_out


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    return _fill(tensor, generator().uniform(a, b, size=tensor.shape))


def normal_(tensor, mean=0.0, std=1.0):
    return _fill(tensor, generator().normal(mean, std, size=tensor.shape))


def constant_(tensor, val):
    return _fill(tensor, np.full(tensor.shape, val))


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError(f"eye_ needs a 2-D tensor, got shape {tensor.shape}")
    return _fill(tensor, np.eye(*tensor.shape))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Uniform(-b, b) with b = gain * sqrt(3 / fan): variance gain**2 / fan (He init)."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)


def xavier_uniform_(tensor, gain=1.0):
    """Uniform(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot init)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def layer_default_(weight, bias=None):
    """torch's default initialisation of Linear and Conv layers.

    Weights: kaiming_uniform_ with a=sqrt(5), i.e. uniform in +-1/sqrt(fan_in); biases:
    uniform in +-1/sqrt(fan_in) too. Kept identical to torch so that a model built with the
    same seed logic starts at the same scale in both frameworks.
    """
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)

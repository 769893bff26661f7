"""Stateless layer functions, named and called like ``torch.nn.functional``.

Each is a thin composition of ``minigrad.ops`` primitives: no derivative is
written here, so replacing a primitive's backward in ``ops.REGISTRY`` changes
the gradient of every function below that uses it. Arguments are checked in
``minigrad.ops`` (one place per check); these functions only translate torch's
signatures. Where torch spells an axis ``dim``, so do these functions.
"""
import warnings

import numpy as np

from .. import ops
from ..tensor import Tensor, as_tensor

def _constant_tensor(array):
    """A NumPy constant as a tensor that keeps its dtype (plain arrays would take the default)."""
    return Tensor(array, dtype=array.dtype, _copy=False)


# --- activations -----------------------------------------------------------------
def relu(input, inplace=False):
    return ops.relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return ops.leaky_relu(input, negative_slope=negative_slope)


def tanh(input):
    return ops.tanh(input)


def sigmoid(input):
    return ops.sigmoid(input)


def gelu(input, approximate="none"):
    return ops.gelu(input, approximate=approximate)


def _softmax_dim(ndim, dim, fn):
    if dim is None:
        # torch's legacy implicit choice: the class axis of (C,), (N, C) and (C, H, W) inputs
        warnings.warn(f"Implicit dimension choice for {fn} has been deprecated. "
                      "Change the call to include dim=X as an argument.", UserWarning, stacklevel=3)
        return 0 if ndim in (0, 1, 3) else 1
    return dim


def softmax(input, dim=None):
    input = as_tensor(input)
    return ops.softmax(input, axis=_softmax_dim(input.ndim, dim, "softmax"))


def log_softmax(input, dim=None):
    input = as_tensor(input)
    return ops.log_softmax(input, axis=_softmax_dim(input.ndim, dim, "log_softmax"))


# --- linear and convolution ----------------------------------------------------
def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` with torch's (out_features, in_features) weight layout."""
    input = as_tensor(input)
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out_features, in_features), got shape "
                         f"{weight.shape}")
    if input.ndim == 0 or input.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"linear: expected input of shape (*, {weight.shape[1]}) (in_features={weight.shape[1]}),"
            f" got shape {input.shape}; the last dimension of the input must equal in_features "
            "(flatten images first, or change in_features to match your data)")
    if input.dtype != weight.dtype and input.dtype.kind != "f":
        raise TypeError(f"linear: the input has dtype {input.dtype} but the weight {weight.dtype}; "
                        f"pass input.to('{weight.dtype.name}') (a float input of another "
                        f"precision is promoted, as in NumPy)")
    out = ops.matmul(input, ops.permute(weight, (1, 0)))
    if bias is not None:
        out = ops.add(out, bias)
    return out


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return ops.conv2d(input, weight, bias, stride=stride, padding=padding, dilation=dilation,
                      groups=groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return ops.max_pool2d(input, kernel_size, stride=stride, padding=padding, dilation=dilation,
                          ceil_mode=ceil_mode, return_indices=return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return ops.avg_pool2d(input, kernel_size, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge the axes start_dim..end_dim into one (torch.flatten)."""
    return ops.flatten(input, start_dim, end_dim)


# --- regularisation and normalisation ------------------------------------------------
def dropout(input, p=0.5, training=True, inplace=False):
    return ops.dropout(input, p=p, training=training)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by integer ``input``; the padding row gets no gradient."""
    return ops.embedding(input, weight, padding_idx=padding_idx, max_norm=max_norm,
                         scale_grad_by_freq=scale_grad_by_freq)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return ops.layer_norm(input, normalized_shape, weight=weight, bias=bias, eps=eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel; in training mode also update the running buffers in place."""
    return ops.batch_norm(input, running_mean, running_var, weight=weight, bias=bias,
                          training=training, momentum=momentum, eps=eps)


# --- losses ------------------------------------------------------------------------------
def _weighted_nll(log_probs, target, weight, ignore_index, reduction):
    """Negative log-likelihood on log-probabilities, with class weights and ignored targets.

    The per-sample loss is ``-sum_c coef[n, c] * log_probs[n, c]`` with a constant
    one-hot ``coef`` that folds the options in, so only mul/sum/div primitives are
    involved. 'mean' divides by the summed weight of the non-ignored targets, as torch.
    """
    log_probs = as_tensor(log_probs)
    if log_probs.ndim < 2:
        raise ValueError(f"nll_loss: expected log-probabilities of shape (N, C), got shape "
                         f"{log_probs.shape}")
    classes, dtype = log_probs.shape[1], log_probs.dtype
    expected = log_probs.shape[:1] + log_probs.shape[2:]
    if target.shape != expected:
        raise ValueError(f"nll_loss: for an input of shape {log_probs.shape} the target must hold "
                         f"one class index per sample, shape {expected}, got {target.shape}")
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    if safe.size and (safe.min() < 0 or safe.max() >= classes):
        raise IndexError(f"target class indices must lie in [0, {classes - 1}] (the input has "
                         f"{classes} classes on axis 1), got values from {safe.min()} to "
                         f"{safe.max()}")
    w = np.ones(classes, dtype=dtype) if weight is None else np.asarray(
        weight.data if isinstance(weight, Tensor) else weight, dtype=dtype)
    class_shape = (1, classes) + (1,) * (log_probs.ndim - 2)
    one_hot = np.expand_dims(safe, 1) == np.arange(classes).reshape(class_shape)
    coef = (one_hot * w.reshape(class_shape) * np.expand_dims(valid, 1)).astype(dtype)
    per_sample = ops.neg(ops.sum(ops.mul(log_probs, _constant_tensor(coef)), axis=1))
    if reduction == "none":
        return per_sample
    total = ops.sum(per_sample)
    if reduction == "sum":
        return total
    return ops.div(total, _constant_tensor(np.asarray((w[safe] * valid).sum(), dtype=dtype)))


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of integer targets under log-probabilities (N, C[, ...]) or (C,)."""
    ops.check_reduction("nll_loss", reduction)
    indices = target.data if isinstance(target, Tensor) else np.asarray(target)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"nll_loss: target must hold integer class indices, got dtype "
                        f"{indices.dtype}")
    input = as_tensor(input)
    if input.ndim == 1:  # one unbatched sample: log-probabilities (C,), a 0-d target
        loss = _weighted_nll(ops.unsqueeze(input, 0), indices.reshape(1), weight, ignore_index,
                             reduction)
        return ops.reshape(loss, ()) if reduction == "none" else loss
    return _weighted_nll(input, indices, weight, ignore_index, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Softmax cross-entropy on logits (N, C[, ...]) with class-index or probability targets."""
    return ops.cross_entropy(input, target, weight=weight, ignore_index=ignore_index,
                             reduction=reduction, label_smoothing=label_smoothing)


def mse_loss(input, target, reduction="mean"):
    return ops.mse_loss(input, target, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Sigmoid + binary cross-entropy in one numerically stable step."""
    return ops.binary_cross_entropy_with_logits(input, target, weight=weight, reduction=reduction,
                                                pos_weight=pos_weight)


# --- sequence models: attention, smooth activations, more losses (their own file) ---------
from .sequence_functional import (  # noqa: E402,F401
    silu, softplus, elu, scaled_dot_product_attention, one_hot, pad, l1_loss, smooth_l1_loss,
    binary_cross_entropy, kl_div, normalize, cosine_similarity, conv1d, group_norm)

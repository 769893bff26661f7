"""Loss modules: each stores its options and calls the matching ``nn.functional`` loss.

Class weights are buffers, as in torch, so they appear in ``state_dict``.
"""
import numbers
import numpy as np

from ..tensor import Tensor
from . import functional as F
from .module import Module


def _buffer_value(value):
    if value is None or isinstance(value, Tensor):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):   # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):   # keep the array's own dtype
        return Tensor(value, dtype=value.dtype)
    return Tensor(value)


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    """Softmax + negative log-likelihood on raw logits (N, C): do not softmax first."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.register_buffer("weight", _buffer_value(weight))
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, numbers.Real) \
                or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"label_smoothing must be a number in [0, 1] (the share of the "
                             f"target spread over all classes), got {label_smoothing!r}")
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_Loss):
    """Negative log-likelihood on log-probabilities (e.g. the output of LogSoftmax)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", _buffer_value(weight))
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross-entropy on raw logits, stable for large |x|."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.register_buffer("weight", _buffer_value(weight))
        self.register_buffer("pos_weight", _buffer_value(pos_weight))

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class L1Loss(_Loss):
    """Mean absolute error."""

    def forward(self, input, target):
        return F.l1_loss(input, target, self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above (robust to outliers)."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not beta >= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a number >= 0 (where the squared "
                             f"error turns into the absolute error), got {beta!r}")
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class BCELoss(_Loss):
    """Binary cross-entropy on probabilities (after a sigmoid); prefer BCEWithLogitsLoss."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", _buffer_value(weight))

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class KLDivLoss(Module):
    """KL(target || input) with ``input`` as log-probabilities; use reduction='batchmean'."""

    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"reduction must be 'mean', 'sum', 'none' or 'batchmean', got "
                             f"{reduction!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)

"""Each input channel's scale (INPUT_CHANNELS_ON_DIFFERENT_SCALES,
``nndebug.rules.channel_scales``).

Channels recorded in different units and normalised together keep their ratio: EEG in volts
(1e-5) standardised with an accelerometer and a skin-conductance channel shares their mean
and spread, and reaches the network at 1e-5 of unit scale while the other channels sit at
one (real-bug batch 138, https://github.com/SPOClab-ca/dn3/issues/40: held-out accuracy 0.28
against 1.00). The whole input's RMS looks fine (UNNORMALIZED_INPUTS reads it); the first
layer's weights see the small channels as nothing.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py`` keeps them), when it is a table (rows,
features), or a sequence of channels: (batch, channels, time) into a model whose first
weighted layer is a Conv1d, (batch, time, features) into any other. Measured on the host when
findings are asked for: ``run.observed.channel_scales`` gets ``(step, axis, [each channel's
standard deviation], [each channel's share of non-zero values])``. No per-step cost.
"""
import numpy as np

from .first_training_inputs import FirstInputsReader

MAX_CHANNELS = 512        # [design] wider inputs are images or embeddings, not channels
MIN_VALUES = 64           # [design] values per channel a batch needs before it is read
CHANNELS_FIRST = ("Conv1d",)
WEIGHTED = ("Conv1d", "Conv2d", "Conv3d", "Linear", "LSTM", "GRU", "RNN", "Embedding",
            "TransformerEncoderLayer", "MultiheadAttention")


def channel_axis(model, ndim):
    """The axis of ``model``'s input that holds its channels or features (None when not
    read): 1 for a table; for a 3-D input, 1 when the first weighted layer is a Conv1d,
    else 2."""
    if ndim == 2:
        return 1
    if ndim != 3:
        return None
    for module in model.modules():
        kind = type(module).__name__
        if kind in WEIGHTED:
            return 1 if kind in CHANNELS_FIRST else 2
    return 2


def channel_scales(x, axis):
    """([standard deviation], [share of non-zero values]) per channel along ``axis``, or
    None. The spread, not the size: a channel standardised with others in larger units sits
    at an offset (its shifted mean) and barely moves around it."""
    if x.shape[axis] < 2 or x.shape[axis] > MAX_CHANNELS or x.size // x.shape[axis] < MIN_VALUES:
        return None
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, 0).reshape(x.shape[axis], -1)
    if not np.isfinite(x).all():
        return None                        # NaN inputs are another rule's business
    spread = x.std(axis=1)
    dense = np.mean(x != 0, axis=1)
    return [float(v) for v in spread], [round(float(v), 4) for v in dense]


class ChannelScales(FirstInputsReader):
    field = "channel_scales"

    def measure(self, step, batch):
        axis = channel_axis(self.adapter.model, len(getattr(batch, "shape", ())))
        if axis is None:
            return None
        measured = channel_scales(np.asarray(self.adapter.to_numpy(batch)), axis)
        return None if measured is None else (step, axis, *measured)

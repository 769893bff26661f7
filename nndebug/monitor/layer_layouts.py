"""Which axis of a 3-D tensor holds the features, as the layers around a Conv1d or a
BatchNorm1d say it (LAYOUT_NOT_TRANSPOSED, ``nndebug.rules.layouts``).

Conv1d, BatchNorm1d and InstanceNorm1d read a 3-D tensor as (batch, channels, length):
axis 1 is their channel axis. An embedding's output, a LayerNorm, the RNNs and attention
keep the features on the LAST axis, (batch, length, features). A tensor passed from one
kind to the other needs a ``transpose(1, 2)``; without it, shapes still fit whenever the
user sized the layer to match (``nn.Conv1d(max_length, ...)``), and the model trains on
the wrong axis: the kernel slides along the features, the norm pools over them.

On the first ``STEPS_KEPT`` recorded steps of a model that has a channels-first layer, a
forward hook on each layer of either kind notes the shapes of what went in and came out, in
call order. A model without a channels-first 1-D layer (most) gets no hook at all. Each hook
call keeps two shape tuples; only the first channels-first call of a step (the data as the
model got it, usually) has its input copied, when small, to tell whether it is one-hot and
along which axis (a (batch, length, 4) DNA one-hot given to Conv1d as it was stored).
"""
from ..observed import LayerLayout

STEPS_KEPT = 2        # [design] recorded steps whose calls are noted (layouts do not change)
CALLS_KEPT = 512      # [design] calls kept at most (a deep model's two forwards fit)
CHANNELS_FIRST = {"Conv1d", "BatchNorm1d", "InstanceNorm1d"}
# layers whose features are the last axis of what they give out (or take in), whatever
# the rest of the model does; Linear is left out: it is also applied across time or
# positions on purpose (a forecaster's Linear(length, horizon) on (batch, channels, length))
CHANNELS_LAST = {"Embedding", "LayerNorm", "LSTM", "GRU", "RNN", "MultiheadAttention",
                 "TransformerEncoderLayer", "TransformerDecoderLayer"}


def layout_layers(adapter):
    """[(name, module, role)] of the layers whose feature axis is fixed, or [] when the
    model has no channels-first layer. A model with channels-first layers only is hooked
    too: its first one's input may be one-hot data in the stored (batch, length, symbols)
    layout (``one_hot_axis``)."""
    found = []
    for name, module in adapter.named_modules():
        kind = adapter.module_type(module)
        if kind in CHANNELS_FIRST:
            found.append((name, module, "channels_first"))
        elif kind in CHANNELS_LAST:
            found.append((name, module, "channels_last"))
    roles = {role for _, _, role in found}
    return found if "channels_first" in roles else []


ONE_HOT_VALUES_CHECKED = 1 << 20   # [design] larger inputs are not copied to be checked


def one_hot_axis(adapter, value):
    """1 or 2 where a 3-D tensor is one-hot along that axis (every value 0 or 1, and each
    row along the axis holds exactly one 1) and not along the other; else None."""
    if not adapter.is_tensor(value) or len(value.shape) != 3 or \
            value.shape[1] == value.shape[2] or \
            int(value.shape[0]) * int(value.shape[1]) * int(value.shape[2]) > ONE_HOT_VALUES_CHECKED:
        return None
    x = adapter.to_numpy(value)
    if x.dtype.kind not in "fiub" or not ((x == 0) | (x == 1)).all():
        return None
    along = [axis for axis in (1, 2) if (x.sum(axis=axis) == 1).all()]
    return along[0] if len(along) == 1 else None


def _shape(adapter, value):
    if isinstance(value, (tuple, list)) and value:      # an RNN's (output, state)
        value = value[0]
    return tuple(int(d) for d in value.shape) if adapter.is_tensor(value) else ()


def _kernel(module):
    size = getattr(module, "kernel_size", None)
    if size is None:
        return None
    return int(size[0]) if isinstance(size, (tuple, list)) else int(size)


class LayerLayouts:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.layers = layout_layers(adapter)
        self.steps = 0
        self._handles = []
        self._one_hot_checked = set()   # steps whose first channels-first input was checked

    def arm(self, step):
        """Hook the layers for recorded step ``step`` (not once STEPS_KEPT steps were seen)."""
        if not self.layers or self.steps >= STEPS_KEPT:
            return
        self.steps += 1
        self._handles = [self.adapter.add_forward_hook(module, self._make_hook(name, role, step))
                         for name, module, role in self.layers]

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _make_hook(self, name, role, step):
        def on_output(module, inputs, output):
            calls = self.observed.layer_layouts
            if len(calls) >= CALLS_KEPT:
                return
            try:
                first = role == "channels_first" and inputs and \
                    step not in self._one_hot_checked
                if first:
                    self._one_hot_checked.add(step)
                calls.append(LayerLayout(
                    one_hot_axis=one_hot_axis(self.adapter, inputs[0]) if first else None,
                    step=step, order=len(calls), layer=name,
                    type=self.adapter.module_type(module), role=role,
                    input_shape=_shape(self.adapter, inputs[0]) if inputs else (),
                    output_shape=_shape(self.adapter, output), kernel=_kernel(module)))
            except Exception as error:        # never break the user's forward pass
                self.on_error(error)
        return on_output

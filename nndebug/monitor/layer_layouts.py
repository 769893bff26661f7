"""Which axis of a 3-D tensor holds the features, as the layers around a Conv1d or a
BatchNorm1d say it (LAYOUT_NOT_TRANSPOSED, ``nndebug.rules.layouts``).

Conv1d, BatchNorm1d and InstanceNorm1d read a 3-D tensor as (batch, channels, length):
axis 1 is their channel axis. An embedding's output, a LayerNorm, the RNNs and attention
keep the features on the LAST axis, (batch, length, features). A tensor passed from one
kind to the other needs a ``transpose(1, 2)``; without it, shapes still fit whenever the
user sized the layer to match (``nn.Conv1d(max_length, ...)``), and the model trains on
the wrong axis: the kernel slides along the features, the norm pools over them.

On the first ``STEPS_KEPT`` recorded steps of a model that has both kinds of layers, a
forward hook on each of them notes the shapes of what went in and came out, in call order.
A model without a channels-first 1-D layer (most) gets no hook at all. Each hook call keeps
two shape tuples: nothing is reduced, nothing moves off the device.
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
    model lacks either kind (then there is nothing to compare)."""
    found = []
    for name, module in adapter.named_modules():
        kind = adapter.module_type(module)
        if kind in CHANNELS_FIRST:
            found.append((name, module, "channels_first"))
        elif kind in CHANNELS_LAST:
            found.append((name, module, "channels_last"))
    roles = {role for _, _, role in found}
    return found if roles == {"channels_first", "channels_last"} else []


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
                calls.append(LayerLayout(
                    step=step, order=len(calls), layer=name,
                    type=self.adapter.module_type(module), role=role,
                    input_shape=_shape(self.adapter, inputs[0]) if inputs else (),
                    output_shape=_shape(self.adapter, output), kernel=_kernel(module)))
            except Exception as error:        # never break the user's forward pass
                self.on_error(error)
        return on_output

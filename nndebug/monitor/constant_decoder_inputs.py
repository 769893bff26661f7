"""A sequence input that holds one value everywhere, with an output that is the same at
every one of its positions (DECODER_INPUT_CONSTANT, ``nndebug.rules.constant_decoder_inputs``).

An encoder-decoder forecaster (or translator) is trained with teacher forcing: its decoder
reads the targets shifted right, ``model(x, y[:, :-1])``. Hand it ``torch.zeros_like(y)``
instead and every decoder position reads the same vector; unless the decoder adds positions
of its own, it cannot tell its steps apart and gives every step of the horizon one value.
Training runs, the loss settles at what a flat forecast can reach.

A constant extra input is not wrong in itself (a float mask of ones in a batch without
padding, an Informer-style placeholder of zeros next to positional embeddings): what names
the bug is the output, the same at every position the constant input spans.

How it is seen (torch): on the first ``CONSTANT_INPUT_STEPS`` recorded steps, a forward hook
on the model reads its float inputs after the first (the first is the data); for one of at
least two dimensions, several samples and positions, that holds one value (one ``aminmax``),
the model's output laid out the same way ``(batch, positions, ...)`` is compared with its
first position: the largest difference, relative to the output's largest magnitude. No
hook after those steps; nothing when the model takes one float input.

Kept in ``run.observed.constant_decoder_inputs`` as ``[(step, input index among the float
inputs, input shape, its value, output spread over positions)]``.
"""
from .loss_reductions import output_tensors

CONSTANT_INPUT_STEPS = 3     # [design] recorded steps read (a loop feeds the same kind of
                             # input every step)
CONSTANT_INPUT_ROWS = 8      # [design] rows kept at most


class ConstantDecoderInputs:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self.steps, self._step, self._handle = 0, None, None

    def arm(self, step):
        if not self.enabled or self.steps >= CONSTANT_INPUT_STEPS or step is None:
            return
        self.steps += 1
        self._step = int(step)
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_output)
        except Exception as error:          # a model without forward hooks
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_output(self, module, inputs, output):
        self.disarm()                        # the step's first forward only
        try:
            self._read(inputs, output)
        except Exception as error:           # never break the user's forward
            self.enabled = False
            self.on_error(error)

    def _read(self, inputs, output):
        import torch
        rows = self.observed.constant_decoder_inputs
        extra = self.adapter.float_leaves(inputs)[1:]
        for index, leaf in enumerate(extra, start=1):
            if leaf.ndim < 2 or leaf.shape[0] < 2 or leaf.shape[1] < 2 or \
                    len(rows) >= CONSTANT_INPUT_ROWS:
                continue
            low, high = torch.aminmax(leaf.detach())
            if bool(low != high):
                continue
            out = next((t for t in output_tensors(output)
                        if t.ndim >= 2 and tuple(t.shape[:2]) == tuple(leaf.shape[:2])), None)
            if out is None:
                continue
            out = out.detach().float()
            scale = float(out.abs().max())
            spread = float((out - out[:, :1]).abs().max()) / scale if scale > 0 else 0.0
            rows.append((self._step, index, tuple(int(n) for n in leaf.shape), float(low),
                         spread))

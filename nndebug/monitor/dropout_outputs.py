"""Training steps whose model output IS a dropout layer's output
(``run.observed.dropout_outputs``; DROPOUT_ON_OUTPUT, ``nndebug.rules.dropout_on_output``).

Dropout belongs between hidden layers. After the output layer, it zeroes a share ``p`` of
the predictions and scales the rest by ``1 / (1 - p)`` before the loss sees them: a squared
error is then smallest for predictions ``(1 - p)`` times the target, which is what eval mode
(no dropout) returns; a classifier's loss is handed logits set to 0. A layer helper that
appends ``Dropout`` after every ``Linear``, the last included, does it without a word
(maddin79/darch#12: "the dropout should only be applied to the hidden layers but not the
output layer").

What is read: on the first ``STEPS_MEASURED`` recorded steps whose model runs in training
mode, forward hooks on the model's dropout layers (of ``p`` > 0, in training mode) note the
outputs (held until the forward ends, so their memory cannot be handed to a later tensor),
and a hook on the model compares its output's storage (a view, ``squeeze``, ``view``,
shares it) with those of the dropouts that ran in that forward. An
address comparison: no transfer, no device work; the hooks go when the step closes and for
good after those steps.
"""
from ..records import DROPOUT_TYPES

STEPS_MEASURED = 3           # [design] recorded training steps looked at: a model's last layer
                             # is the same on every step
ARMED_MAX = 16               # [design] recorded steps armed at most (a model never run in
                             # training mode inside one gives no verdict, and no more hooks)


def storage_address(tensor):
    """Where a torch tensor's data starts in memory (views share it), or None."""
    try:
        return tensor.untyped_storage().data_ptr()
    except Exception:
        return None


def first_tensor(output, is_tensor):
    """The model's main output: itself, the first tensor of a tuple/list, or of a dict's
    values (``logits`` of an output dict)."""
    if is_tensor(output):
        return output
    values = output.values() if isinstance(output, dict) else \
        output if isinstance(output, (tuple, list)) else ()
    return next((v for v in values if is_tensor(v)), None)


class DropoutOutputs:
    def __init__(self, adapter, observed, model, current_step, on_error):
        self.adapter, self.observed, self.model = adapter, observed, model
        self.current_step, self.on_error = current_step, on_error
        self.dropouts = []
        if adapter.framework == "torch":
            try:
                self.dropouts = [(name, m) for name, m in model.named_modules()
                                 if adapter.module_type(m) in DROPOUT_TYPES and
                                 float(getattr(m, "p", 0) or 0) > 0]
            except Exception as error:
                on_error(error)
        self.measured, self.armed = 0, 0
        self._handles, self._ran, self._trained, self._step = [], [], False, None

    def arm(self, step):
        if not self.dropouts or self._handles or self.measured >= STEPS_MEASURED or \
                self.armed >= ARMED_MAX:
            return
        self.armed += 1
        self._step, self._ran, self._trained = step, [], False
        try:
            pairs = [(module, self._noting(name, float(module.p)))
                     for name, module in self.dropouts]
            pairs.append((self.model, lambda module, inputs, output:
                          self._on_model_output(module, inputs, output)))
            self._handles.append(self.adapter.add_forward_hooks(pairs))
        except Exception as error:
            self.on_error(error)
            self.dropouts = []
            self.close()

    def disarm(self):
        if self._handles and self._trained:
            self.measured += 1
        self.close()

    def close(self):
        for handle in self._handles:
            handle.remove()
        self._handles, self._ran = [], []

    def _noting(self, name, p):
        def on_output(module, inputs, output):
            if module.training and self.adapter.is_tensor(output):
                # the output itself is held until the model's output is compared: freed
                # early (fed to a GRU and dropped), its memory can hold the model's output,
                # and the addresses would match (real-bug batch 126: 7 of 20 forwards)
                self._ran.append((name, p, output))
        return on_output

    def _on_model_output(self, module, inputs, output):
        try:
            ran, self._ran = self._ran, []
            if not module.training:
                return
            self._trained = True
            out = first_tensor(output, self.adapter.is_tensor)
            if out is None or not getattr(out, "requires_grad", False):
                return
            address = storage_address(out)
            for name, p, dropped in reversed(ran):
                if address is not None and address == storage_address(dropped):
                    rows = self.observed.dropout_outputs
                    if not rows or rows[-1][0] != self._step:
                        rows.append((self._step, name, p))
                    return
        except Exception as error:       # never break the user's forward
            self.on_error(error)

"""The lowest and highest input values of the first training forwards and of the first
validation passes (SCALER_FIT_ON_HELD_OUT_ROWS, ``nndebug.rules.scaler_range``).

A min-max scaler fitted before the data is split (``MinMaxScaler().fit_transform(series)``
and only then the cut in time) takes its minimum and maximum from the held-out rows too: on
a series that rises into its validation stretch, the training inputs stop short of the top
of the [0, 1] range and the validation inputs end exactly on it. Fitted on the training rows
only, the training inputs span the whole range and the validation inputs pass beyond it.
Comparing the two ranges tells which rows set the scale.

Training side: a forward pre-hook on the model keeps, on the device, the running minimum and
maximum of the first floating-point input of the first ``TRAINING_FORWARDS`` forwards that
build a graph (any shape: windows, sequences, tables), then it goes. Validation side: when a
step passes ``val_loss``, the inputs ``validation_inputs.py`` held for that pass (``take``)
give their minimum and maximum, for the first ``PASSES_KEPT`` passes. One host transfer per
kept pass (and one for the training range, at the first pass or at findings). Cost: two
device reductions on each of the first training forwards; nothing after them.

Kept in ``run.observed.input_ranges`` as ``(kind, step, forwards, lowest, highest)`` with
kind "training" (step: the first forward's; forwards: how many were read) or "validation"
(a declared field of ``nndebug.observed.Observed``: saved and loaded with the run).
"""
TRAINING_FORWARDS = 16  # [design] training batches read (1,000 windows at batch size 64: a
                        # series' lowest stretch is in one of them almost surely)
PASSES_KEPT = 2         # [design] validation passes read (the answer is in the first)


class InputRanges:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self._current_step, self._on_error = current_step, on_error
        self._range = None                # [lowest, highest] device scalars (training)
        self._first_step, self._forwards, self._passes = None, 0, 0
        self._handle = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._torch = torch
            self._grad_enabled = torch.is_grad_enabled
            self._handle = adapter.add_forward_pre_hook(root, self._before_forward)

    def _first_float(self, inputs):
        leaves = self.adapter.float_leaves(inputs)
        x = leaves[0] if leaves else None
        return x if x is not None and getattr(x, "numel", lambda: 0)() > 0 else None

    def _before_forward(self, module, inputs):
        if not self._grad_enabled():
            return                        # evaluation: the validation side reads it
        try:
            x = self._first_float(inputs)
            if x is not None:
                x = x.detach()
                low, high = x.min(), x.max()
                if self._range is None:
                    self._range, self._first_step = [low, high], self._current_step()
                else:
                    self._range = [self._torch.minimum(self._range[0], low),
                                   self._torch.maximum(self._range[1], high)]
                self._forwards += 1
        except Exception as error:         # never break the user's forward pass
            self._on_error(error)
            self.close()
        if self._forwards >= TRAINING_FORWARDS:
            self.close()

    def _flush_training(self):
        """Move the training range to the host (once)."""
        if self._range is None:
            return
        low, high = (float(v) for v in self.adapter.to_numpy(self._torch.stack(self._range)))
        self.observed.input_ranges.append(("training", int(self._first_step or 0),
                                           self._forwards, low, high))
        self._range = None

    def take(self, held, step):
        """``held``: ``[(step, input or None, ...)]``, the validation pass's inputs."""
        if self._passes >= PASSES_KEPT or self._handle is None and self._forwards == 0:
            return
        try:
            self._flush_training()
            kept = [x for at, x, *_ in held if at == step and x is not None
                    and getattr(x, "numel", lambda: 0)() > 0]
            if not kept:
                return
            lows = self._torch.stack([x.detach().min().float() for x in kept]).min()
            highs = self._torch.stack([x.detach().max().float() for x in kept]).max()
            low, high = (float(v) for v in self.adapter.to_numpy(self._torch.stack([lows, highs])))
            self.observed.input_ranges.append(("validation", int(step), len(kept), low, high))
            self._passes += 1
        except Exception as error:        # never break the user's step
            self._on_error(error)

    def read(self):
        """At findings: the training range to the host if no validation pass took it."""
        try:
            self._flush_training()
        except Exception as error:
            self._on_error(error)

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

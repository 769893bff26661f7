"""Whether the model trains on raw non-negative inputs or on centred ones: the share of
negative entries in its first training batches (VALIDATION_INPUTS_RESCALED,
``nndebug.rules.validation_inputs``).

A validation pipeline that skips a step of the training one (a scaler fitted on the training
features, a ``Normalize`` transform) hands the model raw data on one side and centred data
on the other: pixels in [0, 1] against values in [-1, 1], counts against standardised
features. A time split of a drifting series moves the validation inputs too, but both sides
are the same centred data. The validation side's share is measured with its mean and std
(``validation_inputs.py``); this reads the training side's.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py`` keeps them), and only when the run
passed validation losses whose inputs were measured (``run.observed.validation_inputs``)
or evaluated in eval mode without them (``unannounced_evaluations``): a run that never
validates pays nothing. Measured on the host when findings are asked for,
kept as ``run.observed.training_input_signs``: ``[(step, share of negative entries)]``.
No per-step cost.
"""
import numpy as np

from .first_training_inputs import FirstInputsReader


class TrainingInputSigns(FirstInputsReader):
    field = "training_input_signs"

    def read(self):
        if self.observed.validation_inputs or self.observed.unannounced_evaluations:
            super().read()                       # only runs that validate are compared

    def measure(self, step, batch):
        values = np.asarray(self.adapter.to_numpy(batch), dtype=np.float64)
        values = values[np.isfinite(values)]
        return None if not values.size else (step, float(np.mean(values < 0)))

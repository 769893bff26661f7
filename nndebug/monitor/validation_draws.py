"""The first rows of two validation passes' inputs, to tell whether the same validation
samples come back changed (VALIDATION_INPUTS_AUGMENTED, ``nndebug.rules.validation_draws``).

A validation set that goes through the training transform (random crops, shifts, noise:
the dataset built with the augmentation and then split, or the test transform copied from
the training one) gives different pixels for the same samples at every evaluation. The
validation loss is then measured on distorted images, too high and jumping with the draws,
and whatever is chosen by it follows noise.

Fed by ``validation_inputs.py``: when a step passes ``val_loss``, the inputs its hook held
for that validation pass (the first float input of each no-gradient forward) are offered
here before they are measured; the first input of the first ``PASSES_KEPT`` passes gets its
first ``DRAW_ROWS`` rows copied to the host. Cost: nothing per training step; one small
copy at each of the first two measured validation passes (torch only, as the hook).
Kept as ``run.observed.validation_draws``: ``[(step, rows as a 2-D NumPy array)]`` (a
declared field of ``nndebug.observed.Observed``: saved with the run in its arrays section,
and continued by a resumed monitor: the draws before the restart count towards
PASSES_KEPT).
"""
import numpy as np

DRAW_ROWS = 32          # [design] rows compared between two validation passes
PASSES_KEPT = 2         # [design] two passes are enough to see the same samples change
ROW_VALUES = 4096       # [design] values kept of each row, evenly spaced (the same places in
                        # both passes): a 3x224x224 image is 150,528 values, and 32 of them
                        # in float64 would be 38 MiB a pass, in memory and in every save


class ValidationDraws:
    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self._on_error = adapter, observed, on_error

    def take(self, held, step):
        """``held``: ``[(step, input or None, ...)]``, the validation pass's inputs."""
        kept = self.observed.validation_draws
        if len(kept) >= PASSES_KEPT:
            return
        try:
            for at, x, *_ in held:
                if at == step and x is not None and len(getattr(x, "shape", ())) >= 2:
                    rows = x[:DRAW_ROWS].reshape(min(DRAW_ROWS, x.shape[0]), -1)
                    stride = -(-rows.shape[1] // ROW_VALUES)     # 1 for rows that fit
                    rows = np.asarray(self.adapter.to_numpy(rows[:, ::stride][:, :ROW_VALUES]),
                                      dtype=np.float64)
                    kept.append((step, rows))
                    return
        except Exception as error:        # never break the user's step
            self._on_error(error)

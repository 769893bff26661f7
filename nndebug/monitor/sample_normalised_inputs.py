"""Inputs normalised within each sample: every slice of a sample along one axis centred
(and usually scaled) by its own statistics (NORMALISATION_ERASES_CLASS_SIGNAL,
``nndebug.rules.sample_normalisation``).

Per-utterance CMVN over an utterance's own frames, a z-score of each sensor window over its
own time steps, an image standardised by its own mean: each removes whatever is constant
over that axis within one sample - a speaker's spectral envelope, the gravity offset that
tells lying from standing, a brightness that tells day from night. When the label lives in
that level, the network is left with what every class shares and learns nothing. The same
normalisation is right wherever the level is nuisance (speech recognition, most images), so
what is kept here is only the evidence; the rule weighs it against a loss at chance.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py`` keeps them), 2-D or more. Measured on
the host when findings are asked for, kept as ``run.observed.sample_normalised_inputs``:
``[(step, samples, axis, axis length, slices, centred slices, unit-std slices)]`` for the
axis after the batch axis whose slices are most often centred. No per-step cost.
"""
import numpy as np

from ..rules.sample_normalisation import CENTRED_SHARE
from .first_training_inputs import FirstInputsReader

MIN_SAMPLES = 4            # [design] samples a batch needs before it is read
MIN_LENGTH = 4             # [design] over 2 or 3 values any slice centres to a few patterns
MEAN_TOLERANCE = 1e-3      # [design] |slice mean| over its std for a centred slice (float32
                           # rounding of a subtracted mean is ~1e-7 of the raw scale; a raw
                           # signal's mean is rarely within a thousandth of its spread)
MAX_VALUES = 1_000_000     # [design] values read per batch (the first samples up to it): the
                           # statistics are per slice, so a few samples decide, and a batch
                           # of large images is not copied whole
STD_TOLERANCE = 1e-2       # [design] |slice std - 1| for a scaled slice, with or without
                           # Bessel's correction (numpy's default and torch's differ)


def centred_axis(x):
    """(axis, length, slices, centred slices, unit-std slices) for the axis after the batch
    axis whose slices are most often centred, or None when the batch is not read."""
    if x.ndim < 2 or x.shape[0] < MIN_SAMPLES:
        return None
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        return None                        # NaN inputs are another rule's business
    best = None
    for axis in range(1, x.ndim):
        length = x.shape[axis]
        if length < MIN_LENGTH:
            continue
        mean, std = x.mean(axis=axis), x.std(axis=axis)
        varying = std > 0
        centred = varying & (np.abs(mean) <= MEAN_TOLERANCE * np.where(varying, std, 1.0))
        sample_std = std * np.sqrt(length / (length - 1))
        unit = centred & ((np.abs(std - 1) <= STD_TOLERANCE)
                          | (np.abs(sample_std - 1) <= STD_TOLERANCE))
        row = (axis, length, int(mean.size), int(centred.sum()), int(unit.sum()))
        if best is None or row[3] > best[3]:
            best = row
    return best


class SampleNormalisedInputs(FirstInputsReader):
    field = "sample_normalised_inputs"

    def measure(self, step, batch):
        if len(getattr(batch, "shape", ())) < 2:
            return None
        per_sample = max(1, int(np.prod(batch.shape[1:])))
        first = batch[:max(MIN_SAMPLES, MAX_VALUES // per_sample)]
        measured = centred_axis(np.asarray(self.adapter.to_numpy(first)))
        return None if measured is None else (step, int(first.shape[0]), *measured)

    def rules_out(self, row):
        """A batch whose slices are not (nearly) all centred along any axis: the rule needs
        every batch read to be."""
        return row[5] < CENTRED_SHARE * row[4]

"""What the DataLoaders in the training code's scope show about the data (real-bug batch 95):
DATASET_MODIFIED_BY_READS and COLLATE_KEEPS_ONE_SAMPLE.

Both read ``monitor/scoped_loaders.py``: the loaders found among the callers' locals when
watch started (``run.observed.scoped_loaders``), the scale of the float arrays their
datasets keep, noted at watch start, on a doubling ruler of recorded steps and at close
(``stored_data_scales``), and the training forwards of recorded steps with their leading
input size (``loader_batch_forwards``). torch only: minigrad has no DataLoader.

DATASET_MODIFIED_BY_READS - the stored training data drift while the model trains on it.
A ``__getitem__`` that transforms a view of the array it keeps (``im = self.x[i];
im -= mean; im /= std``; ``t = self.boxes[i]; t /= size``) writes the result back, and the
next read transforms it again: the stored array's scale moves a little with every batch
read, in one direction, and compounds epoch after epoch (facebookresearch/pycls#21: the
model "fail[s] to train after ~3 epochs" with ``num_workers=0``; mindee/doctr#840: targets
"changed when iterating over some dataset more than one time"). Said when one stored array
changed in place between ``MIN_CHANGED_INTERVALS`` or more successive notes, always in the
same direction, by ``MIN_TOTAL_FACTOR`` or more in all, and was still changing in the second
half of the run. Healthy look-alikes stay silent: an array normalised once, in place, by the
loop (one interval), a cache filled lazily (starts at zero, or stops changing after the first
epoch), pseudo-labels rewritten each epoch (no steady drift), an array the loop replaces by
another (no longer followed), reads through worker processes (they change copies).

COLLATE_KEEPS_ONE_SAMPLE - every scoped loader batches ``batch_size`` 2 or more samples,
one of them through a collate function of the user's own, yet every recorded step trains on
one forward of a batch of ONE (skit-ai/SpeechLLM#5: the collator unpacks ``batch[0]``; the
other samples are read and dropped, the learning rate set for the batch drives
single-sample gradients). A loop that walks a collated list sample by sample makes
``batch_size`` forwards a step and stays silent; so does any loader of ``batch_size=1`` in
scope (the run may train from it). Missed: a training loader not in the callers' scope.
"""
import math

from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_CHANGED_INTERVALS = 3    # [design] successive notes between which the array changed: a
                             # one-off in-place normalisation by the loop changes it once
MIN_RELATIVE_CHANGE = 0.01   # [measured] an interval counts as a change at 1% of the rms:
                             # pycls' in-place norm moved the digits' rms 10% between the
                             # first notes (1 and 2 batches read); an untouched array 0%
MIN_TOTAL_FACTOR = 4.0       # [measured] the stored rms moved x1e4 (in-place norm, 150
                             # steps) and x1e-7 (boxes divided by 8 in place); x4 is two
                             # epochs of the mildest of them (/2 per read), past any
                             # one-off rescaling of digits in [0, 1]
MIN_LOADER_BATCH = 2         # [design] a loader batching fewer samples has nothing to drop
MIN_FORWARD_STEPS = 4        # [design] recorded steps with counted forwards before a verdict


def scale_series(ctx):
    """{(loader, attribute): [(step, rms)]} of the stored arrays, in step order."""
    series = {}
    for row in observed_list(ctx, "stored_data_scales"):
        if len(row) == 4:
            series.setdefault((str(row[1]), str(row[2])), []).append((int(row[0]), float(row[3])))
    return {key: sorted(rows) for key, rows in series.items()}


def steady_drift(rows, last_step):
    """``(direction, changed intervals, total factor)`` when the array's rms drifts one way,
    interval after interval, into the second half of the run; else None."""
    values = [v for _, v in rows]
    if len(values) < MIN_CHANGED_INTERVALS + 1 or not all(math.isfinite(v) for v in values) \
            or values[0] <= 0:
        return None
    signs, late = [], False
    for (step, before), (_, after) in zip(rows[:-1], rows[1:]):
        if abs(after - before) > MIN_RELATIVE_CHANGE * max(abs(before), abs(after)):
            signs.append(1 if after > before else -1)
            late = late or step >= last_step / 2
    if len(signs) < MIN_CHANGED_INTERVALS or len(set(signs)) != 1 or not late:
        return None
    factor = values[-1] / values[0] if signs[0] > 0 else values[0] / max(values[-1], 1e-300)
    if factor < MIN_TOTAL_FACTOR:
        return None
    return signs[0], len(signs), factor


@rule(produces="DATASET_MODIFIED_BY_READS",
      explains={"LOSS_DIVERGING", "EXPLODING_GRADIENTS", "EXPLODING_ACTIVATIONS",
                "LOSS_OSCILLATING", "DEAD_RELU"})
def dataset_modified_by_reads(ctx):
    series = scale_series(ctx)
    last_step = max((rows[-1][0] for rows in series.values()), default=0)
    for (loader, attribute), rows in sorted(series.items()):
        drift = steady_drift(rows, last_step)
        if drift is None:
            continue
        direction, changed, factor = drift
        trail = " -> ".join(f"{v:.3g} (step {s})" for s, v in rows[::max(1, len(rows) // 5)])
        way = "grew" if direction > 0 else "shrank"
        return Finding(
            code="DATASET_MODIFIED_BY_READS", severity="warning", where=f"'{loader}'",
            step=rows[-1][0],
            message=f"The array '{attribute}' that the dataset of DataLoader '{loader}' keeps "
                    f"was rewritten in place while the model trained on it: its scale {way} "
                    f"{factor:.3g}x, in {changed} of the {len(rows) - 1} intervals it was "
                    f"measured in, always the same way (rms {trail} -> {rows[-1][1]:.3g} "
                    f"at step {rows[-1][0]}). A __getitem__ that normalises, rescales or "
                    "augments a view of the stored sample writes the result back, so every "
                    "epoch transforms the data again: the model chases inputs or targets "
                    "that keep changing scale.",
            evidence={"loader": loader, "attribute": attribute, "changed_intervals": changed,
                      "factor": round(float(factor), 3),
                      "rms": [[int(s), float(v)] for s, v in rows],
                      "threshold_factor": MIN_TOTAL_FACTOR,
                      "threshold_intervals": MIN_CHANGED_INTERVALS},
            fix="Transform a copy in __getitem__: x = self.x[i].clone() (numpy: .copy()) "
                "before in-place operations, or write them out of place: x = (self.x[i] - "
                "mean) / std. Normalise the stored data once, before training, if at all.")
    return None


@rule(produces="COLLATE_KEEPS_ONE_SAMPLE")
def collate_keeps_one_sample(ctx):
    loaders = [row for row in observed_list(ctx, "scoped_loaders") if len(row) == 6]
    own = [row for row in loaders if row[4] and row[1] >= MIN_LOADER_BATCH]
    if not own or any(row[1] < MIN_LOADER_BATCH for row in loaders):
        return None
    steps = [row for row in observed_list(ctx, "loader_batch_forwards") if len(row) == 3]
    if len(steps) < MIN_FORWARD_STEPS or any(f != 1 or size != 1 for _, f, size in steps):
        return None
    local, batch_size = own[0][0], own[0][1]
    return Finding(
        code="COLLATE_KEEPS_ONE_SAMPLE", severity="warning", where=f"'{local}'",
        step=steps[0][0],
        message=f"DataLoader '{local}' reads batches of {batch_size} samples through a collate "
                f"function of your own, but on all {len(steps)} steps checked the model "
                "trained on one forward of a batch of 1: the collate function keeps one "
                f"sample (batch[0]) and drops the other {batch_size - 1}. Training sees one "
                f"sample in {batch_size}, and the learning rate set for the batch drives "
                "single-sample gradients.",
        evidence={"loader": local, "batch_size": batch_size, "steps_checked": len(steps),
                  "leading_size": 1},
        fix="Collate every sample: build each tensor from all of them, e.g. "
            "torch.stack([x for x, _ in batch]) (pad variable-length ones first), not from "
            "batch[0]; or use the default collate_fn.")

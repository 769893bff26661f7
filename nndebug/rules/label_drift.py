"""LABELS_MISALIGNED, widened to labels that drift along the sequence: in a per-position
classification (a frame tagger), the loss grows steadily from the first positions to the
last ones (``run.observed.position_losses``, ``monitor/position_losses.py``).

When the labels are computed on another time grid than the input frames - recordings read
at their native 24 kHz while the feature extractor is configured for 16 kHz, a hop length
that differs between features and labels - frame t and label t agree at the start and
drift apart along the sequence: the model learns the first positions and stays near chance
on the last ones. A tagger whose labels match its inputs has about the same loss at every
position (less later on for a causal model, which sees more context there; more at both
edges, where padding cuts the receptive field - neither is a steady rise).
Public report: "Sample rate error", https://github.com/sharathadavanne/doa-net/issues/4
(the configured rate changed from 24000 to 16000 without resampling: "the labels get
misaligned").
"""
import math

import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule

DRIFT_RECORDS = 2           # [design] the latest recorded steps, averaged (watch records
                            # steps 1, 2, 4, ...: the last two lie in the run's second half)
DRIFT_EARLY_LEARNED = 0.25  # [design] share of the labels' entropy the model has learned on
                            # the first quarter of the positions, at least: below this,
                            # nothing is learned anywhere to drift away from (the planted
                            # 24 -> 16 kHz case 0.41-0.42 at seed shifts 0, 1000, 2000: the
                            # drift starts at the second frame)
DRIFT_LATE_SHARE = 0.5      # [design] ... and on the second half at most this share of the
                            # first quarter's (the planted case 0.01-0.02 against 0.42; its
                            # fixed twin 0.96-0.98 against 0.97-0.98)
DRIFT_RANK_CORRELATION = 0.6   # [design] rank correlation of the unlearned share with the
                            # position: a rise along the sequence, not a bump at one edge
                            # (the planted case 0.90-0.92, its fixed twin -0.03-0.05)


@rule(produces="LABELS_MISALIGNED", reads={"RESHAPE_USED_AS_TRANSPOSE"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def labels_drift_along_sequence(ctx):
    if "RESHAPE_USED_AS_TRANSPOSE" in ctx.found:
        return None                 # positions mixed inside the model: another cause of
                                    # a loss that differs from position to position
    rows = [row for row in observed_list(ctx, "position_losses")
            if len(row) >= 4 and len(row[2]) >= 8 and len(row[2]) == len(row[3])]
    if not rows:
        return None
    length, classes = len(rows[-1][2]), rows[-1][1]
    later = [row for row in rows if len(row[2]) == length and row[1] == classes]
    later = later[-DRIFT_RECORDS:]
    if len(later) < DRIFT_RECORDS or later[0][0] < 2:
        return None
    losses = np.array([row[2] for row in later], dtype=float)
    entropy = np.array([row[3] for row in later], dtype=float)
    kept = np.isfinite(losses).all(axis=0) & np.isfinite(entropy).all(axis=0)
    if kept.sum() < 8:
        return None                 # (positions whose labels are all ignored are left out)
    losses, entropy = losses[:, kept].mean(axis=0), entropy[:, kept].mean(axis=0)
    length = len(losses)
    if (entropy <= 0.05 * math.log(classes)).any():
        return None                 # a position with (almost) one label: nothing to learn
    unlearned = np.clip(losses / entropy, 0.0, 1.0)   # 1: no better than the label counts
    quarter = max(2, length // 4)
    early = 1.0 - float(unlearned[:quarter].mean())
    late = 1.0 - float(unlearned[length // 2:].mean())
    if early < DRIFT_EARLY_LEARNED or late > DRIFT_LATE_SHARE * early:
        return None
    correlation = _rank_correlation(unlearned)
    if correlation < DRIFT_RANK_CORRELATION:
        return None
    first, last = float(losses[:quarter].mean()), float(losses[length // 2:].mean())
    return Finding(
        code="LABELS_MISALIGNED", severity="warning", where="targets",
        step=later[0][0],
        message=f"The per-position loss rises along the sequence: on the first quarter of the "
                f"{length} positions the model has learned {early:.0%} of the labels' "
                f"entropy (loss {first:.3f}), on the second half {max(late, 0.0):.0%} "
                f"(loss {last:.3f}; rank correlation of the unlearned share with the "
                f"position {correlation:.2f}, over steps {[row[0] for row in later]}). The "
                "first positions are learned and the later ones are not: the labels drift "
                "away from the input frames along the sequence - computed on another time "
                "grid (another sample rate, another hop length) than the features.",
        evidence={"positions": length, "classes": classes, "early_learned": early,
                  "late_learned": late, "rank_correlation": correlation,
                  "steps": [row[0] for row in later],
                  "per_position_loss": [round(float(v), 4) for v in losses],
                  "per_position_label_entropy": [round(float(v), 4) for v in entropy]},
        fix="Compute the features and the labels on one time grid: resample the audio to the "
            "configured sample rate before framing it (or take the rate from the file), and "
            "derive the label frames from the same hop length and rate as the features; check "
            "that the last label frame lines up with the last feature frame.")


def _rank_correlation(values):
    """Spearman's correlation of ``values`` with their positions (ties broken by order)."""
    ranks = np.argsort(np.argsort(values, kind="stable"), kind="stable").astype(float)
    positions = np.arange(len(values), dtype=float)
    ranks -= ranks.mean()
    positions -= positions.mean()
    denominator = math.sqrt(float((ranks ** 2).sum() * (positions ** 2).sum()))
    return float((ranks * positions).sum() / denominator) if denominator else 0.0

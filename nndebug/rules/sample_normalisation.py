"""NORMALISATION_ERASES_CLASS_SIGNAL: each sample was normalised by its own statistics along
an axis - every slice centred, usually scaled too - and the loss stays at chance.

Per-utterance CMVN over an utterance's own frames, a z-score of each sensor window over its
own time steps, an image standardised by its own mean: each removes what is constant over
that axis within one sample. When the label lives in that level (a speaker's spectral
envelope, the gravity offset that tells lying from standing), what reaches the network is
what every class shares. Public report: "baseline feature performance issue",
https://github.com/s3prl/s3prl/issues/36 (speaker classification on MFCC features at
0.03-0.05 accuracy with per-utterance CMVN, 0.88 without it).

Read from ``run.observed.sample_normalised_inputs`` (``monitor/sample_normalised_inputs.py``):
in every first training batch read, the slices along one same axis after the batch axis are
all centred on their own mean. The same normalisation is right wherever the level is
nuisance (speech recognition, most images), so this is said only with LOSS_AT_CHANCE found
and no other cause of it found; and not over a 2-D table that INPUT_ROWS_STANDARDISED
already names (features in different units standardised per row).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CENTRED_SHARE = 0.99   # [design] slices centred on their own mean: all of them, give or
                       # take a constant slice (std 0 is not counted as centred); a raw
                       # signal has |mean| within 1e-3 of its spread in few slices


def normalised_axis(rows):
    """(axis, length, slices, share also scaled to std 1) when every kept batch has its
    slices along one same axis centred, else None."""
    if not rows or len({row[2] for row in rows}) != 1:
        return None
    if any(row[5] < CENTRED_SHARE * row[4] for row in rows):
        return None
    slices = sum(row[4] for row in rows)
    scaled = sum(row[6] for row in rows) / slices
    return rows[0][2], rows[0][3], slices, scaled


@rule(produces="NORMALISATION_ERASES_CLASS_SIGNAL",
      reads={"LOSS_AT_CHANCE", "INPUT_ROWS_STANDARDISED"}, explains={"LOSS_AT_CHANCE"})
def normalisation_erases_class_signal(ctx):
    at_chance = ctx.found.get("LOSS_AT_CHANCE")
    if at_chance is None or at_chance.severity == "info" or at_chance.evidence.get(
            "other_causes"):
        return None
    if "INPUT_ROWS_STANDARDISED" in ctx.found:
        return None
    found = normalised_axis(observed_list(ctx, "sample_normalised_inputs"))
    if found is None:
        return None
    axis, length, slices, scaled = found
    how = "centred and scaled to std 1" if scaled >= CENTRED_SHARE else "centred"
    return Finding(
        code="NORMALISATION_ERASES_CLASS_SIGNAL", severity="warning", where="inputs",
        step=None,
        message=f"Every sample reaches the model {how} by its own statistics along input axis "
                f"{axis} (all {slices} slices of length {length} read have mean 0 over it), "
                "and the loss stays at chance: a per-sample normalisation removes whatever is "
                "constant over that axis within a sample - a speaker's spectral envelope "
                "under per-utterance CMVN, a sensor's offset under a per-window z-score - and "
                "when the label lives there, nothing that tells the classes apart is left.",
        evidence={"axis": axis, "length": length, "slices": slices,
                  "scaled_share": round(scaled, 4)},
        fix=f"Normalise with statistics of the training set (each feature's mean and std "
            f"over all training samples), not of each sample along axis {axis}; keep the "
            "per-sample normalisation only where the level is nuisance (e.g. speech "
            "recognition, not speaker identification).")

"""INPUT_CHANNELS_ON_DIFFERENT_SCALES: some input channels (or table columns) vary thousands
of times less than others, though they carry values in every sample.

Channels in different units normalised with one mean and spread keep their ratio: EEG
recorded in volts and standardised together with an accelerometer and a skin-conductance
channel arrives as an offset that moves by 1e-5 of the others' spread (real-bug batch 138,
https://github.com/SPOClab-ca/dn3/issues/40: held-out accuracy 0.28 against 1.00 when each
group is standardised on its own). The first layer's weights, all drawn at one scale, see
those channels as nothing; the whole input's RMS looks healthy (UNNORMALIZED_INPUTS), and
what shows is the symptom - dead units, a loss at chance.

Read from ``run.observed.channel_scales`` (monitor/channel_scales.py: each channel's standard
deviation and share of non-zero values on the first training batches). Only dense channels
count (non-zero in DENSE_SHARE of the values: a pixel that is mostly zero, a one-hot column,
a sparse count is small by nature). A warning when learning is poor, else info: a network
can still learn from the large channels alone.
"""
import numpy as np

from ..findings import Finding
from .context import observed_list, short_list
from .curve import learning_poor
from .graph import rule

DENSE_SHARE = 0.9            # [design] a channel non-zero in 90% of its values carries a
                             # signal everywhere (EEG, accelerometer: 100%); the digits' border
                             # pixels, one-hot columns and counts are mostly zero
CHANNEL_SPREAD_RATIO = 1e3   # [measured] the largest dense channel's spread over the smallest's:
                             # 1e5 for EEG in volts beside unit-scale channels (batch 138);
                             # standardised inputs sit within 10, raw tabular units with
                             # UNNORMALIZED_INPUTS's own scale usually within 1e2


@rule(produces="INPUT_CHANNELS_ON_DIFFERENT_SCALES",
      explains={"DEAD_RELU", "LOSS_AT_CHANCE", "LOSS_PLATEAU", "VANISHING_GRADIENTS"})
def input_channels_on_different_scales(ctx):
    rows = observed_list(ctx, "channel_scales")
    if not rows:
        return None
    axis, width = rows[0][1], len(rows[0][2])
    same = [row for row in rows if row[1] == axis and len(row[2]) == width]
    spread = np.median(np.array([row[2] for row in same], dtype=float), axis=0)
    dense = np.median(np.array([row[3] for row in same], dtype=float), axis=0)
    live = np.flatnonzero((dense >= DENSE_SHARE) & (spread > 0))
    if len(live) < 2:
        return None
    small, large = float(spread[live].min()), float(spread[live].max())
    if large < CHANNEL_SPREAD_RATIO * small:
        return None
    tiny = [int(i) for i in live if spread[i] * CHANNEL_SPREAD_RATIO <= large]
    poor = learning_poor(ctx)
    return Finding(
        code="INPUT_CHANNELS_ON_DIFFERENT_SCALES", severity="warning" if poor else "info",
        step=int(same[0][0]),
        message=f"{len(tiny)} of the input's {width} channels (along axis {axis}) reach the model "
                f"varying by a standard deviation of {small:.2g} or so, {large / small:.0e} times "
                f"less than the most varied ({large:.2g}), though they carry values in every "
                "sample "
                f"(channels {short_list([str(i) for i in tiny])}): channels in different units "
                "normalised together keep their ratio, and the first layer sees the small "
                "ones as nothing" + (", while the loss does not improve." if poor else "."),
        evidence={"axis": axis, "channels": width, "small_channels": tiny,
                  "smallest_std": small, "largest_std": large, "ratio": large / small,
                  "threshold": CHANNEL_SPREAD_RATIO},
        fix="Standardise each channel (or group of channels in one unit) with its own mean "
            "and spread over the training set, not the whole input with one.")

"""UNLABELLED_KEYPOINTS_TRAINED: a keypoint regression trains its unlabelled joints towards
the placeholder they were stored as (real-bug batch 115: open-mmlab/mmpose#394 - unlabelled
keypoints are left as [0, 0, 0] and only ``use_target_weight=True`` keeps them out of the
loss).

What is read: ``observed.placeholder_points`` (``monitor/placeholder_points.py``: for the
first recorded calls of an MSE/L1/smooth-L1/Huber loss on (..., 2) or (..., 3) point
targets, the most frequent exact point of the targets, how often it and the runner-up
occur, whether it sits at every coordinate's minimum or maximum, and how many of its rows
the model's output matches exactly). Coordinates are continuous (or on a pixel grid): one
exact point in ``PLACEHOLDER_SHARE`` of the rows, ``SEPARATION`` times more frequent than
any other point and at the corner of the values' range, is a stored "missing" value, not a
location. When the output does not match it on those rows, the loss trains the network to
predict the corner for joints it cannot tell were unlabelled: every prediction is pulled
towards it. Named from the data alone: the loss falls as usual.

Healthy look-alikes left silent: the same targets under a target weight (prediction and
target both multiplied by the visibility: the output matches the placeholder exactly on
those rows), an unreduced loss (``reduction="none"``) masked after the call (the
mask is not in the call's arguments: trajectory forecasters mask padded steps so), unlabelled joints dropped by indexing (no placeholder reaches the loss),
root-relative poses whose root joint is always (0, 0) (the middle of the range, not its
corner), a few joints clipped onto the image border (under the share), RGB images or point
clouds with a black (0, 0, 0) background (more than ``MAX_POINTS`` points per sample: the
monitor does not read them).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

PLACEHOLDER_SHARE = 0.1    # [design] one exact point in a tenth of the target points: in
                           # continuous coordinates an exact repeat does not happen by chance;
                           # partially labelled sets leave far more (COCO stores every
                           # unlabelled joint as (0, 0); the case: 35%), a few joints
                           # clipped to a border stay below it
SEPARATION = 5.0           # [design] times the runner-up point's count: integer pixel
                           # keypoints repeat by chance too, but no cell of the grid
                           # collects a tenth of all points
MATCHED_SHARE = 0.5        # [design] placeholder rows the output matches exactly before they
                           # count as masked (a target weight zeroes both: all of them)
MIN_POINTS = 50            # [design] points read before a share means anything


def _trained_placeholder(row):
    step, name, points, top, second, at_edge, matched, point = row
    if points < MIN_POINTS or not at_edge:
        return False
    if top < PLACEHOLDER_SHARE * points or top < SEPARATION * max(second, 1):
        return False
    return matched < MATCHED_SHARE * top


@rule(produces="UNLABELLED_KEYPOINTS_TRAINED")
def unlabelled_keypoints_trained(ctx):
    rows = [row for row in observed_list(ctx, "placeholder_points") if _trained_placeholder(row)]
    if not rows:
        return None
    step, name, points, top, second, _, matched, point = rows[0]
    where = ", ".join(f"{v:g}" for v in point)
    return Finding(
        code="UNLABELLED_KEYPOINTS_TRAINED", severity="warning", where="targets", step=step,
        message=f"{top} of the {points} target points given to {name} at step {step} are "
                f"the same point ({where}), at the corner of the targets' range - a "
                "placeholder for joints nobody labelled (COCO's (0, 0), a filled-in -1) - "
                "and the model's outputs there are not masked to it: the loss trains those "
                "joints towards the placeholder, and since nothing in the image says which "
                "joints were unlabelled, every prediction is pulled towards the corner.",
        evidence={"points_read": points, "placeholder_points": top,
                  "runner_up_points": second, "output_matches": matched,
                  "placeholder": point, "loss": name,
                  "steps": sorted({r[0] for r in rows})},
        fix="Keep unlabelled joints out of the loss: weight each joint's error by its "
            "visibility (mmpose's use_target_weight=True: loss(pred * w, target * w)), or "
            "mask them (loss over target[visible] only); never regress the placeholder.")

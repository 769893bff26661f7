"""Point targets holding one repeated placeholder point, on the first recorded loss calls
(UNLABELLED_KEYPOINTS_TRAINED, ``nndebug.rules.placeholder_points``; real-bug batch 115).

Keypoint and landmark sets store a joint nobody annotated as a placeholder - COCO's
(0, 0, v=0), a filled-in -1, the corner (-1, -1) once normalised - and a loss that reads
the whole target array without the visibility weight trains those joints towards it. Seen
from the loss call alone: a coordinate regression (an MSE/L1/smooth-L1/Huber loss) whose
float target is an array of points ((batch, joints, 2 or 3), at most ``MAX_POINTS``
joints: not an image's pixels) in which one exact point repeats far more often than any
other, and the model's outputs at those rows are not that point too (a target weight
multiplies the prediction and the target alike, so a masked placeholder is matched
exactly).

What is read (torch only): the first ``ROWS`` points of the target and of the output of
the loss call the loss capture keeps on a recorded step, for the first ``CALLS`` such
calls, riding along with the step's one host transfer (two small matrices). Summarised on
the host into ``run.observed.placeholder_points``: ``[(step, loss name, points read,
count of the most frequent point, count of the second most frequent, whether the frequent
point sits at every coordinate's minimum or maximum over the points read, how many of its
rows the output matches exactly, the point)]``. Cost: a reshape and two slices per call
on the device; a ``np.unique`` over at most ``ROWS`` points on the host.
"""
import numpy as np

POINT_LOSSES = {"MSELoss", "mse_loss", "L1Loss", "l1_loss", "SmoothL1Loss", "smooth_l1_loss",
                "HuberLoss", "huber_loss"}
POINT_SIZES = (2, 3)       # [design] (x, y) or (x, y, z) per point
ROWS = 1024                # [design] points read per call (two floats or three each)
CALLS = 4                  # [design] first recorded calls read: the targets' placeholders
                           # do not change over the run
MAX_POINTS = 150           # [design] points per sample at most: keypoint layouts stay below
                           # (COCO 17, WFLW 98, iBUG 68, COCO-WholeBody 133); pixels and
                           # point clouds (an RGB image channels-last, a black background
                           # at (0, 0, 0)) are wider and are not keypoints


REDUCTION_POSITIONS = {"mse_loss": 4, "l1_loss": 4, "smooth_l1_loss": 4, "huber_loss": 2}
                           # where torch's functional point losses take ``reduction``
                           # positionally (after size_average and reduce, huber's right
                           # after the target)


def function_reduction(name, args, kwargs):
    """The ``reduction`` of a functional point-loss call (torch's default "mean"), or None
    for other names: a loss module carries its own (``target_ids.loss_options``)."""
    position = REDUCTION_POSITIONS.get(name)
    if position is None:
        return None
    return kwargs.get("reduction", args[position] if len(args) > position else "mean")


def pack(packet, name, output, target, calls_so_far, reduction=None):
    """Add the first points of the target and output of this call to the step's transfer,
    when the call is a point regression this reads. A call with ``reduction="none"`` is
    left alone: its per-point losses are weighted after the call (a visibility or padding
    mask times the elementwise loss, as trajectory forecasters mask their padded time
    steps), which the call's arguments cannot show."""
    if name not in POINT_LOSSES or target is None or calls_so_far >= CALLS or \
            reduction == "none":
        return
    try:
        import torch
    except ImportError:
        return
    if not (isinstance(output, torch.Tensor) and isinstance(target, torch.Tensor)):
        return
    if not target.is_floating_point() or target.ndim != 3 or \
            tuple(target.shape) != tuple(output.shape) or target.shape[-1] not in POINT_SIZES \
            or target.shape[1] > MAX_POINTS:
        return
    size = int(target.shape[-1])
    with torch.no_grad():
        packet.add(("placeholder_points", "target"),
                   target.reshape(-1, size)[:ROWS].float())
        packet.add(("placeholder_points", "output"),
                   output.reshape(-1, size)[:ROWS].float())
    packet.add(("placeholder_points", "size"), float(size))


def take(values, observed, step, name):
    """Summarise what ``pack`` sent (host values of the step's transfer)."""
    target = values.get(("placeholder_points", "target"))
    output = values.get(("placeholder_points", "output"))
    size = values.get(("placeholder_points", "size"))
    if target is None or output is None or size is None:
        return
    size = int(size[0])
    target = np.asarray(target, dtype=float).reshape(-1, size)
    output = np.asarray(output, dtype=float).reshape(-1, size)
    if len(target) < 2 or not np.isfinite(target).all():
        return
    points, inverse, counts = np.unique(target, axis=0, return_inverse=True,
                                        return_counts=True)
    order = np.argsort(counts)[::-1]
    top = int(order[0])
    second = int(counts[order[1]]) if len(order) > 1 else 0
    point = points[top]
    at_edge = bool(np.all(point == target.min(0)) or np.all(point == target.max(0)))
    rows = np.asarray(inverse).reshape(-1) == top
    matched = int(np.all(output[rows] == point, axis=1).sum())
    observed.placeholder_points.append(
        (int(step), str(name), int(len(target)), int(counts[top]), second, at_edge, matched,
         [float(v) for v in point]))

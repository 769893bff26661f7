"""Masks that do not lie on their images (LABELS_MISALIGNED, ``rules/label_drift.py``).

A segmentation pipeline must move the mask with its image: a flip, a rotation, a crop drawn
for one must be applied to the other. Applied to the image alone (``transforms.RandomHorizontalFlip``
in the image's transform only, two random generators, a dictionary transform left out for
the ground truth) it leaves each mask where the un-augmented image had it: the loss still
falls - the model learns what the augmentation keeps - and the masks it predicts are blurred
towards the average of both placements.

What is read: in a segmentation batch, an image's edges and its mask's boundaries fall on
the same pixels. For each kept sample, the edge strength of the image (the gradient's
magnitude, summed over channels) is correlated with the mask's boundary pixels as given,
and with the boundaries moved by each flip and rotation that keeps the mask's shape (the
eight symmetries of a square, the four of a rectangle). Where the mask lies on its image,
no other placement fits clearly better; where the image was flipped or turned alone, one
of them does - the one that undoes the augmentation.

What it reads (torch only): the kept first training inputs (``first_training_inputs.py``)
paired with the kept targets (``run.observed.targets``): images ``(B, C, H, W)`` with masks
of the same height and width (``(B, H, W)`` or ``(B, 1, H, W)`` class ids or 0/1 values,
``(B, K, H, W)`` one-hot channels read by their argmax). Measured (NumPy) when findings are
asked for; kept as ``run.observed.mask_placement_rows``: ``[(first step, samples read,
samples whose edges fit a placement, samples another placement fits clearly better, the
placement most often found, samples whose input IS their mask under some placement, of
those under another placement than as given)]``. No per-step cost.

The last two tell a different bug (real-bug batch 22's nitrain#92, ``input, input =
co_transform(input, target)``): the input replaced by the transformed mask, the target left
as it was. Its edges then fit a flipped mask too, but the cause is the targets in the
inputs (TARGETS_IN_INPUTS, ``rules/mask_inputs.py``).
"""
import collections

import numpy as np

MIN_SIDE = 4                # [design] masks smaller than 4 x 4 have no boundaries to place
MIN_EDGE_FIT = 0.5          # [measured] correlation of the image's edges with the mask's
                            # boundaries (best of the placements) for the sample to count:
                            # digit masks fit at 0.69-0.88 (10th-90th percentile, batch 67's
                            # cases); synthetic land-cover tiles whose classes are spectral,
                            # not edges, at 0.10-0.44, where the best of 8 placements beats
                            # the given one by chance (4-5 of 48 tiles at a bar of 0.3)
CLEARLY_BETTER = 0.15       # [design] another placement's fit above the given one by this
                            # much: a symmetric object fits several placements equally
SAMPLES_READ = 256          # [design] samples of the kept batches measured at most...
PIXELS_READ = 2 ** 21       # [design] ...and mask pixels at most (eight 512 x 512 masks): the
                            # measure runs at close, where large images must not cost seconds
MAX_MASK_VALUES = 64        # [design] distinct values a batch of masks holds at most (class
                            # ids; a continuous target of the image's size holds thousands)

PLACEMENTS = {
    "as given": lambda m: m,
    "flipped left-right": lambda m: m[:, ::-1],
    "flipped up-down": lambda m: m[::-1, :],
    "turned 180 degrees": lambda m: m[::-1, ::-1],
}
SQUARE_PLACEMENTS = {        # the other four symmetries of a square
    "turned 90 degrees": lambda m: np.rot90(m, 1),
    "turned 270 degrees": lambda m: np.rot90(m, 3),
    "transposed": lambda m: m.T,
    "anti-transposed": lambda m: np.rot90(m, 2).T,
}


def placements_of(mask):
    """The placements a mask of this shape can take: the four symmetries of a rectangle, the
    eight of a square ("as given" first)."""
    if mask.shape[0] == mask.shape[1]:
        return {**PLACEMENTS, **SQUARE_PLACEMENTS}
    return PLACEMENTS


def edge_strength(image):
    """(H, W): the gradient's magnitude of a (C, H, W) image, summed over its channels."""
    gy, gx = np.gradient(image, axis=(-2, -1))
    return np.sqrt(gy ** 2 + gx ** 2).sum(axis=0)


def boundary_pixels(mask):
    """(H, W) 0/1: the pixels next to a change of class in an (H, W) mask."""
    gy, gx = np.gradient(mask.astype(np.float64))
    return ((np.abs(gy) + np.abs(gx)) > 0).astype(np.float64)


def _correlation(a, b):
    a, b = a.ravel() - a.mean(), b.ravel() - b.mean()
    scale = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / scale) if scale > 0 else float("nan")


def best_placement(image, mask):
    """(fit as given, best other fit, its placement) of one (C, H, W) image and (H, W) mask,
    or None when either has no structure to compare."""
    edges = edge_strength(image)
    boundary = boundary_pixels(mask)
    if edges.std() == 0 or boundary.std() == 0:
        return None
    fits = {name: _correlation(edges, move(boundary))
            for name, move in placements_of(mask).items()}
    given = fits.pop("as given")
    other = max(fits, key=fits.get)
    return given, fits[other], other


def masks_of(y, samples, height, width):
    """(samples, H, W) masks of a target batch, or None when it holds no masks of that size:
    class ids (whole numbers, at most ``MAX_MASK_VALUES`` of them in the batch), or one-hot
    channels of 0/1 read by their argmax. Continuous targets of an image's size (a clean image, a depth or
    density map, keypoint heatmaps) are no masks."""
    if y.shape[-2:] != (height, width) or len(y) != samples or y.ndim not in (3, 4):
        return None
    if y.ndim == 4 and y.shape[1] > 1:
        if not np.isin(y, (0, 1)).all():
            return None
        return y.argmax(axis=1)             # one-hot masks, one channel per class
    masks = y if y.ndim == 3 else y[:, 0]
    if np.issubdtype(masks.dtype, np.floating) and not np.all(masks == np.round(masks)):
        return None                         # not class ids: a clean image, a density map
    if len(np.unique(masks)) > MAX_MASK_VALUES:
        return None
    return masks


def copied_mask(image, mask):
    """The placement under which a channel of ``image`` IS ``mask`` value for value ("as
    given" first), or None: an input overwritten by its (transformed) target."""
    for name, move in placements_of(mask).items():
        moved = move(mask)
        if any(np.array_equal(channel, moved) for channel in image):
            return name
    return None


def placement_row(pairs):
    """The ``mask_placement_rows`` row of ``[(step, images, targets)]``, or None."""
    read = fitted = moved = copied = copied_moved = 0
    found = collections.Counter()
    first = None
    for step, x, y in pairs:
        if x.ndim != 4 or not np.issubdtype(x.dtype, np.floating) or \
                min(x.shape[-2:]) < MIN_SIDE:
            continue
        masks = masks_of(y, len(x), *x.shape[-2:])
        if masks is None or not (np.isfinite(x).all() and np.isfinite(masks).all()):
            continue
        budget = min(SAMPLES_READ, max(1, PIXELS_READ // masks[0].size))
        for image, mask in zip(np.asarray(x, dtype=np.float64), masks):
            if read >= budget:
                break
            measured = best_placement(image, mask)
            if measured is None:
                continue
            read += 1
            first = step if first is None else min(first, step)
            copy = copied_mask(image, mask)
            copied += copy is not None
            copied_moved += copy not in (None, "as given")
            given, other_fit, other = measured
            if max(given, other_fit) < MIN_EDGE_FIT:
                continue
            fitted += 1
            if other_fit >= given + CLEARLY_BETTER:
                moved += 1
                found[other] += 1
    if not read:
        return None
    return (first, read, fitted, moved, found.most_common(1)[0][0] if found else "", copied,
            copied_moved)


class MaskPlacement:
    """Sets ``observed.<FIELD>`` to the one row ``ROW`` makes of the kept image inputs paired
    with their targets of 3+ axes (``target_offsets.TargetOffsets`` reads the same pairs
    another way)."""
    FIELD = "mask_placement_rows"
    ROW = staticmethod(placement_row)

    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set the row from the kept images and targets (host copies, once per findings;
        only targets of 3+ axes are copied)."""
        try:
            targets = [(step, t) for step, t in self.observed.targets
                       if len(getattr(t, "shape", ())) >= 3]
            if not targets:
                return
            row = self.ROW(self.inputs.paired_with(targets, "first argument"))
            if row is not None:
                setattr(self.observed, self.FIELD, [row])
        except Exception as error:
            self.on_error(error)

"""Targets cut at another place than their inputs (LABELS_MISALIGNED, ``rules/label_drift.py``).

An image-to-image pipeline (deblurring, denoising, colourisation, segmentation, depth) must
cut the input and its target with the same crop. Two random crops drawn apart - one
transform object per image (real-bug batch 360's pix2pix#1061: "Two separate transforms are
created for A and B images ... thus producing different random crop") - make the target the
input restored AND moved by a shift nothing in the input predicts. The loss still falls a
little: the network learns the average over the shifts, a blurrier image than it was given.

What is read: the input's edges (the gradient's magnitude, summed over channels) are
correlated with the target's structure - its own edges for a continuous target, its class
boundaries for a mask - at the target as given and moved by every small shift. Where the
pair was cut together, the shift 0 fits best (a blur, a noise, a colour change keep edges
where they are); where it was cut apart, another shift fits clearly better in most samples:
the offset between the two crops, one per sample.

Read only for an image input ``(B, C, H, W)`` of at most MAX_INPUT_CHANNELS channels or of
as many channels as its target, with a target of the same height and width: stacked frames
or image pairs (next-frame prediction, optical flow, stereo) have targets that lie elsewhere
by design, and many channels is how they come.

What it reads (torch only): the kept first training inputs (``first_training_inputs.py``)
paired with the kept targets (``run.observed.targets``). Measured (NumPy) when findings are
asked for; kept as ``run.observed.target_offset_rows``: ``[(first step, samples read, samples
whose edges fit their target at some shift, samples another shift fits clearly better,
distinct shifts among those, the shift most often found as "rows,columns", the samples it
moved, samples a continuous target fits clearly better transposed)]``. No per-step cost.

The last count tells another bug (HEATMAP_TARGET_AXES_SWAPPED, ``rules/target_axes.py``): a
target map drawn with its x and y exchanged fits its input best with its two axes swapped
back, in every sample that is not symmetric about the diagonal.
"""
import collections

import numpy as np

from .mask_placement import MaskPlacement, boundary_pixels, edge_strength, masks_of

MIN_SIDE = 8                # [design] images smaller than 8 x 8 have too few shifts to compare
MAX_SIDE = 32               # [design] larger images are averaged down to at most this side
                            # first: crops that differ by a few pixels at 256 x 256 still
                            # differ by a pixel or more at 32, and the shifts stay few
SHIFT_SHARE = 4             # [design] shifts up to a quarter of the (reduced) side, each way
MAX_INPUT_CHANNELS = 4      # [design] grey, RGB, RGBA; more is frames or an image pair
MIN_EDGE_FIT = 0.5          # [measured] correlation of the input's edges with the target's
                            # structure, at the best shift, for a sample to count: deblurring
                            # pairs cut together fit at 0.6-0.95 at shift 0 (batch 360), cut
                            # apart 0.8-0.95 at their offset
CLEARLY_BETTER = 0.15       # [design] another shift's fit above the fit as given by this much:
                            # a blurred edge fits its neighbours nearly as well as itself
                            # (batch 360's twin: the next pixel 0.05-0.25 below shift 0)
SAMPLES_READ = 64           # [design] samples of the kept batches measured at most


def _pooled(maps, side):
    """(n, h, w) maps averaged in whole blocks so that neither side exceeds ``side``."""
    factor = max(1, -(-max(maps.shape[1:]) // side))
    if factor == 1:
        return maps
    h, w = (maps.shape[1] // factor) * factor, (maps.shape[2] // factor) * factor
    blocks = maps[:, :h, :w].reshape(len(maps), h // factor, factor, w // factor, factor)
    return blocks.mean(axis=(2, 4))


def _correlations(a, b):
    """Per-sample correlation of two (n, h, w) stacks (nan where either is flat)."""
    a = a.reshape(len(a), -1)
    b = b.reshape(len(b), -1)
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    scale = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scale > 0, (a * b).sum(axis=1) / scale, np.nan)


def shift_fits(edges, structure):
    """{(rows, columns): per-sample correlation} of (n, h, w) input edges with the (n, h, w)
    target structure as if cut ``rows`` and ``columns`` further than its input (a crop window
    moved by that much), over the pixels both cover."""
    n, h, w = edges.shape
    reach = max(1, min(h, w) // SHIFT_SHARE)
    fits = {}
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            a = edges[:, max(0, dy):h + min(0, dy), max(0, dx):w + min(0, dx)]
            b = structure[:, max(0, -dy):h + min(0, -dy), max(0, -dx):w + min(0, -dx)]
            fits[(dy, dx)] = _correlations(a, b)
    return fits


def _structure(y, samples, height, width):
    """((samples, H, W) target structure, whether the target is masks): class boundaries of
    masks, edges of a continuous target; None when the target is not an image of the
    input's size."""
    if len(y) != samples or y.shape[-2:] != (height, width) or y.ndim not in (3, 4):
        return None
    masks = masks_of(y, samples, height, width)
    if masks is not None:
        return np.stack([boundary_pixels(mask) for mask in masks]), True
    if not np.issubdtype(y.dtype, np.floating):
        return None
    images = y[:, None] if y.ndim == 3 else y
    return np.stack([edge_strength(image)
                     for image in np.asarray(images, dtype=np.float64)]), False


def _pair_maps(x, y):
    """(input edges, target structure, whether the target is masks) of one batch, the maps
    both (n, h, w), or None."""
    if x.ndim != 4 or not np.issubdtype(x.dtype, np.floating) or min(x.shape[-2:]) < MIN_SIDE:
        return None
    target_channels = y.shape[1] if y.ndim == 4 else 1
    if x.shape[1] > MAX_INPUT_CHANNELS and x.shape[1] != target_channels:
        return None
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return None
    measured = _structure(y, len(x), *x.shape[-2:])
    if measured is None:
        return None
    structure, masks = measured
    edges = np.stack([edge_strength(image) for image in np.asarray(x, dtype=np.float64)])
    return _pooled(edges, MAX_SIDE), _pooled(structure, MAX_SIDE), masks


def offset_row(pairs):
    """The ``target_offset_rows`` row of ``[(step, inputs, targets)]``, or None."""
    read = fitted = moved = transposed = 0
    found = collections.Counter()
    first = None
    for step, x, y in pairs:
        if read >= SAMPLES_READ:
            break
        maps = _pair_maps(x, y)
        if maps is None:
            continue
        edges, structure = (m[:SAMPLES_READ - read] for m in maps[:2])
        fits = shift_fits(edges, structure)
        given = fits.pop((0, 0))
        others = np.stack(list(fits.values()))            # (shifts, n)
        shifts = list(fits)
        measurable = np.isfinite(given) & np.isfinite(others).all(axis=0)
        if not measurable.any():
            continue
        first = step if first is None else min(first, step)
        best = np.nanargmax(np.where(np.isfinite(others), others, -np.inf), axis=0)
        best_fit = others[best, np.arange(others.shape[1])]
        swapped = _transposed_fits(edges, structure, masks=maps[2])
        read += int(measurable.sum())
        for sample in np.flatnonzero(measurable):
            if max(given[sample], best_fit[sample], swapped[sample]) < MIN_EDGE_FIT:
                continue
            fitted += 1
            if swapped[sample] >= max(given[sample] + CLEARLY_BETTER, best_fit[sample]):
                transposed += 1
            elif best_fit[sample] >= given[sample] + CLEARLY_BETTER:
                moved += 1
                found[shifts[best[sample]]] += 1
    if not read:
        return None
    (common, count), = found.most_common(1) if found else [((), 0)]
    return (first, read, fitted, moved, len(found), ",".join(map(str, common)), count,
            transposed)


def _transposed_fits(edges, structure, masks):
    """Per-sample fit of a continuous target with its two spatial axes swapped (square maps
    only; nan otherwise): a target map built on a grid whose x and y were exchanged
    (real-bug batch 115's heatmaps, ``meshgrid`` unpacked in the other order). Masks are
    left to ``mask_placement.py``, whose placements include the transpose."""
    if masks or edges.shape[1] != edges.shape[2]:
        return np.full(len(edges), np.nan)
    return _correlations(edges, structure.transpose(0, 2, 1))


class TargetOffsets(MaskPlacement):
    """``observed.target_offset_rows`` from the same pairs ``MaskPlacement`` reads."""
    FIELD = "target_offset_rows"
    ROW = staticmethod(offset_row)

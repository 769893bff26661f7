"""An overlap ratio (a soft Dice, an IoU) whose numerator has no smoothing term, over targets
of which some are empty (real-bug batch 75: losses written by hand;
LOSS_CONSTANT_ON_EMPTY_TARGETS, ``rules/empty_overlaps.py``).

``1 - 2 * (p * m).sum() / (p.sum() + m.sum() + eps)`` per image: where the target mask ``m``
is empty the numerator is 0 whatever the model predicts, the image's term is exactly 1 and
its gradient exactly 0 - images with nothing to find teach the model nothing, and it paints
what it learned elsewhere onto them (open-mmlab/mmocr#408, aim-uofa/AdelaiDet#610). With
the eps in the numerator too, ``(2 * overlap + eps) / (areas + eps)``, an empty prediction of
an empty mask scores 1 and the gradient pushes the prediction down.

Read before the backward of the origin watch's steps (``nonfinite_origins.py``: the first
three recorded ones): the loss's root is a whole mean (or sum), under it ``1 - x`` or a sign,
then a division; its numerator reaches, through constant factors and a sum only (an added
term - the smoothing - stops it), a product of the prediction with a constant tensor whose
first axis is the division's rows: the target mask. A reference to the mask is kept; at
``findings()`` (``read``) its share of all-zero rows is counted (one host transfer of a
count). Kept in ``observed.empty_overlap_targets``: ``[(step, rows, empty rows)]``.

Cost: a few attribute reads per step on three steps; one mask kept alive until
``findings()`` and reduced then; nothing else.
"""
from .graph_walks import constant_operand

EMPTY_OVERLAP_LOOK_DOWN = 6    # [design] nodes followed from the root to the division and
                               # from the numerator to the product (a sign, a factor of 2,
                               # a sum: a handful)
_SIGNS = {"RsubBackward1", "RsubBackward0", "NegBackward0"}
_NUMERATOR_PASS = {"SumBackward1", "SumBackward0", "MulBackward0", "MulBackward1",
                   "ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0"}


def _computed(node):
    return [parent for parent, _ in getattr(node, "next_functions", ()) if parent is not None]


def overlap_mask(root):
    """(rows, mask) when the loss ``root`` is a reduction of 1 - numerator / denominator whose
    numerator is an unsmoothed product of the prediction with a constant mask of ``rows``
    rows (module doc); None otherwise."""
    if type(root).__name__ not in ("MeanBackward0", "SumBackward0"):
        return None
    try:
        sizes = tuple(int(s) for s in root._saved_self_sym_sizes)
    except (AttributeError, RuntimeError, TypeError):
        return None
    if not sizes or sizes[0] < 2:
        return None
    node = _computed(root)[0] if len(_computed(root)) == 1 else None
    for _ in range(EMPTY_OVERLAP_LOOK_DOWN):
        if node is None or type(node).__name__ not in _SIGNS:
            break
        node = _computed(node)[0] if len(_computed(node)) == 1 else None
    if node is None or type(node).__name__ != "DivBackward0" or len(_computed(node)) != 2:
        return None
    numerator = node.next_functions[0][0]
    for _ in range(EMPTY_OVERLAP_LOOK_DOWN):
        if numerator is None or type(numerator).__name__ not in _NUMERATOR_PASS:
            return None              # an added term (the smoothing), a log, ...: not this form
        mask = constant_operand(numerator)
        if mask is not None and mask.dim() >= 2 and int(mask.shape[0]) == sizes[0]:
            return sizes[0], mask
        computed = _computed(numerator)
        if len(computed) != 1:
            return None
        numerator = computed[0]
    return None


class EmptyOverlaps:
    def __init__(self, observed):
        self.observed = observed
        self.kept = None           # (step, rows, mask), the first found

    def before_backward(self, step, loss):
        if self.kept is not None or step is None:
            return
        found = overlap_mask(getattr(loss, "grad_fn", None))
        if found is not None:
            self.kept = (int(step), found[0], found[1].detach())

    def read(self):
        """At ``findings()``: how many of the mask's rows are all zero."""
        if self.kept is None:
            return
        step, rows, mask = self.kept
        self.kept = None
        import torch
        with torch.no_grad():
            empty = int((mask.reshape(rows, -1) == 0).all(dim=1).sum())
        self.observed.empty_overlap_targets.append((step, rows, empty))

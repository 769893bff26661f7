"""An overlap ratio (soft Dice, IoU, Tversky) whose sums run over the WHOLE batch
(``run.observed.whole_batch_overlaps``; DICE_OVER_WHOLE_BATCH, ``nndebug.rules.
batch_overlaps``).

A soft Dice loss is a ratio of sums: ``2 * (p * m).sum() / (p.sum() + m.sum())``. Summed
over each image's pixels (``dim=(1, 2, 3)``) it gives one Dice per image and the loss
averages them, so each image counts the same. Summed over the batch axis too, the batch
becomes one big image: an image whose object covers a few pixels adds a few pixels to sums
ruled by the large objects beside it, and missing it costs almost nothing. The segmenter
learns the large objects and leaves the small ones unfound; nothing fails.

In torch's graph that is a quotient (``DivBackward0``) both of whose operands are computed
and reach, through constants, sums and differences only, reductions of a WHOLE tensor of
two or more rows (``SumBackward0``, or ``SumBackward1`` / ``MeanBackward1`` over every
axis), the numerator's over a product (the overlap ``p * m``). A per-image Dice reduces
the pixel axes only and is not counted; neither is a loss divided by a count or a weight
sum that carries no gradient (``loss.sum() / mask.sum()``: one operand is a constant).
The sizes and reduced axes outlive the backward, so the nodes come from the shared walk of
the loss's graph (``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps:
no per-step cost after them.
"""
from .graph_walks import FirstStepsReader, saved_axis

WALK_STEPS = 3            # [design] recorded steps read: the loss's graph has the same shape
                          # on every step of an ordinary loop
QUOTIENTS = {"DivBackward0"}
# sums and constant factors between a whole reduction and the quotient: the smoothing
# constant added, the 2 of Dice, the sums of Tversky's terms
PASS_THROUGH = {"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1",
                "MulBackward0", "MulBackward1"}
WHOLE_SUMS = {"SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1"}
PRODUCTS = {"MulBackward0"}
LOOK_DOWN = 4             # [design] pass-through nodes followed down at most per operand


class WholeBatchOverlaps(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.whole_batch_overlaps.extend(
            (step, shape) for shape in find_whole_batch_overlaps(nodes))


def find_whole_batch_overlaps(nodes):
    """[reduced shape] of each quotient of whole-batch sums over a product (module doc)."""
    found = []
    for node in nodes:
        if type(node).__name__ not in QUOTIENTS:
            continue
        operands = [child for child, _ in node.next_functions]
        if len(operands) != 2 or any(child is None for child in operands):
            continue                       # a constant on one side: a mean or a weighting
        numerator, denominator = (_whole_sums_below(child) for child in operands)
        if not numerator or not denominator:
            continue
        overlaps = [shape for shape, of_product in numerator if of_product]
        if overlaps:
            found.append(overlaps[0])
    return found


def _whole_sums_below(node):
    """[(reduced shape, whether it reduced a product)] when every branch under ``node``
    reaches, through pass-through nodes only, a whole reduction of two or more rows; an
    empty list otherwise."""
    found, stack = [], [(node, 0)]
    while stack:
        node, depth = stack.pop()
        name = type(node).__name__
        if name in WHOLE_SUMS:
            shape = _whole_shape(node)
            if shape is None:
                return []
            below = [child for child, _ in node.next_functions if child is not None]
            found.append((shape, bool(below) and type(below[0]).__name__ in PRODUCTS))
        elif name in PASS_THROUGH and depth < LOOK_DOWN:
            stack.extend((child, depth + 1) for child, _ in node.next_functions
                         if child is not None)
        else:
            return []
    return found


def _whole_shape(node):
    """The reduced tensor's shape when the reduction covers every axis of two or more
    rows; else None."""
    shape = [int(n) for n in getattr(node, "_saved_self_sym_sizes", ())]
    if len(shape) < 2 or shape[0] < 2:
        return None
    dims = getattr(node, "_saved_dim", None)
    if dims is None:                       # SumBackward0 / MeanBackward0: everything
        return shape
    axes = {saved_axis(d, len(shape)) for d in dims}
    return shape if axes == set(range(len(shape))) else None

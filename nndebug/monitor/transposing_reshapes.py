"""A ``view`` / ``reshape`` that reorders a tensor's axes instead of a permute
(``run.observed.transposing_reshapes``; RESHAPE_USED_AS_TRANSPOSE, ``nndebug.rules.
reshape_transposes``).

A reshape never moves a number: it reads the same memory in the same order and only cuts
it into other rows. ``x.view(B, H * W, C)`` on a (B, C, H, W) feature map therefore does
not give one C-vector per pixel: "pixel" i gets C consecutive numbers of one channel's map.
The same goes for (B, C, H, W) -> (B, W, C * H) before an RNN, (B, H * W, C) scores ->
(B, C, H, W) maps, (B, T, V) logits -> (B, V, T) for a loss: shapes that only a transpose
would give. Nothing fails; the layers after it learn from scrambled numbers.

What a reshape that keeps the axes' meaning looks like: it merges neighbouring axes
((B, C, H, W) -> (B, C * H * W)), splits one axis ((B, T, H * D) -> (B, T, H, D)), or
both, each group of the output coming from ONE run of neighbouring input axes. The shape
that is the bug's signature: the output is NOT such a plain regrouping of the input, but
IS one of the input with its axes in another order (sizes of one, which a reshape may add
or drop freely, aside). For (B, 32, 8, 8) -> (B, 64, 32) that order is (B, 8, 8, 32):
the channels were meant to go last. A reshape that splits one axis and merges the piece
with a neighbour ((T, B, E) -> (T, B * H, D) in multi-head attention) is no reordering of
whole axes and is not counted; nor is one whose sizes fit no order (a regrouping like
(B, 3, 10) -> (B, 15, 2)); nor one that reads a transposed or permuted tensor or whose
output is transposed right away: there the axes are being moved on purpose (the fix is
a permute, then a reshape), and attention's head split (the last axis cut into heads,
then transposed) takes a transpose's shape whenever the batch equals the head size.

The view's input sizes (``_saved_self_sym_sizes``) and its output's shape (the node's
input metadata) outlive the backward, so the nodes come from the shared walks: the model's
forward graph (``graph_walks.ForwardGraph``) and the loss's (``graph_walks.LossGraph``, for
a view written into the loss function), each on the first ``WALK_STEPS`` recorded steps
only: no per-step cost after them, no host transfer.
"""
from itertools import permutations

from .graph_walks import FirstStepsReader

WALK_STEPS = 3            # [design] recorded steps read: the graph has the same shape on
                          # every step of an ordinary loop
RESHAPES = {"ViewBackward0", "ReshapeAliasBackward0", "UnsafeViewBackward0"}
# a view that reads a transposed/permuted tensor moves axes on purpose (the fix is a
# permute, then a reshape); so does a head split transposed right away: multi-head
# attention's q.view(T, B * H, D).transpose(0, 1), and its output's .transpose(0, 1)
# .contiguous().view(T * B, E), have the shapes of transposes whenever the batch equals
# the head size (B * H == E). (A view fed to an RNN is transposed inside nn.GRU/LSTM too:
# only a view that cuts its input's last axis into pieces is excused by what follows it.)
AXIS_MOVES = {"TransposeBackward0", "TransposeBackward1", "PermuteBackward0"}
MAX_AXES = 6              # [design] input axes (of size > 1) whose orders are tried: 720
                          # orders at most; a view of more axes is not judged
MAX_ROWS = 8              # [design] distinct (input, output) shape pairs kept per run


class TransposingReshapes(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph`` or ``graph_walks.LossGraph`` (one of each
    is armed; they share the observed list and keep each shape pair once)."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        keep_shape_pairs(self.observed.transposing_reshapes, step,
                         find_transposing_reshapes(nodes), MAX_ROWS)


def keep_shape_pairs(rows, step, found, limit):
    """Append ``(step, before, after, detail)`` to ``rows`` for each found reshape whose
    (input, output) shape pair is not there yet, up to ``limit`` rows: the wiring is the
    same on every step, so each pair is kept once."""
    seen = {(tuple(row[1]), tuple(row[2])) for row in rows}
    for before, after, detail in found:
        if (tuple(before), tuple(after)) not in seen and len(rows) < limit:
            seen.add((tuple(before), tuple(after)))
            rows.append((step, before, after, detail))


def input_axis_view(tensor):
    """``(base shape, shape, base axes in the order the shape follows)`` when ``tensor`` (the
    model's input batch, data without gradient) is a ``view`` of a whole contiguous base
    whose shape only a reordering of the base's axes explains - (B, T, N).view(B, N, T)
    where a permute was meant (real-bug batch 226: sensor windows stored time by sensor);
    None otherwise. A view made before the model carries no gradient, so the graph walks
    above never meet it; only the batch's ``_base`` still tells (torch keeps it on views).
    A permuted or transposed batch is no contiguous view (it is the fix), and a view of part
    of its base (a slice) holds fewer numbers than the base: neither is judged."""
    base = getattr(tensor, "_base", None)
    if base is None or getattr(tensor, "requires_grad", False) or \
            not tensor.is_contiguous() or not base.is_contiguous() or \
            base.numel() != tensor.numel() or base.storage_offset() != tensor.storage_offset():
        return None
    before, after = [int(n) for n in base.shape], [int(n) for n in tensor.shape]
    order = reordering(before, after)
    return None if order is None else (before, after, order)


def moved_reshape_ids(nodes):
    """The ids of the nodes among ``nodes`` whose output goes straight into a transpose or
    permute (``AXIS_MOVES``)."""
    return {id(child) for node in nodes if type(node).__name__ in AXIS_MOVES
            for child, _ in node.next_functions if child is not None}


def find_transposing_reshapes(nodes):
    """[(input shape, output shape, input axes in the order the output follows)] of each
    reshape node among ``nodes`` that only an axis reordering explains (module doc), unless
    its output goes straight into a transpose or permute (see ``AXIS_MOVES``)."""
    moved = moved_reshape_ids(nodes)
    found = []
    for node in nodes:
        if type(node).__name__ not in RESHAPES or _after_a_move(node):
            continue
        before = [int(n) for n in getattr(node, "_saved_self_sym_sizes", ())]
        metadata = getattr(node, "_input_metadata", ())
        if not before or not metadata:
            continue
        after = [int(n) for n in metadata[0].shape]
        if id(node) in moved and _splits_last_axis(before, after):
            continue                       # a head split, then the transpose that follows it
        order = reordering(before, after)
        if order is not None:
            found.append((before, after, order))
    return found


def _after_a_move(node):
    """Whether the reshape reads a transposed or permuted tensor (through a .contiguous()
    copy or not): the axes were moved on purpose, as the fix does."""
    for child, _ in node.next_functions:
        name = type(child).__name__ if child is not None else ""
        if name == "CloneBackward0":
            child = child.next_functions[0][0] if child.next_functions else None
            name = type(child).__name__ if child is not None else ""
        if name in AXIS_MOVES:
            return True
    return False


def _splits_last_axis(before, after):
    """Whether the output's last axis is a proper piece of the input's last (E -> (.., D)
    with E = H * D), as attention's head split cuts it."""
    return (bool(before) and bool(after) and after[-1] < before[-1]
            and before[-1] % after[-1] == 0)


def reordering(before, after):
    """The order of ``before``'s axes (indices) whose plain regrouping gives ``after``, when
    ``after`` is not a plain regrouping of ``before`` itself; None otherwise."""
    axes = [i for i, n in enumerate(before) if n > 1]
    sizes = [before[i] for i in axes]
    target = [n for n in after if n > 1]
    if len(axes) < 2 or len(axes) > MAX_AXES or regroups(sizes, target):
        return None
    for order in permutations(range(len(axes))):
        if regroups([sizes[i] for i in order], target):
            return [axes[i] for i in order]
    return None


def regroups(source, target):
    """Whether ``target`` is ``source`` with runs of neighbouring axes merged or single axes
    split: walking both, each stretch that ends where the two running products meet holds
    one axis on at least one side."""
    i = j = 0
    while i < len(source) and j < len(target):
        left, right, taken_left, taken_right = source[i], target[j], 1, 1
        i, j = i + 1, j + 1
        while left != right:
            if left < right:
                if i == len(source):
                    return False
                left, i, taken_left = left * source[i], i + 1, taken_left + 1
            else:
                if j == len(target):
                    return False
                right, j, taken_right = right * target[j], j + 1, taken_right + 1
        if taken_left > 1 and taken_right > 1:
            return False
    return i == len(source) and j == len(target)

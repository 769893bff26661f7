"""A ``view`` / ``reshape`` that cuts an image into patch tokens, or lays patch tokens back
out as an image, in one step (``run.observed.patch_grid_reshapes``; RESHAPE_USED_AS_TRANSPOSE,
``nndebug.rules.reshape_transposes``).

A vision transformer's patches are square blocks of the image: p x p pixels of every
channel. No single reshape makes them: the rows of a block lie apart in memory, so
``x.view(B, num_patches, -1)`` on (B, C, H, W) images (duoan/TorchCode#21) gives tokens of
p * p consecutive numbers - strips of one channel's rows - and per-patch outputs
(B, patches, p * p, classes) reshaped straight to (B, H, W, classes)
(michaeltrs/DeepSatModels#22) put patch 0's pixels, then patch 1's, along the image's first
row. The model trains on tokens, or is graded on pixels, that are not where it thinks.

The shape that is the signature, once the axes both sides share at their ends are set
aside (the first, the batch, must be one of them): (H, W) <-> (N, p * p) or (C, H, W) <->
(N, C * p * p) (either direction, sizes of one dropped), where p >= 2 divides H and W and
N = (H / p) * (W / p) - a patch grid's numbers - and the middle is no plain regrouping of
the other side (a flatten, a head split) nor the same sizes in another order (a swap of
axes: ``transposing_reshapes.py`` judges those, as it does any shape pair that whole axes
reordered with the batch kept first also explain, e.g. (B, C, H, W) -> (B, W, C * H)).
Swin's window partition, which merges the batch with the windows, is not a patch cut. A reshape of a transposed or permuted tensor is the correct way (permute, then
reshape) and is not counted, nor is one that cuts its input's last axis into pieces and is
transposed right away (``nn.MultiheadAttention``'s head split, (T, B, E) -> (T, B * H, D),
has a patch grid's numbers when B = E = T), as in ``transposing_reshapes.py``.

Read from the shared walk of the forward's graph (``graph_walks.ForwardGraph``) on the first
``PATCH_GRID_STEPS`` recorded steps: node types and saved sizes, no host transfer. Only a
reshape inside the graph is seen: per-patch outputs, or the patches of a feature map (a
hybrid ViT's conv stem); a view of the raw input images, which need no gradient, leaves no
node (not checked).
"""
from .graph_walks import FirstStepsReader
from .transposing_reshapes import (RESHAPES, _after_a_move, _splits_last_axis,
                                   keep_shape_pairs, moved_reshape_ids, regroups, reordering)

PATCH_GRID_STEPS = 3         # [design] recorded steps read: the forward's wiring is the same on
                             # every step
PATCH_GRID_ROWS = 8          # [design] distinct (input, output) shape pairs kept per run


class PatchGridReshapes(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``: (step, input shape, output shape, p)."""
    steps = PATCH_GRID_STEPS

    def keep(self, step, nodes):
        keep_shape_pairs(self.observed.patch_grid_reshapes, step,
                         find_patch_grid_reshapes(nodes), PATCH_GRID_ROWS)


def find_patch_grid_reshapes(nodes):
    """[(input shape, output shape, patch side)] of the reshapes among ``nodes`` that cut a
    patch grid in one step (module doc)."""
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
            continue        # attention's head split, (T, B, E) -> (T, B * H, D), transposed
        patch = patch_side(before, after)
        order = reordering(before, after) if patch is not None else None
        if order and order[0] == _first_axis(before):
            continue     # whole axes reordered with the batch kept first explain it better
        if patch is not None:
            found.append((before, after, patch))
    return found


def _first_axis(shape):
    return next((i for i, n in enumerate(shape) if n > 1), 0)


def patch_side(before, after):
    """The patch side p when ``before`` -> ``after`` is a one-step patch cut or paste (module
    doc), else None."""
    left = [n for n in before if n > 1]
    right = [n for n in after if n > 1]
    if not left or not right or left[0] != right[0]:
        return None             # the batch axis is kept by a patch cut (windows merge it)
    while left and right and left[0] == right[0]:
        left, right = left[1:], right[1:]
    while left and right and left[-1] == right[-1]:
        left, right = left[:-1], right[:-1]
    if not left or not right or regroups(left, right) or regroups(right, left) or \
            sorted(left) == sorted(right):
        return None             # a regrouping, or axes swapped (transposing_reshapes.py)
    for image, tokens in ((left, right), (right, left)):
        patch = _grid_patch(image, tokens)
        if patch is not None:
            return patch
    return None


def _grid_patch(image, tokens):
    """p when ``image`` is (H, W) or (C, H, W) and ``tokens`` is (N, C * p * p) of its grid."""
    if len(tokens) != 2 or len(image) not in (2, 3):
        return None
    channels = image[0] if len(image) == 3 else 1
    height, width = image[-2], image[-1]
    count, size = tokens
    if size % channels:
        return None
    area = size // channels
    patch = int(round(area ** 0.5))
    if patch < 2 or patch * patch != area or height % patch or width % patch:
        return None
    if count != (height // patch) * (width // patch):
        return None
    return patch

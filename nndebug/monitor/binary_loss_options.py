"""``reduction`` and ``pos_weight`` of a binary cross-entropy called as a function (real-bug
batch 67).

A loss module's options are read from its attributes (``target_ids.loss_options``) and an
``F.cross_entropy`` call's from its arguments (``target_ids.function_call_options``); an
``F.binary_cross_entropy_with_logits`` / ``F.binary_cross_entropy`` call had none, so a
rule that needs a known batch mean (RARE_POSITIVES_NEVER_PREDICTED) passed over every
functional BCE. Read here from the call's arguments, with torch's defaults: ``reduction``
at position 5, ``pos_weight`` at position 6 (with logits only), and the deprecated
``size_average`` / ``reduce`` (positions 3 and 4): when either is given the reduction is
left unknown. Python only, no tensor is read (a ``pos_weight`` tensor goes through
``positive_weights``, which copies it once).

``weight`` (position 2) is read as well when it is one number per output column - a 1-D
tensor as long as the input's last axis, on an input of two or more axes - into
``class_weights``, as a ``BCEWithLogitsLoss(weight=w)`` module's is (real-bug batch 258:
balancing weights handed to ``F.binary_cross_entropy_with_logits(..., weight=w)`` went
unread, so POS_WEIGHT_PASSED_AS_WEIGHT passed over every functional call). A per-row or
per-element weight (another shape) is not a class weight and is left out; the tensor is
copied as a ``pos_weight`` is (``positive_weights``, once while it stays unchanged).
"""
from .target_ids import positive_weights

BINARY_FUNCTIONS = {"binary_cross_entropy_with_logits", "binary_cross_entropy"}
REDUCTION_POSITION = 5        # [torchdocs] F.binary_cross_entropy(_with_logits)'s signature
POS_WEIGHT_POSITION = 6       # [torchdocs] F.binary_cross_entropy_with_logits's signature
WEIGHT_POSITION = 2           # [torchdocs] both functions' signatures: (input, target, weight)
LEGACY_POSITIONS = {"size_average": 3, "reduce": 4}   # [torchdocs] deprecated arguments


def _argument(args, kwargs, name, position, default=None):
    return kwargs.get(name, args[position] if len(args) > position else default)


def binary_function_options(name, args, kwargs):
    """{"reduction": ..., "pos_weight": ...} for a functional BCE call; {} for other names."""
    if name not in BINARY_FUNCTIONS:
        return {}
    if any(_argument(args, kwargs, legacy, position) is not None
           for legacy, position in LEGACY_POSITIONS.items()):
        return {}
    options = {"reduction": _argument(args, kwargs, "reduction", REDUCTION_POSITION, "mean")}
    per_column = _per_column_weights(args, kwargs)
    if per_column is not None:
        options["class_weights"] = per_column
    if name == "binary_cross_entropy_with_logits":
        weights = positive_weights(_argument(args, kwargs, "pos_weight", POS_WEIGHT_POSITION))
        if weights is not None:
            options["pos_weight"] = weights
    return options


def _per_column_weights(args, kwargs):
    """The call's ``weight`` as a tuple of floats when it holds one number per output column
    (1-D, as long as the input's last axis, the input with two or more axes), else None."""
    weight = _argument(args, kwargs, "weight", WEIGHT_POSITION)
    output = args[0] if args else kwargs.get("input")
    shape, output_shape = getattr(weight, "shape", None), getattr(output, "shape", None)
    if shape is None or output_shape is None or len(shape) != 1 or len(output_shape) < 2 \
            or shape[0] != output_shape[-1] or shape[0] < 2:
        return None
    return positive_weights(weight)     # copied once while the tensor stays unchanged

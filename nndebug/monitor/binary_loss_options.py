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
"""
from .target_ids import positive_weights

BINARY_FUNCTIONS = {"binary_cross_entropy_with_logits", "binary_cross_entropy"}
REDUCTION_POSITION = 5        # [torchdocs] F.binary_cross_entropy(_with_logits)'s signature
POS_WEIGHT_POSITION = 6       # [torchdocs] F.binary_cross_entropy_with_logits's signature
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
    if name == "binary_cross_entropy_with_logits":
        weights = positive_weights(_argument(args, kwargs, "pos_weight", POS_WEIGHT_POSITION))
        if weights is not None:
            options["pos_weight"] = weights
    return options

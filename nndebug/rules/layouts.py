"""LAYOUT_NOT_TRANSPOSED: a (batch, length, features) tensor given to a layer that reads
axis 1 as its channels (Conv1d, BatchNorm1d, InstanceNorm1d), or such a layer's
(batch, channels, length) output read by a layer that takes the last axis as the features,
with no transpose between them.

An embedding's output, a LayerNorm's, an RNN's and attention's all keep the features on the
last axis; Conv1d and BatchNorm1d want them on axis 1. Fed straight in (the permute
forgotten or commented out, the layer's channels set to the sequence length so that it
runs), the convolution slides along the features, whose order means nothing, and treats
each position as a channel of its own: the model learns position-bound patterns only, and
a text CNN stops generalising across positions. The loss still falls.

Read from ``run.observed.layer_layouts`` (``nndebug.monitor.layer_layouts``): the shapes
going in and out of both kinds of layers, in call order, on the first recorded steps. The
evidence is an exact shape match: the channels-first layer's input is the shape a
channels-last layer just gave out, or its output the shape a channels-last layer takes in
next; or, for a convolution with no such neighbour, its input is one-hot along the LAST axis
(``one_hot_axis`` 2: every row along axis 1 a single 1 among the symbols), the stored
(batch, length, 4) layout of one-hot DNA given to Conv1d with in_channels = length; or, for
the first layer a step calls, a Conv1d reading the model's input whose kernel is wider than
that input's length while its channels outnumber the positions many times over (``side``
"kernel_over_length"): sensor windows stored (batch, time steps, axes) and given to
Conv1d(in_channels = window length) slide a 7-wide kernel over 3 axes, mostly padding
(real-bug batch 257, discuss.pytorch.org 146852). A length of 1 is left alone there (a
feature vector given as (batch, features, 1) is as common as a window given as
(batch, steps, 1)). Left
alone: a convolution of kernel width 1 (a per-position mixing, as MLP-Mixer's
token mixing does on purpose), a tensor whose two last axes are equal (the shapes cannot
tell them apart), and Linear layers (applied across time on purpose by forecasters).
"""
from ..findings import Finding
from .context import judged_only, observed_list
from .graph import rule

# consumers whose input is ids, not features: their input shape says nothing of a layout
ID_INPUT_LAYERS = {"Embedding"}
CHANNELS_PER_POSITION = 4   # [design] a model input read as (channels, length) with at least
                            # this many channels per position and a kernel wider than the
                            # length: time steps taken for channels (64 steps over 3 axes is
                            # 21 per position; a sensor window read right has far fewer
                            # channels than positions)


def kernel_over_length(call):
    """A convolution whose 3-D input is shorter than its kernel (2 positions or more) and
    has CHANNELS_PER_POSITION channels or more per position."""
    shape = tuple(call.input_shape)
    if len(shape) != 3 or not call.type.startswith("Conv") or not call.kernel:
        return False
    channels, length = shape[1], shape[2]
    return 2 <= length < call.kernel and channels >= CHANNELS_PER_POSITION * length


def ambiguous(shape):
    """Not a 3-D tensor, or one whose two last axes are equal (no telling them apart)."""
    return len(shape) != 3 or shape[1] == shape[2]


def misread_layouts(calls):
    """[(channels-first call, other call, "input" | "output")]: the channels-first layers
    given a channels-last tensor as it was ("input"), or whose output went as it was into a
    layer that reads the last axis as features ("output"); one pair per channels-first layer."""
    by_step = {}
    for call in calls:
        by_step.setdefault(call.step, []).append(call)
    found, seen = [], set()
    for step_calls in by_step.values():
        step_calls.sort(key=lambda c: c.order)
        for c in step_calls:
            if c.role != "channels_first" or c.layer in seen or (c.kernel or 2) < 2:
                continue
            given, gave = tuple(c.input_shape), tuple(c.output_shape)
            before = [p for p in step_calls if p.order < c.order and p.role == "channels_last"
                      and not ambiguous(given) and tuple(p.output_shape) == given]
            after = [q for q in step_calls if q.order > c.order and q.role == "channels_last"
                     and q.type not in ID_INPUT_LAYERS and not ambiguous(gave)
                     and tuple(q.input_shape) == gave]
            if before:
                other, side = before[-1], "input"
            elif after:
                other, side = after[0], "output"
            elif getattr(c, "one_hot_axis", None) == 2 and c.type.startswith("Conv"):
                other, side = None, "one_hot"
            elif c is step_calls[0] and kernel_over_length(c):
                other, side = None, "kernel_over_length"
            else:
                continue
            found.append((c, other, side))
            seen.add(c.layer)
    return found


def _describe(c, other, side):
    if side == "one_hot":
        _, axis1, last = c.input_shape
        return (f"{c.type} '{c.layer}' reads axis 1 of its {tuple(c.input_shape)} input as "
                f"its {axis1} channels, but that input is one-hot along its LAST axis: each "
                f"of the {axis1} rows holds a single 1 among {last} symbols, so the symbols "
                f"(bases, residues, characters) are the features and axis 1 the positions. "
                f"The layer {_what(c)} along the {last} symbols, and each position is a "
                "channel of its own: no filter is shared across positions.")
    if side == "kernel_over_length":
        _, axis1, last = c.input_shape
        return (f"{c.type} '{c.layer}' reads the model's {tuple(c.input_shape)} input as "
                f"{axis1} channels of length {last}, but its kernel is {c.kernel} wide: "
                f"wider than the whole axis it slides along, so each output is mostly "
                f"padding, and with {axis1} channels for {last} positions the layout looks "
                f"like (batch, time steps, features): the layer slides along the {last} "
                f"features and each of the {axis1} time steps is a channel of its own.")
    if side == "input":
        _, axis1, last = c.input_shape
        return (f"{c.type} '{c.layer}' reads axis 1 of its {tuple(c.input_shape)} input as "
                f"its {axis1} channels, but that tensor is what {other.type} '{other.layer}' "
                f"gave out, and {other.type} keeps the features on the last axis ({last}): "
                f"the layer {_what(c)} along the {last} features, and each of the {axis1} "
                "positions is a channel of its own.")
    _, channels, length = c.output_shape
    return (f"{c.type} '{c.layer}' gives out (batch, channels, length) = "
            f"{tuple(c.output_shape)}, and {other.type} '{other.layer}' takes that tensor as "
            f"it is, reading its last axis ({length}) as the features: the {channels} "
            "channels become positions, and the positions features.")


def _what(c):
    return "slides its kernel" if c.type.startswith("Conv") else "normalises"


@rule(produces="LAYOUT_NOT_TRANSPOSED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def layout_not_transposed(ctx):
    pairs = misread_layouts(judged_only(ctx, observed_list(ctx, "layer_layouts")))
    if not pairs:
        return None
    c, other, side = pairs[0]
    others = [f"{p[0].type} '{p[0].layer}'" for p in pairs[1:]]
    more = f" The same holds for {', '.join(others)}." if others else ""
    return Finding(
        code="LAYOUT_NOT_TRANSPOSED", severity="warning", where=c.layer, step=c.step,
        message=_describe(c, other, side) + more + " Shapes fit only because the layer was "
                "sized to the wrong axis; the model trains, on the wrong one.",
        evidence={"layer": c.layer, "type": c.type, "input_shape": tuple(c.input_shape),
                  "output_shape": tuple(c.output_shape),
                  "next_to": other.layer if other else None,
                  "next_to_type": other.type if other else None, "side": side,
                  "layers": [p[0].layer for p in pairs]},
        fix="Transpose between the two layouts: x.transpose(1, 2) (or permute(0, 2, 1)) "
            "before the Conv1d/BatchNorm1d, and back after it, and give the layer the "
            "feature count as its channels (nn.Conv1d(embedding_dim, ...), "
            "nn.BatchNorm1d(features)).")

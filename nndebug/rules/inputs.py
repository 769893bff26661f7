"""Rules about the input batches: NaN/Inf in them, every sample the same, far from unit scale.

Data bugs come first among causes: nothing a model does can repair its inputs.
"""
import math

import numpy as np

from ..findings import Finding
from ..records import inputs_finite
from .context import MAJORITY, fmt, observed_list, rms
from .curve import learning_poor
from .graph import rule

INPUT_SCALE_HIGH = 5.0        # input RMS above this: not standardised [karpathy] ("normalise
                              # your data"); pixels in [0, 1] have RMS < 1, raw [0, 255] ~100
INPUT_SCALE_LOW = 1e-2        # input RMS below this: features squashed toward 0 [measured]
CONSTANT_INPUT_FRACTION = 0.99  # share of features identical across the batch [measured]
NEAR_CONSTANT_SPREAD = 1e-3   # [measured] every input column's spread across the batch under
                              # this share of the input's RMS: the samples differ by float
                              # noise around one offset (real-bug batch 224: digital numbers
                              # divided by 1e4, then z-scored with the digital numbers' band
                              # statistics - columns near -2 moving by 1e-4, held-out accuracy
                              # 0.21 vs 0.89); standardised columns have spread ~ RMS, raw
                              # tabular units (a year near 2020) 1e-3 or more of their offset
SCALING_LAYER_TYPES = ("Linear", "Conv1d", "Conv2d", "Conv3d")   # [design] layers whose
                              # output at the first record shows the scale they were fed
                              # (real-bug batch 61: a model that centres raw masses itself)
RECURRENT_LAYER_TYPES = ("GRU", "LSTM", "RNN")   # [design] (core variants 6) layers whose
                              # output is bounded by their tanh/sigmoid gates whatever they are
                              # fed: a recurrent layer reading the raw inputs saturates, and the
                              # unit-scale outputs of the layers after it say nothing about the
                              # model scaling its inputs itself
SCALED_INSIDE_SHRINK = 20.0   # [design] inputs this many times larger (RMS) than every such
                              # layer's output: the model removed their scale before any
                              # weight saw it. A default-initialised layer fed the inputs
                              # puts out about 0.3-1x their RMS (PyTorch's uniform init)
                              # The same shrink must hold for the scale the first such layer
                              # was fed as its own weights read it at the later records
                              # (output RMS x sqrt(outputs) / weight norm; real-bug batch 230):
                              # a layer fed raw inputs that merely started with a tiny weight
                              # (Linear(1, 1) under manual_seed(0): w = -0.0075) looks scaled at
                              # the first record only
FED_SCALE_SHRINK = 4.0        # [measured] where that reading exists it decides alone, with this
                              # factor: it divides out the layer's own weight, so a layer fed
                              # the raw inputs reads about their RMS (ratio near 1) and one fed
                              # standardised values about 1, whatever the inputs' scale. Raw
                              # inputs start at INPUT_SCALE_HIGH = 5, so SCALED_INSIDE_SHRINK
                              # (made for output scales, which carry the weight's) could never
                              # credit a model that standardises inputs of RMS 5-20 itself
                              # (real-bug batch 355: each utterance layer-normed in the forward,
                              # inputs of RMS 9.0, read as 1.07, a ratio of 8.4)
FED_UNIT_SCALE = 3.0          # [measured] ... and the scale it reads must itself be near one:
                              # models that standardise their inputs read 0.5-1.7 (batches 61,
                              # 327, 355, a k-NN on raw coordinates), a RevIN that centres each
                              # window but skips its division (batch 327, PyPOTS#453) 6.0 on
                              # inputs of RMS 29: centred is not standardised


@rule(produces="NAN_IN_INPUTS", explains={"NAN_LOSS", "NAN_GRADIENTS"})
def nan_in_inputs(ctx):
    """NAN_IN_INPUTS: a training batch holds NaN or Inf before the model ever sees it."""
    bad = [r.step for r in ctx.all_records if not inputs_finite(r)]
    if not bad:
        return None
    checked = sum(1 for r in ctx.all_records if r.inputs)
    return Finding(
        code="NAN_IN_INPUTS", severity="error", step=bad[0],
        message=f"The input batch contains NaN or Inf values (first at step {bad[0]}, in "
                f"{len(bad)} of {checked} recorded batches); every output and gradient they "
                "touch becomes NaN.",
        evidence={"steps": bad[:20], "batches_with_nan": len(bad), "batches_checked": checked},
        fix="Find where the NaN/Inf enter the data (missing values, division by zero in "
            "preprocessing, log of 0) and clean or impute them before training; "
            "nndebug.check_data(x, y) scans a whole data set.")


@rule(produces="CONSTANT_INPUTS",
      explains={"COLLAPSED_ACTIVATIONS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def constant_inputs(ctx):
    """CONSTANT_INPUTS: every sample of the training batches is the same, or a feature never
    changes: nothing to learn from."""
    records = [r for r in ctx.records if "constant_features" in r.inputs]
    if len(records) < 1:
        return None
    flat = [r for r in records if r.inputs["constant_features"] >= CONSTANT_INPUT_FRACTION]
    if not flat or len(flat) < MAJORITY * len(records):
        return _near_constant_inputs(ctx)
    r = flat[0]
    return Finding(
        code="CONSTANT_INPUTS", severity="warning", step=r.step,
        message="Every sample in the batch is the same input (no feature varies across the "
                "batch), so the network cannot learn anything that depends on the input.",
        evidence={"constant_feature_share": r.inputs["constant_features"],
                  "input_std": r.inputs.get("std"), "records_affected": len(flat),
                  "records": len(records)},
        fix="Check the data pipeline: a broadcast or indexing bug (x[0] repeated), a transform "
            "that zeroes everything, or a batch built from one sample.")


def _near_constant_inputs(ctx):
    """CONSTANT_INPUTS when every column of a table (or every channel of a sequence) varies
    across the batch by under NEAR_CONSTANT_SPREAD of the input's RMS and learning is poor:
    the samples are one input plus float noise (units converted twice, a statistic of
    another scale subtracted). Reads ``run.observed.channel_scales`` (torch only)."""
    rows = observed_list(ctx, "channel_scales")
    if not rows or not learning_poor(ctx):
        return None
    axis, width = rows[0][1], len(rows[0][2])
    same = [row for row in rows if row[1] == axis and len(row[2]) == width]
    spread = np.median(np.array([row[2] for row in same], dtype=float), axis=0)
    scales = [v for v in (rms(r.inputs) for r in ctx.records) if v is not None and
              math.isfinite(v)]
    if width < 1 or not scales or not np.all(np.isfinite(spread)):
        return None
    typical = float(np.median(scales))
    largest = float(spread.max())
    if typical <= 0 or largest > NEAR_CONSTANT_SPREAD * typical:
        return None
    return Finding(
        code="CONSTANT_INPUTS", severity="warning", step=int(same[0][0]),
        message=f"Every one of the input's {width} columns is nearly the same in every sample: "
                f"they vary across the batch by at most {largest:.2g} around values of "
                f"root-mean-square {fmt(typical)} (under {NEAR_CONSTANT_SPREAD:g} of it), so "
                "the network sees one input plus rounding noise and cannot learn anything "
                "that depends on it.",
        evidence={"largest_column_std": largest, "input_rms": typical, "columns": width,
                  "axis": axis, "threshold": NEAR_CONSTANT_SPREAD},
        fix="Check the preprocessing for two conversions of one kind: a unit change (divided "
            "by 10000, by 255) followed by a normalisation whose mean/std were computed in "
            "the other unit; standardise with statistics of the values actually fed.")


def _scaled_inside_model(ctx, input_rms):
    """Whether the model brought its large inputs to unit scale itself before any weight saw
    them (``(mz - 600) / 4`` in its forward, a normalisation layer in front, each utterance
    layer-normed): every linear and convolution layer put out values of at most unit scale
    on the first record that measured them, and the first such layer, reading the scale it
    was fed through its own weight, reads it near one (FED_UNIT_SCALE) and FED_SCALE_SHRINK
    times smaller than the inputs' (where that reading is missing: every layer's output
    SCALED_INSIDE_SHRINK times smaller than the inputs). Raw inputs fed to a layer make its
    output about as large as they are (pixels in [0, 255]: tens)."""
    layers = getattr(ctx.run, "layers", None) or []
    first = next((layer for layer in layers if layer.type in
                  SCALING_LAYER_TYPES + RECURRENT_LAYER_TYPES + ("Embedding",)), None)
    if first is not None and first.type in RECURRENT_LAYER_TYPES:
        return False        # the inputs reach a gated layer first: bounded, not rescaled
    scaling = [layer.name for layer in layers if layer.type in SCALING_LAYER_TYPES]
    first = next((r for r in ctx.records if any(
        "std" in r.activations.get(name, {}) for name in scaling)), None)
    if first is None:
        return False
    values = [rms(first.activations[name]) for name in scaling
              if "std" in first.activations.get(name, {})]
    if not all(v is not None and math.isfinite(v) and v <= INPUT_SCALE_HIGH for v in values):
        return False
    fed = _scale_fed_to_first_layer(ctx, scaling, first)
    if fed is not None:     # the first layer's own reading of its inputs' scale decides
        return fed <= FED_UNIT_SCALE and fed * FED_SCALE_SHRINK <= input_rms
    return all(v * SCALED_INSIDE_SHRINK <= input_rms for v in values)


def _scale_fed_to_first_layer(ctx, scaling, first):
    """The median, over the records after ``first``, of the input RMS the first scaling
    layer's own weight implies from its output (output RMS x sqrt(outputs) / weight norm),
    or None when it cannot be read: about 1 for a layer fed standardised values, about the
    raw inputs' RMS for one fed them, whatever scale its weight started at."""
    reader = next(name for name in scaling if "std" in first.activations.get(name, {}))
    index = {p.name: i for i, p in enumerate(ctx.run.params)}
    i = index.get(f"{reader}.weight" if reader else "weight")
    if i is None or not ctx.run.params[i].shape:
        return None
    outputs = ctx.run.params[i].shape[0]
    implied, before = [], None
    for r in ctx.records:
        previous, before = before, r
        if r is first or r.param_norm is None or "std" not in r.activations.get(reader, {}):
            continue
        # the weight this forward used: the previous step's, after its update, when recorded
        held = previous if previous is not None and previous.param_norm is not None and \
            previous.step == r.step - 1 else r
        out, norm = rms(r.activations[reader]), float(held.param_norm[i])
        if out is not None and math.isfinite(out) and math.isfinite(norm) and norm > 0:
            implied.append(out * math.sqrt(outputs) / norm)
    return float(np.median(implied)) if implied else None


PRETRAINED_SCALE_MATCH = 1.0   # [measured] |log10(batch var / running var)| under which the
                               # first pretrained batch norm saw the inputs at the scale it was
                               # pretrained on (batch 73: under 0.2 for matched recipes, 3.6+
                               # for wrong ones; rules/pretrained_statistics.py)
PRETRAINED_SHIFT_MATCH = 3.0   # [measured] and its median mean shift in running stds under this


def _pretrained_at_this_scale(ctx):
    """Whether a batch norm with pretrained statistics saw these inputs at the scale and centre
    it was pretrained on (caffe-style 0-255 inputs into a caffe-pretrained backbone): the
    inputs' scale is the model's own (monitor/pretrained_norm_inputs.py)."""
    rows = [r for r in getattr(ctx.run.observed, "pretrained_norm_inputs", None) or []
            if r[4] is not None and r[5] is not None]
    if not rows:
        return False
    first = min(rows, key=lambda r: r[1])
    return abs(first[5]) < PRETRAINED_SCALE_MATCH and first[4] < PRETRAINED_SHIFT_MATCH


@rule(produces="UNNORMALIZED_INPUTS", reads={"CONSTANT_INPUTS"},
      explains={"EXPLODING_ACTIVATIONS", "SATURATED_ACTIVATIONS", "DEAD_RELU", "LOSS_DIVERGING",
                "NAN_LOSS", "LOSS_PLATEAU", "EXPLODING_GRADIENTS", "LR_TOO_HIGH",
                "LOSS_OSCILLATING", "LOSS_AT_CHANCE"})
def unnormalized_inputs(ctx):
    """UNNORMALIZED_INPUTS: the inputs are in raw units (pixels 0-255, prices, counts) instead of
    a scale near one."""
    measured = [(r, rms(r.inputs)) for r in ctx.records]
    # an input that is exactly zero everywhere is no tiny data but a zero tensor: an RNN's
    # initial state handed to forward beside integer ids, read as the first float input
    # (real-bug batch 251's twin, ``net(ids, (h0, c0))``); CONSTANT_INPUTS is for batches
    # whose samples are all one input
    measured = [(r, v) for r, v in measured if v is not None and math.isfinite(v) and v > 0]
    if not measured or "CONSTANT_INPUTS" in ctx.found or _pretrained_at_this_scale(ctx):
        return None
    typical = float(np.median([v for _, v in measured]))
    r = measured[0][0]
    if typical > INPUT_SCALE_HIGH and not _scaled_inside_model(ctx, typical):
        return Finding(
            code="UNNORMALIZED_INPUTS", severity="warning", step=r.step,
            message=f"The inputs are far from unit scale (root-mean-square {fmt(typical)}, mean "
                    f"{fmt(r.inputs.get('mean'))}): first-layer pre-activations are huge, which "
                    "saturates or kills units and makes the learning rate hard to choose.",
            evidence={"input_rms": typical, "input_mean": r.inputs.get("mean"),
                      "input_std": r.inputs.get("std"), "threshold": INPUT_SCALE_HIGH},
            fix="Standardise the inputs: subtract the training-set mean and divide by its "
                "standard deviation per feature (or scale pixels to [0, 1]).")
    if typical < INPUT_SCALE_LOW:
        return Finding(
            code="UNNORMALIZED_INPUTS", severity="warning", step=r.step,
            message=f"The inputs are tiny (root-mean-square {fmt(typical)}): the first layer "
                    "sees almost nothing and its weights learn very slowly.",
            evidence={"input_rms": typical, "input_mean": r.inputs.get("mean"),
                      "threshold": INPUT_SCALE_LOW},
            fix="Standardise the inputs to zero mean and unit variance per feature; check for a "
                "unit mistake (an extra division by 255 or 1000).")
    return None

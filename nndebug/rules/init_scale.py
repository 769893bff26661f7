"""INIT_SCALE_TOO_LARGE: a layer's weights start far wider than any standard initialisation
for its fan-in, and the classifier's first loss is far above chance.

A unit summing ``fan_in`` inputs multiplies their scale by about rms(w) * sqrt(fan_in), the
layer's gain. PyTorch's default gives 0.58, Xavier about 1, He's normal sqrt(2) = 1.41; the
widest standard scheme in common use, He's ``mode="fan_out"`` on a 4x channel reduction
(torchvision's ResNets), gives 2.83. Weights drawn with a standard deviation of 1
(``normal_(w, 0.02)``, where 0.02 lands in the mean's place: aiUIUC/pyAIUtils#25) or from
U(-1, 1) whatever the fan-in (tinygrad/tinygrad#566) give gains of 3 to 16 per layer: the
logits come out in the tens or thousands, the softmax saturates, and the loss starts an
order of magnitude above ln(C) [karpathy: "verify loss @ init"].

Both signs are needed: the gain, read from the first record's weight norms less that
record's update norm (|w0| >= |w1| - |w1 - w0|: a first update that blew the weights up, as
raw 0-255 inputs make it, is not taken for the initialisation), names the layers; the first
loss of a class-index loss at least ``FIRST_LOSS_OVER_CHANCE`` times ln(C) says the scale
reached the output (a pretrained model fine-tuned from trained weights, or wide weights tamed
by a norm layer after them, start near chance and are left alone). A regression loss has no
ln(C): there the first loss call's outputs reaching ``FIRST_OUTPUT_OVER_TARGET`` times the
targets' largest magnitude (at least 1) say the same (real-bug batch 216,
jcjohnson/pytorch-examples#12: ``m.weight.data = torch.randn(shape)`` in a two-layer ReLU
regression, first outputs in the tens against standardised targets).

A wide layer whose weights also started all of one sign needs no sign at the output
(real-bug batch 247, ilkarman/DeepLearningFrameworks#31): ``nn.init.uniform_(w)`` with its
default range [0, 1) (TensorFlow's ``random_uniform`` too) on a GRU's weights saturates every
gate and candidate from the first step, while the first loss sits at chance - the
recurrent layer's bounded outputs keep the head's logits small. No standard initialiser is
one-signed, and none is that wide; recurrent layers count here too (their fan-in is their
weights' second axis). Read from ``observed.one_signed_start_parameters``
(``monitor/start_parameters.py``).
"""
import math

from ..findings import Finding
from .context import (CLASS_INDEX_LOSSES, REGRESSION_LOSSES, fmt, judged_loss_calls, module_of,
                      observed_list, short_list)
from .graph import rule

MAX_INIT_GAIN = 3.0          # [torchinit] rms(w) * sqrt(fan_in): 0.58 default, 1.41 He,
                             # 2.83 He fan_out on a 4x reduction; 3 is above all of them
FIRST_LOSS_OVER_CHANCE = 3.0  # [measured] first loss / ln(C): default inits start within 10%
                             # of ln(C); the planted wide inits at 8.7x (U(-1, 1)) and 600x
                             # (std 1); 3x leaves room on both sides
FIRST_OUTPUT_OVER_TARGET = 10.0  # [measured] first outputs' largest magnitude / the targets'
                             # (at least 1): default inits output values of order one (0.1-1);
                             # batch 216's std-1 weights 25x; 10x leaves room on both sides
WEIGHTED_LAYERS = {"Linear", "Conv1d", "Conv2d", "Conv3d"}   # [design] fan-in = shape[1:]
RECURRENT_LAYERS = {"RNN", "GRU", "LSTM"}   # [design] weight_ih/hh (gates x hidden, fan-in)


def wide_layers(ctx, layer_types=WEIGHTED_LAYERS, only=None):
    """[(parameter name, gain)] of the weights of ``layer_types`` (``only``: of these names)
    whose gain before the first record's update is at least above MAX_INIT_GAIN."""
    if not ctx.records or ctx.records[0].param_norm is None:
        return []
    types = {layer.name: layer.type for layer in ctx.run.layers}
    norms = ctx.records[0].param_norm
    updates = ctx.records[0].update_norm
    found = []
    for i in range(len(ctx.run.params)) if only is not None else ctx.depth_weights:
        param = ctx.run.params[i]
        if types.get(module_of(param.name)) not in layer_types or \
                (only is not None and param.name not in only) or len(param.shape) < 2:
            continue
        shape = tuple(param.shape)
        size = math.prod(shape)
        fan_in = math.prod(shape[1:])
        norm = float(norms[i])
        update = float(updates[i]) if updates is not None else float("nan")
        if math.isfinite(update):
            norm -= update           # the norm before that update, at the least
        if size == 0 or not math.isfinite(norm):
            continue
        gain = norm / math.sqrt(size) * math.sqrt(fan_in)
        if gain > MAX_INIT_GAIN:
            found.append((param.name, gain))
    return found


def first_loss_over_chance(ctx):
    """The run's first loss over ln(C) for a classifier trained with a class-index loss
    from step 0, or None."""
    if not len(ctx.curve) or ctx.curve_steps[0] != 0 or not ctx.classes or ctx.classes < 2:
        return None
    if not judged_loss_calls(ctx, CLASS_INDEX_LOSSES):
        return None
    return float(ctx.curve[0]) / math.log(ctx.classes)


def first_output_over_target(ctx):
    """The first regression loss call's largest output magnitude over its targets' (at
    least 1), for a run whose first loss call is at step 0, or None."""
    if not len(ctx.curve) or ctx.curve_steps[0] != 0:
        return None
    calls = judged_loss_calls(ctx, REGRESSION_LOSSES)
    if not calls or calls[0].step != 0:
        return None
    first = calls[0]
    output = max(abs(first.output_min), abs(first.output_max))
    target = max(abs(first.target_min), abs(first.target_max), 1.0)
    if not (math.isfinite(output) and math.isfinite(target)):
        return None
    return output / target


@rule(produces="INIT_SCALE_TOO_LARGE",
      explains={"EXPLODING_ACTIVATIONS", "EXPLODING_GRADIENTS", "SATURATED_ACTIVATIONS"})
def init_scale_too_large(ctx):
    one_signed = one_signed_wide_layers(ctx)
    if one_signed:
        return _one_signed_finding(ctx, one_signed)
    ratio = first_loss_over_chance(ctx)
    over_target = None
    if ratio is None:
        over_target = first_output_over_target(ctx)
        if over_target is None or over_target < FIRST_OUTPUT_OVER_TARGET:
            return None
    elif ratio < FIRST_LOSS_OVER_CHANCE:
        return None
    wide = wide_layers(ctx)
    if not wide:
        return None
    widest = max(wide, key=lambda item: item[1])
    if over_target is None:
        start = (f"The first loss is {fmt(ratio)}x the chance level ln({ctx.classes}) = "
                 f"{fmt(math.log(ctx.classes))}")
    else:
        start = (f"The first outputs reach {fmt(over_target)}x the targets' largest "
                 "magnitude")
    return Finding(
        code="INIT_SCALE_TOO_LARGE", severity="warning", where=module_of(widest[0]),
        step=int(ctx.records[0].step),
        message=f"{start}, and {len(wide)} layer(s) start with weights "
                f"far wider than their fan-in allows: rms(w) x sqrt(fan_in) up to "
                f"{fmt(widest[1])} ({short_list(n for n, _ in wide)}), where PyTorch's "
                f"default gives 0.58 and He's initialisation 1.41. The outputs start huge, "
                "the softmax (or the squared error) saturates, and the run spends its steps "
                "shrinking the weights.",
        evidence={"first_loss_over_chance": ratio, "first_output_over_target": over_target,
                  "gains": {n: g for n, g in wide},
                  "threshold_gain": MAX_INIT_GAIN,
                  "threshold_output_over_target": FIRST_OUTPUT_OVER_TARGET,
                  "threshold_first_loss": FIRST_LOSS_OVER_CHANCE},
        fix="Scale the initialisation to the fan-in: nn.init.normal_(w, 0.0, std) (the mean "
            "comes first), kaiming_/xavier_ initialisers, or PyTorch's default; a hand-drawn "
            "U(-1, 1) or N(0, 1) needs dividing by sqrt(fan_in).")


def one_signed_wide_layers(ctx):
    """[(parameter name, gain)] of the Linear/Conv/recurrent weights that started with every
    value of one sign and are wider than MAX_INIT_GAIN."""
    names = {str(row[0]) for row in observed_list(ctx, "one_signed_start_parameters")}
    if not names:
        return []
    return wide_layers(ctx, WEIGHTED_LAYERS | RECURRENT_LAYERS, names)


def _one_signed_finding(ctx, wide):
    widest = max(wide, key=lambda item: item[1])
    return Finding(
        code="INIT_SCALE_TOO_LARGE", severity="warning", where=module_of(widest[0]),
        step=int(ctx.records[0].step),
        message=f"{len(wide)} weight tensor(s) started with every value of one sign and far "
                f"wider than their fan-in allows: rms(w) x sqrt(fan_in) up to "
                f"{fmt(widest[1])} ({short_list(n for n, _ in wide)}), where PyTorch's "
                "default gives 0.58, centred on zero. That is nn.init.uniform_(w) at its "
                "default range [0, 1) (or a rand() table): every unit sums its inputs with "
                "the same sign, so pre-activations start large and alike, and gates and "
                "tanh units saturate from the first step.",
        evidence={"gains": {n: g for n, g in wide}, "one_signed": True,
                  "threshold_gain": MAX_INIT_GAIN},
        fix="Give the initialiser a range centred on zero: nn.init.uniform_(w, -a, a) with a "
            "= 1 / sqrt(fan_in) (or 0.1 for recurrent weights), xavier_uniform_/"
            "kaiming_uniform_, or leave PyTorch's default.")

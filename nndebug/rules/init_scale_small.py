"""INIT_SCALE_TOO_SMALL: several weight matrices start far narrower than any standard
initialisation for their width, and the run does not learn.

A unit summing ``fan_in`` inputs multiplies their scale by about rms(w) * sqrt(fan_in), the
layer's gain: PyTorch's default gives 0.58, Xavier about 1, He 1.41. A hand-written
initialiser that divides by the wrong count - Caffe's Xavier filler took an inner product's
fan-in as ALL its weights, "scaling all weights to sqrt(3/count) instead of
sqrt(3/fan_in)" (BVLC/caffe#1575) - gives each layer a gain of 1 / sqrt(fan_out): 0.09 at
width 128. Three such layers in a row shrink the signal a thousandfold; the output is
nearly constant, the gradients reaching the first layers nearly zero, and the loss sits at
its starting value. LR_TOO_LOW would blame the step size; the weights are what is tiny.

The gain is read from the first record's weight norms plus that record's update norm
(|w0| <= |w1| + |w1 - w0|: an upper bound on the starting norm), over every weight of two
or more dimensions along the depth (layers written by hand included, lookup tables left
out), with the fan taken as the larger of shape[0] and prod(shape[1:]) (a layer storing its
weight as (in, out) is not taken for a narrow one). A weight whose norm after the first
update is no larger than that update may have started at exactly zero and is left out: a zero-initialised last layer or residual branch is a deliberate choice (Fixup,
zero-init heads).

Healthy look-alikes: a small initialisation followed by normalisation layers learns, and a
run that learns is left alone; one narrow layer (a head initialised at 0.01) is not enough,
and neither are narrow layers among wider ones. GPT-2 draws its weights at 0.02 and the
projections back into the residual stream at 0.02 / sqrt(2 x layers), on purpose: at width
32 those four of its eight depth weights have gains of 0.07-0.15 while the skip path carries
the signal past them, and a small GPT-2 at its stock settings, trained on tokens that are
mostly noise (a loss that cannot fall far), learned what could be learned and was named.
So the narrow layers must be more than MIN_NARROW_SHARE of the depth weights: a stack drawn
narrow throughout, as a wrong initialiser does.
"""
import math

from ..findings import Finding
from .context import fmt, module_of, short_list
from .curve import learning_poor
from .graph import rule

MIN_INIT_GAIN = 0.2       # [torchinit] rms(w) * sqrt(fan): 0.58 PyTorch's default, 1 Xavier,
                          # 1.41 He; the planted fan-in-of-every-weight init gives 0.09-0.13;
                          # 0.2 is under a third of the default
MIN_NARROW_LAYERS = 3     # [design] narrow weight matrices needed: one narrow head is a
                          # choice, three in a stack shrink the signal by 1e-3 or more
MIN_NARROW_SHARE = 0.5    # [measured] share of the depth weights that must be narrow (more
                          # than): 4 of 5 in the planted fan-in-of-every-weight MLP, all 5 in a
                          # std-1/fan_in tanh stack; 4 of 8 (the residual projections) in a
                          # stock GPT-2 of width 32 that learns
ZERO_NORM = 1e-12         # [design] slack of the test |w1| <= |w1 - w0|: a norm no larger
                          # than the first update's may have started at zero


def narrow_layers(ctx):
    """([(parameter name, gain upper bound)] of the weights starting under MIN_INIT_GAIN,
    count of the depth weights whose gain could be read)."""
    if not ctx.records or ctx.records[0].param_norm is None:
        return [], 0
    norms = ctx.records[0].param_norm
    updates = ctx.records[0].update_norm
    found, read = [], 0
    for i in ctx.depth_weights:
        param = ctx.run.params[i]
        shape = tuple(param.shape)
        size = math.prod(shape)
        norm = float(norms[i])
        update = float(updates[i]) if updates is not None else float("nan")
        if size == 0 or not math.isfinite(norm) or not math.isfinite(update):
            continue
        if norm <= update + ZERO_NORM:
            continue                      # may have started at zero: all its norm could be
                                          # the first update's
        fan = max(shape[0], math.prod(shape[1:]))
        gain = (norm + update) / math.sqrt(size) * math.sqrt(fan)
        read += 1
        if gain < MIN_INIT_GAIN:
            found.append((param.name, gain))
    return found, read


@rule(produces="INIT_SCALE_TOO_SMALL",
      explains={"VANISHING_GRADIENTS", "COLLAPSED_ACTIVATIONS", "LOSS_AT_CHANCE",
                "LOSS_PLATEAU", "LR_TOO_LOW"})
def init_scale_too_small(ctx):
    if not ctx.enough_steps or ctx.first_nan_step is not None or not learning_poor(ctx):
        return None
    narrow, read = narrow_layers(ctx)
    if len(narrow) < MIN_NARROW_LAYERS or len(narrow) <= MIN_NARROW_SHARE * read:
        return None
    product = math.prod(g for _, g in narrow)
    return Finding(
        code="INIT_SCALE_TOO_SMALL", severity="warning", where=module_of(narrow[0][0]),
        step=int(ctx.records[0].step),
        message=f"{len(narrow)} weight matrices start far narrower than their width "
                f"calls for: rms(w) x sqrt(fan) of {short_list(fmt(g) for _, g in narrow)} "
                f"({short_list(n for n, _ in narrow)}), where PyTorch's default gives 0.58 "
                f"and Xavier 1. Together they scale the signal by about {product:.1e}: the "
                "output barely depends on the input, the first layers get almost no "
                "gradient, and the loss stays where it started.",
        evidence={"gains": {n: g for n, g in narrow}, "threshold_gain": MIN_INIT_GAIN,
                  "min_layers": MIN_NARROW_LAYERS, "gain_product": product,
                  "depth_weights_read": read},
        fix="Initialise to the fan-in: nn.init.xavier_uniform_ / kaiming_uniform_ (or "
            "PyTorch's default); a hand-written bound is sqrt(3 / fan_in) with fan_in = "
            "weight.shape[1] (times the kernel size), not the weight's element count.")

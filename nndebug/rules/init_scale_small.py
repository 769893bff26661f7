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
run that learns is left alone; one narrow layer (a head initialised at 0.01) is not enough.
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
ZERO_NORM = 1e-12         # [design] slack of the test |w1| <= |w1 - w0|: a norm no larger
                          # than the first update's may have started at zero


def narrow_layers(ctx):
    """[(parameter name, gain upper bound)] of the weights starting under MIN_INIT_GAIN."""
    if not ctx.records or ctx.records[0].param_norm is None:
        return []
    norms = ctx.records[0].param_norm
    updates = ctx.records[0].update_norm
    found = []
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
        if gain < MIN_INIT_GAIN:
            found.append((param.name, gain))
    return found


@rule(produces="INIT_SCALE_TOO_SMALL",
      explains={"VANISHING_GRADIENTS", "COLLAPSED_ACTIVATIONS", "LOSS_AT_CHANCE",
                "LOSS_PLATEAU", "LR_TOO_LOW"})
def init_scale_too_small(ctx):
    if not ctx.enough_steps or ctx.first_nan_step is not None or not learning_poor(ctx):
        return None
    narrow = narrow_layers(ctx)
    if len(narrow) < MIN_NARROW_LAYERS:
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
                  "min_layers": MIN_NARROW_LAYERS, "gain_product": product},
        fix="Initialise to the fan-in: nn.init.xavier_uniform_ / kaiming_uniform_ (or "
            "PyTorch's default); a hand-written bound is sqrt(3 / fan_in) with fan_in = "
            "weight.shape[1] (times the kernel size), not the weight's element count.")

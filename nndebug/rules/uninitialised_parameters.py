"""UNINITIALISED_PARAMETERS: trainable parameters hold NaN, Inf or values beyond any
initialisation before the first step, and the run went non-finite or did not learn.

A parameter created with ``torch.Tensor(...)`` / ``torch.empty(...)`` and never passed to an
initialiser holds what the allocator's memory held (public report: a biaffine scorer's
``torch.Tensor`` weights, "huge initial weights that make the logits NaN",
suolyer/PyTorch_BERT_Biaffine_NER#3). The NaN that follows is born in the first layer that
reads the parameter, so NAN_BORN_IN_FORWARD names that layer's operation; the reason is the
parameter's start value, read before the first forward (``monitor/start_parameters.py``).

Healthy look-alikes: a buffer-like ``nn.Parameter`` filled with -inf on purpose (an attention
mask kept with ``requires_grad=False``) is not trainable and is left alone; a parameter that
starts odd but is never used leaves the run learning, and nothing is said.
"""
from ..findings import Finding
from .curve import learning_poor
from .context import short_list
from .graph import rule

SYMPTOMS = {"NAN_LOSS", "NAN_GRADIENTS", "NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD",
            "EXPLODING_ACTIVATIONS", "EXPLODING_GRADIENTS", "LOSS_DIVERGING"}


@rule(produces="UNINITIALISED_PARAMETERS", reads={"NAN_GRADIENTS"}, explains=SYMPTOMS)
def uninitialised_parameters(ctx):
    rows = [r for r in getattr(ctx.run.observed, "start_parameter_values", None) or []
            if r[2]]                       # trainable parameters only
    nan_gradients = "NAN_GRADIENTS" in ctx.found
    if not rows or not (nan_gradients or learning_poor(ctx)):
        return None
    nonfinite = [r for r in rows if r[3] > 0]
    worst = max(rows, key=lambda r: (r[3], r[4]))
    went_nan = ctx.first_nan_step is not None or nan_gradients
    what = (f"{sum(r[3] for r in nonfinite)} NaN/Inf value(s)" if nonfinite else
            f"values up to {worst[4]:.1e}")
    return Finding(
        code="UNINITIALISED_PARAMETERS", severity="error" if went_nan else "warning",
        where=worst[0], step=ctx.first_step,
        message=f"Before the first step, {len(rows)} trainable parameter(s) "
                f"({short_list(r[0] for r in rows)}) held {what}: no initialisation gives "
                "that, so they were never initialised (nn.Parameter(torch.Tensor(...)) or "
                "torch.empty(...) keeps whatever the memory held). "
                + ("The loss or the gradients went non-finite." if went_nan else
                   "The run did not learn."),
        evidence={"parameters": {r[0]: {"shape": r[1], "nonfinite": r[3], "largest": r[4]}
                                 for r in rows},
                  "first_nan_step": ctx.first_nan_step},
        fix="Initialise every parameter you create: call the layer's reset_parameters() in "
            "__init__, or nn.init.kaiming_uniform_/xavier_uniform_/normal_ on it, or create "
            "it from torch.randn(...) scaled to its fan-in instead of torch.Tensor/torch.empty.")

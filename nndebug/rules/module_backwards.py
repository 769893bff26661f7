"""MODULE_BACKWARD_NEVER_CALLED: a module's class writes its own ``backward(grad)`` method,
which autograd never calls: only a ``torch.autograd.Function``'s (or a minigrad Function's)
``backward`` is part of the graph. The module runs its forward only, and the gradient
passes through as through that forward - a gradient reversal layer written this way does
not reverse, a straight-through estimator or a gradient clamp does nothing.

Public report: "Does gradient reversal layer work?",
https://github.com/hash2430/pitchtron/issues/3 (an assert put in the GRL module's
``backward`` never fired; "the gradient of check_layer was not reversal", while a
``torch.autograd.Function`` version reversed it).

Read from ``run.observed.module_backwards`` (``monitor/module_backwards.py``: the
module's own class defines ``backward`` taking a gradient, and nothing in the class
calls it or registers a gradient hook), confirmed by the records: the run took at least
one step on which some parameter got a non-zero gradient (a backward pass ran, and the
method was not part of it). No threshold: the method is either in the graph or not.
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule


def backward_ran(ctx):
    """True when some recorded step has a finite, non-zero gradient norm."""
    grads = ctx.matrix("grad_norm")
    if not getattr(grads, "size", 0):
        return False
    finite = np.where(np.isfinite(grads), grads, 0.0)
    return bool(np.max(np.abs(finite), initial=0.0) > 0)


@rule(produces="MODULE_BACKWARD_NEVER_CALLED")
def module_backward_never_called(ctx):
    found = observed_list(ctx, "module_backwards")
    if not found or not backward_ran(ctx):
        return None
    names = [module or "(the model)" for module, _ in found]
    classes = sorted({cls for _, cls in found})
    said = ", ".join(f"'{module}' ({cls})" if module else f"the model ({cls})"
                     for module, cls in found)
    return Finding(
        code="MODULE_BACKWARD_NEVER_CALLED", severity="warning", where=", ".join(names),
        step=None,
        message=f"Module {said} defines its own backward(grad) method, and backward passes "
                "ran, but autograd never calls a module's backward: only a "
                "torch.autograd.Function's is part of the graph. The gradient went through "
                "the module as through its forward (an identity forward passes it "
                "unchanged), so the custom rule - a gradient reversal, a straight-through "
                "or clamped gradient - was never applied.",
        evidence={"modules": names, "classes": classes},
        fix="Write the rule as a torch.autograd.Function (static forward(ctx, x) and "
            "backward(ctx, grad)) and call Function.apply(x) in the module's forward; or "
            "register a tensor hook in forward (x.register_hook(lambda g: -lam * g)).")

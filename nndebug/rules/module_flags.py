"""REQUIRES_GRAD_SET_ON_MODULE: a module was "frozen" with ``module.requires_grad =
False``, which sets a plain attribute: its parameters still require gradients and train.

``nn.Module`` has no ``requires_grad`` property (each parameter has one, and the method
``module.requires_grad_(False)`` sets them all), so the assignment changes nothing but the
Python object. A backbone meant to stay fixed for a linear probe, a layer meant to stay
fixed for source-free adaptation, keeps training at the head's rate. Public reports:
"[solved] ResnetEncoder 'frozen' argument doesn't work",
https://github.com/catalyst-team/catalyst/issues/79 ("nn.Module has no attribute
'requires_grad', only nn.Parameter has it"); "Implementation bug? It seems like the last
layer is not frozen?", https://github.com/CSCYQJ/MICCAI23-ProtoContra-SFDA/issues/18
(``self.model.outc.requires_grad = False``).

Read from ``run.observed.module_freeze_flags`` (``monitor/module_flags.py``), confirmed by
the records: at least one of the module's parameters got a gradient on a recorded step (a
module that uses such an attribute for its own purposes, computing under no_grad, gets
none and is left alone).
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule


def trained_flagged_modules(ctx):
    """[(module name, [its parameters that got a gradient])] for every module flagged
    ``requires_grad = False`` whose parameters were trained anyway."""
    flagged = observed_list(ctx, "module_freeze_flags")
    if not flagged:
        return []
    grads = ctx.matrix("grad_norm")
    columns = {p.name: j for j, p in enumerate(ctx.run.params)}
    found = []
    for module, parameters in flagged:
        trained = [p for p in parameters if p in columns and grads.size and
                   np.nanmax(np.where(np.isfinite(grads[:, columns[p]]),
                                      grads[:, columns[p]], 0.0), initial=0.0) > 0]
        if trained:
            found.append((module, trained))
    return found


@rule(produces="REQUIRES_GRAD_SET_ON_MODULE")
def requires_grad_set_on_module(ctx):
    found = trained_flagged_modules(ctx)
    if not found:
        return None
    names = [module or "(the model)" for module, _ in found]
    count = sum(len(trained) for _, trained in found)
    said = ", ".join(f"'{module}'" if module else "the model" for module, _ in found)
    return Finding(
        code="REQUIRES_GRAD_SET_ON_MODULE", severity="warning", where=", ".join(names),
        step=None,
        message=f"Module {said} was given requires_grad = False as an attribute, which "
                f"freezes nothing (a module has no such property): {count} parameter "
                "tensor(s) under it still get gradients and train.",
        evidence={"modules": names, "trained_parameters": [p for _, t in found for p in t]},
        fix="Call module.requires_grad_(False) (the method), or set p.requires_grad = False "
            "for p in module.parameters(); build the optimizer after freezing.")

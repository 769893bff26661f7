"""Modules given a plain ``requires_grad`` attribute (REQUIRES_GRAD_SET_ON_MODULE,
``nndebug.rules.module_flags``).

``backbone.requires_grad = False`` reads like freezing the backbone, but a module has no
such property: the assignment only adds an attribute to the Python object (only each
parameter has a ``requires_grad`` flag; the method ``requires_grad_(False)`` sets them all).
Every parameter under the module keeps training.

Read when findings are asked for (the flag may be set after ``watch`` started): one pass
over the model's modules, looking for an instance attribute ``requires_grad`` that is
False while parameters under the module still require gradients. No per-step cost. Kept in
``run.observed.module_freeze_flags`` as ``[(module name, [names of its trainable
parameters])]`` ("" is the model itself).
"""


def read_module_freeze_flags(adapter, observed, on_error):
    try:
        parameters = [(name, adapter.requires_grad(p)) for name, p in adapter.named_parameters()]
        found = []
        for name, module in adapter.named_modules():
            if vars(module).get("requires_grad", None) is not False:
                continue
            prefix = f"{name}." if name else ""
            trainable = [p for p, trains in parameters if trains and p.startswith(prefix)]
            if trainable:
                found.append((name, trainable))
        observed.module_freeze_flags = found
    except Exception as error:            # never break the user's run
        on_error(error)

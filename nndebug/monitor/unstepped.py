"""Gradients with no step: backward ran under ``watch``, but ``step()`` was never called.

``step()`` goes right after ``optimizer.step()``; a loop that calls it there and never
reaches it never stepped the optimizer (an accumulation condition that is never true, a
step left out). Nothing is recorded then, so the rules would see an empty run and say
nothing; what is left is the parameters' ``.grad``: backward filled it. Read once, when
findings are asked for before any ``step()`` (``Around.before_findings``), into
``run.observed.unstepped_gradients``.
"""


def parameters_holding_gradients(adapter):
    """How many trainable parameter tensors hold a gradient that is not all zeros."""
    held = 0
    for _, p in adapter.named_parameters():
        if not adapter.requires_grad(p):
            continue
        grad = adapter.grad_of(p)
        if grad is not None and grad.size and (grad != 0).any():
            held += 1
    return held

"""Inputs given by keyword only: ``model(input_ids=ids, attention_mask=mask, labels=ids)``.

A model called the Hugging Face way has no positional input: the dependency probes
(FUTURE_LEAK, BATCH_MIXING, TARGETS_IN_INPUTS, LABELS_MISALIGNED, PADDING_LEAK) had no inputs
and never ran. The monitor's one forward pre-hook on the model (``batches.py``) hears the
keywords too (torch's ``with_kwargs=True``; minigrad's hooks get positional inputs only) and
hands them on to ``DependencyWatch``, which keeps what ``model_inputs`` picks from them.

The probes call the model again with what is kept here. The keywords a model computes its
loss from are left out (``LOSS_KEYWORDS``, the names the Hugging Face models and most
training scripts use): without them the model returns its outputs, not the loss, and a loss
(one number over the whole batch) would look to the probes like an output that mixes every
sample. A model that cannot run without them is not probed (check_dependencies raises, and
the watch says nothing, as for any input it cannot handle).

A model called with both - ``model(input_ids, attention_mask=mask)``, the usual way - has its
positional inputs named after forward's parameters and kept with the keywords as one dict
(``bound_inputs``): kept alone, the ids were probed without their mask, so a model that
hides its padding well read as one that attends to it (PADDING_LEAK on a healthy BERT-style
pair classifier, real-bug batch 53).
"""
import inspect

LOSS_KEYWORDS = frozenset({"labels", "label", "targets", "target"})
"""[design] keyword names of the targets a forward computes its loss from (transformers'
``labels``; ``targets`` as in nanoGPT's ``forward(idx, targets)``)."""


def model_inputs(adapter, kwargs):
    """The keyword inputs the probes may call the model with: its tensors, without the
    targets of a loss computed inside forward (LOSS_KEYWORDS); None when none is left."""
    kept = {name: value for name, value in kwargs.items()
            if name not in LOSS_KEYWORDS and adapter.is_tensor(value)}
    return kept or None


def bound_inputs(adapter, module, positional, kwargs):
    """The positional inputs and the keyword tensors of one call as a single dict keyed by
    forward's parameter names - ``model(ids, attention_mask=mask)`` becomes ``{"input_ids":
    ids, "attention_mask": mask}`` - or None where that cannot be done faithfully: no keyword
    tensor besides the targets, a positional input that is not a tensor (it would be lost),
    a ``forward(*args)``, or a call that does not bind."""
    keywords = model_inputs(adapter, kwargs or {})
    if keywords is None or not all(adapter.is_tensor(value) for value in positional):
        return None
    try:
        signature = inspect.signature(module.forward)
        if any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values()):
            return None
        bound = signature.bind_partial(*positional).arguments
    except (TypeError, ValueError, AttributeError):
        return None
    if set(bound) & set(keywords):
        return None
    return {**bound, **keywords}

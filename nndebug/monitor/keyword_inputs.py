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
"""
LOSS_KEYWORDS = frozenset({"labels", "label", "targets", "target"})
"""[design] keyword names of the targets a forward computes its loss from (transformers'
``labels``; ``targets`` as in nanoGPT's ``forward(idx, targets)``)."""


def model_inputs(adapter, kwargs):
    """The keyword inputs the probes may call the model with: its tensors, without the
    targets of a loss computed inside forward (LOSS_KEYWORDS); None when none is left."""
    kept = {name: value for name, value in kwargs.items()
            if name not in LOSS_KEYWORDS and adapter.is_tensor(value)}
    return kept or None

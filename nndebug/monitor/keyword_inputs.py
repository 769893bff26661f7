"""Inputs given by keyword only: ``model(input_ids=ids, attention_mask=mask, labels=ids)``.

The monitor's one forward pre-hook on the model (``batches.py``) gets the positional inputs
only, and a model called the Hugging Face way has none: the dependency probes (FUTURE_LEAK,
BATCH_MIXING, TARGETS_IN_INPUTS, LABELS_MISALIGNED, PADDING_LEAK) then had no inputs and
never ran. When that forward pre-hook sees a training call without positional inputs,
``DependencyWatch`` adds the hook below, which hears the keywords (torch's
``with_kwargs=True``; minigrad's hooks get positional inputs only, so there is none there)
until the probe has run.

The probes call the model again with what is kept here. The keywords a model computes its
loss from are left out (``LOSS_KEYWORDS``, the names the Hugging Face models and most
training scripts use): without them the model returns its outputs, not the loss, and a loss
(one number over the whole batch) would look to the probes like an output that mixes every
sample. A model that cannot run without them is not probed (check_dependencies raises, and
the watch says nothing, as for any input it cannot handle).
"""
from ..adapters.base import nndebug_hook

LOSS_KEYWORDS = frozenset({"labels", "label", "targets", "target"})
"""[design] keyword names of the targets a forward computes its loss from (transformers'
``labels``; ``targets`` as in nanoGPT's ``forward(idx, targets)``)."""


def add_keyword_hook(adapter, model, on_keywords):
    """A forward pre-hook calling ``on_keywords(module, kwargs)`` on each training forward
    called with keywords and no positional input; its handle (``.remove()``), or None where
    the framework's hooks do not see keywords."""
    register = getattr(model, "register_forward_pre_hook", None)
    if adapter.framework != "torch" or register is None:
        return None

    @nndebug_hook                      # ours: a private copy of the model leaves it behind
    def hook(module, args, kwargs):
        if not args and kwargs and adapter.is_training(module):
            try:
                on_keywords(module, kwargs)
            except Exception:          # never break the user's forward pass
                pass
        return None
    return register(hook, with_kwargs=True)


def model_inputs(adapter, kwargs):
    """The keyword inputs the probes may call the model with: its tensors, without the
    targets of a loss computed inside forward (LOSS_KEYWORDS); None when none is left."""
    kept = {name: value for name, value in kwargs.items()
            if name not in LOSS_KEYWORDS and adapter.is_tensor(value)}
    return kept or None

"""The optimizer's settings and the dropout rates, read once when watching starts.

Some bugs are a single number copied from another framework's convention: a TensorFlow
weight decay of 0.05 handed to Adam (which adds it to the gradient, unlike AdamW), a
keep probability of 0.9 handed to ``nn.Dropout`` (whose ``p`` is the rate of ZEROING).
The per-step statistics see only what such a number does, slowly; the number itself is
static, so it is read here once, at watch start, and nothing runs per step:

- ``OptimizerSetting`` per param group: the optimizer's class, lr, weight_decay, whether
  the decay is decoupled (AdamW), eps, momentum or betas where the optimizer has them;
- ``DropoutSetting`` per dropout layer of the model (torch's Dropout, Dropout1d/2d/3d,
  AlphaDropout, FeatureAlphaDropout; minigrad's Dropout): its name, type and ``p``.

Each ``OptimizerSetting`` also keeps the rate the optimizer's constructor was given and
whether the optimizer held state already: a restart that builds the optimizer with a new
rate and then loads a checkpoint's state trains at the checkpoint's rate
(``rules/checkpoint_rates.py``).

Both land in ``run.observed`` (``nndebug.observed``); ``rules/settings.py`` judges them.
"""
from ..observed import DropoutSetting, OptimizerSetting
from ..records import DROPOUT_TYPES


def read_settings(adapter, observed, optimizer, on_error):
    """Fill ``observed.optimizer_settings`` and ``observed.dropout_settings`` (replacing
    what they held). A setting that cannot be read is reported through ``on_error`` and
    left out: watching never breaks the user's run."""
    try:
        observed.dropout_settings[:] = dropout_settings(adapter)
        observed.optimizer_settings[:] = [] if optimizer is None else \
            optimizer_settings(adapter, optimizer)
    except Exception as error:
        on_error(error)


def dropout_settings(adapter):
    """A ``DropoutSetting`` per dropout layer the model registers, in module order."""
    return [DropoutSetting(layer=name, type=kind, p=_number(getattr(module, "p", None)))
            for name, module in adapter.named_modules()
            for kind in [adapter.module_type(module)] if kind in DROPOUT_TYPES]


def optimizer_settings(adapter, optimizer):
    """An ``OptimizerSetting`` per param group of ``optimizer``."""
    kind = type(optimizer).__name__
    defaults = getattr(optimizer, "defaults", None)
    built_with_lr = _number(defaults.get("lr")) if isinstance(defaults, dict) else None
    held_state = holds_state(optimizer)
    settings = []
    for index, group in enumerate(adapter.optimizer_groups(optimizer)):
        betas = group.get("betas")
        settings.append(OptimizerSetting(
            group=index, type=kind, lr=_number(group.get("lr")),
            weight_decay=_number(group.get("weight_decay")),
            decoupled=bool(adapter.decouples_weight_decay(optimizer, group)),
            eps=_number(group.get("eps")), momentum=_number(group.get("momentum")),
            betas=None if betas is None else tuple(_number(b) for b in betas),
            parameters=int(group.get("parameters", 0)),
            built_with_lr=built_with_lr, held_state=held_state))
    return settings


def holds_state(optimizer):
    """Whether the optimizer keeps per-parameter state already (False where it has none to
    read: minigrad's optimizers, an object without ``state``)."""
    state = getattr(optimizer, "state", None)
    try:
        return any(bool(entry) for entry in state.values()) if hasattr(state, "values") \
            else False
    except Exception:                 # a state mapping that raises on reading
        return False


def _number(value):
    """A plain float, or None for what is not a plain number (a missing key, a tensor-valued
    lr is read as its value; a bool or a string is not a setting to judge)."""
    if value is None or isinstance(value, (bool, str)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None

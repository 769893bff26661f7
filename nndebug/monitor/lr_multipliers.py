"""Learning-rate multipliers written into param groups (LR_MULTIPLIER_IGNORED,
``nndebug.rules.lr_multipliers``).

Detection and segmentation code bases give a backbone a fraction of the base rate by
tagging its param group (``{"params": ..., "lr_mult": 0.1}``); their own optimizer builder
or scheduler multiplies the group's ``lr`` by it. torch.optim reads only the keys of its
``defaults``: any other key rides along in the group unread, so a tag that nothing applies
leaves the backbone at the base rate, with no error (msight-tech/research-ms-loss#27).

Read when findings are asked for (no per-step cost): for every param group, its rate now
and the multiplier-like key it carries, if any (a key the optimizer's ``defaults`` lack
whose name says lr and a multiplier: ``lr_mult``, ``lr_mul``, ``lr_scale``,
``lr_ratio``, ``lr_factor``, ``lr_multiplier``). Kept as ``run.observed.lr_multipliers``:
``[(group, key, multiplier, lr now)]``, one row per group, key "" and multiplier None where
the group carries none (a declared field of ``nndebug.observed.Observed``: saved and loaded
with the run). The groups' rates at watch start are in ``run.observed.optimizer_settings``.
"""
import math
import re

MULTIPLIER_KEY = re.compile(r"^(lr|learning_rate)_?(mult|mul|multiplier|scale|ratio|factor)$")


def multiplier_key(group, known):
    """(key, value) of the multiplier-like key ``group`` carries that the optimizer does not
    read (``known``: its defaults' keys), or None."""
    for key, value in group.items():
        if key in known or not MULTIPLIER_KEY.match(str(key)):
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value):
            continue
        return str(key), float(value)
    return None


def read_lr_multipliers(adapter, optimizer, observed, on_error):
    """Fill ``observed.lr_multipliers`` (replacing what it held); empty when no group
    carries a multiplier-like key."""
    try:
        if optimizer is None:
            return
        known = set(getattr(optimizer, "defaults", {}) or {})
        rows, tagged = [], False
        for index, group in enumerate(adapter.optimizer_groups(optimizer)):
            found = multiplier_key(group, known)
            lr = group.get("lr")
            lr = float(lr) if isinstance(lr, (int, float)) and not isinstance(lr, bool) \
                else None
            tagged = tagged or found is not None
            rows.append((index, found[0] if found else "", found[1] if found else None, lr))
        observed.lr_multipliers = rows if tagged else []
    except Exception as error:            # never break the user's run
        on_error(error)

"""Parameters whose ``requires_grad`` was turned off by hand during the run and never turned
back on (real-bug batch 81: graph breaks).

REQUIRES_GRAD_TURNED_OFF: parameter tensors that were trainable when watching started, were
updated on recorded steps, and stopped being updated for good while the rest of the model
went on training - and whose ``requires_grad`` is False when the findings are asked for.
Nothing errors: backward stops delivering their gradients, the optimizer skips them, and
the model trains on with them frozen wherever they were. What does it is a helper that
flips the flag and forgets to flip it back: an evaluation or feature-extraction function
that sets ``p.requires_grad = False`` on the model "to save memory", a
``set_requires_grad(net, False)`` left on after a GAN's other turn, or a freeze/unfreeze
helper that cannot reach what it froze (nttcslab/byol-a#7: ``set_trainable`` only touches
``if p.requires_grad`` parameters). Read from ``run.observed.turned_off_parameters``
(``monitor/turned_off_parameters.py``: the flags at watch start and at findings, Python
attributes only) and the records' ``update_norm``.

When nothing else in the watched model trains - the whole of it turned off, as a GAN's
discriminator frozen for the generator's turn and never unfrozen, whose loss still
backpropagates into the generator - there is no "rest of the model" to compare with: the
recorded steps the loop went on taking with the watched optimizer count instead (real-bug
batch 241, eriklindernoren/Keras-GAN#91). A discriminator toggled off and on inside every
step updates on every step and is not named.

Its healthy look-alike is a planned freeze part-way through (freezing a backbone or the
embeddings after some epochs, progressive freezing): the flags and the gradients look the
same. So it is a warning only when learning is poor, and an info note otherwise. A tensor
frozen before watching started is the frozen-layer rules' business (FROZEN_PARAMETERS), and
one that stops getting gradients while still trainable (a branch no longer used) is not
named here.
"""
import numpy as np

from ..findings import Finding
from .context import module_of, per_parameter, short_list
from .curve import learning_poor
from .graph import rule

TURNED_OFF_RECORDS_AFTER = 2    # [design] recorded steps with a backward after the tensors'
                                # last update, the rest of the model still updated
TURNED_OFF_SHARE = 0.2          # [design] share of the watched steps they stayed off: a flag
                                # flipped in the last few steps leaves the run as it was


@rule(produces="REQUIRES_GRAD_TURNED_OFF",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LR_TOO_LOW", "PARAMS_NOT_UPDATING"})
def requires_grad_turned_off(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "turned_off_parameters", None) or [])
    if not rows:
        return None
    width = len(ctx.run.params)
    index = {p.name: i for i, p in enumerate(ctx.run.params)}
    off = sorted(index[name] for name, _ in rows if name in index)
    # moved = updated on that record. Not grad_received: the gradient hooks are armed when
    # a step starts, and a tensor frozen then (a discriminator between its turns, toggled
    # off and on inside every step) gets no hook even when it trains later in the step
    stepped = [r for r in ctx.records if per_parameter(r, "update_norm", width) is not None]
    records = [r for r in stepped if r.backward]
    if not off or not records:
        return None
    updates = np.vstack([np.nan_to_num(np.asarray(r.update_norm, float)) for r in records])
    moved = updates > 0
    got = np.flatnonzero(moved[:, off].any(axis=1))
    if not len(got):
        return None          # never trained while watched: NO_GRADIENT's business
    last = int(got[-1])
    stopped = records[last].step
    others = [i for i in range(width) if i not in set(off)]
    if others and moved[:, others].any():
        after = [k for k in range(last + 1, len(records)) if moved[k, others].any()]
        end_step, rest = records[-1].step, "the rest of the model trained on"
    else:
        # (real-bug batch 241) nothing else in the watched model trains (every tensor it
        # trained was turned off: a GAN's discriminator frozen for the generator's turn and
        # never unfrozen), so there is no other part to compare with: the recorded steps
        # the loop went on taking with the watched optimizer - no backward reaches the
        # model any more, nothing updated - count instead
        after = [r.step for r in stepped if r.step > stopped]
        end_step, rest = stepped[-1].step, "the loop went on stepping its optimizer"
    span = max(end_step - records[0].step, 1)
    if len(after) < TURNED_OFF_RECORDS_AFTER or \
            (end_step - stopped) < TURNED_OFF_SHARE * span:
        return None
    names = [ctx.run.params[i].name for i in off]
    poor = learning_poor(ctx)
    return Finding(
        code="REQUIRES_GRAD_TURNED_OFF", severity="warning" if poor else "info",
        where=", ".join(dict.fromkeys(module_of(n) for n in names)), step=stopped,
        message=f"{len(off)} parameter tensor(s) trainable when training started "
                f"({short_list(names)}) were updated up to step {stopped} and not after: "
                "their requires_grad is False now, turned off by hand during the run and "
                f"never turned back on, while {rest} for {end_step - stopped} more steps"
                + (", and the run does not learn." if poor else
                   " (if the freeze was planned, nothing is wrong)."),
        evidence={"parameters": names, "last_update_step": stopped,
                  "recorded_after": len(after)},
        fix="Find the code that sets requires_grad = False (an evaluation or prediction "
            "helper, set_requires_grad(net, False), a freeze/unfreeze helper that skips "
            "frozen parameters) and set it back to True before training resumes; for "
            "evaluation use torch.no_grad() instead, which changes no flag.")

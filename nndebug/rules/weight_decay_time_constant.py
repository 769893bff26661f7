"""SGD_WEIGHT_DECAY_TOO_LARGE: plain SGD with a weight decay so large that, on its own, it
erases the weights within a few dozen steps; the loss's gradient can only hold them at a
small equilibrium, and the network answers much the same value for every input.

SGD adds weight_decay x w to the gradient, so each step shrinks every weight by the factor
(1 - lr x weight_decay), and momentum repeats that pull about 1 / (1 - momentum) times.
Left to itself a weight falls by e in

    time constant = (1 - momentum) / (lr x weight_decay)   steps.

Usual settings give thousands of steps (lr 0.1, weight_decay 5e-4, momentum 0.9: 2,000),
so the decay only trims what the loss does not need. A decay copied from a config where it
meant something else (a per-layer multiplier, a regularisation strength of 0.5 or 1) gives
a few dozen: the weights shrink until the pull of the loss balances it, and little is
learnt. Public report: "Any input produce the same output",
https://github.com/BVLC/caffe/issues/1396 ("I change the weight_decay to a small number
(0.0005), then it is normal ... if the weight_decay is large (like 0.5), all the weight
will eventually becomes zero").

A warning only when the run shows it: the weight matrices shrank (norm at most
``SGD_DECAY_SHRUNK`` of the first recorded) and learning is poor. Adam and its family are
judged by COUPLED_WEIGHT_DECAY_TOO_LARGE (``settings.py``), AdamW's decoupled decay by
neither.

The same decay written by hand is read too (real-bug batch 277, "Can't seem to implement L2
regularization correctly in Python - low accuracy scores": lambda 0.5 to 2 on a digits
network): ``loss + lambda * sum(w ** 2)`` adds ``2 x lambda x w`` to each gradient, so under
SGD it is weight_decay = 2 x lambda, with the same time constant
(``run.observed.penalty_decays``, ``monitor/parameter_penalties.py``).
"""
from ..findings import Finding
from .context import observed_list
from .curve import learning_poor
from .graph import rule

SGD_DECAY_TYPES = {"SGD"}          # [design] torch's and minigrad's plain SGD class name
SGD_DECAY_TIME_CONSTANT_LIMIT = 200   # [design] steps in which the decay alone shrinks the
                                   # weights by e: usual settings give 1,000-200,000 (lr 0.1,
                                   # decay 5e-4, momentum 0.9: 2,000; lr 0.01, decay 5e-4: 200,000);
                                   # the planted caffe#1396 set-up (lr 0.01, 0.5, 0.9) gives 20
SGD_DECAY_SHRUNK = 0.5             # [measured] lowest norm / first norm of a weight matrix: the
                                   # planted case's first layer falls to 0.11 (its output layer
                                   # to 0.78); its fixed twin (decay 5e-4) keeps both at 1.00


def time_constant(setting):
    """Steps in which the group's decay alone shrinks a weight by e (None: not measurable)."""
    if not setting.lr or not setting.weight_decay:
        return None
    momentum = setting.momentum or 0.0
    return (1.0 - momentum) / (setting.lr * setting.weight_decay)


def shrunk_matrices(ctx):
    """{weight name: lowest norm / first norm} of the weight matrices that fell to
    SGD_DECAY_SHRUNK of their first recorded norm or below."""
    norms = ctx.matrix("param_norm")
    if norms.ndim != 2 or norms.shape[0] < 3:
        return {}
    out = {}
    for index in ctx.weights:
        column = norms[:, index]
        first, later = column[0], column[1:][column[1:] == column[1:]]   # NaN: not measured
        if first > 0 and later.size and float(later.min()) / float(first) <= SGD_DECAY_SHRUNK:
            out[ctx.run.params[index].name] = round(float(later.min()) / float(first), 3)
    return out


def penalty_time_constant(ctx):
    """(SGD group setting, the hand-written penalty's decay, time constant) when a squared
    penalty in the loss (``penalty_decays``) is, under the watched plain SGD, a decay whose
    time constant is at most SGD_DECAY_TIME_CONSTANT_LIMIT steps; else None."""
    rows = observed_list(ctx, "penalty_decays")
    settings = [s for s in observed_list(ctx, "optimizer_settings")
                if s.type in SGD_DECAY_TYPES and s.lr]
    if not rows or not settings:
        return None
    decay = max(row[2] for row in rows)
    setting = max(settings, key=lambda s: s.lr)
    tau = (1.0 - (setting.momentum or 0.0)) / (setting.lr * decay) if decay > 0 else None
    return (setting, decay, tau) if tau is not None and \
        tau <= SGD_DECAY_TIME_CONSTANT_LIMIT else None


@rule(produces="SGD_WEIGHT_DECAY_TOO_LARGE", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def sgd_weight_decay_too_large(ctx):
    groups = [(s, time_constant(s)) for s in observed_list(ctx, "optimizer_settings")
              if s.type in SGD_DECAY_TYPES and not s.decoupled]
    groups = [(s, tau) for s, tau in groups if tau is not None and
              tau <= SGD_DECAY_TIME_CONSTANT_LIMIT]
    by_hand = None if groups else penalty_time_constant(ctx)
    if not (groups or by_hand) or not (ctx.enough_steps and learning_poor(ctx)):
        return None
    shrunk = shrunk_matrices(ctx)
    if not shrunk:
        return None
    if by_hand:
        return _penalty_finding(*by_hand, shrunk)
    setting, tau = min(groups, key=lambda pair: pair[1])
    lowest = min(shrunk.values())
    return Finding(
        code="SGD_WEIGHT_DECAY_TOO_LARGE", severity="warning", where="optimizer",
        message=f"SGD's weight_decay={setting.weight_decay:g} at lr={setting.lr:g} "
                f"(momentum {setting.momentum or 0:g}) shrinks every weight by e in "
                f"{tau:.0f} steps on its own; the weights fell to {lowest:.0%} of their "
                "first norm and learning is poor: the decay, not the loss, sets the "
                "weights, and the network answers much the same for every input.",
        evidence={"optimizer": setting.type, "group": setting.group, "lr": setting.lr,
                  "weight_decay": setting.weight_decay, "momentum": setting.momentum,
                  "time_constant_steps": tau, "limit": SGD_DECAY_TIME_CONSTANT_LIMIT,
                  "shrunk_weights": shrunk},
        fix="Use a weight decay of 1e-4 to 5e-4 with SGD (a per-layer decay multiplier of a "
            "config is not the decay itself); check the time constant (1 - momentum) / "
            "(lr x weight_decay) is thousands of steps, not tens.")


def _penalty_finding(setting, decay, tau, shrunk):
    lowest = min(shrunk.values())
    return Finding(
        code="SGD_WEIGHT_DECAY_TOO_LARGE", severity="warning", where="loss",
        message=f"The loss adds a hand-written L2 penalty whose coefficient makes it a weight "
                f"decay of {decay:g} (2 x lambda) under SGD at lr={setting.lr:g} (momentum "
                f"{setting.momentum or 0:g}): on its own it shrinks every weight by e in "
                f"{tau:.0f} steps. The weights fell to {lowest:.0%} of their first norm and "
                "learning is poor: the penalty, not the data, sets the weights, and the "
                "network answers much the same for every input.",
        evidence={"optimizer": setting.type, "lr": setting.lr, "penalty_decay": decay,
                  "momentum": setting.momentum, "time_constant_steps": tau,
                  "limit": SGD_DECAY_TIME_CONSTANT_LIMIT, "shrunk_weights": shrunk},
        fix="Use an L2 coefficient of about 1e-4 to 5e-4 (lambda * sum(w ** 2) adds "
            "2 * lambda * w to each gradient), or drop the hand-written term and give the "
            "optimizer weight_decay=1e-4 to 5e-4; the time constant (1 - momentum) / (lr x "
            "2 x lambda) should be thousands of steps, not tens.")

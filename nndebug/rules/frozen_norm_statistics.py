"""Batch norm whose running statistics cannot move: momentum=0.

PyTorch updates a batch-norm layer's running statistics as
``running = (1 - momentum) * running + momentum * batch`` [torchbn]. With momentum=0 the
new batch weighs nothing: the running mean and variance stay at their start (0 and 1, or
whatever a checkpoint held) for the whole run. Training normalises with each batch's own
statistics and looks normal; eval mode normalises with statistics that describe no data,
and evaluation accuracy falls apart. It comes from ports that carried another framework's
value over, or from a "freeze" meant for the statistics that belongs in ``eval()``.

The rule reads the settings the monitor takes when watching starts
(``run.observed.norm_settings``) and the layers seen normalising a batch in training mode
(``run.observed.norm_batches``): a layer kept in eval mode on purpose never updates its
statistics whatever its momentum, so only layers trained in training mode are judged.
momentum=None (a cumulative average) and layers without running statistics are fine.
"""
from ..findings import Finding
from .context import first_training_batches, observed_list, short_list
from .graph import rule

FROZEN_MOMENTUM = 1e-4   # [torchbn] the new batch's weight in the running statistics at or
                         # below this: after n steps they have moved 1 - (1 - m)^n of the way,
                         # under 1% in 100 steps and 63% only after 10,000. PyTorch's default
                         # is 0.1; ports done right land near 0.01 (1 - TensorFlow's 0.99)


def frozen_momenta(norm_settings, trained_layers):
    """{layer: momentum} of the batch-norm layers among ``trained_layers`` that keep running
    statistics with a momentum of FROZEN_MOMENTUM or less."""
    return {s.layer: s.momentum for s in norm_settings
            if s.layer in trained_layers and s.tracks_running_stats and
            s.momentum is not None and 0 <= s.momentum <= FROZEN_MOMENTUM}


UPDATING_CALLS_MIN = 2   # [design] training-mode calls of a hand-written norm seen before its
                         # untouched running buffers count (batch 60): one call could be a
                         # warm-up that skips the update; two ordinary steps cannot


def never_updated(rows):
    """The hand-written layers (``run.observed.unchanged_running_buffers``: layer, buffer
    names, training-mode calls, changed) called in training mode UPDATING_CALLS_MIN times or
    more whose running buffers still hold their values from when watching started."""
    return [(layer, names, calls) for layer, names, calls, changed in rows
            if calls >= UPDATING_CALLS_MIN and not changed]


FROZEN_STEPS_MIN = 2   # [design] recorded steps after a layer's first on which it trained with
                       # momentum 0 in every call, before its statistics count as frozen by
                       # the loop: one such step could be a bypassed extra forward


def zeroed_while_training(norm_batches):
    """{layer: recorded steps} of the batch-norm layers whose every training-mode call on
    every recorded step after their first had momentum FROZEN_MOMENTUM or less, on
    FROZEN_STEPS_MIN steps or more: the loop set the momentum to 0 and never put it back
    for a forward that counts (SAM's ``enable_running_stats`` called after the first forward
    instead of before it, real-bug batch 353: davda54/sam#87). A loop that zeroes it for the
    second forward only (SAM done right) still updates in the first, on every step."""
    steps, updating = {}, {}
    for batch in norm_batches:
        steps.setdefault(batch.layer, set()).add(batch.step)
        if batch.momentum is None or batch.momentum > FROZEN_MOMENTUM:
            updating.setdefault(batch.layer, set()).add(batch.step)
    frozen = {}
    for layer, seen in steps.items():
        later = sorted(seen)[1:]
        if len(later) >= FROZEN_STEPS_MIN and not updating.get(layer, set()) & set(later):
            frozen[layer] = later
    return frozen


@rule(produces="BATCHNORM_STATISTICS_FROZEN", explains={"OVERFITTING"})
def batchnorm_statistics_frozen(ctx):
    first_step = first_training_batches(ctx)
    frozen = frozen_momenta(observed_list(ctx, "norm_settings"), first_step)
    if not frozen:
        return momentum_zeroed_by_the_loop(ctx) or hand_written_statistics_frozen(ctx)
    layer, momentum = next(iter(frozen.items()))
    return Finding(
        code="BATCHNORM_STATISTICS_FROZEN", severity="warning", where=layer,
        step=first_step[layer],
        message=f"Batch norm {short_list(list(frozen))} has momentum={momentum:g}: in PyTorch "
                "the momentum is the weight of the NEW batch in the running mean and variance "
                "(running = (1 - momentum) * running + momentum * batch), so they never move "
                "from their start. Training normalises with each batch's own statistics and "
                "looks fine; eval mode normalises with statistics that describe no data, and "
                "evaluation accuracy suffers.",
        evidence={"layers": dict(frozen), "threshold": FROZEN_MOMENTUM},
        fix="Use PyTorch's default momentum=0.1 (1 - tf_momentum for a TensorFlow port, e.g. "
            "0.01), or momentum=None for a cumulative average. To keep the statistics fixed "
            "on purpose, put the layer in eval() instead.")


def momentum_zeroed_by_the_loop(ctx):
    """The same harm from a momentum that started right but that the training loop set to 0
    before every forward that counts (``zeroed_while_training``)."""
    frozen = zeroed_while_training(observed_list(ctx, "norm_batches"))
    if not frozen:
        return None
    layer, steps = next(iter(frozen.items()))
    return Finding(
        code="BATCHNORM_STATISTICS_FROZEN", severity="warning", where=layer, step=steps[0],
        message=f"Batch norm {short_list(list(frozen))} started with an updating momentum, "
                f"but on every recorded step from step {steps[0]} on ({len(steps)} steps) it "
                "ran in training mode only with momentum=0: the loop sets it to 0 and does "
                "not put it back before a forward that counts, so the running mean and "
                "variance stop where the first steps left them. Training normalises with "
                "each batch's own statistics and looks fine; eval mode normalises with "
                "statistics that describe no data, and evaluation accuracy suffers.",
        evidence={"layers": {name: s[:8] for name, s in frozen.items()},
                  "threshold": FROZEN_MOMENTUM, "steps_min": FROZEN_STEPS_MIN},
        fix="Restore the momentum before the forward whose statistics should count: with "
            "SAM's helpers, enable_running_stats(model) BEFORE the first forward of each step "
            "and disable_running_stats(model) before the second.")


def hand_written_statistics_frozen(ctx):
    """The same harm from a norm layer of the user's own making (real-bug batch 60): its
    running buffers never moved while it ran in training mode, e.g. an update written with
    out-of-place ops whose result is dropped (hiwonjoon/tf-frrn#2)."""
    stuck = never_updated(observed_list(ctx, "unchanged_running_buffers"))
    if not stuck:
        return None
    layer, names, calls = stuck[0]
    return Finding(
        code="BATCHNORM_STATISTICS_FROZEN", severity="warning", where=layer, step=None,
        message=f"Layer {short_list([s[0] for s in stuck])} ran {calls} times in training mode "
                f"and its running statistics ({short_list(names)}) still hold the values they "
                "had when watching started: the update is lost (out-of-place ops such as "
                "running_mean.mul(1 - m).add(m * mean) whose result is dropped, or a result "
                "assigned to a local name). Training normalises with each batch's own "
                "statistics and looks fine; eval mode normalises with statistics that describe "
                "no data, and evaluation accuracy suffers.",
        evidence={"layers": {s[0]: s[1] for s in stuck}, "training_calls": calls,
                  "min_calls": UPDATING_CALLS_MIN},
        fix="Update the buffers in place under torch.no_grad() "
            "(running_mean.mul_(1 - m).add_(m * mean)) or assign the result back "
            "(self.running_mean = ...), or use nn.BatchNorm*d.")

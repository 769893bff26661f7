"""Rules about how the training loop is wired: the optimizer, zero_grad, train/eval mode, the
output layer against the loss, the graph from parameters to loss, optimizer.step().

Set-up bugs rank right after data bugs: each one stops or distorts learning by itself,
whatever the hyper-parameters.
"""

import numpy as np

from ..findings import Finding
from .context import (MAJORITY, MIN_RECORDS, ROW_SUM_TOLERANCE, judged_loss_calls, modules,
                      names, observed_list, per_parameter, short_list)
from .curve import learning_poor
from .graph import rule
from .update_fit_readers import velocity_never_decays   # real-bug batch 99

ACCUMULATION_TOLERANCE = 0.01  # [design] .grad may differ from what backward delivered by 1%
DISCARDED_RATIO = 0.9          # [design] |.grad| below 0.9 x what the step's backward passes
                               # delivered (and not a parallel rescale): part of it was cleared;
                               # a carried-over .grad is the larger one (the zoo's and the real
                               # missing-zero_grad cases: median ratios above 1)
                               # (float rounding, AMP); beyond that and larger: carried over
OTHER_CARRY_MIN_VERDICTS = 2   # [design] steps of another optimizer seen carrying .grad
                               # over: one may be a deliberate accumulation's first step
EVAL_CARRY_MIN_STEPS = 2       # [design] a one-off eval-mode backward (a saliency map drawn
                               # once) touches one update; a repeated one trains on what it
                               # evaluated (monitor/carried_gradients.py)
ADDED_ENERGY = 0.05            # [design] a .grad carried over holds more than was delivered:
                               # (|.grad|^2 + |.grad - delivered|^2) / |delivered|^2 = 1 +
                               # 2|old|^2 + 2 old.delivered, well above 1 (the zoo's and the real
                               # missing-zero_grad cases); a .grad with entries zeroed or shrunk
                               # toward 0 (a pruning mask applied to it) has its two parts
                               # never pointing against each other: at most 1 (real-bug batch 165)
DDP_ACCUMULATION_RATIO = 2.0  # [measured] under DDP .grad is the mean over ranks: |mean| / |own|
# losses as the monitor names the calls it sees (nndebug.monitor.loss_capture): those that
# apply log-softmax to their input (probabilities there are a double softmax), and those
# that expect probabilities or their log (a softmax output is right for them)
LOGIT_LOSSES = {"CrossEntropyLoss", "cross_entropy"}
PROBABILITY_LOSSES = {"NLLLoss", "nll_loss", "BCELoss", "binary_cross_entropy", "KLDivLoss",
                      "kl_div"}
                              # was 0.65-1.25 on healthy 2-rank runs (tests/test_ddp.py), 1.9-5.5
                              # (median 2.9) with zero_grad missing


@rule(produces="OPTIMIZER_MISSING_PARAMS",
      explains={"PARAMS_NOT_UPDATING", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def optimizer_missing_params(ctx):
    run = ctx.run
    if not run.has_optimizer:
        return None
    missing = [i for i, p in enumerate(run.params) if p.in_optimizer is False]
    # (core variants 6) a tensor the watched optimizer does not hold whose size changed
    # between the records is updated by something else: a second optimizer (an encoder and
    # a head at their own rates, only one handed to watch), not forgotten
    missing = [i for i in missing if not _moved(ctx, i)]
    if not missing:
        return unfrozen_outside_optimizer(ctx) or untrained_outside_model(ctx)
    missing_names = names(run, missing)
    everything = len(missing) == len(run.params)
    received = [i for i in missing if any(r.grad_received is not None and len(r.grad_received) > i
                                          and r.grad_received[i] for r in ctx.records)]
    # (real-bug batch 188) a pretrained part kept in eval mode and left out of the optimizer
    # is frozen on purpose (linear probing with requires_grad left on): said as info
    parts = _eval_parts(ctx) if not everything else set()
    parked = bool(parts) and all(_in_eval_part(name, parts) for name in missing_names)
    if everything:
        message = ("The optimizer holds none of the model's trainable parameters: "
                   "optimizer.step() changes nothing in this model (was the optimizer built "
                   "for another copy of the model, or before the model was rebuilt?).")
    else:
        message = (f"{len(missing)} trainable parameter tensor(s) are not in the optimizer "
                   f"({short_list(missing_names)}): they get gradients but are never updated"
                   + (", and their part is kept in eval mode: frozen on purpose? "
                      "(requires_grad_(False) saves their backward)." if parked else "."))
    return Finding(
        code="OPTIMIZER_MISSING_PARAMS",
        severity="error" if everything else "info" if parked else "warning",
        where=", ".join(modules(missing_names)) if not everything else "", step=0,
        message=message,
        evidence={"missing": missing_names, "missing_count": len(missing),
                  "trainable_count": len(run.params),
                  "missing_with_gradients": names(run, received)},
        fix="Build the optimizer from the model you train, after the model is final: "
            "optimizer = Optim(model.parameters(), ...); to freeze a part on purpose set its "
            "requires_grad=False.")


def _eval_parts(ctx):
    """The modules holding a dropout/batch-norm layer that was in eval mode while backward
    ran (``StepRecord.eval_layers``): a part put in eval mode, as a frozen backbone is. The
    model itself (a top-level layer) is no part: that is TRAINING_IN_EVAL_MODE's."""
    layers = {layer for r in ctx.records if r.backward for layer in (r.eval_layers or ())}
    return {layer.rpartition(".")[0] for layer in layers} - {""}


def _in_eval_part(name, parts):
    return any(name.startswith(part + ".") for part in parts)


def _moved(ctx, i):
    """Parameter ``i``'s norm differs between two records (before any NaN): it changed."""
    norms = [r.param_norm[i] for r in ctx.records
             if r.param_norm is not None and len(r.param_norm) > i]
    norms = [v for v in norms if v is not None and np.isfinite(v)]
    return len(norms) >= 2 and max(norms) > min(norms)


def unfrozen_after_start(observed):
    """Tensors frozen when watching started, unfrozen since (requires_grad back to True),
    that the optimizer does not hold and that never changed: the optimizer was built over
    the parameters trainable at the start, so the unfrozen ones get gradients it never
    applies."""
    return [t for t in getattr(observed, "frozen", None) or []
            if t.unfrozen and t.in_optimizer is False and t.changed is False]


def unfrozen_outside_optimizer(ctx):
    """OPTIMIZER_MISSING_PARAMS for layers unfrozen during the run (see unfrozen_after_start)."""
    stuck = unfrozen_after_start(getattr(ctx.run, "observed", None))
    if not stuck:
        return None
    stuck_names = [t.name for t in stuck]
    return Finding(
        code="OPTIMIZER_MISSING_PARAMS", severity="warning",
        where=", ".join(modules(stuck_names)), step=0,
        message=f"{len(stuck)} parameter tensor(s) frozen when watching started were unfrozen "
                f"during the run ({short_list(stuck_names)}: requires_grad is True now), but "
                "the optimizer does not hold them and they never changed: it was built over "
                "the parameters trainable at the start, so the unfrozen layers get gradients "
                "that are never applied.",
        evidence={"missing": stuck_names, "missing_count": len(stuck), "unfrozen": True},
        fix="When you unfreeze layers, hand them to the optimizer: "
            "optimizer.add_param_group({'params': layer.parameters()}), or build the optimizer "
            "over all parameters from the start (frozen ones get no gradient, so it leaves "
            "them alone until they are unfrozen).")


def untrained_outside_model(ctx):
    """(real-bug batches 155/161) OPTIMIZER_MISSING_PARAMS for parameters outside the model
    that the training step runs and the loss trains through, but that no optimizer seen
    stepping holds and that never changed (``run.observed.outside_parameters``): a
    feature-distillation converter built beside the student (0.58 held-out accuracy against
    0.79), learned task weights in the loss module (0.10 against 0.89), an auxiliary loss's
    decoder kept in a plain list (ten times the reconstruction error). A teacher or a
    perceptual-loss network run without no_grad gets gradients too; it is in eval mode, and
    the monitor keeps only modules run in training mode."""
    rows = [row for row in observed_list(ctx, "outside_parameters")
            if not row[2] and not row[3]]
    if not rows:
        return None
    kinds = list(dict.fromkeys(row[0] for row in rows))
    shapes = [tuple(row[1]) for row in rows]
    return Finding(
        code="OPTIMIZER_MISSING_PARAMS", severity="warning", where=", ".join(kinds), step=0,
        message=f"{len(rows)} parameter tensor(s) outside the watched model "
                f"({short_list(kinds)}; shapes {short_list(shapes)}) run in every training "
                "step and receive gradients from the loss, but no optimizer holds them and "
                "they never changed: they stay at their initial values (a module built beside "
                "the model - a converter, a head, learned loss weights - or kept in a plain "
                "list, whose parameters model.parameters() does not return).",
        evidence={"outside_tensors": len(rows), "types": kinds,
                  "shapes": [list(s) for s in shapes[:16]]},
        fix="Give those parameters to the optimizer: Optim(list(model.parameters()) + "
            "list(extra.parameters()), ...), or register the module on the model "
            "(an attribute, nn.ModuleList or nn.ModuleDict instead of a Python list).")


FEW_STEPS_MIN_WATCHED = 20   # [design] watched steps needed before a share of them is read
FEW_STEPS_FRACTION = 0.1     # [design] the optimizer stepped on at most 1 watched step in 10:
                             # a step every 25 batches (logging) or once per epoch of 28 gives
                             # 0.04; accumulation over 2-8 micro-batches, watched per
                             # micro-batch, gives 0.125-0.5 (core variants 7)


@rule(produces="NO_OPTIMIZER_STEP", explains={"PARAMS_NOT_UPDATING", "LOSS_AT_CHANCE",
                                              "LOSS_PLATEAU"})
def no_optimizer_step(ctx):
    """Backward ran under watch (parameters hold gradients) and step() was never called; or
    the optimizer stepped on only a few of the watched steps (``_rare_optimizer_steps``)."""
    observed = getattr(ctx.run, "observed", None)
    holding = getattr(observed, "unstepped_gradients", 0) or 0
    if holding == 0 or ctx.run.records or len(ctx.losses):
        return _rare_optimizer_steps(ctx, observed)
    return Finding(
        code="NO_OPTIMIZER_STEP", severity="warning", step=0,
        message=f"Backward passes ran under watch ({holding} parameter tensor(s) hold "
                "gradients), but step() was never called, so nothing was recorded. step() "
                "goes right after optimizer.step(): if the loop calls it there, the optimizer "
                "never stepped (a condition such as (i + 1) % accumulation_steps == 0 that is "
                "never true, e.g. with fewer batches per epoch than accumulation steps, or an "
                "optimizer.step() left out), and the gradients only piled up.",
        evidence={"parameters_with_gradients": holding},
        fix="Make sure optimizer.step() runs (accumulating? also step on the last batch of an "
            "epoch), and call watch's step(loss) once after each optimizer.step().")


def _rare_optimizer_steps(ctx, observed):
    """NO_OPTIMIZER_STEP when ``optimizer.step()`` is reached on only a few batches: indented
    into the ``if i % 25 == 0:`` logging branch, the epoch's summed loss stepped once after the
    batch loop (core variants 7). The loss is logged every batch, so the curve looks like a
    tiny learning rate. Read from ``observed.stepped_total`` (the optimizer's step post-hook
    counts the watched steps in which it stepped, from ``stepped_since``;
    ``monitor/optimizer_steps.py``) against the watched steps since then. A warning when it
    stepped on at most FEW_STEPS_FRACTION of them and learning is poor, info otherwise.
    Healthy look-alike: gradient accumulation watched after every micro-batch (not after
    optimizer.step(), as the docs ask) steps once in k watched steps, k of 2-8 above the
    fraction; such a run that learns is info only."""
    since = getattr(observed, "stepped_since", None)
    if since is None:
        return None
    stepped = int(getattr(observed, "stepped_total", 0) or 0)
    watched = int((ctx.loss_steps >= since).sum()) if len(ctx.loss_steps) else 0
    if stepped == 0 and watched >= FEW_STEPS_MIN_WATCHED and _nothing_moved(ctx):
        return _never_stepped(watched, since)
    if stepped == 0 or watched < FEW_STEPS_MIN_WATCHED or \
            stepped > FEW_STEPS_FRACTION * watched:
        return None     # never stepped: above; often enough: healthy
    poor = learning_poor(ctx)
    return Finding(
        code="NO_OPTIMIZER_STEP", severity="warning" if poor else "info", step=int(since),
        message=f"The optimizer stepped on only {stepped} of the {watched} watched steps: the "
                "loss is computed every batch, but optimizer.step() is reached on a few only "
                "(indented into a logging or `if` branch, or called once after the batch "
                "loop), so the model learns from a small share of its batches"
                + (" - and learning is poor." if poor else "."),
        evidence={"stepped_steps": stepped, "watched_steps": watched,
                  "threshold": FEW_STEPS_FRACTION, "learning_poor": bool(poor)},
        fix="Call loss.backward() and optimizer.step() for every batch, inside the batch loop "
            "(accumulating? step every k micro-batches and call watch's step() after each "
            "optimizer.step()).")


def _nothing_moved(ctx):
    """Every recorded update of every parameter is exactly zero (and there are records)."""
    updates = [np.asarray(r.update_norm, float) for r in ctx.records
               if r.update_norm is not None and len(r.update_norm)]
    return bool(updates) and all(np.all(u == 0) for u in updates)


def _never_stepped(watched, since):
    """NO_OPTIMIZER_STEP for a loop that calls watch's step() on every batch while the
    watched optimizer never steps and no weight moves: ``scheduler.step()`` written where
    ``optimizer.step()`` belongs (real-bug batch 254, pytorch/pytorch#3814). A loop that
    updates the weights by hand moves them, and is left alone."""
    return Finding(
        code="NO_OPTIMIZER_STEP", severity="warning", step=int(since),
        message=f"The optimizer never stepped in the {watched} watched steps, and no weight "
                "changed: backward runs and the loss is computed every batch, but "
                "optimizer.step() is never called (a scheduler.step() in its place, a step "
                "left out or behind a condition that never holds).",
        evidence={"stepped_steps": 0, "watched_steps": watched},
        fix="Call optimizer.step() after loss.backward() on every batch (then "
            "scheduler.step() where the schedule wants it), and watch's step() after it.")


def _one_backward_pass(ctx, flagged):
    """(real-bug batch 330) Whether every flagged step whose backward passes were counted
    (``run.observed.backward_passes``) had one pass only into the watched model: gradients
    cannot be cleared between two passes there. Its .grad was rewritten by the loop - the
    mean over replicas a data-parallel loop written by hand copies into every replica's
    gradients before they step - which is no lost gradient."""
    counted = {step: passes for step, passes in observed_list(ctx, "backward_passes")}
    seen = [counted[step] for step in flagged if step in counted]
    return bool(seen) and all(passes == 1 for passes in seen)


@rule(produces=("GRADIENTS_ACCUMULATING", "GRADIENTS_DISCARDED"),
      explains={"GRADIENTS_ACCUMULATING": {"LOSS_DIVERGING", "LOSS_OSCILLATING", "NAN_LOSS"},
                "GRADIENTS_DISCARDED": {"LOSS_PLATEAU", "PARAMS_NOT_UPDATING"}})
def gradients_accumulating(ctx):
    """GRADIENTS_ACCUMULATING: gradients never zeroed, so each step adds every earlier
    batch's gradient. GRADIENTS_DISCARDED: gradients zeroed between backward and the step
    (or on every micro-batch of an accumulation), so the step uses (almost) nothing."""
    # parameters the optimizer does not hold are never zeroed by optimizer.zero_grad(); that
    # is OPTIMIZER_MISSING_PARAMS, not this
    held_by_optimizer = np.array([p.in_optimizer is not False for p in ctx.run.params], bool)
    width = len(held_by_optimizer)
    ranks = getattr(ctx.run, "ranks", None)
    averaged_over_ranks = ranks is not None and ranks.world_size > 1
    measured = []       # (step, held, excess, grad) of the records that measured all three
    for r in ctx.records[1:]:   # the first step may hold gradients from before watch()
        held, excess, grad = (per_parameter(r, a, width)
                              for a in ("held_norm", "held_excess", "grad_norm"))
        if r.backward and held is not None and excess is not None and grad is not None:
            measured.append((r.step, held, excess, grad))
    flagged, checked, evidence, ratios, added_rows = [], 0, None, [], 0
    if measured:
        # every record at once, one row each: one NumPy call per test, not one per record
        held, excess, grad = (np.vstack([m[i] for m in measured]) for i in (1, 2, 3))
        ok = np.isfinite(held) & np.isfinite(excess) & np.isfinite(grad) & (grad > 0) & \
            held_by_optimizer
        with np.errstate(all="ignore"):     # entries outside ok are never read
            held_ratio = held / grad
            excess_ratio = excess / grad
            added = held_ratio ** 2 + excess_ratio ** 2 > 1 + ADDED_ENERGY
        if averaged_over_ranks:
            # DDP: .grad holds the mean over ranks, never what this rank's backward delivered;
            # only a .grad far larger than any mean of fresh gradients is a carry-over
            carried = held_ratio > DDP_ACCUMULATION_RATIO
        else:
            # scaling .grad down (clipping, unscaling) keeps it parallel: excess == |1 - held|
            carried = (held_ratio > 1 + ACCUMULATION_TOLERANCE) | \
                      (excess_ratio > np.abs(1 - held_ratio) + ACCUMULATION_TOLERANCE)
        compared, carried_over = ok.sum(axis=1), (carried & ok).sum(axis=1)
        grown = (carried & added & ok).sum(axis=1)
        for row in np.flatnonzero(compared).tolist():
            checked += 1
            if carried_over[row] / compared[row] < MAJORITY:
                continue
            step, row_ok = measured[row][0], ok[row]
            flagged.append(step)
            added_rows += grown[row] / compared[row] >= MAJORITY
            ratios.append(float(np.median(held_ratio[row][row_ok])))
            if evidence is None:
                evidence = {"step": step,
                            "held_over_delivered": float(np.median(held_ratio[row][row_ok])),
                            "excess_over_delivered": float(np.median(excess_ratio[row][row_ok]))}
    if len(flagged) < MIN_RECORDS or len(flagged) < MAJORITY * checked:
        return _gradients_cleared(ctx, measured, held_by_optimizer) or \
            _eval_gradients_carried(ctx) or _attack_gradients_kept(ctx) or \
            velocity_never_decays(ctx) or _other_optimizer_carried(ctx)
    if not averaged_over_ranks and np.median(ratios) < DISCARDED_RATIO:
        if observed_list(ctx, "closure_steps"):
            return None     # (real-bug batch 116) optimizer.step(closure): L-BFGS runs the
                            # closure's zero_grad and backward several times per step
        if cleared_another_turn(ctx, flagged) or _one_backward_pass(ctx, flagged):
            return _eval_gradients_carried(ctx) or _attack_gradients_kept(ctx) or \
                velocity_never_decays(ctx) or _other_optimizer_carried(ctx)
        return Finding(
            code="GRADIENTS_DISCARDED", severity="warning", step=flagged[0],
            message=f"At optimizer.step() the parameters' .grad held less than this step's "
                    f"backward passes delivered (|.grad| = {np.median(ratios):.2f} x what they "
                    "delivered, not parallel to it): gradients were cleared between two "
                    "backward passes of one step, so the update uses only the last of them "
                    "(a zero_grad() inside a gradient-accumulation loop).",
            evidence={"held_over_delivered": [round(v, 3) for v in ratios[:20]],
                      "steps_flagged": flagged[:20], "steps_checked": checked,
                      "threshold": DISCARDED_RATIO},
            fix="Zero the gradients once per optimizer step, before its first backward (or "
                "right after optimizer.step()), never between the micro-batches it "
                "accumulates.")
    if added_rows < MAJORITY * len(flagged):
        # .grad is what backward delivered with parts taken out, not more: a mask or a
        # per-entry edit on the gradient (real-bug batch 165's frozen pruned weights)
        return _eval_gradients_carried(ctx) or _attack_gradients_kept(ctx) or \
            velocity_never_decays(ctx) or _other_optimizer_carried(ctx)
    return Finding(
        code="GRADIENTS_ACCUMULATING", severity="error", step=flagged[0],
        message=f"At optimizer.step() the parameters' .grad held more than this step's backward "
                f"delivered (|.grad| = {evidence['held_over_delivered']:.2f} x the new gradient "
                f"at step {evidence['step']}): gradients are carried over between steps, so "
                "every update also repeats all the previous ones.",
        evidence={**evidence, "steps_flagged": flagged[:20], "steps_checked": checked},
        fix="Call optimizer.zero_grad() (or model.zero_grad()) once per optimizer step, before "
            "loss.backward(). To accumulate over micro-batches on purpose, zero once per "
            "optimizer step and call watch's step() only after optimizer.step().")


def cleared_another_turn(ctx, flagged):
    """Whether the backward passes a zero_grad() took out of .grad on the ``flagged`` steps
    were another network's turn, not the model's own loss: on most of those steps that have
    a row in ``observed.input_gradient_passes``, a backward pass ran right after a forward on
    an input that requires grad (a generator's fake images through the watched
    discriminator, an attack's pass), before the step's own training backward. The healthy
    GAN loop (the PyTorch DCGAN tutorial; real-bug batch 241) leaves the generator's pass in
    the discriminator's .grad and clears it with the discriminator's own zero_grad() at the
    start of its turn; a zero_grad() between micro-batches of one loss has no such pass."""
    rows = _other_turn_passes(ctx)
    known = [rows[step] for step in flagged if step in rows]
    return len(known) >= MIN_RECORDS and sum(a >= 1 for a in known) > MAJORITY * len(known)


def _other_turn_passes(ctx):
    """{recorded step: backward passes that ran right after a forward on an input requiring
    grad, before the step's own training backward} (``observed.input_gradient_passes``)."""
    return {int(step): int(attack) for step, attack, _ in
            observed_list(ctx, "input_gradient_passes")}


def only_other_turns(ctx, records, got):
    """Whether every recorded step on which the stuck tensors got a gradient (``got``: records
    x stuck tensors) ran another network's turn first (a row with a pass after a forward on an
    input requiring grad in ``observed.input_gradient_passes``): then that gradient was the
    other turn's (a generator's pass through the watched critic), the critic's own
    zero_grad() cleared it, and their own loss gives them none - a WGAN critic's output bias
    cancels in mean(D(fake)) - mean(D(real)) (real-bug batch 241's twin). Asked only when
    some tensors move: a zero_grad() between backward() and step() stops them all. A WGAN
    runs the generator once per several critic steps, so one such step may be all there is."""
    rows = _other_turn_passes(ctx)
    steps = [r.step for r, row in zip(records, got) if row.any()]
    return bool(steps) and all(rows.get(step, 0) >= 1 for step in steps)


def _gradients_cleared(ctx, measured, held_by_optimizer):
    """GRADIENTS_DISCARDED from records whose backward delivered a gradient to parameters the
    optimizer holds while, at optimizer.step(), every one of their .grad was None: a
    zero_grad() (set_to_none, the default) between backward() and step(), so the optimizer
    skips them and nothing moves (real-bug batch 179, a BYOL trainer zeroing before the
    step; pytorch_warmup#12). The record is taken at watch's step(), after the optimizer's:
    a loop that zeroes right after optimizer.step() also shows None there, so the weights
    must not have moved either (an update of exactly 0 on every such parameter). Named on
    MIN_RECORDS records and a MAJORITY of those that compared any parameter; an L-BFGS
    closure is left out, as above."""
    cleared, compared = [], 0
    updates = {r.step: per_parameter(r, "update_norm", len(held_by_optimizer))
               for r in ctx.records}
    for step, held, _, grad in measured:
        delivered = np.isfinite(grad) & (grad > 0) & held_by_optimizer
        update = updates.get(step)
        if not delivered.any() or update is None:
            continue
        compared += 1
        # .grad None when the step is recorded (NaN) is also a zero_grad() after step():
        # only weights that did not move at all say the optimizer found nothing
        if not np.isfinite(held[delivered]).any() and not np.any(update[delivered] != 0):
            cleared.append(step)
    if len(cleared) < MIN_RECORDS or len(cleared) < MAJORITY * compared or \
            observed_list(ctx, "closure_steps"):
        return None
    return Finding(
        code="GRADIENTS_DISCARDED", severity="error", step=cleared[0],
        message=f"At optimizer.step() every parameter's .grad was None on {len(cleared)} of "
                f"{compared} recorded steps, although that step's backward had delivered "
                "gradients to them: the gradients were cleared between backward() and "
                "step() (a zero_grad() in between), so the optimizer skipped every parameter "
                "and the model never moves.",
        evidence={"steps_cleared": cleared[:20], "steps_compared": compared},
        fix="Call optimizer.zero_grad() before loss.backward() (or right after "
            "optimizer.step()), never between backward() and step().")


ATTACK_KEPT_EXCESS = 0.05   # [design] median |.grad - delivered| / |delivered| under which
                            # .grad still holds every backward pass of the step (summed, so
                            # the two differ by rounding only); a zero_grad() after the attack
                            # leaves |attack| / |attack + training|, ~0.5 or more (batch 87)


def _attack_gradients_kept(ctx):
    """GRADIENTS_ACCUMULATING from recorded steps whose backward passes into .grad include
    one right after a forward on an input that requires grad (an adversarial attack or a
    saliency pass calling loss.backward() for the input's gradient) and a later one, and
    whose optimizer stepped on .grad still holding all of them: the attack's passes added the
    weights' gradient too, and no zero_grad() came between the attack and the training
    backward (real-bug batch 87). An attack taking the gradient with torch.autograd.grad,
    or zeroing before the training backward, or one backward per step (free adversarial
    training) stays out."""
    rows = {int(step): (int(attack), int(passes)) for step, attack, passes in
            observed_list(ctx, "input_gradient_passes")}
    width = len(ctx.run.params)
    kept, checked = [], 0
    for r in ctx.records:
        attack, passes = rows.get(r.step, (0, 0))
        if not r.backward or attack < 1 or passes <= attack:
            continue
        excess, grad = per_parameter(r, "held_excess", width), per_parameter(r, "grad_norm", width)
        if excess is None or grad is None:
            continue
        ok = np.isfinite(excess) & np.isfinite(grad) & (grad > 0)
        if not ok.any():
            continue
        checked += 1
        if float(np.median(excess[ok] / grad[ok])) < ATTACK_KEPT_EXCESS:
            kept.append((r.step, attack, passes))
    if len(kept) < MIN_RECORDS or len(kept) < MAJORITY * checked:
        return None
    step, attack, passes = kept[0]
    return Finding(
        code="GRADIENTS_ACCUMULATING", severity="error", step=step,
        message=f"At optimizer.step() the parameters' .grad held all {passes} backward passes "
                f"of step {step}, {attack} of them run right after a forward on an input that "
                "requires grad (an adversarial attack or a saliency map calling "
                "loss.backward() to get the input's gradient): those passes added the "
                "weights' gradient as well, and the optimizer stepped on the attack's "
                f"gradients plus the training one ({len(kept)} of {checked} such recorded "
                "steps).",
        evidence={"steps": [k[0] for k in kept[:20]], "attack_passes": kept[0][1],
                  "passes": kept[0][2], "steps_checked": checked,
                  "threshold": ATTACK_KEPT_EXCESS},
        fix="Call optimizer.zero_grad() after the attack, right before the training "
            "backward (or take the input's gradient with torch.autograd.grad(loss, x), "
            "which leaves the weights' .grad alone).")


def _eval_gradients_carried(ctx):
    """GRADIENTS_ACCUMULATING from the steps whose training backward found ``.grad`` still
    holding what a backward pass in eval mode left there (``run.observed``, every step
    watched): a validation loop that calls backward() and a loop that zeroes the gradients
    only after each optimizer step. Records are sparse; these steps rarely are recorded."""
    steps = observed_list(ctx, "carried_eval_gradients")
    if len(steps) < EVAL_CARRY_MIN_STEPS:
        return None
    return Finding(
        code="GRADIENTS_ACCUMULATING", severity="error", step=steps[0],
        message=f"Backward passes ran while the model was in eval mode (validation?) and left "
                f"their gradients in .grad; the next training backward added its own to them, "
                f"on {len(steps)} steps (first at step {steps[0]}). Those optimizer steps "
                "trained on the evaluated data as well: the validation set leaks into "
                "training, and each such step is outsized.",
        evidence={"steps": steps[:20], "times": len(steps),
                  "threshold_steps": EVAL_CARRY_MIN_STEPS},
        fix="Evaluate under torch.no_grad() (or torch.inference_mode()) and without calling "
            "backward(); if a backward in eval mode is meant (saliency, adversarial inputs), "
            "call optimizer.zero_grad() before the next training backward.")


def _other_optimizer_carried(ctx):
    """GRADIENTS_ACCUMULATING for an optimizer the loop steps besides the watched one (a
    GAN's discriminator, a critic), whose ``.grad`` still held its previous step's gradient
    at its next step on OTHER_CARRY_MIN_VERDICTS verdicts and a MAJORITY of those given
    (``run.observed.other_optimizer_carries``): ``zero_grad()`` forgotten for it, or called
    once per round of several of its steps (real-bug batch 187). The watched optimizer's
    own clearing is read from its records above."""
    rows = observed_list(ctx, "other_optimizer_carries")
    carried = [row for row in rows if row[1] == "carried"]
    if len(carried) < OTHER_CARRY_MIN_VERDICTS or len(carried) < MAJORITY * len(rows):
        return None
    step, _, held = carried[0]
    return Finding(
        code="GRADIENTS_ACCUMULATING", severity="error", step=step, where="other optimizer",
        message=f"Another optimizer of this loop (not the one given to watch; it holds {held} "
                f"parameter tensors) stepped with .grad still holding its previous step's "
                f"gradient on {len(carried)} of {len(rows)} of its steps measured: its "
                "gradients are never cleared between its steps (or only once per round), so "
                "each of its updates repeats all the earlier ones. In a GAN or actor-critic "
                "loop that is the discriminator's or critic's optimizer, and the network "
                "watched trains against a rival that overshoots.",
        evidence={"steps": [row[0] for row in carried[:20]], "carried": len(carried),
                  "verdicts": len(rows), "parameters_held": held,
                  "min_verdicts": OTHER_CARRY_MIN_VERDICTS},
        fix="Call zero_grad() on that optimizer before each of its backward passes (for "
            "several critic steps per generator step, inside the critic's loop, once per "
            "critic step).")


def in_frozen_part(ctx, layer):
    """Whether the dropout/batch-norm ``layer`` sits in a part that does not train: its own
    parameters are all frozen, or, having none, its parent's are. A frozen backbone put in
    eval mode to fine-tune a head on it, and a frozen batch norm, are meant to be in eval
    mode. Read from the parameter names: ``run.params`` (trainable when watch started, and
    held by the watched optimizer) and ``run.observed.frozen`` (frozen then)."""
    frozen = {t.name for t in observed_list(ctx, "frozen")}
    # a parameter the watched optimizer does not hold does not train either (a backbone left
    # out of the optimizer with requires_grad on, kept in eval mode: real-bug batch 188)
    trains = {p.name for p in ctx.run.params if p.trainable and p.in_optimizer is not False}
    known = frozen | {p.name for p in ctx.run.params}

    def owned_by(prefix):
        return [n for n in known if not prefix or n.startswith(prefix + ".")]
    own = [n for n in owned_by(layer) if n.rpartition(".")[0] == layer]
    deciding = own or owned_by(layer.rpartition(".")[0])
    return bool(deciding) and not any(n in trains for n in deciding)


EVAL_MIXED_MIN_STEPS = 3   # [design] steps whose update mixed an eval-mode backward into a
                           # train-mode one: three make a pattern, not a one-off


def eval_mode_micro_batches(ctx):
    """TRAINING_IN_EVAL_MODE from backward passes in eval mode accumulated into a step begun
    in train mode (``observed.eval_mode_accumulations``, real-bug batch 102): the records
    keep a step's first forward, in train mode, and never see the micro-batches after it."""
    rows = observed_list(ctx, "eval_mode_accumulations")
    if len(rows) < EVAL_MIXED_MIN_STEPS:
        return None
    steps = [row[0] for row in rows]
    layer, count = rows[0][1], rows[0][2]
    return Finding(
        code="TRAINING_IN_EVAL_MODE", severity="warning", where=layer, step=steps[0],
        message=f"On {len(rows)} steps (first at step {steps[0]}) a backward pass ran while "
                f"{count} dropout/batch-norm layer(s) were in eval mode ({layer}...) and added "
                "its gradient to the same step's train-mode gradient: some micro-batches of "
                "each update are trained with dropout off and batch norm using its running "
                "statistics. Something between the backward passes (a metrics or logging "
                "helper calling model.eval()) switches the mode and only the start of the "
                "batch switches it back.",
        evidence={"steps": steps[:20], "times": len(rows), "first_eval_layer": layer,
                  "eval_layers": count, "threshold_steps": EVAL_MIXED_MIN_STEPS},
        fix="Make the helper restore the mode it found (was = model.training; model.eval(); "
            "...; model.train(was)), or call model.train() before every micro-batch's "
            "forward pass.")


@rule(produces="TRAINING_IN_EVAL_MODE")
def training_in_eval_mode(ctx):
    """TRAINING_IN_EVAL_MODE: the model is trained while in eval mode, so dropout is off and batch
    norm uses (and never updates) its running statistics."""
    relevant = [r for r in ctx.records if r.backward]
    if not any(r.eval_layers for r in relevant):
        return eval_mode_micro_batches(ctx)
    in_eval = {layer for r in relevant for layer in r.eval_layers}
    frozen_parts = {layer for layer in in_eval if in_frozen_part(ctx, layer)}
    affected = [r for r in relevant if set(r.eval_layers) - frozen_parts]
    if not affected:
        return eval_mode_micro_batches(ctx)
    # from the first step trained in eval mode on (a loop may switch to eval after a while
    # and never back): most of those steps, and at least two of them
    since = [r for r in relevant if r.step >= affected[0].step]
    if len(affected) < MIN_RECORDS or len(affected) < MAJORITY * len(since):
        return eval_mode_micro_batches(ctx)
    layers = [layer for layer in affected[0].eval_layers if layer not in frozen_parts]
    return Finding(
        code="TRAINING_IN_EVAL_MODE", severity="warning", where=layers[0],
        step=affected[0].step,
        message=f"Backward ran while {len(layers)} dropout/batch-norm layer(s) were in eval mode "
                f"({short_list(layers)}): dropout is off and batch norm uses frozen running "
                "statistics, so the model is not trained the way it is meant to be.",
        evidence={"eval_layers": layers, "records_affected": len(affected),
                  "records_since": len(since), "records": len(relevant)},
        fix="Call model.train() before the training loop (and model.eval() only around "
            "evaluation, switching back afterwards).")


def _softmax_calls(ctx):
    """The judged calls of a loss that applies log-softmax itself, when every one of them (at
    least MIN_RECORDS) got non-negative rows summing to 1 along the class axis (axis 1, in
    any number of dimensions: a language model's (B, V, T) scores too)."""
    calls = judged_loss_calls(ctx, LOGIT_LOSSES)
    if len(calls) < MIN_RECORDS:
        return []
    for c in calls:
        if c.row_sum_error is None or not c.row_sum_error < ROW_SUM_TOLERANCE or \
                c.output_min is None or not c.output_min >= -1e-6:
            return []
    return calls


def _double_softmax_from_loss_calls(ctx):
    """DOUBLE_SOFTMAX read off the loss calls: the model output the rule below reads is kept
    for 2-D outputs only, so a sequence model's softmax over its vocabulary, (B, T, V),
    transposed for the loss, is seen here."""
    calls = _softmax_calls(ctx)
    if not calls:
        return None
    softmax_layers = [layer.name for layer in ctx.run.layers if layer.kind == "softmax"]
    shape = calls[0].output_shape
    return Finding(
        code="DOUBLE_SOFTMAX", severity="error",
        where=softmax_layers[-1] if softmax_layers else calls[0].loss, step=calls[0].step,
        message=f"{calls[0].loss} applies log-softmax to its input, and on every one of "
                f"{len(calls)} recorded calls that input was already probabilities: "
                "non-negative, summing to 1 along the class axis"
                f"{f' (shape {tuple(shape)})' if shape else ''}. Softmax is applied twice: "
                "the scores the loss sees differ by less than 1, gradients are squashed and "
                "the loss cannot get near 0.",
        evidence={"loss": calls[0].loss, "calls": len(calls), "input_shape": shape,
                  "row_sum_error": max(c.row_sum_error for c in calls)},
        fix="Remove the softmax from the model's output and give raw logits to the "
            "cross-entropy (it applies log-softmax itself); use softmax only for predictions.")


@rule(produces="DOUBLE_SOFTMAX", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def double_softmax(ctx):
    """DOUBLE_SOFTMAX: probabilities (rows already summing to 1) fed to a loss that applies a
    softmax itself."""
    policy = _policy_of_probabilities(ctx)
    if policy is not None:
        return policy
    if ctx.classes is None or not any(r.output is not None and r.output.ndim == 2
                                      for r in ctx.records):
        return _double_softmax_from_loss_calls(ctx)
    probs, in_band, first = 0, 0, None
    for r in ctx.records:
        out = r.output
        if out is None or out.ndim != 2 or out.shape[1] < 2 or out.shape[0] == 0 or \
                not out.min() >= -1e-6 or not np.all(np.isfinite(out)):
            continue        # a negative minimum (logits) first: cheaper, and NaN fails it too
        is_prob = np.max(np.abs(out.sum(axis=1) - 1)) < 1e-3
        if not is_prob:
            continue
        probs += 1
        loss = ctx.loss_by_step.get(r.step)
        if loss is None or not np.isfinite(loss):
            continue
        lse = np.log(np.exp(out).sum(axis=1))
        low, high = np.mean(lse - out.max(axis=1)), np.mean(lse - out.min(axis=1))
        slack = 0.02 * max(abs(low), 1.0)
        if low - slack <= loss <= high + slack and high - low > 1e-3:
            in_band += 1
            first = first or (r.step, float(low), float(high), float(loss))
    records = sum(1 for r in ctx.records if r.output is not None)
    if records == 0 or probs < MAJORITY * records or probs < 1:
        return None
    softmax_layers = [layer.name for layer in ctx.run.layers if layer.kind == "softmax"]
    where = softmax_layers[-1] if softmax_layers else ""
    # the loss calls the monitor saw: probabilities given to NLLLoss after a log (or to
    # BCELoss) are what those losses expect; near chance their loss also lies in the band
    # below, so the band alone would blame them
    seen = {c.loss for c in observed_list(ctx, "loss_calls")}
    expects_probabilities = bool(seen & PROBABILITY_LOSSES) and not seen & LOGIT_LOSSES
    if in_band >= max(1, MAJORITY * probs) and first is not None and not expects_probabilities:
        step, low, high, loss = first
        return Finding(
            code="DOUBLE_SOFTMAX", severity="error", where=where, step=step,
            message="The model outputs probabilities (rows are non-negative and sum to 1) and "
                    f"the loss treats them as logits (loss {loss:.3f} lies in [{low:.3f}, "
                    f"{high:.3f}], the range cross-entropy takes on probabilities): softmax is "
                    "applied twice, gradients are squashed and the loss cannot get near 0.",
            evidence={"loss": loss, "band_low": low, "band_high": high,
                      "records_with_probabilities": probs, "records_in_band": in_band,
                      "classes": ctx.classes},
            fix="Remove the final Softmax layer and give raw logits to CrossEntropyLoss (it "
                "applies log-softmax itself); use softmax only for predictions.")
    # (real-bug batch 252) the loss the loop reports is not one cross-entropy call when it
    # sums several per step - a decoder unrolled token by token adds one call per target
    # position - so it lies far above the band; the calls themselves still show it
    from_calls = _double_softmax_from_loss_calls(ctx)
    if from_calls is not None and not expects_probabilities:
        return from_calls
    return Finding(
        code="DOUBLE_SOFTMAX", severity="info", where=where, step=None,
        message="The model outputs probabilities; that is right only if the loss expects "
                "probabilities (NLLLoss after log, BCELoss), not logits (CrossEntropyLoss).",
        evidence={"records_with_probabilities": probs, "classes": ctx.classes},
        fix="If the loss is CrossEntropyLoss, remove the final softmax.")


def _policy_of_probabilities(ctx):
    """(real-bug batch 124) DOUBLE_SOFTMAX from a policy's graph: its log-probability was
    normalised from a softmax's output (``Categorical(logits=probs)``,
    ``run.observed.softmax_read_as_logits``). The policy surrogate's loss has no level to
    compare with the probability band, so the graph is the evidence."""
    steps = [int(row[0]) for row in observed_list(ctx, "softmax_read_as_logits")]
    if not steps:
        return None
    softmax_layers = [layer.name for layer in ctx.run.layers if layer.kind == "softmax"]
    return Finding(
        code="DOUBLE_SOFTMAX", severity="error",
        where=softmax_layers[-1] if softmax_layers else "", step=steps[0],
        message="The policy's log-probabilities are normalised from a softmax's output: "
                "probabilities in [0, 1] are read as logits (Categorical(logits=probs)), so the "
                "distribution sampled is squashed towards uniform (two actions with "
                "probabilities 0.9 and 0.1 are drawn 0.69 / 0.31) and the policy acts nearly "
                f"at random whatever it learns (steps {steps[:5]}).",
        evidence={"steps": steps[:10]},
        fix="Give the distribution what it expects: Categorical(probs=softmax(x)), or "
            "Categorical(logits=x) with the raw scores and no softmax.")


def loss_without_graph(ctx):
    """NO_GRADIENT when the loss required a gradient but had no graph behind it on the
    measured steps (``run.observed.leaf_losses``) and no parameter received one: its
    requires_grad was set by hand to silence "element 0 of tensors does not require grad",
    so backward runs and trains nothing."""
    steps = sorted(observed_list(ctx, "leaf_losses"))
    if len(steps) < MIN_RECORDS or any(r.backward for r in ctx.records if r.step in steps):
        return None
    return Finding(
        code="NO_GRADIENT", severity="error", where="", step=steps[0],
        message="The loss has no graph behind it (it requires a gradient, yet it was not "
                "computed from any parameter): backward() runs, but no parameter receives a "
                "gradient and nothing is trained. requires_grad was set on the loss by hand, "
                "which silences 'element 0 of tensors does not require grad' without fixing "
                "its cause.",
        evidence={"steps": steps[:10]},
        fix="Remove loss.requires_grad = True and find where the graph is cut: a forward under "
            "torch.no_grad(), .detach()/.item()/.numpy() or torch.tensor(...) on the way to "
            "the loss, or parameters frozen with requires_grad=False.")


def never_backpropagated(ctx):
    """NO_GRADIENT when step() was called with a loss on every recorded step, yet no
    backward pass delivered a gradient on any of them and no weight ever changed: the
    loss is computed and logged but never backpropagated (a Lightning-style training_step
    that logs its loss without returning it, so the trainer skips the batch; a backward
    behind a condition that is never true). Unchanged weights are required too, within
    each recorded step and from the first record to the last, so neither a framework whose
    gradient hooks stay silent nor a loop that steps only between records can trip it."""
    records = ctx.records
    if not ctx.run.params or len(records) < MIN_RECORDS or len(ctx.losses) < MIN_RECORDS or \
            any(r.backward for r in records):
        return None
    updates = [r.update_norm for r in records[1:] if r.update_norm is not None]
    if len(updates) < MIN_RECORDS - 1 or not all(
            np.all(np.asarray(u, float) == 0) for u in updates):
        return None
    # nor between the records: a loop that steps only on unrecorded steps changes weights
    weights = [np.asarray(r.param_norm, float) for r in records if r.param_norm is not None]
    if len(weights) < 2 or weights[0].shape != weights[-1].shape or \
            not np.array_equal(weights[0], weights[-1]):
        return None
    return Finding(
        code="NO_GRADIENT", severity="error", where="", step=records[0].step,
        message=f"No backward pass reached the parameters on any of {len(records)} recorded "
                "steps and no weight ever changed, although a loss was passed to step() each "
                "time: the loss is computed (and logged) but never backpropagated, so nothing "
                "trains. A training_step that logs its loss without returning it makes a "
                "trainer skip every batch; a loss.backward() behind a condition that is never "
                "true does the same.",
        evidence={"records": len(records), "losses": len(ctx.losses)},
        fix="Return the loss from training_step (or call loss.backward() and optimizer.step() "
            "in your loop on every batch).")


def zeroed_gradient(ctx, records, received):
    """NO_GRADIENT when parameters receive a gradient on every recorded step and it is
    exactly zero every time: something between them and the loss multiplies by zero (a
    Dropout built with p=1, the keep probability of TensorFlow passed as PyTorch's drop
    probability; a mask or gate of zeros). Layers whose ReLUs all went dead get exactly
    zero too: DEAD_RELU names that, so a run with a fully dead ReLU layer is left to it."""
    run = ctx.run
    width = received.shape[1]
    if any(stats.get("dead", 0.0) >= 1.0 for r in records for stats in r.activations.values()):
        return None
    measured = [per_parameter(r, "grad_norm", width) for r in records]
    if any(g is None for g in measured):
        return None
    grads = np.vstack([np.asarray(g, float) for g in measured])
    # whole columns at once (one NumPy call per test, not one per parameter)
    zeroed = np.flatnonzero(received.all(axis=0) & (grads == 0).all(axis=0)).tolist()
    zeroed = _not_trained_between_records(ctx, records, zeroed, width)
    if not zeroed or _shift_blind_biases(run, zeroed, grads, received):
        return None
    zeroed_names = names(run, zeroed)
    # (real-bug batch 82) factors of one product that all started at zero (a LoRA's A and
    # B): each one's gradient is the others' values, zero, so none ever moves
    zero_start = {row[0] for row in getattr(run.observed, "zero_start_parameters", None) or []}
    started_zero = [n for n in zeroed_names if n in zero_start]
    factors = len(started_zero) >= 2 and 2 * len(started_zero) >= len(zeroed_names)
    empty = _empty_weights(run, zeroed)
    return Finding(
        code="NO_GRADIENT", severity="warning", where=", ".join(modules(zeroed_names)),
        step=records[0].step,
        message=f"{len(zeroed)} parameter tensor(s) receive a gradient of exactly zero at every "
                f"recorded step ({short_list(zeroed_names)}): they never learn. " + (
                    f"{len(started_zero)} of them started all zero "
                    f"({short_list(started_zero)}): factors multiplied together that all "
                    "start at zero (a LoRA adapter's A and B) give each other a gradient of "
                    "zero forever. " if factors else "") + (
                    f"{short_list([f'{n} {tuple(shape)}' for n, shape in empty])} "
                    "hold no elements: a layer built for 0 input features reads an empty "
                    "slice, and outputs its bias alone, the same for every sample (a width "
                    "computed as a difference of two sizes that came out 0). "
                    if empty else "") + "Something "
                "between them and the loss multiplies by zero: a Dropout whose p is 1 (a keep "
                "probability passed as PyTorch's drop probability), a mask or gate of zeros, "
                "a multiplication by a constant 0, or a step function (torch.sign, "
                "torch.round, floor) whose gradient is zero everywhere.",
        evidence={"parameters": zeroed_names, "records": len(records), "exactly_zero": True,
                  "started_zero": started_zero, "empty": [n for n, _ in empty]},
        fix=("Start one factor of each product at random (LoRA: A random, B zero), and check "
             "that no init routine run after the adapters were added zeroes both; " if factors
             else "") +
            "Find the layer after them whose output is all zeros while training: "
            "nn.Dropout(p) takes the probability of DROPPING (p = 1 - keep_prob); a mask "
            "must be 1 where values are kept; a hard threshold or rounding needs a "
            "straight-through or sigmoid surrogate to pass a gradient.")


def _empty_weights(run, indices):
    """[(name, shape)] of the parameters among ``indices`` that hold no elements (a
    Linear(0, n)'s weight: real-bug batch 347, TabNet's attentive layers given a zero-width
    split when feature_dim equals output_dim)."""
    return [(run.params[i].name, run.params[i].shape) for i in indices
            if 0 in tuple(run.params[i].shape)]


def _shift_blind_biases(run, zeroed, grads, received):
    """Whether every tensor with an exactly-zero gradient is a bias whose own layer's weight
    receives a non-zero gradient on a recorded step. The weight's gradient is the sum of
    delta x input over the batch, the bias's the sum of delta alone: the bias alone exactly
    0 means the deltas cancel over the batch by construction - a loss that reads those
    outputs only through differences (a siamese net's pair distance, a ranking margin, a
    WGAN critic) is blind to a constant added to them. A mask or a Dropout of zeros after
    the layer zeroes its weight's gradient too; one before it leaves the bias learning.
    (A WGAN critic's one-unit output bias, real-bug batch 56; core variants 5: a siamese
    contrastive net's last bias, exactly 0 on every step.)"""
    index = {p.name: i for i, p in enumerate(run.params)}
    for i in zeroed:
        name = run.params[i].name
        if not name.endswith("bias"):
            return False
        weight = index.get(name[:-len("bias")] + "weight")
        if weight is None or not received[:, weight].all() or not (grads[:, weight] > 0).any():
            return False
    return True


@rule(produces="NO_GRADIENT", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def no_gradient(ctx):
    """NO_GRADIENT: trainable parameters whose gradient is exactly zero on every recorded step: no
    loss reaches them."""
    cut = loss_without_graph(ctx) or never_backpropagated(ctx)
    if cut is not None:
        return cut
    run = ctx.run
    width = len(run.params)
    records = [r for r in ctx.records
               if r.backward and per_parameter(r, "grad_received", width) is not None]
    if len(records) < MIN_RECORDS or width == 0:
        return None
    received = np.vstack([np.asarray(r.grad_received, bool) for r in records])
    never = np.flatnonzero(~received.any(axis=0)).tolist()    # whole columns at once
    if not never:
        return zeroed_gradient(ctx, records, received)
    never = _not_trained_between_records(ctx, records, never, width)
    if not never:
        return None
    never_names = names(run, never)
    later = [i for i in range(width) if i > max(never) and received[:, i].any()]
    detached = bool(later) and never == list(range(len(never)))
    if detached:
        message = (f"Parameters before {run.params[later[0]].name} receive no gradient at all "
                   f"({short_list(never_names)}): the graph is cut between them and the loss "
                   "(a .detach(), .data, .item(), a NumPy round trip or torch.no_grad()).")
        fix = ("Remove the .detach()/.data/.numpy() (or no_grad block) in the forward pass "
               f"after {modules(never_names)[-1] or 'the first layers'}; compute everything the "
               "loss depends on with tensor operations.")
    else:
        message = (f"{len(never)} trainable parameter tensor(s) receive no gradient at all "
                   f"({short_list(never_names)}): they are not used by the loss, or their "
                   "output is detached from the graph.")
        fix = ("Check that these layers are used in forward() and that nothing detaches their "
               "output; if they are meant to stay fixed, set requires_grad=False.")
    return Finding(code="NO_GRADIENT", severity="warning", where=", ".join(modules(never_names)),
                   step=records[0].step, message=message,
                   evidence={"parameters": never_names, "records": len(records)}, fix=fix)


GREW = 1e-5     # [design] relative growth of a tensor's weight norm that is training, not
                # float rounding (norms of the same weights agree to ~1e-7 in float32)


def _norm_histories(ctx, records, indices, width):
    """{index: the finite weight norms of parameter ``index``}, read once for all of
    ``indices``: on each record in order, then when findings were asked
    (``run.observed.norms_at_findings``)."""
    wanted = set(indices)
    histories = {i: [] for i in indices}
    for r in records:
        norms = per_parameter(r, "param_norm", width)
        if norms is not None:
            for i in indices:
                histories[i].append(float(norms[i]))
    for index, norm in observed_list(ctx, "norms_at_findings"):
        if index in wanted:
            histories[index].append(float(norm))
    return {i: [v for v in norms if np.isfinite(v)] for i, norms in histories.items()}


def _norm_grew(norms):
    """(real-bug batch 325) Whether a weight norm grew after the first record: weights that
    grew were trained on steps no judged record saw (a continual learner's last task head,
    used on the last fifth of the run), so they did get gradients. Growth only: weight decay
    moves a tensor without a gradient too, but only ever shrinks it."""
    return len(norms) >= 2 and max(norms[1:]) > norms[0] * (1 + GREW)


def _norm_changed(norms):
    """Whether a weight norm moved at all after the first record, up or down."""
    return len(norms) >= 2 and max(abs(v - norms[0]) for v in norms[1:]) > GREW * abs(norms[0])


def _not_trained_between_records(ctx, records, indices, width):
    """``indices`` less the tensors trained between the judged records: those whose norm
    grew (``_norm_grew``), and those that moved at all in a module where one did. A layer's
    weight and bias are trained together, and a trained bias may shrink (batch 325's late
    head: its weight grew 1.81 -> 2.86, its bias went 0.213 -> 0.206); a bias the forward
    never uses keeps its value exactly, beside a weight that trains."""
    if not indices:
        return indices
    history = _norm_histories(ctx, records, indices, width)
    module = {i: ctx.run.params[i].name.rpartition(".")[0] for i in indices}
    grew = {i for i in indices if _norm_grew(history[i])}
    trained_modules = {module[i] for i in grew}
    return [i for i in indices if i not in grew and not (
        module[i] in trained_modules and _norm_changed(history[i]))]


FLOAT32_RESOLUTION = 2.0 ** -24  # [design] the smallest relative change a float32 weight shows
MOMENTUM_GAIN = 10.0             # [design] momentum 0.9 makes a steady step up to 10x longer


def _visible_gradients(records, width):
    """(records, params) bool: a gradient arrived that an optimizer step could make visible
    in float32. A gradient millions of times smaller than its weight (a conv bias right
    before batch norm, whose mean the norm removes) moves nothing at the recorded learning
    rate: no change there is no bug."""
    grad = np.nan_to_num(np.vstack([np.asarray(r.grad_norm, float) for r in records]))
    arrived = np.vstack([np.asarray(r.grad_received, bool) for r in records]) & (grad > 0)
    rows, lrs, weights = [], [], []       # the records that know their weights and LR
    for row, r in enumerate(records):
        weight = per_parameter(r, "param_norm", width)
        if r.lrs and weight is not None:
            rows.append(row)
            lrs.append(max(r.lrs))
            weights.append(np.asarray(weight, float))
    if rows:
        arrived[rows] &= grad[rows] * np.array(lrs)[:, None] * MOMENTUM_GAIN > \
            FLOAT32_RESOLUTION * np.nan_to_num(np.vstack(weights))
    return arrived


@rule(produces="PARAMS_NOT_UPDATING", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def params_not_updating(ctx):
    """PARAMS_NOT_UPDATING: parameters that get gradients but do not change: the optimizer does
    not hold them or never steps."""
    run = ctx.run
    width = len(run.params)
    records = [r for r in ctx.records if r.backward and all(
        per_parameter(r, a, width) is not None
        for a in ("update_norm", "grad_received", "grad_norm"))]
    if len(records) < MIN_RECORDS or width == 0:
        return None
    upd = np.vstack([np.asarray(r.update_norm, float) for r in records])
    if not (upd == 0).any():
        return None         # a stuck tensor has an update of exactly 0 where it got a gradient
    got = _visible_gradients(records, width)
    in_optimizer = np.array([p.in_optimizer is not False for p in run.params], bool)
    # received a visible gradient at some record, and never changed where it did
    stuck = np.flatnonzero(got.any(axis=0) & ((upd == 0) | ~got).all(axis=0) &
                           in_optimizer).tolist()
    if not stuck:
        return None
    stuck_names = names(run, stuck)
    lrs = [lr for r in records for lr in r.lrs]
    held = np.vstack([per_parameter(r, "held_norm", width) if per_parameter(r, "held_norm", width)
                      is not None else np.full(width, np.nan) for r in records])[:, stuck]
    cleared = np.all(~np.isfinite(held) | (held == 0))
    if cleared and len(stuck) < width and only_other_turns(ctx, records, got[:, stuck]):
        return None
    if lrs and max(lrs) == 0:
        message, fix = ("The learning rate is 0, so the weights never change.",
                        "Set a positive learning rate (check schedulers that multiply it to 0).")
    elif cleared:
        message = ("Gradients flow in backward, but .grad is empty (None or zero) when "
                   "optimizer.step() runs and the weights never change: zero_grad() is called "
                   "between loss.backward() and optimizer.step().")
        fix = "Order the loop as zero_grad() -> forward -> loss.backward() -> optimizer.step()."
    else:
        message = (f"{len(stuck)} parameter tensor(s) receive gradients but never change "
                   f"({short_list(stuck_names)}): optimizer.step() is not called, or the "
                   "optimizer holds other tensors (e.g. a copy of the model made after it was "
                   "built).")
        fix = ("Call optimizer.step() after loss.backward(), with an optimizer built from this "
               "model's parameters; pass optimizer= to watch() so nndebug can check.")
    everything = len(stuck) == width
    return Finding(
        code="PARAMS_NOT_UPDATING", severity="error" if everything else "warning",
        where="" if everything else ", ".join(modules(stuck_names)), step=records[0].step,
        message=message,
        evidence={"parameters": stuck_names, "records": len(records),
                  "grad_cleared_before_step": bool(cleared),
                  "learning_rates": sorted(set(lrs))[:5]},
        fix=fix)

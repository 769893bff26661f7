"""Rules about where the signal stops flowing: saturated tanh/sigmoid units, vanishing
gradients, dead ReLUs, activations that no longer depend on the input.

These are symptoms more often than causes. They are warnings only when learning is actually
poor (``curve.learning_poor``; AUTOTRAINER and DeepDiagnosis report such symptoms only
together with a failing training signal), otherwise "info".
"""
import numpy as np

from ..findings import Finding
from .context import MAJORITY, MIN_RECORDS, last_level, module_of, names, rms
from .curve import adversarial_turns, learning_poor
from .graph import rule

SATURATED_FRACTION = 0.5      # share of tanh/sigmoid outputs pinned at their limits [measured]
                              # (the monitor measures "pinned": nndebug/monitor/statistics.py)
SATURATION_EARLY_RECORDS = 3  # [design] records (steps 0, 1, 2) that tell saturation from the
                              # start or from a first blow-up (zoo saturated-tanh: 0.58 at step
                              # 0; a target 2700 away: 1.0 from step 1) from saturation grown
                              # over healthy training (a 64-5-5-1 tanh regressor using its 5
                              # units as switches: 0.04 at step 2, 0.8 by step 32, learning well)
VANISHING_RATIO = 1e-3        # first/last layer relative gradient norm [deepdiag] ("vanishing
                              # gradient" compares gradients across layers); [measured] value
VANISHING_RATIO_STEADY = 1e-2  # [measured] the same ratio where the gradient shrinks layer by
                              # layer through a deep stack (below): twelve tanh layers at torch's
                              # default init, stuck at chance, 2.4e-3; their Xavier-init twin 2.0;
                              # one odd layer (a large embedding table) cannot give a steady fall
STEADY_MIN_TENSORS = 6        # [design] weight tensors along the depth before a fall counts as
                              # layer-by-layer (a product of per-layer factors below 1)
STEADY_SHARE = 0.8            # [design] share of adjacent weight tensors whose relative gradient
                              # is smaller in the earlier one
STEADY_LARGEST_STEP = 0.5     # [design] ... and no single step between neighbours carries more
                              # than half of the whole fall (on a log scale): one odd layer is
                              # no layer-by-layer fall
DEAD_FRACTION = 0.5           # [measured] share of a ReLU layer's units dead for the whole batch;
                              # the [lesson] counted zero *values* (~50% after ReLU is normal);
                              # a unit zero for every sample of the batch is the real symptom
DEAD_PERSISTENCE = 3          # [measured] ... in each of 3 recorded batches (a rarely firing unit is
                              # zero for a whole small batch by chance, not three times)
DEAD_FRACTION_SEVERE = 0.9    # [design] nearly the whole layer dead: an error when learning is poor
# layers that hand their input on unchanged (the model's output layer is the last other one)
OUTPUT_PASS_THROUGH = {"Dropout", "Identity", "Flatten", "Unflatten"}
FLOORED_ROWS = 0.1            # [design] samples whose class scores tie exactly at one floor (a ReLU
                              # on the logits): distinct float scores never tie, so a tenth of the
                              # batch on most recorded calls is far above chance (a zero-initialised
                              # output layer ties every row at step 0 only)
COLLAPSED_SPREAD = 1e-4       # [measured] spread across samples (or units) relative to the layer's scale:
                              # below it every sample (unit) gives the same value [measured]


@rule(produces="SATURATED_ACTIVATIONS", reads={"TARGETS_OUTSIDE_OUTPUT_RANGE"},
      explains={"VANISHING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def saturated_activations(ctx):
    """SATURATED_ACTIVATIONS: tanh or sigmoid units stuck at their flat ends, where their gradient
    is almost zero."""
    # a last layer pushed to its bound by targets beyond its range saturates because of them:
    # that cause is named already, and this symptom's fix (scale the inputs, smaller
    # weights) would not help
    explained = ctx.found.get("TARGETS_OUTSIDE_OUTPUT_RANGE")
    worst = None
    for layer in ctx.run.layers:
        if layer.kind not in ("tanh", "sigmoid") or \
                (explained is not None and layer.name == explained.where):
            continue
        steps, sat = ctx.run.layer_series(layer.name, "saturated")
        keep = steps < ctx.cutoff if ctx.cutoff is not None else np.ones(len(steps), bool)
        sat = sat[keep]
        if sat.size == 0:
            continue
        typical = float(np.median(sat))
        if typical >= SATURATED_FRACTION and (worst is None or typical > worst[1]):
            worst = (layer.name, typical, int(steps[keep][0]))
    if worst is None:
        return None
    poor = learning_poor(ctx)
    # (real-bug batch 187) one side of a GAN has a loss that never falls by design, so
    # "poor" says nothing there; a generator's sigmoid pixels that saturate as they learn
    # the digits' empty background grew so, like a small tanh net's switches
    grown = (not poor or adversarial_turns(ctx)) and _saturation_grew(ctx, worst[0])
    return Finding(
        code="SATURATED_ACTIVATIONS", severity="info" if grown else "warning",
        where=worst[0], step=worst[2],
        message=f"{worst[1]:.0%} of the outputs of {worst[0]} sit at the flat ends of the "
                "tanh/sigmoid, where the derivative is ~0: the layers before it barely learn" +
                (" (they saturated gradually as training went on)." if grown else
                 " and the loss is not improving." if poor else
                 " (the layers after it still can, so the loss may fall for a while)."),
        evidence={"saturated_share": worst[1], "threshold": SATURATED_FRACTION},
        fix="Scale the inputs to unit variance, use Glorot/Xavier initialisation (smaller "
            "weights), or switch hidden activations to ReLU/GELU.")


def _saturation_grew(ctx, name):
    """The layer was below the saturated share on its first recorded steps: its units
    saturated gradually while the loss kept improving, as a small tanh net's units become
    switches. Saturated from the start or from a first blow-up, they are the problem."""
    steps, sat = ctx.run.layer_series(name, "saturated")
    early = sat[:SATURATION_EARLY_RECORDS]
    return len(early) == SATURATION_EARLY_RECORDS and bool(np.all(early < SATURATED_FRACTION))


@rule(produces="VANISHING_GRADIENTS", reads={"SATURATED_ACTIVATIONS", "LOSS_DIVERGING"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def vanishing_gradients(ctx):
    """VANISHING_GRADIENTS: the gradients shrink by orders of magnitude from the last layers to
    the first, so the first layers barely learn."""
    profile = ctx.layer_grad_profile()
    if profile is None:
        return None
    ratio = float(profile[0]) / last_level(ctx, profile)
    if not (ratio < VANISHING_RATIO or ratio < VANISHING_RATIO_STEADY and _steady_fall(profile)):
        return None
    weight_names = names(ctx.run, ctx.chain_weights)
    # vanishing gradients stall learning; they do not undo it: a loss that rose well above
    # its best has another cause, and the ratio is then no reason to warn
    rising = "LOSS_DIVERGING" in ctx.found
    poor = learning_poor(ctx) and not rising
    saturated = "SATURATED_ACTIVATIONS" in ctx.found
    return Finding(
        code="VANISHING_GRADIENTS", severity="warning" if poor else "info",
        where=module_of(weight_names[0]), step=ctx.first_step,
        message=f"The gradient reaching the first layer ({weight_names[0]}) is {ratio:.1e} times "
                "the last layer's (relative to weight size): the early layers barely learn" +
                (", while the loss is not improving." if poor else
                 "; the loss rose after its best, which vanishing gradients do not cause." if
                 rising else "; learning still progresses."),
        evidence={"first_over_last": ratio, "per_layer": dict(zip(weight_names, profile.tolist())),
                  "threshold": VANISHING_RATIO},
        fix=("Use ReLU-family activations instead of sigmoid/tanh in hidden layers, He/Kaiming "
             "initialisation, normalisation layers (BatchNorm/LayerNorm) or residual connections."
             if not saturated else "Fix the saturation first (smaller init, input scaling, ReLU)."))


def _steady_fall(profile):
    """The relative gradient falls layer by layer from the output back to the input through
    STEADY_MIN_TENSORS+ weight tensors (each earlier one smaller than the next in
    STEADY_SHARE of the pairs, no one step more than STEADY_LARGEST_STEP of the fall): what a
    product of per-layer factors below one gives (deep sigmoid/tanh stacks, small inits),
    not one odd layer."""
    if len(profile) < STEADY_MIN_TENSORS:
        return False
    steps = np.diff(np.log(profile))
    total = float(np.log(profile[-1] / profile[0]))
    return total > 0 and float(np.mean(steps > 0)) >= STEADY_SHARE and \
        float(np.max(steps)) <= STEADY_LARGEST_STEP * total


@rule(produces="DEAD_RELU", reads={"CONSTANT_INPUTS"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "COLLAPSED_ACTIVATIONS"})
def dead_relu(ctx):
    if "CONSTANT_INPUTS" in ctx.found:
        return None     # identical samples make every unit all-or-nothing: meaningless here
    worst, layers = None, {}
    for layer in ctx.run.layers:
        if layer.kind != "relu":
            continue
        masks = [(r.step, np.asarray(r.dead_units[layer.name], bool)) for r in ctx.records
                 if layer.name in r.dead_units]
        masks = [(step, m) for step, m in masks if m.size and m.shape == masks[-1][1].shape]
        if not masks:
            continue
        # a unit is dead when it is zero for every sample in each of several recorded
        # batches: a unit that merely fires rarely survives one of them
        k = min(DEAD_PERSISTENCE, len(masks))
        final = float(np.mean(np.logical_and.reduce([m for _, m in masks[-k:]])))
        born = float(np.mean(np.logical_and.reduce([m for _, m in masks[:k]])))
        layers[layer.name] = final
        if final >= DEAD_FRACTION and (worst is None or final > worst[1]):
            first_dead = next((step for step, m in masks if m.mean() >= DEAD_FRACTION),
                              masks[0][0])
            worst = (layer.name, final, born, first_dead)
    if worst is None:
        return _floored_logits(ctx)
    name, final, born, step = worst
    died_later = born < 0.5 * final
    poor = learning_poor(ctx)
    severe = final >= DEAD_FRACTION_SEVERE and poor
    output = _is_output_relu(ctx, name)
    # a symptom: a warning when learning is poor or nearly the whole layer is gone; dead
    # units of the model's output ReLU are outputs stuck at 0 (real-bug batch 105): a warning
    # even while the live outputs still learn
    severity = "error" if severe else \
        "warning" if poor or output or final >= DEAD_FRACTION_SEVERE else "info"
    if died_later:
        cause = ("they were alive at the start and died during training, which is what "
                 "too-large updates do (a learning rate too high, or exploding gradients)")
        fix = ("Lower the learning rate (nndebug.find_lr), add warm-up or gradient clipping; "
               "LeakyReLU/GELU cannot die; nndebug.revive_dead_neurons re-initialises dead units.")
    else:
        cause = ("they were dead from the first step: a large negative bias, a bad "
                 "initialisation or badly scaled inputs push every pre-activation below zero")
        fix = ("Initialise biases at 0 (or slightly positive) and weights with Kaiming/He init; "
               "standardise inputs; LeakyReLU/GELU cannot die; nndebug.revive_dead_neurons "
               "re-initialises dead units.")
    return Finding(
        code="DEAD_RELU", severity=severity, where=name, step=step,
        message=f"{final:.0%} of the units of {name} output zero for every sample of the batch "
                f"(no gradient passes through them); {cause}." + (
                    f" {name} is the model's output: those outputs are 0 for every input and "
                    "cannot learn (a final ReLU on a regression output)." if output else ""),
        evidence={"dead_share": final, "dead_share_first_record": born, "per_layer": layers,
                  "output_layer": output,
                  "died_during_training": bool(died_later), "threshold": DEAD_FRACTION},
        fix=fix)


def _is_output_relu(ctx, name):
    """Whether the ReLU ``name`` is the model's last layer that changes values (registration
    order): its dead units are the model's outputs, stuck at 0."""
    counted = [layer for layer in ctx.run.layers if layer.type not in OUTPUT_PASS_THROUGH]
    return bool(counted) and counted[-1].name == name and counted[-1].kind == "relu"


def _floored_logits(ctx):
    """DEAD_RELU for the class scores themselves: on most loss calls the monitor measured,
    many samples have several class scores tied exactly at one floor
    (``LossCall.floored_rows``: a ReLU or clamp on the logits, often a function call that no
    layer statistic sees). A floored class cannot score lower, and no gradient reaches it."""
    observed = getattr(ctx.run, "observed", None)
    calls = [c for c in getattr(observed, "loss_calls", None) or []
             if getattr(c, "floored_rows", None) is not None]
    floored = [c for c in calls if c.floored_rows >= FLOORED_ROWS]
    if len(floored) < MIN_RECORDS or len(floored) < MAJORITY * len(calls):
        return None
    share = float(np.median([c.floored_rows for c in floored]))
    return Finding(
        code="DEAD_RELU", severity="warning", where=floored[0].loss, step=floored[0].step,
        message=f"In {share:.0%} of the samples several class scores reaching "
                f"{floored[0].loss} sit exactly at the same floor: the logits pass through a "
                "ReLU (or a clamp) before the loss, so those scores are cut to zero and no "
                "gradient flows back through them.",
        evidence={"floored_rows": [round(c.floored_rows, 3) for c in calls][:20],
                  "floored_units": [c.floored_units for c in calls][:20],
                  "calls_floored": len(floored), "calls": len(calls),
                  "threshold_rows": FLOORED_ROWS},
        fix="Give the loss raw logits: remove the ReLU/clamp after the last linear layer "
            "(the loss applies its own softmax).")


@rule(produces="COLLAPSED_ACTIVATIONS", reads={"CONSTANT_INPUTS"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def collapsed_activations(ctx):
    """COLLAPSED_ACTIVATIONS: a layer gives (almost) the same output for every sample: what comes
    after it cannot tell the inputs apart."""
    if "CONSTANT_INPUTS" in ctx.found:
        return None
    found = None
    for layer in ctx.run.layers:
        across_units, across_batch, n = 0, 0, 0
        step = None
        for r in ctx.records:
            stats = r.activations.get(layer.name)
            if not stats or "batch_spread" not in stats or _after_dead_layer(ctx, r, layer.name):
                continue
            scale = rms(stats)
            if scale is None or not scale > 0 or \
                    (layer.kind == "relu" and stats.get("dead", 0) >= DEAD_FRACTION):
                continue
            n += 1
            # an embedding's rows repeat across the batch whenever its ids do (position or
            # token-type ids are the same for every sample by design): not a lost signal
            if stats["batch_spread"] <= COLLAPSED_SPREAD * scale and layer.type != "Embedding" \
                    and not _varies_at_a_later_call(r, layer.name):
                across_batch += 1
                step = r.step if step is None else step
            if "unit_spread" in stats and stats["unit_spread"] <= COLLAPSED_SPREAD * scale:
                across_units += 1
                step = r.step if step is None else step
        if n == 0:
            continue
        if across_batch >= max(1, MAJORITY * n):
            found = (layer.name, "batch", step, across_batch)
            break
        if across_units >= max(1, MAJORITY * n):
            found = (layer.name, "units", step, across_units)
            break
    if found is None:
        return None
    name, kind, step, seen = found
    if seen < MIN_RECORDS and not learning_poor(ctx):
        return None     # one look (a short run has one heavy record, at step 0) at a layer
                        # fed near-constant features by a tiny init (Instant-NGP's grids at
                        # +-1e-4, real-bug batch 184), in a run that then learned: transient
    if kind == "units":
        message = (f"All units of {name} output the same value (no spread across units): "
                   "they compute identical functions, usually because the weights were "
                   "initialised to one constant, and symmetric units stay symmetric.")
        fix = ("Initialise weights randomly (Kaiming/Glorot), never to a constant; only biases "
               "may start at 0.")
    else:
        message = (f"{name} gives the same activation for every sample of the batch: whatever "
                   "the input, the information is lost at this layer (zero or constant weights, "
                   "or a layer that ignores its input).")
        fix = "Check the initialisation of this layer and the ones before it (random, not zero)."
    return Finding(code="COLLAPSED_ACTIVATIONS", severity="warning", where=name, step=step,
                   message=message,
                   evidence={"layer": name, "spread": kind, "threshold": COLLAPSED_SPREAD},
                   fix=fix)


def _varies_at_a_later_call(record, name):
    """Whether a layer called several times in one forward pass (a recurrent cell's layers,
    unrolled in a loop) gave outputs that differ across the batch at a later call. Its first
    call alone may read the zero initial state by design; the verdict needs every call."""
    calls = 2
    while f"{name}#{calls}" in record.activations:
        stats = record.activations[f"{name}#{calls}"]
        scale = rms(stats) if stats else None
        if stats and "batch_spread" in stats and scale is not None and scale > 0 and \
                stats["batch_spread"] > COLLAPSED_SPREAD * scale:
            return True
        calls += 1
    return False


def _after_dead_layer(ctx, record, name):
    """Whether a ReLU layer before ``name`` was (almost) entirely dead in this record, or a
    layer before it output exactly zero everywhere: a layer initialised to zero on purpose (a
    hidden layer the next layer's random weights teach from the first update; real-bug batch
    80's notebook network) makes every layer after it constant across the batch at step 0,
    which is that zero's, not a lost signal (a zero layer that never moves is NO_GRADIENT's)."""
    for layer in ctx.run.layers:
        if layer.name == name:
            return False
        stats = record.activations.get(layer.name, {})
        if layer.kind == "relu" and stats.get("dead", 0) >= DEAD_FRACTION_SEVERE:
            return True
        if stats and rms(stats) == 0:
            return True
    return False

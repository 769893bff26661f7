"""The shared view of a recorded run that every rule reads, computed once.

``Context`` cuts the run at the first non-finite step (everything after a NaN is a
consequence, so rules look before it), summarises the loss curve in windows, and names the
weight tensors and the number of classes. The helpers at the end turn parameter names and
numbers into the words of a finding's message.

Thresholds shared by several rule families live here; each family keeps its own.
"""
import functools
import math
import re

import numpy as np

from ..records import grads_finite, record_finite

MIN_STEPS_FOR_TREND = 30      # [design] fewer steps than this: no plateau/divergence verdicts
MIN_WINDOW = 5                # [design] steps per window when the curve is cut into windows
MAX_WINDOWS = 20              # [design] ... and at most 20 windows (medians of n/20 steps)
MIN_RECORDS = 2               # [design] verdicts on recorded statistics need at least 2 records
MAJORITY = 0.5                # [design] "persistently": in at least half of the relevant records
ROW_SUM_TOLERANCE = 1e-3      # [design] rows summing to 1 within this are probabilities
                              # (the tolerance DOUBLE_SOFTMAX uses on the model's output)
# log-probabilities given to an NLL loss, summed along its axes (monitor/log_prob_axes.py):
# read by rules/log_prob_axes.py (over the batch) and rules/class_axis.py (over a position)
NLL_LOSSES = {"NLLLoss", "nll_loss"}
LOG_PROBS_SUM_TO_ONE = 1e-3   # [measured] |sum of exp - 1| of a float32 softmax: 1e-7 over
                              # (32, 63, 32) inputs (batch 97's twin), below 1e-6 on batch
                              # 244's; 1e-3 leaves room for float16/bfloat16 rounding (2^-8
                              # per value, averaging out over C)
LOG_PROBS_MISS_ONE = 0.05     # [measured] the class-axis error of a softmax over another
                              # axis: 1.13 over the batch (batch 97's first step, rising),
                              # 0.8 or more over the width of 16x16 maps (batch 244); a
                              # log_softmax over the classes stays below 1e-6
LOG_SMOOTHING_SLACK = 0.01    # [design] log(p + eps) exceeds 0 by about eps: smoothing
                              # constants up to 1e-2 still pass as log-probabilities; a
                              # softmax's largest probability is at least 1/C (0.1 for 10
                              # classes), far above it
MIN_MEASURED_NLL_CALLS = 2    # [design] two measured calls agree before a finding is given
# losses that take class ids as targets (torch's class and functional names; minigrad's alike)
MC_MIN_PASSES = 5             # [design] one input passed this many times in a row with dropout
                              # on is Monte Carlo dropout done on purpose (the reproduced
                              # report's inference: 20 passes; other repeated evaluations of
                              # one input make 2-3, one forward per metric); 5 leaves room on
                              # both sides. Read by after_training.py and validation_inputs.py
SCALE_FREE_OPTIMIZERS = {"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad",
                         "Adadelta"}   # [torchadam] optimizers that divide each gradient by a
                         # running size of its own: multiplying the loss by k leaves their
                         # steps as they were (up to eps), so the gradient's scale is no step size
LOOKUP_TABLES = {"Embedding", "EmbeddingBag"}   # [design] layers whose rows are looked up by id
CLASS_INDEX_LOSSES = {"CrossEntropyLoss", "cross_entropy", "NLLLoss", "nll_loss"}
# losses that compare outputs with targets on the targets' own scale (regression)
REGRESSION_LOSSES = {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "mse_loss", "l1_loss",
                     "smooth_l1_loss", "huber_loss"}


class Context:
    """What every rule needs from the run. ``found`` holds the findings of the rules that
    ran before (``diagnose`` lets each rule see only the codes it declared in ``reads``)."""

    def __init__(self, run):
        self.run = run
        self.found = {}
        steps, losses = run.loss_array()
        self.loss_steps, self.losses = steps, losses
        bad = ~np.isfinite(losses)
        self.first_nan_step = int(steps[bad][0]) if bad.any() else None
        # everything after the first NaN anywhere is a consequence: rules look before it
        cut = self.first_nan_step
        # per record of the whole run: were its gradients finite? The NaN rules ask too
        # (nan_gradients, exploding_gradients), so it is worked out once, here
        self.grads_finite = [grads_finite(r) for r in run.records]
        for r, grads_ok in zip(run.records, self.grads_finite):
            if not record_finite(r, grads_ok):
                cut = r.step if cut is None else min(cut, r.step)
                break
        self.cutoff = cut
        keep = steps < cut if cut is not None else np.ones(len(steps), bool)
        self.curve = losses[keep & np.isfinite(losses)]
        self.curve_steps = steps[keep & np.isfinite(losses)]
        self.records = [r for r in run.records if cut is None or r.step < cut]
        self.all_records = run.records
        self.summary = curve_summary(self.curve)
        self.weights = [i for i, p in enumerate(run.params) if len(p.shape) >= 2]
        # the weights along the network's depth: lookup tables left out. A table's rows get a
        # gradient only for the ids in the batch, so its |grad| / |w| says how many rows the
        # batch used, not how much signal arrived (a 12-token vocabulary and a 50k one differ
        # by thousands for the same flow)
        tables = {layer.name for layer in run.layers if layer.type in LOOKUP_TABLES}
        self.depth_weights = [i for i in self.weights
                              if module_of(run.params[i].name) not in tables]
        # the weights of one chain from the input to an output: the depth weights, or the
        # first sub-network's alone when another one sits beside it (one_chain)
        self.chain_weights = one_chain(run, self.depth_weights)
        self.classes = output_classes(run)
        self.cache = {}       # verdicts several rules ask for (loss_curve.learning_poor)
        self._computed = {}   # matrices and profiles several rules ask for, computed once

    @functools.cached_property
    def loss_by_step(self):
        """{step: loss} over the whole curve; built when a rule first asks (few do)."""
        return dict(zip(self.loss_steps.tolist(), self.losses.tolist()))

    @property
    def enough_steps(self):
        return len(self.curve) >= MIN_STEPS_FOR_TREND

    @property
    def first_step(self):
        """The first recorded step the rules look at, or None without records."""
        return self.records[0].step if self.records else None

    def _once(self, key, compute):
        """``compute()``, run once per diagnosis; each caller gets its own copy of an array
        (a rule may change what it was given without changing what the next rule sees)."""
        if key not in self._computed:
            self._computed[key] = compute()
        value = self._computed[key]
        return value.copy() if isinstance(value, np.ndarray) else value

    def matrix(self, attribute):
        """``RunRecord.matrix`` over the records before the first non-finite step."""
        return self._once(("matrix", attribute),
                          lambda: self.run.matrix(attribute, self.records))

    def ratios(self):
        """(records, weight tensors) update/weight ratios, NaN where not measured; always
        cut down to the weight tensors, also when there are no records."""
        return self._once("ratios", self._ratios)

    def _ratios(self):
        upd = self.matrix("update_norm")
        norm = self.matrix("param_norm")
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = upd / np.where(norm > 0, norm, np.nan)
        return ratio[:, self.weights]

    def layer_grad_profile(self):
        """Per weight tensor along the depth (``chain_weights``, definition order): median
        of |grad| / |w| over the records; None with fewer than two such tensors or a tensor
        never measured."""
        return self._once("layer_grad_profile", self._layer_grad_profile)

    def _layer_grad_profile(self):
        g = self.matrix("grad_norm")
        w = self.matrix("param_norm")
        if g.size == 0 or len(self.chain_weights) < 2:
            return None
        with np.errstate(all="ignore"):
            rel = g / np.where(w > 0, w, np.nan)
            rel = rel[:, self.chain_weights]
            rel = np.where(np.isfinite(rel) & (rel > 0), rel, np.nan)
            if not np.isfinite(rel).any(axis=0).all():
                return None
            return nanmedian_columns(rel)


def last_level(ctx, profile):
    """The depth profile's last value (``Context.layer_grad_profile``), or the median over
    its trailing parallel heads: weights of one list of sibling modules (``heads.0.weight``
    ... ``heads.5.weight``, one head per decision or task), which sit side by side at the
    end of the chain rather than one after another. One saturated head among six (an
    architecture controller's last decision, its softmax sure) had a relative gradient of
    4e-8 where its siblings had 7e-5 to 3e-2, and the first layer's 8e-3 read as 2e5 times the
    last layer's: exploding gradients on a healthy run (real-bug batch 200, seeds + 1000)."""
    params = [ctx.run.params[i] for i in ctx.chain_weights]
    last = PARALLEL_HEAD.match(params[-1].name) if params else None
    shape = tuple(params[-1].shape) if params else ()
    # siblings of one shape that cannot feed one another (outputs not as wide as inputs):
    # an nn.Sequential's "net.0.weight", "net.2.weight" are a chain, not heads
    if last is None or len(shape) != 2 or shape[0] == shape[1]:
        return float(profile[-1])
    k = 1
    while k < len(params) - 1:
        other = PARALLEL_HEAD.match(params[-1 - k].name)
        if other is None or other.group(1) != last.group(1) or \
                other.group(3) != last.group(3) or tuple(params[-1 - k].shape) != shape:
            break
        k += 1
    return float(np.median(profile[-k:])) if k >= 2 else float(profile[-1])


PARALLEL_HEAD = re.compile(r"^(.*)\.(\d+)\.([A-Za-z_]+)$")   # "<list>.<index>.<tensor>"


def one_chain(run, weights):
    """(real-bug batch 124) ``weights`` (definition order), or only those of the first
    top-level sub-network when the last weight belongs to another sub-network that reads the
    model's input beside it instead of the first one's output: an actor and a critic kept
    side by side in one module (``forward`` returns ``actor(x), critic(x)``). The depth
    profile's first and last tensors then lie on two different chains, and an actor's first
    layer compared with the critic's value head (a regression on raw returns, gradients 3,700
    times larger: a healthy PPO on the cart-pole) read as vanishing gradients. Side by side:
    the other sub-network's first weight takes as many inputs as the model's first weight
    and not as many as the first sub-network's last weight gives out; a chain of equal widths
    (a deep 64-64-64 MLP, blocks of one width) stays one chain."""
    if len(weights) < 4:
        return weights
    parts = [run.params[i].name.split(".") for i in weights]
    common = 0
    while all(len(p) > common + 2 for p in parts) and \
            len({p[common] for p in parts}) == 1:
        common += 1                  # a wrapper's prefix ("model.actor.0.weight")
    branch = [p[common] if len(p) > common + 1 else None for p in parts]
    if branch[0] is None or branch[-1] is None or branch[0] == branch[-1]:
        return weights
    own = [i for i, b in zip(weights, branch) if b == branch[0]]
    other = [i for i, b in zip(weights, branch) if b == branch[-1]]
    shapes = [tuple(run.params[i].shape) for i in (own[0], own[-1], other[0])]
    if len(own) < 2 or len(other) < 2 or any(len(shape) < 2 for shape in shapes):
        return weights
    (_, model_inputs, *_), (first_outputs, *_), (_, other_inputs, *_) = shapes
    beside = other_inputs == model_inputs and other_inputs != first_outputs
    return own if beside else weights


def curve_summary(curve):
    """Window medians, minibatch noise and their standard errors; None below 2 steps."""
    n = len(curve)
    if n < 2:
        return None
    n_windows = min(max(n // MIN_WINDOW, 1), MAX_WINDOWS)  # ints: np.clip costs far more
    medians = window_medians(curve, n_windows)
    width = -(-n // n_windows)                      # the first (longest) window's length
    diffs = np.diff(curve)
    noise = 1.4826 * curve_median(np.abs(diffs - curve_median(diffs))) / math.sqrt(2) \
        if len(diffs) else 0.0
    window_error = 1.25 * noise / math.sqrt(max(width, 1))   # std error of a window median
    start, end = medians[0], medians[-1]
    tail = curve[-max(width, n // 5):]              # the last fifth, for the end level
    tail_error = 1.25 * noise / math.sqrt(len(tail))
    best_index = int(np.argmin(medians))
    best = medians[best_index]
    scale = max(abs(start), 1e-12)
    return {"n": n, "medians": medians, "start": float(start), "end": float(end),
            "best": float(best), "best_window": best_index, "noise": float(noise),
            "window_error": float(window_error), "width": width,
            "tail": float(curve_median(tail)),
            "gain_error": float(math.sqrt(window_error ** 2 + tail_error ** 2)),
            "improvement": float((start - best) / scale)}


def window_medians(curve, n_windows):
    """The median of each of ``np.array_split(curve, n_windows)``: the first n % n_windows
    windows are one step longer, so each group of equal windows is one (windows, width)
    array and one median call instead of one call per window (same values)."""
    width, longer = divmod(len(curve), n_windows)
    split = longer * (width + 1)
    parts = [curve[:split].reshape(longer, width + 1),
             curve[split:].reshape(n_windows - longer, width)]
    return np.concatenate([curve_median(p) for p in parts if p.size])


def curve_median(values):
    """``np.median(values, axis=-1)`` of finite numbers (a loss curve, its steps' differences,
    its windows as rows), same values: np.median's own partial sort, the middle value or the
    mean of the two middle ones, without the checks and wrappers that cost more than the
    sort. A NumPy number for a 1-D array, an array of row medians for a 2-D one."""
    half = values.shape[-1] // 2
    if values.shape[-1] % 2:
        return np.partition(values, half, axis=-1)[..., half]
    part = np.partition(values, (half - 1, half), axis=-1)
    return (part[..., half - 1] + part[..., half]) / 2


def median(values):
    """``np.median`` of a short list of numbers, same value, in plain Python (NumPy's call
    costs more than sorting the few values a rule reads per layer); NaN when one is NaN."""
    kept = sorted(values)
    n = len(kept)
    if n == 0 or any(v != v for v in kept):
        return math.nan
    return kept[n // 2] if n % 2 else (kept[n // 2 - 1] + kept[n // 2]) / 2


def nanmedian(values):
    """``np.nanmedian`` of a short 1-D array, same value, in plain Python: the median of its
    non-NaN entries, NaN when there are none (NumPy's call costs more than the sort)."""
    return median([v for v in np.asarray(values, float).tolist() if v == v])


def nanmedian_columns(matrix):
    """``np.nanmedian(matrix, axis=0)`` of a small (records, tensors) matrix, same values: per
    column, the middle of its sorted non-NaN entries, (low + high) / 2 (NaN when none). NumPy
    goes through masked arrays there, twenty times slower on the few records a rule reads."""
    out = []
    for column in np.asarray(matrix, float).T.tolist():
        kept = sorted(v for v in column if v == v)          # v == v: not NaN
        n = len(kept)
        out.append((kept[(n - 1) // 2] + kept[n // 2]) / 2 if n else math.nan)
    return np.array(out, float)


def per_parameter(record, attribute, width):
    """The per-parameter array ``attribute`` of ``record`` when it was measured for all
    ``width`` parameters, else None."""
    value = getattr(record, attribute)
    if value is None or len(value) != width:
        return None
    return np.asarray(value)


def judged_only(ctx, items):
    """The items (loss calls, batch-norm batches, ...: anything with a ``.step``) seen on the
    steps the rules judge (``ctx.run.records``: judged records only), so that a verdict never
    depends on which extra records the clock allowed; all of them for a run without records
    (hand-made runs in tests)."""
    steps = {r.step for r in ctx.run.records}
    return [i for i in items if i.step in steps] if steps else list(items)


def judged_handwritten_errors(ctx):
    """The rows of ``run.observed.handwritten_errors`` on judged steps before the cut-off:
    what TARGETS_UNSCALED and the moving-target test read of a loss written by hand."""
    return judged_step_rows(ctx, "handwritten_errors")


def judged_step_rows(ctx, name):
    """The rows of ``run.observed.<name>`` (step first) on judged steps before the cut-off
    (all rows for a run without records)."""
    steps = {r.step for r in ctx.run.records}
    return [row for row in observed_list(ctx, name)
            if (not steps or row[0] in steps) and (ctx.cutoff is None or row[0] < ctx.cutoff)]


def observed_list(ctx, name):
    """``run.observed.<name>`` as a list (empty for a run without what is observed around
    the model, e.g. one loaded from an older file or built by hand)."""
    return list(getattr(getattr(ctx.run, "observed", None), name, None) or [])


def fresh_beside_trained_in_slow_groups(ctx):
    """The weight tensors of the slow param groups (``run.observed.slow_group_weights``: at a
    fine-tuning rate, 1/5 or less of the fastest group's) split by how they looked when
    watching started: ``(fresh [(group, lr, fastest lr, name, initialiser)], trained
    [names])`` when at least one looks freshly initialised and more than MAJORITY of their
    values are in tensors that do not; else None. Pretrained weights at the slow rate show
    that the checkpoint was loaded and that the slow rate is the fine-tuning rate the loop
    meant for them: a fresh tensor beside them is a NEW layer (a head, an adapter) put in the
    pretrained body's group, not a checkpoint that never arrived (PRETRAINED_WEIGHTS_NOT_LOADED
    leaves it to LR_TOO_LOW). Counted in values, not tensors: a small re-initialised tensor
    can miss the fresh test by sampling noise (a first conv's 144 weights in batch 28's
    re-initialised body), a pretrained body is most of the values."""
    rows = observed_list(ctx, "slow_group_weights")
    fresh = [tuple(r) for r in rows if r[4]]
    if not fresh:
        return None
    sizes = {p.name: int(np.prod(p.shape)) for p in getattr(ctx.run, "params", ())}
    trained = [r[3] for r in rows if not r[4]]
    trained_values = sum(sizes.get(name, 0) for name in trained)
    all_values = sum(sizes.get(r[3], 0) for r in rows)
    if not all_values or trained_values <= MAJORITY * all_values:
        return None
    return fresh, trained


def scale_free_optimizer(ctx):
    """Whether every param group of the watched optimizer is one of SCALE_FREE_OPTIMIZERS
    (False when the settings are unknown: a run loaded from an older file, no optimizer)."""
    settings = observed_list(ctx, "optimizer_settings")
    return bool(settings) and all(s.type in SCALE_FREE_OPTIMIZERS for s in settings)


def highest_rates(ctx):
    """[(step, highest learning rate over the param groups)] of the judged records that know
    their rates (``StepRecord.lrs``)."""
    return [(r.step, max(r.lrs)) for r in ctx.run.records if r.lrs]


def first_training_batches(ctx):
    """{batch-norm layer: the first step it normalised a batch in training mode}
    (``run.observed.norm_batches``): the layers whose running statistics are being updated."""
    first = {}
    for batch in observed_list(ctx, "norm_batches"):
        first.setdefault(batch.layer, batch.step)
    return first


def judged_loss_calls(ctx, losses):
    """The judged loss calls (``run.observed.loss_calls``) of these losses, before the first
    non-finite step (``ctx.cutoff``)."""
    return [c for c in ctx._once("judged_loss_calls", lambda: _judged_loss_calls(ctx))
            if c.loss in losses]


def _judged_loss_calls(ctx):
    """Every judged loss call before the cut-off; a dozen rules ask, each for some losses,
    so the walk over every step's call is done once per diagnosis."""
    calls = observed_list(ctx, "loss_calls")
    return [c for c in judged_only(ctx, calls) if ctx.cutoff is None or c.step < ctx.cutoff]


def class_id_calls(calls, min_calls):
    """(columns, targets seen) when at least ``min_calls`` loss calls all score one width of
    columns against integer class ids; else None. What both rules on the range of the ids
    read (``output_width.py``, ``target_id_offset.py``)."""
    if len(calls) < min_calls:
        return None
    widths = {c.output_shape[1] for c in calls if c.output_shape and len(c.output_shape) >= 2}
    if len(widths) != 1 or not all(c.target_integer for c in calls):
        return None
    return widths.pop(), sum(math.prod(int(n) for n in c.target_shape or ()) for c in calls)


def output_classes(run):
    for r in reversed(run.records):
        if r.output is not None and np.ndim(r.output) == 2:
            return int(r.output.shape[1])
    return None


def rms(stats):
    """Root-mean-square from a mean and a (population) std: sqrt(mean^2 + std^2); None
    when either was not measured."""
    if "mean" not in stats or "std" not in stats:
        return None
    return math.sqrt(stats["mean"] ** 2 + stats["std"] ** 2)


# --- words for messages ---------------------------------------------------------------------
def names(run, indices):
    return [run.params[i].name for i in indices]


def module_of(name):
    return name.rsplit(".", 1)[0] if "." in name else name


def modules(param_names):
    out = []
    for n in param_names:
        m = module_of(n)
        if m not in out:
            out.append(m)
    return out


def short_list(items, limit=4):
    items = list(items)
    text = ", ".join(str(i) for i in items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def fmt(x):
    if x is None or not np.isfinite(x):
        return str(x)
    return f"{x:.3g}"


NEAR_BEST_SHARE = 0.5         # [design] (real-bug batch 139) a restored checkpoint whose
                              # validation loss lies in the lower half between the run's best
                              # and its end is "near the best": a loop that keeps the best by
                              # accuracy may restore a pass a little above the lowest loss
FINGERPRINT_RTOL = 1e-6       # [design] weight sums (float64) equal to this: the same weights
WORST_OF_PASSES = 4           # [design] (real-bug batch 145) validation passes of which the one
                              # loaded back is the worst: among four or more, the highest loss
                              # is no pass any sound criterion keeps as the best


def restored_checkpoint(ctx):
    """(real-bug batch 139) What a load after the run's last validation pass put back, as
    {"load_step", "restored_step", "restored_val", "best_step", "best_val", "end_val",
    "near_best"}: the validation pass whose weights' fingerprint (each tensor's sum,
    ``monitor/restored_checkpoints.py``) the loaded dict matches. None without such a load,
    or when the loaded weights are none the run validated (a pretrained file)."""
    return ctx._once("restored_checkpoint", lambda: _restored_checkpoint(ctx))


def _restored_checkpoint(ctx):
    rows = observed_list(ctx, "restored_checkpoints")
    validations = [(step, np.asarray(sums)) for kind, step, sums in rows if kind == "validation"]
    if not validations:
        return None
    last = max(step for step, _ in validations)
    loads = [(step, np.asarray(sums)) for kind, step, sums in rows
             if kind == "load" and step >= last]
    if not loads:
        return None
    load_step, loaded = loads[-1]
    scale = float(np.mean(np.abs(loaded))) + 1.0
    matched = [step for step, sums in validations if sums.shape == loaded.shape and
               np.allclose(sums, loaded, rtol=FINGERPRINT_RTOL, atol=FINGERPRINT_RTOL * scale)]
    steps, values = ctx.run.val_array()
    finite = np.isfinite(values)
    steps, values = np.asarray(steps)[finite], np.asarray(values)[finite]
    if not matched or not len(values):
        return None
    restored_step = matched[-1]
    at = np.flatnonzero(steps == restored_step)
    if not len(at):
        return None
    best = int(np.argmin(values))
    restored_val, best_val, end_val = float(values[at[-1]]), float(values[best]), \
        float(values[-1])
    return {"load_step": int(load_step), "restored_step": int(restored_step),
            "restored_val": restored_val, "best_step": int(steps[best]), "best_val": best_val,
            "end_val": end_val,
            "worst": len(values) >= WORST_OF_PASSES and restored_val >= float(np.max(values)),
            "near_best": restored_val <= best_val + NEAR_BEST_SHARE * max(end_val - best_val,
                                                                          0.0)}

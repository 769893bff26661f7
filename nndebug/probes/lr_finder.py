"""The learning-rate range test: sweep the learning rate upwards and watch the loss.

Train for ``steps`` mini-batches while the learning rate grows exponentially from
``start_lr`` to ``end_lr``. At small rates the loss hardly moves, at good rates it
falls fast, at too-large rates it blows up. The curve of loss against log(lr) shows
where the useful range is; ``suggestion`` picks one rate from it.

Two things differ from the usual finders, both for measured reasons:

- The user's optimizer. The good range of Adam and of SGD with momentum lie orders of
  magnitude apart, so a sweep with plain SGD (the lesson's version) says little about a
  model trained with Adam. ``find_lr`` sweeps with a fresh optimizer of the user's class
  and hyper-parameters (momentum, betas, weight decay, param groups) over a private copy
  of the model; nothing of the user's is changed.
- A fixed batch. Besides the training loss of each mini-batch, the loss on one fixed
  batch (the first) is measured after every step, one extra forward pass. It carries
  none of the batch-to-batch noise, so its curve shows where training stops working even
  on tasks whose training losses are too noisy to read; the suggestion is read off it.

The suggestion rule was chosen by measurement (``benchmarks/bench_lr_suggestion.py``),
against the published rules of torch-lr-finder ("steepest slope") and fastai ("valley",
"minimum / 10"), which are re-implemented here from their descriptions
(``SUGGESTION_RULES``; every result carries all of their answers in ``suggestions``).
"""
import contextlib
import copy
import csv
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import validation
from ..adapters import adapt
from ._training import (as_pair, disable_dropout, first_dim, make_optimizer, no_grad,
                        scalar_loss_value, trainable_parameters, train_step)
from .progress import Progress

# --- thresholds (each one named once) -------------------------------------------------
DIVERGE_FACTOR = 4.0
"""Stop once the smoothed training loss exceeds this multiple of its best: torch-lr-finder
uses 5, fastai 4; past that point the curve only says 'too large'."""
SMOOTHING = 0.05
"""Weight of the newest loss in the running (exponential) average of the training loss, as
torch-lr-finder's ``smooth_f``."""
MIN_STEPS = 10


@dataclass
class LRFinderResult:
    """The range test's curves and its suggestion.

    ``lrs[i]`` is the learning rate of step i; ``raw_losses[i]`` the training loss of that
    step's mini-batch, ``losses[i]`` its exponential average (what stops the sweep), and
    ``fixed_batch_losses[i]`` the loss on the fixed batch after the step (what the
    suggestion reads). ``suggestion`` is ``nan`` when the loss never fell (see ``notes``);
    ``suggestions`` holds every rule's answer, by rule name.
    """
    lrs: list
    losses: list
    raw_losses: list
    suggestion: float
    fixed_batch_losses: list = field(default_factory=list)
    suggestions: dict = field(default_factory=dict)
    rule: str = "nndebug"
    diverged: bool = False
    stopped_at: "int | None" = None
    optimizer: str = ""
    notes: list = field(default_factory=list)

    @property
    def suggestion_index(self):
        """The step whose learning rate is closest to the suggestion (None without one)."""
        if not math.isfinite(self.suggestion) or not self.lrs:
            return None
        return int(np.argmin(np.abs(np.log(self.lrs) - math.log(self.suggestion))))

    def to_csv(self, path):
        """Write ``step,lr,loss,smoothed_loss,fixed_batch_loss`` rows, one per step."""
        validation.path(path, "path", "lr_find.png")
        fixed = self.fixed_batch_losses or [float("nan")] * len(self.lrs)
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["step", "lr", "loss", "smoothed_loss", "fixed_batch_loss"])
            for i, row in enumerate(zip(self.lrs, self.raw_losses, self.losses, fixed)):
                writer.writerow([i] + [repr(float(v)) for v in row])
        return path

    def plot(self, path, *, show_rules=True):
        """Save loss against log(lr) with the suggestion marked, as a PNG.

        Uses matplotlib's object interface with the Agg canvas (imported only here), so it
        needs no display and never changes the pyplot backend of a running notebook.
        """
        validation.path(path, "path", "lr_find.png")
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError("plotting needs matplotlib: pip install matplotlib "
                              "(or use to_csv to get the numbers)") from error
        fig = Figure(figsize=(7, 4.4))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        ax.plot(self.lrs, self.raw_losses, color="0.75", lw=1, label="training loss per batch")
        ax.plot(self.lrs, self.losses, color="C0", lw=1.5, label="training loss, smoothed")
        if self.fixed_batch_losses:
            ax.plot(self.lrs, self.fixed_batch_losses, color="C1", lw=2, label="loss on the fixed batch")
        if show_rules:
            for i, (name, lr) in enumerate(self.suggestions.items()):
                if name != self.rule and math.isfinite(lr):
                    ax.axvline(lr, color=f"C{i + 3}", ls=":", lw=1, label=f"{name} rule: {lr:.2g}")
        if math.isfinite(self.suggestion):
            curve = self.fixed_batch_losses or self.losses
            ax.axvline(self.suggestion, color="C3", ls="--", lw=1.5)
            ax.plot([self.suggestion], [curve[self.suggestion_index]], "o", color="C3",
                    label=f"suggestion {self.suggestion:.2g}")
        ax.set_xscale("log")
        shown = [v for v in list(self.losses) + list(self.fixed_batch_losses) if math.isfinite(v)]
        if shown:
            low = min(shown)
            high = min(max(shown), max(self.losses[0], DIVERGE_FACTOR * low))
            pad = 0.05 * ((high - low) or abs(high) or 1.0)
            ax.set_ylim(low - pad, high + pad)
        ax.set_xlabel("learning rate (log scale)")
        ax.set_ylabel("loss")
        ax.set_title(f"learning-rate range test ({self.optimizer})" if self.optimizer
                     else "learning-rate range test")
        ax.legend(loc="best", fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        return path

    def _repr_html_(self):
        """Jupyter shows the verdict, the findings and the plot inline."""
        from ..report.html import result_html
        return result_html(self)

    def __str__(self):
        if not self.lrs:
            return "learning-rate range test: no steps"
        lines = [f"learning-rate range test ({self.optimizer}): {len(self.lrs)} steps, lr "
                 f"{self.lrs[0]:.2g} .. {self.lrs[-1]:.2g}"
                 + (" (stopped early: the loss diverged)" if self.diverged else "")]
        if math.isfinite(self.suggestion):
            lines.append(f"suggested learning rate: {self.suggestion:.3g}  ({self.rule} rule)")
        else:
            lines.append("no suggestion: the loss never fell during the sweep")
        for name, lr in self.suggestions.items():
            if name != self.rule:
                lines.append(f"  the {name} rule would say {lr:.3g}" if math.isfinite(lr)
                             else f"  the {name} rule has no answer")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


# --- suggestion rules -----------------------------------------------------------------
# Each rule reads one learning rate (or nan) off a finished sweep. They are public so the
# benchmark (and a curious user) can compare them on the same sweep. The published rules
# read the per-batch training losses, as their libraries do; nndebug's rule reads the
# fixed-batch losses (see ``find_lr``).

def ema(values, weight=SMOOTHING, debias=False):
    """Exponential moving average with weight ``weight`` on the newest value."""
    out, avg = [], 0.0
    for i, v in enumerate(values):
        avg = v if (i == 0 and not debias) else (1 - weight) * avg + weight * v
        out.append(avg / (1 - (1 - weight) ** (i + 1)) if debias else avg)
    return np.asarray(out, dtype=float)


def _usable(lrs, losses):
    """The sweep up to its first non-finite loss (everything after is divergence)."""
    lrs, losses = np.asarray(lrs, float), np.asarray(losses, float)
    keep = np.isfinite(losses)
    if not keep.all():
        cut = int(np.argmin(keep))
        lrs, losses = lrs[:cut], losses[:cut]
    return lrs, losses


def suggest_steepest(lrs, losses, skip_start=10, skip_end=5):
    """torch-lr-finder's rule: where the smoothed training loss falls fastest.

    As documented there: the loss is smoothed with an exponential average (weight 0.05
    on the newest value), the first 10 and last 5 points are skipped, and the suggestion
    is the point of most negative gradient.
    """
    lrs, losses = _usable(lrs, losses)
    smooth = ema(losses, SMOOTHING)
    end = len(smooth) - skip_end
    if end - skip_start < 3:
        return float("nan")
    slope = np.gradient(smooth[skip_start:end])
    return float(lrs[skip_start + int(np.argmin(slope))])


def _fastai_curve(lrs, losses):
    """fastai's view of a sweep: debiased exponential average (beta 0.98) of the training
    loss, without the first tenth of the points and the last five."""
    lrs, losses = _usable(lrs, losses)
    smooth = ema(losses, 0.02, debias=True)
    start, end = len(lrs) // 10, len(lrs) - 5
    return lrs[start:end], smooth[start:end]


def suggest_minimum_over_10(lrs, losses):
    """fastai's 'minimum' rule: the learning rate of the lowest smoothed loss, divided by 10."""
    lrs, smooth = _fastai_curve(lrs, losses)
    if len(smooth) < 3:
        return float("nan")
    return float(lrs[int(np.argmin(smooth))] / 10)


def suggest_valley(lrs, losses):
    """fastai's 'valley' rule (its default): a point in the middle of the longest valley.

    The valley ends at the point with the longest decreasing run of smoothed losses before
    it (a longest decreasing subsequence); fastai counts the valley as that many points
    back from its end, and suggests the point half-way along it (one third plus one sixth).
    """
    lrs, smooth = _fastai_curve(lrs, losses)
    n = len(smooth)
    if n < 3:
        return float("nan")
    run = np.ones(n, dtype=int)          # longest decreasing subsequence ending at i
    for i in range(1, n):
        earlier = run[:i][smooth[:i] > smooth[i]]
        if earlier.size:
            run[i] = earlier.max() + 1
    end = int(np.argmax(run))
    start = end - int(run[end])
    third = (end - start) / 3
    return float(lrs[max(0, min(n - 1, start + int(third) + int(third / 2)))])


def suggest_before_minimum(lrs, losses, back=10):
    """The lesson's rule: the learning rate 10 steps before the lowest smoothed training loss."""
    lrs, losses = _usable(lrs, losses)
    if len(losses) < 3:
        return float("nan")
    return float(lrs[max(0, int(np.argmin(ema(losses, SMOOTHING))) - back)])


EDGE_RISE = 1.1
"""The loss on the fixed batch 'turns' where it first climbs 10% above its best so far (after
it has started to fall): the first sign that the learning rate has become too large."""
EDGE_DIVISOR = 4.5
"""The suggestion is the estimated edge of stability divided by 4.5 - measured, not derived:
the best fixed learning rate of a 10-epoch run lies about that far below the edge that a
100-step sweep finds (benchmarks/bench_lr_suggestion.py; divisors 4 to 5 do about as well,
3.5 and 6 clearly worse)."""
FLOOR_SHARE = 0.95
"""The suggestion never exceeds the learning rate at which the fixed-batch loss had already
made 95% of its whole fall. On an easy task the loss reaches its floor long before the edge
of stability (six Gaussian blobs: 95% of the fall by lr 0.03, the edge near 0.3); larger
rates then buy the sweep nothing, while in a full run they cost generalisation (held-out
loss 2-3x the best). Measured with the benchmark: 0.9 and 0.98 do slightly worse."""
MIN_DROP = 0.005
"""Below a 0.5% fall of the fixed-batch loss the sweep has not found a working rate at all."""


def suggest_lr(lrs, fixed_losses):
    """nndebug's rule, read off the loss of one fixed batch measured after every step.

    The fixed batch takes away the batch-to-batch noise that makes rules on training
    losses fragile (on a noisy regression task the smoothed training loss hardly moves
    before it blows up, and 'minimum' and 'steepest' land on noise). On that clean curve
    the edge of stability is estimated twice - where the loss is lowest, and where it first
    turns up by 10% - and the geometric mean of the two, divided by 4.5, is suggested,
    unless the loss had already made 95% of its fall at a smaller rate: then that rate.
    Returns nan when the loss never fell by 0.5%.
    """
    lrs, losses = _usable(lrs, fixed_losses)
    if len(losses) < 3:
        return float("nan")
    start = losses[0]
    lowest = int(np.argmin(losses))
    if not losses[lowest] < (1 - MIN_DROP) * start:
        return float("nan")
    best_so_far = np.minimum.accumulate(losses)
    turned = np.flatnonzero((losses > EDGE_RISE * best_so_far) & (best_so_far < (1 - MIN_DROP) * start))
    turn = int(turned[0]) if turned.size else lowest
    below_edge = math.sqrt(lrs[lowest] * lrs[turn]) / EDGE_DIVISOR
    fall = start - losses[lowest]
    floor_reached = int(np.argmax(losses[:lowest + 1] <= start - FLOOR_SHARE * fall))
    return float(min(below_edge, lrs[floor_reached]))


SUGGESTION_RULES = {
    # name: (rule, which curve it reads: "fixed" batch losses or per-batch "raw" losses)
    "nndebug": (suggest_lr, "fixed"),
    "steepest": (suggest_steepest, "raw"),
    "valley": (suggest_valley, "raw"),
    "minimum/10": (suggest_minimum_over_10, "raw"),
    "10-before-min": (suggest_before_minimum, "raw"),
}


# --- the sweep ------------------------------------------------------------------------

def find_lr(model, loss_fn, batches, *, optimizer=None, start_lr=1e-7, end_lr=10, steps=100,
            diverge_factor=DIVERGE_FACTOR, rule="nndebug", progress=None, seed=0):
    """Run the learning-rate range test and suggest a learning rate.

    ``batches`` is an iterable of ``(inputs, targets)`` (a list, a DataLoader); it is
    cycled if shorter than ``steps``. ``optimizer`` is your own optimizer: its class,
    hyper-parameters and param groups are copied onto a fresh optimizer over a private
    copy of the model (groups keep their lr ratios). Without one, SGD with momentum 0.9
    is used. Your model, optimizer and RNG state are left exactly as they were: the
    sweep runs on the copy, and in the rare case an optimizer class cannot be rebuilt
    from its param groups, your own optimizer is used and its state (and the model's)
    is saved and restored bit for bit.

    The suggestion reads the loss of a fixed batch (the first mini-batches, up to 128
    samples), measured after every step: the geometric mean of the learning rates where it
    is lowest and where it first climbs 10% above its best, divided by 4.5, but no larger
    than the rate by which the loss had made 95% of its fall - a rule chosen by measurement
    against grid searches (``benchmarks/bench_lr_suggestion.py``). ``rule``
    picks another: "steepest" (torch-lr-finder), "valley" or "minimum/10" (fastai),
    "10-before-min"; ``res.suggestions`` holds every rule's answer.

    ``progress``: None draws a bar on stderr when it is a terminal; True/False forces it.
    ``seed`` seeds dropout and any other randomness of the sweep (your RNG is restored).
    """
    adapter = adapt(model)
    start_lr, end_lr, steps = _check_sweep_args(start_lr, end_lr, steps)
    seed = validation.seed(seed)
    if rule not in SUGGESTION_RULES:
        raise ValueError(f"rule must be one of {sorted(SUGGESTION_RULES)}, got {rule!r}")
    validation.same_framework_loss(adapter, loss_fn)
    if not trainable_parameters(adapter):
        raise ValueError(f"{type(model).__name__} has no trainable parameters (none, or all "
                         "with requires_grad=False): there is no learning rate to find; "
                         "unfreeze the layers you mean to train")
    if optimizer is not None and not hasattr(optimizer, "param_groups"):
        raise TypeError(f"optimizer must be a torch-style optimizer with .param_groups, got "
                        f"{type(optimizer).__name__}")
    notes = []
    with adapter.preserved(), adapter.forked_rng(seed):
        private = adapter.private_copy(dtype=adapter.float_dtype())
        sweep_opt = _fresh_optimizer(adapter, private, optimizer, notes)
        if sweep_opt is not None:
            result = _sweep(private, sweep_opt, loss_fn, batches, start_lr, end_lr, steps,
                            diverge_factor, progress)
        else:
            saved_opt = adapter.optimizer_state(optimizer)
            try:
                result = _sweep(adapter, optimizer, loss_fn, batches, start_lr, end_lr, steps,
                                diverge_factor, progress)
            finally:
                adapter.restore_optimizer_state(optimizer, saved_opt)
    lrs, raw, smooth, fixed, diverged, stopped = result
    suggestions = {}
    for name, (fn, curve) in SUGGESTION_RULES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = fixed if curve == "fixed" else raw
            suggestions[name] = fn(lrs, values) if len(values) >= 3 else float("nan")
    if not math.isfinite(suggestions[rule]):
        notes.append("the loss never fell below its starting value; check the model with "
                     "nd.overfit_one_batch, or widen the range (start_lr/end_lr)")
    finite = [v for v in fixed if math.isfinite(v)]
    if not diverged and finite and int(np.argmin(finite)) >= 0.95 * (len(finite) - 1):
        notes.append(f"the loss was still falling at end_lr={end_lr:g}: the edge of stability "
                     "was not reached, so the suggestion is cautious; try a larger end_lr")
    opt_name = type(optimizer).__name__ if optimizer is not None else "SGD(momentum=0.9)"
    return LRFinderResult(lrs=lrs, losses=smooth, raw_losses=raw, fixed_batch_losses=fixed,
                          suggestion=suggestions[rule],
                          suggestions=suggestions, rule=rule, diverged=diverged,
                          stopped_at=stopped, optimizer=opt_name, notes=notes)


def _check_sweep_args(start_lr, end_lr, steps):
    start_lr = validation.positive_number(start_lr, "start_lr")
    end_lr = validation.positive_number(end_lr, "end_lr")
    if not end_lr > start_lr:
        raise ValueError(f"need 0 < start_lr < end_lr, got start_lr={start_lr}, end_lr={end_lr}")
    return start_lr, end_lr, validation.integer(steps, "steps", minimum=MIN_STEPS)


def _fresh_optimizer(adapter, private, optimizer, notes):
    """An optimizer like the user's (class, hyper-parameters, groups) over the private copy.

    Returns None when the class cannot be rebuilt from its param groups; the caller
    then sweeps with the user's own optimizer and restores it.
    """
    if optimizer is None:
        return make_optimizer(private, "SGD", trainable_parameters(private), lr=1e-3, momentum=0.9)
    name_of = {id(p): n for n, p in adapter.named_parameters()}
    copies = dict(private.named_parameters())
    groups, foreign = [], 0
    for group in optimizer.param_groups:
        params = []
        for p in group["params"]:
            if id(p) in name_of:
                params.append(copies[name_of[id(p)]])
            else:
                foreign += 1
        if params:
            hyper = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            groups.append({**hyper, "params": params})
    if not groups:
        raise ValueError("the optimizer holds none of the model's parameters; pass the optimizer "
                         "that trains this model (was it built for another instance of it?)")
    if foreign:
        notes.append(f"{foreign} optimizer parameter(s) do not belong to the model and were left "
                     "out of the sweep")
    cls = type(optimizer)
    defaults = dict(getattr(optimizer, "defaults", None) or {})
    for attempt in (lambda: cls(groups, **defaults), lambda: cls(groups)):
        try:
            fresh = attempt()
        except Exception:  # any failure: fall back to the user's optimizer, saved and restored
            continue
        if _same_hyper(fresh, groups):
            return fresh
    if foreign:
        raise ValueError(f"cannot rebuild {cls.__name__} over a copy of the model, and it holds "
                         "parameters outside the model; pass an optimizer over model.parameters()")
    notes.append(f"{cls.__name__} could not be rebuilt from its param groups; the sweep used "
                 "your optimizer and model, then restored both")
    return None


def _same_hyper(fresh, groups):
    if len(fresh.param_groups) != len(groups):
        return False
    for new, old in zip(fresh.param_groups, groups):
        for key, value in old.items():
            if key == "params":
                if [id(p) for p in new["params"]] != [id(p) for p in value]:
                    return False
            elif key in new and not _equal(new[key], value):
                return False
    return True


def _equal(a, b):
    try:
        return bool(np.all(np.asarray(a, dtype=object) == np.asarray(b, dtype=object)))
    except Exception:
        return a is b


def _set_lr(optimizer, base_lrs, lr):
    reference = base_lrs[0] if base_lrs[0] else 1.0
    for group, base in zip(optimizer.param_groups, base_lrs):
        value = lr * (base / reference if base_lrs[0] else 1.0)
        if hasattr(group["lr"], "fill_"):  # a tensor lr (torch capturable/fused optimizers)
            group["lr"].fill_(value)
        else:
            group["lr"] = value


PROBE_SAMPLES = 128
PROBE_BATCHES = 4
"""The fixed batch is made of the first mini-batches, until it holds 128 samples or 4 batches:
one small batch alone is too particular (with batches of 16, its loss can rise while the
model improves on everything else), and more than 4 extra forward passes per step cost more
than they clarify."""


def _sweep(adapter, optimizer, loss_fn, batches, start_lr, end_lr, steps, diverge_factor,
           progress):
    """Train through the exponential lr schedule; after every step also measure the loss on a
    fixed set of batches (the first ones), free of the batch-to-batch noise of training losses."""
    model = adapter.model
    model.train()
    base_lrs = [float(g["lr"]) for g in optimizer.param_groups]
    ratio = end_lr / start_lr
    lrs, raw, smooth, fixed = [], [], [], []
    avg, best, diverged, stopped = None, math.inf, False, None
    stream = _Batches(batches)
    probe = _probe_batches(adapter, stream)
    with Progress(steps, "lr-find", enabled=progress) as bar:
        for step in range(steps):
            inputs, targets = as_pair(stream.next(), step)
            validation.problem(adapter, inputs, targets, loss_fn)
            raw_inputs = inputs
            inputs, targets = adapter.prepare(inputs), adapter.prepare(targets)
            lr = start_lr * ratio ** (step / (steps - 1))
            _set_lr(optimizer, base_lrs, lr)
            first = validation.explain_forward_error(adapter, raw_inputs, targets) \
                if step == 0 else contextlib.nullcontext()
            with first:   # bad data shows on the first step: one line
                loss = train_step(adapter, optimizer, inputs, targets, loss_fn)
            lrs.append(lr)
            raw.append(loss)
            fixed.append(_probe_loss(adapter, probe, loss_fn) if math.isfinite(loss) else loss)
            if not math.isfinite(loss):
                smooth.append(loss)
                diverged, stopped = True, step
                break
            avg = loss if avg is None else (1 - SMOOTHING) * avg + SMOOTHING * loss
            smooth.append(avg)
            best = min(best, avg)
            bar.update(step + 1, f"lr {lr:.1e} loss {avg:.4g}")
            if step >= 3 and avg > diverge_factor * best:
                diverged, stopped = True, step
                break
    return lrs, raw, smooth, fixed, diverged, stopped


def _probe_batches(adapter, stream):
    """The first distinct batches of the stream (put back to be trained on as usual)."""
    chosen, samples = [], 0
    for index, batch in enumerate(stream.peek(PROBE_BATCHES)):
        if any(batch is earlier for earlier, _ in chosen):
            break
        inputs, targets = as_pair(batch, index)
        validation.samples(adapter, inputs, f"batch {index}'s inputs")
        validation.samples(adapter, targets, f"batch {index}'s targets")
        validation.same_framework(adapter, inputs, f"batch {index}'s inputs")
        validation.same_framework(adapter, targets, f"batch {index}'s targets")
        chosen.append((batch, (adapter.prepare(inputs), adapter.prepare(targets))))
        samples += first_dim(inputs)
        if samples >= PROBE_SAMPLES:
            break
    return [prepared for _, prepared in chosen]


def _probe_loss(adapter, probe, loss_fn):
    """Mean loss on the fixed batches, without a graph and with dropout off (its masks are noise)."""
    switched = disable_dropout(adapter)
    try:
        total = 0.0
        with no_grad(adapter):
            for inputs, targets in probe:
                total += scalar_loss_value(adapter, loss_fn(adapter.call_model(adapter.model, inputs),
                                                            targets))
        return total / len(probe)
    finally:
        for name, module in adapter.named_modules():
            if name in switched:
                module.train()


class _Batches:
    """Cycle through ``batches``: re-iterate a list or DataLoader (fresh shuffles each pass),
    replay a one-shot iterator from the batches it gave."""

    def __init__(self, batches):
        if isinstance(batches, tuple) and len(batches) == 2 and not isinstance(
                batches[0], (tuple, list, dict)) and hasattr(batches[0], "shape"):
            raise TypeError("batches must be an iterable of (inputs, targets) pairs, got one "
                            "(inputs, targets) pair itself; pass [(x, y)] * steps for one batch")
        try:
            self._reiterable = iter(batches) is not batches
        except TypeError:
            raise TypeError(f"batches must be an iterable of (inputs, targets) pairs, got "
                            f"{type(batches).__name__}") from None
        self._source = batches
        self._iter = iter(batches)
        self._seen = []           # one-shot iterators: what they gave, to replay
        self._replaying = False
        self._in_pass = 0         # batches given in the current pass
        self._pending = []        # peeked batches, handed out first

    def peek(self, k):
        """Up to k next batches, without consuming them."""
        while len(self._pending) < k:
            batch = self._next_from_source(allow_restart=False)
            if batch is None:
                break
            self._pending.append(batch)
        return list(self._pending[:k])

    def next(self):
        if self._pending:
            return self._pending.pop(0)
        return self._next_from_source(allow_restart=True)

    def _next_from_source(self, allow_restart):
        while True:
            try:
                batch = next(self._iter)
            except StopIteration:
                if self._in_pass == 0 and not self._seen:
                    raise ValueError("batches is empty: give at least one (inputs, targets) pair") \
                        from None
                if not allow_restart:
                    return None
                if self._reiterable:
                    self._iter = iter(self._source)
                else:
                    self._replaying = True
                    self._iter = iter(self._seen)
                self._in_pass = 0
                continue
            self._in_pass += 1
            if not self._reiterable and not self._replaying:
                self._seen.append(batch)
            return batch

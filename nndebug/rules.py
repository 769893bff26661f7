"""Rules: a recorded run (``nndebug.records``) in, findings out. NumPy only, no framework.

Every threshold is named once below, with where it comes from. Three habits keep the
rules quiet on healthy runs (a healthy run must give no warning or error at all):

1. Loss-curve rules never compare single steps. They compare window medians and measure
   the run's own minibatch noise (the spread of step-to-step differences), so an ordinary
   noisy minibatch loss is not "oscillating".
2. Gradient-flow and saturation symptoms are only warnings when learning is actually
   poor (AUTOTRAINER and DeepDiagnosis report such symptoms only together with a failing
   training signal); otherwise they are "info".
3. Causes outrank symptoms: data and set-up bugs first, then hyper-parameters, then what
   they do to activations and gradients, then the loss curve. A cause takes the severity
   of the worst symptom it explains ("the LR is too high" is an error when it killed the
   ReLUs or made the loss NaN), and the symptom's message names its likely cause.

Sources named below:
  [lesson]    the course's NetworkDebugger (its rules, and where they cried wolf)
  [playbook]  Google Research "Deep Learning Tuning Playbook" (2023)
  [karpathy]  A. Karpathy, "A Recipe for Training Neural Networks" (2019), and CS231n notes
  [autotrainer] Zhang et al., "AUTOTRAINER: An Automatic DNN Training Problem Detection and
              Repair System", ICSE 2021
  [deepdiag]  Wardat et al., "DeepDiagnosis: Automatically Diagnosing Faults and Recommending
              Actionable Fixes in Deep Learning Programs", ICSE 2022
  [glorot]    Glorot & Bengio, "Understanding the difficulty of training deep feedforward
              neural networks", AISTATS 2010
  [pascanu]   Pascanu, Mikolov & Bengio, "On the difficulty of training recurrent neural
              networks", ICML 2013 (gradient clipping)
  [measured]  chosen here on nndebug's zoo: the value sits between what healthy runs and
              broken runs produce, with a margin on both sides (tests/test_rules.py, the zoo)
  [design]    a choice of method (window sizes, minimum evidence), not a tuned threshold
"""
import math

import numpy as np

from .findings import SEVERITY_ORDER, Finding

# --- activations (also used by the monitor when it measures) -------------------------------
TANH_SATURATION = 0.99        # |tanh| above this: derivative < 0.02 [glorot] (their Fig. 2 idea)
SIGMOID_SATURATION = 0.99     # sigmoid outside [0.01, 0.99]: derivative < 0.01 [glorot]
DEAD_FRACTION = 0.5           # [measured] share of a ReLU layer's units dead for the whole batch;
                              # the [lesson] counted zero *values* (~50% after ReLU is normal);
                              # a unit zero for every sample of the batch is the real symptom
DEAD_PERSISTENCE = 3          # [measured] ... in each of 3 recorded batches (a rarely firing unit is
                              # zero for a whole small batch by chance, not three times)
DEAD_FRACTION_SEVERE = 0.9    # [design] nearly the whole layer dead: an error when learning is poor
SATURATED_FRACTION = 0.5      # share of tanh/sigmoid outputs pinned at their limits [measured]
EXPLODING_ACTIVATION_RMS = 1e3  # [measured] activation root-mean-square; unit-scale layers sit near 1
                                # (Kaiming/Glorot keep it ~1 [glorot]); 1e3 is far out [measured]
COLLAPSED_SPREAD = 1e-4       # [measured] spread across samples (or units) relative to the layer's scale:
                              # below it every sample (unit) gives the same value [measured]

# --- inputs -----------------------------------------------------------------------------
INPUT_SCALE_HIGH = 5.0        # input RMS above this: not standardised [karpathy] ("normalise
                              # your data"); pixels in [0, 1] have RMS < 1, raw [0, 255] ~100
INPUT_SCALE_LOW = 1e-2        # input RMS below this: features squashed toward 0 [measured]
CONSTANT_INPUT_FRACTION = 0.99  # share of features identical across the batch [measured]

# --- the loss curve -----------------------------------------------------------------------
MIN_STEPS_FOR_TREND = 30      # [design] fewer steps than this: no plateau/divergence verdicts
MIN_WINDOW = 5                # [design] steps per window when the curve is cut into windows
MAX_WINDOWS = 20              # [design] ... and at most 20 windows (medians of n/20 steps)
NOISE_SIGMAS = 4.0            # [measured] a window difference must exceed 4 standard errors
                              # of the window median to count as a change (noise-aware)
PLATEAU_IMPROVEMENT = 0.05    # the end < 5% below the start: not improving [autotrainer]
                              # (their "slow convergence" compares relative loss change)
PLATEAU_CONFIDENCE = 2.0      # [design] ... even 2 standard errors of minibatch noise above the gain
CONVERGED_SHARE = 0.1         # [measured] a classifier below 10% of ln(C) has converged, not plateaued
POOR_IMPROVEMENT = 0.2        # less than 20% better than the start: learning is poor [measured]
DIVERGE_RISE = 0.5            # last window above best by half the ground gained ... [measured]
DIVERGE_REL = 0.25            # ... and by a quarter of the best value [measured]
CHANCE_TOLERANCE = 0.05       # within 5% of ln(C): "at chance" [karpathy] ("verify loss @ init
                              # is -log(1/C)"; staying there means nothing was learned)
OSCILLATION_WINDOW = 9        # [design] running median width (steps) the swings are measured around
OSCILLATION_AMPLITUDE = 0.2   # [measured] spread around it above 20% of the starting loss;
                              # healthy digits runs reach ~8% at batch 16 (21 configurations)
OSCILLATION_REFERENCE_BATCH = 16  # [measured] ... allowed more below batch 16 (noise ~ 1/sqrt(batch))
OSCILLATION_SIGMAS = 8.0      # [measured] a spike is 8 robust sigmas above the running median ...
OSCILLATION_REL = 0.25        # ... and above it by a quarter of the starting loss [measured]
OSCILLATION_MIN_SPIKES = 3    # [design] ... at least 3 of them, and ...
OSCILLATION_SPIKE_SHARE = 0.03  # ... at least 3% of steps (the [lesson] fired on any wiggle)
OVERFIT_RISE = 0.1            # [playbook] validation 10% above its best while training keeps
                              # falling (pick the checkpoint at the best validation loss)
MIN_VAL_POINTS = 5            # [design] validation losses needed before judging overfitting

# --- updates and gradients ------------------------------------------------------------------
LR_HIGH_RATIO = 0.1           # update/weight ratio per step; ~1e-3 is healthy [karpathy];
                              # 0.1 rewrites a tenth of the weights each step [measured]
LR_LOW_RATIO = 1e-5           # [karpathy] two orders below his 1e-3 ... when learning is poor
VANISHING_RATIO = 1e-3        # first/last layer relative gradient norm [deepdiag] ("vanishing
                              # gradient" compares gradients across layers); [measured] value
EXPLODING_RATIO = 1e3         # [deepdiag] first/last layer relative gradient norm, the mirror image
EXPLODING_GROWTH = 1e3        # gradient norm growth over the run (late / early) [pascanu]
EXPLODING_GRAD_TO_WEIGHT = 10.0  # [measured] |grad| / |weight| per layer at the first step:
                                 # healthy networks start around 0.01-0.1; at 10 one SGD
                                 # step with lr 0.1 moves every weight by its own size
CLIP_PERCENTILE = 90          # suggested clip: 90th percentile of the observed norms [pascanu]
                              # (clip at a value above typical norms, below the spikes)
ACCUMULATION_TOLERANCE = 0.01  # [design] .grad may differ from what backward delivered by 1%
                               # (float rounding, AMP); beyond that and larger: carried over
MIN_RECORDS = 2               # [design] verdicts on recorded statistics need at least 2 records
MAJORITY = 0.5                # [design] "persistently": in at least half of the relevant records

# causes first: data and set-up bugs, then numerics, hyper-parameters, the symptoms they
# produce in activations and gradients, and the loss curve last
CAUSE_ORDER = [
    "NAN_IN_INPUTS", "CONSTANT_INPUTS", "UNNORMALIZED_INPUTS",
    "OPTIMIZER_MISSING_PARAMS", "GRADIENTS_ACCUMULATING", "TRAINING_IN_EVAL_MODE",
    "DOUBLE_SOFTMAX", "NO_GRADIENT", "PARAMS_NOT_UPDATING",
    "LR_TOO_HIGH", "LR_TOO_LOW",
    "EXPLODING_ACTIVATIONS", "EXPLODING_GRADIENTS",
    "NAN_LOSS", "NAN_GRADIENTS",
    "VANISHING_GRADIENTS", "DEAD_RELU", "SATURATED_ACTIVATIONS", "COLLAPSED_ACTIVATIONS",
    "LOSS_DIVERGING", "LOSS_AT_CHANCE", "LOSS_OSCILLATING", "LOSS_PLATEAU", "OVERFITTING",
]

# which symptoms a cause explains when both are found (the cause inherits their severity)
EXPLAINS = {
    "NAN_IN_INPUTS": {"NAN_LOSS", "NAN_GRADIENTS"},
    "CONSTANT_INPUTS": {"COLLAPSED_ACTIVATIONS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "UNNORMALIZED_INPUTS": {"EXPLODING_ACTIVATIONS", "SATURATED_ACTIVATIONS", "DEAD_RELU",
                            "LOSS_DIVERGING", "NAN_LOSS", "LOSS_PLATEAU", "EXPLODING_GRADIENTS",
                            "LR_TOO_HIGH", "LOSS_OSCILLATING", "LOSS_AT_CHANCE"},
    "OPTIMIZER_MISSING_PARAMS": {"PARAMS_NOT_UPDATING", "LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "DOUBLE_SOFTMAX": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "NO_GRADIENT": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "PARAMS_NOT_UPDATING": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "GRADIENTS_ACCUMULATING": {"LOSS_DIVERGING", "LOSS_OSCILLATING", "NAN_LOSS"},
    "LR_TOO_HIGH": {"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "DEAD_RELU",
                    "EXPLODING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "LR_TOO_LOW": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "VANISHING_GRADIENTS": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "EXPLODING_GRADIENTS": {"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING",
                            "DEAD_RELU"},
    "EXPLODING_ACTIVATIONS": {"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "EXPLODING_GRADIENTS",
                              "DEAD_RELU"},
    "DEAD_RELU": {"LOSS_PLATEAU", "LOSS_AT_CHANCE", "COLLAPSED_ACTIVATIONS"},
    "SATURATED_ACTIVATIONS": {"VANISHING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "COLLAPSED_ACTIVATIONS": {"LOSS_PLATEAU", "LOSS_AT_CHANCE"},
    "NAN_GRADIENTS": {"NAN_LOSS"},
    "NAN_LOSS": {"NAN_GRADIENTS"},
}


# ============================================================================================
# the entry point
# ============================================================================================
def diagnose(run):
    """All findings for a recorded run, causes before symptoms within each severity."""
    ctx = _Context(run)
    findings = []
    for rule in RULES:
        found = rule(ctx)
        if found is None:
            continue
        for finding in (found if isinstance(found, list) else [found]):
            findings.append(finding)
            ctx.found[finding.code] = finding
    return link_causes(findings)


def link_causes(findings):
    """Link each symptom to the cause that explains it and order causes first.

    Each finding's cause is the highest-ranked other finding (CAUSE_ORDER) that EXPLAINS
    it - or the one a rule named itself (``evidence["likely_cause"]``); among NaN findings
    the earlier one is the cause. A root cause takes the worst severity of everything it
    explains. Findings come out grouped by root cause (best-ranked root first), each
    cause before its symptoms; ``sort_findings`` then orders them by severity, stably.
    """
    rank = {code: i for i, code in enumerate(CAUSE_ORDER)}
    present = {}
    for f in findings:
        present.setdefault(f.code, f)
    parent, named_by_rule = {}, set()
    for f in findings:
        named = f.evidence.get("likely_cause")
        if named in present and named != f.code:
            parent[f.code] = named
            named_by_rule.add(f.code)
            continue
        for cause in CAUSE_ORDER:
            c = present.get(cause)
            if c is None or c is f or f.code not in EXPLAINS.get(cause, ()):
                continue
            if cause.startswith("NAN_") and f.code.startswith("NAN_") and \
                    _step_key(c) > _step_key(f):
                continue    # among NaN findings the earlier one is the cause
            parent[f.code] = cause
            break
    # break cycles (a pair naming each other): a link a rule named itself wins, else the
    # link to the better-ranked cause
    for code in list(parent):
        seen, node = [code], parent.get(code)
        while node is not None and node not in seen:
            seen.append(node)
            node = parent.get(node)
        if node is not None:    # a cycle through `node`
            loop = seen[seen.index(node):]
            worst_link = max(loop, key=lambda c: (c not in named_by_rule,
                                                  rank.get(parent[c], len(rank))))
            del parent[worst_link]

    def root_of(code):
        depth = 0
        while code in parent:
            code, depth = parent[code], depth + 1
        return code, depth

    for f in findings:
        if f.code in parent and f is present[f.code]:
            f.evidence["likely_cause"] = parent[f.code]
            root = present[root_of(f.code)[0]]
            if SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[root.severity]:
                root.severity = f.severity

    def key(f):
        root, depth = root_of(f.code)
        return (rank.get(root, len(rank)), depth, _step_key(f))
    return sorted(findings, key=key)


def _step_key(f):
    return f.step if f.step is not None else 10 ** 12


# ============================================================================================
# what every rule needs, computed once
# ============================================================================================
class _Context:
    def __init__(self, run):
        self.run = run
        self.found = {}
        steps, losses = run.loss_array()
        self.loss_steps, self.losses = steps, losses
        bad = ~np.isfinite(losses)
        self.first_nan_step = int(steps[bad][0]) if bad.any() else None
        # everything after the first NaN anywhere is a consequence: rules look before it
        cut = self.first_nan_step
        for r in run.records:
            if not record_finite(r):
                cut = r.step if cut is None else min(cut, r.step)
                break
        self.cutoff = cut
        keep = steps < cut if cut is not None else np.ones(len(steps), bool)
        self.curve = losses[keep & np.isfinite(losses)]
        self.curve_steps = steps[keep & np.isfinite(losses)]
        self.records = [r for r in run.records if cut is None or r.step < cut]
        self.all_records = run.records
        self.loss_by_step = dict(zip(steps.tolist(), losses.tolist()))
        self.summary = _curve_summary(self.curve)
        self.weights = [i for i, p in enumerate(run.params) if len(p.shape) >= 2]
        self.classes = _output_classes(run)

    # --- learning quality, used to gate symptoms ---------------------------------------
    @property
    def enough_steps(self):
        return len(self.curve) >= MIN_STEPS_FOR_TREND

    def learning_poor(self):
        """Did training fail to make real progress (or blow up)?"""
        if self.first_nan_step is not None:
            return True
        if any(code in self.found for code in ("LOSS_DIVERGING", "LOSS_AT_CHANCE", "LOSS_PLATEAU",
                                               "LOSS_OSCILLATING")):
            return True
        s = self.summary
        if s is None:
            return False
        return s["improvement"] < POOR_IMPROVEMENT

    def ratios(self):
        """(records, weights) update/weight ratios, NaN where not measured."""
        upd = self.matrix("update_norm")
        norm = self.matrix("param_norm")
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = upd / np.where(norm > 0, norm, np.nan)
        return ratio[:, self.weights] if ratio.size else ratio

    def matrix(self, attribute):
        """``RunRecord.matrix`` over the records before the first non-finite step."""
        return self.run.matrix(attribute, self.records)


def record_finite(r):
    """Whether a recorded step saw only finite numbers (gradients, inputs, activations).

    The rules look only before the first step that did not; the monitor records the
    steps after one, to find where the NaN comes from.
    """
    if r.backward and r.grad_received is not None and r.grad_received.any() and \
            not np.all(np.isfinite(r.grad_norm[r.grad_received])):
        return False
    if not _inputs_finite(r):
        return False
    for stats in r.activations.values():
        if not math.isfinite(stats.get("mean", 0.0)):
            return False
    return True


def _curve_summary(curve):
    n = len(curve)
    if n < 2:
        return None
    n_windows = int(np.clip(n // MIN_WINDOW, 1, MAX_WINDOWS))
    windows = np.array_split(curve, n_windows)
    medians = np.array([np.median(w) for w in windows])
    width = len(windows[0])
    diffs = np.diff(curve)
    noise = 1.4826 * np.median(np.abs(diffs - np.median(diffs))) / math.sqrt(2) if len(diffs) else 0.0
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
            "tail": float(np.median(tail)),
            "gain_error": float(math.sqrt(window_error ** 2 + tail_error ** 2)),
            "improvement": float((start - best) / scale)}


def _output_classes(run):
    for r in reversed(run.records):
        if r.output is not None and r.output.ndim == 2:
            return int(r.output.shape[1])
    return None


def _names(run, indices):
    return [run.params[i].name for i in indices]


def _module(name):
    return name.rsplit(".", 1)[0] if "." in name else name


def _modules(names):
    out = []
    for n in names:
        m = _module(n)
        if m not in out:
            out.append(m)
    return out


def _short_list(items, limit=4):
    items = list(items)
    text = ", ".join(str(i) for i in items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _fmt(x):
    if x is None or not np.isfinite(x):
        return str(x)
    return f"{x:.3g}"


# ============================================================================================
# the rules, in the order they run (later rules may look at what earlier ones found)
# ============================================================================================
def _inputs_finite(r):
    return not r.inputs or (math.isfinite(r.inputs.get("mean", 0.0)) and
                            math.isfinite(r.inputs.get("std", 0.0)))


def _rms(stats):
    """Root-mean-square from a mean and a (population) std: sqrt(mean^2 + std^2); None
    when either was not measured."""
    if "mean" not in stats or "std" not in stats:
        return None
    return math.sqrt(stats["mean"] ** 2 + stats["std"] ** 2)


def nan_in_inputs(ctx):
    bad = [r.step for r in ctx.all_records if not _inputs_finite(r)]
    if not bad:
        return None
    checked = sum(1 for r in ctx.all_records if r.inputs)
    return Finding(
        "NAN_IN_INPUTS", "error", "", bad[0],
        f"The input batch contains NaN or Inf values (first at step {bad[0]}, in {len(bad)} of "
        f"{checked} recorded batches); every output and gradient they touch becomes NaN.",
        {"steps": bad[:20], "batches_with_nan": len(bad), "batches_checked": checked},
        "Find where the NaN/Inf enter the data (missing values, division by zero in "
        "preprocessing, log of 0) and clean or impute them before training; "
        "nndebug.check_data(x, y) scans a whole data set.")


def constant_inputs(ctx):
    records = [r for r in ctx.records if "constant_features" in r.inputs]
    if len(records) < 1:
        return None
    flat = [r for r in records if r.inputs["constant_features"] >= CONSTANT_INPUT_FRACTION]
    if len(flat) < max(1, MAJORITY * len(records)):
        return None
    r = flat[0]
    return Finding(
        "CONSTANT_INPUTS", "warning", "", r.step,
        "Every sample in the batch is the same input (no feature varies across the batch), "
        "so the network cannot learn anything that depends on the input.",
        {"constant_feature_share": r.inputs["constant_features"], "input_std": r.inputs.get("std"),
         "records_affected": len(flat), "records": len(records)},
        "Check the data pipeline: a broadcast or indexing bug (x[0] repeated), a transform that "
        "zeroes everything, or a batch built from one sample.")


def unnormalized_inputs(ctx):
    measured = [(r, _rms(r.inputs)) for r in ctx.records]
    measured = [(r, v) for r, v in measured if v is not None and math.isfinite(v)]
    if not measured or "CONSTANT_INPUTS" in ctx.found:
        return None
    typical = float(np.median([v for _, v in measured]))
    r = measured[0][0]
    if typical > INPUT_SCALE_HIGH:
        return Finding(
            "UNNORMALIZED_INPUTS", "warning", "", r.step,
            f"The inputs are far from unit scale (root-mean-square {_fmt(typical)}, mean "
            f"{_fmt(r.inputs.get('mean'))}): first-layer pre-activations are huge, which "
            "saturates or kills units and makes the learning rate hard to choose.",
            {"input_rms": typical, "input_mean": r.inputs.get("mean"), "input_std": r.inputs.get("std"),
             "threshold": INPUT_SCALE_HIGH},
            "Standardise the inputs: subtract the training-set mean and divide by its standard "
            "deviation per feature (or scale pixels to [0, 1]).")
    if typical < INPUT_SCALE_LOW:
        return Finding(
            "UNNORMALIZED_INPUTS", "warning", "", r.step,
            f"The inputs are tiny (root-mean-square {_fmt(typical)}): the first layer sees "
            "almost nothing and its weights learn very slowly.",
            {"input_rms": typical, "input_mean": r.inputs.get("mean"), "threshold": INPUT_SCALE_LOW},
            "Standardise the inputs to zero mean and unit variance per feature; check for a "
            "unit mistake (an extra division by 255 or 1000).")
    return None


def optimizer_missing_params(ctx):
    run = ctx.run
    if not run.has_optimizer:
        return None
    missing = [i for i, p in enumerate(run.params) if p.in_optimizer is False]
    if not missing:
        return None
    names = _names(run, missing)
    everything = len(missing) == len(run.params)
    received = [i for i in missing if any(r.grad_received is not None and len(r.grad_received) > i
                                          and r.grad_received[i] for r in ctx.records)]
    if everything:
        message = ("The optimizer holds none of the model's trainable parameters: "
                   "optimizer.step() changes nothing in this model (was the optimizer built "
                   "for another copy of the model, or before the model was rebuilt?).")
    else:
        message = (f"{len(missing)} trainable parameter tensor(s) are not in the optimizer "
                   f"({_short_list(names)}): they get gradients but are never updated.")
    return Finding(
        "OPTIMIZER_MISSING_PARAMS", "error" if everything else "warning",
        ", ".join(_modules(names)) if not everything else "", 0, message,
        {"missing": names, "missing_count": len(missing), "trainable_count": len(run.params),
         "missing_with_gradients": _names(run, received)},
        "Build the optimizer from the model you train, after the model is final: "
        "optimizer = Optim(model.parameters(), ...); to freeze a part on purpose set its "
        "requires_grad=False.")


def gradients_accumulating(ctx):
    flagged, checked, evidence = [], 0, None
    # parameters the optimizer does not hold are never zeroed by optimizer.zero_grad(); that
    # is OPTIMIZER_MISSING_PARAMS, not this
    held_by_optimizer = np.array([p.in_optimizer is not False for p in ctx.run.params], bool)
    for r in ctx.records[1:]:   # the first step may hold gradients from before watch()
        if r.held_norm is None or not r.backward or len(r.held_norm) != len(held_by_optimizer):
            continue
        ok = np.isfinite(r.held_norm) & np.isfinite(r.held_excess) & np.isfinite(r.grad_norm) & \
            (r.grad_norm > 0) & held_by_optimizer
        if not ok.any():
            continue
        checked += 1
        delivered = r.grad_norm[ok]
        held_ratio = r.held_norm[ok] / delivered
        excess_ratio = r.held_excess[ok] / delivered
        # scaling .grad down (clipping, unscaling) keeps it parallel: excess == |1 - held|
        carried = (held_ratio > 1 + ACCUMULATION_TOLERANCE) | \
                  (excess_ratio > np.abs(1 - held_ratio) + ACCUMULATION_TOLERANCE)
        if carried.mean() >= MAJORITY:
            flagged.append(r.step)
            if evidence is None:
                evidence = {"step": r.step, "held_over_delivered": float(np.median(held_ratio)),
                            "excess_over_delivered": float(np.median(excess_ratio))}
    if len(flagged) < MIN_RECORDS or len(flagged) < MAJORITY * checked:
        return None
    return Finding(
        "GRADIENTS_ACCUMULATING", "error", "", flagged[0],
        f"At optimizer.step() the parameters' .grad held more than this step's backward "
        f"delivered (|.grad| = {evidence['held_over_delivered']:.2f} x the new gradient at step "
        f"{evidence['step']}): gradients are carried over between steps, so every update "
        "also repeats all the previous ones.",
        {**evidence, "steps_flagged": flagged[:20], "steps_checked": checked},
        "Call optimizer.zero_grad() (or model.zero_grad()) once per optimizer step, before "
        "loss.backward(). To accumulate over micro-batches on purpose, zero once per "
        "optimizer step and call watch's step() only after optimizer.step().")


def training_in_eval_mode(ctx):
    relevant = [r for r in ctx.records if r.backward]
    affected = [r for r in relevant if r.eval_layers]
    if not affected:
        return None
    # from the first step trained in eval mode on (a loop may switch to eval after a while
    # and never back): most of those steps, and at least two of them
    since = [r for r in relevant if r.step >= affected[0].step]
    if len(affected) < MIN_RECORDS or len(affected) < MAJORITY * len(since):
        return None
    layers = affected[0].eval_layers
    return Finding(
        "TRAINING_IN_EVAL_MODE", "warning", layers[0], affected[0].step,
        f"Backward ran while {len(layers)} dropout/batch-norm layer(s) were in eval mode "
        f"({_short_list(layers)}): dropout is off and batch norm uses frozen running "
        "statistics, so the model is not trained the way it is meant to be.",
        {"eval_layers": layers, "records_affected": len(affected), "records_since": len(since),
         "records": len(relevant)},
        "Call model.train() before the training loop (and model.eval() only around "
        "evaluation, switching back afterwards).")


def double_softmax(ctx):
    if ctx.classes is None:
        return None
    probs, in_band, first = 0, 0, None
    for r in ctx.records:
        out = r.output
        if out is None or out.ndim != 2 or out.shape[1] < 2 or not np.all(np.isfinite(out)):
            continue
        is_prob = out.min() >= -1e-6 and np.max(np.abs(out.sum(axis=1) - 1)) < 1e-3
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
    softmax_layers = [l.name for l in ctx.run.layers if l.kind == "softmax"]
    where = softmax_layers[-1] if softmax_layers else ""
    if in_band >= max(1, MAJORITY * probs) and first is not None:
        step, low, high, loss = first
        return Finding(
            "DOUBLE_SOFTMAX", "error", where, step,
            "The model outputs probabilities (rows are non-negative and sum to 1) and the loss "
            f"treats them as logits (loss {loss:.3f} lies in [{low:.3f}, {high:.3f}], the range "
            "cross-entropy takes on probabilities): softmax is applied twice, gradients are "
            "squashed and the loss cannot get near 0.",
            {"loss": loss, "band_low": low, "band_high": high, "records_with_probabilities": probs,
             "records_in_band": in_band, "classes": ctx.classes},
            "Remove the final Softmax layer and give raw logits to CrossEntropyLoss (it applies "
            "log-softmax itself); use softmax only for predictions.")
    return Finding(
        "DOUBLE_SOFTMAX", "info", where, None,
        "The model outputs probabilities; that is right only if the loss expects "
        "probabilities (NLLLoss after log, BCELoss), not logits (CrossEntropyLoss).",
        {"records_with_probabilities": probs, "classes": ctx.classes},
        "If the loss is CrossEntropyLoss, remove the final softmax.")


def no_gradient(ctx):
    records = [r for r in ctx.records if r.backward and r.grad_received is not None]
    if len(records) < MIN_RECORDS:
        return None
    received = np.vstack([r.grad_received for r in records])
    never = [i for i in range(received.shape[1]) if not received[:, i].any()]
    if not never:
        return None
    run = ctx.run
    names = _names(run, never)
    later = [i for i in range(len(run.params)) if i > max(never) and received[:, i].any()]
    detached = bool(later) and never == list(range(len(never)))
    if detached:
        message = (f"Parameters before {run.params[later[0]].name} receive no gradient at all "
                   f"({_short_list(names)}): the graph is cut between them and the loss "
                   "(a .detach(), .data, .item(), a NumPy round trip or torch.no_grad()).")
        fix = ("Remove the .detach()/.data/.numpy() (or no_grad block) in the forward pass "
               f"after {_modules(names)[-1] or 'the first layers'}; compute everything the loss "
               "depends on with tensor operations.")
    else:
        message = (f"{len(never)} trainable parameter tensor(s) receive no gradient at all "
                   f"({_short_list(names)}): they are not used by the loss, or their output is "
                   "detached from the graph.")
        fix = ("Check that these layers are used in forward() and that nothing detaches their "
               "output; if they are meant to stay fixed, set requires_grad=False.")
    return Finding("NO_GRADIENT", "warning", ", ".join(_modules(names)), records[0].step, message,
                   {"parameters": names, "records": len(records)}, fix)


def params_not_updating(ctx):
    records = [r for r in ctx.records if r.backward and r.update_norm is not None
               and len(r.update_norm) == len(ctx.run.params)]
    if len(records) < MIN_RECORDS:
        return None
    run = ctx.run
    upd = np.vstack([r.update_norm for r in records])
    got = np.vstack([r.grad_received & (np.nan_to_num(r.grad_norm) > 0) for r in records])
    stuck = [i for i in range(len(run.params)) if got[:, i].any() and np.all(upd[got[:, i], i] == 0)
             and run.params[i].in_optimizer is not False]
    if not stuck:
        return None
    names = _names(run, stuck)
    lrs = [lr for r in records for lr in r.lrs]
    held = np.vstack([r.held_norm for r in records])[:, stuck]
    cleared = np.all(~np.isfinite(held) | (held == 0))
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
                   f"({_short_list(names)}): optimizer.step() is not called, or the optimizer "
                   "holds other tensors (e.g. a copy of the model made after it was built).")
        fix = ("Call optimizer.step() after loss.backward(), with an optimizer built from this "
               "model's parameters; pass optimizer= to watch() so nndebug can check.")
    everything = len(stuck) == len(run.params)
    return Finding("PARAMS_NOT_UPDATING", "error" if everything else "warning",
                   "" if everything else ", ".join(_modules(names)), records[0].step, message,
                   {"parameters": names, "records": len(records), "grad_cleared_before_step":
                    bool(cleared), "learning_rates": sorted(set(lrs))[:5]}, fix)


def nan_loss(ctx):
    if ctx.first_nan_step is None:
        return None
    step = ctx.first_nan_step
    steps, losses = ctx.loss_steps, ctx.losses
    before = losses[(steps < step) & np.isfinite(losses)]
    evidence = {"first_nan_step": step, "nan_steps": int((~np.isfinite(losses)).sum()),
                "last_finite_losses": before[-5:].tolist()}
    grew = len(before) >= 2 and before[-1] > 10 * max(np.min(before), 1e-12) and \
        before[-1] > before[0]
    if grew:
        evidence["growth_before_nan"] = float(before[-1] / max(np.min(before), 1e-12))
    # the first layer whose activations were non-finite, from the step before the NaN loss on
    bad_layer = next((name for r in ctx.all_records if r.step >= step - 1
                      for name, stats in r.activations.items()
                      if not math.isfinite(stats.get("mean", 0.0))), None)
    if bad_layer is not None:
        evidence["first_nonfinite_layer"] = bad_layer
    message = f"The loss became NaN/Inf at step {step}"
    message += (" after growing fast: the training blew up" if grew else "") + "."
    return Finding("NAN_LOSS", "error", bad_layer or "", step,
                   message, evidence,
                   "Lower the learning rate and/or clip gradients; check the loss for log(0) or "
                   "division by zero (use log-softmax / logits-based losses, add eps), and the data "
                   "for NaN.")


def nan_gradients(ctx):
    for r in ctx.all_records:
        if not r.backward or r.grad_received is None:
            continue
        bad = [i for i in np.flatnonzero(r.grad_received) if not np.isfinite(r.grad_norm[i])]
        if not bad:
            continue
        run = ctx.run
        # the NaN enters backward at the parameter closest to the output that has it
        where = run.params[max(bad)].name
        loss = ctx.loss_by_step.get(r.step)
        return Finding(
            "NAN_GRADIENTS", "error", _module(where), r.step,
            f"Gradients of {len(bad)} parameter tensor(s) are NaN/Inf at step {r.step}, first "
            f"(nearest the output) in {where}" +
            (" while the loss was still finite" if loss is not None and np.isfinite(loss) else "") +
            "; one such update turns the weights into NaN.",
            {"parameters": _names(run, bad), "loss_at_step": loss,
             "finite_loss": bool(loss is not None and np.isfinite(loss))},
            "Look for an operation with an infinite derivative in that layer's forward: sqrt or "
            "norm at 0, log/pow near 0, division by a tiny number; add an eps (sqrt(x + 1e-12)) "
            "or use the library's stable version; clip gradients as a safety net.")
    return None


def _ratio_summary(ctx):
    ratios = ctx.ratios()
    if ratios.size == 0:
        return None
    early = ratios[: max(1, min(len(ratios), 5))]
    with np.errstate(all="ignore"):
        per_layer = np.nanmedian(np.where(np.isfinite(ratios), ratios, np.nan), axis=0) \
            if np.isfinite(ratios).any() else None
        early_layer = np.nanmax(np.where(np.isfinite(early), early, np.nan), axis=0) \
            if np.isfinite(early).any() else None
    return per_layer, early_layer


def _loss_blew_up(ctx):
    s = ctx.summary
    if ctx.first_nan_step is not None:
        return True
    return "LOSS_DIVERGING" in ctx.found or "LOSS_OSCILLATING" in ctx.found or \
        (s is not None and s["end"] > s["start"] * 1.5 and s["end"] > s["start"] + 4 * s["window_error"])


def lr_too_high(ctx):
    summary = _ratio_summary(ctx)
    if summary is None:
        return None
    per_layer, early_layer = summary
    if early_layer is None:
        return None
    big = float(np.nanmedian(early_layer))
    typical = float(np.nanmedian(per_layer)) if per_layer is not None else big
    if not (big > LR_HIGH_RATIO or typical > LR_HIGH_RATIO):
        return None
    exploding = ctx.found.get("EXPLODING_GRADIENTS")
    if exploding is not None and exploding.evidence.get("from_start"):
        return None     # the updates are huge because the gradients are: not the LR's fault
    died = ctx.found.get("DEAD_RELU")
    died_later = died is not None and died.severity != "info" and \
        died.evidence.get("died_during_training")
    blew_up = _loss_blew_up(ctx)
    if not (blew_up or died_later or ctx.learning_poor()):
        return None
    lrs = sorted({lr for r in ctx.records for lr in r.lrs})
    effect = ("killed ReLU units" if died_later else
              "made the loss blow up" if blew_up else "keeps the loss from improving")
    return Finding(
        "LR_TOO_HIGH", "warning", "", ctx.records[0].step if ctx.records else None,
        f"Each update changes the weights by {big:.0%} of their size in the first steps "
        f"(healthy is about 0.1%); the learning rate is too high and {effect}.",
        {"update_to_weight_early": big, "update_to_weight_median": typical,
         "healthy_ratio": 1e-3, "threshold": LR_HIGH_RATIO, "learning_rates": lrs[:5]},
        "Lower the learning rate 3-10x (nndebug.find_lr suggests one); add warm-up, and "
        "gradient clipping if spikes remain.")


def lr_too_low(ctx):
    if not ctx.enough_steps:
        return None
    # only layers that get a gradient and belong to the optimizer: a zero update from a zero
    # gradient (dead units) or from a missing parameter is another finding's business
    ratios = ctx.ratios()
    grads = ctx.matrix("grad_norm")[:, ctx.weights] if ratios.size else ratios
    held = [ctx.run.params[i].in_optimizer is not False for i in ctx.weights]
    per_layer = []
    recent = np.arange(len(ratios)) >= len(ratios) // 2     # the LR now, not at the start
    for j in range(ratios.shape[1] if ratios.ndim == 2 else 0):
        live = np.isfinite(ratios[:, j]) & np.isfinite(grads[:, j]) & (grads[:, j] > 0) & recent
        if held[j] and live.any():
            per_layer.append(float(np.median(ratios[live, j])))
    if not per_layer:
        return None
    fastest = float(np.max(per_layer))
    if fastest >= LR_LOW_RATIO or not ctx.learning_poor() or "PARAMS_NOT_UPDATING" in ctx.found:
        return None
    lrs = sorted({lr for r in ctx.records for lr in r.lrs})
    decayed = len(lrs) >= 2 and lrs[0] < 1e-3 * lrs[-1]
    message = (f"Even the fastest-changing layer moves only {fastest:.1e} of its weight size per "
               "step (healthy is about 1e-3) and the loss is not improving: the learning rate "
               "is too low")
    message += " (it was decayed by a factor of %.0e during the run)." % (lrs[-1] / lrs[0]) \
        if decayed else "."
    return Finding(
        "LR_TOO_LOW", "warning", "", ctx.records[0].step if ctx.records else None, message,
        {"update_to_weight_max_layer": fastest, "healthy_ratio": 1e-3, "threshold": LR_LOW_RATIO,
         "learning_rates": lrs[:5] + ([lrs[-1]] if len(lrs) > 5 else []),
         "lr_decayed": bool(decayed)},
        "Raise the learning rate (try 10x steps; nndebug.find_lr suggests one)" +
        ("; check the scheduler: step it once per epoch, not per batch." if decayed else "."))


def _layer_grad_profile(ctx):
    """Per weight layer: median of |grad| / |w| over the recorded steps (definition order)."""
    g = ctx.matrix("grad_norm")
    w = ctx.matrix("param_norm")
    if g.size == 0 or len(ctx.weights) < 2:
        return None
    with np.errstate(all="ignore"):
        rel = g / np.where(w > 0, w, np.nan)
        rel = rel[:, ctx.weights]
        rel = np.where(np.isfinite(rel) & (rel > 0), rel, np.nan)
        if not np.isfinite(rel).any(axis=0).all():
            return None
        return np.nanmedian(rel, axis=0)


def vanishing_gradients(ctx):
    profile = _layer_grad_profile(ctx)
    if profile is None:
        return None
    ratio = float(profile[0] / profile[-1])
    if not ratio < VANISHING_RATIO:
        return None
    names = _names(ctx.run, ctx.weights)
    poor = ctx.learning_poor()
    saturated = "SATURATED_ACTIVATIONS" in ctx.found
    return Finding(
        "VANISHING_GRADIENTS", "warning" if poor else "info", _module(names[0]),
        ctx.records[0].step,
        f"The gradient reaching the first layer ({names[0]}) is {ratio:.1e} times the last "
        f"layer's (relative to weight size): the early layers barely learn" +
        (", while the loss is not improving." if poor else "; learning still progresses."),
        {"first_over_last": ratio, "per_layer": dict(zip(names, profile.tolist())),
         "threshold": VANISHING_RATIO},
        ("Use ReLU-family activations instead of sigmoid/tanh in hidden layers, He/Kaiming "
         "initialisation, normalisation layers (BatchNorm/LayerNorm) or residual connections."
         if not saturated else "Fix the saturation first (smaller init, input scaling, ReLU)."))


def exploding_gradients(ctx):
    profile = _layer_grad_profile(ctx)
    g = ctx.matrix("grad_norm")
    total = np.sqrt(np.nansum(np.where(np.isfinite(g), g, np.nan) ** 2, axis=1)) if g.size else g
    total = total[np.isfinite(total) & (total > 0)] if total.size else total
    reasons, evidence = [], {}
    first = next((r for r in ctx.records if r.backward), None)
    if first is not None and ctx.weights:
        with np.errstate(all="ignore"):
            rel = first.grad_norm[ctx.weights] / first.param_norm[ctx.weights]
        rel = rel[np.isfinite(rel)]
        if rel.size and np.median(rel) > EXPLODING_GRAD_TO_WEIGHT:
            evidence["grad_to_weight_first_step"] = float(np.median(rel))
            evidence["from_start"] = True
            reasons.append(f"at the first step the gradients are {np.median(rel):.0f} times "
                           "larger than the weights themselves")
    if profile is not None:
        ratio = float(profile[0] / profile[-1])
        evidence["first_over_last"] = ratio
        if ratio > EXPLODING_RATIO:
            reasons.append(f"the first layer's gradient is {ratio:.1e} times the last layer's")
    if total.size >= 3:
        early = float(np.median(total[: max(1, min(3, total.size // 3))]))
        growth = float(np.max(total) / early) if early > 0 else float("inf")
        evidence["growth_over_run"] = growth
        if growth > EXPLODING_GROWTH:
            reasons.append(f"the gradient norm grew {growth:.1e} times during the run")
    blew = any(not np.all(np.isfinite(r.grad_norm[r.grad_received])) for r in ctx.all_records
               if r.backward and r.grad_received is not None) or ctx.first_nan_step is not None
    if blew and total.size and not reasons:
        ratio = np.max(total) / np.median(total)
        if ratio > 10:
            reasons.append("the gradient norm spiked before the run turned NaN")
    if not reasons:
        return None
    clip = _clip_suggestion(total)
    evidence.update({"suggested_clip_norm": clip, "observed_norms_median": float(np.median(total))
                     if total.size else None, "observed_norms_max": float(np.max(total))
                     if total.size else None})
    poor = ctx.learning_poor()
    names = _names(ctx.run, ctx.weights)
    return Finding(
        "EXPLODING_GRADIENTS", "warning" if poor else "info", _module(names[0]) if names else "",
        ctx.records[0].step if ctx.records else None,
        "Gradients explode: " + "; ".join(reasons) + ".",
        evidence,
        f"Clip the gradient norm (e.g. clip_grad_norm_(params, max_norm={_fmt(clip)}), the "
        f"{CLIP_PERCENTILE}th percentile of the norms seen before the blow-up), lower the "
        "learning rate, check the scale of the loss (standardise regression targets; mean, "
        "not sum, over the batch) and of the initialisation (He/Glorot), or add normalisation.")


def _clip_suggestion(norms):
    norms = np.asarray(norms, float)
    if norms.size == 0:
        return None
    early = np.median(norms[: max(1, min(5, norms.size))])
    calm = norms[norms <= 10 * early] if early > 0 else norms
    return float(np.percentile(calm if calm.size else norms, CLIP_PERCENTILE))


def exploding_activations(ctx):
    worst, first = None, None     # the layer with the largest typical RMS; the first huge one
    for layer in ctx.run.layers:
        values = [_rms(r.activations[layer.name]) for r in ctx.records
                  if "std" in r.activations.get(layer.name, {})]
        if not values:
            continue
        if first is None and any(v > EXPLODING_ACTIVATION_RMS for v in values):
            first = layer.name
        typical = float(np.median(values))
        if typical > EXPLODING_ACTIVATION_RMS and (worst is None or typical > worst[1]):
            worst = (layer.name, typical)
    if worst is None:
        return None
    first_record = next((r for r in ctx.records if r.activations), None)
    from_start = first_record is not None and any(
        _rms(st) > EXPLODING_ACTIVATION_RMS
        for st in first_record.activations.values() if "std" in st)
    exploding = ctx.found.get("EXPLODING_GRADIENTS")
    gradients_first = exploding is not None and exploding.evidence.get("from_start")
    return Finding(
        "EXPLODING_ACTIVATIONS", "warning", first, ctx.records[0].step,
        f"Activations are huge: layer {worst[0]} has root-mean-square {_fmt(worst[1])} "
        f"(unit-scale layers sit near 1); it starts at {first}.",
        {"worst_layer": worst[0], "rms": worst[1], "first_layer": first,
         "threshold": EXPLODING_ACTIVATION_RMS, "from_start": from_start,
         **({"likely_cause": "EXPLODING_GRADIENTS"} if gradients_first and not from_start
            else {})},
        "Use a variance-preserving initialisation (Kaiming for ReLU, Glorot for tanh), "
        "normalise the inputs, or add normalisation layers.")


def dead_relu(ctx):
    if "CONSTANT_INPUTS" in ctx.found:
        return None     # identical samples make every unit all-or-nothing: meaningless here
    worst, layers = None, {}
    for layer in ctx.run.layers:
        if layer.kind != "relu":
            continue
        masks = [(r.step, r.dead_units[layer.name]) for r in ctx.records
                 if layer.name in r.dead_units]
        if not masks:
            continue
        # a unit is dead when it is zero for every sample in each of several recorded
        # batches: a unit that merely fires rarely survives one of them
        k = min(DEAD_PERSISTENCE, len(masks))
        final = float(np.mean(np.logical_and.reduce([m for _, m in masks[-k:]])))
        born = float(np.mean(np.logical_and.reduce([m for _, m in masks[:k]])))
        layers[layer.name] = final
        if final >= DEAD_FRACTION and (worst is None or final > worst[1]):
            first_dead = next((step for step, m in masks if m.mean() >= DEAD_FRACTION), masks[0][0])
            worst = (layer.name, final, born, first_dead)
    if worst is None:
        return None
    name, final, born, step = worst
    died_later = born < 0.5 * final
    poor = ctx.learning_poor()
    severe = final >= DEAD_FRACTION_SEVERE and poor
    # a symptom: a warning when learning is poor or nearly the whole layer is gone
    severity = "error" if severe else "warning" if poor or final >= DEAD_FRACTION_SEVERE else "info"
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
        "DEAD_RELU", severity, name, step,
        f"{final:.0%} of the units of {name} output zero for every sample of the batch "
        f"(no gradient passes through them); {cause}.",
        {"dead_share": final, "dead_share_first_record": born, "per_layer": layers,
         "died_during_training": bool(died_later), "threshold": DEAD_FRACTION}, fix)


def saturated_activations(ctx):
    worst = None
    for layer in ctx.run.layers:
        if layer.kind not in ("tanh", "sigmoid"):
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
    poor = ctx.learning_poor()
    return Finding(
        "SATURATED_ACTIVATIONS", "warning", worst[0], worst[2],
        f"{worst[1]:.0%} of the outputs of {worst[0]} sit at the flat ends of the "
        "tanh/sigmoid, where the derivative is ~0: the layers before it barely learn" +
        (" and the loss is not improving." if poor else
         " (the layers after it still can, so the loss may fall for a while)."),
        {"saturated_share": worst[1], "threshold": SATURATED_FRACTION},
        "Scale the inputs to unit variance, use Glorot/Xavier initialisation (smaller weights), "
        "or switch hidden activations to ReLU/GELU.")


def collapsed_activations(ctx):
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
            scale = _rms(stats)
            if not scale > 0 or (layer.kind == "relu" and stats.get("dead", 0) >= DEAD_FRACTION):
                continue
            n += 1
            if stats["batch_spread"] <= COLLAPSED_SPREAD * scale:
                across_batch += 1
                step = r.step if step is None else step
            if "unit_spread" in stats and stats["unit_spread"] <= COLLAPSED_SPREAD * scale:
                across_units += 1
                step = r.step if step is None else step
        if n == 0:
            continue
        if across_batch >= max(1, MAJORITY * n):
            found = (layer.name, "batch", step)
            break
        if across_units >= max(1, MAJORITY * n):
            found = (layer.name, "units", step)
            break
    if found is None:
        return None
    name, kind, step = found
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
    return Finding("COLLAPSED_ACTIVATIONS", "warning", name, step, message,
                   {"layer": name, "spread": kind, "threshold": COLLAPSED_SPREAD}, fix)


def _after_dead_layer(ctx, record, name):
    """Whether a ReLU layer before ``name`` was (almost) entirely dead in this record."""
    for layer in ctx.run.layers:
        if layer.name == name:
            return False
        if layer.kind == "relu" and record.activations.get(layer.name, {}).get("dead", 0) \
                >= DEAD_FRACTION_SEVERE:
            return True
    return False


def loss_diverging(ctx):
    s = ctx.summary
    if s is None or not ctx.enough_steps:
        return None
    margin = max(NOISE_SIGMAS * s["window_error"], DIVERGE_RISE * (s["start"] - s["best"]),
                 DIVERGE_REL * abs(s["best"]))
    above_start = s["end"] > s["start"] + max(NOISE_SIGMAS * s["window_error"],
                                              0.1 * abs(s["start"]))
    if not (s["end"] > s["best"] + margin or above_start):
        return None
    if s["best_window"] == len(s["medians"]) - 1:
        return None
    step = int(ctx.curve_steps[min(len(ctx.curve_steps) - 1, (s["best_window"] + 1) * s["width"])])
    return Finding(
        "LOSS_DIVERGING", "warning", "", step,
        f"The loss is rising well above its best: it ended at {_fmt(s['end'])} after reaching "
        f"{_fmt(s['best'])} (window medians; minibatch noise {_fmt(s['noise'])}).",
        {"start": s["start"], "best": s["best"], "end": s["end"], "noise": s["noise"]},
        "Lower the learning rate (or add warm-up/decay); clip gradients; check for a missing "
        "zero_grad.")


def loss_at_chance(ctx):
    s = ctx.summary
    if s is None or not ctx.enough_steps or ctx.classes is None or ctx.classes < 2:
        return None
    chance = math.log(ctx.classes)
    tol = CHANCE_TOLERANCE * chance
    if not (abs(s["end"] - chance) <= tol and s["best"] >= chance - 2 * tol):
        return None
    others = [c for c in ("DOUBLE_SOFTMAX", "DEAD_RELU", "LR_TOO_LOW", "VANISHING_GRADIENTS",
                          "PARAMS_NOT_UPDATING", "OPTIMIZER_MISSING_PARAMS", "NO_GRADIENT",
                          "SATURATED_ACTIVATIONS", "COLLAPSED_ACTIVATIONS", "CONSTANT_INPUTS",
                          "LR_TOO_HIGH") if c in ctx.found and ctx.found[c].severity != "info"]
    if others:
        message = (f"The loss stays at chance level ({_fmt(s['end'])} vs ln({ctx.classes}) = "
                   f"{chance:.3f}): the model predicts a uniform guess (see {others[0]}).")
        fix = "Fix the causes listed above first."
    else:
        message = (f"The loss stays at chance level ({_fmt(s['end'])} vs ln({ctx.classes}) = "
                   f"{chance:.3f}) although the weights update and gradients flow normally: the "
                   "model could fit these batches, so the labels probably do not belong to the "
                   "inputs.")
        fix = ("Check that labels are aligned with their inputs: shuffle x and y with the same "
               "permutation, keep the same order after filtering/sorting, and check the label "
               "mapping; then check that the model can overfit one batch "
               "(nndebug.overfit_one_batch).")
    return Finding("LOSS_AT_CHANCE", "warning", "", int(ctx.curve_steps[0]), message,
                   {"loss_end": s["end"], "loss_best": s["best"], "chance": chance,
                    "classes": ctx.classes, "other_causes": others}, fix)


def loss_oscillating(ctx):
    curve = ctx.curve
    n = len(curve)
    if n < MIN_STEPS_FOR_TREND or ctx.summary is None:
        return None
    k = OSCILLATION_WINDOW
    padded = np.pad(curve, (k // 2, k // 2), mode="edge")
    running = np.median(np.lib.stride_tricks.sliding_window_view(padded, k), axis=1)
    resid = curve - running
    # the loss scale of the problem: where training started, or for a classifier at least
    # the chance level ln(C) (a run resumed from a converged checkpoint starts near 0)
    level = max(abs(ctx.summary["start"]), math.log(ctx.classes) if ctx.classes else 0, 1e-12)
    # 1. swings: the spread around the running level after the first third of the run,
    #    relative to the starting loss, against what minibatch noise gives at this batch size
    late = resid[n // 3:]
    swing = 1.4826 * float(np.median(np.abs(late))) / level
    batch = _batch_size(ctx)
    allowed = OSCILLATION_AMPLITUDE * math.sqrt(max(1.0, OSCILLATION_REFERENCE_BATCH / batch)) \
        if batch else OSCILLATION_AMPLITUDE
    # 2. spikes: single steps far above the running level
    sigma = 1.4826 * np.median(np.abs(resid))
    spikes = np.flatnonzero((resid > OSCILLATION_SIGMAS * max(sigma, 1e-12)) &
                            (resid > OSCILLATION_REL * level))
    spiky = len(spikes) >= max(OSCILLATION_MIN_SPIKES, OSCILLATION_SPIKE_SHARE * n)
    if swing <= allowed and not spiky:
        return None
    evidence = {"swing_over_start": swing, "allowed_swing": allowed, "batch_size": batch,
                "spikes": len(spikes), "spike_steps": ctx.curve_steps[spikes][:20].tolist(),
                "steps": n}
    if swing > allowed:
        message = (f"The loss swings up and down by {swing:.0%} of its starting value from step "
                   f"to step (minibatch noise at batch size {batch or '?'} explains up to about "
                   f"{allowed:.0%}): updates overshoot, or batches differ systematically (data "
                   "not shuffled).")
        step = int(ctx.curve_steps[n // 3])
    else:
        message = (f"The loss jumps far above its running level {len(spikes)} times in {n} steps "
                   f"(each over {OSCILLATION_SIGMAS:.0f}x the minibatch noise and over "
                   f"{OSCILLATION_REL:.0%} of the starting loss): updates overshoot.")
        step = int(ctx.curve_steps[spikes[0]])
    return Finding(
        "LOSS_OSCILLATING", "warning", "", step, message, evidence,
        "Shuffle the training data every epoch (batches sorted by class swing the loss); "
        "lower the learning rate or raise the batch size; clip gradients if single batches "
        "cause the spikes.")


def _batch_size(ctx):
    sizes = [r.inputs["batch"] for r in ctx.records if r.inputs and "batch" in r.inputs]
    return float(np.median(sizes)) if sizes else None


def loss_plateau(ctx):
    s = ctx.summary
    if s is None or not ctx.enough_steps or "LOSS_AT_CHANCE" in ctx.found:
        return None
    gained = s["start"] - s["tail"]
    # "not improving" must be sure: even the optimistic end of the noise band around the
    # measured gain (start window vs the last fifth) stays below the threshold
    if gained + PLATEAU_CONFIDENCE * s["gain_error"] >= PLATEAU_IMPROVEMENT * abs(s["start"]):
        return None
    if ctx.classes and s["best"] < CONVERGED_SHARE * math.log(ctx.classes):
        return None     # a classifier already far below chance: converged, not stuck
    return Finding(
        "LOSS_PLATEAU", "warning", "", int(ctx.curve_steps[0]),
        f"The loss is not improving: over {s['n']} steps it ends only "
        f"{gained / max(abs(s['start']), 1e-12):.1%} below where it started ({_fmt(s['start'])} "
        f"-> {_fmt(s['tail'])}).",
        {"start": s["start"], "best": s["best"], "end": s["end"], "noise": s["noise"],
         "improvement": s["improvement"]},
        "Check the learning rate (nndebug.find_lr), that the optimizer holds the model's "
        "parameters, and that the model can overfit one batch (nndebug.overfit_one_batch).")


def overfitting(ctx):
    steps, val = ctx.run.val_array()
    ok = np.isfinite(val)
    steps, val = steps[ok], val[ok]
    if len(val) < MIN_VAL_POINTS:
        return None
    n_windows = int(np.clip(len(val) // 2, 2, 10))
    windows = np.array_split(np.arange(len(val)), n_windows)
    med = np.array([np.median(val[w]) for w in windows])
    best = int(np.argmin(med))
    if best == len(med) - 1:
        return None
    rise = med[-1] - med[best]
    if rise <= OVERFIT_RISE * abs(med[best]):
        return None
    train = ctx.curve
    tsteps = ctx.curve_steps
    at_best = train[tsteps <= steps[windows[best][-1]]]
    after = train[tsteps > steps[windows[best][-1]]]
    if len(at_best) < 3 or len(after) < 3 or np.median(after[-len(after) // 2:]) >= \
            np.median(at_best[-max(3, len(at_best) // 3):]):
        return None
    step = int(steps[windows[best][-1]])
    return Finding(
        "OVERFITTING", "warning", "", step,
        f"The validation loss rose {rise / max(abs(med[best]), 1e-12):.0%} above its best "
        f"(around step {step}) while the training loss kept falling: the model memorises the "
        "training set.",
        {"val_best": float(med[best]), "val_end": float(med[-1]), "best_step": step},
        "Keep the checkpoint with the best validation loss (early stopping), add data "
        "augmentation, weight decay or dropout, or use a smaller model.")


RULES = [
    nan_in_inputs, constant_inputs, unnormalized_inputs,
    optimizer_missing_params, gradients_accumulating, training_in_eval_mode,
    double_softmax, no_gradient, params_not_updating,
    nan_loss, nan_gradients,
    # the loss-curve verdicts first, because several cause rules ask about them
    loss_diverging, loss_oscillating,
    dead_relu, saturated_activations, exploding_gradients, exploding_activations,
    collapsed_activations, lr_too_high, lr_too_low, vanishing_gradients,
    loss_at_chance, loss_plateau, overfitting,
]

"""`nndebug check TARGET`: the pre-training checklist, one step at a time.

    nndebug check examples/mlp.py:make [--steps 200] [--train-steps 30] [--seed 0] [--json F]

TARGET is ``path/to/file.py:factory``; ``factory()`` returns
``dict(model=..., inputs=..., targets=..., loss_fn=..., optimizer=None)``.

The steps, in the order a careful person runs them before a long training run:

1. parameters        count them (trainable and frozen)
2. output & labels   one forward pass: output shape, label dtype and range against the loss,
                     the loss at initialisation against chance
3. overfit one batch can the model memorise a few samples? (``nd.overfit_one_batch``)
4. training steps    a few steps with your optimizer under the monitor (``nd.watch``)
5. gradient check    backward against finite differences on a few samples (``nd.gradcheck``)
6. dependencies      no sample reads another, no position reads the one it predicts, labels
                     shifted right, positions used (``nd.check_dependencies``)
7. data              the inputs and targets themselves (``nd.check_data``)

Each step prints PASS, WARN or FAIL with one line of why. Nothing of the model is changed:
every step works on a private copy. Exit code 0: every step passed; 1: a step warned or
failed; 2: the TARGET could not be loaded (one line on stderr).
"""
import json
import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..cli import EXIT_HEALTHY, EXIT_PROBLEMS, one_line
from ._output import output_file

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"
OVERFIT_SAMPLES = 16
"""Samples the overfit step memorises: few enough to be memorised in a couple of hundred steps
by any model worth training, enough to need more than a bias."""
GRADCHECK_SAMPLES = 4
"""Samples for the gradient check: its cost is forward passes, and a wrong backward shows on any."""
TRAIN_BATCH = 32
INIT_LOSS_FACTOR = 1.5
"""A classifier's first loss above 1.5 x ln(classes) means over-confident random guesses: the
last layer is initialised too large (Karpathy's 'verify loss @ init')."""
CLASSIFICATION_LOSSES = ("CrossEntropyLoss", "NLLLoss")
REGRESSION_LOSSES = ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss")
BINARY_LOSSES = ("BCEWithLogitsLoss", "BCELoss")


@dataclass
class Step:
    name: str
    verdict: str
    why: str
    details: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self):
        return {"name": self.name, "verdict": self.verdict, "why": self.why, "details": self.details,
                "findings": [f.to_dict() for f in self.findings], "seconds": round(self.seconds, 3)}


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "check", help="the pre-training checklist: parameters, shapes, overfit one batch, a few "
                      "monitored steps, gradient check, data",
        description="Run the checklist to go through before a long training run, on a private "
                    "copy of your model (nothing of yours is changed), with a PASS/WARN/FAIL "
                    "verdict and one line of why per step. Exit code 0: all passed; 1: problems "
                    "found; 2: TARGET could not be loaded.")
    parser.add_argument("target", metavar="TARGET",
                        help="path/to/file.py:factory, where factory() returns dict(model=..., "
                             "inputs=..., targets=..., loss_fn=..., optimizer=None)")
    parser.add_argument("--steps", type=_positive, default=200,
                        help="Adam steps of the overfit-one-batch step (default 200)")
    parser.add_argument("--train-steps", type=_positive, default=30,
                        help="optimizer steps run under the monitor (default 30)")
    parser.add_argument("--seed", type=_seed, default=0, help="seed for every random choice (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the steps as JSON to FILE")
    parser.set_defaults(run=run)


def _positive(text):
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _seed(text):
    """A seed is a non-negative integer: a negative one failed every step (4 FAILs, exit 1)
    instead of being named as the usage error it is."""
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def run(args):
    from ..adapters import adapt
    from ..target import load_target

    json_path = args.json and output_file(args.json, "--json", "nndebug-check.json")
    target = load_target(args.target)
    adapter = adapt(target["model"])
    print(f"nndebug check {args.target}  ({adapter.framework} model, "
          f"{type(target['model']).__name__})\n")
    with warnings.catch_warnings():
        # torch's "Using a target size ... broadcasting" warning would repeat in every step
        # that runs the loss (with other sizes each time); the 'output & labels' step and the
        # monitor's LOSS_SHAPE_MISMATCH already say it in one line. Other warnings: once.
        warnings.simplefilter("once")
        warnings.filterwarnings("ignore", message="Using a target size")
        steps = run_checklist(target, steps=args.steps, train_steps=args.train_steps,
                              seed=args.seed, echo=True)
    problems = [s for s in steps if s.verdict in (WARN, FAIL)]
    failed = sum(s.verdict == FAIL for s in steps)
    print()
    if problems:
        first = FAIL if failed else WARN
        print(f"verdict: {len(problems)} of {len(steps)} steps found problems ({failed} FAIL, "
              f"{len(problems) - failed} WARN); start with the first {first} above.")
    else:
        print(f"verdict: all {len(steps)} steps passed - ready to train.")
    if args.json:
        with open(json_path, "w") as handle:
            json.dump({"target": args.target, "steps": [s.to_dict() for s in steps],
                       "exit_code": EXIT_PROBLEMS if problems else EXIT_HEALTHY}, handle, indent=1)
    return EXIT_PROBLEMS if problems else EXIT_HEALTHY


def run_checklist(target, *, steps=200, train_steps=30, seed=0, echo=False):
    """Run every step on ``target`` (the factory's dict); returns the list of ``Step``."""
    model, inputs, targets = target["model"], target["inputs"], target["targets"]
    loss_fn, optimizer = target["loss_fn"], target.get("optimizer")
    results = []

    def record(name, fn, needs_forward=False):
        if needs_forward and results[1].verdict == FAIL and results[1].details[:1] == ["crashed"]:
            step = Step(name, SKIP, "needs a forward pass that works (see 'output & labels')")
        else:
            started = time.perf_counter()
            try:
                step = fn()
            except Exception as error:  # a crash is a finding about the model, not a usage error
                step = Step(name, FAIL, f"crashed: {type(error).__name__}: {one_line(error)}",
                            details=["crashed"])
            step.name, step.seconds = name, time.perf_counter() - started
        results.append(step)
        if echo:
            _print_step(step)

    record("parameters", lambda: _parameters(model))
    record("output & labels", lambda: _output_and_labels(model, inputs, targets, loss_fn))
    record("overfit one batch", lambda: _overfit(model, inputs, targets, loss_fn, steps, seed), True)
    record("training steps", lambda: _training_steps(model, inputs, targets, loss_fn, optimizer,
                                                     train_steps, seed), True)
    record("gradient check", lambda: _gradient_check(model, inputs, targets, loss_fn, seed), True)
    record("dependencies", lambda: _dependencies(model, inputs, targets, loss_fn, seed), True)
    record("data", lambda: _data(inputs, targets))
    return results


def _print_step(step):
    print(f"[{step.verdict}] {step.name:<18s} {step.why}")
    for line in step.details:
        if line != "crashed":
            print(f"{'':7s}{line}")
    for finding in step.findings:
        if finding.severity != "info":
            print(f"{'':7s}{finding}")
            if finding.fix:
                print(f"{'':9s}fix: {finding.fix}")


# --- the steps ---------------------------------------------------------------------------------

def _parameters(model):
    from ..adapters import adapt
    adapter = adapt(model)
    params = adapter.named_parameters()
    trainable = adapter.parameter_count(trainable_only=True)
    total = adapter.parameter_count(trainable_only=False)
    frozen = total - trainable
    details = []
    per_module = {}
    for name, p in params:
        top = name.split(".")[0] if "." in name else "(root)"
        per_module[top] = per_module.get(top, 0) + math.prod(p.shape)
    if len(per_module) > 1:
        details.append("by module: " + ", ".join(f"{k} {v:,}" for k, v in list(per_module.items())[:8])
                       + (" ..." if len(per_module) > 8 else ""))
    if trainable == 0:
        return Step("", FAIL, f"no trainable parameters ({total:,} frozen): nothing would learn",
                    details)
    why = f"{trainable:,} trainable parameters in {sum(adapter.requires_grad(p) for _, p in params)} tensors"
    if frozen:
        why += f" ({frozen:,} frozen)"
    return Step("", PASS, why, details)


def _output_and_labels(model, inputs, targets, loss_fn):
    from ..adapters import adapt
    from ..probes._training import first_dim, forward_output, no_grad
    adapter = adapt(model)
    with adapter.preserved():
        work = adapter.private_copy(dtype=adapter.float_dtype())
        x, y = work.prepare(inputs), work.prepare(targets)
        try:
            output = forward_output(work, x)
        except Exception as error:
            return Step("", FAIL, f"the forward pass crashed: {type(error).__name__}: "
                                  f"{one_line(error)}", ["crashed"])
        if isinstance(output, (tuple, list, dict)):
            return Step("", WARN, f"the model returns a {type(output).__name__}; only single-tensor "
                                  "outputs are checked")
        out = work.to_numpy(output)
        n = first_dim(inputs)
        t = work.to_numpy(y) if not isinstance(y, (tuple, list, dict)) else None
        shapes = f"output {tuple(out.shape)} {out.dtype}, targets " + \
            (f"{tuple(t.shape)} {t.dtype}" if t is not None else type(y).__name__)
        if out.ndim == 0 or out.shape[0] != n:
            return Step("", FAIL, f"{shapes}: the output should have one row per sample ({n})")
        problem = None if t is None else _label_problem(type(loss_fn).__name__, out, t)
        if problem:   # said before the loss gets a chance to fail with a cryptic message
            return Step("", FAIL, f"{shapes}: {problem}")
        try:
            with no_grad(work):
                loss = loss_fn(output, y)
            value = np.asarray(work.to_host(loss))
        except Exception as error:
            return Step("", FAIL, f"{shapes}: the loss rejects them: {type(error).__name__}: "
                                  f"{one_line(error)}")
    if value.size != 1:
        return Step("", FAIL, f"{shapes}: the loss is not a scalar (shape {value.shape}); use a mean")
    value = float(value.reshape(()))
    if not math.isfinite(value):
        return Step("", FAIL, f"{shapes}: the loss at initialisation is {value}")
    if t is None:
        return Step("", PASS, f"{shapes}; initial loss {value:.4g}")
    return _judge_labels(type(loss_fn).__name__, out, t, value, shapes)


def _label_problem(loss_name, out, t):
    """What is wrong with the targets for this loss, in one phrase, or None."""
    if loss_name in CLASSIFICATION_LOSSES and out.ndim >= 2:
        classes = out.shape[1]
        if t.dtype.kind in "iu":
            if t.shape != out.shape[:1] + out.shape[2:]:
                return f"{loss_name} wants class indices of shape {out.shape[:1] + out.shape[2:]}"
            low, high = int(t.min()), int(t.max())
            if low < 0 or high >= classes:
                return (f"labels run from {low} to {high} but the model has {classes} outputs "
                        f"(labels must lie in 0..{classes - 1})")
        elif t.shape != out.shape:
            return (f"{loss_name} wants int64 class indices (or probabilities of the output's "
                    "shape); convert the labels with .long()")
    if loss_name in BINARY_LOSSES and out.shape != t.shape:
        return f"{loss_name} wants targets of the output's shape"
    return None


def _judge_labels(loss_name, out, t, value, shapes):
    if loss_name in CLASSIFICATION_LOSSES and out.ndim >= 2:
        classes = out.shape[1]
        rows = out.reshape(out.shape[0], classes, -1)
        if np.all(rows >= 0) and np.allclose(rows.sum(axis=1), 1.0, atol=1e-4):
            return Step("", FAIL, f"{shapes}: the outputs are probabilities (softmax already "
                                  f"applied) but {loss_name} applies its own: remove the softmax")
        chance = math.log(classes)
        why = f"{shapes}; initial loss {value:.3g} vs chance ln({classes}) = {chance:.3g}"
        if loss_name == "CrossEntropyLoss" and value > INIT_LOSS_FACTOR * chance:
            return Step("", WARN, why + ": far above chance, the initial logits are too large "
                                        "(scale down the last layer's initial weights)")
        return Step("", PASS, why)
    if loss_name in REGRESSION_LOSSES:
        if out.shape != t.shape:
            try:
                broadcast = np.broadcast_shapes(out.shape, t.shape)
            except ValueError:
                broadcast = None
            return Step("", FAIL, f"{shapes}: shapes differ"
                        + (f", and the loss silently broadcasts them to {broadcast}" if broadcast
                           else "") + "; reshape the targets to the output's shape")
        return Step("", PASS, f"{shapes}; initial loss {value:.4g} (target variance "
                              f"{float(np.var(t)):.4g})")
    if loss_name in BINARY_LOSSES:
        if not np.all((t >= 0) & (t <= 1)):
            return Step("", FAIL, f"{shapes}: {loss_name} wants targets in [0, 1]")
        return Step("", PASS, f"{shapes}; initial loss {value:.3g} vs chance ln(2) = {math.log(2):.3g}")
    return Step("", PASS, f"{shapes}; initial loss {value:.4g}")


def _overfit(model, inputs, targets, loss_fn, steps, seed):
    from ..probes.overfit import overfit_one_batch
    from ..probes._training import first_dim
    n = min(first_dim(inputs), OVERFIT_SAMPLES)
    res = overfit_one_batch(model, inputs, targets, loss_fn, steps=steps, batch_size=n, seed=seed)
    why = f"{n} samples, loss {res.initial_loss:.3g} -> {res.final_loss:.3g}" + \
        ("" if res.accuracy is None else f", accuracy {res.accuracy:.0%}") + f": {res.reason}"
    findings = [f for f in res.findings if f.code != "OVERFIT_FAILED"]
    return Step("", PASS if res.passed else FAIL, why, list(res.notes) if not res.passed else [],
                findings)


def _training_steps(model, inputs, targets, loss_fn, optimizer, train_steps, seed):
    from ..adapters import adapt
    from ..monitor import watch
    from ..probes._training import make_optimizer, split_batches, train_step, trainable_parameters
    from ..probes.lr_finder import _fresh_optimizer
    adapter = adapt(model)
    notes = []
    with adapter.preserved(), adapter.forked_rng(seed):
        work = adapter.private_copy(dtype=adapter.float_dtype())
        opt = _fresh_optimizer(adapter, work, optimizer, notes) if optimizer is not None else None
        if opt is None:
            opt = make_optimizer(work, "Adam", trainable_parameters(work), lr=1e-3)
            label = "Adam(lr=1e-3) (the target gives no optimizer)" if optimizer is None else \
                "Adam(lr=1e-3) (your optimizer could not be copied)"
        else:
            label = f"your {type(optimizer).__name__}(lr={optimizer.param_groups[0]['lr']:g})"
        batches = split_batches(inputs, targets, TRAIN_BATCH)
        # the modes stay as the user left them: a model left in eval mode trains that way,
        # and the monitor says so (TRAINING_IN_EVAL_MODE) - "ready to train" it is not
        losses = []
        with watch(work.model, opt, overhead=None) as monitor:
            for i in range(train_steps):
                x, y = batches[i % len(batches)]
                loss = train_step(work, opt, work.prepare(x), work.prepare(y), loss_fn)
                monitor.step(loss)
                losses.append(loss)
                if not math.isfinite(loss):
                    break
            findings = [f for f in monitor.findings() if f.severity != "info"]
    verdict = _verdict(findings)
    why = f"{len(losses)} steps with {label} on {len(batches)} batch(es): loss " \
          f"{losses[0]:.3g} -> {losses[-1]:.3g}"
    if findings:
        why += f"; {len(findings)} finding(s): " + ", ".join(sorted({f.code for f in findings}))
    return Step("", verdict, why, notes, findings)


def _verdict(serious):
    """FAIL when a finding is an error, WARN when there are only warnings, else PASS."""
    if any(f.severity == "error" for f in serious):
        return FAIL
    return WARN if serious else PASS


def _gradient_check(model, inputs, targets, loss_fn, seed):
    from ..gradcheck import gradcheck
    from ..probes._training import first_dim, take_samples
    n = min(first_dim(inputs), GRADCHECK_SAMPLES)
    x, y = take_samples(inputs, 0, n), take_samples(targets, 0, n)
    report = gradcheck(model, x, y, loss_fn, seed=seed)
    if report.passed:
        return Step("", PASS, f"all {len(report.checks)} tensors agree with finite differences "
                              f"({n} samples, {report.n_forward} forward passes)")
    failed = report.failed()
    why = f"{len(failed)} of {len(report.checks)} tensors disagree with finite differences " \
          f"(worst: {failed[0].name}, relative error {failed[0].max_rel_error:.2g})"
    details = []
    try:
        from ..locate import locate
        found = locate(model, x, y, loss_fn, seed=seed)
        if found.suspects:
            top = found.suspects[0]
            why += f"; the fault starts in module '{top.module}'" + \
                (f", primitive '{top.op}'" if top.op else "")
            details.append(f"locate: {top.evidence}")
    except Exception as error:  # the mismatch is reported either way
        details.append(f"locate could not run: {one_line(error)}")
    return Step("", FAIL, why, details, [f for f in report.findings if f.severity != "info"][:3])


def _dependencies(model, inputs, targets, loss_fn, seed):
    from ..probes.dependencies import check_dependencies
    res = check_dependencies(model, inputs, targets, loss_fn=loss_fn, seed=seed)
    serious = [f for f in res.findings if f.severity != "info"]
    if serious:
        why = "found " + ", ".join(dict.fromkeys(f.code for f in serious))
    else:
        why = f"each output reads only what it may ({', '.join(res.checked)})"
    return Step("", _verdict(serious), why, res.notes[:3] if serious else [], serious)


def _data(inputs, targets):
    from ..probes.data_checks import check_data
    if isinstance(inputs, (tuple, list, dict)) or isinstance(targets, (tuple, list, dict)):
        return Step("", SKIP, "inputs/targets are not single arrays; check them with nd.check_data")
    findings = check_data(inputs, targets)
    serious = [f for f in findings if f.severity != "info"]
    info = [str(f) for f in findings if f.severity == "info"]
    verdict = _verdict(serious)
    why = "no problem in the inputs and targets" if not serious else \
        "found " + ", ".join(dict.fromkeys(f.code for f in serious))
    return Step("", verdict, why, info[:3], serious)

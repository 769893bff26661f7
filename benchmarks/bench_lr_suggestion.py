"""Benchmark: does a learning-rate suggestion train as well as a grid search?

For each task, the learning-rate range test (``nd.find_lr``, 100 steps from 1e-7 to 10,
with the task's own optimizer) is run, and every suggestion rule reads its learning rate
off that same sweep:

- ``nndebug``       nndebug's rule (``nndebug.probes.lr_finder.suggest_lr``): the edge of
                    stability read off the fixed-batch loss, divided by 4.5, capped at the
                    rate by which that loss had made 95% of its fall
- ``steepest``      torch-lr-finder: steepest descent of the smoothed training loss
- ``valley``        fastai's default: the middle of the longest valley
- ``minimum/10``    fastai's other rule: the minimum's learning rate over 10
- ``10-before-min`` the lesson's rule: 10 steps before the minimum

(the last four re-implemented from their published descriptions; they read the training
losses, as their libraries do). Then the model is trained from the same initialisations, on
the same shuffles, at every suggested rate and at every rate of a log-spaced grid (4 per
decade, 1e-4 .. 3.2). The score of a rule on a task is

    (final held-out loss at its suggestion) / (best final held-out loss of the grid)

with both losses averaged over the training seeds (8 by default); 1.0 is as good as the
grid's best, the goal is <= 2.0 on every task; a rule without an answer, or a rate at which
training diverges, scores inf. Why 8 seeds: with 2, the grid's best is itself noise-limited -
the same digits MLP with Adam, trained on 8 seeds in pairs, put the best rate at 0.056, 0.018,
0.032 and 0.018, and a lucky pair makes every other rate look 2x worse (the ratio's
denominator is the minimum of 19 noisy means, so it is biased low; more seeds shrink that).
With 4 seeds one task still moved across the 2x line between runs (2.10x with seeds 0-3,
1.9x with 0-7), so the default is 8; ``--seeds`` trades that for time.

Table 1 trains at the suggestions of one sweep (seed 0), the honest end-to-end number.
A single sweep is itself random (initialisation, batch order), so table 2 repeats the sweep
with ``--sweeps`` seeds and scores each suggestion on the measured grid, interpolated in
log(lr) (no extra training): the share of sweeps within 2x and the worst ratio.

How the rule was chosen (so that the numbers can be read for what they are): its two
constants (10% rise, divisor 4.5) were picked on the first 14 tasks below; the 6 tasks
named ``h-...`` were added afterwards to check it on models, data, optimizers and batch
sizes it had not seen. After looking at them, two design changes were made: the fixed batch
grew from one batch to up to 4 batches / 128 samples, and (with an 8-seed grid of all 20
tasks and 10 sweeps each) the cap at 95% of the fall was added, because on the blobs task
the edge lies 20-40x above the best rate. The 11 tasks named ``v-...`` were added after that
change (five, then six more) and never used to choose anything: they are the honest check on
unseen settings.

Run:  python -m benchmarks.bench_lr_suggestion [--quick] [--tasks NAME ...] [--seeds 8]
                                               [--sweeps 5] [--jobs 2] [--json FILE]
"""
import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

RULES = ["nndebug", "steepest", "valley", "minimum/10", "10-before-min"]
GRID = [float(10 ** e) for e in np.arange(-4.0, 0.51, 0.25)]   # 1e-4 .. ~3.2, 19 rates
GOAL = 2.0
SEEDS = 8


# --- data -------------------------------------------------------------------------------

def digits(as_images=False):
    """Digits split 80/20 with a fixed permutation; pixels scaled to [0, 1]."""
    try:
        from minigrad.data import load_digits
        x, y = load_digits(as_images=as_images)
    except (ImportError, AttributeError):  # minigrad.data not there: read the archive itself
        import os
        with np.load(os.path.join(os.path.dirname(__file__), "..", "minigrad", "data",
                                  "digits.npz")) as archive:
            x, y = archive["images"].astype(np.float64) / 16, archive["labels"].astype(np.int64)
        if as_images:
            x = x.reshape(-1, 1, 8, 8)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], np.asarray(y, dtype=np.int64)[order]
    cut = int(0.8 * len(x))
    return x[:cut], y[:cut], x[cut:], y[cut:]


def synthetic_regression(n=2000, d=10):
    """A smooth nonlinear target with noise, standardised (noise alone leaves ~0.03 of it)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(n, d))
    w1, w2 = rng.normal(size=d) / math.sqrt(d), rng.normal(size=d) / math.sqrt(d)
    y = np.sin(2 * x @ w1) + 0.5 * (x @ w2) ** 2 + 0.1 * rng.normal(size=n)
    y = ((y - y.mean()) / y.std()).reshape(-1, 1)
    cut = int(0.8 * n)
    return x[:cut], y[:cut], x[cut:], y[cut:]


def moons(n=2000, noise=0.15):
    """Two interleaved half circles in 2-D (a classic non-linear toy problem), 80/20 split."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, n)
    angle = rng.uniform(0, math.pi, n)
    x = np.stack([np.cos(angle) + y * 1.0, np.sin(angle) * (1 - 2 * y) + y * 0.5], axis=1)
    x = x + noise * rng.normal(size=x.shape)
    x = (x - x.mean(0)) / x.std(0)
    cut = int(0.8 * n)
    return x[:cut], y[:cut], x[cut:], y[cut:]


def friedman(n=2000, d=10):
    """Friedman's classic regression benchmark: 5 of 10 uniform inputs matter, through a
    product inside a sine, a square and two linear terms; inputs and target standardised."""
    rng = np.random.default_rng(11)
    x = rng.uniform(size=(n, d))
    y = (10 * np.sin(math.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3]
         + 5 * x[:, 4] + rng.normal(size=n))
    x = (x - x.mean(0)) / x.std(0)
    y = ((y - y.mean()) / y.std()).reshape(-1, 1)
    cut = int(0.8 * n)
    return x[:cut], y[:cut], x[cut:], y[cut:]


def blobs():
    """Six Gaussian classes in 20 dimensions, overlapping a little."""
    rng = np.random.default_rng(5)
    centers = rng.normal(size=(6, 20)) * 1.2
    y = rng.integers(0, 6, 3000)
    x = centers[y] + rng.normal(size=(3000, 20))
    return x[:2400], y[:2400], x[2400:], y[2400:]


# --- models, written once for both frameworks --------------------------------------------

def _nn(framework):
    if framework == "torch":
        import torch.nn as nn
    else:
        import minigrad.nn as nn
    return nn


def mlp(framework, sizes, activation="ReLU"):
    nn = _nn(framework)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(getattr(nn, activation)())
    return nn.Sequential(*layers)


def cnn(framework):
    nn = _nn(framework)
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(16 * 2 * 2, 10))


def seed_framework(framework, seed):
    np.random.seed(seed)
    if framework == "torch":
        import torch
        torch.manual_seed(seed)
    else:
        import minigrad as mg
        mg.manual_seed(seed)


@dataclass
class Task:
    name: str
    framework: str
    data: object            # () -> (x_train, y_train, x_test, y_test)
    model: object           # (framework) -> model
    loss: str               # "ce" | "mse"
    optimizer: str          # an optimizer class name of torch.optim / minigrad.optim
    hyper: dict = field(default_factory=dict)
    epochs: int = 10
    batch_size: int = 64


def _digit_images():
    return digits(True)


SGDM = {"momentum": 0.9}
TASKS = [
    Task("digits-mlp-adam", "torch", digits, lambda f: mlp(f, [64, 64, 10]), "ce", "Adam"),
    Task("digits-mlp-sgdm", "torch", digits, lambda f: mlp(f, [64, 64, 10]), "ce", "SGD", SGDM),
    Task("digits-cnn-adam", "torch", _digit_images, cnn, "ce", "Adam"),
    Task("digits-cnn-sgdm", "torch", _digit_images, cnn, "ce", "SGD", SGDM),
    Task("regress-mlp-adam", "torch", synthetic_regression, lambda f: mlp(f, [10, 64, 64, 1]),
         "mse", "Adam"),
    Task("regress-mlp-sgdm", "torch", synthetic_regression, lambda f: mlp(f, [10, 64, 64, 1]),
         "mse", "SGD", SGDM),
    Task("mg-digits-mlp-adam", "minigrad", digits, lambda f: mlp(f, [64, 64, 10]), "ce", "Adam"),
    Task("mg-digits-mlp-sgdm", "minigrad", digits, lambda f: mlp(f, [64, 64, 10]), "ce", "SGD", SGDM),
    Task("mg-regress-mlp-adam", "minigrad", synthetic_regression,
         lambda f: mlp(f, [10, 64, 64, 1]), "mse", "Adam"),
    Task("mg-regress-mlp-sgdm", "minigrad", synthetic_regression,
         lambda f: mlp(f, [10, 64, 64, 1]), "mse", "SGD", SGDM),
    Task("digits-deep-adam-b32", "torch", digits, lambda f: mlp(f, [64, 128, 64, 32, 10]), "ce",
         "Adam", batch_size=32, epochs=5),
    Task("digits-mlp-rmsprop", "torch", digits, lambda f: mlp(f, [64, 64, 10]), "ce", "RMSprop"),
    Task("regress-nesterov", "torch", synthetic_regression, lambda f: mlp(f, [10, 32, 1]), "mse",
         "SGD", {"momentum": 0.9, "nesterov": True}),
    Task("mg-regress-adamw", "minigrad", synthetic_regression, lambda f: mlp(f, [10, 128, 1]),
         "mse", "AdamW", {"weight_decay": 0.01}),
    # added after the rule's constants were chosen: a check on unseen settings
    Task("h-blobs-tanh-adam", "torch", blobs, lambda f: mlp(f, [20, 64, 6], "Tanh"), "ce", "Adam",
         batch_size=128, epochs=5),
    Task("h-mg-blobs-plain-sgd", "minigrad", blobs, lambda f: mlp(f, [20, 128, 6]), "ce", "SGD",
         epochs=5),
    Task("h-digits-cnn-adamw", "torch", _digit_images, cnn, "ce", "AdamW", {"weight_decay": 0.05}),
    Task("h-regress-wide-adam-b16", "torch", synthetic_regression, lambda f: mlp(f, [10, 256, 1]),
         "mse", "Adam", batch_size=16, epochs=4),
    Task("h-mg-digits-tanh-sgdm", "minigrad", digits, lambda f: mlp(f, [64, 100, 10], "Tanh"),
         "ce", "SGD", SGDM),
    Task("h-regress-deep-rmsprop", "torch", synthetic_regression,
         lambda f: mlp(f, [10, 64, 64, 64, 1]), "mse", "RMSprop"),
    # added after the rule was revised (the floor cap, see suggest_lr): never used to choose it
    Task("v-moons-mlp-sgdm-b32", "torch", moons, lambda f: mlp(f, [2, 32, 32, 2]), "ce", "SGD",
         SGDM, batch_size=32),
    Task("v-mg-digits-cnn-adam", "minigrad", _digit_images, cnn, "ce", "Adam", epochs=5),
    Task("v-regress-gelu-adamw-b256", "torch", synthetic_regression,
         lambda f: mlp(f, [10, 64, 64, 1], "GELU"), "mse", "AdamW", {"weight_decay": 0.01},
         batch_size=256, epochs=30),
    Task("v-mg-regress-tanh-rmsprop", "minigrad", synthetic_regression,
         lambda f: mlp(f, [10, 64, 1], "Tanh"), "mse", "RMSprop"),
    Task("v-digits-mlp-plain-sgd-b16", "torch", digits, lambda f: mlp(f, [64, 32, 10]), "ce", "SGD",
         batch_size=16, epochs=3),
    # six more, added after the run that first scored the five above (the rule was not changed)
    Task("v-mg-moons-tanh-adam", "minigrad", moons, lambda f: mlp(f, [2, 64, 64, 2], "Tanh"), "ce",
         "Adam"),
    Task("v-friedman-plain-sgd-b32", "torch", friedman, lambda f: mlp(f, [10, 64, 64, 1]), "mse",
         "SGD", batch_size=32, epochs=8),
    Task("v-blobs-deep-rmsprop", "torch", blobs, lambda f: mlp(f, [20, 64, 64, 64, 6]), "ce",
         "RMSprop", epochs=5),
    Task("v-mg-digits-adamw-b128", "minigrad", digits, lambda f: mlp(f, [64, 128, 10]), "ce",
         "AdamW", {"weight_decay": 0.01}, batch_size=128, epochs=20),
    Task("v-digits-cnn-rmsprop", "torch", _digit_images, cnn, "ce", "RMSprop"),
    Task("v-mg-friedman-sgdm-b16", "minigrad", friedman, lambda f: mlp(f, [10, 128, 1]), "mse",
         "SGD", SGDM, batch_size=16, epochs=4),
]
QUICK = ["digits-mlp-adam", "digits-mlp-sgdm", "regress-mlp-adam", "mg-digits-mlp-sgdm",
         "mg-regress-mlp-adam"]


# --- training -----------------------------------------------------------------------------

def loss_function(framework, kind):
    nn = _nn(framework)
    return nn.CrossEntropyLoss() if kind == "ce" else nn.MSELoss()


def minibatches(x, y, batch_size, rng):
    order = rng.permutation(len(x))
    for start in range(0, len(x) - batch_size + 1, batch_size):
        idx = order[start:start + batch_size]
        yield x[idx], y[idx]


def build(task, seed):
    seed_framework(task.framework, seed)
    return task.model(task.framework)


def train_and_score(task, data, lr, seed):
    """Train from the seed's initialisation at a fixed lr; (held-out loss, training loss)."""
    from nndebug import adapt
    from nndebug.probes._training import make_optimizer, train_step
    x_tr, y_tr, x_te, y_te = data
    model = build(task, seed)
    adapter = adapt(model)
    loss_fn = loss_function(task.framework, task.loss)
    opt = make_optimizer(adapter, task.optimizer, model.parameters(), lr=lr, **task.hyper)
    rng = np.random.default_rng(seed + 100)
    model.train()
    with np.errstate(all="ignore"):
        for _ in range(task.epochs):
            for xb, yb in minibatches(x_tr, y_tr, task.batch_size, rng):
                loss = train_step(adapter, opt, adapter.prepare(xb), adapter.prepare(yb), loss_fn)
                if not math.isfinite(loss):
                    return math.inf, math.inf
        model.eval()
        test = adapter.loss_value(x_te, y_te, loss_fn)
        train = adapter.loss_value(x_tr, y_tr, loss_fn)
    return (test if math.isfinite(test) else math.inf), (train if math.isfinite(train) else math.inf)


def sweep(task, data, seed):
    """The range test on this task: its optimizer, shuffled mini-batches of the train set."""
    import nndebug as nd
    from nndebug import adapt
    from nndebug.probes._training import make_optimizer
    x_tr, y_tr = data[0], data[1]
    model = build(task, seed)
    opt = make_optimizer(adapt(model), task.optimizer, model.parameters(), lr=1e-3, **task.hyper)
    rng = np.random.default_rng(seed + 200)
    batches = []
    while len(batches) < 100:
        batches.extend(minibatches(x_tr, y_tr, task.batch_size, rng))
    with np.errstate(all="ignore"):
        return nd.find_lr(model, loss_function(task.framework, task.loss), batches[:100],
                          optimizer=opt, progress=False, seed=seed)


def interpolated_ratio(grid_scores, best, lr):
    """Held-out loss at ``lr`` read off the measured grid (linear in log lr and log loss),
    over the grid's best. Below the grid, the loss keeps rising by half a decade per decade."""
    if not (math.isfinite(lr) and lr > 0):
        return math.inf
    lrs = np.array(sorted(grid_scores))
    losses = np.array([grid_scores[v][0] for v in lrs])
    logs = np.log(np.where(np.isfinite(losses), losses, 1e6))
    value = np.interp(math.log10(lr), np.log10(lrs), logs)
    if lr < lrs[0]:
        value = logs[0] + 0.5 * (math.log10(lrs[0]) - math.log10(lr))
    return float(math.exp(value) / best)


def run_task(task, seeds=(0, 1), n_sweeps=5, log=print):
    started = time.time()
    data = task.data()
    sweeps = [sweep(task, data, s) for s in range(n_sweeps)]
    scores = {}

    def score(lr):
        key = round(math.log10(lr), 6)
        if key not in scores:
            pairs = [train_and_score(task, data, lr, s) for s in seeds]
            scores[key] = (float(np.mean([p[0] for p in pairs])), float(np.mean([p[1] for p in pairs])))
        return scores[key]

    grid_scores = {lr: score(lr) for lr in GRID}
    best_lr = min(grid_scores, key=lambda lr: grid_scores[lr][0])
    best = grid_scores[best_lr][0]
    rules, robustness = {}, {}
    for name in RULES:
        lr = sweeps[0].suggestions.get(name, float("nan"))
        test, train = score(lr) if math.isfinite(lr) and lr > 0 else (math.inf, math.inf)
        rules[name] = {"lr": lr, "test_loss": test, "train_loss": train,
                       "ratio": test / best if math.isfinite(test) else math.inf}
        ratios = [interpolated_ratio(grid_scores, best, s.suggestions.get(name, float("nan")))
                  for s in sweeps]
        robustness[name] = {"within_goal": sum(r <= GOAL for r in ratios), "n": len(ratios),
                            "worst": max(ratios), "ratios": ratios}
    log(f"  {task.name}: {time.time() - started:.0f}s, grid best lr {best_lr:.3g} "
        f"(loss {best:.4f}), nndebug suggests {sweeps[0].suggestion:.3g} "
        f"(ratio {rules['nndebug']['ratio']:.2f})")
    return {"task": task.name, "framework": task.framework, "optimizer": task.optimizer,
            "grid_best_lr": best_lr, "grid_best_loss": best,
            "grid": {repr(lr): list(v) for lr, v in grid_scores.items()},
            "rules": rules, "robustness": robustness,
            "curve": {"lrs": list(sweeps[0].lrs), "raw": list(sweeps[0].raw_losses),
                      "fixed": list(sweeps[0].fixed_batch_losses)}}


# --- report -------------------------------------------------------------------------------

def _ratio(value):
    return f"{value:.2f}x" if math.isfinite(value) else "inf"


def markdown_table(records):
    """Table 1: trained at the suggestions of the seed-0 sweep."""
    head = "| task | framework | optimizer | grid best lr | grid best loss | " + \
        " | ".join(f"{r}: lr / ratio" for r in RULES) + " |"
    lines = [head, "|" + "---|" * (5 + len(RULES))]
    for rec in records:
        cells = [rec["task"], rec["framework"], rec["optimizer"], f"{rec['grid_best_lr']:.3g}",
                 f"{rec['grid_best_loss']:.4f}"]
        for name in RULES:
            r = rec["rules"][name]
            lr = f"{r['lr']:.2g}" if math.isfinite(r["lr"]) else "none"
            mark = "" if r["ratio"] <= GOAL else " **"
            cells.append(f"{lr} / {_ratio(r['ratio'])}{mark}")
        lines.append("| " + " | ".join(cells) + " |")
    def summary(label, cells):
        return "| " + " | ".join([label, "", "", "", ""] + cells) + " |"
    for label, subset in _subsets(records):
        lines.append(summary(f"**within {GOAL:g}x of grid best{label}**", [
            f"{sum(rec['rules'][n]['ratio'] <= GOAL for rec in subset)}/{len(subset)}" for n in RULES]))
        lines.append(summary(f"**worst ratio{label}**", [
            _ratio(max(rec["rules"][n]["ratio"] for rec in subset)) for n in RULES]))
    return "\n".join(lines)


def _subsets(records):
    """All tasks, and apart the ``v-`` tasks that were never used to choose the rule."""
    unseen = [rec for rec in records if rec["task"].startswith("v-")]
    if not unseen or len(unseen) == len(records):
        return [("", records)]
    return [(" (all tasks)", records), (" (v- tasks only)", unseen)]


def robustness_table(records):
    """Table 2: every sweep seed, scored on the interpolated grid."""
    n = records[0]["robustness"][RULES[0]]["n"]
    lines = ["| task | " + " | ".join(f"{r}: within {GOAL:g}x / worst" for r in RULES) + " |",
             "|" + "---|" * (1 + len(RULES))]
    for rec in records:
        cells = [rec["task"]]
        for name in RULES:
            r = rec["robustness"][name]
            cells.append(f"{r['within_goal']}/{r['n']} / {_ratio(r['worst'])}")
        lines.append("| " + " | ".join(cells) + " |")
    for label, subset in _subsets(records):
        total = len(subset) * n
        lines.append(f"| **all sweeps{label}** | " + " | ".join(
            f"{sum(rec['robustness'][r]['within_goal'] for rec in subset)}/{total} / "
            f"{_ratio(max(rec['robustness'][r]['worst'] for rec in subset))}" for r in RULES) + " |")
    return "\n".join(lines)


def _one_thread():
    """One thread per process: the numbers do not depend on it, tiny models run faster so,
    and parallel jobs do not fight over cores."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass


def _run_named_task(name, seeds, n_sweeps):
    """Worker entry point: tasks hold lambdas, which do not pickle, so workers get names."""
    _one_thread()
    task = next(t for t in TASKS if t.name == name)
    return run_task(task, seeds, n_sweeps, log=lambda m: print(m, file=sys.stderr, flush=True))


def run_all(tasks, seeds, n_sweeps, jobs):
    """Every task's record, in the order of ``tasks``; ``jobs`` > 1 runs tasks in parallel
    processes (each task's numbers are the same either way: all randomness is seeded)."""
    if jobs <= 1:
        return [_run_named_task(t.name, seeds, n_sweeps) for t in tasks]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_run_named_task, t.name, seeds, n_sweeps) for t in tasks]
        return [f.result() for f in futures]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", help="task names (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help=f"5 tasks, 1 training seed, 2 sweeps ({', '.join(QUICK)})")
    parser.add_argument("--seeds", type=int, default=SEEDS,
                        help=f"training seeds per rate (default {SEEDS})")
    parser.add_argument("--sweeps", type=int, default=5, help="sweep seeds for table 2 (default 5)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="tasks run in parallel processes (default: 2, or 1 on one core)")
    parser.add_argument("--json", help="write the raw numbers here")
    args = parser.parse_args([] if argv is None else argv)
    _one_thread()
    names = args.tasks or (QUICK if args.quick else None)
    tasks = [t for t in TASKS if not names or t.name in names]
    if not tasks:
        parser.error(f"no task matches; known tasks: {', '.join(t.name for t in TASKS)}")
    seeds = (0,) if args.quick else tuple(range(args.seeds))
    n_sweeps = 2 if args.quick else args.sweeps
    print(f"# LR suggestion benchmark: {len(tasks)} tasks, training seeds {list(seeds)}, "
          f"{n_sweeps} sweeps per task, grid {GRID[0]:.0e}..{GRID[-1]:.1f} (4 per decade), "
          f"{args.jobs} job(s)", file=sys.stderr)
    started = time.time()
    records = run_all(tasks, seeds, n_sweeps, args.jobs)
    print("### Table 1: final held-out loss at each rule's suggestion (sweep seed 0), "
          "over the grid's best\n")
    print(markdown_table(records))
    print(f"\n### Table 2: {n_sweeps} sweeps per task, each suggestion scored on the measured grid "
          "(interpolated in log lr)\n")
    print(robustness_table(records))
    print(f"\n({time.time() - started:.0f} s)")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(records, handle, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

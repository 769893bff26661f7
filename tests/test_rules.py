"""The rules on hand-built records: NumPy only, no framework, no training.

Each test builds the statistics a healthy or a broken run would produce and checks the
verdict; property tests throw many noisy-but-healthy loss curves at the loss rules to
prove they do not cry wolf (the lesson's "oscillating" rule fired on any noisy loss).
The last section trains real models (torch and minigrad) where a defect was found on one.
How the rules are declared and ordered is tested in tests/test_rule_graph.py.
"""
import ast
import inspect
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nndebug import rules
from nndebug.findings import Finding
from nndebug.records import LayerInfo, ParamInfo, RunRecord, StepRecord

LOSS_CODES = {"LOSS_DIVERGING", "LOSS_PLATEAU", "LOSS_OSCILLATING", "LOSS_AT_CHANCE", "NAN_LOSS",
              "OVERFITTING"}


def problems(findings):
    return {f.code for f in findings if f.severity in ("warning", "error")}


def run_with_losses(losses, classes=None, batch=64, val=None):
    run = RunRecord(framework="test")
    run.loss_steps = list(range(len(losses)))
    run.losses = [float(v) for v in losses]
    run.n_steps = len(losses)
    if classes is not None or batch is not None:
        record = StepRecord(step=0)
        if classes is not None:
            record.output = np.full((4, classes), 0.3)
        record.inputs = {"mean": 0.0, "std": 1.0, "batch": float(batch)}
        run.records.append(record)
    if val is not None:
        run.val_steps, run.val_losses = list(val[0]), list(val[1])
    return run


def healthy_curve(n, seed, noise, start=2.3, floor=0.1, rate=30.0):
    rng = np.random.default_rng(seed)
    trend = floor + (start - floor) * np.exp(-np.arange(n) / rate)
    # multiplicative minibatch noise: heavier when the batch is small
    return trend * np.exp(rng.normal(0, noise, n))


# --- the loss curve --------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(40, 400), noise=st.floats(0.0, 0.15),
       rate=st.floats(5, 200), floor=st.floats(0.01, 1.0))
def test_noisy_but_healthy_loss_curves_raise_nothing(seed, n, noise, rate, floor):
    # minibatch noise up to 15% of the loss at batch 64 (healthy digits runs show 1-6%)
    curve = healthy_curve(n, seed, noise, floor=floor, rate=rate)
    found = problems(rules.diagnose(run_with_losses(curve, classes=10, batch=64)))
    assert not found & LOSS_CODES, (found, noise, rate)


def test_the_lessons_false_alarm_noise_alone_is_not_oscillation():
    # a converged run whose minibatch loss wobbles by +-40% around 0.05
    rng = np.random.default_rng(0)
    curve = np.concatenate([np.linspace(2.3, 0.05, 30), 0.05 * np.exp(rng.normal(0, 0.4, 270))])
    assert "LOSS_OSCILLATING" not in problems(rules.diagnose(run_with_losses(curve, classes=10)))


def test_swinging_loss_is_oscillating():
    # batches sorted by class: the loss jumps at every class change and falls in between
    block = np.array([3.5, 2.0, 1.0, 0.5, 0.3, 0.2])
    curve = np.concatenate([[2.3] * 10, np.tile(block, 30)])
    found = rules.diagnose(run_with_losses(curve, classes=10, batch=32))
    assert "LOSS_OSCILLATING" in problems(found)


def test_isolated_spikes_are_oscillating():
    curve = healthy_curve(200, 1, 0.05)
    curve[[50, 80, 120, 150, 170, 190]] += 5.0
    assert "LOSS_OSCILLATING" in problems(rules.diagnose(run_with_losses(curve, classes=10)))


def test_flat_loss_is_a_plateau_and_a_falling_one_is_not():
    rng = np.random.default_rng(2)
    flat = 1.7 + rng.normal(0, 0.05, 100)
    assert "LOSS_PLATEAU" in problems(rules.diagnose(run_with_losses(flat, classes=None)))
    falling = np.linspace(1.7, 1.2, 100) + rng.normal(0, 0.05, 100)
    assert "LOSS_PLATEAU" not in problems(rules.diagnose(run_with_losses(falling, classes=None)))


def test_a_converged_classifier_is_not_a_plateau():
    rng = np.random.default_rng(3)
    converged = 0.02 * np.exp(rng.normal(0, 0.3, 100))
    assert not problems(rules.diagnose(run_with_losses(converged, classes=10)))


def test_rising_loss_is_diverging():
    curve = np.concatenate([np.linspace(2.3, 0.5, 60), np.linspace(0.5, 3.0, 60)])
    found = rules.diagnose(run_with_losses(curve, classes=10))
    assert "LOSS_DIVERGING" in problems(found)


def test_loss_at_chance_names_label_alignment_when_nothing_else_explains_it():
    rng = np.random.default_rng(4)
    curve = math.log(10) + rng.normal(0, 0.02, 120)
    found = rules.diagnose(run_with_losses(curve, classes=10))
    chance = next(f for f in found if f.code == "LOSS_AT_CHANCE")
    assert chance.severity == "warning"
    assert "label" in chance.fix.lower() and "align" in chance.fix.lower()
    assert "LOSS_PLATEAU" not in {f.code for f in found}   # the more specific verdict wins


def test_nan_loss_is_an_error_at_its_first_step():
    curve = list(np.linspace(2.3, 1.0, 20)) + [float("nan"), float("inf"), float("nan")]
    found = rules.diagnose(run_with_losses(curve, classes=10))
    nan = next(f for f in found if f.code == "NAN_LOSS")
    assert nan.severity == "error" and nan.step == 20


def test_overfitting_needs_validation_rising_while_training_falls():
    train = np.linspace(2.3, 0.01, 200)
    val_steps = list(range(0, 200, 10))
    val = [max(0.6, 2.3 - 0.2 * i) + (0.08 * (i - 9) if i > 9 else 0) for i in range(20)]
    found = rules.diagnose(run_with_losses(train, classes=10, val=(val_steps, val)))
    assert "OVERFITTING" in problems(found)
    flat_val = [max(0.6, 2.3 - 0.2 * i) for i in range(20)]
    found = rules.diagnose(run_with_losses(train, classes=10, val=(val_steps, flat_val)))
    assert "OVERFITTING" not in problems(found)


def test_a_loss_that_rose_is_never_a_plateau():
    rng = np.random.default_rng(5)
    for rising in (np.linspace(1.0, 5.0, 100),                       # steadily up
                   np.exp(np.linspace(0, 25, 40)),                     # blowing up
                   1.0 + np.linspace(0, 0.3, 100) + rng.normal(0, 0.01, 100)):  # 30% up
        found = problems(rules.diagnose(run_with_losses(rising, classes=None)))
        assert "LOSS_PLATEAU" not in found, found
    # a flat loss still is one, whichever way the noise tips its end
    for seed in range(8):
        flat = 1.7 + np.random.default_rng(seed).normal(0, 0.05, 300)
        plateau = [f for f in rules.diagnose(run_with_losses(flat, classes=None))
                   if f.code == "LOSS_PLATEAU"]
        assert plateau and re.search(r"ends only \d+\.\d% (below|above) where",
                                     plateau[0].message), plateau


# --- recorded statistics ------------------------------------------------------------------------
def run_with_records(n=40, losses=None, grads=None, held=None, excess=None, updates=None,
                     weights=(1.0, 1.0), lrs=(0.1,), in_optimizer=(True, True)):
    """Two weight matrices; every statistic given as a function of the record index."""
    run = RunRecord(framework="test", has_optimizer=True)
    run.params = [ParamInfo(f"{i}.weight", (8, 8), True, in_optimizer[i]) for i in range(2)]
    run.layers = [LayerInfo("0", "Linear", "other"), LayerInfo("1", "ReLU", "relu")]
    losses = np.linspace(2.3, 0.3, n) if losses is None else losses
    run.loss_steps, run.losses, run.n_steps = list(range(n)), list(losses), n
    for i in range(n):
        r = StepRecord(step=i, backward=True, lrs=list(lrs))
        g = np.asarray(grads(i) if grads else [0.1, 0.1], float)
        r.grad_norm, r.grad_received = g, np.ones(2, bool)
        r.held_norm = np.asarray(held(i) if held else g, float)
        r.held_excess = np.asarray(excess(i) if excess else [0.0, 0.0], float)
        r.param_norm = np.asarray(weights, float)
        r.update_norm = np.asarray(updates(i) if updates else [1e-3, 1e-3], float)
        r.inputs = {"mean": 0.1, "std": 0.9, "batch": 64.0}
        r.output = np.full((4, 10), 0.1) + np.eye(4, 10)
        run.records.append(r)
    return run


def test_healthy_records_raise_nothing():
    assert not problems(rules.diagnose(run_with_records()))


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.01])
def test_grad_equal_to_what_backward_delivered_or_scaled_down_is_not_accumulation(scale):
    # scale < 1: clipping or AMP unscaling shrinks .grad along the same direction
    run = run_with_records(held=lambda i: [0.1 * scale] * 2,
                           excess=lambda i: [0.1 * (1 - scale)] * 2)
    assert "GRADIENTS_ACCUMULATING" not in problems(rules.diagnose(run))


def test_grad_holding_more_than_delivered_is_accumulation():
    # .grad = this step's gradient + earlier ones (orthogonal-ish): |held - delivered| = |earlier|
    run = run_with_records(held=lambda i: [0.1 * math.sqrt(i + 1)] * 2,
                           excess=lambda i: [0.1 * math.sqrt(i)] * 2)
    found = rules.diagnose(run)
    acc = next(f for f in found if f.code == "GRADIENTS_ACCUMULATING")
    assert acc.severity == "error" and acc.step == 1


def test_grad_parallel_but_larger_is_accumulation():
    run = run_with_records(held=lambda i: [0.1 * (i + 1)] * 2, excess=lambda i: [0.1 * i] * 2)
    assert "GRADIENTS_ACCUMULATING" in problems(rules.diagnose(run))


def test_lr_too_low_only_when_learning_is_poor():
    tiny = lambda i: [1e-7, 1e-7]
    stuck = run_with_records(updates=tiny, losses=np.full(40, 1.5) + np.linspace(0, 0.01, 40))
    assert "LR_TOO_LOW" in problems(rules.diagnose(stuck))
    fine = run_with_records(updates=tiny)   # learning well anyway: no verdict on the LR
    assert "LR_TOO_LOW" not in problems(rules.diagnose(fine))


def test_lr_too_high_when_updates_are_huge_and_the_loss_blows_up():
    losses = list(np.linspace(2.3, 5.0, 10)) + [float("nan")] * 30
    run = run_with_records(updates=lambda i: [0.8, 0.8], losses=losses)
    found = rules.diagnose(run)
    codes = [f.code for f in found]
    assert "LR_TOO_HIGH" in codes and "NAN_LOSS" in codes
    lr = next(f for f in found if f.code == "LR_TOO_HIGH")
    nan = next(f for f in found if f.code == "NAN_LOSS")
    assert lr.severity == "error"                         # inherits the symptom's severity
    assert codes.index("LR_TOO_HIGH") < codes.index("NAN_LOSS")   # the cause comes first
    assert nan.evidence["likely_cause"] == "LR_TOO_HIGH"


def test_exploding_gradients_suggest_the_90th_percentile_as_clip_value():
    norms = [1.0, 1.2, 0.9, 1.1, 1.3, 50.0, 1e3, 1e5, 1e7]
    losses = list(np.linspace(2.3, 6.0, 9)) + [float("nan")] * 5
    run = run_with_records(n=9, grads=lambda i: [norms[i], norms[i]], losses=losses[:9])
    found = rules.diagnose(run)
    boom = next(f for f in found if f.code == "EXPLODING_GRADIENTS")
    totals = np.array(norms) * math.sqrt(2)
    calm = totals[totals <= 10 * np.median(totals[:5])]
    assert boom.evidence["suggested_clip_norm"] == pytest.approx(np.percentile(calm, 90))
    assert "max_norm=" in boom.fix


def test_vanishing_gradients_are_info_when_learning_is_fine_and_warning_when_not():
    grads = lambda i: [1e-7, 1e-1]
    fine = rules.diagnose(run_with_records(grads=grads))
    assert next(f for f in fine if f.code == "VANISHING_GRADIENTS").severity == "info"
    poor = rules.diagnose(run_with_records(grads=grads, losses=np.full(40, 2.3)))
    assert next(f for f in poor if f.code == "VANISHING_GRADIENTS").severity == "warning"


def test_learning_is_poor_when_the_loss_fell_only_to_chance_level():
    # the loss fell from 8 to ln(10) and stays there: 70% better than where it started, but
    # nothing learned. learning_poor used to ask LOSS_AT_CHANCE before that rule had run, so
    # the symptom said "learning still progresses"; it now reads the curve itself
    rng = np.random.default_rng(6)
    losses = np.concatenate([np.linspace(8.0, math.log(10), 10),
                             math.log(10) + rng.normal(0, 0.01, 30)])
    found = rules.diagnose(run_with_records(grads=lambda i: [1e-7, 1e-1], losses=losses))
    codes = {f.code: f for f in found}
    assert codes["LOSS_AT_CHANCE"].severity == "warning"
    assert codes["VANISHING_GRADIENTS"].severity == "warning"
    assert "while the loss is not improving" in codes["VANISHING_GRADIENTS"].message
    assert codes["LOSS_AT_CHANCE"].evidence["other_causes"] == ["VANISHING_GRADIENTS"]


def test_optimizer_missing_params_and_no_gradient():
    run = run_with_records(in_optimizer=(False, True))
    assert "OPTIMIZER_MISSING_PARAMS" in problems(rules.diagnose(run))
    run = run_with_records()
    for r in run.records:
        r.grad_received = np.array([False, True])
        r.grad_norm = np.array([np.nan, 0.1])
    found = rules.diagnose(run)
    nog = next(f for f in found if f.code == "NO_GRADIENT")
    assert nog.where == "0" and "cut" in nog.message   # the parameters *before* the detach


def test_dead_units_need_to_stay_dead_across_batches():
    def with_masks(masks, losses=None):
        run = run_with_records(losses=losses)
        for r, m in zip(run.records, masks):
            r.dead_units["1"] = m
            r.activations["1"] = {"mean": 0.3, "std": 0.5, "dead": float(m.mean())}
        return run
    rng = np.random.default_rng(0)
    # rare-firing units: each is zero for a whole batch 60% of the time, independently
    flicker = [rng.random(64) < 0.6 for _ in range(40)]
    assert "DEAD_RELU" not in {f.code for f in rules.diagnose(with_masks(flicker))}
    dead = [np.arange(64) < 48 for _ in range(40)]
    found = rules.diagnose(with_masks(dead, losses=np.full(40, 2.3)))
    relu = next(f for f in found if f.code == "DEAD_RELU")
    assert relu.where == "1" and relu.evidence["dead_share"] == pytest.approx(0.75)


def test_double_softmax_band():
    run = run_with_records(n=20)
    rng = np.random.default_rng(0)
    for r in run.records:
        logits = rng.normal(0, 2, (32, 10))
        probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        r.output = probs
        lse = np.log(np.exp(probs).sum(1))
        run.losses[r.step] = float(np.mean(lse - probs[:, 3]))   # CE of probabilities as logits
    found = rules.diagnose(run)
    assert next(f for f in found if f.code == "DOUBLE_SOFTMAX").severity == "error"


def test_link_causes_orders_causes_first_and_breaks_cycles():
    a = Finding("EXPLODING_ACTIVATIONS", "warning", step=0,
                evidence={"likely_cause": "EXPLODING_GRADIENTS"})
    b = Finding("EXPLODING_GRADIENTS", "warning", step=0)
    c = Finding("NAN_LOSS", "error", step=3)
    ordered = rules.link_causes([c, a, b])
    assert [f.code for f in ordered] == ["EXPLODING_GRADIENTS", "EXPLODING_ACTIVATIONS", "NAN_LOSS"]
    assert b.severity == "error"                 # the root cause inherits the worst severity
    assert "likely_cause" not in b.evidence      # no cycle: the rule's own link won


# --- the rules package itself ---------------------------------------------------------------------
def rule_files():
    import pkgutil
    import importlib
    return [importlib.import_module(f"nndebug.rules.{m.name}")
            for m in pkgutil.iter_modules(rules.__path__)]


def test_every_threshold_is_a_named_constant_with_its_source():
    constants = []
    for module in rule_files():
        source = inspect.getsource(module)
        lines = source.splitlines()
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and \
                    all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets) and \
                    isinstance(node.value, ast.Constant) and \
                    isinstance(node.value.value, (int, float)):
                constants.append((node.targets[0].id, lines[node.lineno - 1], module.__name__))
    assert len(constants) >= 25
    # the sources are listed once, in the package docstring ("  [tag]   who, where")
    sources = set(re.findall(r"^  \[(\w+)\]", rules.__doc__, re.M))
    assert {"karpathy", "measured", "design"} <= sources
    for name, line, module in constants:
        tags = set(re.findall(r"\[(\w+)\]", line.partition("#")[2]))
        assert tags & sources, (
            f"threshold {name} in {module} has no comment naming where it comes from with one "
            f"of the sources listed in nndebug/rules/__init__.py ({sorted(sources)}); "
            f"found {sorted(tags) or 'none'}: add the source to that list")
    names = [name for name, _, _ in constants]
    assert len(names) == len(set(names)), "a threshold is named twice"


def test_rules_work_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import numpy as np\n"
            "from nndebug import rules\n"
            "from nndebug.records import RunRecord\n"
            "run = RunRecord(loss_steps=list(range(50)), losses=list(np.linspace(2, 1, 50)))\n"
            "print(len(rules.diagnose(run)))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for module in rule_files():
        assert "import torch" not in inspect.getsource(module), module.__name__


# --- on real training, both frameworks -------------------------------------------------------------
@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_diverging_linear_regression_is_diverging_and_not_a_plateau(framework):
    # the case of #9: Linear(1, 1), inputs x10, SGD lr 0.01, 40 full-batch steps. With
    # mean(x^2) above 100 each step multiplies the error by |1 - 2 lr mean(x^2)| > 1
    import nndebug as nd
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(64, 1)) * 10).astype(np.float32)
    y = (3 * x + rng.normal(size=(64, 1))).astype(np.float32)
    assert 2 * 0.01 * np.mean(x ** 2) > 2.0       # the premise: this run must diverge
    if framework == "torch":
        torch = pytest.importorskip("torch")
        torch.manual_seed(0)
        model = torch.nn.Linear(1, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        inputs, targets, loss_fn = torch.tensor(x), torch.tensor(y), torch.nn.MSELoss()
    else:
        import minigrad as mg
        import minigrad.nn
        import minigrad.optim
        mg.manual_seed(0)
        model = mg.nn.Linear(1, 1)
        opt = mg.optim.SGD(model.parameters(), lr=0.01)
        inputs, targets, loss_fn = mg.tensor(x), mg.tensor(y), mg.nn.MSELoss()
    losses = []
    with nd.watch(model, optimizer=opt) as monitor:
        for _ in range(40):
            opt.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            opt.step()
            monitor.step(loss)
            losses.append(float(loss.item()))
    assert losses[-1] > 100 * losses[0]
    codes = [f.code for f in monitor.findings()]
    assert "LOSS_DIVERGING" in codes and "LOSS_PLATEAU" not in codes, codes

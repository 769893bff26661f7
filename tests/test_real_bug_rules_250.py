"""Real-bug batch 250 (beginner tensor-shape mistakes): a validation metric that returns
exactly the same value at every check while the training loss keeps falling - the
``argmax`` without its class axis of benchmarks/real_bugs/validation_argmax_without_axis_
stops_training_early.py - is named VALIDATION_NEVER_IMPROVED (rules/validation_gap.py's
scale-free look). The planted case and its healthy twin in torch and minigrad, a perfect
score reached before validation began, and the pure function's edges."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import validation_argmax_without_axis_stops_training_early as case  # noqa: E402,E501
from nndebug.rules.validation_gap import constant_validation  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "VALIDATION_NEVER_IMPROVED"
STEPS = 60
EVERY = 10


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def test_the_benchmark_case_is_named_and_its_twin_is_silent():
    planted = _problems(case.run())
    assert CODE in planted
    assert planted[CODE].evidence["val_value"] == 1.0
    assert _problems(case.run(fixed=True)) == {}


def _torch_run(no_axis, lr=0.01, every=EVERY):
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    x_val, y_val = next(iter(blobs(1, batch=256, seed=1)))
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            error = None
            if step % every == 0:
                with torch.no_grad():
                    logits = model(x_val)
                pred = logits.argmax() if no_axis else logits.argmax(dim=1)
                error = float((pred != y_val).float().mean())
            mon.step(loss, val_loss=error)
    return mon


def test_torch_validation_error_from_argmax_without_axis_is_named():
    assert CODE in _problems(_torch_run(no_axis=True))
    assert CODE not in _problems(_torch_run(no_axis=False))


def test_a_perfect_score_reached_before_validation_began_stays_silent():
    """An easy task learnt in a few steps: the validation error is 0.0 at every check, but
    the training loss had already fallen far before the first one."""
    mon = _torch_run(no_axis=False, lr=0.5, every=20)
    assert CODE not in _problems(mon)


def test_validation_never_improved_constant_in_minigrad():
    """The check reads the two curves only: the same verdict for a minigrad run."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    loss_fn = mnn.CrossEntropyLoss()
    x_val, y_val = next(iter(blobs(1, batch=256, seed=1)))
    xv, labels = mg.tensor(x_val.numpy()), y_val.numpy()
    found = {}
    for no_axis in (True, False):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(16, 4))
        optimizer = moptim.SGD(model.parameters(), lr=0.002)
        with nd.watch(model, optimizer) as mon:
            for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(xb.numpy())), mg.tensor(yb.numpy()))
                loss.backward()
                optimizer.step()
                error = None
                if step % EVERY == 0:
                    logits = model(xv).numpy()
                    pred = logits.argmax() if no_axis else logits.argmax(axis=1)
                    error = float(np.mean(pred != labels))
                mon.step(loss, val_loss=error)
        found[no_axis] = _problems(mon)
    assert CODE in found[True]
    assert CODE not in found[False]


def test_constant_validation_edges():
    steps = np.arange(60)
    falling = np.linspace(2.3, 1.5, 60)
    at = [10, 30, 50]

    def const(val, curve=falling, val_steps=at):
        return constant_validation(steps, curve, val_steps, val)
    assert const([1.0, 1.0, 1.0]) is not None                      # stuck, training falls
    assert const([1.0, 1.0]) is None                               # two checks only
    assert const([1.0, 0.99, 1.0]) is None                         # it moved
    assert const([1.0, 1.0, 1.0], curve=np.full(60, 2.3)) is None  # nothing learnt either
    early = np.concatenate([np.linspace(2.3, 0.2, 10), np.linspace(0.2, 0.05, 50)])
    assert const([0.0, 0.0, 0.0], curve=early) is None             # perfect before checking

"""Evaluations a loop never announces with ``val_loss``: VALIDATION_INPUTS_RESCALED from the
no-gradient forwards the model ran in eval mode between its steps.

Real-bug batch 242 (https://github.com/JeasunLok/ResNet-pytorch/issues/1): the training
Dataset normalises its images, the validation Dataset was built without the transform, and
the loop validates every few steps and prints. It never passes ``val_loss`` to
``mon.step``, so the validation observer never started. Planted: standardised training
inputs, raw validation inputs, in eval mode under ``torch.no_grad``, no ``val_loss``; named.
Healthy: the same loop validating on standardised inputs; the same raw inputs run in
training mode (a sampling or pseudo-labelling pass: not taken as an evaluation); an
evaluation after the last step (taken when the monitor closes). A run that passes
``val_loss`` keeps its announced rows as before. Torch only: the hook is the torch
monitor's."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

STEPS = 60
EVERY = 10


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _data():
    """Digits (pixel counts 0-16): standardised training rows, raw and standardised
    held-out rows."""
    x, y = classification()
    raw = x * 16 if x.max() <= 1 else x
    train_raw, held_raw = raw[:-300], raw[-300:]
    mean, std = train_raw.mean(0), train_raw.std(0) + 1e-6
    return (train_raw - mean) / std, y[:-300], held_raw, (held_raw - mean) / std


def _train(evaluate, val_loss=False, after=None):
    """An MLP on standardised digits; ``evaluate(model)`` every EVERY steps after
    ``mon.step``; ``after(model)`` once after the last step, inside the watch block."""
    torch.manual_seed(0)
    x, y, _, _ = _data()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    last = None
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, STEPS), start=1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss, val_loss=last if val_loss else None)
            if step % EVERY == 0:
                last = evaluate(model)
        if after is not None:
            after(model)
    return mon


def _evaluate_on(inputs, train_mode=False):
    def evaluate(model):
        model.train(train_mode)
        with torch.no_grad():
            out = model(inputs).mean()
        model.train()
        return float(out)
    return evaluate


def test_raw_inputs_evaluated_in_eval_mode_without_val_loss_are_named():
    _, _, held_raw, _ = _data()
    mon = _train(_evaluate_on(held_raw))
    rows = mon.run.observed.unannounced_evaluations
    assert len(rows) >= 2 and all(not norm and not dropout for _, _, _, norm, dropout, _ in rows)
    assert "VALIDATION_INPUTS_RESCALED" in _codes(mon)


def test_standardised_inputs_evaluated_the_same_way_are_silent():
    _, _, _, held = _data()
    mon = _train(_evaluate_on(held))
    assert len(mon.run.observed.unannounced_evaluations) >= 2     # measured ...
    assert "VALIDATION_INPUTS_RESCALED" not in _codes(mon)      # ... and alike


def test_forwards_in_training_mode_are_not_taken_as_evaluations():
    """No model.eval(): a sampling or pseudo-labelling pass looks the same, so without a
    val_loss nothing is read."""
    _, _, held_raw, _ = _data()
    mon = _train(_evaluate_on(held_raw, train_mode=True))
    assert mon.run.observed.unannounced_evaluations == []
    assert "VALIDATION_INPUTS_RESCALED" not in _codes(mon)


def test_an_evaluation_after_the_last_step_is_taken_at_close():
    _, _, held_raw, _ = _data()
    mon = _train(lambda model: None, after=_evaluate_on(held_raw))
    assert len(mon.run.observed.unannounced_evaluations) == 1
    assert mon.run.observed.unannounced_evaluations[0][0] == STEPS


def test_announced_validations_are_measured_as_before():
    """With val_loss the announced rows are the ones read; the first announced validation
    is not measured (the hook used to go on only after it)."""
    _, _, _, held = _data()

    def evaluate_then_announce(model):
        return _evaluate_on(held)(model)

    torch.manual_seed(0)
    x, y, _, _ = _data()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, STEPS), start=1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = evaluate_then_announce(model) if step % EVERY == 0 else None
            mon.step(loss, val_loss=val)
    steps = [row[0] for row in mon.run.observed.validation_inputs]
    assert steps == [2 * EVERY - 1, 3 * EVERY - 1, 4 * EVERY - 1, 5 * EVERY - 1]
    assert mon.run.observed.unannounced_evaluations == []


def test_unannounced_rows_are_saved_and_loaded(tmp_path):
    _, _, held_raw, _ = _data()
    mon = _train(_evaluate_on(held_raw))
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [tuple(row) for row in loaded.run.observed.unannounced_evaluations] == \
        [tuple(row) for row in mon.run.observed.unannounced_evaluations]
    assert "VALIDATION_INPUTS_RESCALED" in {f.code for f in loaded.findings()}

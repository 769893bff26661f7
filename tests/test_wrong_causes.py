"""Rules that named a wrong cause on public bug reports now need their own evidence.

- LR_TOO_HIGH: a NaN out of a steady, falling loss with small updates is no blow-up of the
  rate's (``curve.calm_before_nan``), and a loss that does not improve blames the
  rate only when the updates stay large past the optimizer's first steps.
- LOSS_DIVERGING: the rise from the best window to the last is measured against those
  windows' own noise (mixup's noise grows as the model gets confident).
- OVERFITTING: the validation passes it compares must have measured the same inputs
  (``monitor/validation_sets.py``): a set redrawn between stages is no memorising.

Each planted run is checked with the evidence met (the rule fires) and not met (silent).
"""
import math

import numpy as np
import pytest

from nndebug import rules
from nndebug.records import LayerInfo, ParamInfo, RunRecord, StepRecord

PROBLEMS = ("warning", "error")


def problems(found):
    return {f.code for f in found if f.severity in PROBLEMS}


def records_run(losses, updates, record_steps=None):
    """Two 8x8 weight matrices of norm 1; ``updates(step)``: the update norm of both at a
    recorded step (its update/weight ratio); records at steps 0, 1, 2, 4, 8, ... before
    the end of ``losses`` (the judged schedule) unless ``record_steps`` is given."""
    n = len(losses)
    run = RunRecord(framework="test", has_optimizer=True)
    run.params = [ParamInfo(f"{i}.weight", (8, 8), True, True) for i in range(2)]
    run.layers = [LayerInfo("0", "Linear", "other"), LayerInfo("1", "ReLU", "relu")]
    run.loss_steps, run.losses, run.n_steps = list(range(n)), list(losses), n
    if record_steps is None:
        record_steps = [0, 1, 2] + [1 << k for k in range(2, 20) if (1 << k) < n]
    for step in record_steps:
        r = StepRecord(step=step, backward=True, lrs=[0.01])
        nan = not math.isfinite(losses[step])
        value = float("nan") if nan else 0.1
        r.grad_norm, r.grad_received = np.full(2, value), np.ones(2, bool)
        r.held_norm, r.held_excess = np.full(2, value), np.zeros(2)
        r.param_norm = np.full(2, float("nan") if nan else 1.0)
        r.update_norm = np.full(2, float("nan") if nan else updates(step))
        r.inputs = {"mean": 0.1, "std": 0.9, "batch": 32.0}
        run.records.append(r)
    return run


def falling(n, seed=0):
    """A loss falling from 2.3 towards 0.1 with minibatch noise."""
    rng = np.random.default_rng(seed)
    return 0.1 + 2.2 * np.exp(-np.arange(n) / 40) + 0.02 * rng.standard_normal(n)


def adaptive_start(step):
    """Updates of Adam at lr 3e-2 on a small MLP: a third of the weights on the first
    step, shrinking by themselves (as measured on the unclamped-log report's run)."""
    return 0.35 / (1 + step) ** 0.8


def rmsprop_start(step):
    """Updates of RMSprop at lr 1e-3 (no bias correction: ten times the rate per weight
    at first), shrinking as its average of squared gradients fills (as measured on the
    siamese report's run: 0.13 at step 0, 0.05 at step 8)."""
    return 0.14 / (1 + step) ** 0.5


# --- LR_TOO_HIGH and a NaN ------------------------------------------------------------

def test_a_nan_out_of_a_calm_falling_run_is_not_the_learning_rates():
    losses = list(falling(261)) + [float("nan")] * 39
    found = rules.diagnose(records_run(losses, adaptive_start,
                                       [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 264]))
    assert "NAN_LOSS" in problems(found)
    assert "LR_TOO_HIGH" not in problems(found)
    nan = next(f for f in found if f.code == "NAN_LOSS")   # and NAN_LOSS says so
    assert nan.evidence.get("out_of_a_calm_run") and "no blow-up" in nan.message


def test_a_nan_after_the_loss_grew_is_still_the_learning_rates():
    grown = list(falling(200)) + list(0.2 * 3.0 ** np.arange(1, 12))
    losses = grown + [float("nan")] * (300 - len(grown))
    found = rules.diagnose(records_run(losses, adaptive_start))
    assert "LR_TOO_HIGH" in problems(found)
    nan = next(f for f in found if f.code == "NAN_LOSS")
    assert "out_of_a_calm_run" not in nan.evidence and "blew up" in nan.message


def test_a_nan_while_the_updates_are_still_huge_is_still_the_learning_rates():
    # a steady loss, but every update rewrites 40% of the weights right up to the NaN
    losses = list(falling(100)) + [float("nan")] * 50
    found = rules.diagnose(records_run(losses, lambda step: 0.4))
    assert "LR_TOO_HIGH" in problems(found)


# --- LR_TOO_HIGH and a loss that does not improve -----------------------------------------

def flat(n, seed=1):
    rng = np.random.default_rng(seed)
    return 0.26 + 0.01 * rng.standard_normal(n)


def test_a_large_first_step_alone_does_not_blame_the_rate_for_a_flat_loss():
    found = rules.diagnose(records_run(flat(300), rmsprop_start))
    assert "LR_TOO_HIGH" not in problems(found)


def test_updates_that_stay_large_and_a_flat_loss_blame_the_rate():
    found = rules.diagnose(records_run(flat(300), lambda step: 0.3))
    assert "LR_TOO_HIGH" in problems(found)


def test_a_healthy_adaptive_start_on_a_falling_loss_is_silent():
    for start in (adaptive_start, rmsprop_start):
        assert not problems(rules.diagnose(records_run(falling(300), start)))


# --- LOSS_DIVERGING and minibatch noise that grows ------------------------------------------

def noisy_late(n, level_end, seed=2):
    """A loss falling from 2.3 to 1.6 over the first half, then at ``level_end`` over the
    second, its minibatch noise growing from 0.05 to 0.6 (heavy-tailed, as mixup's blended
    batches give once the model is confident)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    level = np.where(t < n // 2, 2.3 - 0.7 * t / (n // 2), level_end)
    spread = 0.05 + 0.55 * t / n
    return level + spread * rng.standard_t(3, n)


def test_growing_noise_around_a_steady_level_is_not_divergence():
    for seed in range(5):
        found = rules.diagnose(records_run(noisy_late(200, 1.6, seed), lambda step: 1e-3))
        assert "LOSS_DIVERGING" not in problems(found), seed


def test_a_rise_far_past_the_start_is_divergence_even_with_noisy_late_steps():
    for seed in range(5):
        found = rules.diagnose(records_run(noisy_late(200, 3.2, seed), lambda step: 1e-3))
        assert "LOSS_DIVERGING" in problems(found), seed


# --- OVERFITTING and a validation set that changes ------------------------------------------

torch = pytest.importorskip("torch")
import nndebug as nd  # noqa: E402
from nndebug.zoo.common import batches, digits, to_framework  # noqa: E402

VAL_EVERY = 10


def _memorising_run(validation_sets, steps=300):
    """The zoo's overfitting run (64 training images, a 256-wide MLP, Adam): a big network
    that memorises. ``validation_sets(step)`` gives the validation batches of the pass at
    ``step``: the losses are averaged over them, weighted by their rows."""
    torch.manual_seed(0)
    x, y, _, _ = digits(val=True)
    x, y = x[:64], y[:64]
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, batch_size=16)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % VAL_EVERY == 0:
                with torch.no_grad():
                    parts = [(loss_fn(model(xv), yv), len(yv)) for xv, yv in validation_sets(step)]
                    val_loss = sum(v * n for v, n in parts) / sum(n for _, n in parts)
            mon.step(loss, val_loss=val_loss)
    return mon


def _held_out():
    _, _, x_val, y_val = digits(val=True)
    return to_framework("torch", x_val, y_val)


def test_a_validation_loss_that_rose_because_the_set_changed_is_not_overfitting():
    # the first half validated on trained images (their loss falls to ~0), the second on
    # held-out ones: the validation loss jumps where the set changed, the training loss falls
    x, y, _, _ = digits(val=True)
    trained = to_framework("torch", x[:64], y[:64])
    held_out = _held_out()
    mon = _memorising_run(lambda step: [trained if step < 150 else held_out])
    kept = mon.run.observed.validation_sets
    assert len({(rows, total) for _, rows, total, _ in kept}) == 2     # two sets were measured
    assert "OVERFITTING" not in problems(mon.findings())


def test_overfitting_on_one_set_read_through_a_shuffled_loader_is_still_named():
    x_val, y_val = _held_out()

    def shuffled_batches(step):
        order = torch.randperm(len(y_val), generator=torch.Generator().manual_seed(step))
        return [(x_val[part], y_val[part]) for part in order.split(100)]

    mon = _memorising_run(shuffled_batches)
    kept = mon.run.observed.validation_sets
    assert len(kept) >= 20 and kept[0][1] == len(y_val)
    assert "OVERFITTING" in problems(mon.findings())


def test_the_validation_sets_survive_saving(tmp_path):
    x, y, _, _ = digits(val=True)
    trained = to_framework("torch", x[:64], y[:64])
    held_out = _held_out()
    mon = _memorising_run(lambda step: [trained if step < 150 else held_out], steps=200)
    mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(tmp_path / "run.nndebug")
    assert loaded.run.observed.validation_sets == mon.run.observed.validation_sets
    assert "OVERFITTING" not in problems(rules.diagnose(loaded.run.judged_view()))


def test_a_set_drawn_anew_at_every_pass_is_still_judged_for_overfitting():
    # random crops of the validation images at every pass: no two passes alike, one
    # population; the memorising run's rise is still OVERFITTING
    x_val, y_val = _held_out()

    def noisy(step):
        generator = torch.Generator().manual_seed(step)
        return [(x_val + 0.05 * torch.randn(x_val.shape, generator=generator), y_val)]

    mon = _memorising_run(noisy)
    kept = mon.run.observed.validation_sets
    assert len({total for _, _, total, _ in kept}) == len(kept)
    assert "OVERFITTING" in problems(mon.findings())

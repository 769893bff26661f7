"""Rules that named a wrong cause on public bug reports now need their own evidence.

- LR_TOO_HIGH: a NaN out of a steady, falling loss with small updates is no blow-up of the
  rate's (``learning_rate.calm_before_nan``), and a loss that does not improve blames the
  rate only when the updates stay large past the optimizer's first steps.

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


def test_a_nan_after_the_loss_grew_is_still_the_learning_rates():
    grown = list(falling(200)) + list(0.2 * 3.0 ** np.arange(1, 12))
    losses = grown + [float("nan")] * (300 - len(grown))
    found = rules.diagnose(records_run(losses, adaptive_start))
    assert "LR_TOO_HIGH" in problems(found)


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

"""A fast subset of core variants 5 (benchmarks/core_variants_5.py, the false-alarm hunt on
healthy runs): the three healthy runs that raised false alarms as they came (a siamese
contrastive net's last bias blind to the pair difference, a GAN's watched discriminator
climbing back towards its balance, Adagrad at batch 4 whose single hard samples read as
spikes) must stay silent; the planted bugs next to them must still be named; and a few
healthy runs that were silent from the start stay so."""
import warnings

import pytest
import torch

from benchmarks import core_variants_5 as cv
from benchmarks.bench_real_bugs import PROBLEMS

BY_NAME = {v.name: v for v in cv.VARIANTS}


def problems(name, fixed=True):
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mon = BY_NAME[name].build(fixed)
    return mon, [f.code for f in mon.findings() if f.severity in PROBLEMS]


@pytest.mark.parametrize("name", [
    "siamese_contrastive_margin",              # NO_GRADIENT on net.2.bias before
    "gan_two_gaussians_watch_discriminator",   # LOSS_DIVERGING before
    "mlp_adagrad_batch_4",                     # LR_TOO_HIGH, DEAD_RELU, LOSS_OSCILLATING before
    "mlp_large_lr_plain_sgd",
    "regression_smooth_l1_sgd_momentum_b8",
    "checkpoint_saved_and_reloaded_mid_run",
])
def test_healthy_run_is_silent(name):
    mon, codes = problems(name)
    assert codes == []
    losses = mon.variant_losses
    assert sum(losses[-10:]) < sum(losses[:10]) * 0.8 or name.startswith("gan")


@pytest.mark.parametrize("name", ["adagrad_batch_4_rate_twenty_times_too_high",
                                  "siamese_keep_probability_passed_as_dropout_p"])
def test_planted_bug_is_still_named(name):
    _, codes = problems(name, fixed=False)
    assert set(codes) & set(BY_NAME[name].expected)


# --- the widened rules on recorded curves (no training) ---------------------------------------
import numpy as np  # noqa: E402

from nndebug import rules  # noqa: E402
from tests.test_rules import healthy_curve, problems as curve_problems, run_with_losses  # noqa: E402


def test_single_hard_samples_at_batch_4_are_not_spikes_but_big_ones_are():
    curve = healthy_curve(600, 1, 0.05, floor=0.05)
    hard = curve.copy()
    hard[np.arange(40, 600, 20)] += 0.7    # one sample at loss ~3 in a batch of 4: 0.3 x ln 10
    assert "LOSS_OSCILLATING" not in curve_problems(rules.diagnose(
        run_with_losses(hard, classes=10, batch=4)))
    # the same bumps at batch 64 (one sample would have to cost ~45) are still spikes
    assert "LOSS_OSCILLATING" in curve_problems(rules.diagnose(
        run_with_losses(hard, classes=10, batch=64)))
    big = curve.copy()
    big[np.arange(40, 600, 20)] += 3.0
    assert "LOSS_OSCILLATING" in curve_problems(rules.diagnose(
        run_with_losses(big, classes=10, batch=4)))


def _game(curve):
    run = run_with_losses(curve, classes=None, batch=64)
    run.observed.other_turn_gradients = [(0, "cleared"), (1, "cleared")]
    return curve_problems(rules.diagnose(run))


def test_a_discriminator_climbing_back_is_not_diverging_but_a_blow_up_is():
    rng = np.random.default_rng(0)
    back = np.concatenate([np.linspace(1.16, 1.0, 100), np.linspace(1.0, 1.27, 500)])
    back = back + rng.normal(0, 0.02, len(back))
    assert "LOSS_DIVERGING" in curve_problems(rules.diagnose(run_with_losses(back, batch=64)))
    assert "LOSS_DIVERGING" not in _game(back)
    far = np.concatenate([np.linspace(1.16, 1.0, 100), np.linspace(1.0, 4.0, 500)])
    assert "LOSS_DIVERGING" in _game(far + rng.normal(0, 0.02, len(far)))


EARLY_STOPPED_VAL = [0.6962, 0.447, 0.4316, 0.3964, 0.3517, 0.3872, 0.341, 0.3102, 0.2931,
                     0.3492, 0.2718, 0.3404, 0.3185, 0.2626, 0.3756, 0.3761, 0.3349]


def test_validation_noise_of_a_small_set_is_not_overfitting_but_a_clear_rise_is():
    # early_stopping_on_validation at torch seeds shifted by 2000: 200 held-out digits, the
    # last window 18% above the best one, passes 0.03-0.11 apart (1.2 sigmas): silent
    steps = list(range(39, 680, 40))
    train = healthy_curve(680, 3, 0.05, floor=0.02)
    run = run_with_losses(train, classes=10, batch=64, val=(steps, EARLY_STOPPED_VAL))
    assert "OVERFITTING" not in curve_problems(rules.diagnose(run))
    # the same passes rising steadily after step 359 (0.29 -> 0.62, noise 0.01): named
    rng = np.random.default_rng(0)
    rising = EARLY_STOPPED_VAL[:9] + list(0.29 + 0.04 * np.arange(1, 9) +
                                          rng.normal(0, 0.01, 8))
    run = run_with_losses(train, classes=10, batch=64, val=(steps, rising))
    assert "OVERFITTING" in curve_problems(rules.diagnose(run))

"""A GAN watched from its generator's side (real-bug batch 120's reports, with their
cross-entropy losses). The generator's loss is its rival's verdict on the fakes: as the
discriminator learns, that loss climbs (0.8 -> 3-5 on the digits) and its gradient grows a
hundredfold. Both are the ordinary course of the game, not a blow-up: the healthy cGAN drew
EXPLODING_GRADIENTS (gradient grown 218x "while the loss climbed") and, at another seed,
LOSS_DIVERGING. watch now tells the sides apart (``curve.loss_through_rival``: the watched
loss's backward reaches the other optimizer's parameters) and stays silent; a generator
whose loss climbs far beyond what a confident discriminator explains is still named, and
a discriminator, whose loss does not go through its rival, keeps the tighter allowance."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.bench_real_bugs import PROBLEMS  # noqa: E402
from benchmarks.real_bugs import cgan_generator_trained_on_one_fixed_class as cgan  # noqa: E402
from nndebug import rules  # noqa: E402
from tests.test_rules import problems as curve_problems, run_with_losses  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_the_healthy_cross_entropy_cgan_generator_is_silent():
    mon = cgan.run(fixed=True)                 # 1,500 steps: the 218x growth came at 1,500
    assert [f.code for f in mon.findings() if f.severity in PROBLEMS] == []
    rows = mon.run.observed.other_turn_gradients
    assert rows and all(row[2] for row in rows)          # the loss goes through the rival
    assert mon.class_match > 0.9


def _game(curve, through_rival):
    run = run_with_losses(curve, classes=None, batch=64)
    run.observed.other_turn_gradients = [(0, "cleared", through_rival),
                                         (1, "cleared", through_rival)]
    return curve_problems(rules.diagnose(run))


def _climb(start, top, n=600, seed=0):
    rng = np.random.default_rng(seed)
    curve = np.concatenate([np.full(50, start), np.linspace(start, top, n - 50)])
    return curve + rng.normal(0, 0.05, n)


def test_a_generator_climbing_as_its_rival_learns_is_not_diverging():
    assert "LOSS_DIVERGING" not in _game(_climb(0.8, 4.6), through_rival=True)


def test_the_same_climb_of_a_discriminator_is_still_named():
    assert "LOSS_DIVERGING" in _game(_climb(0.8, 4.6), through_rival=False)


def test_a_generator_climbing_far_beyond_a_confident_rival_is_still_named():
    assert "LOSS_DIVERGING" in _game(_climb(0.8, 12.0), through_rival=True)


def test_runs_saved_before_the_third_field_read_as_not_through_the_rival():
    from nndebug.runfile import ROW_READERS
    assert ROW_READERS["other_turn_gradients"]([3, "carried"]) == (3, "carried", False)
    assert ROW_READERS["other_turn_gradients"]([3, "cleared", True]) == (3, "cleared", True)

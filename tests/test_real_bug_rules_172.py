"""Real-bug batch 172: a keyword spotter trained under strong SpecAugment masks whose clean
validation loss races to zero while the masked training loss cannot follow (0.23, 0.02,
0.00 of it at the first three validations). Its healthy twin drew VALIDATION_LOSS_MISSCALED
at seeds + 1000 as it came; a wrong count scales every validation by one factor, so the
first ratios must agree with each other (within LOW_EARLY_SPREAD)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import \
    specaugment_masks_applied_to_validation_spectrograms as specaugment  # noqa: E402
from nndebug.rules.validation_scale import misscaled  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_the_augmented_twin_at_shifted_seeds_is_silent():
    with shifted_seeds(1000):
        mon = specaugment.run(fixed=True)
    assert not [f.code for f in mon.findings() if f.severity in ("warning", "error")]


def test_a_validation_loss_falling_away_from_the_training_loss_is_no_wrong_count():
    steps = np.arange(300)
    curve = 1.6 * np.exp(-steps / 30) + 0.45           # held up by the augmentation
    at = np.array([25, 50, 75, 100, 125])
    level = np.interp(at, steps, curve)
    assert misscaled(steps, curve, at, level * np.array([0.23, 0.02, 0.004, 0.002, 0.001])) \
        is None
    # one factor throughout, as a wrong count gives: still named
    assert misscaled(steps, curve, at, level * 0.2 * np.array([1.0, 0.9, 1.1, 1.0, 0.95]))[0] \
        == "below"

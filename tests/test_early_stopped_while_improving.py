"""Real-bug batches 266 and 139 (early stopping written by hand): EARLY_STOPPED_WHILE_IMPROVING
(``rules/early_stop.py``, from the validation losses passed to ``mon.step``) - the run ended
on a validation pass that beat every earlier one by a wide margin. A warning when learning is
poor (GLiNER2#70: the best updated before the check, the run stopped after two improving
passes), info otherwise (a healthy fixed budget that ends still improving looks the same);
nothing on a run an early stopper ended after passes that did not improve, on a noisy
plateau, or on a single validation pass.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import (  # noqa: E402
    best_metric_updated_before_early_stopping_check as best_first_case)
from benchmarks.real_bugs import (  # noqa: E402
    early_stopping_stepped_per_validation_batch as per_batch_case)
from nndebug.rules.early_stop import stopped_while_improving  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "EARLY_STOPPED_WHILE_IMPROVING"


def _found(mon):
    return [f for f in mon.findings() if f.code == CODE]


def test_a_stopper_that_updates_its_best_before_the_check_is_named():
    found = _found(best_first_case.run())
    assert found and found[0].severity == "warning"
    assert found[0].evidence["last_fall"] > 0.3
    assert not [f for f in best_first_case.run(fixed=True).findings()
                if f.severity in ("warning", "error")]


def test_a_stopper_counting_batches_on_a_run_that_learned_well_is_info():
    found = _found(per_batch_case.run())
    assert found and found[0].severity == "info"
    assert _found(per_batch_case.run(fixed=True)) == []      # stopped after passes not better


def test_the_last_pass_must_beat_every_earlier_one_by_a_wide_margin():
    steps = np.arange(0, 100, 10)
    improving = np.array([2.0, 1.6, 1.3, 1.1, 0.95, 0.85, 0.78, 0.73, 0.70, 0.55])
    assert stopped_while_improving(steps, improving)[3] == pytest.approx(0.15 / 0.70)
    # an early stopper's run: the last passes no better than the best
    stopped = np.array([2.0, 1.2, 0.8, 0.6, 0.5, 0.48, 0.47, 0.49, 0.50, 0.51])
    assert stopped_while_improving(steps, stopped) is None
    # a converging run: the last pass a new best by a few percent
    converging = np.array([2.0, 1.2, 0.8, 0.6, 0.5, 0.45, 0.43, 0.42, 0.415, 0.41])
    assert stopped_while_improving(steps, converging) is None
    # a noisy plateau ending on a low draw that does not beat its earlier best by much
    rng = np.random.default_rng(0)
    plateau = 0.5 + 0.04 * rng.standard_normal(10)
    plateau[-1] = plateau[:-1].min() * 0.95
    assert stopped_while_improving(steps, plateau) is None


def test_one_pass_or_none_is_not_judged():
    assert stopped_while_improving(np.array([9]), np.array([1.0])) is None
    assert stopped_while_improving(np.array([], int), np.array([])) is None
    assert stopped_while_improving(np.array([9, 19]), np.array([np.nan, 1.0])) is None
    assert stopped_while_improving(np.array([9, 19]), np.array([1.0, 0.5]))[0] == 19

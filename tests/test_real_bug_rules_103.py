"""Real-bug batch 103 (time-series models that leak labels into their inputs): no rule was
built this round. What is checked: the one case named as it came (a label shifted to the
window's previous value: TARGETS_IN_INPUTS) stays named at shifted seeds; the five fixed
twins stay silent; and each bug's data really carries the leak its docstring claims (so a
case cannot drift into a healthy script while it sits in KNOWN_MISSES), with the twin's
data free of it."""
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import monthly_mean_feature_spans_the_month as monthly  # noqa: E402
from benchmarks.real_bugs import next_move_shifted_into_features as next_move  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    rolling_target_mean_includes_current_step as rolling)
from benchmarks.real_bugs import target_lags_shorter_than_horizon as lags  # noqa: E402
from benchmarks.real_bugs import target_shifted_to_previous_value as shifted  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CASES = (monthly, next_move, rolling, lags, shifted)


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _residual(x, y):
    """Root-mean-square residual of the least-squares fit of y on x and a constant."""
    design = torch.cat([x.double(), torch.ones(len(x), 1, dtype=torch.float64)], dim=1)
    solution = torch.linalg.lstsq(design, y.double()[:, None]).solution
    return float((design @ solution - y.double()[:, None]).pow(2).mean().sqrt())


# --- the named case and the twins ----------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1000])
def test_label_shifted_into_the_window_is_named(seed, monkeypatch):
    original = torch.manual_seed
    monkeypatch.setattr(torch, "manual_seed", lambda s: original(s + seed))
    assert "TARGETS_IN_INPUTS" in _problems(shifted.run())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.rsplit(".", 1)[-1])
def test_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True))


# --- the leak is in each bug's data, not in its twin's ------------------------------------

def test_rolling_mean_makes_the_target_a_linear_function_of_the_inputs():
    assert _residual(*rolling.table(gap=0)) < 1e-5          # y = 4 * mean - 3 lags, exactly
    assert _residual(*rolling.table(gap=1)) > 0.1           # the noise a forecast cannot know


def test_month_feature_holds_the_months_future():
    x, y = monthly.table(previous_month=False)
    day = torch.arange(monthly.MONTH, monthly.MONTH + len(y))
    month_of = day // monthly.MONTH
    for month in (1, 50):
        rows = month_of == month
        assert torch.allclose(x[rows, -1], y[rows].mean().expand(int(rows.sum())), atol=1e-5)
    x_fixed, _ = monthly.table(previous_month=True)
    assert _residual(x, y) < 0.8 * _residual(x_fixed, y)


def test_shifted_movement_column_carries_the_label():
    x, up = next_move.table(shift=-1)
    assert torch.equal((x[:, -1] > 0).float(), up)
    x, up = next_move.table(shift=1)
    agreement = float(((x[:, -1] > 0).float() == up).float().mean())
    assert agreement < 0.8                                   # momentum, not the answer


def test_lags_reach_inside_the_horizon():
    y = lags.series()
    x, target = lags.lagged_table(y, 1)
    t = torch.arange(lags.HORIZON + lags.LAGS, len(y))
    assert torch.equal(x[:, 0], y[t - 1])                    # 1 step, inside the horizon of 12
    x, _ = lags.lagged_table(y, lags.HORIZON)
    assert torch.equal(x[:, 0], y[t - lags.HORIZON])         # the nearest value known then


def test_label_is_one_of_the_windows_values():
    x, y = shifted.windows(shift=1)
    assert torch.equal(x[:, -2], y)
    x, y = shifted.windows(shift=-1)
    assert not (x == y[:, None]).all(0).any()

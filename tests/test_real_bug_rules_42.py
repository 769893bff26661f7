"""Real-bug batch 42 (regression, time series and tabular numerics): one regression loss over
target columns in different units (TARGET_COLUMNS_ON_DIFFERENT_SCALES), and a percentage
error divided by targets at or near zero (LOSS_DIVIDED_BY_NEAR_ZERO), and a window feature
that holds the value to predict, or a window cut one step too long
(FEATURE_HOLDS_TARGET_VALUES). The fixed twins (each column
standardised; the zero targets left out; a trailing median) stay silent, and so do healthy
multi-output regressions whose columns share a unit (several horizons of one series, box
corners), a reconstruction of many columns whose spreads differ on purpose, a single
output, a percentage error on targets far from zero, a mean over each row's own length, a
loss divided by a scalar, lagged values and trailing windows of a series, lagged counts,
a window that ends before its target, and the target column left whole among a table's
features (another check's finding)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import mape_loss_on_zero_targets as mape_case  # noqa: E402
from benchmarks.real_bugs import rolling_median_reads_next_row as median_case  # noqa: E402
from benchmarks.real_bugs import target_columns_on_different_scales as columns_case  # noqa: E402
from nndebug.rules.near_zero_divisors import NEAR_ZERO_DIVISOR_SPREAD  # noqa: E402
from nndebug.rules.target_columns import COLUMN_SPREAD_RATIO  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
COLUMNS = "TARGET_COLUMNS_ON_DIFFERENT_SCALES"
NEAR_ZERO = "LOSS_DIVIDED_BY_NEAR_ZERO"
HOLDS_TARGET = "FEATURE_HOLDS_TARGET_VALUES"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _regression(targets, loss_of=F.mse_loss, inputs=8, steps=STEPS):
    """An MLP regressing ``targets`` (rows, ...) from random features, STEPS steps with
    ``loss_of``; the closed monitor."""
    torch.manual_seed(0)
    rows = targets.shape[0]
    x = torch.randn(rows, inputs)
    width = targets.shape[-1] if targets.dim() > 1 else 1
    model = nn.Sequential(nn.Linear(inputs, 32), nn.ReLU(), nn.Linear(32, width))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % rows
            optimizer.zero_grad()
            out = model(x[index]).reshape(targets[index].shape)
            loss = loss_of(out, targets[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_planted_report_is_named():
    mon = columns_case.run(steps=STEPS)
    assert COLUMNS in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == COLUMNS)
    assert finding.evidence["widest"] == 1 and finding.evidence["narrowest"] == 0
    assert finding.evidence["ratio"] >= COLUMN_SPREAD_RATIO


def test_the_fixed_twin_is_silent():
    assert not _problems(columns_case.run(fixed=True, steps=STEPS))


def test_a_module_loss_and_l1_are_read_too():
    torch.manual_seed(1)
    targets = torch.stack([0.05 * torch.randn(400), 6 * torch.randn(400)], dim=1)
    assert COLUMNS in _problems(_regression(targets, loss_of=nn.MSELoss()))
    assert COLUMNS in _problems(_regression(targets, loss_of=F.l1_loss))


def test_columns_in_one_unit_are_silent():
    torch.manual_seed(2)
    level = torch.randn(400, 1).cumsum(0) * 0.1
    horizons = level + 0.3 * torch.randn(400, 6).cumsum(1)      # 6 steps ahead, spreads grow
    assert COLUMNS not in _problems(_regression(horizons))
    corners = torch.rand(400, 4) * torch.tensor([1.0, 1.0, 0.5, 0.5])   # x1, y1, w, h
    assert COLUMNS not in _problems(_regression(corners))


def test_a_wide_reconstruction_and_a_single_output_are_not_judged():
    torch.manual_seed(3)
    pixels = torch.rand(400, 64) * torch.linspace(0.001, 1, 64)   # border pixels barely vary
    assert COLUMNS not in _problems(_regression(pixels))
    single = 50 * torch.randn(400, 1)
    assert COLUMNS not in {f.code for f in _regression(single).findings()}


def test_a_constant_column_is_not_compared():
    torch.manual_seed(4)
    targets = torch.stack([torch.zeros(400), torch.randn(400)], dim=1)
    assert COLUMNS not in {f.code for f in _regression(targets).findings()}


def test_evaluation_calls_are_not_kept():
    torch.manual_seed(5)
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    uneven = torch.stack([0.01 * torch.randn(64), 10 * torch.randn(64)], dim=1)
    even = torch.randn(64, 2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            with torch.no_grad():
                F.mse_loss(model(torch.randn(64, 4)), uneven)   # a validation metric
            optimizer.zero_grad()
            loss = F.mse_loss(model(torch.randn(64, 4)), even)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert COLUMNS not in {f.code for f in mon.findings()}


# LOSS_DIVIDED_BY_NEAR_ZERO: the divisors are kept on recorded steps 1, 2 and 4, after the
# loss graph of step 0 showed a quotient by a constant: STEPS covers them

def _demand(rows=400, zero_share=0.3, low=1.0, seed=6):
    """Targets between ``low`` and ~20, a ``zero_share`` of them exactly 0."""
    torch.manual_seed(seed)
    level = low + (20 - low) * torch.rand(rows)
    return level * (torch.rand(rows) >= zero_share).float()


def test_the_planted_mape_report_is_named():
    mon = mape_case.run(steps=STEPS)
    assert NEAR_ZERO in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == NEAR_ZERO)
    assert finding.evidence["smallest"] == pytest.approx(mape_case.EPSILON)
    assert finding.evidence["spread"] >= NEAR_ZERO_DIVISOR_SPREAD


def test_the_mape_fixed_twin_is_silent():
    assert not _problems(mape_case.run(fixed=True, steps=STEPS))


def test_an_epsilon_added_to_zero_targets_is_named_too():
    def relative_error(out, y):
        return ((y - out).abs() / (y.abs() + 1e-8)).mean()
    assert NEAR_ZERO in _problems(_regression(_demand(), loss_of=relative_error))


def test_a_percentage_error_on_targets_far_from_zero_is_silent():
    def mape(out, y):
        return 100 * ((y - out).abs() / y.abs().clamp(min=1e-7)).mean()
    mon = _regression(_demand(zero_share=0.0, low=1.0), loss_of=mape)
    assert NEAR_ZERO not in {f.code for f in mon.findings()}
    assert mon.run.observed.near_zero_divisors          # read, and judged healthy


def test_a_mean_over_each_rows_own_length_is_silent():
    torch.manual_seed(7)
    lengths = torch.randint(1, 200, (400,)).float()
    targets = torch.randn(400, 4)

    def per_row_mean(out, y):          # a sum over each row divided by its length
        rows = y.shape[0]
        return (((out - y) ** 2).sum(1) / lengths[:rows]).mean()
    assert NEAR_ZERO not in {f.code for f in _regression(targets, per_row_mean).findings()}


def test_a_loss_divided_by_a_scalar_keeps_nothing():
    mon = _regression(torch.randn(400, 2), loss_of=lambda out, y: ((out - y) ** 2).sum() / 64)
    assert NEAR_ZERO not in {f.code for f in mon.findings()}
    assert not mon.run.observed.near_zero_divisors


# FEATURE_HOLDS_TARGET_VALUES

def _forecast(feature_of, series, steps=STEPS):
    """An MLP forecasting series[t + 1] from ``feature_of(series, t)`` (rows, columns),
    trained with F.mse_loss; the closed monitor."""
    torch.manual_seed(0)
    rows = torch.arange(8, len(series) - 8)
    x, y = feature_of(series, rows), series[rows + 1]
    model = nn.Sequential(nn.Linear(x.shape[1], 32), nn.ReLU(), nn.Linear(32, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            batch = torch.randint(0, len(x), (32,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _lags(series, rows, count=4):
    return torch.stack([series[rows - k] for k in range(count)], dim=1)


def test_the_planted_median_report_is_named():
    mon = median_case.run(steps=STEPS)
    assert HOLDS_TARGET in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == HOLDS_TARGET)
    assert finding.evidence["column"] == median_case.LAGS    # the median, after the lags
    assert finding.evidence["row_shape"] == [median_case.LAGS + 1]
    assert 0.2 <= finding.evidence["share"] < 1.0


def test_the_median_fixed_twin_is_silent():
    assert not _problems(median_case.run(fixed=True, steps=STEPS))


def test_a_centred_rolling_maximum_is_named():
    series = median_case.series(2000)

    def lags_and_centred_max(values, rows):
        window = torch.stack([values[rows + k] for k in (-1, 0, 1)])
        return torch.cat([_lags(values, rows), window.max(0).values[:, None]], dim=1)
    assert HOLDS_TARGET in _problems(_forecast(lags_and_centred_max, series))


def test_lags_and_trailing_windows_are_silent():
    series = median_case.series(2000)

    def lags_and_trailing(values, rows):
        window = torch.stack([values[rows - k] for k in range(5)])
        return torch.cat([_lags(values, rows), window.max(0).values[:, None],
                          window.median(0).values[:, None]], dim=1)
    mon = _forecast(lags_and_trailing, series)
    assert HOLDS_TARGET not in {f.code for f in mon.findings()}
    assert mon.run.observed.target_value_matches        # read, and judged healthy


def test_lagged_counts_are_not_judged():
    torch.manual_seed(8)
    counts = torch.poisson(torch.full((2000,), 3.0))   # next count = a lag by chance, often
    mon = _forecast(_lags, counts)
    assert HOLDS_TARGET not in {f.code for f in mon.findings()}
    assert not mon.run.observed.target_value_matches


def test_the_target_column_left_whole_is_not_named_twice():
    series = median_case.series(2000)
    mon = _forecast(lambda values, rows: torch.cat(
        [_lags(values, rows), values[rows + 1][:, None]], dim=1), series)
    assert HOLDS_TARGET not in {f.code for f in mon.findings()}


class _LastStepGru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn, self.head = nn.GRU(1, 16, batch_first=True), nn.Linear(16, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]).squeeze(1)


def _window_forecast(extra):
    """A GRU forecasting series[i + 8] from windows series[i:i + 8 + extra], (N, T, 1)."""
    series = median_case.series(1200)
    starts = torch.arange(0, 1100)
    x = torch.stack([series[i:i + 8 + extra] for i in starts.tolist()])[:, :, None]
    y = series[starts + 8]
    torch.manual_seed(0)
    model = _LastStepGru()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            batch = torch.randint(0, len(x), (32,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_window_cut_one_step_too_long_is_named():
    mon = _window_forecast(extra=1)                  # the window ends on its own target
    assert HOLDS_TARGET in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == HOLDS_TARGET)
    assert finding.evidence["row_shape"] == [9, 1] and finding.evidence["column"] == 8
    assert finding.evidence["share"] == 1.0


def test_a_window_that_ends_before_its_target_is_silent():
    mon = _window_forecast(extra=0)
    assert HOLDS_TARGET not in {f.code for f in mon.findings()}
    assert mon.run.observed.target_value_matches

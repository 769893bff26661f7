"""Real-bug batch 26 (sequence models that see what they should not):
SCALED_WITH_TARGET_STATISTICS (``rules/joint_scaling.py``, ``monitor/joint_scaling.py``),
windows min-max scaled together with the values they must forecast (philipperemy/n-beats#3)
and batches standardised with their own statistics, targets included
(arrigonialberto86/deepar#8); named on both, silent on their fixed twins (statistics of
the look-back only), on an autoencoder whose windows are scaled one by one (inputs and
targets the same), on full-batch training over a series scaled as a whole, on a regression
with standardised targets, on image-to-image training over bounded pixels, and on a
forecaster fed unscaled windows."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import batch_scaled_with_its_targets as batch_scaled  # noqa: E402
from benchmarks.real_bugs import window_scaled_with_its_forecast as window_scaled  # noqa: E402
from benchmarks.real_bugs._common import (batches, classification, mlp, regression,  # noqa: E402
                                          train_watched)
from nndebug.monitor.joint_scaling import compare  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "SCALED_WITH_TARGET_STATISTICS"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _named(mon):
    return [f for f in mon.findings() if f.code == CODE]


def test_windows_scaled_with_their_forecast_are_named():
    found = _named(window_scaled.run(steps=STEPS))
    assert found and found[0].severity == "warning"
    assert found[0].evidence["level"] == "row" and found[0].evidence["statistic"] == "min-max"
    assert 0 < found[0].evidence["inputs_alone_share"] < 1


def test_batches_standardised_with_their_targets_are_named():
    found = _named(batch_scaled.run(steps=STEPS))
    assert found and found[0].evidence["level"] == "batch"
    assert found[0].evidence["statistic"] == "mean-std"


@pytest.mark.parametrize("case", [window_scaled, batch_scaled])
def test_the_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True, steps=STEPS))


def _series(length=3000, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return torch.sin(2 * torch.pi * t / 24) + 0.3 * torch.randn(length, generator=g)


def _windows(series, length=24):
    starts = torch.arange(len(series) - length)
    return torch.stack([series[s:s + length] for s in starts.tolist()]), series[starts + length]


def test_an_autoencoder_of_windows_scaled_one_by_one_is_silent():
    """Each window min-max scaled alone and reconstructed: inputs and targets are the same
    tensor, so the inputs alone are canonical - no target leaks into their scale."""
    x, _ = _windows(_series())
    low, high = x.min(1, keepdim=True).values, x.max(1, keepdim=True).values
    x = (x - low) / (high - low)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(24, 8), nn.ReLU(), nn.Linear(8, 24))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss,
                        ((xb, xb) for xb, _ in batches(x, x, STEPS)))
    assert CODE not in _problems(mon)


def test_full_batch_training_on_a_series_scaled_as_a_whole_is_silent():
    """The whole (training) series min-max scaled first, every window in one batch: the batch
    is canonical over inputs and targets together, but it is the same batch every step - a
    scaler fitted on the training data, not one fitted batch by batch."""
    series = _series(length=400)
    series[0], series[-1] = series.min() - 0.5, series.max() + 0.5   # the minimum is read
    series = (series - series.min()) / (series.max() - series.min())  # only as an input,
    # the maximum only as a target: the batch is canonical over both together only
    x, y = _windows(series)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(24, 16), nn.ReLU(), nn.Linear(16, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss,
                        ((x, y) for _ in range(STEPS)))
    assert CODE not in _problems(mon)


def test_a_regression_with_standardised_targets_is_silent():
    torch.manual_seed(0)
    x, y = regression()
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, lambda out, t: nn.functional.mse_loss(out[:, 0], t),
                        batches(x, y, 30))
    assert CODE not in _problems(mon)


def test_image_to_image_on_bounded_pixels_is_silent():
    """Digits in [0, 1] mapped to other digits: most rows reach 0 and 1 over input and
    target together, some over neither alone - but pixels pile up at the bounds (about half
    are 0), which a fitted min-max never does."""
    x, y = classification()
    partner = x[torch.argsort(y, stable=True)]          # each image paired with another
    torch.manual_seed(0)
    model = mlp(outputs=64)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss, batches(x, partner, STEPS))
    assert CODE not in _problems(mon)


def test_unscaled_windows_are_silent():
    x, y = _windows(_series())
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(24, 16), nn.ReLU(), nn.Linear(16, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, STEPS))
    assert CODE not in _problems(mon)


def test_compare_reads_rows_and_batches():
    rng = np.random.default_rng(0)
    window = rng.normal(size=(16, 30)).cumsum(axis=1)
    low, high = window.min(1, keepdims=True), window.max(1, keepdims=True)
    joint = (window - low) / (high - low)
    rows = {(level, statistic): (together, inputs, targets)
            for _, level, statistic, _, together, inputs, targets, _ in
            compare(3, joint[:, :24], joint[:, 24:])}
    together, inputs, targets = rows[("row", "min-max")]
    assert together == 1.0 and inputs < 1.0 and targets < 1.0
    # the look-back's own statistics: the inputs alone are canonical
    low, high = window[:, :24].min(1, keepdims=True), window[:, :24].max(1, keepdims=True)
    honest = (window - low) / (high - low)
    rows = {(level, statistic): (together, inputs) for _, level, statistic, _, together,
            inputs, _, _ in compare(3, honest[:, :24], honest[:, 24:])}
    assert rows[("row", "min-max")][1] == 1.0
    # binary rows have min 0 and max 1 by nature: not informative, not counted
    flags = rng.integers(0, 2, size=(8, 30)).astype(float)
    assert all(level != "row" for _, level, *_ in compare(0, flags[:, :24], flags[:, 24:]))


def test_a_loaded_run_keeps_the_observation(tmp_path):
    mon = window_scaled.run(steps=STEPS)
    path = tmp_path / "run.nndebug"
    mon.save(path)
    loaded = nd.load_run(path)
    assert loaded.run.observed.joint_scaling == mon.run.observed.joint_scaling
    assert CODE in {f.code for f in nd.rules.diagnose(loaded.run.judged_view())}

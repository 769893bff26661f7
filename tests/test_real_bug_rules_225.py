"""Real-bug batch 225 (trajectory and motion forecasting): SCALED_WITH_TARGET_STATISTICS
widened to a centring alone (``monitor/joint_scaling.py``, statistic "mean"): a sample's
frame put at the mean of its observed AND future positions (Khrylx/AgentFormer#5), so the
centred past carries where the future lies. Named on the reproduced case and on a windowed
series centred with its forecast; silent on their fixed twins (the origin from the observed
part only), on an autoencoder of windows centred one by one, and on targets centred alone.
The monitor reads torch models only (its forward pre-hook), so the tests are torch's."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import scene_origin_averaged_over_future_positions as scene  # noqa: E402
from benchmarks.real_bugs._common import batches, train_watched  # noqa: E402
from nndebug.monitor.joint_scaling import compare  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "SCALED_WITH_TARGET_STATISTICS"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _named(mon):
    return [f for f in mon.findings() if f.code == CODE]


def _windows(length=2000, look_back=24, horizon=6, seed=0):
    rng = np.random.default_rng(seed)
    series = np.cumsum(rng.normal(0, 1, length + look_back + horizon)).astype(np.float32)
    index = np.arange(length)[:, None] + np.arange(look_back + horizon)
    windows = series[index]
    return windows[:, :look_back], windows[:, look_back:]


def _train(x, y, outputs):
    torch.manual_seed(0)
    x, y = torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y))
    model = nn.Sequential(nn.Linear(x.shape[1], 32), nn.ReLU(), nn.Linear(32, outputs))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, STEPS))


def test_trajectories_centred_on_their_past_and_future_are_named():
    found = _named(scene.run(steps=STEPS))
    assert found and found[0].severity == "warning"
    assert found[0].evidence["level"] == "row" and found[0].evidence["statistic"] == "mean"
    assert found[0].evidence["inputs_alone_share"] < 1


def test_the_fixed_trajectory_twin_is_silent():
    assert not _problems(scene.run(fixed=True, steps=STEPS))


def test_windows_centred_with_their_forecast_are_named():
    x, y = _windows()
    centre = np.concatenate([x, y], 1).mean(1, keepdims=True)
    found = _named(_train(x - centre, y - centre, y.shape[1]))
    assert found and found[0].evidence["statistic"] == "mean"


def test_windows_centred_on_their_look_back_are_silent():
    x, y = _windows()
    centre = x.mean(1, keepdims=True)
    assert CODE not in _problems(_train(x - centre, y - centre, y.shape[1]))


def test_an_autoencoder_of_windows_centred_one_by_one_is_silent():
    x, _ = _windows()
    x = x - x.mean(1, keepdims=True)
    assert CODE not in _problems(_train(x, x, x.shape[1]))


def test_targets_centred_alone_are_silent():
    """Inputs raw, each target window centred on its own mean (a shape to predict): the
    targets alone are canonical, the inputs say nothing about them."""
    x, y = _windows()
    assert CODE not in _problems(_train(x, y - y.mean(1, keepdims=True), y.shape[1]))


def test_compare_reports_a_joint_centring_only_together():
    rng = np.random.default_rng(0)
    both = rng.normal(3, 1, (32, 20))
    both -= both.mean(1, keepdims=True)
    rows = {(level, statistic): (together, inputs, targets)
            for _, level, statistic, _, together, inputs, targets, _ in
            compare(0, both[:, :8], both[:, 8:])}
    assert rows[("row", "mean")] == (1.0, 0.0, 0.0)
    assert rows[("row", "mean-std")][0] == 0.0

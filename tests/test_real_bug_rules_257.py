"""Rule change for batch 257 of the reproduced public bug reports (1-D CNN sensor
classifiers; ``benchmarks/real_bugs/sensor_windows_time_axis_fed_as_conv_channels.py``):
LAYOUT_NOT_TRANSPOSED (rules/layouts.py) also names the first Conv1d of a step reading the
model's input when its kernel is wider than that input's length and its channels outnumber
the positions CHANNELS_PER_POSITION times or more - sensor windows stored (batch, time
steps, axes) given to Conv1d(in_channels = window length). Planted and healthy twin, torch
and minigrad; a length of 1, a later layer and a kernel within the length stay silent."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.observed import LayerLayout  # noqa: E402
from nndebug.rules.layouts import misread_layouts  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
WIDTH, AXES = 48, 3


def _windows(n, seed):
    """(windows (n, WIDTH, AXES) as stored - axes on the last axis -, labels (n,)): the two
    classes move at different rates."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    t = np.arange(WIDTH)[None, :, None]
    phase = rng.uniform(0, 2 * np.pi, (n, 1, AXES))
    freq = np.where(y == 1, 0.15, 0.05)[:, None, None]
    x = np.sin(2 * np.pi * freq * t + phase) + 0.3 * rng.standard_normal((n, WIDTH, AXES))
    return x.astype(np.float32), y.astype(np.int64)


class _Net(nn.Module):
    def __init__(self, transpose):
        super().__init__()
        self.transpose = transpose
        self.conv = nn.Conv1d(AXES if transpose else WIDTH, 16, 7, padding=3)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        if self.transpose:
            x = x.transpose(1, 2)
        return self.out(torch.relu(self.conv(x)).mean(dim=-1))


def _train_torch(transpose, steps=30):
    torch.manual_seed(0)
    x, y = _windows(320, 0)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = _Net(transpose)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice((step * 32) % 320, (step * 32) % 320 + 32)
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_sensor_windows_as_stored_into_conv1d_are_named():
    mon = _train_torch(transpose=False)
    found = {f.code: f for f in mon.findings()}
    assert "LAYOUT_NOT_TRANSPOSED" in found
    assert found["LAYOUT_NOT_TRANSPOSED"].severity in PROBLEMS
    assert found["LAYOUT_NOT_TRANSPOSED"].evidence["side"] == "kernel_over_length"


def test_sensor_windows_transposed_stay_silent():
    mon = _train_torch(transpose=True)
    assert "LAYOUT_NOT_TRANSPOSED" not in {f.code for f in mon.findings()}


def _call(order, shape, kernel, layer="conv"):
    return LayerLayout(step=0, order=order, layer=layer, type="Conv1d", role="channels_first",
                       input_shape=shape, output_shape=(shape[0], 16, shape[2]),
                       kernel=kernel, one_hot_axis=None)


def test_only_a_first_call_with_a_kernel_over_a_short_long_channelled_input():
    assert [s for _, _, s in misread_layouts([_call(0, (8, 64, 3), 7)])] == \
        ["kernel_over_length"]
    assert misread_layouts([_call(0, (8, 25, 1), 3)]) == []       # length 1: ambiguous
    assert misread_layouts([_call(0, (8, 64, 8), 7)]) == []       # kernel within the length
    assert misread_layouts([_call(0, (8, 6, 3), 5)]) == []        # few channels per position
    deep = [_call(0, (8, 3, 64), 7, "stem"), _call(1, (8, 256, 2), 3, "late")]
    assert misread_layouts(deep) == []                            # a late, pooled layer


def test_sensor_layout_in_minigrad():
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim

    class Net(mnn.Module):
        def __init__(self, transpose):
            super().__init__()
            self.transpose = transpose
            self.conv = mnn.Conv1d(AXES if transpose else WIDTH, 16, 7, padding=3)
            self.out = mnn.Linear(16, 2)

        def forward(self, x):
            if self.transpose:
                x = x.transpose(1, 2)
            return self.out(self.conv(x).relu().mean(axis=2))

    x, y = _windows(192, 0)
    found = {}
    for transpose in (False, True):
        mg.manual_seed(0)
        model = Net(transpose)
        optimizer = moptim.Adam(model.parameters(), lr=3e-3)
        loss_fn = mnn.CrossEntropyLoss()
        with nd.watch(model, optimizer) as mon:
            for step in range(12):
                rows = slice(step % 6 * 32, step % 6 * 32 + 32)
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(x[rows])), mg.tensor(y[rows]))
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[transpose] = {f.code for f in mon.findings()}
    assert "LAYOUT_NOT_TRANSPOSED" in found[False]
    assert "LAYOUT_NOT_TRANSPOSED" not in found[True]

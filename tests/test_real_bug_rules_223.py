"""Rule change for batch 223 of the reproduced public bug reports (genomics;
``benchmarks/real_bugs/one_hot_dna_convolved_along_base_axis.py``): LAYOUT_NOT_TRANSPOSED
(rules/layouts.py, monitor/layer_layouts.py) also names a Conv1d given one-hot data in the
stored (batch, length, symbols) layout - its input one-hot along the LAST axis - when no
channels-last layer sits next to it. Planted and healthy twin, torch and minigrad."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.layer_layouts import one_hot_axis  # noqa: E402
from nndebug.observed import LayerLayout  # noqa: E402
from nndebug.rules.layouts import misread_layouts  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
LENGTH, MOTIF = 40, np.array([3, 2, 0, 1, 3, 2])


def _dna(n, seed):
    """(one-hot (n, LENGTH, 4) as stored - bases on the last axis -, labels (n,)): the
    positives carry a motif at a random offset."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 4, (n, LENGTH))
    y = rng.integers(0, 2, n)
    for r in np.flatnonzero(y == 1):
        s = rng.integers(0, LENGTH - len(MOTIF) + 1)
        ids[r, s:s + len(MOTIF)] = MOTIF
    return np.eye(4, dtype=np.float32)[ids], y.astype(np.int64)


class _Scanner(nn.Module):
    def __init__(self, transpose):
        super().__init__()
        self.transpose = transpose
        self.conv = nn.Conv1d(4 if transpose else LENGTH, 16, 3, padding=1)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        if self.transpose:
            x = x.transpose(1, 2)
        return self.out(torch.relu(self.conv(x)).amax(dim=-1))


def _train_torch(transpose, steps=30):
    torch.manual_seed(0)
    x, y = _dna(320, 0)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = _Scanner(transpose)
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


def test_one_hot_dna_into_conv1d_as_stored_is_named():
    mon = _train_torch(transpose=False)
    found = {f.code: f for f in mon.findings()}
    assert "LAYOUT_NOT_TRANSPOSED" in found
    assert found["LAYOUT_NOT_TRANSPOSED"].severity in PROBLEMS
    assert found["LAYOUT_NOT_TRANSPOSED"].evidence["side"] == "one_hot"


def test_one_hot_dna_transposed_stays_silent():
    mon = _train_torch(transpose=True)
    assert "LAYOUT_NOT_TRANSPOSED" not in {f.code for f in mon.findings()}
    first = [c for c in mon.run.observed.layer_layouts if c.role == "channels_first"]
    assert first and first[0].one_hot_axis == 1


def test_one_hot_axis():
    class _Adapter:
        is_tensor = staticmethod(lambda v: isinstance(v, np.ndarray))
        to_numpy = staticmethod(lambda v: v)
    a = _Adapter()
    x, _ = _dna(8, 1)
    assert one_hot_axis(a, x) == 2
    assert one_hot_axis(a, x.transpose(0, 2, 1)) == 1
    assert one_hot_axis(a, x * 0.5) is None                     # not 0/1
    assert one_hot_axis(a, np.ones((2, 3, 5), np.float32)) is None   # multi-hot
    assert one_hot_axis(a, np.eye(4, dtype=np.float32)[None]) is None    # square: ambiguous


def test_a_kernel_one_mixing_of_one_hot_rows_stays_silent():
    call = LayerLayout(step=0, order=0, layer="mix", type="Conv1d", role="channels_first",
                       input_shape=(8, 40, 4), output_shape=(8, 16, 4), kernel=1,
                       one_hot_axis=2)
    assert misread_layouts([call]) == []
    call.kernel = 3
    assert [side for _, _, side in misread_layouts([call])] == ["one_hot"]


def test_one_hot_layout_in_minigrad():
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim

    class Scanner(mnn.Module):
        def __init__(self, transpose):
            super().__init__()
            self.transpose = transpose
            self.conv = mnn.Conv1d(4 if transpose else LENGTH, 16, 3, padding=1)
            self.out = mnn.Linear(16, 2)

        def forward(self, x):
            if self.transpose:
                x = x.transpose(1, 2)
            return self.out(self.conv(x).relu().mean(axis=2))

    x, y = _dna(192, 0)
    found = {}
    for transpose in (False, True):
        mg.manual_seed(0)
        model = Scanner(transpose)
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

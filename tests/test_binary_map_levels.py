"""BINARY_TARGETS_SCALED_DOWN for per-pixel labels (real-bug batch 280: uint8 one-hot masks
through ToTensor, which divides uint8 by 255, into BCEWithLogitsLoss: every 1 becomes
0.0039 and no pixel is ever predicted). The rule read 2-D label rows only; a binary loss's
N-D target now leaves a strided sample (``loss_capture.map_level``), read for the one thing
said of it: 0 and a single other level. 0/1 masks and soft maps stay silent."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.monitor.loss_capture import map_level

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CODE = "BINARY_TARGETS_SCALED_DOWN"


def images():
    rng = np.random.default_rng(0)
    strokes = rng.random((256, 1, 12, 12)) < 0.3
    noisy = strokes + rng.normal(scale=0.4, size=strokes.shape)
    return torch.tensor(noisy, dtype=torch.float32), strokes


def train(masks, steps=60):
    torch.manual_seed(0)
    x, _ = images()
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (32,))
            loss = loss_fn(model(x[rows]), masks[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def named(mon):
    return [f for f in mon.findings() if f.code == CODE and f.severity == "warning"]


def test_masks_divided_by_255_are_named():
    _, strokes = images()
    mon = train(torch.tensor(strokes, dtype=torch.float32) / 255)
    found = named(mon)
    assert found, mon.report()
    assert found[0].evidence["label_level"] == pytest.approx(1 / 255)


def test_zero_one_masks_are_silent():
    _, strokes = images()
    assert not named(train(torch.tensor(strokes, dtype=torch.float32)))


def test_soft_maps_are_silent():
    _, strokes = images()
    soft = torch.tensor(strokes, dtype=torch.float32)
    soft = nn.functional.avg_pool2d(soft, 3, stride=1, padding=1)   # blurred: many levels
    assert not named(train(soft))


@pytest.mark.parametrize("values, expected", [
    (np.r_[np.zeros(90), np.full(10, 1 / 255)], {"label_rows": 0, "label_level": 1 / 255}),
    (np.r_[np.zeros(90), np.ones(10)], {}),                  # labels as they should be
    (np.zeros(100), {}),                                     # nothing but background
    (np.r_[np.zeros(50), np.linspace(0.1, 0.9, 50)], {}),    # a soft map
    (None, {}),                                              # not sampled
])
def test_map_level(values, expected):
    sample = None if values is None else np.asarray(values, dtype=np.float32)
    found = map_level(sample)
    assert found.keys() == expected.keys()
    if expected:
        assert found["label_level"] == pytest.approx(expected["label_level"], rel=1e-6)


def test_the_sample_is_spread_over_the_whole_target():
    from nndebug.adapters.torch_adapter import TorchAdapter
    from nndebug.monitor.loss_capture import MAP_SAMPLE, spread_sample
    target = torch.zeros(64, 1, 32, 32)          # 65,536 values, the first 4,096 all zero
    target[-1, 0, 0, :] = 1 / 255                # only the last image has labels
    sample = spread_sample(TorchAdapter._xp, target)
    assert len(sample) == MAP_SAMPLE
    assert bool((sample > 0).any())              # reached at a stride, not by the first values

"""Real-bug batch 226 (spatio-temporal traffic forecasting): the model's input batch is a
``view`` that reorders its base's axes - sensor windows stored (batch, time, sensors) viewed
as (batch, sensors, time) where a permute was meant (RESHAPE_USED_AS_TRANSPOSE, read from the
batch's ``_base`` in the first training forwards: a view of data carries no gradient, so the
forward graph never holds it).

The planted report is named; its fixed twin stays silent, and so do healthy inputs that look
alike: a permuted batch (non-contiguous: the fix), a permuted batch made contiguous (a copy,
no base), a flattened or split view, an added axis of size one, and a view of a slice of the
data. Torch only: views and their bases are torch's."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import sensor_windows_viewed_instead_of_permuted as sensor_view  # noqa: E402,E501
from nndebug.monitor.transposing_reshapes import input_axis_view  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
RESHAPE = "RESHAPE_USED_AS_TRANSPOSE"
STEPS = 8


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_planted_report_is_named():
    mon = sensor_view.run(steps=STEPS)
    assert RESHAPE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == RESHAPE)
    assert finding.evidence["input_shape"][1:] == [12, 30]
    assert finding.evidence["output_shape"][1:] == [30, 12]


def test_its_fixed_twin_is_silent():
    mon = sensor_view.run(fixed=True, steps=STEPS)
    assert RESHAPE not in {f.code for f in mon.findings()}
    assert mon.run.observed.transposing_reshapes == []


def _train(make_input, shape=(64, 8, 6), steps=STEPS):
    """A small MLP over the last axis of ``make_input(data batch)``; returns the monitor."""
    torch.manual_seed(0)
    data = torch.randn(256, *shape[1:])
    model = nn.Sequential(nn.Flatten(), nn.Linear(shape[1] * shape[2], 16), nn.ReLU(),
                          nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(data), (shape[0],))
            batch = data[rows] * 1.0
            optimizer.zero_grad()
            loss = (model(make_input(batch)).squeeze(1) - batch[:, 0, 0]).pow(2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_time_by_sensor_batch_viewed_as_sensor_by_time_is_named():
    mon = _train(lambda b: b.view(len(b), 6, 8))
    assert RESHAPE in {f.code for f in mon.findings()}


def test_an_nhwc_image_batch_viewed_as_nchw_is_named():
    torch.manual_seed(0)
    images = torch.rand(128, 8, 8, 3)                     # stored channels last
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(144, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            rows = torch.randint(0, 128, (32,))
            batch = images[rows] - 0.5
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(batch.view(32, 3, 8, 8)),
                                               (batch[:, 0, 0, 0] > 0).long())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert RESHAPE in _problems(mon)


@pytest.mark.parametrize("make_input", [
    lambda b: b.permute(0, 2, 1),                 # the fix: a non-contiguous view
    lambda b: b.permute(0, 2, 1).contiguous(),    # the fix, copied: no base
    lambda b: b.view(len(b), -1),                 # a flatten: axes merged in order
    lambda b: b.view(len(b), 8, 2, 3),            # a split of the last axis
    lambda b: b.unsqueeze(1),                     # an axis of size one added
    lambda b: b[:, :, :6],                        # a view of the whole batch, no reshape
], ids=["permute", "permute-contiguous", "flatten", "split", "unsqueeze", "slice"])
def test_healthy_input_views_are_not_named(make_input):
    mon = _train(make_input)
    assert RESHAPE not in {f.code for f in mon.findings()}
    assert mon.run.observed.transposing_reshapes == []


def test_the_input_view_measurement():
    base = torch.randn(4, 12, 30)
    assert input_axis_view(base.view(4, 30, 12)) == ([4, 12, 30], [4, 30, 12], [0, 2, 1])
    assert input_axis_view(base) is None                      # no view
    assert input_axis_view(base.permute(0, 2, 1)) is None     # not contiguous
    assert input_axis_view(base.view(4, 360)) is None         # a merge
    assert input_axis_view(base[:2].reshape(2, 30, 12)) is None   # a part of its base
    assert input_axis_view(base.view(4, 30, 12).requires_grad_(False)) is not None

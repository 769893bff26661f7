"""LABELS_MISALIGNED's third reading: boxes given by their corners (x1, y1, x2, y2) whose
x corners a random horizontal flip moved without swapping them (real-bug batch 262,
Nota-NetsPresso/netspresso-trainer#196). On the flipped samples column 2 lies below column
0 while the y corners keep their order on every row.

Healthy look-alikes stay silent: the same flip with the corners swapped, (x, y, w, h)
boxes (both pairs in every order by nature), and four outputs in different units with one
pair in either order."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._box import SIZE, regressor, scenes  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LABELS_MISALIGNED"
STEPS = 12


def _flip_unswapped(images, boxes, flip):
    boxes = boxes.clone()
    boxes[flip, 0], boxes[flip, 2] = SIZE - boxes[flip, 0], SIZE - boxes[flip, 2]
    images = images.clone()
    images[flip] = images[flip].flip(-1)
    return images, boxes


def _flip_swapped(images, boxes, flip):
    boxes = boxes.clone()
    x1, x2 = boxes[flip, 0].clone(), boxes[flip, 2].clone()
    boxes[flip, 0], boxes[flip, 2] = SIZE - x2, SIZE - x1
    images = images.clone()
    images[flip] = images[flip].flip(-1)
    return images, boxes


def _as_centre_size(images, boxes, flip):
    images, boxes = _flip_swapped(images, boxes, flip)
    x1, y1, x2, y2 = boxes.unbind(-1)
    return images, torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)


def _train(augment, targets_of=None):
    torch.manual_seed(0)
    images, boxes = scenes(256)
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            rows = torch.randint(0, len(images), (64,))
            x, y = augment(images[rows], boxes[rows], torch.rand(64) < 0.5)
            if targets_of is not None:
                y = targets_of(y)
            loss = nn.functional.mse_loss(model(x), y / SIZE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_corners_flipped_without_swapping_are_named():
    found = [f for f in _train(_flip_unswapped).findings() if f.code == CODE]
    assert found and found[0].evidence["axis"] == "x"
    assert 0.3 < found[0].evidence["share"] < 0.7


@pytest.mark.parametrize("augment", [_flip_swapped, _as_centre_size], ids=["swapped", "xywh"])
def test_boxes_flipped_properly_are_silent(augment):
    assert CODE not in _codes(_train(augment))


def test_four_outputs_in_different_units_are_silent():
    def units(y):    # one pair in either order, ranges 16 and 1600 apart
        return torch.stack([y[:, 0], y[:, 1], y[:, 2] * 100, y[:, 3] + 50], dim=-1)
    assert CODE not in _codes(_train(_flip_unswapped, units))


def test_targets_below_zero_are_not_read_as_corners():
    def state_like(y):     # the same columns centred on 0: a state, not pixel coordinates
        return y - SIZE / 2
    assert CODE not in _codes(_train(_flip_unswapped, state_like))


def test_the_rows_survive_save_and_load(tmp_path):
    mon = _train(_flip_unswapped)
    mon.findings()
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [tuple(map(str, r)) for r in loaded.run.observed.box_corner_orders] == \
        [tuple(map(str, r)) for r in mon.run.observed.box_corner_orders]
    assert CODE in {f.code for f in loaded.findings()}


def test_corner_order_counts():
    from nndebug.monitor.target_column_scales import corner_order
    columns = np.array([[0, 0, 2, 2], [3, 0, 1, 2], [0, 5, 1, 1.]])
    step, rows, x_out, y_out, *ranges = corner_order(7, columns)
    ranges = tuple(ranges)
    assert (step, rows, x_out, y_out) == (7, 3, 1, 1)
    assert ranges == ([0.0, 0.0, 1.0, 1.0], [3.0, 5.0, 2.0, 2.0])

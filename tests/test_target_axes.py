"""HEATMAP_TARGET_AXES_SWAPPED (``rules/target_axes.py``, read from
``monitor/target_offsets.py``): target maps drawn with x and y exchanged (real-bug batch 115,
keypoint-detection#7's meshgrid). Planted: the benchmark case and blobs drawn at (x, y) read
as (row, column); healthy: its twin, blobs drawn where they are, symmetric blobs on the
diagonal, and transposed masks (left to LABELS_MISALIGNED's placements)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import heatmap_targets_built_on_swapped_grid as axes_case  # noqa: E402
from benchmarks.real_bugs._common import train_watched  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "HEATMAP_TARGET_AXES_SWAPPED"
STEPS = 30
SIZE = 16


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_swapped_grid_is_named_and_the_twin_is_silent():
    found = [f for f in axes_case.run(fixed=False, steps=STEPS).findings() if f.code == CODE]
    assert found and found[0].evidence["samples_transposed"] >= 0.5 * found[0].evidence[
        "samples_fitted"]
    assert CODE not in _codes(axes_case.run(fixed=True, steps=STEPS))


def _blobs(swapped, on_diagonal=False, masks=False):
    """Images of one bright square each; targets a Gaussian map at its centre (or its 0/1
    mask), drawn at (row = x, column = y) when ``swapped``."""
    generator = torch.Generator().manual_seed(0)
    rows, columns = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
    for _ in range(STEPS):
        y = torch.randint(3, SIZE - 3, (32,), generator=generator)
        x = y.clone() if on_diagonal else torch.randint(3, SIZE - 3, (32,), generator=generator)
        square = ((rows[None] - y[:, None, None]).abs() <= 1) & \
            ((columns[None] - x[:, None, None]).abs() <= 1)
        images = square.float().unsqueeze(1)
        ty, tx = (x, y) if swapped else (y, x)
        if masks:
            target = images.transpose(-1, -2) if swapped else images
        else:
            target = torch.exp(-((columns[None] - tx[:, None, None]) ** 2 +
                                 (rows[None] - ty[:, None, None]) ** 2).float() / 2.0)
            target = target.unsqueeze(1)
        yield images, target


def _fit(data):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
    return train_watched(model, torch.optim.Adam(model.parameters(), lr=3e-3), F.mse_loss, data)


def test_maps_drawn_on_swapped_axes_are_named():
    assert CODE in _codes(_fit(_blobs(swapped=True)))


def test_maps_drawn_where_the_blobs_are_are_silent():
    mon = _fit(_blobs(swapped=False))
    assert CODE not in _codes(mon)
    assert mon.run.observed.target_offset_rows[0][7] == 0


def test_blobs_on_the_diagonal_cannot_tell_and_stay_silent():
    assert CODE not in _codes(_fit(_blobs(swapped=True, on_diagonal=True)))


def test_transposed_masks_are_left_to_the_mask_placements():
    mon = _fit(_blobs(swapped=True, masks=True))
    codes = _codes(mon)
    assert CODE not in codes
    assert mon.run.observed.target_offset_rows[0][7] == 0

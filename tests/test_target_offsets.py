"""LABELS_MISALIGNED from inputs and targets cut by two different random crops
(``monitor/target_offsets.py``, read in ``rules/target_offsets.py``; real-bug batch 360's
pix2pix#1061: one RandomCrop for the blurred image, another for the sharp one).

Planted: the benchmark case, and segmentation masks cropped apart from their digits; healthy:
the same pipelines with one crop per pair, a denoiser (noise moves no edge), a target moved by
one shift shared by every sample (a fixed offset, not crops drawn apart), and stacked frames
whose target lies elsewhere by design (not read at all)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import deblur_pair_cropped_at_two_random_offsets as crop_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from nndebug.monitor.target_offsets import offset_row  # noqa: E402
from nndebug.rules.target_offsets import OFFSET_MIN_DISTINCT  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LABELS_MISALIGNED"
STEPS = 40
PATCH = 10


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_pair_cropped_at_two_offsets_is_named_and_the_twin_is_silent():
    mon = crop_case.run(fixed=False, steps=STEPS)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["distinct_shifts"] >= OFFSET_MIN_DISTINCT
    twin = crop_case.run(fixed=True, steps=STEPS)
    assert CODE not in _codes(twin)
    step, read, fitted, moved = twin.run.observed.target_offset_rows[0][:4]
    assert fitted >= 16 and moved == 0


def _crops(images, tops, lefts):
    return torch.stack([image[:, t:t + PATCH, s:s + PATCH]
                        for image, t, s in zip(images, tops.tolist(), lefts.tolist())])


def _masks_cropped(apart):
    """Digits padded to 14 x 14 and cut to 10 x 10, their ink masks cut by the same crop or
    by one drawn apart."""
    x, _ = classification(images=True)
    generator = torch.Generator().manual_seed(1)
    for images, _ in batches(F.pad(x, (3, 3, 3, 3)), torch.zeros(len(x)), STEPS):
        tops, lefts = torch.randint(0, 5, (2, len(images)), generator=generator)
        masks = (images > 0.4).float()
        if apart:
            mask_tops, mask_lefts = torch.randint(0, 5, (2, len(images)), generator=generator)
        else:
            mask_tops, mask_lefts = tops, lefts
        yield _crops(images, tops, lefts), _crops(masks, mask_tops, mask_lefts)


def _segment(data, loss_fn, channels_in=1, out=1):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(channels_in, 16, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, out, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, loss_fn, data)


def test_masks_cropped_apart_from_their_images_are_named():
    mon = _segment(_masks_cropped(apart=True), F.binary_cross_entropy_with_logits)
    assert CODE in _codes(mon)


def test_masks_cropped_with_their_images_are_silent():
    mon = _segment(_masks_cropped(apart=False), F.binary_cross_entropy_with_logits)
    assert CODE not in _codes(mon)
    assert mon.run.observed.target_offset_rows[0][3] == 0


def test_a_denoiser_is_silent():
    x, _ = classification(images=True)
    torch.manual_seed(2)
    big = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)
    data = ((xb + 0.05 * torch.randn_like(xb), xb) for xb, _ in
            batches(big, torch.zeros(len(x)), STEPS))
    mon = _segment(data, F.mse_loss)
    assert CODE not in _codes(mon)
    step, read, fitted, moved = mon.run.observed.target_offset_rows[0][:4]
    assert fitted >= 16 and moved <= 0.05 * fitted


def test_one_shift_shared_by_every_sample_is_silent():
    """A fixed offset (a padding convention) is one shift, not crops drawn apart. (Content
    rolled by +2 rows and +1 column is a crop window cut 2 rows and 1 column earlier.)"""
    x, _ = classification(images=True)
    big = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)
    data = ((xb, torch.roll(xb, shifts=(2, 1), dims=(-2, -1))) for xb, _ in
            batches(big, torch.zeros(len(x)), STEPS))
    mon = _segment(data, F.mse_loss)
    assert CODE not in _codes(mon)
    step, read, fitted, moved, distinct, common, common_moved, _ = \
        mon.run.observed.target_offset_rows[0]
    assert moved >= 0.9 * fitted and common == "-2,-1" and common_moved >= 0.9 * moved


def test_stacked_frames_are_not_read():
    """Next-frame prediction: six stacked frames in, a later frame out - it lies elsewhere by
    design, and the many input channels say so."""
    x, _ = classification(images=True)
    big = F.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)
    generator = torch.Generator().manual_seed(3)

    def frames():
        for xb, _ in batches(big, torch.zeros(len(x)), STEPS):
            moves = torch.randint(-2, 3, (len(xb), 2), generator=generator)
            clip = [torch.stack([torch.roll(image, (int(k * m[0]), int(k * m[1])), (-2, -1))
                                 for image, m in zip(xb, moves)]) for k in range(7)]
            yield torch.cat(clip[:6], dim=1), clip[6]
    mon = _segment(frames(), F.mse_loss, channels_in=6)
    assert CODE not in _codes(mon)
    assert not mon.run.observed.target_offset_rows


def test_the_row_itself():
    rng = np.random.default_rng(0)
    images = rng.random((24, 1, 20, 20)).round()          # blocky random images
    inputs = images[:, :, 2:18, 2:18]
    shifts = rng.integers(-2, 3, (24, 2))
    apart = np.stack([image[:, 2 + dy:18 + dy, 2 + dx:18 + dx]
                      for image, (dy, dx) in zip(images, shifts)])
    step, read, fitted, moved, distinct, common, common_moved, swapped = \
        offset_row([(0, inputs, apart)])
    moved_for_real = int((np.abs(shifts).sum(axis=1) > 0).sum())
    assert read == 24 and moved >= moved_for_real - 2 and distinct >= 5
    assert common_moved <= moved // 2 and swapped == 0
    assert offset_row([(0, inputs, inputs.copy())])[3] == 0
    assert offset_row([(0, inputs, inputs[:, :, :8])]) is None      # not the input's size
    assert offset_row([(0, inputs[:, :, :4, :4], inputs[:, :, :4, :4])]) is None   # too small


def test_the_rows_survive_save_and_load(tmp_path):
    mon = crop_case.run(fixed=False, steps=STEPS)
    mon.findings()
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [tuple(r) for r in loaded.run.observed.target_offset_rows] == \
        [tuple(r) for r in mon.run.observed.target_offset_rows]
    assert CODE in {f.code for f in loaded.findings()}

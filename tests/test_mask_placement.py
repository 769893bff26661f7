"""LABELS_MISALIGNED from masks that do not lie on their images (``monitor/mask_placement.py``,
read in ``rules/label_drift.py``): a flip or a rotation applied to the image and not to its
mask (real-bug batch 67's separate generators, the flip-only case beside it).

Planted: the benchmark case (left-right flips of half the images, masks left alone) and a
multi-class variant with rotations and one-hot masks; healthy: the same pipelines moving
both together, and image-sized targets that are no masks (a denoiser's clean image),
which are not read at all.

The same reading tells an input replaced by its own transformed mask (real-bug batch 22,
nitrain#92, ``input, input = co_transform(input, target)``): TARGETS_IN_INPUTS, not a
missed flip; an autoencoder of masks (input and target the same mask, as given) is silent."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import augmentation_flips_image_not_mask as flip_case  # noqa: E402
from benchmarks.real_bugs import input_overwritten_by_transformed_target as copy_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from nndebug.monitor.mask_placement import best_placement, masks_of  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LABELS_MISALIGNED"
STEPS = 40


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_flipped_images_with_unflipped_masks_are_named_and_the_twin_is_silent():
    mon = flip_case.run(fixed=False, steps=STEPS)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["placement_found"] == "flipped left-right"
    assert CODE not in _codes(flip_case.run(fixed=True, steps=STEPS))


def _three_class_batches(turn_masks):
    """Digits with a 3-class mask (background, faint ink, strong ink) as one-hot channels;
    each image turned by a random multiple of 90 degrees, its mask with it when asked."""
    x, _ = classification(images=True)
    generator = torch.Generator().manual_seed(1)
    for images, _ in batches(x, torch.zeros(len(x)), STEPS):
        ids = (images[:, 0] > 0.3).long() + (images[:, 0] > 0.7).long()
        masks = F.one_hot(ids, 3).permute(0, 3, 1, 2).float()
        turns = torch.randint(0, 4, (len(images),), generator=generator)
        images = torch.stack([torch.rot90(i, int(k), dims=(-2, -1)) for i, k in zip(images, turns)])
        if turn_masks:
            masks = torch.stack([torch.rot90(m, int(k), dims=(-2, -1))
                                 for m, k in zip(masks, turns)])
        yield images, masks


def _segment(data, loss_fn, out):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, out, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, loss_fn, data)


def test_images_turned_without_their_one_hot_masks_are_named():
    mon = _segment(_three_class_batches(turn_masks=False), F.binary_cross_entropy_with_logits, 3)
    assert CODE in _codes(mon)


def test_images_turned_with_their_masks_are_silent():
    mon = _segment(_three_class_batches(turn_masks=True), F.binary_cross_entropy_with_logits, 3)
    assert CODE not in _codes(mon)
    step, read, fitted, moved = mon.run.observed.mask_placement_rows[0][:4]
    assert fitted >= 16 and moved <= 0.05 * fitted


def test_a_denoisers_clean_images_are_no_masks():
    x, _ = classification(images=True)
    torch.manual_seed(2)
    data = ((xb + 0.3 * torch.randn_like(xb), xb.flip(-1)) for xb, _ in   # even a flipped
            batches(x, torch.zeros(len(x)), STEPS))                      # target is not read
    mon = _segment(data, F.mse_loss, 1)
    mon.findings()
    assert not mon.run.observed.mask_placement_rows


def test_the_measures_themselves():
    image = np.zeros((1, 8, 8))
    image[0, 1:4, 1:3] = 1.0                         # a block in the top-left corner
    mask = (image[0] > 0.5).astype(np.int64)
    given, other, placement = best_placement(image, mask)
    assert given > 0.5 and other < given
    given, other, placement = best_placement(image, mask[:, ::-1])
    assert other >= given + 0.15 and placement == "flipped left-right"
    soft = np.random.default_rng(0).random((4, 1, 8, 8))
    assert masks_of(soft, 4, 8, 8) is None           # continuous: no mask
    one_hot = np.eye(3)[np.random.default_rng(0).integers(0, 3, (4, 8, 8))].transpose(0, 3, 1, 2)
    assert masks_of(one_hot, 4, 8, 8).shape == (4, 8, 8)


def test_the_rows_survive_save_and_load(tmp_path):
    mon = flip_case.run(fixed=False, steps=STEPS)
    mon.findings()
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [tuple(r) for r in loaded.run.observed.mask_placement_rows] == \
        [tuple(r) for r in mon.run.observed.mask_placement_rows]
    assert CODE in {f.code for f in loaded.findings()}


def test_an_input_replaced_by_its_flipped_mask_is_named_as_targets_in_inputs():
    codes = _codes(copy_case.run(fixed=False, steps=STEPS))
    assert "TARGETS_IN_INPUTS" in codes and CODE not in codes
    assert not _codes(copy_case.run(fixed=True, steps=STEPS)) & {"TARGETS_IN_INPUTS", CODE}


def test_an_autoencoder_of_masks_is_silent():
    x, _ = classification(images=True)
    masks = ((xb > 0.5).float() for xb, _ in batches(x, torch.zeros(len(x)), STEPS))
    mon = _segment(((m, m) for m in masks), F.binary_cross_entropy_with_logits, 1)
    assert not _codes(mon) & {"TARGETS_IN_INPUTS", CODE}

"""Real-bug batch 67 (image segmentation and object detection): IGNORE_INDEX_ON_MAJORITY_CLASS
(``rules/ignored_majority_class.py``, from the recorded loss calls' ignore_index and target
counts) and RARE_POSITIVES_NEVER_PREDICTED widened to maps of one-column classifiers
(``rules/rare_positives.py``: a binary segmentation's (N, 1, H, W) pixels, a proposal head's
anchor scores), which functional BCE calls now reach (``monitor/binary_loss_options.py``
reads their ``reduction`` and ``pos_weight``).

Each is named on its planted case (facebookresearch/Mask2Former#179,
matterport/Mask_RCNN#43) and on variants (NLL over 3-D voxel labels ignoring the
background, a binary segmentation of rare thin strokes with a functional BCE), and silent
on the fixed twins and on look-alikes that are fine: the same ignore value on a minority
"unlabelled" id (ADE20K's 0), a language model ignoring its padding id 0 on mostly padded
batches, 255 ignored on VOC-like masks, a binary segmentation with rare positives that
learns them, a functional BCE given ``pos_weight`` or ``reduction="sum"``.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import ignore_index_set_to_background_class as ignore_case  # noqa: E402
from benchmarks.real_bugs import objectness_swamped_by_negative_anchors as anchor_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.binary_loss_options import binary_function_options  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
IGNORED, RARE = "IGNORE_INDEX_ON_MAJORITY_CLASS", "RARE_POSITIVES_NEVER_PREDICTED"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, data, loss_fn, lr=3e-3, optimizer=None):
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in data:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- IGNORE_INDEX_ON_MAJORITY_CLASS ---------------------------------------------------------

def test_planted_background_ignored_is_named_and_its_twin_is_silent():
    assert IGNORED in _codes(ignore_case.run(steps=60))
    assert not _codes(ignore_case.run(fixed=True, steps=60)) & {IGNORED}


def _segmentation_data(steps, label_of, seed=0):
    x, y = classification(images=True)
    for xb, yb in batches(x, y, steps, seed=seed):
        yield xb, label_of(xb, yb)


def _ink_classes(xb, yb):
    """0 background (about 70% of the pixels), 1..4 the ink by digit mod 4."""
    ink = xb[:, 0] > 0.3
    return torch.where(ink, 1 + (yb % 4)[:, None, None], torch.zeros_like(ink, dtype=torch.long))


def _segmenter(classes=5, conv=nn.Conv2d):
    return nn.Sequential(conv(1, 16, 3, padding=1), nn.ReLU(), conv(16, classes, 1))


def test_variant_nll_over_voxels_ignoring_the_background_is_named():
    """3-D volumes (the digit stacked twice in depth), log-softmax + NLLLoss(ignore_index=0)."""
    def volumes():
        for xb, target in _segmentation_data(40, _ink_classes):
            yield torch.stack([xb, xb], 2), torch.stack([target, target], 1)
    model = nn.Sequential(_segmenter(conv=nn.Conv3d), nn.LogSoftmax(1))
    mon = _train(model, volumes(), nn.NLLLoss(ignore_index=0))
    assert IGNORED in _codes(mon)


def test_minority_unlabelled_id_ignored_is_silent():
    """ADE20K-style: id 0 'unlabelled' on a tenth of the pixels, ignored; the background is
    a real class of its own."""
    def labels(xb, yb):
        target = _ink_classes(xb, yb) + 1          # 1 background, 2..5 ink
        target[:, :1, :] = 0                       # the top row (1/8 of the pixels) unlabelled
        return target
    mon = _train(_segmenter(classes=6), _segmentation_data(40, labels),
                 nn.CrossEntropyLoss(ignore_index=0))
    assert IGNORED not in _codes(mon)


def test_void_255_on_voc_like_masks_is_silent():
    def labels(xb, yb):
        target = _ink_classes(xb, yb)
        target[(xb[:, 0] > 0.1) & (xb[:, 0] <= 0.3)] = 255    # the ink's faint border is void
        return target
    mon = _train(_segmenter(), _segmentation_data(40, labels),
                 nn.CrossEntropyLoss(ignore_index=255))
    assert not _codes(mon) & {IGNORED}


def test_language_model_ignoring_its_padding_id_on_mostly_padded_batches_is_silent():
    """Sequences (B, T): padding id 0 is a vocabulary entry and most positions, ignored."""
    rng = np.random.default_rng(0)

    def padded(steps, vocab=12, length=24):
        for _ in range(steps):
            ids = torch.from_numpy(rng.integers(1, vocab, (32, length + 1)))
            for row, keep in enumerate(rng.integers(4, 10, 32)):
                ids[row, keep:] = 0
            yield ids[:, :-1], ids[:, 1:]

    class Tiny(nn.Module):
        def __init__(self, vocab=12):
            super().__init__()
            self.embed, self.out = nn.Embedding(vocab, 16), nn.Linear(16, vocab)

        def forward(self, ids):
            return self.out(self.embed(ids)).transpose(1, 2)      # (B, vocab, T)

    mon = _train(Tiny(), padded(40), nn.CrossEntropyLoss(ignore_index=0))
    assert IGNORED not in _codes(mon)


# --- RARE_POSITIVES_NEVER_PREDICTED on maps ---------------------------------------------------

def test_planted_objectness_on_every_anchor_is_named_and_its_balanced_twin_is_silent():
    assert RARE in _codes(anchor_case.run())
    assert not _codes(anchor_case.run(fixed=True)) & {RARE}


def _thin_strokes(xb, yb):
    """Only the digit 1's brightest pixels are positive: about 1 pixel in 60."""
    return ((xb > 0.9) & (yb == 1)[:, None, None, None]).float()


def test_variant_rare_pixels_never_predicted_by_a_functional_bce_is_named():
    model = _segmenter(classes=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = _train(model, _segmentation_data(150, _thin_strokes),
                 F.binary_cross_entropy_with_logits, optimizer=optimizer)
    assert RARE in _codes(mon)


def test_rare_pixels_learnt_with_pos_weight_or_summed_are_silent():
    weight = torch.tensor([30.0])
    for loss in (lambda out, t: F.binary_cross_entropy_with_logits(out, t, pos_weight=weight),
                 lambda out, t: F.binary_cross_entropy_with_logits(out, t, reduction="sum")):
        model = _segmenter(classes=1)
        mon = _train(model, _segmentation_data(150, _thin_strokes), loss, lr=1e-2)
        assert RARE not in _codes(mon)


def test_binary_segmentation_that_learns_its_ink_is_silent():
    mon = _train(_segmenter(classes=1), _segmentation_data(150, lambda xb, yb: (xb > 0.5).float()),
                 F.binary_cross_entropy_with_logits)
    assert not _codes(mon)


def test_functional_bce_options_read_from_the_call():
    out, target, weight = torch.zeros(2, 1), torch.ones(2, 1), torch.tensor([3.0])
    read = binary_function_options("binary_cross_entropy_with_logits", (out, target), {})
    assert read == {"reduction": "mean"}
    read = binary_function_options("binary_cross_entropy_with_logits", (out, target),
                                   {"reduction": "sum", "pos_weight": weight})
    assert read == {"reduction": "sum", "pos_weight": (3.0,)}
    positional = (out, target, None, None, None, "none", weight)
    assert binary_function_options("binary_cross_entropy_with_logits", positional, {}) == \
        {"reduction": "none", "pos_weight": (3.0,)}
    assert binary_function_options("binary_cross_entropy", (out, target),
                                   {"size_average": False}) == {}
    assert binary_function_options("mse_loss", (out, target), {}) == {}

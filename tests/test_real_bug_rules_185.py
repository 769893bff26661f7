"""BINARY_TARGETS_SCALED_DOWN (real-bug batch 185): multi-hot labels multiplied by the pixel
scale (1/256) reach the BCE as 0 and 0.0039, inside [0, 1], and the tagger never predicts
a label (micro-F1 0.00 against 0.76). Missed as it came. Named on the case and on labels
divided by 255 with the images; silent on label smoothing (eps and 1 - eps), on an
uncertain label at 0.5 beside 0s and 1s, and on a teacher's probabilities."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import multi_hot_labels_scaled_down_with_pixels as scaled  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "BINARY_TARGETS_SCALED_DOWN"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_batch_185_case_is_named_and_its_twin_is_not():
    assert CODE in _codes(scaled.run())
    assert not _codes(scaled.run(fixed=True))


def _tag(targets_of, steps=60):
    """A 6-label tagger on random features; ``targets_of(labels, logits)`` makes the BCE
    targets of a batch from its 0/1 labels."""
    torch.manual_seed(0)
    x = torch.randn(1024, 16)
    labels = (x[:, :6] + 0.3 * torch.randn(1024, 6) > 0.5).float()
    teacher = nn.Linear(16, 6)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 6))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(64 * (step % 16), 64 * (step % 16 + 1))
            with torch.no_grad():
                soft = torch.sigmoid(teacher(x[rows]))
            loss = nn.functional.binary_cross_entropy_with_logits(
                model(x[rows]), targets_of(labels[rows], soft))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_labels_divided_by_255_with_the_images_are_named():
    assert CODE in _codes(_tag(lambda y, soft: y / 255))


@pytest.mark.parametrize("targets_of", [
    lambda y, soft: y * 0.9 + 0.05,                              # label smoothing
    lambda y, soft: torch.where(soft > 0.45, torch.full_like(y, 0.5), y) * (soft < 0.55)
    + y * (soft >= 0.55),                                        # uncertain labels at 0.5
    lambda y, soft: soft,                                        # a teacher's probabilities
    lambda y, soft: y,                                           # plain 0/1 labels
], ids=["smoothed", "uncertain", "teacher", "labels"])
def test_soft_and_plain_targets_are_silent(targets_of):
    assert CODE not in _codes(_tag(targets_of))

"""Real-bug batch 38 (detection, segmentation and speech losses): a soft Dice whose sums run
over the whole batch (DICE_OVER_WHOLE_BATCH). The fixed twin (one Dice per image) stays
silent, and so do healthy losses that divide sums: a Dice per image and class, a per-pixel
loss divided by a mask's pixel count (a constant), a binary cross-entropy plus a per-image
Dice, and a batch correlation whose denominator is a square root."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import dice_loss_summed_over_the_batch as batch_dice  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.whole_batch_overlaps import find_whole_batch_overlaps  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "DICE_OVER_WHOLE_BATCH"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(loss):
    return find_whole_batch_overlaps(nodes_under([loss.grad_fn]))


def _maps():
    torch.manual_seed(0)
    probabilities = torch.rand(4, 2, 6, 6, requires_grad=True)
    masks = (torch.rand(4, 2, 6, 6) > 0.5).float()
    return probabilities, masks


def _train(loss_of):
    """A tiny segmenter trained STEPS steps on the case's scenes with ``loss_of(logits,
    masks)``; the closed monitor."""
    torch.manual_seed(0)
    model = batch_dice.segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for images, masks in batch_dice.scenes(STEPS):
            optimizer.zero_grad()
            loss = loss_of(model(images), masks)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_planted_report_is_named():
    mon = batch_dice.run(steps=STEPS)
    assert CODE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == CODE)
    assert finding.evidence["shape"] == [batch_dice.BATCH_SIZE, 1, batch_dice.SIZE,
                                         batch_dice.SIZE]


def test_the_fixed_twin_is_silent():
    assert not _problems(batch_dice.run(fixed=True, steps=STEPS))


def test_whole_batch_dice_and_iou_are_found_per_image_ones_are_not():
    p, m = _maps()
    overlap = (p * m).sum()
    assert _found(1 - (2 * overlap + 1) / (p.sum() + m.sum() + 1)) == [[4, 2, 6, 6]]
    assert _found(1 - overlap / (p.sum() + m.sum() - overlap)) == [[4, 2, 6, 6]]   # IoU
    per_image = (p * m).sum((1, 2, 3)) / (p.sum((1, 2, 3)) + m.sum((1, 2, 3)))
    assert _found(1 - per_image.mean()) == []
    per_class = (p * m).sum((2, 3)) / (p.sum((2, 3)) + m.sum((2, 3)))
    assert _found(1 - per_class.mean()) == []


def test_a_loss_divided_by_a_constant_count_is_not_a_dice():
    p, m = _maps()
    assert _found((p * m).sum() / m.sum()) == []            # the mask carries no gradient
    assert _found((p - m).pow(2).sum() / p.numel()) == []


def test_a_batch_correlation_is_not_a_dice():
    p, m = _maps()
    a, b = p - p.mean(), m - m.mean()
    assert _found(1 - (a * b).sum() / ((a * a).sum() * (b * b).sum()).sqrt()) == []


def test_cross_entropy_plus_a_per_image_dice_is_silent():
    def loss_of(logits, masks):
        probabilities = torch.sigmoid(logits)
        dice = batch_dice.dice_loss(probabilities, masks, per_image=True)
        return F.binary_cross_entropy_with_logits(logits, masks) + dice
    assert CODE not in {f.code for f in _train(loss_of).findings()}
    assert not _problems(_train(loss_of))


def test_a_per_class_dice_of_a_softmax_segmenter_is_silent():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for images, masks in batch_dice.scenes(STEPS):
            optimizer.zero_grad()
            probabilities = model(images).softmax(dim=1)
            one_hot = torch.cat([1 - masks, masks], dim=1)
            overlap = (probabilities * one_hot).sum((2, 3))
            areas = probabilities.sum((2, 3)) + one_hot.sum((2, 3))
            loss = (1 - (2 * overlap + 1) / (areas + 1)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _problems(mon)


# --- CTC_TARGET_IS_BLANK -----------------------------------------------------------------
from benchmarks.real_bugs import ctc_targets_use_the_blank_index as ctc_blank  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402
from benchmarks.real_bugs.ctc_loss_on_raw_logits import FrameRecogniser, lines  # noqa: E402
from nndebug.monitor.ctc_blank_targets import blank_labels  # noqa: E402

CTC_CODE = "CTC_TARGET_IS_BLANK"


def _ctc_run(targets_of, loss_of, steps=4):
    """The case's recogniser trained ``steps`` steps; ``targets_of(labels 1..10)`` ->
    (targets, target lengths); ``loss_of(scores, targets, input lengths, target lengths)``."""
    torch.manual_seed(0)
    x, y = classification()
    model = FrameRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for frames, labels in lines(x, y, steps):
            optimizer.zero_grad()
            scores = model(frames).log_softmax(dim=2)
            targets, target_lengths = targets_of(labels)
            lengths = torch.full((len(labels),), frames.shape[0], dtype=torch.long)
            loss = loss_of(scores, targets, lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_ctc_report_is_named_and_its_twin_is_silent():
    mon = ctc_blank.run(steps=4)
    assert CTC_CODE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == CTC_CODE)
    assert finding.evidence["blank"] == 0 and finding.evidence["labels_as_blank"] > 0
    # a few steps only: the full run's silence is tests/test_real_bugs.py's
    assert CTC_CODE not in {f.code for f in ctc_blank.run(fixed=True, steps=4).findings()}


def test_padding_after_the_target_lengths_is_not_counted():
    targets = torch.tensor([[3, 1, 0, 0], [2, 2, 5, 0]])
    assert blank_labels(targets.numpy(), [2, 3], 0) == (5, 0)
    assert blank_labels(targets.numpy(), [3, 3], 0) == (6, 1)
    assert blank_labels(torch.tensor([3, 1, 2, 2, 5]).numpy(), [2, 3], 0) == (5, 0)


def test_zero_padded_targets_of_several_lengths_are_silent():
    def padded(labels):                  # the last label dropped from every other line
        lengths = torch.tensor([3 if i % 2 else 2 for i in range(len(labels))])
        targets = labels.clone()
        targets[torch.arange(3)[None, :] >= lengths[:, None]] = 0     # 0-padding
        return targets, lengths
    mon = _ctc_run(padded, nn.CTCLoss())
    assert CTC_CODE not in {f.code for f in mon.findings()}


def test_functional_ctc_with_the_blank_last_is_silent_and_with_labels_on_it_named():
    def last_blank(labels):              # ids 0..9, blank = 10 (the last class)
        return labels - 1, torch.full((len(labels),), 3)

    def loss_with_blank(blank):
        return lambda s, t, n, m: F.ctc_loss(s, t, n, m, blank=blank)
    assert CTC_CODE not in {f.code for f in _ctc_run(last_blank, loss_with_blank(10))
                            .findings()}
    assert CTC_CODE in _problems(_ctc_run(last_blank, loss_with_blank(0)))

"""Rules added for the tenth batch of reproduced public bug reports (vision data pipelines
and fine-tuning; ``benchmarks/real_bugs/``, rules/vision_data.py): each with the bug
planted and its healthy twins."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
nn = torch.nn


def _images(steps, batch_size=32, seed=0):
    """``steps`` batches of random 8x8 one-channel images with a bright square on each."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x = torch.rand(batch_size, 1, 8, 8, generator=generator) * 0.3
        corner = torch.randint(0, 5, (batch_size, 2), generator=generator)
        for i, (r, c) in enumerate(corner.tolist()):
            x[i, 0, r:r + 3, c:c + 3] += 0.7
        yield x


def _found(mon):
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


# --- IGNORE_INDEX_LEAVES_ONE_CLASS ------------------------------------------------------------

def _segment(mask_of, ignore_index=-100, steps=80):
    """A small fully convolutional net segments the bright squares; ``mask_of(images)``
    gives the per-pixel targets. The findings by code."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=ignore_index)
    with nd.watch(model, optimizer) as mon:
        for x in _images(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), mask_of(x))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return _found(mon)


def _ink(x):
    return (x[:, 0] > 0.5).long()


def test_a_0_255_mask_under_ignore_index_255_is_named():
    found = _segment(lambda x: _ink(x) * 255, ignore_index=255)
    assert "IGNORE_INDEX_LEAVES_ONE_CLASS" in _problems(found)
    evidence = found["IGNORE_INDEX_LEAVES_ONE_CLASS"].evidence
    assert evidence["ignore_index"] == 255 and evidence["counted_class"] == 0
    assert evidence["ignored_targets"] > 0


def _with_void_border(x):
    """Class ids 0/1 with a one-pixel void border (255), the way VOC marks outlines."""
    mask = _ink(x)
    mask[:, 0, :] = 255
    mask[:, :, 0] = 255
    return mask


@pytest.mark.parametrize("mask_of, ignore_index", [(lambda x: _ink(x), 255),
                                                   (_with_void_border, 255),
                                                   (lambda x: _ink(x), -100)])
def test_class_ids_with_an_unused_or_void_ignore_index_stay_silent(mask_of, ignore_index):
    found = _segment(mask_of, ignore_index=ignore_index)
    assert "IGNORE_INDEX_LEAVES_ONE_CLASS" not in found
    assert _problems(found) == []


# --- FROZEN_BATCHNORM_UPDATING ----------------------------------------------------------------

def _backbone():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(2), nn.Flatten())


def _probe(freeze, backbone_eval=False, steps=60):
    """A linear head over a conv + batch-norm backbone, the bright square's row (top half
    or not) as the label. ``freeze``: "all" (the backbone frozen), "norm" (only the batch
    norm's scale and shift frozen, the conv trained) or None. ``backbone_eval``: the
    backbone put in eval mode after model.train(). The findings by code."""
    torch.manual_seed(0)
    backbone = _backbone()
    frozen = {"all": list(backbone.parameters()), "norm": list(backbone[1].parameters()),
              None: []}[freeze]
    for p in frozen:
        p.requires_grad_(False)
    model = nn.Sequential(backbone, nn.Linear(32, 2))
    model.train()
    if backbone_eval:
        backbone.eval()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for x in _images(steps):
            y = (x[:, 0, :4].mean(dim=(1, 2)) > x[:, 0, 4:].mean(dim=(1, 2))).long()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return _found(mon), backbone


def test_a_frozen_backbone_with_batch_norm_in_train_mode_is_named():
    found, _ = _probe("all")
    assert "FROZEN_BATCHNORM_UPDATING" in _problems(found)
    assert found["FROZEN_BATCHNORM_UPDATING"].evidence["layers"] == ["0.1"]


def test_the_frozen_backbone_in_eval_mode_is_not_named():
    found, backbone = _probe("all", backbone_eval=True)
    assert "FROZEN_BATCHNORM_UPDATING" not in found
    assert torch.equal(backbone[1].running_mean, torch.zeros(8))   # nothing moved


@pytest.mark.parametrize("freeze", ["norm", None])
def test_batch_norm_beside_trained_weights_stays_silent(freeze):
    # the conv in front of it trains: its statistics are meant to follow
    found, _ = _probe(freeze)
    assert "FROZEN_BATCHNORM_UPDATING" not in found
    assert _problems(found) == []

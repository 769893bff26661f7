"""Real-bug batch 73 (transfer learning and fine-tuning of CNN backbones): fine-tuning data
preprocessed unlike the pretraining's, seen by the first batch norm that arrived with
pretrained running statistics - pixels in [0, 1] into a caffe-scale backbone and caffe-style
inputs into a torch-style one (INPUT_SCALE_UNLIKE_PRETRAINING), RGB fed to a BGR-pretrained
stem (INPUT_CHANNELS_REORDERED) - and a batch-2 fine-tune whose loss spikes are the tail of
two-sample batches, not overshooting updates (no LOSS_OSCILLATING). The fixed twins stay
silent (caffe-scale inputs into a caffe-pretrained backbone are not UNNORMALIZED_INPUTS), and
so do the look-alikes a careless rule would flag: a model trained from scratch on large
inputs (nothing pretrained to compare with), grey images stacked to three channels (both
channel orders alike), fine-tuning data of another contrast (a domain shift, not a recipe)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import benchmarks.real_bugs.caffe_preprocessing_fed_to_torch_pretrained_backbone as caffe  # noqa
import benchmarks.real_bugs.fine_tuned_in_rgb_on_backbone_pretrained_in_bgr as bgr  # noqa: E402
import benchmarks.real_bugs.pretrained_batchnorm_fine_tuned_on_batches_of_two as two  # noqa
import benchmarks.real_bugs.unit_scaled_pixels_into_caffe_pretrained_backbone as unit  # noqa
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from benchmarks.real_bugs._pretrained_cnn import (  # noqa: E402
    FEATURES, backbone, caffe_preprocess, pretrained_backbone, target_task, torch_preprocess)

OURS = {"INPUT_SCALE_UNLIKE_PRETRAINING", "INPUT_CHANNELS_REORDERED"}


def warned(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.fixture(scope="module")
def runs():
    torch.set_num_threads(1)
    return {(name, fixed): module.run(fixed=fixed)
            for name, module in (("unit", unit), ("caffe", caffe), ("bgr", bgr))
            for fixed in (False, True)}


def test_unit_scaled_pixels_into_a_caffe_backbone_are_named(runs):
    found = warned(runs["unit", False])
    assert "INPUT_SCALE_UNLIKE_PRETRAINING" in found
    top = runs["unit", False].findings()[0]
    assert top.code == "INPUT_SCALE_UNLIKE_PRETRAINING"
    assert top.evidence["log10_variance_ratio"] < -2      # about 255^2 times smaller


def test_caffe_inputs_into_a_torch_backbone_are_named(runs):
    found = warned(runs["caffe", False])
    assert "INPUT_SCALE_UNLIKE_PRETRAINING" in found
    assert "INPUT_CHANNELS_REORDERED" not in found           # the scale says it first


def test_rgb_into_a_bgr_stem_is_named(runs):
    found = warned(runs["bgr", False])
    assert "INPUT_CHANNELS_REORDERED" in found
    assert "UNNORMALIZED_INPUTS" not in found                # 0-255 is this backbone's scale


@pytest.mark.parametrize("name", ["unit", "caffe", "bgr"])
def test_fixed_twins_are_silent(runs, name):
    found = warned(runs[name, True])
    assert not found & OURS
    assert "UNNORMALIZED_INPUTS" not in found                # caffe-scale twins included


def _fine_tune(prep, steps=12, body=None, freeze=False, classes=10):
    """A torch-recipe pretrained backbone, a new head, fine-tuned on ``prep``'s inputs."""
    if body is None:
        body, stats = pretrained_backbone("torch")
    (x, y), _ = target_task()
    torch.manual_seed(0)
    model = nn.Sequential(body, nn.Linear(FEATURES, classes)).train()
    if freeze:
        body.requires_grad_(False)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    return train_watched(model, opt, nn.CrossEntropyLoss(), batches(prep(x), y, steps))


def test_variant_inputs_thirty_times_too_large_in_train_mode():
    _, stats = pretrained_backbone("torch")
    mon = _fine_tune(lambda x: torch_preprocess(x, stats) * 30)
    assert "INPUT_SCALE_UNLIKE_PRETRAINING" in warned(mon)
    row = mon.run.observed.pretrained_norm_inputs[0]
    assert row[3] is True                                    # a batch norm in training mode


def test_variant_rgb_into_a_frozen_bgr_backbone_on_small_batches():
    body, _ = pretrained_backbone("caffe")
    (x, y), _ = target_task()
    torch.manual_seed(0)
    model = nn.Sequential(body.eval().requires_grad_(False), nn.Linear(FEATURES, 10))
    opt = torch.optim.SGD(model[1].parameters(), lr=1e-3)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(),
                        batches(caffe_preprocess(x).flip(1), y, 12, batch_size=16))
    assert "INPUT_CHANNELS_REORDERED" in warned(mon)
    assert mon.run.observed.pretrained_norm_inputs[0][3] is False   # eval mode, a linear probe


def test_lookalike_other_contrast_is_a_domain_shift_not_a_recipe():
    _, stats = pretrained_backbone("torch")
    mon = _fine_tune(lambda x: torch_preprocess(x, stats) * 2 + 0.5)
    assert not warned(mon) & OURS
    shift, log_ratio = mon.run.observed.pretrained_norm_inputs[0][4:6]
    assert 0.1 < abs(log_ratio) < 2                          # moved, but not by a recipe's 10x


def test_lookalike_model_trained_from_scratch_on_raw_pixels():
    torch.manual_seed(0)
    x, y = classification(images=True)
    x = (x * 255).expand(-1, 3, -1, -1).contiguous()
    model = nn.Sequential(backbone(), nn.Linear(FEATURES, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(), batches(x, y, 12))
    assert not warned(mon) & OURS
    assert mon.run.observed.pretrained_norm_inputs == []     # no pretrained statistics


def test_lookalike_grey_images_stacked_to_three_channels():
    torch.manual_seed(1)
    x, y = classification(images=True)
    grey = x.expand(-1, 3, -1, -1).contiguous()
    body = backbone()
    model = nn.Sequential(body, nn.Linear(FEATURES, 10))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for xb, yb in batches(grey[:900], y[:900], 40, seed=1):   # "pretraining" on grey stacks
        opt.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    mon = _fine_tune(lambda images: grey[900:900 + len(images)], body=body.eval())
    assert not warned(mon) & OURS
    row = mon.run.observed.pretrained_norm_inputs[0]
    assert row[6] is not None and abs(row[4] - row[6][0]) < 1e-4  # both orders alike


def test_batch_of_two_fine_tune_twin_has_no_oscillation_alarm():
    mon = two.run(fixed=True)
    assert "LOSS_OSCILLATING" not in warned(mon)
    assert "BATCHNORM_TINY_BATCH" in warned(two.run(fixed=False))


def test_the_hooks_go_when_the_monitor_closes():
    body, stats = pretrained_backbone("torch")
    norms = [m for m in body.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))]
    stem = body[0]
    _fine_tune(lambda x: torch_preprocess(x, stats), steps=4, body=body)
    assert all(not m._forward_pre_hooks for m in norms)
    assert not stem._forward_pre_hooks


def test_saved_and_loaded_rows_read_back(tmp_path, runs):
    import nndebug as nd
    mon = runs["bgr", False]
    path = tmp_path / "run.nddebug"
    mon.save(path)
    rows = nd.load_run(path).run.observed.pretrained_norm_inputs
    assert [list(r) for r in rows] == [list(r) for r in mon.run.observed.pretrained_norm_inputs]
    assert rows[0][6] is not None and isinstance(rows[0][3], bool)


def test_backbone_at_the_heads_rate_is_named_and_its_twin_silent():
    from benchmarks.real_bugs import pretrained_backbone_at_new_head_learning_rate as lr
    found = warned(lr.run(fixed=False))
    assert "LR_TOO_HIGH" in found
    assert "LR_TOO_HIGH" not in warned(lr.run(fixed=True))


def test_lookalike_whole_model_fine_tuned_at_a_pretrained_rate():
    """Adam 1e-3 on every weight of the pretrained model: under 1% a step, no LR_TOO_HIGH."""
    _, stats = pretrained_backbone("torch")
    mon = _fine_tune(lambda x: torch_preprocess(x, stats), steps=20)
    assert "LR_TOO_HIGH" not in warned(mon)


def test_lookalike_from_scratch_at_a_high_rate_is_not_judged_as_pretrained():
    """The same backbone, never trained, at the head's rate: nothing pretrained is rewritten
    (the widened branch needs pretrained statistics; LR_TOO_HIGH's own test judges the rest)."""
    from benchmarks.real_bugs import pretrained_backbone_at_new_head_learning_rate as lr
    _, stats = pretrained_backbone("torch")
    (x, y), _ = target_task(lr.TRAIN_ROWS)
    torch.manual_seed(0)
    model = nn.Sequential(backbone(), nn.Linear(FEATURES, 10))
    opt = torch.optim.Adam(model.parameters(), lr=lr.HEAD_LR)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(),
                        batches(torch_preprocess(x, stats), y, 40, batch_size=32))
    found = mon.findings()
    assert mon.run.observed.pretrained_norm_inputs == []
    assert not any(f.code == "LR_TOO_HIGH" and "pretrained" in f.message for f in found)

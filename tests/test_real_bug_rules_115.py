"""Real-bug batch 115 (keypoints, landmarks, pose): unlabelled joints stored as a placeholder
point (COCO's (0, 0), the corner (-1, -1) once normalised) and trained by a plain
coordinate loss (UNLABELLED_KEYPOINTS_TRAINED, ``rules/placeholder_points.py`` reading
``monitor/placeholder_points.py``). Variants: pixel targets under ``nn.L1Loss``, 3-D points
filled with -1 under ``F.smooth_l1_loss``. Fixed twin silent, and the healthy look-alikes a
careless rule would flag: the placeholder under a target weight (prediction and target both
multiplied, or the unreduced loss masked after the call), unlabelled joints dropped by
indexing, root-relative poses whose root joint is
always (0, 0), integer pixel keypoints on a small grid (chance repeats), Gaussian heatmap
targets. The summary on hand-made rows, and its rows read back from a run file."""
import json
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import unlabelled_keypoints_regressed_to_origin as case  # noqa: E402
from benchmarks.real_bugs._keypoints import (CoordinateNet, figures, heatmaps,  # noqa: E402
                                             index_batches, to_unit, HeatmapNet)
from nndebug import runfile  # noqa: E402
from nndebug.monitor.placeholder_points import take  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.placeholder_points import _trained_placeholder  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "UNLABELLED_KEYPOINTS_TRAINED"
STEPS = 40


def _codes(mon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(targets_of, loss_of, steps=STEPS, seed=0, net=None):
    """A small keypoint regressor on the synthetic figures: ``targets_of(points, index)``
    gives the batch's targets, ``loss_of(output, targets, index)`` its loss."""
    torch.manual_seed(seed)
    images, points = figures(600, seed=seed)
    model = net if net is not None else CoordinateNet(points.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer) as mon:
        for index in index_batches(600, steps, 32, seed=seed):
            optimizer.zero_grad()
            loss = loss_of(model(images[index]), targets_of(points, index), index)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _visible(n=600, joints=5, share=0.35, seed=1):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(n, joints, generator=g) >= share).float()


# --- the planted case and its twin ---------------------------------------------------------

def test_the_reported_unlabelled_keypoints_are_named_and_the_twin_is_silent():
    assert CODE in _codes(case.run(fixed=False, steps=STEPS))
    assert CODE not in _codes(case.run(fixed=True, steps=STEPS))
    assert not _codes(case.run(fixed=True, steps=STEPS))


# --- variants ------------------------------------------------------------------------------

def test_pixel_placeholders_under_an_l1_module_are_named():
    visible = _visible()
    criterion = nn.L1Loss()

    def targets(points, index):             # COCO: unlabelled joints at pixel (0, 0)
        return points[index] * visible[index, :, None]
    mon = _train(targets, lambda out, t, index: criterion(out, t))
    assert CODE in _codes(mon)


def test_three_d_points_filled_with_minus_one_are_named():
    visible = _visible(joints=4, share=0.3)
    net = nn.Sequential(nn.Flatten(), nn.Linear(400, 64), nn.ReLU(), nn.Linear(64, 12),
                        nn.Unflatten(1, (4, 3)))

    def targets(points, index):
        xyz = torch.cat([to_unit(points[index, :4]),
                         torch.sin(points[index, :4, :1])], -1)     # a third coordinate
        return torch.where(visible[index, :, None] > 0, xyz, torch.full_like(xyz, -1.0))
    mon = _train(targets, lambda out, t, index: F.smooth_l1_loss(out, t), net=net)
    assert CODE in _codes(mon)


# --- healthy look-alikes -------------------------------------------------------------------

def test_placeholders_under_a_target_weight_are_silent():
    visible = _visible()

    def loss(out, t, index):
        w = visible[index, :, None]
        return F.mse_loss(out * w, t * w)
    mon = _train(lambda points, index: to_unit(points[index] * visible[index, :, None]), loss)
    assert CODE not in _codes(mon)


@pytest.mark.parametrize("per_point", [
    lambda out, t: F.mse_loss(out, t, reduction="none"),
    lambda out, t: nn.MSELoss(reduction="none")(out, t),
    lambda out, t: F.huber_loss(out, t, "none")])          # reduction by position
def test_placeholders_masked_after_an_unreduced_loss_are_silent(per_point):
    """The per-point losses of a reduction="none" call weighted by the visibility afterwards
    (as trajectory forecasters mask their padded steps): the call itself holds the
    placeholders and unmatched outputs, the mask comes after it."""
    visible = _visible()

    def loss(out, t, index):
        w = visible[index, :, None]
        return (per_point(out, t) * w).sum() / w.sum().clamp(min=1) / 2
    mon = _train(lambda points, index: to_unit(points[index] * visible[index, :, None]), loss)
    assert CODE not in _codes(mon)


def test_unlabelled_joints_dropped_by_indexing_are_silent():
    visible = _visible()

    def loss(out, t, index):
        keep = visible[index] > 0
        return F.mse_loss(out[keep], t[keep])
    mon = _train(lambda points, index: to_unit(points[index] * visible[index, :, None]), loss)
    assert CODE not in _codes(mon)


def test_root_relative_poses_are_silent():
    def targets(points, index):             # every joint relative to the head: joint 0 at 0
        p = points[index]
        return (p - p[:, :1]) / 10
    mon = _train(targets, lambda out, t, index: F.mse_loss(out, t))
    assert CODE not in _codes(mon)


def test_integer_pixel_keypoints_are_silent():
    mon = _train(lambda points, index: points[index].round(),
                 lambda out, t, index: F.l1_loss(out, t))
    assert CODE not in _codes(mon)


def test_gaussian_heatmap_targets_are_silent():
    mon = _train(lambda points, index: heatmaps(points[index]),
                 lambda out, t, index: F.mse_loss(out, t), steps=20, net=HeatmapNet(5))
    assert CODE not in _codes(mon)


def test_black_backgrounds_of_channels_last_colours_are_silent():
    """Colours of every pixel, (batch, pixels, 3), half of them black: not keypoints."""
    torch.manual_seed(0)
    images, _ = figures(256, seed=0)
    colours = images.clamp(0, 1).flatten(1)[..., None].expand(-1, -1, 3).contiguous()
    colours = colours * (colours > 0.3)                # a black background
    model = nn.Sequential(nn.Flatten(), nn.Linear(400, 1200), nn.Unflatten(1, (400, 3)))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for index in index_batches(256, 20, 32, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(images[index]), colours[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not mon.run.observed.placeholder_points
    assert CODE not in _codes(mon)


# --- the summary on hand-made rows, and through a run file ---------------------------------

def _row(target, output, name="mse_loss"):
    observed = Observed()
    size = target.shape[-1]
    take({("placeholder_points", "target"): target.reshape(-1).numpy(),
          ("placeholder_points", "output"): output.reshape(-1).numpy(),
          ("placeholder_points", "size"): [float(size)]}, observed, 3, name)
    return observed.placeholder_points[0]


def test_the_summary_counts_the_placeholder_and_its_matches():
    g = torch.Generator().manual_seed(0)
    target = torch.rand(200, 2, generator=g)
    target[:40] = 0.0
    output = torch.rand(200, 2, generator=g)
    row = _row(target, output)
    assert row[2:7] == (200, 40, 1, True, 0) and row[7] == [0.0, 0.0]
    assert _trained_placeholder(row)
    output[:40] = 0.0                                  # masked: the output matches it
    assert not _trained_placeholder(_row(target, output))
    target[:40] = 0.5                                  # inside the range: not a placeholder
    assert not _trained_placeholder(_row(target, torch.rand(200, 2, generator=g)))
    few = torch.rand(200, 2, generator=g)
    few[:10] = 0.0                                     # 5%: a few clipped joints
    assert not _trained_placeholder(_row(few, torch.rand(200, 2, generator=g)))


def test_placeholder_rows_keep_their_types_through_json():
    observed = Observed()
    observed.placeholder_points.append((4, "mse_loss", 160, 58, 1, True, 0, [-1.0, -1.0]))
    text = json.dumps(runfile._encode_observed(observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.placeholder_points == observed.placeholder_points

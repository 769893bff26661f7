"""Rules added for the eighteenth batch of reproduced public bug reports (data preparation,
labels and augmentation; ``benchmarks/real_bugs/``): SOFT_TARGETS_NOT_DISTRIBUTIONS
(rules/soft_targets.py, monitor/soft_target_rows.py), with the bug planted and its healthy
twins."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.soft_target_rows import row_sums  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CLASSES = 10


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _data(n=640, seed=0):
    """Ten separable classes in 20 features."""
    generator = torch.Generator().manual_seed(seed)
    y = torch.randint(0, CLASSES, (n,), generator=generator)
    centres = torch.randn(CLASSES, 20, generator=generator) * 2
    return centres[y] + torch.randn(n, 20, generator=generator), y


def _train(make_target, steps=60, model=None):
    """A classifier trained with F.cross_entropy on ``make_target(labels, inputs)``."""
    torch.manual_seed(0)
    x, y = _data()
    model = model or nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % len(x)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), make_target(y[index], x[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _one_hot(y):
    return F.one_hot(y, CLASSES).float()


def test_smoothing_that_keeps_the_true_class_at_one_is_named():
    eps = 0.3                   # the randaugment formula: rows sum to 1 + eps (K-1)/K
    found = _problems(_train(lambda y, x: _one_hot(y) * (1 - eps / CLASSES) + eps / CLASSES))
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" in found
    evidence = found["SOFT_TARGETS_NOT_DISTRIBUTIONS"].evidence
    assert evidence["median_row_sum"] == pytest.approx(1 + eps * (CLASSES - 1) / CLASSES,
                                                       abs=1e-4)


def test_teacher_logits_passed_as_probabilities_are_named():
    teacher = nn.Linear(20, CLASSES)
    found = _problems(_train(lambda y, x: teacher(x).detach()))
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" in found


def test_correct_smoothing_stays_silent():
    eps = 0.3
    found = _problems(_train(lambda y, x: _one_hot(y) * (1 - eps) + eps / CLASSES))
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in found


def test_teacher_probabilities_stay_silent():
    teacher = nn.Linear(20, CLASSES)
    found = _problems(_train(lambda y, x: teacher(x).detach().softmax(dim=1)))
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in found


def test_mixup_targets_stay_silent():
    def mixed(y, x):
        lam = 0.3
        return lam * _one_hot(y) + (1 - lam) * _one_hot(y.flip(0))
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in _problems(_train(mixed))


def test_rows_masked_to_zero_are_left_out():
    def masked(y, x):
        target = _one_hot(y)
        target[::4] = 0.0        # every fourth sample given no target on purpose
        return target
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in _problems(_train(masked))


def test_class_ids_are_not_read_as_rows():
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in _problems(_train(lambda y, x: y))


def test_multi_hot_rows_are_left_to_the_multi_label_rule():
    def multi(y, x):
        return ((_one_hot(y) + _one_hot((y + 1) % CLASSES)) > 0).float()
    found = _problems(_train(multi))
    assert "MULTI_LABEL_WITH_CROSS_ENTROPY" in found
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" not in found


def test_row_sums_read_maps_along_the_class_axis():
    maps = np.zeros((2, 3, 4, 4), dtype=np.float32)
    maps[:, 0] = 0.5
    maps[:, 2] = 0.75
    sums = row_sums(maps)
    assert sums.shape == (32,)
    assert np.allclose(sums, 1.25)


def test_soft_segmentation_maps_off_by_a_factor_are_named():
    torch.manual_seed(0)
    model = nn.Conv2d(1, 3, 3, padding=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(12):
            x = torch.rand(8, 1, 6, 6)
            target = torch.stack([x[:, 0], 1 - x[:, 0], torch.ones_like(x[:, 0])], dim=1)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), target)   # rows sum to 2: a third class of 1s
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "SOFT_TARGETS_NOT_DISTRIBUTIONS" in _problems(mon)

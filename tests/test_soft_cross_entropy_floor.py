"""A soft cross-entropy written by hand has its targets' entropy as its floor (real-bug batch
192). The listwise softmax loss of softmax_ranking_loss_fed_rank_numbers_as_labels' healthy
twin, -(target * log_softmax(scores)).sum() with label-proportional targets, starts at 2.98
and cannot fall below 2.82: it learned the ranking (NDCG@10 0.90) by falling 3%, and
LOSS_PLATEAU said it was not improving. The plateau and poor-learning tests now measure the
gain against the start's height above that floor; a run that is stuck on soft targets, or
on one-hot targets written the same way, is still named."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import softmax_ranking_loss_fed_rank_numbers_as_labels as ranking  # noqa: E402,E501
from nndebug.rules.context import Context  # noqa: E402
from nndebug.rules.curve import entropy_floor  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_listwise_twin_has_its_floor_and_is_silent():
    mon = ranking.run(fixed=True)
    rows = mon.run.observed.soft_cross_entropies
    assert rows and all(0 <= entropy <= cross for _, entropy, cross, _ in rows)
    floor = entropy_floor(Context(mon.run))
    start = float(mon.run.loss_array()[1][0])
    assert 0.9 * start < floor < start
    assert not _problems(mon)


def _distillation(lr, soft=True, steps=300):
    """A student fitted to a fixed teacher's softened answers (temperature 4) by a
    hand-written soft cross-entropy, or to one-hot labels written the same way."""
    torch.manual_seed(0)
    x = torch.randn(1024, 16)
    teacher = torch.nn.Linear(16, 10)
    with torch.no_grad():
        targets = F.softmax(teacher(x) / 4.0, dim=1) if soft else \
            F.one_hot(teacher(x).argmax(1), 10).float()
    student = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(),
                                  torch.nn.Linear(32, 10))
    optimizer = torch.optim.SGD(student.parameters(), lr=lr)
    with nd.watch(student, optimizer) as mon:
        for step in range(steps):
            i = torch.randint(0, len(x), (64,))
            loss = -(targets[i] * F.log_softmax(student(x[i]), dim=1)).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_student_stuck_on_soft_targets_is_still_named():
    mon = _distillation(lr=1e-5)
    floor = entropy_floor(Context(mon.run))
    assert floor is not None and floor > 0
    assert _problems(mon) & {"LOSS_PLATEAU", "LR_TOO_LOW"}


def test_one_hot_targets_written_by_hand_have_no_floor_above_zero():
    mon = _distillation(lr=1e-5, soft=False)
    assert entropy_floor(Context(mon.run)) == pytest.approx(0.0, abs=1e-6)
    assert _problems(mon) & {"LOSS_PLATEAU", "LR_TOO_LOW"}


def test_a_student_that_learns_soft_targets_is_silent():
    mon = _distillation(lr=0.5)
    assert not _problems(mon) & {"LOSS_PLATEAU", "LR_TOO_LOW"}

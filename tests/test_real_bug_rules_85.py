"""Real-bug batch 85 (semi-supervised learning, pseudo-labels, teachers): a distillation
teacher handed to the student's optimizer with its graph (TEACHER_UPDATED_BY_OPTIMIZER), a
consistency target that is the model's own answer on another view, not detached
(CONSISTENCY_TARGET_NOT_DETACHED), and a one-logit FixMatch passing its confidence mask as
the pseudo-label (PSEUDO_LABELS_ONE_CLASS). The planted cases are named, and variants of
them (a soft cross-entropy instead of a KL, BCE on probabilities, a mask recomputed rather
than shared); F.kl_div for the consistency is marked a divergence (batch 196: TRADES keeps
that graph on purpose) and left to the learning test; the fixed twins stay silent, and so do
the healthy look-alikes a careless rule would flag: R-Drop's symmetric KL between two
dropout draws, an entropy-minimisation term, a teacher run with a graph that no optimizer
holds, a mean teacher, and a class-balanced BCE written by hand (``bce * y`` and
``bce * (1 - y)``)."""
import copy

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import distillation_teacher_parameters_in_student_optimizer as kd  # noqa: E402
from benchmarks.real_bugs import fixmatch_binary_targets_are_the_mask as onesided  # noqa: E402
from benchmarks.real_bugs import pi_model_consistency_target_not_detached as pi  # noqa: E402
from benchmarks.real_bugs._common import binary, classification, mlp  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODES = ("TEACHER_UPDATED_BY_OPTIMIZER", "CONSISTENCY_TARGET_NOT_DETACHED",
         "PSEUDO_LABELS_ONE_CLASS")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _loop(model, optimizer, step_loss, steps):
    """``steps`` steps of ``step_loss(i)`` under watch; the monitor."""
    with nd.watch(model, optimizer) as mon:
        for i in range(steps):
            optimizer.zero_grad()
            loss = step_loss(i)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- the planted cases and their twins -------------------------------------------------

def test_a_teacher_in_the_students_optimizer_is_named():
    found = _problems(kd.run(steps=40))
    assert "TEACHER_UPDATED_BY_OPTIMIZER" in found
    assert not set(CODES) & _problems(kd.run(fixed=True, steps=40))


def test_a_consistency_target_with_its_graph_is_named():
    mon = pi.run(steps=40)
    assert "CONSISTENCY_TARGET_NOT_DETACHED" in _problems(mon)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(r[1] > 0 and r[2] == 0 and r[4] == 0 for r in rows)
    assert not set(CODES) & _problems(pi.run(fixed=True, steps=40))


def test_the_mask_passed_as_the_pseudo_label_is_named():
    assert "PSEUDO_LABELS_ONE_CLASS" in _problems(onesided.run(steps=40))
    assert not set(CODES) & _problems(onesided.run(fixed=True, steps=40))


# --- variants ----------------------------------------------------------------------------

def _teacher_and_student(trainable_teacher):
    torch.manual_seed(0)
    teacher, student = mlp(hidden=48), mlp(hidden=32)
    for p in teacher.parameters():
        p.requires_grad_(trainable_teacher)
    return teacher, student


def test_a_soft_cross_entropy_from_a_jointly_optimised_teacher_is_named():
    x, y = classification()
    teacher, student = _teacher_and_student(True)
    optimizer = torch.optim.SGD(list(student.parameters()) + list(teacher.parameters()), lr=0.05)

    def step(i):
        xb = x[i * 32 % 1000:][:32]
        return F.cross_entropy(student(xb), F.softmax(teacher(xb) / 2.0, dim=1))
    assert "TEACHER_UPDATED_BY_OPTIMIZER" in _problems(_loop(student, optimizer, step, 20))


def test_a_kl_consistency_between_two_noisy_views_not_detached_is_marked_a_divergence():
    """F.kl_div subtracts the target's own entropy: p log p - p log q pays nothing for a
    confident target, and TRADES keeps that graph on purpose (real-bug batch 196's healthy
    twin). The form is marked like R-Drop's symmetric KL and left to the learning test: a
    run that learns is not told to detach it (this one, 20 steps of the consistency alone,
    was named until batch 196)."""
    x, _ = classification()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(i):
        xb = x[i * 32 % 1000:][:32]
        target = F.softmax(model(xb + 0.1 * torch.randn_like(xb)), dim=1)   # not detached
        return F.kl_div(F.log_softmax(model(xb + 0.3 * torch.randn_like(xb)), dim=1), target,
                        reduction="batchmean")
    mon = _loop(model, optimizer, step, 20)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(row[1] > 0 and row[4] == 1 for row in rows)
    assert "CONSISTENCY_TARGET_NOT_DETACHED" not in _problems(mon)


def _one_logit_run(form, steps=20):
    x, y = binary()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(i):
        xb, yb = x[i * 32 % 1000:][:32], y[i * 32 % 1000:][:32]
        xu = x[1000 + i * 32 % 500:][:32]
        sup = F.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
        with torch.no_grad():
            p = torch.sigmoid(model(xu).squeeze(1))
        strong = model(xu + 0.3 * torch.randn_like(xu)).squeeze(1)
        return sup + form(strong, p)
    return _one_logit_run_watch(model, optimizer, step, steps)


def _one_logit_run_watch(model, optimizer, step, steps):
    return _loop(model, optimizer, step, steps)


def test_bce_on_probabilities_with_a_recomputed_mask_as_target_is_named():
    def form(strong, p):
        mask, target = p.ge(0.6).float(), (p >= 0.6).float()     # two tensors, equal values
        return (F.binary_cross_entropy(torch.sigmoid(strong), target, reduction="none")
                * mask).mean()
    assert "PSEUDO_LABELS_ONE_CLASS" in _problems(_one_logit_run(form))


# --- healthy look-alikes -----------------------------------------------------------------

def test_r_drop_symmetric_kl_that_learns_is_silent():
    x, y = classification()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

    def step(i):
        xb, yb = x[i * 64 % 1500:][:64], y[i * 64 % 1500:][:64]
        a, b = model(xb), model(xb)
        kl = F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1), reduction="batchmean") + \
            F.kl_div(F.log_softmax(b, 1), F.softmax(a, 1), reduction="batchmean")
        return 0.5 * (F.cross_entropy(a, yb) + F.cross_entropy(b, yb)) + 0.5 * kl
    mon = _loop(model, optimizer, step, 150)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(r[4] == 1 for r in rows)          # seen, and seen as mirrored
    assert not set(CODES) & _problems(mon)


def test_entropy_minimisation_and_a_mean_teacher_are_silent():
    x, y = classification()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    teacher = copy.deepcopy(model)
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(i):
        xb, yb = x[i * 32 % 1000:][:32], y[i * 32 % 1000:][:32]
        xu = x[1000 + i * 32 % 500:][:32]
        logits = model(xu)
        entropy = -(F.softmax(logits, 1) * F.log_softmax(logits, 1)).sum(1).mean()
        with torch.no_grad():
            target = F.softmax(teacher(xu), 1)
        consistency = -(target * F.log_softmax(model(xu + 0.3 * torch.randn_like(xu)), 1)).sum(1)
        loss = F.cross_entropy(model(xb), yb) + 0.1 * entropy + consistency.mean()
        return loss
    mon = _loop(model, optimizer, step, 100)
    assert mon.run.observed.soft_target_gradients == []
    assert not set(CODES) & _problems(mon)


def test_a_teacher_with_a_graph_that_no_optimizer_holds_is_silent():
    x, y = classification()
    teacher, student = _teacher_and_student(True)          # trainable, but not optimised
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)

    def step(i):
        xb, yb = x[i * 32 % 1000:][:32], y[i * 32 % 1000:][:32]
        soft = F.kl_div(F.log_softmax(student(xb) / 2, 1), F.softmax(teacher(xb) / 2, 1),
                        reduction="batchmean")
        return 0.5 * soft + 0.5 * F.cross_entropy(student(xb), yb)
    mon = _loop(student, optimizer, step, 20)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(r[1] == 0 and r[2] > 0 and r[3] == 0 for r in rows)
    assert "TEACHER_UPDATED_BY_OPTIMIZER" not in _problems(mon)


def test_a_class_balanced_bce_written_by_hand_is_silent():
    def form(strong, p):
        target = (p >= 0.5).float()
        bce = F.binary_cross_entropy_with_logits(strong, target, reduction="none")
        return (bce * target).sum() / target.sum().clamp(min=1) + \
            (bce * (1 - target)).sum() / (1 - target).sum().clamp(min=1)
    mon = _one_logit_run(form)
    assert mon.run.observed.self_masked_targets == []
    assert "PSEUDO_LABELS_ONE_CLASS" not in _problems(mon)


# --- the rows as saved and read back -----------------------------------------------------

def test_the_rows_are_listed_and_read_back():
    observed = Observed()
    observed.soft_target_gradients.append((0, 4, 0, 0, 1))
    observed.self_masked_targets.append((1, 64))
    saved = observed.to_dict()
    assert ROW_READERS["soft_target_gradients"](saved["soft_target_gradients"][0]) == \
        (0, 4, 0, 0, 1)
    assert ROW_READERS["self_masked_targets"](saved["self_masked_targets"][0]) == (1, 64)

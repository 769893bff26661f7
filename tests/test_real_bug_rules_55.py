"""Real-bug batch 55 (knowledge distillation, teachers): soft targets that agree with the
batch's labels only at chance (SOFT_TARGETS_DISAGREE_WITH_LABELS: teacher outputs stored in
one shuffled order and read in another, a teacher whose weights were never loaded), an EMA
teacher whose batch-norm statistics were never estimated (NORM_STATISTICS_NEVER_ESTIMATED)
and a frozen teacher left in training mode with dropout on (TEACHER_IN_TRAIN_MODE). The
fixed twins stay silent, and so do healthy look-alikes a careless rule would flag: a mean
teacher whose EMA copy runs with dropout on purpose and starts untrained (its targets agree
with the labels at chance on the first steps), a weak teacher (half right), a frozen
batch-normalised teacher in eval mode, and a GAN whose discriminator keeps its dropout on
in the generator's step."""
import copy

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from benchmarks.real_bugs import distillation_teacher_left_in_train_mode as train_mode  # noqa: E402
from benchmarks.real_bugs import distillation_teacher_weights_never_loaded as never_loaded  # noqa: E402
from benchmarks.real_bugs import ema_teacher_batchnorm_statistics_never_updated as ema_bn  # noqa: E402
from benchmarks.real_bugs import teacher_outputs_precomputed_in_shuffled_order as shuffled  # noqa: E402
from benchmarks.real_bugs._common import batches, mlp  # noqa: E402
from benchmarks.real_bugs._distillation import (digits_split, kd_loss, teacher_net,  # noqa: E402
                                                trained_teacher)
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
DISAGREE = "SOFT_TARGETS_DISAGREE_WITH_LABELS"
NEVER_ESTIMATED = "NORM_STATISTICS_NEVER_ESTIMATED"
TRAIN_MODE = "TEACHER_IN_TRAIN_MODE"
BATCH_55 = {DISAGREE, NEVER_ESTIMATED, TRAIN_MODE}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _distilled(teacher, steps=130, log_target=False, no_grad=True):
    """A 32-wide student distilled from ``teacher`` (alpha 0.9, T 4); its monitor."""
    x, y, _, _ = digits_split()
    torch.manual_seed(0)
    student = mlp(hidden=32)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(student, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            if no_grad:
                with torch.no_grad():
                    teacher_logits = teacher(xb)
            else:
                teacher_logits = teacher(xb)
            optimizer.zero_grad()
            logits = student(xb)
            if log_target:
                soft = F.kl_div(F.log_softmax(logits / 4, -1),
                                F.log_softmax(teacher_logits / 4, -1), reduction="batchmean",
                                log_target=True) * 16
                loss = 0.9 * soft + 0.1 * F.cross_entropy(logits, yb)
            else:
                loss = kd_loss(logits, teacher_logits, yb, 4.0, 0.9)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- the planted cases ---------------------------------------------------------------------
def test_teacher_outputs_read_back_in_another_order_are_named():
    found = [f for f in shuffled.run().findings() if f.code == DISAGREE]
    assert found and found[0].severity == "warning"
    assert max(found[0].evidence["agreement"]) <= found[0].evidence["line"] < 0.4


def test_a_teacher_whose_weights_were_never_loaded_is_named():
    found = [f for f in never_loaded.run().findings() if f.code == DISAGREE]
    assert found and found[0].evidence["classes"] == 10


def test_a_random_teacher_given_as_log_probabilities_is_named_too():
    torch.manual_seed(3)
    teacher = teacher_net().eval()
    assert DISAGREE in _problems(_distilled(teacher, log_target=True))


def test_an_ema_teacher_without_its_batchnorm_buffers_is_named():
    found = [f for f in ema_bn.run().findings() if f.code == NEVER_ESTIMATED]
    assert found and found[0].evidence["layers"] == 2
    assert found[0].evidence["types"] == ["BatchNorm1d"]


def test_a_teacher_left_in_train_mode_is_named():
    found = [f for f in train_mode.run(steps=40).findings() if f.code == TRAIN_MODE]
    assert found and found[0].evidence["p"] == [0.5]
    assert found[0].evidence["dropouts"] == 2


def test_a_teacher_in_train_mode_run_with_gradients_enabled_is_named():
    x, y, _, _ = digits_split()
    teacher = trained_teacher(x, y, dropout=0.3, steps=60).train()   # frozen, no no_grad
    assert TRAIN_MODE in _problems(_distilled(teacher, steps=40, no_grad=False))


@pytest.mark.parametrize("case", [shuffled, never_loaded, ema_bn, train_mode])
def test_the_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True))


# --- healthy look-alikes -------------------------------------------------------------------
def test_a_weak_teacher_half_right_is_not_flagged():
    x, y, _, _ = digits_split()
    teacher = trained_teacher(x, y, hidden=16, steps=40)     # a few steps: half right
    with torch.no_grad():
        agreement = (teacher(x).argmax(-1) == y).float().mean().item()
    assert 0.35 < agreement < 0.85
    assert not _problems(_distilled(teacher)) & BATCH_55


def _dropout_mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))


def test_a_mean_teacher_with_dropout_on_purpose_and_an_untrained_start_is_silent():
    """CuriousAI's mean teacher: the EMA copy runs in train mode (its dropout is the noise),
    starts as an untrained copy, and its KL target is read off the same forward as the
    cross-entropy (unlabelled rows carry the ignore index)."""
    x, y, _, _ = digits_split()
    torch.manual_seed(0)
    student = _dropout_mlp()
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(student.parameters(), lr=2e-3)
    with nd.watch(student, optimizer) as mon:
        for xb, yb in batches(x, y, 160):
            labels = yb.clone()
            labels[32:] = -1                              # half the rows unlabelled
            with torch.no_grad():
                target = F.softmax(teacher(xb + 0.2 * torch.randn_like(xb)), -1)
            optimizer.zero_grad()
            logits = student(xb + 0.2 * torch.randn_like(xb))
            loss = F.cross_entropy(logits, labels, ignore_index=-1) + \
                F.kl_div(F.log_softmax(logits, -1), target, reduction="batchmean")
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                for t, s in zip(teacher.parameters(), student.parameters()):
                    t.mul_(0.95).add_(s, alpha=0.05)
            mon.step(loss)
    assert mon.run.observed.soft_target_agreement[0][1] < 0.4     # chance at the start
    assert mon.run.observed.foreign_train_dropouts               # seen, and left alone
    assert not _problems(mon) & BATCH_55


def test_a_frozen_batchnorm_teacher_in_eval_mode_is_silent():
    x, y, _, _ = digits_split()
    torch.manual_seed(1)
    teacher = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(teacher.parameters(), lr=2e-3)
    for xb, yb in batches(x, y, 150, seed=1):
        optimizer.zero_grad()
        F.cross_entropy(teacher(xb), yb).backward()
        optimizer.step()
    teacher.eval().requires_grad_(False)
    mon = _distilled(teacher, steps=60)
    assert mon.run.observed.foreign_norm_statistics          # seen, estimated
    assert not _problems(mon) & BATCH_55


def test_a_gan_discriminator_with_dropout_in_the_generators_step_is_silent():
    torch.manual_seed(0)
    x, _, _, _ = digits_split()
    generator = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())
    critic = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Dropout(0.3),
                           nn.Linear(64, 1))
    g_opt = torch.optim.Adam(generator.parameters(), lr=1e-3)
    d_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    bce = F.binary_cross_entropy_with_logits
    with nd.watch(generator, g_opt) as mon:
        for real, _ in batches(x, x, 60):
            fake = generator(torch.randn(len(real), 8))
            d_opt.zero_grad()
            d_loss = bce(critic(real), torch.ones(len(real), 1)) + \
                bce(critic(fake.detach()), torch.zeros(len(real), 1))
            d_loss.backward()
            d_opt.step()
            g_opt.zero_grad()
            g_loss = bce(critic(fake), torch.ones(len(real), 1))
            g_loss.backward()
            g_opt.step()
            mon.step(g_loss)
    assert mon.run.observed.foreign_train_dropouts             # seen, its weights moved
    assert not _problems(mon) & BATCH_55

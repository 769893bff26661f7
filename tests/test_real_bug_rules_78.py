"""Real-bug batch 78 (learning-rate schedulers in practice): a hand-written warm-up
scheduler writing one rate into every param group (GROUP_RATES_OVERWRITTEN), and
SCHEDULE_LENGTH_MISMATCH widened to a CosineAnnealingLR whose T_max counts batches while it
is stepped once per epoch, and to LambdaLRs, whose planned length is read from their lambda
(monitor/lambda_schedules.py): a warm-up cosine given the epoch count as its horizon and
stepped every batch, a step-sized warm-up stepped once per epoch. The fixed twins stay
silent, and so do the healthy look-alikes a careless rule would flag: torch's LambdaLR over
groups at different rates (their ratio kept), a one-rate scheduler over groups built at one
rate, transformers-style hard restarts (a jump back up, on purpose), a warm-up/decay LambdaLR
stepped per batch and watched over part of its plan, a CosineAnnealingLR in epochs stepped
per epoch and watched over part of its plan."""
import functools
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import cosine_t_max_in_batches_stepped_per_epoch as simclr  # noqa: E402
from benchmarks.real_bugs import plateau_scheduler_mode_max_on_loss as selene  # noqa: E402
from benchmarks.real_bugs import step_warmup_schedule_stepped_per_epoch as per_epoch  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    warmup_cosine_horizon_in_epochs_stepped_per_batch as villa)
from benchmarks.real_bugs import warmup_scheduler_gives_every_group_one_rate as himl  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.lambda_schedules import lambda_plan  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NEW = {"GROUP_RATES_OVERWRITTEN", "SCHEDULE_LENGTH_MISMATCH"}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


def _loop(model, optimizer, scheduler, steps, per_epoch=None, batch_size=64, **watch):
    """The plain loop; the scheduler stepped every step, or every ``per_epoch`` steps."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps, batch_size=batch_size)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if per_epoch is None or (i + 1) % per_epoch == 0:
                scheduler.step()
    return mon


# --- the planted cases and their twins ---------------------------------------------------

@pytest.mark.parametrize("case, code", [
    (himl, "GROUP_RATES_OVERWRITTEN"), (simclr, "SCHEDULE_LENGTH_MISMATCH"),
    (villa, "SCHEDULE_LENGTH_MISMATCH"), (per_epoch, "SCHEDULE_LENGTH_MISMATCH"),
    (selene, "PLATEAU_SCHEDULER_WRONG_METRIC")])
def test_planted_case_is_named_and_its_twin_is_not(case, code):
    assert _found(case.run(), code)
    assert not (_problems(case.run(fixed=True)) & (NEW | {code}))


def test_group_rates_finding_names_the_spread():
    finding = _found(himl.run(), "GROUP_RATES_OVERWRITTEN")[0]
    assert finding.evidence["base_lrs"] == [himl.HEAD_LR, himl.BODY_LR]
    assert "25x" in finding.message


# --- GROUP_RATES_OVERWRITTEN: a variant and look-alikes -------------------------------------

class OneRateExponential(torch.optim.lr_scheduler.LRScheduler):
    """An exponential decay written by hand from the first group's rate only."""

    def __init__(self, optimizer, gamma):
        self.gamma = gamma
        self.rate = optimizer.param_groups[0]["lr"]
        super().__init__(optimizer)

    def get_lr(self):
        return [self.rate * self.gamma ** self.last_epoch for _ in self.optimizer.param_groups]


def _three_groups(lrs):
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    groups = [{"params": model[i].parameters(), "lr": lr} for i, lr in zip((4, 2, 0), lrs)]
    return model, groups


def test_a_decay_written_from_the_first_group_under_adam_is_named():
    model, groups = _three_groups((1e-2, 1e-3, 1e-4))
    optimizer = torch.optim.Adam(groups)
    mon = _loop(model, optimizer, OneRateExponential(optimizer, 0.995), 120)
    assert _found(mon, "GROUP_RATES_OVERWRITTEN")


def test_torch_lambda_lr_over_groups_at_different_rates_is_silent():
    model, groups = _three_groups((1e-2, 1e-3, 1e-4))
    optimizer = torch.optim.Adam(groups)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: 0.995 ** k)
    assert "GROUP_RATES_OVERWRITTEN" not in _problems(_loop(model, optimizer, scheduler, 120))


def test_one_rate_scheduler_over_groups_built_at_one_rate_is_silent():
    model, groups = _three_groups((1e-3, 1e-3, 1e-3))       # groups for weight decay, say
    optimizer = torch.optim.Adam(groups)
    mon = _loop(model, optimizer, OneRateExponential(optimizer, 0.995), 120)
    assert "GROUP_RATES_OVERWRITTEN" not in _problems(mon)


# --- SCHEDULE_LENGTH_MISMATCH widened -----------------------------------------------------

def test_cosine_t_max_of_two_epochs_of_batches_stepped_per_epoch_is_named():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=2 * 28)
    mon = _loop(model, optimizer, scheduler, 10 * 28, per_epoch=28)
    found = _found(mon, "SCHEDULE_LENGTH_MISMATCH")
    assert found and found[0].evidence["planned_steps"] == 56


def test_cosine_in_epochs_stepped_per_epoch_watched_over_part_of_it_is_silent():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)   # epochs
    mon = _loop(model, optimizer, scheduler, 8 * 28, per_epoch=28)
    assert "SCHEDULE_LENGTH_MISMATCH" not in _problems(mon)


def _hf_cosine(step, *, warmup, total, num_cycles=0.5):
    if step < warmup:
        return step / max(1, warmup)
    progress = (step - warmup) / max(1, total - warmup)
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * num_cycles * 2.0 * progress)))


def _hf_hard_restarts(step, *, warmup, total, num_cycles):
    if step < warmup:
        return step / max(1, warmup)
    progress = (step - warmup) / max(1, total - warmup)
    if progress >= 1.0:
        return 0.0
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * ((num_cycles * progress) % 1.0))))


def _linear_warmup(step, *, warmup, total):
    if step < warmup:
        return step / max(1, warmup)
    return max(0.0, (total - step) / max(1, total - warmup))


def test_lambda_plan_reads_the_length_and_the_climb_back():
    optimizer = torch.optim.SGD(mlp().parameters(), lr=0.1)
    cosine = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_hf_cosine, warmup=5, total=40))
    assert lambda_plan(cosine) == (40, True)
    linear = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_linear_warmup, warmup=10, total=50_000))
    length, periodic = lambda_plan(linear)                 # past the dense steps: bisected
    assert abs(length - 50_000) <= 50 and periodic is False   # at 0.1% of the peak
    restarts = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_hf_hard_restarts, warmup=0, total=300, num_cycles=3))
    assert lambda_plan(restarts)[1] is not True            # jumps back up: on purpose
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: 0.99 ** k)
    assert lambda_plan(decay) == (None, None)
    assert lambda_plan(torch.optim.lr_scheduler.StepLR(optimizer, 10)) == (None, None)


def test_a_lambda_that_raises_is_not_read():
    optimizer = torch.optim.SGD(mlp().parameters(), lr=0.1)
    table = [1.0] * 50
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: table[k])
    assert lambda_plan(scheduler) == (None, None)


def test_hf_cosine_given_the_epochs_as_horizon_under_adam_is_named():
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_hf_cosine, warmup=2, total=10))
    assert _found(_loop(model, optimizer, scheduler, 200), "SCHEDULE_LENGTH_MISMATCH")


def test_linear_warmup_in_steps_stepped_per_epoch_is_named():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_linear_warmup, warmup=30, total=280))
    mon = _loop(model, optimizer, scheduler, 280, per_epoch=28)
    assert _found(mon, "SCHEDULE_LENGTH_MISMATCH")


def test_warmup_decay_stepped_per_batch_watched_over_part_of_it_is_silent():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_linear_warmup, warmup=20, total=1000))
    assert not (_problems(_loop(model, optimizer, scheduler, 200)) & NEW)


def test_hard_restarts_stepped_per_batch_are_silent():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_hf_hard_restarts, warmup=10, total=310, num_cycles=3))
    assert not (_problems(_loop(model, optimizer, scheduler, 300)) & NEW)

"""Rules added for the eleventh batch of reproduced public bug reports (checkpoints,
numerics, optimizer settings; ``benchmarks/real_bugs/``): LR_AT_ZERO
(rules/stopped_learning_rate.py) and NAN_FROM_OPTIMIZER_STEP (rules/optimizer_numerics.py),
each with the bug planted and its healthy twins."""
import math

import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 200


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))


def _train(model, optimizer, scheduler=None, steps=STEPS, dtype=torch.float32):
    """Blobs classified by ``model``; the scheduler (if any) stepped after every optimizer
    step. The findings by code."""
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb.to(dtype)).float(), yb)
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


# --- LR_AT_ZERO -------------------------------------------------------------------------------

def _linear_decay(total):
    """A LambdaLR factor falling linearly from 1 to 0 over ``total`` scheduler steps."""
    return lambda step: max(0.0, 1.0 - step / total)


def _scheduled(factor=None, make=None, lr=0.05):
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = make(optimizer) if make is not None else \
        torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    return _train(model, optimizer, scheduler)


def test_a_schedule_built_for_a_third_of_the_run_is_named():
    found = _scheduled(_linear_decay(STEPS // 3))
    assert "LR_AT_ZERO" in _problems(found)
    finding = found["LR_AT_ZERO"]
    # the bound from the records is a lower bound: the true stretch is two thirds of the run
    assert 0.1 * STEPS <= finding.evidence["steps_at_zero_at_end"] <= 2 * STEPS / 3 + 1
    assert finding.evidence["steps_at_zero_at_start"] == 0


def test_a_warmup_that_starts_late_is_named():
    # the rate is zero for the first half (a warmup counted in epochs, stepped per batch...)
    found = _scheduled(lambda step: 0.0 if step < STEPS // 2 else 1.0)
    assert "LR_AT_ZERO" in _problems(found)
    assert found["LR_AT_ZERO"].evidence["steps_at_zero_at_start"] >= 0.1 * STEPS


def test_a_scheduler_stepped_twice_per_step_says_so():
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _linear_decay(STEPS))
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(STEPS):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            scheduler.step()
            mon.step(loss)
    finding = {f.code: f for f in mon.findings()}["LR_AT_ZERO"]
    assert finding.evidence["scheduler_calls"] == 2 * STEPS
    assert "2 x ahead" in finding.message


@pytest.mark.parametrize("schedule", ["linear to zero", "cosine to zero", "warmup from zero",
                                      "step decay", "constant"])
def test_healthy_schedules_stay_silent(schedule):
    makers = {
        "linear to zero": lambda opt: torch.optim.lr_scheduler.LambdaLR(
            opt, _linear_decay(STEPS)),
        "cosine to zero": lambda opt: torch.optim.lr_scheduler.CosineAnnealingLR(
            opt, T_max=STEPS, eta_min=0.0),
        "warmup from zero": lambda opt: torch.optim.lr_scheduler.LambdaLR(
            opt, lambda step: min(1.0, step / 20)),
        "step decay": lambda opt: torch.optim.lr_scheduler.StepLR(opt, 50, gamma=0.1),
        "constant": lambda opt: torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0),
    }
    found = _scheduled(make=makers[schedule])
    assert "LR_AT_ZERO" not in found
    assert not _problems(found)


# --- NAN_FROM_OPTIMIZER_STEP ------------------------------------------------------------------

def _half_adam(eps):
    torch.manual_seed(0)
    model = _mlp().half()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=eps)
    return _train(model, optimizer, steps=60, dtype=torch.float16)


def test_adam_eps_rounding_to_zero_in_float16_is_named():
    found = _half_adam(1e-8)
    assert "NAN_FROM_OPTIMIZER_STEP" in _problems(found)
    finding = found["NAN_FROM_OPTIMIZER_STEP"]
    assert finding.severity == "error"
    assert finding.step == 0
    assert finding.evidence["learning_rate_finite"]
    # it comes first: the NaN loss and gradients of the next steps are its consequences
    assert finding.step < found["NAN_LOSS"].step


def test_a_nan_learning_rate_is_named_as_such():
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=float("nan"))
    found = _train(model, optimizer, steps=30)
    finding = found["NAN_FROM_OPTIMIZER_STEP"]
    assert not finding.evidence["learning_rate_finite"]
    assert math.isnan(finding.evidence["learning_rates"][0])


def test_float16_adam_with_a_representable_eps_stays_silent():
    found = _half_adam(1e-4)
    assert "NAN_FROM_OPTIMIZER_STEP" not in found
    assert not _problems(found)


def test_a_nan_that_comes_from_the_loss_is_not_blamed_on_the_optimizer():
    # log of a probability that is exactly 0: the loss itself is infinite first
    torch.manual_seed(0)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(blobs(40)):
            optimizer.zero_grad()
            probabilities = torch.softmax(model(xb), dim=1)
            if step >= 10:
                probabilities = probabilities * 0.0
            loss = torch.nn.functional.nll_loss(torch.log(probabilities), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = {f.code: f for f in mon.findings()}
    assert "NAN_FROM_OPTIMIZER_STEP" not in found
    assert "NAN_LOSS" in found

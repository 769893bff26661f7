"""Real-bug batch 254: PLATEAU_SCHEDULER_WRONG_METRIC when the plateau scheduler's rate sits
at its eps floor. ReduceLROnPlateau skips a cut that would move the rate by ``eps`` (1e-8)
or less, but its counters count that cut all the same: the rate
then shows fewer cuts than the counters, and the rule, which matched the two exactly, went
silent on a scheduler stepped with the NEGATED validation loss in mode "min" (microsoft/
VideoX#135, benchmarks/real_bugs/plateau_scheduler_stepped_on_negated_val_loss.py: nine
cuts counted, seven made before the rate fell under eps). The healthy twins (the
validation loss itself, with the same schedulers, with min_lr floors, and with a scheduler
that cuts at once) stay silent. torch only: minigrad has no
ReduceLROnPlateau (the rule reads the scheduler's state, not the framework).
"""
import warnings

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.observed import SchedulerState  # noqa: E402
from nndebug.rules.schedulers import at_floor, improvements_missing  # noqa: E402

CODE = "PLATEAU_SCHEDULER_WRONG_METRIC"
STEPS, EPOCH, HELD_OUT = 300, 10, 300


def validation_loss(model, x, y):
    with torch.no_grad():
        return torch.nn.functional.cross_entropy(model(x), y).item()


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def train(metric, lr=0.05, **plateau):
    """The digits MLP under SGD with a ReduceLROnPlateau stepped every EPOCH batches with
    ``metric(model, x_val, y_val)``; the monitor."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **plateau)
    loss_fn = torch.nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step, (xb, yb) in enumerate(batches(x_train, y_train, STEPS), start=1):
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                if step % EPOCH == 0:
                    scheduler.step(metric(model, x_val, y_val))
    return mon, optimizer.param_groups[0]["lr"]


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_negated_validation_loss_cut_down_to_the_eps_floor_is_named():
    mon, lr = train(lambda m, x, y: -validation_loss(m, x, y), factor=0.1, patience=2)
    assert lr < 1e-7                       # the rate went down to where eps stops the cuts
    assert CODE in codes(mon)


def test_the_validation_loss_with_the_same_scheduler_stays_silent():
    mon, _ = train(validation_loss, factor=0.1, patience=2)
    assert CODE not in codes(mon)


def test_the_validation_loss_under_a_scheduler_that_cuts_at_once_stays_silent():
    """patience=0: the rate goes down to the eps floor while the loss still improves now
    and then; with one call per cut any count is whole cuts, so the floor is not trusted."""
    mon, lr = train(validation_loss, factor=0.1, patience=0)
    assert CODE not in codes(mon)


def test_the_validation_loss_held_up_by_the_same_min_lr_stays_silent():
    mon, _ = train(validation_loss, lr=0.1, factor=0.3, patience=1, min_lr=1e-3)
    assert CODE not in codes(mon)


def state(**fields):
    base = dict(type="ReduceLROnPlateau", calls=30, lrs=(5e-9,), mode="min", patience=2.0,
                cooldown=0.0, cooldown_counter=0.0, factor=0.1, best=-2.0,
                num_bad_epochs=2.0, eps=1e-8, min_lrs=(0.0,))
    base.update(fields)
    return SchedulerState(**base)


def test_the_floor_lets_the_counters_count_more_cuts_than_the_rate_shows():
    floored = state()                       # nine cuts counted, seven made (0.05 -> 5e-9)
    assert at_floor(floored, 5e-9)
    assert improvements_missing(floored, 7, floored=True)
    assert not improvements_missing(floored, 7)          # the exact match the rule had
    assert not improvements_missing(floored, 10, floored=True)   # never fewer than made
    assert not improvements_missing(state(num_bad_epochs=1.0), 7, floored=True)  # improved
    assert not improvements_missing(state(patience=0.0, calls=12, num_bad_epochs=0.0), 7,
                                    floored=True)   # one call per cut: any count is whole


def test_a_rate_above_its_floor_is_not_at_it():
    assert not at_floor(state(), 5e-3)
    assert not at_floor(state(min_lrs=(1e-3,)), 1e-3)    # min_lr floors are left out
    assert at_floor(state(eps=1e-6), 1e-6)

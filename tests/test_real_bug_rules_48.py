"""Real-bug batch 48 (optimisers, learning-rate schedules, checkpoint restarts): a restart
that builds its optimizer with a new rate and then loads the checkpoint's state, which
brings the old rate back (LR_OVERRIDDEN_BY_CHECKPOINT), and a schedule stepped a different
number of times than planned - a OneCycleLR or warm-up sized in batches stepped per epoch,
a CosineAnnealingLR stepped far past T_max that ends the run at its peak
(SCHEDULE_LENGTH_MISMATCH). The fixed twins stay silent, and so do healthy variants: a
restart at the checkpoint's own rate, a restart with its scheduler loaded (the groups sit at
the decayed rate), a fresh optimizer whose every group has its own rate, a hand-written
schedule after a restart, schedules sized in epochs and stepped per epoch, a run stopped
early, warm restarts, and a cosine a little past T_max that ends low."""
import io

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import cosine_period_shorter_than_training as cosine_short  # noqa: E402,E501
from benchmarks.real_bugs import one_cycle_stepped_per_epoch as one_cycle  # noqa: E402
from benchmarks.real_bugs import resumed_optimizer_keeps_checkpoint_lr as resumed_lr  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
OVERRIDDEN = "LR_OVERRIDDEN_BY_CHECKPOINT"
MISMATCH = "SCHEDULE_LENGTH_MISMATCH"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, optimizer, steps, scheduler=None, every=1, set_lr=None, seed=0):
    """The plain loop under watch on the digits; the scheduler stepped once per ``every``
    optimizer steps; ``set_lr(step)`` a hand-written rate put in every group."""
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps, seed=seed)):
            if set_lr is not None:
                for group in optimizer.param_groups:
                    group["lr"] = set_lr(i)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if scheduler is not None and (i + 1) % every == 0:
                scheduler.step()
            mon.step(loss)
    return mon


def _checkpoint(build, steps=60, scheduler=None):
    """A model and optimizer trained ``steps`` steps unwatched, saved as torch.save writes a
    file; ``scheduler(optimizer)`` stepped per step and saved too when given."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = build(model)
    made = scheduler(optimizer) if scheduler else None
    for xb, yb in batches(x, y, steps, seed=3):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        if made is not None:
            made.step()
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": made.state_dict() if made else None}, buffer)
    return torch.load(io.BytesIO(buffer.getvalue()))


# --- a restart that keeps the checkpoint's rate -----------------------------------------
def test_the_restart_that_loads_the_old_rate_is_named_and_its_twin_is_silent():
    found = resumed_lr.run().findings()
    named = [f for f in found if f.code == OVERRIDDEN]
    assert named and named[0].severity == "warning"
    assert named[0].evidence["built_with_lr"] == pytest.approx(resumed_lr.NEW_LR)
    assert named[0].evidence["trained_lrs"] == [pytest.approx(resumed_lr.FIRST_LR)]
    assert _problems(resumed_lr.run(fixed=True)) == set()


def test_a_restart_at_the_checkpoints_own_rate_is_silent():
    checkpoint = _checkpoint(lambda m: torch.optim.Adam(m.parameters(), lr=1e-3))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    assert OVERRIDDEN not in {f.code for f in _train(model, optimizer, 60).findings()}


def test_a_restart_with_its_scheduler_loaded_is_silent():
    """The groups sit at the decayed rate, 100x below the constructor's: the scheduler put
    it there and drives it on."""
    def build(m):
        return torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

    def decay(optimizer):
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.1)
    checkpoint = _checkpoint(build, steps=60, scheduler=decay)
    model = mlp()
    optimizer = build(model)
    scheduler = decay(optimizer)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)
    mon = _train(model, optimizer, 60, scheduler=scheduler)
    assert OVERRIDDEN not in {f.code for f in mon.findings()}


def test_a_fresh_optimizer_whose_groups_all_have_their_own_rates_is_silent():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.Adam([{"params": model[0].parameters(), "lr": 1e-4},
                                  {"params": model[2].parameters(), "lr": 1e-2}])
    assert OVERRIDDEN not in {f.code for f in _train(model, optimizer, 60).findings()}


def test_a_hand_written_schedule_after_a_restart_is_silent():
    checkpoint = _checkpoint(lambda m: torch.optim.Adam(m.parameters(), lr=1e-3))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    mon = _train(model, optimizer, 60, set_lr=lambda step: 1e-4 * (0.5 ** (step // 20)))
    assert OVERRIDDEN not in {f.code for f in mon.findings()}


# --- a schedule stepped off its plan ----------------------------------------------------
def test_a_one_cycle_stepped_per_epoch_is_named_and_its_twin_is_silent():
    named = [f for f in one_cycle.run().findings() if f.code == MISMATCH]
    assert named and named[0].severity == "warning"
    assert named[0].evidence["planned_steps"] == one_cycle.STEPS
    assert named[0].evidence["steps_per_call"] == pytest.approx(one_cycle.EPOCH)
    assert _problems(one_cycle.run(fixed=True)) == set()


def test_a_warm_up_in_batches_stepped_per_epoch_is_named():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    warm_up = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=200)
    mon = _train(model, optimizer, 200, scheduler=warm_up, every=20)
    assert MISMATCH in _problems(mon)


def test_a_schedule_sized_in_epochs_and_stepped_per_epoch_is_silent():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    mon = _train(model, optimizer, 200, scheduler=cosine, every=20)
    assert MISMATCH not in {f.code for f in mon.findings()}


def test_a_run_stopped_before_its_one_cycle_ends_is_silent():
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    cycle = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=600)
    mon = _train(model, optimizer, 60, scheduler=cycle)
    assert MISMATCH not in {f.code for f in mon.findings()}


def test_a_cosine_shorter_than_the_run_is_named_and_its_twin_is_silent():
    named = [f for f in cosine_short.run().findings() if f.code == MISMATCH]
    assert named and named[0].severity == "warning"
    assert named[0].evidence["t_max"] == cosine_short.STEPS // 10
    assert _problems(cosine_short.run(fixed=True)) == set()


def test_warm_restarts_and_a_cosine_a_little_past_t_max_are_silent():
    for build in (lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=30),
                  lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=100)):
        torch.manual_seed(0)
        model = mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        mon = _train(model, optimizer, 120, scheduler=build(optimizer))   # 1.2 x T_max: low
        assert MISMATCH not in {f.code for f in mon.findings()}


def test_the_new_settings_survive_saving(tmp_path):
    """A loaded run reads the scheduler's length and the constructor's rate as kept, and
    gets both findings again."""
    from nndebug import rules
    for case, code in ((one_cycle, MISMATCH), (resumed_lr, OVERRIDDEN)):
        mon = case.run()
        path = tmp_path / f"{code}.nndebug"
        mon.save(path)
        loaded = nd.load_run(path).run
        assert loaded.observed.schedulers == mon.run.observed.schedulers
        assert loaded.observed.optimizer_settings == mon.run.observed.optimizer_settings
        assert code in {f.code for f in rules.diagnose(loaded.judged_view())}
    assert loaded.observed.optimizer_settings[0].held_state

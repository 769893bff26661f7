"""The schedulers driving the watched optimizer (``nndebug/monitor/schedulers.py``) and the
rule that reads them (``nndebug/rules/schedulers.py``): a ReduceLROnPlateau in mode "min"
stepped with an accuracy, or in mode "max" with a loss, is found; a plateau scheduler
stepped with the loss, one in mode "max" for an accuracy, step decay, cosine, one-cycle and
no scheduler stay silent.

``watch`` reads the schedulers when it closes; here the test reads them itself, at the same
place (inside the training function, before the ``with`` block ends), as ``Around`` does.
"""
import dataclasses
import warnings

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug import runfile  # noqa: E402
from nndebug.monitor.schedulers import observe_schedulers, remember_schedulers  # noqa: E402
from nndebug.observed import Observed, SchedulerState  # noqa: E402
from nndebug.rules import diagnose  # noqa: E402
from nndebug.rules.schedulers import cuts_made, improvements_missing  # noqa: E402

STEPS, EPOCH, HELD_OUT = 240, 15, 300
CODE = "PLATEAU_SCHEDULER_WRONG_METRIC"


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return correct


def validation_loss(model, x, y):
    with torch.no_grad():
        return torch.nn.functional.cross_entropy(model(x), y).item()


def train(schedule):
    """The digits MLP under watch with one kind of scheduler; the monitor, with the
    schedulers read at the end of the loop (as Around does on close)."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    lr_scheduler = torch.optim.lr_scheduler
    per_epoch = {
        "plateau_accuracy_min": lambda: lr_scheduler.ReduceLROnPlateau(
            optimizer, mode="min", factor=0.1, patience=1),
        "plateau_accuracy_max": lambda: lr_scheduler.ReduceLROnPlateau(
            optimizer, mode="max", factor=0.1, patience=1),
        "plateau_loss": lambda: lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=1),
        "plateau_loss_max": lambda: lr_scheduler.ReduceLROnPlateau(
            optimizer, mode="max", factor=0.1, patience=1),
        "step": lambda: lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.3),
        "none": lambda: None}
    per_batch = {
        "cosine": lambda: lr_scheduler.CosineAnnealingLR(optimizer, T_max=STEPS),
        "one_cycle": lambda: lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=STEPS)}
    scheduler = {**per_epoch, **per_batch}[schedule]()
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
                if schedule in per_batch:
                    scheduler.step()
                elif step % EPOCH == 0 and schedule.startswith("plateau_accuracy"):
                    scheduler.step(accuracy(model, x_val, y_val))
                elif step % EPOCH == 0 and schedule.startswith("plateau_loss"):
                    scheduler.step(validation_loss(model, x_val, y_val))
                elif step % EPOCH == 0 and scheduler is not None:
                    scheduler.step()
            remember_schedulers(mon.run.observed, optimizer)
    return mon


def problems(mon):
    return [f for f in mon.findings() if f.severity in ("warning", "error")]


# --------------------------------------------------------------------------------------------
# the observer
# --------------------------------------------------------------------------------------------
def plateau(optimizer, **options):
    return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)


def fresh_optimizer(lr=1.0):
    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=lr)


def test_a_plateau_scheduler_in_the_callers_frame_is_read_as_plain_data():
    optimizer = fresh_optimizer()
    scheduler = plateau(optimizer, mode="min", factor=0.5, patience=0)
    for metric in (1.0, 2.0, 3.0):
        scheduler.step(metric)
    [state] = observe_schedulers(optimizer)
    assert (state.type, state.mode, state.calls, state.best) == ("ReduceLROnPlateau", "min", 3, 1.0)
    assert (state.patience, state.factor, state.num_bad_epochs) == (0, 0.5, 0)
    assert state.lrs == (0.25,)                 # two cuts: 1.0 * 0.5 * 0.5


def test_reading_changes_nothing_in_the_scheduler():
    optimizer = fresh_optimizer()
    scheduler = plateau(optimizer, patience=2)
    scheduler.step(1.0)
    before = {k: v for k, v in vars(scheduler).items() if k != "optimizer"}
    observe_schedulers(optimizer)
    assert {k: v for k, v in vars(scheduler).items() if k != "optimizer"} == before


def test_a_scheduler_held_by_a_trainer_object_is_found():
    class Trainer:
        def __init__(self, optimizer):
            self.lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)

    optimizer = fresh_optimizer()
    trainer = Trainer(optimizer)
    optimizer.step()
    trainer.lr_scheduler.step()
    [state] = observe_schedulers(optimizer)
    assert (state.type, state.calls, state.base_lrs, state.mode) == ("StepLR", 1, (1.0,), None)


def hidden_in_a_list(optimizer):
    """A scheduler no frame holds as a local or as an object's attribute."""
    return [plateau(optimizer, patience=3)]


def test_a_scheduler_no_frame_holds_is_found_by_one_search_of_its_referrers():
    optimizer = fresh_optimizer()
    held = hidden_in_a_list(optimizer)
    vars(held[0])                # its __dict__ made real: found through that dict
    assert [s.type for s in observe_schedulers(optimizer)] == ["ReduceLROnPlateau"]
    assert [s.type for s in observe_schedulers(optimizer)] == ["ReduceLROnPlateau"]   # remembered


def test_no_scheduler_and_no_optimizer_give_nothing():
    assert observe_schedulers(fresh_optimizer()) == []
    assert observe_schedulers(None) == []


def test_the_states_seen_before_stay_when_the_scheduler_is_gone():
    observed = Observed()
    optimizer = fresh_optimizer()
    held = hidden_in_a_list(optimizer)
    remember_schedulers(observed, optimizer)
    del held
    remember_schedulers(observed, optimizer)
    assert [s.type for s in observed.schedulers] == ["ReduceLROnPlateau"]



def test_states_seen_in_a_frame_spare_the_search_of_the_heap(monkeypatch):
    """close() sees the scheduler as a local of the loop; findings() read after the loop
    returned sees no frame holding it, and keeps those states instead of walking every
    object the garbage collector tracks."""
    import gc
    observed = Observed()
    optimizer = fresh_optimizer()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)   # a local here
    remember_schedulers(observed, optimizer)
    assert [s.type for s in observed.schedulers] == ["StepLR"]
    searches = []
    real = gc.get_referrers
    monkeypatch.setattr(gc, "get_referrers", lambda *a: searches.append(a) or real(*a))
    kept = [scheduler]
    del scheduler                     # no frame holds it now (a list does)
    remember_schedulers(observed, optimizer)
    assert searches == [] and [s.type for s in observed.schedulers] == ["StepLR"]
    assert kept

def test_minigrad_schedulers_are_read_too():
    from minigrad import optim
    from minigrad.tensor import Tensor
    optimizer = optim.SGD([Tensor([0.0, 0.0], requires_grad=True)], lr=0.5)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    scheduler.step()
    [state] = observe_schedulers(optimizer)
    assert (state.type, state.calls, state.lrs, state.base_lrs) == ("StepLR", 1, (0.25,), (0.5,))


def test_the_states_are_saved_and_loaded_with_the_run():
    observed = Observed(schedulers=[SchedulerState(
        type="ReduceLROnPlateau", calls=4, lrs=(0.01,), mode="min", patience=1.0,
        best=float("inf"), min_lrs=(0.0,))])
    loaded = runfile.decode_observed(runfile._encode_observed(observed))
    assert loaded.schedulers == observed.schedulers


# --------------------------------------------------------------------------------------------
# the counters: never improved after the first value
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("patience", [0, 1, 3])
@pytest.mark.parametrize("cooldown", [0, 2])
def test_the_counters_tell_a_metric_that_never_improved(patience, cooldown):
    for metrics, never_improved in (([1.0] + [2.0] * 11, True),
                                    ([1.0, 0.5] + [2.0] * 10, False)):
        optimizer = fresh_optimizer()
        scheduler = plateau(optimizer, patience=patience, cooldown=cooldown, factor=0.5)
        for metric in metrics:
            scheduler.step(metric)
        [state] = observe_schedulers(optimizer)
        cuts = cuts_made(1.0, state.lrs[0], state.factor)
        assert cuts >= 1
        assert improvements_missing(state, cuts) is never_improved


def test_a_rate_that_is_not_a_whole_number_of_cuts_is_not_counted():
    assert cuts_made(0.1, 0.1 * 0.1 ** 3, 0.1) == 3
    assert cuts_made(0.1, 0.05, 0.1) is None      # another hand moved it
    assert cuts_made(0.1, 0.2, 0.1) is None


# --------------------------------------------------------------------------------------------
# the rule, end to end: planted and healthy twins
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs():
    return {}


def trained(runs, schedule):
    if schedule not in runs:
        runs[schedule] = train(schedule)
    return runs[schedule]


def test_a_plateau_scheduler_stepped_with_an_accuracy_in_mode_min_is_found(runs):
    mon = trained(runs, "plateau_accuracy_min")
    [finding] = [f for f in mon.findings() if f.code == CODE]
    assert finding.severity == "warning"
    assert finding.evidence["mode"] == "min" and finding.evidence["cuts"] >= 2
    assert finding.evidence["loss_end"] < finding.evidence["loss_before_first_cut"]
    assert "mode='max'" in finding.fix


def test_a_plateau_scheduler_stepped_with_a_loss_in_mode_max_is_found(runs):
    mon = trained(runs, "plateau_loss_max")
    [finding] = [f for f in mon.findings() if f.code == CODE]
    assert finding.evidence["mode"] == "max" and finding.evidence["cuts"] >= 2
    assert "mode='min'" in finding.fix


@pytest.mark.parametrize("schedule", ["plateau_accuracy_max", "plateau_loss", "step", "cosine",
                                      "one_cycle", "none"])
def test_healthy_schedules_stay_silent(runs, schedule):
    mon = trained(runs, schedule)
    assert problems(mon) == []
    if schedule != "none":
        assert len(mon.run.observed.schedulers) == 1


def test_without_the_observers_data_the_rule_says_nothing(runs):
    run = trained(runs, "plateau_accuracy_min").run
    seen = list(run.observed.schedulers)
    try:
        run.observed.schedulers.clear()       # what a run saved before the observer existed
        assert CODE not in [f.code for f in diagnose(run.judged_view())]
    finally:
        run.observed.schedulers[:] = seen


def test_the_rule_reads_the_observed_field_as_the_observer_fills_it(runs):
    """The healthy mode='max' run, its scheduler state replaced by the one an accuracy in
    mode 'min' leaves (never improved, 7 cuts in 16 calls): found; the same counters with
    one improvement among them, or a rate that is not a whole number of its cuts: silent."""
    run = trained(runs, "plateau_accuracy_max").run
    first_lr = next(r.lrs[0] for r in run.records if r.lrs)
    never = SchedulerState(type="ReduceLROnPlateau", calls=16, lrs=(first_lr * 0.1 ** 7,),
                           mode="min", threshold=1e-4, threshold_mode="rel", patience=1.0,
                           cooldown=0.0, cooldown_counter=0.0, factor=0.1, best=0.66,
                           num_bad_epochs=1.0, eps=1e-8, min_lrs=(0.0,))
    seen = list(run.observed.schedulers)
    try:
        run.observed.schedulers[:] = [never]
        assert CODE in [f.code for f in diagnose(run.judged_view())]
        run.observed.schedulers[:] = [dataclasses.replace(never, num_bad_epochs=0.0)]
        assert CODE not in [f.code for f in diagnose(run.judged_view())]
        run.observed.schedulers[:] = [dataclasses.replace(never, lrs=(first_lr * 0.05,))]
        assert CODE not in [f.code for f in diagnose(run.judged_view())]   # not its cuts
    finally:
        run.observed.schedulers[:] = seen

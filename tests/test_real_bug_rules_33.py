"""Real-bug batch 33 (training-loop control flow, checkpoints and resuming): 'best' weights
kept as model.state_dict() itself (BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS), a resume whose optimizer
starts without its state (OPTIMIZER_STATE_NOT_RESTORED) and one whose scheduler starts again
from step zero (SCHEDULER_RESTARTED_ON_RESUME). Healthy loads (a checkpoint read back, a
deep copy, another model's weights) and healthy resumes (a stateless optimizer, a plateau
scheduler, an epoch scheduler loaded) stay silent."""
import copy
import io

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import best_weights_kept_by_reference as best_weights  # noqa: E402
from benchmarks.real_bugs import optimizer_state_erased_on_resume as erased  # noqa: E402
from benchmarks.real_bugs import scheduler_restarted_on_resume as restarted  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.aliased_loads import count_own_tensors  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
ALIASED = "BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS"
NOT_RESTORED = "OPTIMIZER_STATE_NOT_RESTORED"
RESTARTED = "SCHEDULER_RESTARTED_ON_RESUME"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS ---------------------------------------------------------

def test_best_weights_kept_by_reference_are_named():
    assert ALIASED in _problems(best_weights.run())


def test_best_weights_deep_copied_are_silent():
    mon = best_weights.run(fixed=True)
    assert mon.run.observed.aliased_state_loads          # the load was seen, and not aliased
    assert ALIASED not in _problems(mon)


def _train_then_load(state_of, steps=20):
    """A short digits run that loads ``state_of(model)`` into the model at its end."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        saved = state_of(model)
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        model.load_state_dict(saved() if callable(saved) else saved)
    return mon


def _another_model_with(model):
    other = mlp()
    other.load_state_dict(model.state_dict())
    return other


def _through_a_file(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return lambda: torch.load(io.BytesIO(buffer.getvalue()))


@pytest.mark.parametrize("state_of", [
    _through_a_file,                                            # a checkpoint read back
    lambda model: _another_model_with(model).state_dict(),      # a second model (an EMA's)
    lambda model: {k: v.clone() for k, v in model.state_dict().items()},
], ids=["checkpoint_file", "model_copy", "cloned_tensors"])
def test_loading_other_storage_is_silent(state_of):
    mon = _train_then_load(state_of)
    loads = mon.run.observed.aliased_state_loads
    assert loads and all(own == 0 for _, own, _ in loads)
    assert ALIASED not in _problems(mon)


def test_a_shallow_copy_of_the_dict_is_still_the_live_weights():
    mon = _train_then_load(lambda model: model.state_dict().copy())
    assert ALIASED in _problems(mon)


def test_count_own_tensors_counts_shared_storage_only():
    model = nn.Linear(3, 2)
    assert count_own_tensors(model, model.state_dict()) == (2, 2)
    assert count_own_tensors(model, copy.deepcopy(model.state_dict())) == (0, 2)
    assert count_own_tensors(model, {}) == (0, 0)


# --- resumed runs ----------------------------------------------------------------------------

def test_optimizer_built_again_after_loading_is_named():
    assert NOT_RESTORED in _problems(erased.run())


def test_optimizer_state_loaded_is_silent():
    mon = erased.run(fixed=True)
    assert mon.run.observed.resumed_optimizers[-1][2]     # it held state at the resume
    assert NOT_RESTORED not in _problems(mon)


def test_scheduler_built_anew_on_resume_is_named():
    assert RESTARTED in _problems(restarted.run())


def test_scheduler_loaded_on_resume_is_silent():
    assert not _problems(restarted.run(fixed=True)) & {RESTARTED, NOT_RESTORED}


def _resumed(build, segments=3, each=20, epoch=10):
    """A digits run stopped and resumed every ``each`` steps: ``build(model)`` gives the
    (optimizer, scheduler or None, how the scheduler steps: "step", "epoch" or "plateau");
    the checkpoint holds every state, all of it loaded on resume."""
    torch.manual_seed(0)
    x, y = classification()
    data = batches(x, y, segments * each)
    saved, step = None, 0
    for _ in range(segments):
        checkpoint = None if saved is None else torch.load(io.BytesIO(saved))
        model = mlp()
        optimizer, scheduler, cadence = build(model)
        if checkpoint is not None:
            model.load_state_dict(checkpoint["model"])
            optimizer.load_state_dict(checkpoint["optimizer"])
            if scheduler is not None:
                scheduler.load_state_dict(checkpoint["scheduler"])
        with nd.watch(model, optimizer) as mon:
            if checkpoint is not None:
                mon.load_state_dict(checkpoint["nndebug"])
            for _, (xb, yb) in zip(range(each), data):
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                step += 1
                if cadence == "step" or (cadence == "epoch" and step % epoch == 0):
                    scheduler.step()
                elif cadence == "plateau" and step % epoch == 0:
                    scheduler.step(loss.item())
                mon.step(loss)
            buffer = io.BytesIO()
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": None if scheduler is None else scheduler.state_dict(),
                        "nndebug": mon.state_dict()}, buffer)
            saved = buffer.getvalue()
    return mon


def test_a_resumed_plain_sgd_has_no_state_to_lose_and_is_silent():
    mon = _resumed(lambda model: (torch.optim.SGD(model.parameters(), lr=0.1), None, None))
    rows = mon.run.observed.resumed_optimizers      # one per resume, the earlier one kept
    assert len(rows) == 2
    for _, kind, before, after, schedulers in rows:
        assert (kind, before, after, schedulers) == ("SGD", False, False, [])
    assert not _problems(mon) & {NOT_RESTORED, RESTARTED}


def test_an_epoch_scheduler_loaded_on_resume_is_silent():
    def build(model):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, 2, gamma=0.5), "epoch"
    mon = _resumed(build)
    assert mon.run.observed.resumed_optimizers[-1][4] == [["StepLR", 4]]
    assert not _problems(mon) & {NOT_RESTORED, RESTARTED}


def test_a_plateau_scheduler_is_not_judged_on_resume():
    def build(model):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        return optimizer, torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer), "plateau"
    mon = _resumed(build)
    assert not _problems(mon) & {NOT_RESTORED, RESTARTED}


def test_a_run_never_resumed_notes_no_resume():
    mon = _resumed(lambda model: (torch.optim.Adam(model.parameters(), lr=1e-3), None, None),
                   segments=1)
    assert mon.run.observed.resumed_optimizers == []
    assert not _problems(mon) & {NOT_RESTORED, RESTARTED}

"""Real-bug batch 100 (cross-validation folds, searches, repeated trainings in one process):
what an optimizer reused from an earlier run brings into a run from fresh weights.

OPTIMIZER_STATE_FROM_EARLIER_RUN (``rules/carried_run_state.py``): the optimizer held
momentum buffers or moments when watching started while the classifier starts at ln(C) -
the planted case (SGD momentum reused across folds whose weights were reloaded), an Adam
variant on a small CNN. LR_TOO_LOW widened (``learning_rate._rate_cut_before_fresh_run``):
a run from fresh weights that starts 20x or more below the rate its optimizer was built
with, the rate never climbing back - a StepLR decayed by an earlier trial. Fixed twins and
the healthy look-alikes stay silent: a resumed run (state and trained weights restored
together), a warm-up that starts low and climbs, a fresh optimizer per fold."""
import copy

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import momentum_carried_across_folds as momentum  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STATE = "OPTIMIZER_STATE_FROM_EARLIER_RUN"
STEPS = 120


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, optimizer, x, y, steps, seed=1, scheduler=None):
    for xb, yb in batches(x, y, steps, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 64, 10))


def test_momentum_carried_across_folds_is_named_and_twin_silent():
    bug = momentum.run(steps=STEPS)
    finding = next(f for f in bug.findings() if f.code == STATE)
    assert finding.severity == "warning"
    assert finding.evidence["first_losses_median"] >= 0.95 * finding.evidence["chance_loss"]
    assert not _problems(momentum.run(fixed=True, steps=STEPS))


def test_adam_moments_carried_into_a_reinitialised_cnn_are_named():
    torch.manual_seed(1)
    x, y = classification(images=True)
    model = _cnn()
    initial = copy.deepcopy(model.state_dict())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    _train(model, optimizer, x, y, 60)               # the previous trial
    model.load_state_dict(initial)                   # weights reset, moments kept
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS, seed=2))
    assert STATE in _problems(mon)


def test_resumed_run_with_state_and_trained_weights_stays_silent():
    torch.manual_seed(2)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    _train(model, optimizer, x, y, 150)
    saved = copy.deepcopy(model.state_dict()), copy.deepcopy(optimizer.state_dict())
    resumed = mlp()
    resumed.load_state_dict(saved[0])
    again = torch.optim.SGD(resumed.parameters(), lr=0.05, momentum=0.9)
    again.load_state_dict(saved[1])
    mon = train_watched(resumed, again, nn.CrossEntropyLoss(), batches(x, y, STEPS, seed=3))
    assert not _problems(mon)


def test_resume_from_an_early_checkpoint_stays_silent():
    """40 SGD steps in, the loss already sits at about 0.93 ln(C): a resume, not a fresh run."""
    from benchmarks.real_bugs import resumed_optimizer_built_over_saved_net as resumed
    mon = resumed.run(fixed=True, steps=STEPS)
    assert STATE not in {f.code for f in mon.findings()}
    assert not _problems(mon)


def test_second_task_with_a_new_head_and_the_same_optimizer_stays_silent():
    """Continual learning: task 2 (the classes relabelled) starts at ln(C) on trained weights
    with the optimizer of task 1 - healthy. The first version of the rule read only the
    losses and named it (as it named the fixed twins of the EWC and deepcopy cases)."""
    torch.manual_seed(4)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    _train(model, optimizer, x, y, 200)                       # task 1
    head = model[-1]
    head.reset_parameters()                                   # a fresh head for task 2
    relabelled = (y + 3) % 10
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x, relabelled, STEPS, seed=2))
    assert mon.run.observed.carried_state, "the carried state was not read"
    assert mon.run.observed.carried_state[0][1] == ""         # trained: no fresh draw
    assert STATE not in {f.code for f in mon.findings()}


def test_the_finding_names_the_fresh_weight_and_saved_rows_read_back(tmp_path):
    import nndebug as nd
    bug = momentum.run(steps=STEPS)
    finding = next(f for f in bug.findings() if f.code == STATE)
    assert finding.evidence["looks_like"]                     # an initialiser's name
    assert -1.0 <= finding.evidence["carried_buffer_cosine_with_first_gradient"] <= 1.0
    path = tmp_path / "run.json"
    bug.save(str(path))
    loaded = nd.load_run(str(path)).run.observed.carried_state
    kept = bug.run.observed.carried_state
    assert [row[:2] for row in loaded] == [row[:2] for row in kept]
    assert [row[2] for row in loaded] == pytest.approx([row[2] for row in kept])


def test_fresh_optimizer_per_fold_with_adam_stays_silent():
    torch.manual_seed(3)
    x, y = classification()
    model = mlp()
    initial = copy.deepcopy(model.state_dict())
    _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), x, y, 60)
    model.load_state_dict(initial)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS, seed=2))
    assert STATE not in {f.code for f in mon.findings()}
    assert not _problems(mon)


def _decayed_by_an_earlier_trial(lr=0.1, cuts=3):
    """A fresh model with an SGD + StepLR(gamma 0.1) whose schedule an earlier trial ran."""
    torch.manual_seed(4)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.1)
    _train(model, optimizer, x, y, cuts, scheduler=scheduler)   # the earlier trial
    for layer in model:
        if isinstance(layer, nn.Linear):
            layer.reset_parameters()                             # the weights start again
    return model, optimizer, x, y


def test_rate_cut_by_an_earlier_trial_is_named_as_too_low():
    model, optimizer, x, y = _decayed_by_an_earlier_trial()
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS, seed=2))
    finding = next(f for f in mon.findings() if f.code == "LR_TOO_LOW")
    assert finding.evidence["times_lower"] >= 20
    assert finding.evidence["starting_lr"] == pytest.approx(1e-4)


def test_warm_up_that_starts_low_and_climbs_stays_silent():
    torch.manual_seed(5)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    warm_up = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=30)
    with __import__("nndebug").watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS, seed=2):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            warm_up.step()
            mon.step(loss)
    assert optimizer.defaults["lr"] / mon.run.observed.optimizer_settings[0].lr >= 20
    assert not _problems(mon)


def test_decayed_rate_on_a_trained_model_is_not_the_cut_rate_finding():
    torch.manual_seed(6)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    _train(model, optimizer, x, y, 300)              # trained: no longer a fresh classifier
    for group in optimizer.param_groups:
        group["lr"] = 1e-4                           # late in a schedule, on purpose
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS, seed=2))
    assert mon.run.losses[0] < 0.5
    assert all("times_lower" not in f.evidence for f in mon.findings()
               if f.code == "LR_TOO_LOW")

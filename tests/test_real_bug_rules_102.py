"""Real-bug batch 102 (hand-written training and evaluation loops): what the sparse records
cannot see between two of them, read from two hooks that stay on for the whole run -
micro-batches after the first of each update trained in eval mode because a metrics helper
calls model.eval() (TRAINING_IN_EVAL_MODE from ``observed.eval_mode_accumulations``,
``monitor/carried_gradients.py``), and an evaluation loop that calls backward() and
optimizer.step() on the test batches (OPTIMIZER_STEPPED_DURING_EVALUATION from
``observed.eval_mode_step_bursts``, ``monitor/optimizer_steps.py``). Variants (a CNN with
batch norm, SGD, an evaluation inside training), fixed twins, and the healthy look-alikes a
careless rule would flag: an attack pass in eval mode before the training forward, a model
without dropout or batch norm, a model fine-tuned in eval mode one step per step(), several
train-mode optimizer steps per step()."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import eval_mode_left_on_after_first_micro_batch as micro  # noqa: E402,E501
from benchmarks.real_bugs import evaluation_loop_steps_optimizer_on_test_set as test_set  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
EVAL = "TRAINING_IN_EVAL_MODE"
STEPPED = "OPTIMIZER_STEPPED_DURING_EVALUATION"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Flatten(), nn.Linear(8 * 64, 10))


def _micro_batch_run(model, optimizer, images=False, restore=False, micro_batches=2,
                     steps=40, before=None):
    """Accumulates ``micro_batches`` backward passes per update; after each, a helper scores
    the micro-batch under model.eval() and restores the mode only when ``restore``."""
    x, y = classification(images=images)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            model.train()
            optimizer.zero_grad()
            if before is not None:
                before(model, xb, yb)
            for xm, ym in zip(xb.chunk(micro_batches), yb.chunk(micro_batches)):
                loss = nn.functional.cross_entropy(model(xm), ym) / micro_batches
                loss.backward()
                model.eval()
                with torch.no_grad():
                    model(xm)
                if restore:
                    model.train()
            optimizer.step()
            mon.step(loss)
    return mon


# --- eval-mode micro-batches -----------------------------------------------------------------

def test_micro_batches_in_eval_mode_are_named():
    found = [f for f in micro.run().findings() if f.code == EVAL]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["times"] >= 3 and found[0].where == "1"   # the batch norm
    assert "micro-batch" in found[0].message
    assert EVAL not in _problems(micro.run(fixed=True))


def test_cnn_with_batch_norm_and_sgd_is_named():
    torch.manual_seed(1)
    model = _cnn()
    mon = _micro_batch_run(model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
                           images=True)
    assert EVAL in _problems(mon)
    rows = mon.run.observed.eval_mode_accumulations
    assert rows and rows[0][1] == "1" and rows[0][2] == 1
    torch.manual_seed(1)
    model = _cnn()
    fixed = _micro_batch_run(model, torch.optim.SGD(model.parameters(), lr=0.05,
                                                    momentum=0.9), images=True, restore=True)
    assert EVAL not in _problems(fixed)
    assert fixed.run.observed.eval_mode_accumulations == []


def test_model_without_dropout_or_batch_norm_is_not_flagged():
    """Eval mode changes nothing in a plain MLP: the same helper is harmless there."""
    torch.manual_seed(0)
    model = mlp()
    mon = _micro_batch_run(model, torch.optim.Adam(model.parameters(), lr=1e-3))
    assert mon.run.observed.eval_mode_accumulations == []
    assert EVAL not in _problems(mon)


def test_attack_pass_in_eval_mode_before_training_stays_silent():
    """An input-gradient pass in eval mode, zeroed before the training forward: the training
    gradient never mixes with it."""
    def attack(model, xb, yb):
        model.eval()
        xa = xb.clone().requires_grad_(True)
        nn.functional.cross_entropy(model(xa), yb).backward()
        model.zero_grad()
        model.train()

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2),
                          nn.Linear(64, 10))
    mon = _micro_batch_run(model, torch.optim.Adam(model.parameters(), lr=1e-3),
                           restore=True, before=attack)
    assert mon.run.observed.eval_mode_accumulations == []
    assert EVAL not in _problems(mon)


# --- optimizer steps taken by an evaluation loop -------------------------------------------

def test_evaluation_loop_that_steps_is_named():
    mon = test_set.run()
    found = [f for f in mon.findings() if f.code == STEPPED]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["eval_mode_steps"] == 80        # 10 passes of 8 test batches
    assert found[0].evidence["bursts"][0][2] == test_set.STEPS
    assert not _problems(test_set.run(fixed=True))


def _evaluated_every(epoch, steps, step_in_eval, model, optimizer, images=False,
                     train_in_eval=False):
    x, y = classification(images=images)
    x_test, y_test = x[:200], y[:200]
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(batches(x[200:], y[200:], steps)):
            model.train(not train_in_eval)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if i % epoch == epoch - 1:
                model.eval()
                for start in range(0, 200, 50):
                    xt, yt = x_test[start:start + 50], y_test[start:start + 50]
                    if step_in_eval:
                        optimizer.zero_grad()
                        nn.functional.cross_entropy(model(xt), yt).backward()
                        optimizer.step()
                    else:
                        with torch.no_grad():
                            model(xt)
    return mon


def test_cnn_evaluated_inside_training_with_sgd_is_named():
    torch.manual_seed(0)
    model = _cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = _evaluated_every(20, 60, True, model, optimizer, images=True)
    found = [f for f in mon.findings() if f.code == STEPPED]
    assert found and found[0].evidence["eval_mode_steps"] == 12      # 3 evaluations of 4
    torch.manual_seed(0)
    model = _cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    assert STEPPED not in _problems(_evaluated_every(20, 60, False, model, optimizer,
                                                     images=True))


def test_model_fine_tuned_in_eval_mode_one_step_at_a_time_stays_silent():
    """Frozen batch norm on purpose: every optimizer step in eval mode, one per step()."""
    torch.manual_seed(0)
    model = _cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = _evaluated_every(20, 60, False, model, optimizer, images=True, train_in_eval=True)
    assert mon.run.observed.eval_mode_step_bursts == []
    assert STEPPED not in _problems(mon)


def test_several_train_mode_steps_per_step_call_are_not_bursts():
    """mon.step() called every 4 optimizer steps, all in train mode."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, 80)):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if i % 4 == 3:
                mon.step(loss)
    assert mon.run.observed.eval_mode_step_bursts == []
    assert STEPPED not in _problems(mon)


def test_rows_saved_and_loaded(tmp_path):
    for mon in (micro.run(steps=20), test_set.run(steps=20)):
        path = tmp_path / "run.nndebug"
        mon.save(str(path))
        observed = nd.load_run(str(path)).run.observed
        for name in ("eval_mode_accumulations", "eval_mode_step_bursts"):
            assert getattr(observed, name) == list(getattr(mon.run.observed, name))
    assert observed.eval_mode_step_bursts        # the evaluation loop's burst came back


# --- minigrad: the same two hooks, the same rows ---------------------------------------------

def _minigrad_run(micro_restore=True, step_in_eval=False, steps=30):
    import numpy as np
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(4, 16), mnn.BatchNorm1d(16), mnn.ReLU(),
                           mnn.Linear(16, 3))
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.normal(size=(32, 4)).astype(np.float32))
    y = mg.tensor(np.arange(32) % 3)
    loss_fn = mnn.CrossEntropyLoss()
    opt = moptim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer=opt) as mon:
        for _ in range(steps):
            model.train()
            opt.zero_grad()
            for half in (slice(0, 16), slice(16, 32)):
                loss = loss_fn(model(x[half]), y[half]) * 0.5
                loss.backward()
                model.eval()                          # a metrics helper
                if micro_restore:
                    model.train()
            opt.step()
            mon.step(loss)
        model.eval()
        for _ in range(3 if step_in_eval else 0):     # an evaluation loop that steps
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
    return mon


def test_minigrad_eval_mode_micro_batches_and_evaluation_steps_are_seen():
    micro_bug = _minigrad_run(micro_restore=False)
    assert len(micro_bug.run.observed.eval_mode_accumulations) >= 3
    assert EVAL in _problems(micro_bug)
    stepping = _minigrad_run(step_in_eval=True)
    assert stepping.run.observed.eval_mode_step_bursts[0][1:] == (3, 30)
    assert stepping.run.observed.eval_mode_accumulations == []
    assert _problems(stepping) & {EVAL, STEPPED} == {STEPPED}
    fixed = _minigrad_run()
    assert fixed.run.observed.eval_mode_accumulations == []
    assert fixed.run.observed.eval_mode_step_bursts == []
    assert not {EVAL, STEPPED} & _problems(fixed)

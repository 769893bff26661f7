"""Real-bug batch 90 (saving, loading and copying weights): a checkpoint that never reached
the model it was meant for - a strict=False load whose keys carry a 'model.' prefix, a
loader classmethod called on an instance with its returned model dropped
(PRETRAINED_WEIGHTS_NOT_LOADED, from a state dict of the model in scope when watch starts:
``monitor/unloaded_checkpoints.py``). Variants: a DataParallel 'module.' prefix, a
checkpoint wrapped as {"state_dict": ...}, a model whose own names carry the prefix the
checkpoint lacks. Fixed twins silent, and the healthy look-alikes a careless rule would
flag: a loaded model trained far from a briefly trained checkpoint, a resumed EMA run whose
raw weights differ from the checkpoint's averaged 'model', a from-scratch run at a too-low
rate with a teacher's checkpoint of another shape in scope, a best-epoch snapshot made
during a poorly learning run, the model's own state_dict() kept by reference."""
import copy

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import checkpoint_load_classmethod_result_discarded as discarded  # noqa: E402,E501
from benchmarks.real_bugs import checkpoint_prefixed_keys_skipped_by_strict_false as prefixed  # noqa: E402,E501
from benchmarks.real_bugs import resumed_from_ema_average_not_raw_weights as ema  # noqa: E402
from benchmarks.real_bugs import resumed_optimizer_built_over_saved_net as tutorial  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402
from nndebug.monitor.unloaded_checkpoints import UnloadedCheckpoints  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "PRETRAINED_WEIGHTS_NOT_LOADED"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _trained(model, x, y, steps=200, lr=3e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for xb, yb in batches(x, y, steps, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# --- the planted cases and their twins -----------------------------------------------------

def test_classmethod_result_dropped_is_named():
    found = [f for f in discarded.run().findings() if f.code == CODE]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["prefix"] == "" and found[0].evidence["local"] == "checkpoint"
    assert CODE not in _problems(discarded.run(fixed=True))


def test_prefixed_strict_false_load_is_named():
    found = [f for f in prefixed.run().findings() if f.code == CODE]
    assert found and found[0].evidence["prefix"] == "model."
    assert "model." in found[0].message
    assert not _problems(prefixed.run(fixed=True))


def test_resumed_twins_with_checkpoints_in_scope_stay_silent():
    # the tutorial's twin trains far from its 40-step checkpoint (distance 1.8 at the end);
    # the EMA twin starts from raw weights 0.66 away from the checkpoint's averaged 'model'
    for case in (tutorial, ema):
        mon = case.run(fixed=True)
        assert mon.run.observed.unloaded_checkpoints       # the checkpoint was read
        assert CODE not in _problems(mon)


# --- variants --------------------------------------------------------------------------------

def _resume(state, model, lr=1e-4, steps=120, load=None, **watch):
    torch.manual_seed(0)
    x, y = classification()
    if load is not None:
        load(model, state)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)


def test_data_parallel_prefix_wrapped_checkpoint_is_named():
    torch.manual_seed(0)
    x, y = classification()
    saved = _trained(mlp(64, 96, 10), x, y)
    checkpoint = {"epoch": 3, "state_dict": {"module." + k: v for k, v in saved.items()}}
    mon = _resume(checkpoint, mlp(64, 96, 10),
                  load=lambda m, c: m.load_state_dict(c["state_dict"], strict=False))
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["prefix"] == "module."
    # the same checkpoint with the prefix stripped: loaded, silent
    clean = {"state_dict": {k[len("module."):]: v for k, v in checkpoint["state_dict"].items()}}
    mon = _resume(clean, mlp(64, 96, 10),
                  load=lambda m, c: m.load_state_dict(c["state_dict"]))
    assert CODE not in _problems(mon)


def test_model_names_with_a_prefix_the_checkpoint_lacks_is_named():
    torch.manual_seed(0)
    x, y = classification()
    bare = _trained(mlp(64, 96, 10), x, y)

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = mlp(64, 96, 10)

        def forward(self, inputs):
            return self.net(inputs)

    mon = _resume(bare, Wrapped(), load=lambda m, s: m.load_state_dict(s, strict=False))
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["prefix"] == "-net."


# --- healthy (and other-cause) look-alikes ------------------------------------------------

def test_too_low_rate_from_scratch_with_another_models_checkpoint_stays_silent():
    # a teacher of another width loaded elsewhere, the student trained from scratch too
    # slowly: LR_TOO_LOW's run, not a checkpoint meant for this model
    torch.manual_seed(0)
    x, y = classification()
    teacher_state = _trained(mlp(64, 32, 10), x, y, steps=50)   # noqa: F841  (in scope)
    student = mlp(64, 96, 10)
    optimizer = torch.optim.SGD(student.parameters(), lr=1e-4)
    mon = train_watched(student, optimizer, nn.CrossEntropyLoss(), batches(x, y, 120))
    assert not mon.run.observed.unloaded_checkpoints
    assert CODE not in _problems(mon)


def test_best_snapshot_made_during_a_poor_run_is_not_read():
    # snapshots taken during the run are not in scope when watch starts
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(64, 64, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    best = None
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, 120)):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if i % 30 == 0:
                best = copy.deepcopy(model.state_dict())
    assert best is not None
    assert not mon.run.observed.unloaded_checkpoints
    assert CODE not in _problems(mon)


def test_state_dict_kept_by_reference_is_the_model_itself():
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(64, 64, 10)
    model_state = model.state_dict()          # noqa: F841  (the live tensors, in scope)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 100))
    assert not mon.run.observed.unloaded_checkpoints
    assert CODE not in _problems(mon)


def test_loaded_model_that_learns_poorly_for_another_reason_stays_silent():
    # loaded correctly, then a rate far too high: the model starts at its checkpoint
    torch.manual_seed(0)
    x, y = classification()
    state = _trained(mlp(64, 96, 10), x, y)
    mon = _resume(state, mlp(64, 96, 10), lr=3.0, load=lambda m, s: m.load_state_dict(s))
    rows = mon.run.observed.unloaded_checkpoints
    assert rows and rows[0][4] == pytest.approx(0.0, abs=1e-6)
    assert CODE not in _problems(mon)


# --- the observer -----------------------------------------------------------------------------

class _Adapter:
    framework = "torch"


def test_observer_reads_start_and_end_and_lets_go():
    model = mlp(64, 16, 10)
    other = mlp(64, 16, 10)
    checkpoint = {k: v.detach().clone() for k, v in other.state_dict().items()}
    observed = Observed()
    observer = UnloadedCheckpoints(_Adapter(), observed, model, print)
    assert observer._found and observer._found[0][2] == "checkpoint"
    with torch.no_grad():
        for p, q in zip(model.parameters(), other.parameters()):
            p.copy_(q)                         # loaded only after watch started
    observer.read()
    (local, prefix, matched, weights, start, end), = observed.unloaded_checkpoints
    assert (local, prefix, matched, weights) == ("checkpoint", "", 2, 2)
    assert start > 0.9 and end == pytest.approx(0.0, abs=1e-6)
    assert observer.model is None and observer._found == []
    observer.read()                            # a second close reads nothing more
    assert len(observed.unloaded_checkpoints) == 1
    del checkpoint


def test_rows_saved_and_loaded(tmp_path):
    import nndebug as nd
    mon = discarded.run(steps=20)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    rows = nd.load_run(str(path)).run.observed.unloaded_checkpoints
    assert rows and [list(r) for r in rows] == \
        [list(r) for r in mon.run.observed.unloaded_checkpoints]

"""nndebug.watch on real training loops (torch and minigrad): what it sees, what it costs,
and that it leaves no trace on the user's model, optimizer and random state."""
import json

import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import minigrad.optim as moptim  # noqa: E402


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def data(n=512, d=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = (x[:, 0] + x[:, 1] > 0).long()
    return x, y


def batches(x, y, steps, size=32):
    for i in range(steps):
        j = (i * size) % (len(x) - size)
        yield x[j:j + size], y[j:j + size]


def mlp(seed=0, inplace=False):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(inplace=inplace), nn.Linear(32, 2))


def train(model, optimizer, steps=60, mon=None, zero_grad=True, x=None, y=None, **kw):
    if x is None:
        x, y = data()
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in batches(x, y, steps):
        if zero_grad:
            optimizer.zero_grad()
        out = model(xb)
        out = out[0] if isinstance(out, tuple) else out["logits"] if isinstance(out, dict) else out
        loss = loss_fn(out, yb)
        loss.backward()
        optimizer.step()
        if mon is not None:
            mon.step(loss, **kw)
    return loss


def codes(mon, severities=("warning", "error")):
    return [f.code for f in mon.findings() if f.severity in severities]


# --- the carried-over gradient check ----------------------------------------------------------------
def test_missing_zero_grad_is_found_even_while_the_loss_falls():
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with nd.watch(model, opt, overhead=None) as mon:
        train(model, opt, steps=60, mon=mon, zero_grad=False)
    losses = mon.run.losses
    assert np.median(losses[-10:]) < np.median(losses[:10])    # the loss still falls ...
    assert codes(mon)[0] == "GRADIENTS_ACCUMULATING"           # ... and the bug is named first


def test_intentional_accumulation_and_clipping_are_not_flagged():
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = data()
    loss_fn = nn.CrossEntropyLoss()
    stream = batches(x, y, 4 * 50, size=8)
    with nd.watch(model, opt, overhead=None) as mon:
        for _ in range(50):
            opt.zero_grad()
            for _ in range(4):
                xb, yb = next(stream)
                (loss_fn(model(xb), yb) / 4).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            mon.step(loss_fn(model(xb), yb).detach())
    assert "GRADIENTS_ACCUMULATING" not in codes(mon)


def test_zero_grad_after_step_is_a_valid_order():
    # forward, backward, step, zero_grad, then watch's step(): .grad is None by then
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = data()
    with nd.watch(model, opt, overhead=None) as mon:
        for xb, yb in batches(x, y, 60):
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
            mon.step(loss)
    assert codes(mon) == []


# --- model shapes that must just work --------------------------------------------------------------
def test_inplace_relu_is_measured():
    model = mlp(inplace=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, opt, overhead=None) as mon:
        train(model, opt, steps=40, mon=mon)
    assert codes(mon) == []
    dead = mon.run.records[0].activations["1"]["dead"]
    assert 0 <= dead < 0.5
    assert mon.run.records[0].activations["1"]["mean"] > 0   # measured after the ReLU


class Shared(nn.Module):
    """One Linear applied three times (weights shared) and a tuple output."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.cell = nn.Linear(16, 16)
        self.act = nn.Tanh()
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        h = self.act(self.inp(x))
        for _ in range(3):
            h = self.act(self.cell(h))
        return self.out(h), h


class DictOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return {"logits": self.head(self.body(x)), "aux": x.sum()}


@pytest.mark.parametrize("make", [Shared, DictOut])
def test_shared_modules_and_tuple_or_dict_outputs(make):
    torch.manual_seed(0)
    model = make()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, opt, overhead=None) as mon:
        train(model, opt, steps=40, mon=mon)
    assert codes(mon) == []
    record = mon.run.records[0]
    if make is Shared:
        # every call of the shared layers is measured: cell, cell#2, cell#3; act 4 times
        assert {"cell", "cell#2", "cell#3", "act#4"} <= set(record.activations)
    assert record.output is not None and record.output.shape[1] == 2


def test_minigrad_model_is_watched_like_a_torch_one():
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 2))
    opt = moptim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = data()
    xm, ym = mg.tensor(x.numpy()), mg.tensor(y.numpy())
    before = nd.adapt(model).hook_counts()
    loss_fn = mnn.CrossEntropyLoss()
    with nd.watch(model, opt, overhead=None) as mon:
        for i in range(60):
            j = (i * 32) % 480
            opt.zero_grad()
            loss = loss_fn(model(xm[j:j + 32]), ym[j:j + 32])
            loss.backward()
            opt.step()
            mon.step(loss)
    assert codes(mon) == []
    assert nd.adapt(model).hook_counts() == before
    record = mon.run.records[-1]
    assert np.all(np.isfinite(record.grad_norm)) and record.grad_received.all()
    assert set(record.activations) == {"0", "1", "2"}


def test_minigrad_missing_zero_grad():
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(8, 16), mnn.ReLU(), mnn.Linear(16, 2))
    opt = moptim.SGD(model.parameters(), lr=0.01)
    x, y = data()
    xm, ym = mg.tensor(x.numpy()), mg.tensor(y.numpy())
    with nd.watch(model, opt, overhead=None) as mon:
        for i in range(30):
            loss = mnn.CrossEntropyLoss()(model(xm[:32]), ym[:32])
            loss.backward()
            opt.step()
            mon.step(loss)
    assert "GRADIENTS_ACCUMULATING" in codes(mon)


# --- no trace left -----------------------------------------------------------------------------------
def test_watch_leaves_training_bit_for_bit_unchanged():
    """Same seed, same loop, with and without watch: identical weights, optimizer state and
    random stream (the model has dropout, so a stolen random number would show)."""
    def run(watched):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 2))
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        mon = nd.watch(model, opt, overhead=None) if watched else None
        train(model, opt, steps=30, mon=mon)
        if mon:
            mon.findings()
            mon.close()
        return model.state_dict(), opt.state_dict(), torch.get_rng_state()
    (m1, o1, r1), (m2, o2, r2) = run(False), run(True)
    assert all(torch.equal(m1[k], m2[k]) for k in m1)
    assert all(torch.equal(o1["state"][i][k], o2["state"][i][k])
               for i in o1["state"] for k in o1["state"][i])
    assert torch.equal(r1, r2)


def test_close_leaves_no_hook_behind_even_mid_step_and_on_errors():
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    adapter = nd.adapt(model)
    before = adapter.hook_counts()
    mon = nd.watch(model, opt, overhead=None)
    assert adapter.hook_counts() != before                     # armed for the first step
    x, y = data()
    model(x[:4])                                               # closed in the middle of a step
    mon.close()
    assert adapter.hook_counts() == before
    with pytest.raises(RuntimeError):
        mon.step(torch.tensor(1.0))
    with pytest.raises(ZeroDivisionError):
        with nd.watch(model, opt, overhead=None) as mon:
            train(model, opt, steps=3, mon=mon)
            1 / 0
    assert adapter.hook_counts() == before and mon.closed
    assert model.training and all(p.requires_grad for p in model.parameters())


# --- NaN is a finding, never a crash -----------------------------------------------------------------
def test_nan_loss_and_nan_inputs_are_findings_not_crashes():
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = data()
    x[5, 3] = float("nan")
    with nd.watch(model, opt, overhead=None) as mon:
        train(model, opt, steps=20, mon=mon, x=x, y=y)
    found = codes(mon)
    assert found[0] == "NAN_IN_INPUTS" and "NAN_LOSS" in found
    assert "nan" in json.dumps(mon.to_dict(), allow_nan=False)   # strict JSON all the same
    assert "NAN_IN_INPUTS" in mon.report()
    with nd.watch(model) as mon:
        for value in (float("nan"), float("inf"), 1.0):
            mon.step(value)
    assert "NAN_LOSS" in codes(mon)


# --- cost: one host sync per recorded step, sampling under the time budget --------------------------------
@pytest.mark.parametrize("losses_on_host", [False, True])
def test_one_host_sync_per_recorded_step(monkeypatch, losses_on_host):
    """One transfer per recorded step, plus one every LOSS_CHECK_EVERY steps (the waiting
    losses, checked for a jump: monitor/loss_jumps.py) when that step was not recorded.
    A loss already on the CPU is read at once (``losses_on_host``): no transfer for it."""
    from nndebug.monitor.loss_jumps import LOSS_CHECK_EVERY
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = nd.watch(model, opt, overhead=None, every=5)
    calls = []
    original = mon.adapter.to_host
    monkeypatch.setattr(mon.adapter, "to_host", lambda t: calls.append(1) or original(t))
    if losses_on_host:
        train(model, opt, steps=50, mon=mon)
        mon.close()
        assert len(calls) == len(mon.run.records) == 10 and len(mon.run.losses) == 50
        return
    # as on an accelerator: the losses wait on the device until a transfer takes them
    monkeypatch.setattr(mon.adapter, "on_host", lambda t: False)
    train(model, opt, steps=50, mon=mon)
    assert [r.step for r in mon.run.records] == list(range(0, 50, 5))
    checks = [s for s in range(50) if (s + 1) % LOSS_CHECK_EVERY == 0 and s % 5 != 0]
    assert len(calls) == len(mon.run.records) + len(checks)
    assert len(mon.run.losses) == 48                 # the last 2 losses still wait on the device
    mon.close()
    assert len(mon.run.losses) == 50 and len(calls) == len(mon.run.records) + len(checks) + 1


def test_sinks_done_with_per_step_work_are_no_longer_called_each_step():
    """The dependency probe's sink once its probe ran, and the batch fingerprints once their
    last ruler step is past, leave the list of sinks called at every step; what they
    found stays."""
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = nd.watch(model, opt)
    mon.batches.limit = 40
    calls = []
    original = type(mon.batches).on_step
    mon.batches.on_step = lambda run, step: calls.append(step) or original(mon.batches, run, step)
    train(model, opt, steps=100, mon=mon)
    per_step = [type(sink).__name__ for sink, _ in mon._step_sinks]
    # the list is looked at again at the next full step(): the judged step 64 at the latest
    assert per_step == [] and calls == list(range(len(calls))) and 40 <= len(calls) <= 64
    assert mon.probes == []
    mon.close()
    assert len(mon.run.fingerprints) == 40


@pytest.mark.parametrize("zero_grad", [True, False])
def test_plain_steps_closed_the_short_way_give_the_same_run(monkeypatch, zero_grad):
    """``step()`` closes most plain steps without asking the schedule (no clock, no sink
    dispatch by name): the records, the losses and the findings are those of asking at
    every step (``first_possible_record`` forced to "the next step")."""
    from nndebug.monitor.schedule import Schedule

    def watched(short_way):
        if not short_way:
            monkeypatch.setattr(Schedule, "first_possible_record", lambda self, upcoming: upcoming)
        model = mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        with nd.watch(model, opt, overhead=None, every=7) as mon:
            train(model, opt, steps=90, mon=mon, zero_grad=zero_grad)
        monkeypatch.undo()
        return mon
    short, asked = watched(True), watched(False)
    assert [r.step for r in short.run.records] == [r.step for r in asked.run.records] == \
        list(range(0, 90, 7))
    assert list(short.run.losses) == list(asked.run.losses) and len(short.run.losses) == 90
    assert np.array_equal(short.run.fingerprints, asked.run.fingerprints, equal_nan=True)
    assert codes(short) == codes(asked) and (codes(short) == []) == zero_grad


def test_default_schedule_samples_and_keeps_every_loss():
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, opt) as mon:
        train(model, opt, steps=200, mon=mon)
    steps = [r.step for r in mon.run.records]
    assert steps[:3] == [0, 1, 2]                    # the first steps are always recorded
    assert len(steps) < 200                          # the rest is sampled to the time budget
    assert len(mon.run.losses) == 200 and codes(mon) == []


def test_a_nan_makes_the_sampler_record_the_next_steps():
    from nndebug.monitor import ESCALATED_RECORDS
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = data()
    x_bad = x.clone()
    x_bad[:, 0] = float("nan")
    with nd.watch(model, opt, overhead=None, every=10) as mon:
        train(model, opt, steps=10, mon=mon)              # recorded: step 0
        train(model, opt, steps=1, mon=mon, x=x_bad, y=y)  # recorded: step 10, sees the NaN
        train(model, opt, steps=40, mon=mon)
    steps = [r.step for r in mon.run.records]
    after = list(range(11, 11 + ESCALATED_RECORDS))
    assert steps[:2] == [0, 10] and steps[2:2 + len(after)] == after
    assert steps[2 + len(after):] == [40, 50]               # back to the schedule
    assert codes(mon)[0] == "NAN_IN_INPUTS"


# --- usage errors ---------------------------------------------------------------------------------
def test_bad_arguments_get_clear_errors():
    model = mlp()
    with pytest.raises(TypeError, match="torch.nn.Module"):
        nd.watch(object())
    with pytest.raises(ValueError, match="every"):
        nd.watch(model, every=0)
    with pytest.raises(ValueError, match="overhead"):
        nd.watch(model, overhead=2)
    with pytest.raises(TypeError, match="optimizer"):
        nd.watch(model, optimizer=object())
    with nd.watch(model) as mon:
        with pytest.raises(ValueError, match="scalar"):
            mon.step(torch.ones(3))
        with pytest.raises(ValueError, match="loss"):
            mon.step(None)
        with pytest.raises(TypeError):
            mon.step("high")


def test_validation_forward_passes_are_not_taken_for_training():
    model = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2),
                          nn.Linear(32, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = data()
    with nd.watch(model, opt, overhead=None) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, 40)):
            model.eval()                       # an evaluation pass *before* the training one
            with torch.no_grad():
                val = nn.functional.cross_entropy(model(x[-64:]), y[-64:])
            model.train()
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            mon.step(loss, val_loss=val)
    assert codes(mon) == []
    assert mon.run.records[5].inputs["batch"] == 32   # the training batch, not the 64 of eval
    assert len(mon.run.val_losses) == 40


# --- reports ---------------------------------------------------------------------------------
def test_reports_text_json_plot_and_tensorboard(tmp_path):
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    logdir = tmp_path / "tb"
    pytest.importorskip("tensorboard")
    with nd.watch(model, opt, overhead=None, tensorboard=str(logdir)) as mon:
        train(model, opt, steps=30, mon=mon)
    assert "No problems found" in mon.report()
    data_dict = mon.to_dict()
    json.dumps(data_dict, allow_nan=False)
    assert data_dict["healthy"] and len(data_dict["run"]["records"]) == 30
    assert any(p.name.startswith("events.out.tfevents") for p in logdir.iterdir())
    pytest.importorskip("matplotlib")
    path = mon.plot(str(tmp_path / "dash.png"))
    with open(path, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


# --- false alarms: healthy training with various optimizers and batch sizes -------------------
@pytest.mark.parametrize("optimizer,lr,batch", [("adam", 1e-2, 16), ("adam", 1e-3, 256),
                                                ("sgd", 0.2, 16), ("sgd", 0.05, 256),
                                                ("momentum", 0.1, 64), ("momentum", 0.02, 16)])
def test_healthy_digits_runs_raise_nothing(optimizer, lr, batch):
    from nndebug.zoo.common import batches as digit_batches, digits
    x, y = digits()
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    make = {"adam": lambda: torch.optim.Adam(model.parameters(), lr=lr),
            "sgd": lambda: torch.optim.SGD(model.parameters(), lr=lr),
            "momentum": lambda: torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)}
    opt = make[optimizer]()
    with nd.watch(model, opt, overhead=None) as mon:
        for xb, yb in digit_batches(x, y, 200, batch_size=batch, seed=1):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert codes(mon) == [], mon.report()


def test_parameters_added_to_the_optimizer_later_count_as_held():
    model = mlp()
    opt = torch.optim.SGD(model[0].parameters(), lr=0.05)
    with nd.watch(model, opt, overhead=None) as mon:
        train(model, opt, steps=3, mon=mon)
        assert "OPTIMIZER_MISSING_PARAMS" in codes(mon)
        opt.add_param_group({"params": model[2].parameters()})
        assert "OPTIMIZER_MISSING_PARAMS" not in codes(mon)


def test_an_internal_failure_never_breaks_training(monkeypatch):
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = nd.watch(model, opt, overhead=None)
    from nndebug.monitor import statistics
    monkeypatch.setattr(statistics, "layer_stats", lambda *args: 1 / 0)   # an exotic layer output
    monkeypatch.setattr(statistics, "input_stats", lambda *args: 1 / 0)
    train(model, opt, steps=20, mon=mon)
    mon.close()
    assert len(mon.run.losses) == 20
    error = next(f for f in mon.findings() if f.code == "MONITOR_ERROR")
    assert error.severity == "info" and "ZeroDivisionError" in error.message
    assert nd.adapt(model).hook_counts() == {k: 0 for k in nd.adapt(model).hook_counts()}


def test_records_reuse_their_buffers_and_still_measure_each_update():
    """The pre-step weight copy and .grad - delivered are written into the same buffers at
    every record (no model-sized allocation per record), and the update norms stay right."""
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    mon = nd.watch(model, opt, overhead=None, every=1)
    seen = []
    x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        expected = [0.1 * float(p.grad.norm()) for p in model.parameters()]
        opt.step()
        seen.append([id(t) for t in mon.hooks.snapshot])
        mon.step(torch.tensor(1.0))
        np.testing.assert_allclose(mon.run.records[-1].update_norm, expected, rtol=1e-4)
    mon.close()
    assert seen[0] == seen[1] == seen[2]


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_copies_into_reuses_matching_buffers_and_reallocates_others(framework):
    import minigrad as mg
    from nndebug.adapters import adapt
    make = torch.tensor if framework == "torch" else mg.tensor
    model = torch.nn.Linear(2, 2) if framework == "torch" else mg.nn.Linear(2, 2)
    adapter = adapt(model)
    a, b = make(np.ones((2, 3), np.float32)), make(np.arange(4, dtype=np.float32))
    first = adapter.copies_into(None, [a, b])
    again = adapter.copies_into(first, [make(np.zeros((2, 3), np.float32)), b])
    assert again is first and float(np.abs(np.asarray(adapter.to_numpy(again[0]))).sum()) == 0
    other = adapter.copies_into(first, [make(np.zeros((3, 2), np.float32)), b])
    assert other is not first and tuple(other[0].shape) == (3, 2)


@pytest.mark.parametrize("on_host", [True, False])
def test_grad_minus_delivered_is_kept_in_buffers_on_the_cpu_only(monkeypatch, on_host):
    """Without zero_grad, .grad holds last step's gradient too: the excess over what this
    step delivered is measured the same way whether it is computed in kept buffers (CPU)
    or as a temporary (as on an accelerator, where a kept buffer would raise the peak)."""
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.0)       # the gradients stay put
    mon = nd.watch(model, opt, overhead=None, every=1)
    if not on_host:
        monkeypatch.setattr(mon.adapter, "on_host", lambda t: False)
    x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
    for _ in range(2):                                       # no zero_grad: .grad doubles
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        mon.step(torch.tensor(1.0))
    mon.close()
    record = mon.run.records[1]
    np.testing.assert_allclose(record.held_excess, record.grad_norm, rtol=1e-5)
    assert (mon._excess_buffers[1] is not None) == on_host


def test_the_recorded_steps_parameter_hooks_leave_the_users_own_hooks_as_they_were():
    """The monitor's gradient hooks go straight into each parameter's hook table, beside
    the user's: the user's hook still changes the gradient, ours never does, and after
    every recorded step the tables hold exactly what they held before."""
    def trained(watched):
        model = mlp()
        handle = model[0].weight.register_hook(lambda g: g * 0.5)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        if watched:
            with nd.watch(model, opt, overhead=None, every=2) as mon:
                train(model, opt, steps=6, mon=mon)
            assert [r.step for r in mon.run.records] == [0, 2, 4]
            assert all(r.backward and np.isfinite(r.grad_norm).all() for r in mon.run.records)
        else:
            train(model, opt, steps=6)
        tables = [p._backward_hooks for p in model.parameters()]
        return model, handle, tables
    plain, _, plain_tables = trained(False)
    watched, handle, tables = trained(True)
    for a, b in zip(plain.parameters(), watched.parameters()):
        assert torch.equal(a, b)                  # the user's halving acted, ours changed nothing
    assert list(tables[0].keys()) == [handle.id] and all(t is None for t in tables[1:])
    assert [t is None for t in plain_tables] == [t is None for t in tables]


@pytest.mark.parametrize("loss_as_function", [False, True])
def test_the_function_mode_is_dropped_for_a_model_that_gives_it_nothing(loss_as_function):
    """The torch function mode of recorded steps (attention softmaxes, loss functions) runs
    through the first three recorded steps; a model that shows it neither (an MLP and a loss
    module) records without it afterwards, one calling ``F.cross_entropy`` keeps it, and
    every recorded step's loss call is seen either way."""
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = data()
    loss_module = nn.CrossEntropyLoss()
    with nd.watch(model, opt, overhead=None) as mon:
        for xb, yb in batches(x, y, 8):
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb) if loss_as_function else loss_module(out, yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    attention = mon.around.attention
    assert attention.enabled == loss_as_function
    assert attention.steps_seen == (8 if loss_as_function else 3)
    # the global module hooks follow: the loss module is then hooked directly
    assert mon.around.global_needed == loss_as_function
    assert mon.around.global_steps == (9 if loss_as_function else 3)   # 9: step 8 armed too
    assert [c.step for c in mon.run.observed.loss_calls] == list(range(8))


def test_the_global_module_hooks_stay_for_what_only_they_see():
    """A module built inside forward (not registered) and a new loss module at every step
    keep the global module hooks of recorded steps on: both are seen at every record."""
    class BuildsDropout(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(8, 32), nn.Linear(32, 2)

        def forward(self, x):
            return self.b(nn.Dropout(0.1)(torch.relu(self.a(x))))

    x, y = data()
    for model, new_loss in ((BuildsDropout(), False), (mlp(), True)):
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        loss_module = nn.CrossEntropyLoss()
        with nd.watch(model, opt, overhead=None) as mon:
            for xb, yb in batches(x, y, 8):
                opt.zero_grad()
                loss = (nn.CrossEntropyLoss() if new_loss else loss_module)(model(xb), yb)
                loss.backward()
                opt.step()
                mon.step(loss)
        assert mon.around.global_needed and mon.around.global_steps == 9   # step 8 armed too
        assert [c.step for c in mon.run.observed.loss_calls] == list(range(8))
        if not new_loss:
            assert [u.steps for u in mon.run.observed.unregistered] == [list(range(8))]


def test_plain_steps_mostly_take_the_short_way_between_records(monkeypatch):
    """The monitor asks its schedule (a full ``step()``, charged to its time budget) only
    around records: asking too early used to find the credit short by the cost of asking,
    ask again a few steps later, and spend the whole budget on asking (a full step every
    few steps, no extra record)."""
    from nndebug.monitor.monitor import Monitor
    full = []
    original = Monitor._decide_next
    monkeypatch.setattr(Monitor, "_decide_next",
                        lambda self, *args: full.append(1) or original(self, *args))
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with nd.watch(model, opt, overhead=0.2) as mon:      # a budget that recovers soon
        train(model, opt, steps=3000, mon=mon)
    recorded = len(mon.run.records)
    # each extra record: the full step that arms it and the one that closes it (about 2x);
    # asking too early made it about 3.5x
    assert recorded > 30 and len(full) <= 2.5 * recorded + 20, (len(full), recorded)


@pytest.mark.parametrize("as_number", [False, True, "on a device"])
def test_a_loss_given_as_a_number_takes_the_short_way_too(monkeypatch, as_number):
    """``mon.step(loss.item())`` is as common as ``mon.step(loss)``: both close plain steps
    the short way and keep the same losses; so does a loss left on a device (as on a GPU,
    here the CPU taken for one), whose values wait there until a check step copies them."""
    from nndebug.monitor.monitor import Monitor
    short = []
    original = Monitor._close_plain_step
    monkeypatch.setattr(Monitor, "_close_plain_step",
                        lambda self, *args: short.append(1) or original(self, *args))
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = data()
    given = []
    with nd.watch(model, opt) as mon:
        if as_number == "on a device":
            monkeypatch.setattr(mon.adapter, "on_host", lambda t: False)
            as_number = False
        for xb, yb in batches(x, y, 200):
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            given.append(loss.item())
            mon.step(loss.item() if as_number else loss)
    assert len(short) > 150
    assert list(mon.run.losses) == given

"""Long runs through the monitor: watch(max_history_mb=..., save_to=...), mon.save,
mon.state_dict()/load_state_dict() in a torch checkpoint (one history across a restart),
and a process killed with SIGKILL leaving its last complete save."""
import io
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import nndebug as nd
from nndebug.findings import Finding
from nndebug.runfile import RunFileError

torch = pytest.importorskip("torch")


def torch_setup(seed=0, dead=False):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    if dead:
        torch.nn.init.constant_(model[0].bias, -10.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(seed)
    data = [(torch.randn(32, 8, generator=g), torch.randint(0, 3, (32,), generator=g))
            for _ in range(8)]
    return model, opt, data


def train(mon, model, opt, data, steps, start=0, nan_at=None):
    loss_fn = torch.nn.CrossEntropyLoss()
    for i in range(start, start + steps):
        x, y = data[i % len(data)]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        if nan_at is not None and i == nan_at:
            loss = loss * float("nan")
        loss.backward()
        opt.step()
        mon.step(loss)


def checkpoint_round_trip(state):
    buffer = io.BytesIO()
    torch.save({"nndebug": state}, buffer)
    buffer.seek(0)
    return torch.load(buffer)["nndebug"]         # torch's default: weights_only=True


def test_a_resumed_run_keeps_one_history(tmp_path):
    path = tmp_path / "run.nndebug"
    model, opt, data = torch_setup()
    with nd.watch(model, opt, max_history_mb=8, save_to=path, save_every_s=60) as mon:
        train(mon, model, opt, data, 10)
    assert path.exists()
    saved = nd.load_run(path)
    assert saved.n_steps == 10 and isinstance(saved.report(), str)
    state = checkpoint_round_trip(mon.state_dict())
    with nd.watch(model, opt) as resumed:
        resumed.load_state_dict(state)
        train(resumed, model, opt, data, 3, start=10, nan_at=11)
    nan = [f for f in resumed.findings() if f.code == "NAN_LOSS"]
    assert nan and nan[0].step == 11
    steps, _ = resumed.run.loss_array()
    np.testing.assert_array_equal(steps, np.arange(13))
    assert resumed.run.n_steps == 13 and "13 steps" in resumed.report()


def test_a_resumed_run_checks_loss_jumps_against_the_losses_before_the_restart():
    """The jump check's recent range continues across a restart: a loss at the check step
    right after it is judged against the losses saved before (and those are not judged
    again)."""
    model, opt, data = torch_setup()
    with nd.watch(model, opt) as mon:
        for step in range(48):
            mon.step(1.0 + 0.01 * (step % 3))
    state = checkpoint_round_trip(mon.state_dict())
    with nd.watch(model, opt) as resumed:
        resumed.load_state_dict(state)
        assert resumed.loss_jumps._steps[-1] == 47 and resumed.loss_jumps.last_step == 47
        for step in range(48, 56):
            resumed.step(1.0 if step < 55 else 50.0)
        assert resumed.loss_jumps.jumps == [55]


def setup(framework, seed=0):
    """A small classifier whose first ReLU layer is dead (bias -10): DEAD_RELU to find."""
    if framework == "torch":
        model, opt, data = torch_setup(seed, dead=True)
        return model, opt, data, torch.nn.CrossEntropyLoss()
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as mopt
    mg.manual_seed(seed)
    model = mnn.Sequential(mnn.Linear(8, 16), mnn.ReLU(), mnn.Linear(16, 3))
    model[0].bias.data[...] = -10.0
    rng = np.random.default_rng(seed)
    data = [(mg.tensor(rng.normal(size=(32, 8)).astype(np.float32)), mg.tensor(rng.integers(0, 3, 32)))
            for _ in range(8)]
    return model, mopt.SGD(model.parameters(), lr=0.05), data, mnn.CrossEntropyLoss()


def train_any(mon, model, opt, data, loss_fn, start, stop):
    for i in range(start, stop):
        x, y = data[i % len(data)]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        mon.step(loss)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_run_split_by_a_restart_is_judged_like_one_run(framework):
    """Uninterrupted vs. a new monitor at step 40 loading the old one's state: the same
    curve, the same records, the same findings."""
    model, opt, data, loss_fn = setup(framework)
    with nd.watch(model, opt, overhead=None) as whole:
        train_any(whole, model, opt, data, loss_fn, 0, 80)
    model, opt, data, loss_fn = setup(framework)
    with nd.watch(model, opt, overhead=None) as first:
        train_any(first, model, opt, data, loss_fn, 0, 40)
    state = checkpoint_round_trip(first.state_dict())
    with nd.watch(model, opt, overhead=None) as second:
        second.load_state_dict(state)
        train_any(second, model, opt, data, loss_fn, 40, 80)
    for a, b in zip(second.run.loss_array(), whole.run.loss_array()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert [r.step for r in second.run.records] == [r.step for r in whole.run.records]
    codes = lambda m: sorted({f.code for f in m.findings()})  # noqa: E731
    assert codes(second) == codes(whole) and "DEAD_RELU" in codes(second)


def test_findings_from_before_the_restart_stay():
    model, opt, data = torch_setup()

    def probe(monitor, record):
        return [Finding("BATCH_MIXING", "error", "0", record.step, "Samples mix.", {"step": record.step})]
    with nd.watch(model, opt, probes=[probe], overhead=None) as mon:
        train(mon, model, opt, data, 6)
    assert "BATCH_MIXING" in {f.code for f in mon.findings()}
    state = checkpoint_round_trip(mon.state_dict())
    with nd.watch(model, opt, overhead=None) as resumed:
        resumed.load_state_dict(state)
        train(resumed, model, opt, data, 4, start=6)
    kept = [f for f in resumed.findings() if f.code == "BATCH_MIXING"]
    assert len(kept) == 1 and kept[0].step == 3


def test_load_state_dict_refuses_what_it_cannot_continue():
    model, opt, data = torch_setup()
    with nd.watch(model, opt) as mon:
        train(mon, model, opt, data, 3)
    state = mon.state_dict()
    with nd.watch(model, opt) as late:
        train(late, model, opt, data, 1)
        with pytest.raises(RuntimeError, match="before the first step"):
            late.load_state_dict(state)
    other = torch.nn.Sequential(torch.nn.Linear(8, 5), torch.nn.Linear(5, 3))
    with nd.watch(other) as mon2:
        with pytest.raises(ValueError, match="other trainable parameters"):
            mon2.load_state_dict(state)
        with pytest.raises(RunFileError, match="expects the dict returned by mon.state_dict"):
            mon2.load_state_dict({"model": 1})
        newer = dict(state, header=dict(state["header"], version=99), version=99)
        with pytest.raises(RunFileError, match="newer nndebug"):
            mon2.load_state_dict(newer)


def test_saves_come_at_most_every_save_every_s_and_on_close(tmp_path):
    model, opt, data = torch_setup()
    rare, often = tmp_path / "rare.nndebug", tmp_path / "often.nndebug"
    with nd.watch(model, opt, save_to=rare, save_every_s=3600) as mon:
        train(mon, model, opt, data, 5)
        assert not rare.exists()
    assert nd.load_run(rare).n_steps == 5
    page = nd.load_run(rare).save_html(tmp_path / "rare.html")       # as mon.save_html does
    assert "<html" in open(page, encoding="utf-8").read().lower()
    with nd.watch(model, opt, save_to=often, save_every_s=0) as mon:
        train(mon, model, opt, data, 5)
        assert nd.load_run(often).n_steps == 5           # saved while training
        assert mon.long_run.saves == 5
    on_demand = mon.save(tmp_path / "now.nndebug")
    assert nd.load_run(on_demand).n_steps == 5


def test_a_failing_save_never_stops_training(tmp_path):
    model, opt, data = torch_setup()
    (tmp_path / "a_file").write_text("not a folder")     # a missing folder is created; this
    with nd.watch(model, opt, save_to=tmp_path / "a_file" / "run.nndebug",  # one cannot be
                  save_every_s=0) as mon:
        train(mon, model, opt, data, 4)
    notes = [f for f in mon.findings() if f.code == "MONITOR_ERROR"]
    assert notes and "could not save the run" in notes[0].message
    assert mon.run.n_steps == 4


@pytest.mark.parametrize("bad", [dict(max_history_mb=0), dict(save_every_s=-1),
                                 dict(save_to=3), dict(max_history_mb="big")])
def test_bad_long_run_options_are_clear_errors(bad):
    model, _, _ = torch_setup()
    with pytest.raises((ValueError, TypeError), match="max_history_mb|save_every_s|save_to"):
        nd.watch(model, **bad)
    assert not model[0]._forward_hooks and not model[0]._forward_pre_hooks


def test_the_monitor_keeps_its_history_under_budget():
    """watch(max_history_mb=...) thins as it trains, and the zoo's findings do not change."""
    from nndebug.zoo import get
    for name in ("torch/dead-relu-bias", "minigrad/missing-zero-grad"):
        case = get(name)
        unlimited = case.run(max_history_mb=None)
        small = case.run(max_history_mb=0.15)
        assert small.run.compactions > 0 and len(small.run.records) < len(unlimited.run.records)
        assert small.run.history_bytes() <= 0.15 * 2 ** 20
        codes = lambda m: sorted({f.code for f in m.findings() if f.severity != "info"})  # noqa
        assert codes(small) == codes(unlimited) and case.expected in codes(small)


KILLED_RUN = textwrap.dedent("""
    import sys
    import numpy as np
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.optim as optim
    import nndebug as nd

    path = sys.argv[1]
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    x, y = mg.tensor(rng.normal(size=(64, 32)).astype(np.float32)), mg.tensor(rng.integers(0, 4, 64))
    mon = nd.watch(model, opt, overhead=None, max_history_mb=4, save_to=path, save_every_s=0)
    step = 0
    while True:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        mon.step(loss)                 # saves (save_every_s=0)
        step += 1
        if step == 3:
            print("saving", flush=True)
        if step >= 3:
            for _ in range(4):         # and more saves of the same run: it writes most of the time
                mon.save(path)
""")


def _temporaries(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def test_a_process_killed_at_any_moment_leaves_its_last_complete_save(tmp_path):
    """Runs that save at every step, killed (SIGKILL) at random moments one after the other,
    all saving to the same path: each kill leaves the last complete save loadable and at most
    one temporary file (the killed save's; the next run removes it on its first save)."""
    script = tmp_path / "killed_run.py"
    script.write_text(KILLED_RUN)
    rng = random.Random(0)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=root)
    path, left_behind, attempt = tmp_path / "run.nndebug", 0, 0
    # five kills, then more until one has landed mid-write (each does with p ~ 0.7)
    while attempt < 5 or (left_behind == 0 and attempt < 20):
        attempt += 1
        process = subprocess.Popen([sys.executable, str(script), str(path)], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = process.stdout.readline()             # the run has saved and goes on saving
            assert line.strip() == "saving", process.stderr.read()
            time.sleep(rng.uniform(0.0, 0.3))           # then a random moment, mid-write or not
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        saved = nd.load_run(path)                         # the last complete save, whole
        assert saved.n_steps >= 3 and len(saved.run.records) >= 1
        assert isinstance(saved.report(), str)
        temporaries = _temporaries(tmp_path)
        assert len(temporaries) <= 1, temporaries
        left_behind += len(temporaries)
    assert left_behind >= 1      # the test did kill saves mid-write


def test_a_save_removes_only_stale_temporaries_of_its_own_file(tmp_path):
    """The next save removes a dead writer's temporary of the same file, and nothing else:
    not a live writer's, not another file's, not a name of another pattern."""
    from nndebug import runfile
    model, opt, data = torch_setup()
    with nd.watch(model, opt) as mon:
        train(mon, model, opt, data, 2)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)                          # a process that has ended
    live_pid = os.getppid()                              # one that runs
    names = {"stale": f".run.nndebug.{dead_pid}-abc123.tmp",
             "live writer": f".run.nndebug.{live_pid}-def456.tmp",
             "other file": f".other.nndebug.{dead_pid}-abc123.tmp",
             "other pattern": f".run.nndebug.{dead_pid}.tmp",
             "user's file": "run.nndebug.tmp"}
    for name in names.values():
        (tmp_path / name).write_bytes(b"partial")
    mon.save(tmp_path / "run.nndebug")
    assert nd.load_run(tmp_path / "run.nndebug").n_steps == 2
    left = set(os.listdir(tmp_path))
    assert names["stale"] not in left
    assert {names[k] for k in ("live writer", "other file", "other pattern", "user's file")} <= left
    assert runfile.remove_stale_temporaries(str(tmp_path / "missing-folder"), "x") == []


def test_the_lightning_callback_keeps_one_history_across_a_resumed_fit(tmp_path):
    pl = pytest.importorskip("lightning.pytorch")
    import warnings

    from nndebug.integrations.lightning import NNDebugCallback
    from test_integrations import TinyClassifier, _data

    def fit(epochs, callback, resume_from=None):
        x, y = _data()
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
        saver = pl.callbacks.ModelCheckpoint(dirpath=tmp_path, filename="last")
        trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, logger=False,
                             enable_progress_bar=False, enable_model_summary=False,
                             callbacks=[callback, saver], num_sanity_val_steps=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trainer.fit(TinyClassifier(), loader, ckpt_path=resume_from)
        return trainer

    torch.manual_seed(0)
    first = NNDebugCallback(verbose=False)
    fit(2, first)
    assert first.monitor.run.n_steps == 12
    second = NNDebugCallback(verbose=False)
    trainer = fit(4, second, resume_from=str(tmp_path / "last.ckpt"))   # torch.load, Lightning's way
    assert trainer.global_step == 24 and second.monitor.run.n_steps == 24
    steps, _ = second.monitor.run.loss_array()
    np.testing.assert_array_equal(steps, np.arange(24))


# --- a restart keeps the findings: what the monitor observed and the batch fingerprints ------
class RestartingMonitor:
    """What ``nd.watch`` returns inside ``split_run``: a monitor that, after ``split`` steps,
    is checkpointed (``torch.save`` / ``torch.load``, weights_only), closed, and replaced by
    a fresh monitor of the same model that loads the state - a restart with a perfect model
    and data-loader checkpoint, in the case's own training loop."""

    def __init__(self, watch, split, args, kwargs):
        self._watch, self._split, self._args, self._kwargs = watch, split, args, kwargs
        self.current = watch(*args, **kwargs)
        self.first = None
        self._steps = 0

    def step(self, *args, **kwargs):
        self.current.step(*args, **kwargs)
        self._steps += 1
        if self._steps == self._split:
            state = checkpoint_round_trip(self.current.state_dict())
            self.current.close()
            self.first = self.current
            self.current = self._watch(*self._args, **self._kwargs)
            self.current.load_state_dict(state)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.current.close()
        return False

    def __getattr__(self, name):
        return getattr(self.current, name)


def split_run(case, split, monkeypatch):
    """Run a zoo case with a restart after ``split`` steps: (first monitor, resumed monitor)."""
    import nndebug.monitor
    made = []

    def restarting_watch(*args, **kwargs):
        made.append(RestartingMonitor(nndebug.monitor.watch, split, args, kwargs))
        return made[-1]
    monkeypatch.setattr(nd, "watch", restarting_watch, raising=False)
    case.run()
    monkeypatch.delattr(nd, "watch", raising=False)
    return made[0].first, made[0].current


def codes(monitor):
    return sorted({f.code for f in monitor.findings()})


@pytest.mark.parametrize("name", [
    "minigrad/seq-lstm-state-not-detached",   # HIDDEN_STATE_NOT_DETACHED: run.observed.graph_nodes
    "torch/seq-padding-not-masked",           # PADDING_NOT_MASKED: run.observed.loss_calls
    "torch/constant-init",                    # LOSS_AT_CHANCE early, gone by the end
    "minigrad/detached-graph"])
def test_a_zoo_case_restarted_halfway_gives_the_findings_of_the_whole_run(name, monkeypatch):
    from nndebug.zoo import get
    case = get(name)
    whole = codes(case.run())
    first, resumed = split_run(case, case.steps // 2, monkeypatch)
    assert resumed.run.n_steps == case.steps and first.run.n_steps == case.steps // 2
    assert codes(resumed) == whole
    if case.expected:
        assert case.expected in whole


def test_graph_growth_seen_before_the_restart_is_kept(monkeypatch):
    """The LSTM case measures its graph on the first recorded steps only: split after them,
    the finding needs what was observed before the restart."""
    from nndebug.zoo import get
    case = get("minigrad/seq-lstm-state-not-detached")
    first, resumed = split_run(case, 10, monkeypatch)
    before = first.run.observed.graph_nodes
    assert len(before) == 10 and resumed.run.observed.graph_nodes[:10] == before
    assert "HIDDEN_STATE_NOT_DETACHED" in codes(resumed)


def repeating_batches(framework, n_batches=8):
    """``n_batches`` distinct random batches, the same order every epoch (no reshuffle)."""
    rng = np.random.default_rng(0)
    arrays = [(rng.normal(size=(16, 8)).astype(np.float32), rng.integers(0, 3, 16))
              for _ in range(n_batches)]
    if framework == "torch":
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in arrays]
        return model, opt, data, torch.nn.CrossEntropyLoss()
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as mopt
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(8, 16), mnn.Tanh(), mnn.Linear(16, 3))
    data = [(mg.tensor(x), mg.tensor(y)) for x, y in arrays]
    return model, mopt.SGD(model.parameters(), lr=0.05), data, mnn.CrossEntropyLoss()


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_data_order_seen_across_a_restart_is_found(framework):
    """8 batches in the same order for 24 steps, restarted at step 12: neither half alone
    has seen an epoch twice; the fingerprints of both, in one run, have."""
    model, opt, data, loss_fn = repeating_batches(framework)
    with nd.watch(model, opt, overhead=None) as whole:
        train_any(whole, model, opt, data, loss_fn, 0, 24)
    model, opt, data, loss_fn = repeating_batches(framework)
    with nd.watch(model, opt, overhead=None) as first:
        train_any(first, model, opt, data, loss_fn, 0, 12)
    state = checkpoint_round_trip(first.state_dict())
    with nd.watch(model, opt, overhead=None) as resumed:
        resumed.load_state_dict(state)
        train_any(resumed, model, opt, data, loss_fn, 12, 24)
    assert "DATA_ORDER_REPEATS" in codes(whole) and "DATA_ORDER_REPEATS" not in codes(first)
    assert codes(resumed) == codes(whole)
    assert resumed.run.fingerprints == whole.run.fingerprints


def test_what_was_observed_survives_the_state_dict_and_the_run_file(tmp_path):
    """Loss calls, warnings, frozen tensors, unregistered parts, batch-norm batches and
    graph sizes come back equal (NaN, tuples and all), in a checkpoint and in a saved run."""
    torch.manual_seed(0)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.frozen = torch.nn.Linear(8, 16).requires_grad_(False)
            self.norm = torch.nn.BatchNorm1d(16)
            self.head = torch.nn.Linear(16, 3)
            self.loose = [torch.nn.Linear(3, 3)]        # not registered

        def forward(self, x):
            return self.loose[0](self.head(self.norm(self.frozen(x))))

    model = Model()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05)
    _, _, data = torch_setup()
    with nd.watch(model, opt, overhead=None, save_to=tmp_path / "run.nndebug") as mon:
        train(mon, model, opt, data, 6)
    observed = mon.run.observed
    assert observed.loss_calls and observed.frozen and observed.unregistered \
        and observed.norm_batches and observed.graph_nodes
    state = checkpoint_round_trip(mon.state_dict())
    fresh = Model()
    fresh.load_state_dict(model.state_dict())
    fresh.loose = model.loose
    with nd.watch(fresh, opt, overhead=None) as resumed:
        resumed.load_state_dict(state)
        assert as_json(resumed.run.observed) == as_json(observed)
        assert resumed.run.fingerprints == mon.run.fingerprints
        train(resumed, fresh, opt, data, 4, start=6)
        assert set(codes(mon)) <= set(codes(resumed))
        seen = [u for u in resumed.run.observed.unregistered if u.type == "Linear"]
        assert len(seen) == 1 and seen[0].steps[:6] == observed.unregistered[0].steps[:6] \
            and seen[0].steps[-1] == 9              # one entry, steps from both sides
    saved = nd.load_run(tmp_path / "run.nndebug")
    assert as_json(saved.run.observed) == as_json(observed)
    assert saved.run.fingerprints == mon.run.fingerprints


def as_json(observed):
    """NaN != NaN and tuples != lists: compare through the JSON form."""
    from nndebug.plain import plain
    return plain(observed.to_dict())


def test_rank_paths():
    from nndebug.monitor.long_run import process_rank, rank_path
    assert rank_path("run.nndebug", None) == rank_path("run.nndebug", 0) == "run.nndebug"
    assert rank_path("out/run.nndebug", 3) == "out/run.rank3.nndebug"
    assert rank_path("out.d/run", 1) == "out.d/run.rank1"
    assert process_rank() is None                  # no process group in this test process


def test_steps_whose_loss_had_no_graph_survive_a_round_trip():
    """NO_GRADIENT's evidence for a loss made to require grad by hand (graph_growth.py)."""
    from nndebug.observed import Observed
    from nndebug.runfile import _encode_observed, decode_observed
    observed = Observed()
    observed.leaf_losses.extend([0, 4, 8])
    assert decode_observed(_encode_observed(observed)).leaf_losses == [0, 4, 8]
    assert decode_observed({}).leaf_losses == []       # a file written before they were kept


def test_seeding_calls_and_new_optimizers_before_the_restart_count_after_it():
    """Two reseeds and two rebuilt optimizers before the checkpoint, two of each after it: a
    resumed run counts four of each, as one run would (three make a finding)."""
    model, opt, data = torch_setup()

    def train_rebuilding(mon, start, stop):
        nonlocal opt
        for i in range(start, stop):
            if i % 5 == 4:
                torch.manual_seed(123)                     # an evaluation that reseeds
                opt = torch.optim.Adam(model.parameters(), lr=1e-3)   # rebuilt every epoch
            x, y = data[i % len(data)]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            mon.step(loss)
    with nd.watch(model, opt, overhead=None) as first:
        train_rebuilding(first, 0, 10)
    state = checkpoint_round_trip(first.state_dict())
    with nd.watch(model, opt, overhead=None) as resumed:
        resumed.load_state_dict(state)
        train_rebuilding(resumed, 10, 20)
    observed = resumed.run.observed
    assert [step for step, _ in observed.seed_calls] == [4, 9, 14, 19]
    # the optimizer the resumed run starts with continues the checkpoint's: not a restart
    assert [row[0] for row in observed.optimizer_starts] == \
        [row[0] for row in first.run.observed.optimizer_starts] + [14, 19]
    assert {"RNG_RESEEDED", "OPTIMIZER_STATE_RESET"} <= {f.code for f in resumed.findings()}


def test_every_row_list_of_the_observations_is_continued_or_read_anew():
    """A new observation (a row list of ``Observed``) must say what a resumed monitor does
    with it: continue the saved rows (``long_run.CONTINUED``), keep those of the run's first
    start (``long_run.FIRST_START``) or read it anew (``long_run.READ_ANEW``). Forgotten,
    the resumed run silently loses what the first segment saw (it happened to three lists
    in two sessions)."""
    from nndebug.monitor.long_run import CONTINUED, FIRST_START, READ_ANEW
    from nndebug.observed import ROW_LISTS, STEP_LISTS
    undecided = [name for name in ROW_LISTS + STEP_LISTS
                 if name not in CONTINUED + FIRST_START + READ_ANEW]
    assert not undecided, \
        f"add each to long_run.CONTINUED, FIRST_START or READ_ANEW: {undecided}"
    assert len(set(CONTINUED) | set(FIRST_START) | set(READ_ANEW)) == \
        len(set(CONTINUED)) + len(set(FIRST_START)) + len(set(READ_ANEW))

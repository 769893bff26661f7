"""What reaches the loss: LOSS_SHAPE_MISMATCH, DOUBLE_SIGMOID, DOUBLE_SOFTMAX seen through the
loss call, and the framework's warnings kept as findings. Each check is tested alone on plain
data, then on a planted training run and its healthy twin, on both frameworks."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nndebug as nd
from nndebug.observed import LossCall, Observed, RaisedWarning
from nndebug.records import RunRecord
from nndebug.rules import diagnose
from nndebug.rules.loss_side import (broadcast_shape, shape_mismatch, shapes_from_warning,
                                     sigmoid_outputs)

torch = pytest.importorskip("torch")
nn = torch.nn

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def problems(mon):
    return [f for f in mon.findings() if f.severity in PROBLEMS]


def codes(mon):
    return {f.code for f in problems(mon)}


# --- the plain checks -----------------------------------------------------------------------
@given(st.lists(st.integers(1, 4), max_size=4), st.lists(st.integers(1, 4), max_size=4))
def test_broadcast_shape_agrees_with_numpy(a, b):
    try:
        expected = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        expected = None
    assert broadcast_shape(a, b) == expected


def test_shape_mismatch_names_the_cross_comparison():
    evidence = shape_mismatch((64, 1), (64,))
    assert evidence["broadcast_shape"] == [64, 64] and evidence["cross_pairs"]
    assert shape_mismatch((64,), (64,)) is None                  # same shape: fine
    assert shape_mismatch((64, 3), (64, 2)) is None              # the framework raises itself
    same_count = shape_mismatch((), (1,))                        # pairs up one to one
    assert same_count is not None and not same_count["cross_pairs"]


def test_fewer_predictions_than_targets_is_an_error_not_a_one_to_one_pairing():
    """(real-bug batch 137) A graph readout called without its batch index pools the whole
    batch into one row: (1, 1) against (32, 1) pairs 32 values, as many as the targets,
    but one prediction stands for every sample; a constant target of shape (1,) against
    (32, 1) outputs is the same target for every sample, and stays a shape note."""
    pooled = shape_mismatch((1, 1), (32, 1))
    assert pooled["outputs_shared"] and not pooled["cross_pairs"]
    shared_target = shape_mismatch((32, 1), (1,))
    assert not shared_target["outputs_shared"] and not shared_target["cross_pairs"]
    mon = _regress_with(lambda out: out.mean(0, keepdim=True))
    found = [f for f in mon.findings() if f.code == "LOSS_SHAPE_MISMATCH"]
    assert found and found[0].severity == "error", mon.findings()
    assert "fewer predictions than targets" in found[0].message


def _regress_with(reshape, steps=30):
    import nndebug as nd
    torch.manual_seed(0)
    x = torch.randn(256, 4)
    y = (x[:, :1] * 2 + x[:, 1:2])
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(steps):
                rows = torch.randint(0, 256, (32,))
                loss = torch.nn.functional.mse_loss(reshape(model(x[rows])), y[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


def test_shapes_are_read_from_torch_own_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.nn.functional.mse_loss(torch.zeros(5, 1), torch.zeros(5))
    message = str(caught[0].message)
    assert shapes_from_warning(message) == ((5, 1), (5,))
    assert shapes_from_warning("some other warning") is None


def call(step, low, high, loss="BCEWithLogitsLoss"):
    return LossCall(step, loss, (8, 1), (8, 1), output_min=low, output_max=high)


def test_sigmoid_outputs_needs_values_strictly_inside_zero_one():
    assert sigmoid_outputs([call(0, 0.2, 0.9), call(1, 0.1, 0.8)])
    assert not sigmoid_outputs([call(0, 0.2, 0.9), call(1, -0.5, 0.8)])   # logits: any sign
    assert not sigmoid_outputs([call(0, 0.0, 0.9), call(1, 0.0, 0.8)])    # ReLU touches 0
    assert sigmoid_outputs([call(0, 0.2, 0.9)]) is None                    # too little evidence


def test_rules_on_a_hand_made_run():
    run = RunRecord(observed=Observed(loss_calls=[
        LossCall(s, "MSELoss", (32, 1), (32,), 0.0, 1.0) for s in range(3)]))
    found = {f.code: f for f in diagnose(run)}
    assert found["LOSS_SHAPE_MISMATCH"].severity == "error"
    assert found["LOSS_SHAPE_MISMATCH"].evidence["broadcast_shape"] == [32, 32]
    healthy = RunRecord(observed=Observed(loss_calls=[
        LossCall(s, "MSELoss", (32,), (32,), 0.0, 1.0) for s in range(3)]))
    assert not [f for f in diagnose(healthy) if f.code == "LOSS_SHAPE_MISMATCH"]


# --- planted runs and their twins: torch --------------------------------------------------------
def regression(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    return x, x[:, 0] - 2 * x[:, 1]


def binary(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).float()


def train_torch(model, loss_of, data, steps=40, lr=0.05, **watch):
    x, y = data
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, overhead=None, **watch) as mon:
        for i in range(steps):
            j = (i * 32) % (len(x) - 32)
            optimizer.zero_grad()
            loss = loss_of(mon, model(x[j:j + 32]), y[j:j + 32])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_mse_output_n1_against_target_n_is_found_through_the_loss_module():
    torch.manual_seed(0)
    mse = nn.MSELoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the console warning is not what is tested
        mon = train_torch(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
                          lambda mon, out, y: mse(out, y), regression())
    found = {f.code: f for f in problems(mon)}
    mismatch = found["LOSS_SHAPE_MISMATCH"]
    assert mismatch.severity == "error" and mismatch.step == 0 and mismatch.where == "MSELoss"
    assert mismatch.evidence["output_shape"] == [32, 1] and mismatch.evidence["target_shape"] == [32]
    torch.manual_seed(0)
    twin = train_torch(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
                       lambda mon, out, y: mse(out.squeeze(1), y), regression())
    assert not problems(twin)


def test_functional_mse_mismatch_is_found_through_the_framework_warning():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        mon = train_torch(model, lambda mon, out, y: torch.nn.functional.mse_loss(out, y),
                          regression(), steps=35)
    mismatch = next(f for f in problems(mon) if f.code == "LOSS_SHAPE_MISMATCH")
    assert mismatch.evidence["seen_through"] in ("framework warning", "loss call")
    assert mon.run.observed.warnings[0].step == 0
    assert "target size" in mon.run.observed.warnings[0].message


def sigmoid_model(sigmoid):
    layers = [nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)] + ([nn.Sigmoid()] if sigmoid else [])
    return nn.Sequential(*layers)


def test_sigmoid_before_bce_with_logits_torch_and_its_twin():
    bce = nn.BCEWithLogitsLoss()
    for sigmoid in (True, False):
        torch.manual_seed(0)
        mon = train_torch(sigmoid_model(sigmoid), lambda mon, out, y: bce(out.squeeze(1), y),
                          binary(), loss_fn=bce)
        found = {f.code: f for f in problems(mon)}
        if sigmoid:
            assert found["DOUBLE_SIGMOID"].severity == "error"
            assert found["DOUBLE_SIGMOID"].where == "3"          # the model's Sigmoid layer
        else:
            assert not found


def test_a_plain_loss_function_is_seen_through_mon_loss_fn():
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    torch.manual_seed(0)
    mon = train_torch(sigmoid_model(True), lambda mon, out, y: mon.loss_fn(out.squeeze(1), y),
                      binary(), loss_fn=bce)
    assert "DOUBLE_SIGMOID" in codes(mon)
    assert mon.run.observed.loss_calls[0].loss == "binary_cross_entropy_with_logits"


def test_softmax_outside_the_model_before_cross_entropy_and_its_twin():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(512, 8, generator=g)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    ce = nn.CrossEntropyLoss()
    for softmax in (True, False):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
        mon = train_torch(model, lambda mon, out, y: ce(out.softmax(1) if softmax else out, y),
                          (x, y), steps=60, lr=0.1)
        assert ("DOUBLE_SOFTMAX" in codes(mon)) == softmax


def test_targets_reaching_the_loss_are_kept_for_probes():
    mse = nn.MSELoss()
    torch.manual_seed(0)
    x, y = regression()
    mon = train_torch(nn.Linear(8, 1), lambda mon, out, t: mse(out.squeeze(1), t), (x, y),
                      steps=5)
    step, target = mon.run.observed.targets[0]
    assert step == 0 and torch.equal(target, y[0:32])


class Warns(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        warnings.warn("something odd in forward", UserWarning)
        return self.fc(x)


def test_a_warning_raised_in_a_watched_step_becomes_a_finding_with_step_and_module():
    model = nn.Sequential(nn.Linear(8, 8), Warns())
    before = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        mon = train_torch(model, lambda mon, out, y: ((out.squeeze(1) - y) ** 2).mean(),
                          regression(), steps=3)
    assert warnings.showwarning is before                 # put back on close
    found = [f for f in mon.findings() if f.code == "FRAMEWORK_WARNING"]
    assert found and found[0].severity == "info" and found[0].step == 0
    assert found[0].where == "1"                          # the module whose forward warned


# --- minigrad: the loss tensor's graph --------------------------------------------------------
def train_minigrad(model, loss_of, x, y, steps=40, lr=0.05):
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, overhead=None) as mon:
        for i in range(steps):
            j = (i * 32) % (len(x.data) - 32)
            optimizer.zero_grad()
            loss = loss_of(model(x[j:j + 32]), y[j:j + 32])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_sigmoid_before_bce_with_logits_minigrad_and_its_twin():
    xt, yt = binary()
    x, y = mg.tensor(xt.numpy()), mg.tensor(yt.numpy())
    bce = mnn.BCEWithLogitsLoss()
    for sigmoid in (True, False):
        mg.manual_seed(0)
        layers = [mnn.Linear(8, 16), mnn.ReLU(), mnn.Linear(16, 1)] + \
            ([mnn.Sigmoid()] if sigmoid else [])
        mon = train_minigrad(mnn.Sequential(*layers),
                             lambda out, t: bce(out.reshape(-1), t), x, y)
        if sigmoid:
            assert "DOUBLE_SIGMOID" in codes(mon)
        else:
            assert not problems(mon)


def test_hand_made_warning_of_another_kind_is_info_only():
    run = RunRecord(observed=Observed(warnings=[RaisedWarning(3, "DeprecationWarning", "old")]))
    found = [f for f in diagnose(run) if f.code == "FRAMEWORK_WARNING"]
    assert found[0].severity == "info" and found[0].step == 3


# --- nothing falls between recorded steps: the loss of every step -----------------------------
def test_first_jump_finds_a_blow_up_and_ignores_ordinary_noise():
    from nndebug.monitor.loss_jumps import first_jump
    rng = np.random.default_rng(0)
    healthy = list(2.3 * np.exp(-np.arange(300) / 100) + 0.1 * rng.standard_normal(300) ** 2)
    assert first_jump(healthy) is None
    blow_up = healthy[:35] + [healthy[34] * 2.3 ** k for k in range(1, 30)]
    assert first_jump(blow_up) in (35, 36)
    assert first_jump(blow_up[:35] + [float("nan")] * 5) is None     # NaN escalates by itself


def test_a_jump_records_the_next_steps_and_only_on_fixed_steps():
    from nndebug.monitor.loss_jumps import LossJumps
    from nndebug.monitor.schedule import JUMP_RECORDS, Schedule
    jumps = LossJumps()
    assert [s for s in range(20) if jumps.is_check_step(s)] == [7, 15]
    schedule = Schedule(every=1, overhead=0.05)
    schedule.loss_jumped()
    recorded = [schedule.next_is_recorded(s, 0.01, False) for s in range(101, 101 + 2 * JUMP_RECORDS)]
    assert all(recorded[:JUMP_RECORDS])


def test_a_blow_up_between_sparse_records_is_recorded_while_still_finite():
    """The loss overflows at step 78; default records alone are 32 and 64. The jump seen
    at step 38 records the steps after it while the values are finite, and the cause
    (a too-high learning rate, exploding gradients) is named, not a symptom of the NaN."""
    pytest.importorskip("benchmarks.real_bugs")
    from benchmarks.real_bugs import warmup_to_unstable_learning_rate as case
    mon = case.run()
    losses = np.array(mon.run.losses)
    first_nan = int(np.flatnonzero(~np.isfinite(losses))[0])
    jump = mon.loss_jumps.jumps[0]
    assert jump < first_nan - 8
    finite_records = [r.step for r in mon.run.records if jump < r.step < first_nan]
    assert len(finite_records) >= 8
    seen_at = mon.loss_jumps.next_check_step(jump)       # the check step that saw the jump
    assert finite_records[:8] == list(range(seen_at + 1, seen_at + 9))   # recorded at once
    codes_found = [f.code for f in problems(mon)]
    assert {"LR_TOO_HIGH", "EXPLODING_GRADIENTS"} & set(codes_found)
    assert "VANISHING_GRADIENTS" not in codes_found


def _jump_run(steps, sinks=()):
    """A model trained on CPU losses that blow up from step 40 on (the loss is made up:
    the jump check reads only the values)."""
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    mon = nd.watch(model, opt, sinks=list(sinks))
    x = torch.randn(8, 3)
    for step in range(steps):
        opt.zero_grad()
        out = model(x).pow(2).mean()
        out.backward()
        opt.step()
        mon.step(1.0 + 0.01 * (step % 3) if step < 40 else 3.0 ** (step - 38))
    return mon


def test_host_losses_reach_the_jump_check_before_they_reach_the_run():
    """On the CPU the losses of plain steps go to the jump check as they are and move into
    the run only with a record or when the run is read: the jump is seen at the same check
    step, and the curve holds every loss once, in order, when read."""
    from nndebug.monitor.loss_jumps import LOSS_CHECK_EVERY
    mon = _jump_run(70)
    assert mon.loss_jumps.jumps and mon.loss_jumps.jumps[0] in (40, 41)
    seen_at = mon.loss_jumps.next_check_step(mon.loss_jumps.jumps[0])
    assert [r.step for r in mon.run.records if r.step > 32][:3] == \
        [seen_at + 1, seen_at + 2, seen_at + 3]
    assert len(mon._pending["train"]) < LOSS_CHECK_EVERY * 8    # waiting, not yet in the run
    mon.close()
    assert list(mon.run.loss_steps) == list(range(70))
    assert len(mon.loss_jumps._steps) == len(set(mon.loss_jumps._steps))   # each loss once


def test_a_sink_that_wants_losses_gets_them_at_every_check_step():
    from nndebug.monitor.loss_jumps import LOSS_CHECK_EVERY
    from nndebug.monitor.sinks import Sink

    class Losses(Sink):
        def __init__(self):
            self.calls = []

        def on_losses(self, run, steps, values, curve):
            self.calls.append(list(steps))
    sink = Losses()
    mon = _jump_run(3 * LOSS_CHECK_EVERY + 3, sinks=[sink])
    arrived = [s for call in sink.calls for s in call]
    assert arrived == list(range(3 * LOSS_CHECK_EVERY))     # the newest 3 still wait
    mon.close()


def test_loss_jumps_observe_each_step_once():
    from nndebug.monitor.loss_jumps import LossJumps
    jumps = LossJumps()
    jumps.observe([0, 1, 2], [1.0, 1.0, 1.0])
    jumps.observe([1, 2, 3, 4], [1.0, 1.0, 2.0, 2.0])
    jumps.observe([], [])
    assert jumps._steps == [0, 1, 2, 3, 4] and jumps._losses == [1.0, 1.0, 1.0, 2.0, 2.0]


@pytest.mark.parametrize("mse, seen_as", [(mnn.functional.mse_loss, "mse_loss"),  # the graph
                                           (mnn.MSELoss(), "MSELoss")])   # global module hooks
def test_minigrad_mse_mismatch_is_read_off_the_loss_graph_and_its_twin(mse, seen_as):
    xt, yt = regression()
    x, y = mg.tensor(xt.numpy()), mg.tensor(yt.numpy())
    for squeeze in (False, True):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 16), mnn.ReLU(), mnn.Linear(16, 1))
        mon = train_minigrad(model, lambda out, t: mse(out.reshape(-1) if squeeze else out, t),
                             x, y)
        if squeeze:
            assert not problems(mon)
        else:
            finding = next(f for f in problems(mon) if f.code == "LOSS_SHAPE_MISMATCH")
            assert finding.evidence["broadcast_shape"] == [32, 32]
            assert finding.where == seen_as


def test_minigrad_softmax_before_cross_entropy_is_seen_on_the_loss_graph_and_its_twin():
    g = np.random.default_rng(0)
    xs = g.standard_normal((512, 8)).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0).astype(np.int64)
    x, y = mg.tensor(xs), mg.tensor(ys)
    ce = mnn.CrossEntropyLoss()
    for softmax in (True, False):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 3))
        mon = train_minigrad(model, lambda out, t: ce(out.softmax(1) if softmax else out, t),
                             x, y, steps=60, lr=0.1)
        assert ("DOUBLE_SOFTMAX" in codes(mon)) == softmax


def test_softmax_then_log_into_nll_is_healthy_and_softmax_into_cross_entropy_is_not():
    """A model ending in Softmax is right for NLLLoss after a log (the loss it expects):
    near chance that loss also lies in the double-softmax band, so the loss call seen must
    decide (real-bug benchmark: softmax_over_the_batch's fixed twin). Both frameworks."""
    g = np.random.default_rng(0)
    xs = g.standard_normal((512, 8)).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0).astype(np.int64)
    for loss_name in ("nll after log", "cross entropy"):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3), nn.Softmax(dim=1))
        nll, ce = nn.NLLLoss(), nn.CrossEntropyLoss()
        loss_of = (lambda mon, p, y: nll(torch.log(p), y)) if loss_name == "nll after log" \
            else (lambda mon, p, y: ce(p, y))
        mon = train_torch(model, loss_of, (torch.from_numpy(xs), torch.from_numpy(ys)),
                          steps=60, lr=0.02)     # slow: most judged steps near chance
        assert ("DOUBLE_SOFTMAX" in codes(mon)) == (loss_name == "cross entropy"), loss_name
        if loss_name == "nll after log":
            assert not problems(mon)
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 3),
                               mnn.Softmax(dim=1))
        mnll, mce = mnn.NLLLoss(), mnn.CrossEntropyLoss()
        loss_of = (lambda p, t: mnll(p.log(), t)) if loss_name == "nll after log" \
            else (lambda p, t: mce(p, t))
        mon = train_minigrad(model, loss_of, mg.tensor(xs), mg.tensor(ys), steps=60, lr=0.02)
        assert ("DOUBLE_SOFTMAX" in codes(mon)) == (loss_name == "cross entropy"), loss_name
        if loss_name == "nll after log":
            assert not problems(mon)


def test_a_loss_made_to_require_grad_by_hand_is_no_gradient_and_its_twin():
    """`loss.requires_grad = True` silences 'does not require grad' and trains nothing: the
    loss has no graph (real-bug benchmark: loss_requires_grad_forced). Both frameworks; the
    twin computes the forward with gradients on."""
    g = np.random.default_rng(0)
    xs = g.standard_normal((512, 8)).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0).astype(np.int64)
    for cut in (True, False):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
        ce = nn.CrossEntropyLoss()

        def torch_loss(mon, out, y):
            loss = ce(out.detach() if cut else out, y)
            if cut:
                loss.requires_grad = True
            return loss
        mon = train_torch(model, torch_loss, (torch.from_numpy(xs), torch.from_numpy(ys)),
                          steps=40, lr=0.1)
        found = {f.code: f for f in problems(mon)}
        assert ("NO_GRADIENT" in found) == cut, found
        if cut:
            assert found["NO_GRADIENT"].severity == "error" and mon.run.observed.leaf_losses
        else:
            assert not found
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 3))
        mce = mnn.CrossEntropyLoss()

        def minigrad_loss(out, t):
            loss = mce(out.detach() if cut else out, t)
            if cut:
                loss.requires_grad = True
            return loss
        mon = train_minigrad(model, minigrad_loss, mg.tensor(xs), mg.tensor(ys), steps=40, lr=0.1)
        assert ("NO_GRADIENT" in codes(mon)) == cut, codes(mon)
        if not cut:
            assert not problems(mon)


def test_floored_units_counts_classes_cut_at_a_floor_not_masked_or_distinct_ones():
    from nndebug.monitor.loss_capture import floored_scores

    def floored(scores):
        rows, units = floored_scores(scores.numpy())
        return float(rows), int(units)
    g = torch.Generator().manual_seed(0)
    z = torch.randn(64, 10, generator=g)
    z[:, 3] = -5.0 - torch.rand(64, generator=g)           # class 3 below zero for every sample
    rows, units = floored(torch.relu(z))                    # logits floored at 0
    assert rows == 1.0 and units == 1
    half = torch.relu(z)
    half[::2] = z[::2]                                      # every other row not floored
    assert floored(half) == (0.5, 0)                        # no class at the floor in all rows
    assert floored(torch.log_softmax(torch.relu(z), dim=1)) == (rows, units)   # after log_softmax
    assert floored(z) == (0.0, 0)                           # distinct scores never tie
    masked = z.clone()
    masked[:, [3, 7]] = float("-inf")                        # invalid classes masked out
    assert floored(masked) == (0.0, 0)
    masked[:, [3, 7]] = -1e9
    assert floored(torch.log_softmax(masked, dim=1)) == (0.0, 0)


def test_relu_on_the_logits_is_dead_relu_on_both_frameworks_and_the_twins_are_silent():
    """A rectifier on the logits as a function call (no ReLU layer to measure): the class
    scores that reach the loss sit at a tied floor (real-bug benchmark: relu_before_softmax)."""
    g = np.random.default_rng(0)
    xs = g.standard_normal((512, 8)).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0).astype(np.int64) + \
        2 * (xs[:, 2] > 0).astype(np.int64)
    for relu in (True, False):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 5))
        mon = train_torch(model, lambda mon, out, y: nn.functional.nll_loss(
            torch.log_softmax(torch.relu(out) if relu else out, dim=1), y),
            (torch.from_numpy(xs), torch.from_numpy(ys)), steps=40, lr=0.02)
        found = {f.code: f for f in problems(mon)}
        assert ("DEAD_RELU" in found) == relu, found
        if not relu:
            assert not found
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 5))
        ce = mnn.CrossEntropyLoss()
        mon = train_minigrad(model, lambda out, t: ce(out.relu() if relu else out, t),
                             mg.tensor(xs), mg.tensor(ys), steps=40, lr=0.02)
        assert ("DEAD_RELU" in codes(mon)) == relu, codes(mon)
        if not relu:
            assert not problems(mon)


def _first_jump_window_by_window(losses, start=0):
    """The definition of ``first_jump``, checked window by window with no shortcut."""
    from nndebug.monitor import loss_jumps as lj
    for i in range(max(start, lj.JUMP_MIN_HISTORY), len(losses)):
        value = losses[i]
        if not math.isfinite(value):
            continue
        history = [v for v in losses[max(0, i - lj.JUMP_WINDOW):i] if math.isfinite(v)]
        if len(history) < lj.JUMP_MIN_HISTORY:
            continue
        high, low = max(history), min(history)
        median = sorted(history)[len(history) // 2]
        if value > high + lj.JUMP_RANGES * (high - low) and value > lj.JUMP_RATIO * abs(median):
            return i
        recent = history[len(history) - (lj.CLIMB_RECENT - 1):] + [value]
        earlier = history[:len(history) - (lj.CLIMB_RECENT - 1)]
        if value > high and len(earlier) >= lj.JUMP_MIN_HISTORY:
            middle = sorted(recent)[len(recent) // 2]
            if middle > max(earlier) and \
                    middle > lj.CLIMB_RATIO * abs(sorted(earlier)[len(earlier) // 2]):
                return i
    return None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(1.0, 2.0), min_size=0, max_size=48),
       st.lists(st.floats(0.5, 4.0), min_size=1, max_size=12),
       st.sampled_from([None, float("nan"), float("inf")]), st.integers(0, 60))
def test_first_jump_takes_its_shortcut_only_where_no_window_could_jump(earlier, newest, odd,
                                                                      where):
    """``first_jump`` first compares the newest losses with the losses every window shares;
    it answers exactly what checking each window on its own answers (the newest losses
    range from below the earlier ones to twice their maximum: around the bar; some runs
    hold a NaN or Inf somewhere)."""
    from nndebug.monitor.loss_jumps import first_jump
    losses = earlier + newest
    if odd is not None:
        losses[where % len(losses)] = odd
    start = len(earlier)
    assert first_jump(losses, start) == _first_jump_window_by_window(losses, start)

"""find_lr: sweeps with the user's optimizer, restores everything bit for bit, and its
suggestion rules do what their descriptions say."""
import copy
import csv
import math

import numpy as np
import pytest

import nndebug as nd
from nndebug.probes import lr_finder
from nndebug.probes.lr_finder import (suggest_lr, suggest_minimum_over_10, suggest_steepest,
                                      suggest_valley)

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import minigrad.optim as moptim  # noqa: E402


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def torch_task(seed=0, n=256, dropout=False, batchnorm=False):
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(8, 32)]
    if batchnorm:
        layers.append(torch.nn.BatchNorm1d(32))
    layers.append(torch.nn.ReLU())
    if dropout:
        layers.append(torch.nn.Dropout(0.2))
    layers.append(torch.nn.Linear(32, 2))
    model = torch.nn.Sequential(*layers)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
    batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, n, 32)]
    return model, torch.nn.CrossEntropyLoss(), batches


def minigrad_task(seed=0, n=256):
    mg.manual_seed(seed)
    model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 2))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64)
    batches = [(mg.tensor(x[i:i + 32]), mg.tensor(y[i:i + 32])) for i in range(0, n, 32)]
    return model, mnn.CrossEntropyLoss(), batches


def take_steps(model, optimizer, loss_fn, batches, k=3):
    """Give the optimizer real state (momentum buffers, Adam moments) before the sweep."""
    for inputs, targets in batches[:k]:
        optimizer.zero_grad()
        loss_fn(model(inputs), targets).backward()
        optimizer.step()


def torch_optimizer_state(opt):
    return copy.deepcopy(opt.state_dict())


def assert_same_torch_optimizer_state(a, b):
    assert a["param_groups"] == b["param_groups"]
    assert a["state"].keys() == b["state"].keys()
    for key in a["state"]:
        for name, value in a["state"][key].items():
            other = b["state"][key][name]
            if isinstance(value, torch.Tensor):
                assert value.dtype == other.dtype and torch.equal(value, other), name
            else:
                assert value == other, name


# --- state restored bit for bit ------------------------------------------------------------

@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_torch_model_optimizer_and_rng_restored_bit_for_bit(kind):
    model, loss_fn, batches = torch_task(dropout=True, batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.123, momentum=0.9, weight_decay=1e-4) \
        if kind == "sgd" else torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.8, 0.95))
    take_steps(model, opt, loss_fn, batches)
    model.eval()
    adapter = nd.adapt(model)
    state = adapter.capture_state()                     # params, buffers, grads, modes, hooks, RNG
    before = torch_optimizer_state(opt)
    res = nd.find_lr(model, loss_fn, batches, optimizer=opt, steps=60)
    assert math.isfinite(res.suggestion) and 1e-7 <= res.suggestion <= 10
    assert adapter.state_differences(state) == []
    assert_same_torch_optimizer_state(torch_optimizer_state(opt), before)
    assert opt.param_groups[0]["lr"] == before["param_groups"][0]["lr"]


def test_minigrad_model_optimizer_and_rng_restored_bit_for_bit():
    model, loss_fn, batches = minigrad_task()
    opt = moptim.Adam(model.parameters(), lr=0.01, betas=(0.85, 0.99))
    take_steps(model, opt, loss_fn, batches)
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    before = copy.deepcopy(opt.state_dict())
    res = nd.find_lr(model, loss_fn, batches, optimizer=opt, steps=60)
    assert math.isfinite(res.suggestion)
    assert adapter.state_differences(state) == []
    after = opt.state_dict()
    assert after["param_groups"] == before["param_groups"]
    flat_a, flat_b = _flatten(after["state"]), _flatten(before["state"])
    assert flat_a.keys() == flat_b.keys()
    assert all(np.array_equal(flat_a[k], flat_b[k]) for k in flat_a)


def _flatten(tree, prefix=""):
    out = {}
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.update(_flatten(v, f"{prefix}/{k}"))
    elif isinstance(tree, (list, tuple)):
        for i, v in enumerate(tree):
            out.update(_flatten(v, f"{prefix}/{i}"))
    else:
        out[prefix] = np.asarray(tree)
    return out


class FussyOptimizer(torch.optim.SGD):
    """An optimizer whose constructor cannot be called with param groups: the sweep must
    fall back to the user's own optimizer and restore it."""

    def __init__(self, model, learning_rate):
        super().__init__(model.parameters(), lr=learning_rate, momentum=0.5)


def test_optimizer_that_cannot_be_rebuilt_is_used_in_place_and_restored():
    model, loss_fn, batches = torch_task()
    opt = FussyOptimizer(model, 0.05)
    take_steps(model, opt, loss_fn, batches)
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    before = torch_optimizer_state(opt)
    res = nd.find_lr(model, loss_fn, batches, optimizer=opt, steps=40)
    assert any("could not be rebuilt" in n for n in res.notes)
    assert len(res.lrs) >= 10
    assert adapter.state_differences(state) == []
    assert_same_torch_optimizer_state(torch_optimizer_state(opt), before)


def test_state_restored_when_the_loss_function_raises():
    model, _, batches = torch_task()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    calls = []

    def broken_loss(output, target):
        calls.append(1)
        if len(calls) > 5:
            raise RuntimeError("boom")
        return torch.nn.functional.cross_entropy(output, target)

    with pytest.raises(RuntimeError, match="boom"):
        nd.find_lr(model, broken_loss, batches, optimizer=opt, steps=20)
    assert adapter.state_differences(state) == []
    assert opt.state_dict()["state"] == {} and opt.param_groups[0]["lr"] == 0.1


# --- the user's optimizer is what sweeps ------------------------------------------------------

class RecordingSGD(torch.optim.SGD):
    seen = []

    def step(self, closure=None):
        RecordingSGD.seen.append([(g["lr"], g["momentum"], g["weight_decay"], g["nesterov"])
                                  for g in self.param_groups])
        return super().step(closure)


def test_sweep_uses_the_optimizer_class_hyper_parameters_and_group_ratios():
    model, loss_fn, batches = torch_task()
    RecordingSGD.seen = []
    opt = RecordingSGD([{"params": model[0].parameters()},
                        {"params": model[2].parameters(), "lr": 0.02, "weight_decay": 0.0}],
                       lr=0.01, momentum=0.8, nesterov=True, weight_decay=1e-3)
    res = nd.find_lr(model, loss_fn, batches, optimizer=opt, start_lr=1e-5, end_lr=1e-2, steps=25)
    assert len(RecordingSGD.seen) == 25 == len(res.lrs)
    for (lr0, m0, wd0, n0), (lr1, m1, wd1, n1) in RecordingSGD.seen:
        assert (m0, wd0, n0) == (0.8, 1e-3, True) and (m1, wd1, n1) == (0.8, 0.0, True)
        assert lr1 == pytest.approx(2 * lr0)                  # the groups keep their lr ratio
    swept = [groups[0][0] for groups in RecordingSGD.seen]
    np.testing.assert_allclose(swept, res.lrs)
    np.testing.assert_allclose(res.lrs, np.geomspace(1e-5, 1e-2, 25))   # exponential sweep
    assert res.optimizer == "RecordingSGD"
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[1]["lr"] == 0.02


def test_the_suggestion_follows_the_optimizer():
    """Adam wants a far smaller rate than plain SGD, momentum a smaller one than plain SGD:
    a sweep with plain SGD whatever the user trains with would be wrong by these factors."""
    from minigrad.data import load_digits
    x, y = load_digits()
    x, y = torch.tensor(x[:640], dtype=torch.float32), torch.tensor(y[:640])
    batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 640, 32)]
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    loss_fn = torch.nn.CrossEntropyLoss()

    def suggestion(opt):
        return nd.find_lr(model, loss_fn, batches, optimizer=opt).suggestion

    adam = suggestion(torch.optim.Adam(model.parameters()))
    momentum = suggestion(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    plain = suggestion(torch.optim.SGD(model.parameters(), lr=0.1))
    assert plain > 5 * adam and plain > 1.5 * momentum > 1.5 * adam, (adam, momentum, plain)


def test_default_optimizer_is_sgd_with_momentum_and_sweep_stops_on_divergence():
    model, loss_fn, batches = torch_task()
    res = nd.find_lr(model, loss_fn, batches)
    assert res.optimizer == "SGD(momentum=0.9)"
    assert res.diverged and len(res.lrs) < 100 and res.stopped_at == len(res.lrs) - 1
    finite = [v for v in res.losses if math.isfinite(v)]
    assert not math.isfinite(res.losses[-1]) or res.losses[-1] > 4 * min(finite)
    assert len(res.raw_losses) == len(res.losses) == len(res.fixed_batch_losses) == len(res.lrs)


def test_a_loss_that_never_falls_gives_no_suggestion_and_says_why():
    model, _, batches = torch_task()

    def flat_loss(output, target):
        return (output * 0.0).sum() + 1.0

    res = nd.find_lr(model, flat_loss, batches, steps=30)
    assert math.isnan(res.suggestion)
    assert any("never fell" in n for n in res.notes)
    assert "no suggestion" in str(res)


# --- batches ----------------------------------------------------------------------------------

def test_batches_are_cycled_from_lists_and_one_shot_generators():
    model, loss_fn, batches = torch_task(n=96)             # 3 batches
    kwargs = dict(start_lr=1e-6, end_lr=1e-4, steps=20)
    from_list = nd.find_lr(model, loss_fn, batches, **kwargs)
    from_gen = nd.find_lr(model, loss_fn, (b for b in batches), **kwargs)
    assert len(from_list.lrs) == len(from_gen.lrs) == 20
    assert from_list.raw_losses == from_gen.raw_losses           # same batches, same order


def test_numpy_batches_work_on_both_frameworks():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 8)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    for model, loss_fn in ((torch_task()[0], torch.nn.CrossEntropyLoss()),
                           (minigrad_task()[0], mnn.CrossEntropyLoss())):
        res = nd.find_lr(model, loss_fn, [(x, y)] * 30, steps=30, start_lr=1e-4, end_lr=1.0)
        assert len(res.lrs) >= 10 and all(math.isfinite(v) for v in res.raw_losses[:10])


def test_bad_arguments_get_clear_errors():
    model, loss_fn, batches = torch_task()
    x, y = batches[0]
    with pytest.raises(TypeError, match=r"one \(inputs, targets\) pair itself"):
        nd.find_lr(model, loss_fn, (x, y))
    with pytest.raises(TypeError, match="element 0 is a Tensor of shape"):
        nd.find_lr(model, loss_fn, [x, x, x])
    with pytest.raises(ValueError, match="batches is empty"):
        nd.find_lr(model, loss_fn, [])
    with pytest.raises(ValueError, match="0 < start_lr < end_lr"):
        nd.find_lr(model, loss_fn, batches, start_lr=1.0, end_lr=0.1)
    with pytest.raises(ValueError, match="start_lr must be a positive number"):
        nd.find_lr(model, loss_fn, batches, start_lr=0.0)
    with pytest.raises(ValueError, match="steps must be an integer >= 10"):
        nd.find_lr(model, loss_fn, batches, steps=3)
    with pytest.raises(TypeError, match="param_groups"):
        nd.find_lr(model, loss_fn, batches, optimizer="adam")
    other = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="holds none of the model's parameters"):
        nd.find_lr(model, loss_fn, batches, optimizer=torch.optim.SGD(other.parameters(), lr=0.1))
    with pytest.raises(ValueError, match="rule must be one of"):
        nd.find_lr(model, loss_fn, batches, rule="magic")
    with pytest.raises(TypeError, match="torch.nn.Module and minigrad.nn.Module"):
        nd.find_lr(object(), loss_fn, batches)


# --- outputs -----------------------------------------------------------------------------------

def test_csv_plot_and_text(tmp_path):
    import matplotlib
    backend = matplotlib.get_backend()
    model, loss_fn, batches = torch_task()
    res = nd.find_lr(model, loss_fn, batches, optimizer=torch.optim.Adam(model.parameters()))
    rows = list(csv.reader(open(res.to_csv(tmp_path / "lr.csv"))))
    assert rows[0] == ["step", "lr", "loss", "smoothed_loss", "fixed_batch_loss"]
    assert len(rows) == len(res.lrs) + 1
    assert float(rows[5][1]) == res.lrs[4] and float(rows[5][2]) == res.raw_losses[4]
    png = tmp_path / "lr.png"
    res.plot(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert matplotlib.get_backend() == backend                  # no global backend switch
    text = str(res)
    assert f"{res.suggestion:.3g}" in text and "valley" in text and "steepest" in text


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    model, loss_fn, batches = torch_task()
    nd.find_lr(model, loss_fn, batches, steps=20, progress=True)
    assert "lr-find [" in capsys.readouterr().err
    nd.find_lr(model, loss_fn, batches, steps=20)               # stderr is not a tty here
    assert capsys.readouterr().err == ""


# --- the rules on synthetic curves ----------------------------------------------------------------

def synthetic_curve(n=100, fall_at=40, low_at=70, turn_at=75):
    """Flat, then falling, lowest at low_at, turning up 10%+ at turn_at, then blowing up."""
    lrs = np.geomspace(1e-7, 10, n)
    loss = np.full(n, 2.0)
    loss[fall_at:low_at + 1] = np.linspace(2.0, 0.2, low_at + 1 - fall_at)
    loss[low_at + 1:turn_at] = 0.21
    loss[turn_at:] = 0.3 * 1.5 ** np.arange(n - turn_at)
    return lrs, loss


def test_nndebug_rule_is_geometric_mean_of_lowest_and_turn_over_4_5():
    lrs, loss = synthetic_curve()
    assert suggest_lr(lrs, loss) == pytest.approx(math.sqrt(lrs[70] * lrs[75]) / 4.5)
    # a sweep that never turns up: the lowest point is used for both
    lrs2, loss2 = lrs[:72], loss[:72]
    assert suggest_lr(lrs2, loss2) == pytest.approx(lrs[70] / 4.5)
    # NaN from the divergence cuts the curve, it does not poison it
    loss3 = loss.copy()
    loss3[80:] = np.nan
    assert suggest_lr(lrs, loss3) == suggest_lr(lrs, loss)
    assert math.isnan(suggest_lr(lrs, np.full(100, 2.0)))


def test_nndebug_rule_stops_where_the_loss_has_made_95_percent_of_its_fall():
    """An easy task: the loss is nearly at its floor by step 45, then creeps down a little
    more until the far edge at step 90. The edge-based estimate (step ~84) would overshoot;
    the suggestion is the rate by which 95% of the fall was made."""
    lrs = np.geomspace(1e-7, 10, 100)
    loss = np.full(100, 2.0)
    loss[30:46] = np.linspace(2.0, 0.1, 16)
    loss[46:90] = np.linspace(0.1, 0.01, 44)
    loss[90:] = 1.0
    reached = int(np.argmax(loss <= 2.0 - 0.95 * (2.0 - loss.min())))
    assert 40 < reached < 46
    edge_estimate = math.sqrt(lrs[89] * lrs[90]) / 4.5
    assert lrs[reached] < edge_estimate
    assert suggest_lr(lrs, loss) == pytest.approx(lrs[reached])


def test_published_rules_behave_as_described_on_a_clean_curve():
    lrs, loss = synthetic_curve()
    steepest = suggest_steepest(lrs, loss)
    assert lrs[40] <= steepest <= lrs[75]               # inside the falling stretch
    minimum = suggest_minimum_over_10(lrs, loss)
    smoothed_low = lrs[10 + int(np.argmin(lr_finder.ema(loss, 0.02, debias=True)[10:95]))]
    assert minimum == pytest.approx(smoothed_low / 10)
    valley = suggest_valley(lrs, loss)
    assert lrs[40] <= valley <= lrs[80]


def test_rules_read_the_curves_their_libraries_read():
    kinds = {name: curve for name, (_, curve) in lr_finder.SUGGESTION_RULES.items()}
    assert kinds == {"nndebug": "fixed", "steepest": "raw", "valley": "raw", "minimum/10": "raw",
                     "10-before-min": "raw"}

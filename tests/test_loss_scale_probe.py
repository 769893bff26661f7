"""GRADIENT_IGNORES_LOSS (``probes/dependencies/loss_scale.py``): inside ``nd.watch``, the
gradients of 2 x the loss must be twice those of the loss. A hand-written backward that
leaves grad_output out is named; correct custom backwards, dropout, batch norm in training
mode, frozen layers and an ignore_index loss stay silent; the user's model, optimizer and RNG
are exactly as they would be unwatched. A torch graph of torch's own operations only is not
probed (nothing in it can ignore grad_output), so the healthy models whose probe is checked
carry a correct hand-written backward."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.adapters import adapt
from nndebug.probes.dependencies import loss_scale
from nndebug.probes.dependencies.loss_scale import probe_loss_scale
from nndebug.probes.dependencies.watching import DependencyWatch

torch = pytest.importorskip("torch")
nn = torch.nn
pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "GRADIENT_IGNORES_LOSS"


class SoftplusFunction(torch.autograd.Function):
    """softplus with a hand-written backward; ``correct`` picks whether it uses grad_output."""

    @staticmethod
    def forward(ctx, x, correct):
        ctx.save_for_backward(x)
        ctx.correct = correct
        return nn.functional.softplus(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        derivative = torch.sigmoid(x)
        return (grad_output * derivative if ctx.correct else derivative), None


class Softplus(nn.Module):
    def __init__(self, correct):
        super().__init__()
        self.correct = correct

    def forward(self, x):
        return SoftplusFunction.apply(x, self.correct)


class Stateful(nn.Module):
    """Adds what the previous call returned: the same batch gives two losses."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(6, 3)
        self.last = None

    def forward(self, x):
        out = SoftplusFunction.apply(self.layer(x), True)
        if self.last is not None and self.last.shape == out.shape:
            out = out + self.last
        self.last = out.detach()
        return out


class Tagger(nn.Module):
    """A per-position classifier over (B, T) ids: its loss skips the padded positions."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(12, 8)
        self.head = nn.Linear(8, 5)

    def forward(self, ids):
        return self.head(SoftplusFunction.apply(self.embed(ids), True))


def tagging_loss(logits, targets):
    return nn.functional.cross_entropy(logits.reshape(-1, 5), targets.reshape(-1),
                                       ignore_index=-100)


def data(rows=32, features=6, classes=3, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(rows, features, generator=generator), \
        torch.randint(0, classes, (rows,), generator=generator)


def tagging_data(rows=16, length=7, seed=0):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 12, (rows, length), generator=generator)
    targets = torch.randint(0, 5, (rows, length), generator=generator)
    targets[:, -2:] = -100                                     # padded positions
    return ids, targets


def mlp(middle):
    return nn.Sequential(nn.Linear(6, 16), middle, nn.Linear(16, 3))


def frozen_mlp():
    """The last layer frozen: the gradient still runs through it to the hand-written
    backward (with the first layer frozen, that backward would get no gradient at all and
    the graph would hold torch's own operations only: nothing to probe)."""
    model = mlp(Softplus(correct=True))
    for p in model[2].parameters():
        p.requires_grad_(False)
    return model


def train(model, x, y, loss_fn=None, steps=8, watched=True, give_loss_fn=False):
    """The ordinary loop, watched or not: (monitor or None, the optimizer)."""
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    monitor = nd.watch(model, optimizer, loss_fn=loss_fn if give_loss_fn else None) \
        if watched else None
    calls = monitor.loss_fn if monitor is not None and give_loss_fn else loss_fn
    for _ in range(steps):
        optimizer.zero_grad()
        loss = calls(model(x), y)
        loss.backward()
        optimizer.step()
        if monitor is not None:
            monitor.step(loss)
    if monitor is not None:
        monitor.close()
    return monitor, optimizer


def the_probe(monitor):
    return next(s for s in monitor.sinks if isinstance(s, DependencyWatch))


def named(monitor):
    return [f for f in monitor.findings() if f.code == CODE]


@pytest.fixture(params=["in-place", "private-copy"])
def way(request, monkeypatch):
    """Each test below runs both ways of the probe: on the user's model itself (the CPU
    default; checked to have run to the end, not fallen back) and on the float64 copy."""
    if request.param == "private-copy":
        monkeypatch.setattr(loss_scale, "_in_place_applies", lambda *args: False)
        yield request.param
        return
    finished = []
    real = loss_scale._in_place

    def counted(*args):
        result = real(*args)
        finished.append(result)
        return result
    monkeypatch.setattr(loss_scale, "_in_place", counted)
    yield request.param
    assert finished, "the in-place way did not run to the end"


@pytest.mark.parametrize("give_loss_fn", [False, True], ids=["output-weighted", "loss-known"])
def test_a_backward_that_leaves_grad_output_out_is_named(give_loss_fn, way):
    torch.manual_seed(0)
    x, y = data()
    monitor, _ = train(mlp(Softplus(correct=False)), x, y, give_loss_fn=give_loss_fn)
    found = named(monitor)
    assert [f.severity for f in found] == ["error"], monitor.report()
    finding = found[0]
    assert finding.where == "0"                        # the layer before the broken backward
    assert finding.evidence["parameters"] == ["0.weight", "0.bias"]
    assert finding.evidence["relative_error"] == pytest.approx(0.5)   # same gradient twice
    scaled = "the loss" if give_loss_fn else "a fixed random weighting of the model's output"
    assert finding.evidence["scaled"] == scaled
    assert the_probe(monitor).loss_scale.startswith(f"checked with {scaled}")


@pytest.mark.parametrize("make", [
    lambda: mlp(Softplus(correct=True)),
    lambda: mlp(nn.Sequential(Softplus(correct=True), nn.Dropout(0.5))),
    lambda: mlp(nn.Sequential(nn.BatchNorm1d(16), Softplus(correct=True))),
    frozen_mlp,
], ids=["correct-custom-backward", "dropout", "batch-norm-training", "frozen-part"])
def test_healthy_models_are_checked_and_silent(make, way):
    torch.manual_seed(0)
    x, y = data()
    for give_loss_fn in (False, True):
        monitor, _ = train(make(), x, y, give_loss_fn=give_loss_fn)
        assert not named(monitor), monitor.report()
        assert the_probe(monitor).loss_scale.endswith("every gradient doubles")


def test_a_loss_with_ignore_index_is_silent():
    torch.manual_seed(0)
    ids, targets = tagging_data()
    monitor, _ = train(Tagger(), ids, targets, loss_fn=tagging_loss, give_loss_fn=True)
    assert not named(monitor), monitor.report()
    assert the_probe(monitor).loss_scale == "checked with the loss: every gradient doubles"


def test_a_model_that_keeps_state_between_calls_is_judged_in_place_and_not_on_a_copy(way):
    torch.manual_seed(0)
    x, y = data()
    model = Stateful()
    monitor, _ = train(model, x, y)
    assert not named(monitor)
    if way == "in-place":    # one forward pass: one loss, whatever the model keeps
        assert the_probe(monitor).loss_scale.endswith("every gradient doubles")
    else:                    # two forward passes on the copy gave two losses: no verdict
        assert "two losses" in the_probe(monitor).loss_scale
    # the probe's own call left the model's state where the training left it
    last = model.last.clone()
    probe_loss_scale(adapt(model), x, y)
    assert torch.equal(model.last, last)


def test_a_gradient_hook_that_clips_is_only_a_warning_that_names_it():
    torch.manual_seed(0)
    x, y = data()
    model = mlp(Softplus(correct=True))
    model[0].weight.register_hook(lambda g: g.clamp(-1e-4, 1e-4))   # clips on purpose
    found, how = probe_loss_scale(adapt(model), x, y, nn.CrossEntropyLoss())
    assert [(f.code, f.severity) for f in found] == [(CODE, "warning")], how
    assert "tensor hook" in found[0].message


@pytest.mark.parametrize("make", [
    lambda: mlp(Softplus(False)), lambda: mlp(Softplus(True)),
    lambda: nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.Dropout(0.3),
                          Softplus(True), nn.Linear(16, 3))],
    ids=["planted", "healthy", "batch-norm-dropout"])
def test_the_users_model_optimizer_and_rng_are_as_unwatched(make, way):
    x, y = data()
    runs = []
    for watched in (True, False):
        torch.manual_seed(0)
        model = make()
        monitor, optimizer = train(model, x, y, watched=watched)
        runs.append((model.state_dict(), optimizer.state_dict(), torch.get_rng_state(),
                     [m.training for m in model.modules()], torch.get_default_dtype()))
        if watched:
            assert the_probe(monitor).loss_scale.startswith("checked")
    (model_a, opt_a, rng_a, modes_a, dtype_a), (model_b, opt_b, rng_b, modes_b, dtype_b) = runs
    assert model_a.keys() == model_b.keys()
    assert all(torch.equal(model_a[k], model_b[k]) for k in model_a)
    assert all(torch.equal(opt_a["state"][i][k], opt_b["state"][i][k])
               for i in opt_a["state"] for k in opt_a["state"][i])
    assert torch.equal(rng_a, rng_b) and modes_a == modes_b and dtype_a == dtype_b


def test_the_probe_alone_reads_the_model_and_rng_only(way):
    torch.manual_seed(0)
    x, y = data()
    model = mlp(nn.Dropout(0.3))
    model(x).sum().backward()                          # grads the probe must leave alone
    before = ({k: v.clone() for k, v in model.state_dict().items()},
              [p.grad.clone() for p in model.parameters()], torch.get_rng_state())
    found, how = probe_loss_scale(adapt(model), x, y, nn.CrossEntropyLoss())
    assert not found and how == "checked with the loss: every gradient doubles"
    state, grads, rng = before
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters()))
    assert torch.equal(rng, torch.get_rng_state()) and model.training
    assert next(model.parameters()).dtype == torch.float32


# --- graphs of torch's own operations only ------------------------------------------------

def test_a_graph_of_torchs_own_operations_is_not_probed(monkeypatch):
    """Nothing in it can ignore grad_output: the probe's passes are not run at all."""
    calls = []
    monkeypatch.setattr(loss_scale, "probe_loss_scale", lambda *a, **k: calls.append(a))
    torch.manual_seed(0)
    x, y = data()
    for middle in (nn.ReLU(), nn.Sequential(nn.BatchNorm1d(16), nn.Dropout(0.3), nn.Tanh())):
        monitor, _ = train(mlp(middle), x, y)
        assert the_probe(monitor).loss_scale.startswith("not needed"), \
            the_probe(monitor).loss_scale
        assert not named(monitor)
    assert calls == []


@pytest.mark.parametrize("hook", ["module-backward-hook", "parameter-tensor-hook"])
def test_a_users_gradient_hook_makes_the_probe_run(hook):
    """A hook can change gradients as a custom backward can: the probe runs and names it."""
    torch.manual_seed(0)
    x, y = data()
    model = mlp(nn.ReLU())
    if hook == "module-backward-hook":      # replaces the gradient, ignoring grad_output
        model[2].register_full_backward_pre_hook(
            lambda module, grad_output: (torch.ones_like(grad_output[0]),))
    else:
        model[0].weight.register_hook(lambda g: torch.sign(g))
    monitor, _ = train(model, x, y)
    assert the_probe(monitor).loss_scale.startswith("checked"), the_probe(monitor).loss_scale
    assert named(monitor), monitor.report()


# --- minigrad -----------------------------------------------------------------------------

def minigrad_run(correct, steps=8):
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as optim

    class SoftplusOp(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return np.logaddexp(0.0, x)

        @staticmethod
        def backward(ctx, grad):
            derivative = 1.0 / (1.0 + np.exp(-ctx.x))
            return ((grad * derivative) if correct else derivative,)

    class MgSoftplus(mnn.Module):
        def forward(self, x):
            return SoftplusOp.apply(x)

    mg.manual_seed(0)
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((32, 6)).astype(np.float32))
    y = mg.tensor(rng.integers(0, 3, 32))
    model = mnn.Sequential(mnn.Linear(6, 16), MgSoftplus(), mnn.Linear(16, 3))
    optimizer = optim.SGD(model.parameters(), lr=0.05)
    loss_fn = mnn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as monitor:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            monitor.step(loss)
    return monitor


def test_minigrad_a_function_that_ignores_its_incoming_gradient_is_named():
    monitor = minigrad_run(correct=False)
    found = named(monitor)
    assert [f.severity for f in found] == ["error"], monitor.report()
    assert found[0].evidence["parameters"] == ["0.weight", "0.bias"]


def test_minigrad_the_correct_function_is_silent():
    monitor = minigrad_run(correct=True)
    assert not named(monitor), monitor.report()
    assert the_probe(monitor).loss_scale.endswith("every gradient doubles")


def _not_doubled_one_by_one(grads1, grads2):
    """The comparison written tensor by tensor, as the module doc states it."""
    from nndebug.probes.dependencies.loss_scale import NEGLIGIBLE, RELATIVE_TOLERANCE
    tops = [float(np.max(np.abs(g))) for grads in (grads1, grads2) for g in grads.values()
            if np.size(g) and np.all(np.isfinite(g))]
    floor = max(max(tops + [0.0]) * NEGLIGIBLE, 1e-300)
    broken = {}
    for name, g1 in grads1.items():
        g2 = grads2.get(name, np.zeros_like(g1))
        if not np.size(g1) or not (np.all(np.isfinite(g1)) and np.all(np.isfinite(g2))):
            continue
        size = max(float(np.max(np.abs(2 * g1))), float(np.max(np.abs(g2))))
        if size > floor and float(np.max(np.abs(g2 - 2 * g1))) / size > RELATIVE_TOLERANCE:
            broken[name] = float(np.max(np.abs(g2 - 2 * g1))) / size
    return broken


@pytest.mark.parametrize("seed", range(12))
def test_the_one_pass_comparison_agrees_with_the_tensor_by_tensor_one(seed):
    from nndebug.probes.dependencies.loss_scale import _not_doubled
    rng = np.random.default_rng(seed)
    grads1, grads2 = {}, {}
    for i in range(int(rng.integers(1, 7))):
        shape = tuple(int(n) for n in rng.integers(0, 4, size=int(rng.integers(0, 3))))
        g = rng.standard_normal(shape) * 10.0 ** float(rng.integers(-14, 3))
        kind = rng.integers(0, 5)       # doubled, ignored, nearly doubled, NaN, missing
        grads1[f"p{i}"] = g
        if kind == 0:
            grads2[f"p{i}"] = 2 * g
        elif kind == 1:
            grads2[f"p{i}"] = g.copy()
        elif kind == 2:
            grads2[f"p{i}"] = 2 * g * (1 + 1e-9)
        elif kind == 3 and g.size:
            grads2[f"p{i}"] = np.where(np.arange(g.size).reshape(g.shape) == 0, np.nan, 2 * g)
    got, expected = _not_doubled(grads1, grads2), _not_doubled_one_by_one(grads1, grads2)
    assert got.keys() == expected.keys()
    assert all(got[k] == pytest.approx(expected[k], rel=1e-12) for k in got)

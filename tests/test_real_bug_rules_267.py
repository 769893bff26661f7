"""Real-bug batch 267 (beginner NaN losses, exploding losses and gradient clipping): an
unbiased std/var taken over the batch axis of an activation (a GAN discriminator's
minibatch standard deviation, PGGAN-PyTorch#1) is NaN on a batch of ONE sample - the last,
partial batch of an epoch - and the origin watch names it from the structure it read on its
steps (``monitor/fragile_operations.py``: ``spread_over_batch``; ``rules/
nonfinite_origins.py``). The planted case and its twin (drop_last), a variant with
``var(0)`` in a regressor, the structure test's cases (other axes, correction=0,
parameters, full reductions), and a look-alike that blows up by its learning rate with the
same layer (a blow-up's NaN is not the spread's). The origin watch is torch's only."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import minibatch_std_of_one_image_last_batch_nan as minibatch  # noqa: E402,E501
from benchmarks.real_bugs._common import classification, regression  # noqa: E402
from benchmarks.real_bugs._nan_losses import loader  # noqa: E402
from nndebug.monitor.fragile_operations import spread_over_batch  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
BORN = ("NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD")


def _born(mon):
    return [f for f in mon.findings() if f.code in BORN]


# --- the planted case and its twin ----------------------------------------------------------

def test_minibatch_std_on_a_batch_of_one_is_named():
    found = _born(minibatch.run())
    assert found and found[0].code == "NAN_BORN_IN_FORWARD"
    assert found[0].severity == "error"
    assert found[0].evidence["operation"] == "std over the batch axis"
    assert found[0].evidence["inferred"]
    assert "drop_last" in found[0].fix
    assert not _born(minibatch.run(fixed=True))


# --- a variant: var(0) appended as a feature of a regressor ---------------------------------

class BatchSpread(nn.Module):
    def forward(self, h):
        return torch.cat([h, h.var(0).mean().expand(len(h), 1)], dim=1)


def _regressor(drop_last, lr=0.01, steps=200, n=1025, batch_size=64):
    import nndebug as nd
    torch.manual_seed(1)
    x, y = regression()
    x, y = x[:n], y[:n]                       # 16 batches of 64, then one of 1
    model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), BatchSpread(), nn.Linear(33, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for index in loader(len(x), steps, batch_size, seed=2):
            if drop_last and len(index) < batch_size:
                continue
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[index]).squeeze(1), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_var_over_the_batch_in_a_regressor_is_named():
    found = _born(_regressor(drop_last=False))
    assert found and found[0].code == "NAN_BORN_IN_FORWARD"
    assert found[0].evidence["operation"] == "var over the batch axis"
    twin = _regressor(drop_last=True)
    assert not _born(twin)
    assert not {f.code for f in twin.findings() if f.severity in PROBLEMS} & \
        {"NAN_LOSS", "NAN_GRADIENTS"}


# --- the structure test ---------------------------------------------------------------------

def _node(make):
    h = nn.Linear(4, 3)(torch.randn(5, 4))
    return make(h).grad_fn


def test_spread_over_batch_reads_axis_correction_and_source():
    assert spread_over_batch(_node(lambda h: torch.std(h, dim=0)), "std") == \
        "std over the batch axis"
    assert spread_over_batch(_node(lambda h: h.var(0, keepdim=True)), "var") == \
        "var over the batch axis"
    assert spread_over_batch(_node(lambda h: h.std(dim=(0, 1))), "std") is not None
    assert spread_over_batch(_node(lambda h: h.std(-2)), "std") is not None   # -2 is 0 here
    assert spread_over_batch(_node(lambda h: h.std(dim=1)), "std") is None    # per sample
    assert spread_over_batch(_node(lambda h: h.std(0, unbiased=False)), "std") is None
    assert spread_over_batch(_node(lambda h: h.var(0, correction=0)), "var") is None
    assert spread_over_batch(_node(lambda h: h.std()), "std") is None   # every value of 2-D
    assert spread_over_batch(_node(lambda h: h[:, 0].std()), "std") is not None   # 1-D
    weight = nn.Parameter(torch.randn(3, 4))
    assert spread_over_batch(weight.std(0).grad_fn, "std") is None     # a parameter's spread


# --- a look-alike: the same layer in a run that blows up by its learning rate ----------------

def test_blow_up_with_a_batch_spread_is_not_named_as_its_origin():
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), BatchSpread(), nn.Linear(65, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=50.0)
    with nd.watch(model, optimizer) as mon:
        for index in loader(1792, 120, 64, seed=0):     # full batches only: no batch of one
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x[index] * 16), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "NAN_GRADIENTS" in {f.code for f in mon.findings()}    # it did go non-finite
    assert all(f.evidence.get("operation") != "var over the batch axis" for f in _born(mon))

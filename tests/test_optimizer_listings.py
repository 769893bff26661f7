"""OPTIMIZER_DUPLICATE_PARAMS: parameters an optimizer lists more than once are updated
once per listing by every step. Torch allows it with a warning when the optimizer is built
(minigrad refuses it: its optimizers raise), so the planted case is torch's; both
frameworks must count one listing per parameter on a healthy optimizer."""
import warnings

import numpy as np
import pytest

import nndebug as nd
from nndebug.runfile import load_run


def _shared_body_run(duplicated, steps=12):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    body = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU())
    actor, critic = torch.nn.Sequential(body, torch.nn.Linear(16, 3)), \
        torch.nn.Sequential(body, torch.nn.Linear(16, 1))
    model = torch.nn.ModuleDict({"actor": actor, "critic": critic})
    params = [*actor.parameters(), *critic.parameters()]
    if not duplicated:
        params = list(dict.fromkeys(params))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # torch's own "duplicate parameters" warning
        optimizer = torch.optim.SGD(params, lr=0.05)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(actor(x), y) + critic(x).pow(2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_shared_body_listed_twice_is_named_with_its_parameters():
    mon = _shared_body_run(duplicated=True)
    found = {f.code: f for f in mon.findings()}
    assert "OPTIMIZER_DUPLICATE_PARAMS" in found
    finding = found["OPTIMIZER_DUPLICATE_PARAMS"]
    assert finding.severity == "warning"
    assert set(finding.evidence["parameters"]) == {"actor.0.0.weight", "actor.0.0.bias"}
    assert finding.evidence["times_listed"] == [2, 2]


def test_each_parameter_listed_once_is_silent():
    mon = _shared_body_run(duplicated=False)
    assert {p.times_in_optimizer for p in mon.run.params} == {1}
    assert "OPTIMIZER_DUPLICATE_PARAMS" not in {f.code for f in mon.findings()}


def test_minigrad_counts_one_listing_per_parameter():
    import minigrad as mg
    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 2))
    optimizer = mg.optim.SGD(model.parameters(), lr=0.1)
    x = mg.tensor(np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32))
    with nd.watch(model, optimizer) as mon:
        for _ in range(3):
            optimizer.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert [p.times_in_optimizer for p in mon.run.params] == [1, 1, 1, 1]
    assert "OPTIMIZER_DUPLICATE_PARAMS" not in {f.code for f in mon.findings()}


def test_without_an_optimizer_nothing_is_counted():
    import minigrad as mg
    model = mg.nn.Linear(3, 2)
    with nd.watch(model) as mon:
        loss = (model(mg.tensor(np.ones((2, 3), np.float32))) ** 2).mean()
        loss.backward()
        mon.step(loss)
    assert [p.times_in_optimizer for p in mon.run.params] == [None, None]


def test_the_counts_survive_a_saved_run(tmp_path):
    mon = _shared_body_run(duplicated=True)
    path = mon.save(tmp_path / "run.nndebug")
    loaded = load_run(path)
    assert [p.times_in_optimizer for p in loaded.run.params] == \
        [p.times_in_optimizer for p in mon.run.params]
    assert "OPTIMIZER_DUPLICATE_PARAMS" in {f.code for f in loaded.findings()}

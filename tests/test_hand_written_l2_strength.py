"""SGD_WEIGHT_DECAY_TOO_LARGE for an L2 penalty written by hand with a coefficient meant as a
'regularisation strength' (lambda 0.5 where 1e-4 was meant; real-bug batch 277): lambda *
sum(w ** 2) adds 2 * lambda * w to each gradient, a weight decay of 2 * lambda under SGD.
The coefficient is read from the loss's graph before backward frees its constants
(``monitor/parameter_penalties.py``); torch only, as that graph walk is. Silent on the
usual 1e-4, and under Adam (whose coupled decay another code judges)."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.monitor.parameter_penalties import penalty_coefficients

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CODE = "SGD_WEIGHT_DECAY_TOO_LARGE"


def data():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(10, 32)) * 2
    labels = rng.integers(0, 10, 1200)
    x = centres[labels] + rng.normal(size=(1200, 32))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(labels)


def train(lam, optimizer="sgd", steps=200, form="sum"):
    torch.manual_seed(0)
    x, y = data()
    model = nn.Sequential(nn.Linear(32, 64), nn.Sigmoid(), nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.5) if optimizer == "sgd" else \
        torch.optim.Adam(model.parameters(), lr=1e-3)
    weights = [m.weight for m in model if isinstance(m, nn.Linear)]
    with nd.watch(model, opt) as mon:
        for step in range(steps):
            rows = torch.randint(0, len(x), (64,))
            opt.zero_grad()
            if form == "sum":
                penalty = lam * sum((w ** 2).sum() for w in weights)
            else:                       # the same strength written as a division
                penalty = sum(torch.square(w).sum() for w in weights) / (1.0 / lam)
            loss = nn.functional.cross_entropy(model(x[rows]), y[rows]) + penalty
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def test_a_penalty_meant_as_a_strength_is_named_as_a_decay_under_sgd():
    mon = train(0.5)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "warning", mon.report()
    assert found[0].evidence["penalty_decay"] == pytest.approx(1.0)
    assert found[0].evidence["time_constant_steps"] == pytest.approx(2.0)
    assert "2 * lambda" in found[0].fix


def test_the_same_strength_written_as_a_division_is_read_alike():
    found = [f for f in train(0.5, form="division").findings() if f.code == CODE]
    assert found and found[0].evidence["penalty_decay"] == pytest.approx(1.0)


def test_the_usual_strength_is_silent():
    mon = train(1e-4)
    assert CODE not in {f.code for f in mon.findings()}
    assert mon.run.observed.penalty_decays and \
        mon.run.observed.penalty_decays[0][2] == pytest.approx(2e-4)


def test_under_adam_it_is_not_an_sgd_decay():
    assert CODE not in {f.code for f in train(0.5, optimizer="adam", steps=60).findings()}


@pytest.mark.parametrize("build, expected", [
    (lambda w: 0.5 * (w ** 2).sum(), 0.5),
    (lambda w: (w * w).sum() / 4, 0.25),
    (lambda w: 1e-2 * (w ** 2).mean(), 1e-2 / 12),
    (lambda w: -(-0.3 * (w ** 2).sum()), 0.3),
    (lambda w: torch.ones((), requires_grad=True) - 0.2 * (w ** 2).sum(), -0.2),
    (lambda w: 0.1 * (w ** 2).sum() + 0.1 * (w ** 2).sum(), 0.2),
])
def test_the_coefficient_is_the_product_of_the_constants_on_the_way(build, expected):
    w = nn.Parameter(torch.randn(3, 4))
    found = penalty_coefficients(build(w).grad_fn)
    assert found[id(w)] == pytest.approx(expected)


def test_no_coefficient_through_a_product_of_two_computed_values_or_a_square_root():
    w = nn.Parameter(torch.randn(3, 4))
    scale = nn.Parameter(torch.ones(()))
    assert penalty_coefficients((scale * (w ** 2).sum()).grad_fn) == {}
    assert penalty_coefficients(((w ** 2).sum().sqrt()).grad_fn) == {}


def test_the_strength_survives_a_saved_run(tmp_path):
    mon = train(0.5, steps=60)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    assert nd.load_run(str(path)).run.observed.penalty_decays == mon.run.observed.penalty_decays

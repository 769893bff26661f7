"""LR_TOO_LOW for a loss that is not a classifier's (real-bug batch 209). DragonNet's SGD
stage built with a hard-coded lr=1e-5 that ignores the user's rate (uber/causalml#600): the
regression loss gains almost nothing beyond its noise over the run while every layer moves
about 1e-4 of its size a step or less. The slow-at-chance verdict read classifiers at ln(C)
only, and the layers moved above LR_LOW_RATIO; a flat loss with every layer under
FLAT_MAX_RATIO is named now, in both frameworks. The twins at a working rate stay silent."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import dragonnet_sgd_ignores_learning_rate as dragonnet  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _data(n=1024):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    y = (np.sin(x[:, 0]) + x[:, 1] ** 2 + 0.5 * x[:, 2] + 3.0).astype(np.float32)
    return x, y


def test_dragonnet_at_a_hard_coded_rate_is_named():
    mon = dragonnet.run(fixed=False)
    finding = next(f for f in mon.findings() if f.code == "LR_TOO_LOW")
    assert finding.evidence["update_to_weight_max_layer"] < 5e-4
    assert finding.evidence["gained"] < 0.05


def test_dragonnet_at_the_users_rate_is_silent():
    assert "LR_TOO_LOW" not in _problems(dragonnet.run(fixed=True))


def _torch_regression(lr, steps=200):
    torch.manual_seed(0)
    x, y = (torch.from_numpy(a) for a in _data())
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            i = torch.randint(0, len(x), (64,))
            loss = ((model(x[i]).squeeze(1) - y[i]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_converged_regression_resumed_under_adam_is_silent():
    """A model trained to convergence, then trained on under Adam at a small rate (a resumed
    or fine-tuned run): flat loss, steps of about the rate - no rate too low (batch 109's
    resumed Glow twin drew it before Adam-like optimizers were left out)."""
    torch.manual_seed(0)
    x, y = (torch.from_numpy(a) for a in _data())
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(600):                                   # converge first, unwatched
        i = torch.randint(0, len(x), (64,))
        loss = ((model(x[i]).squeeze(1) - y[i]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)   # resumed at a small rate
    with nd.watch(model, optimizer) as mon:
        for _ in range(200):
            i = torch.randint(0, len(x), (64,))
            loss = ((model(x[i]).squeeze(1) - y[i]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LR_TOO_LOW" not in _problems(mon)


def test_torch_regression_at_a_tiny_rate_is_named():
    assert "LR_TOO_LOW" in _problems(_torch_regression(1e-6))


def test_torch_regression_at_a_working_rate_is_silent():
    assert "LR_TOO_LOW" not in _problems(_torch_regression(1e-2))


def _minigrad_regression(lr, steps=200):
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, y = _data()
    rng = np.random.default_rng(1)
    model = mnn.Sequential(mnn.Linear(8, 32), mnn.Tanh(), mnn.Linear(32, 1))
    opt = moptim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = mnn.MSELoss()
    with nd.watch(model, optimizer=opt) as mon:
        for _ in range(steps):
            i = rng.integers(0, len(x), 64)
            loss = loss_fn(model(mg.tensor(x[i])), mg.tensor(y[i][:, None]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def test_minigrad_regression_at_a_tiny_rate_is_named():
    assert "LR_TOO_LOW" in _problems(_minigrad_regression(1e-6))


def test_minigrad_regression_at_a_working_rate_is_silent():
    assert "LR_TOO_LOW" not in _problems(_minigrad_regression(1e-2))


def test_a_fresh_classifier_under_adam_at_a_tiny_rate_is_named():
    """Under an Adam-like optimizer a flat loss with tiny steps is judged when the run has
    somewhere to go: a fresh classifier, its losses at chance (batch 210's GPT whose LambdaLR
    returned the rate as the factor)."""
    torch.manual_seed(0)
    x = torch.randn(1024, 8)
    y = (x[:, 0] + x[:, 1] > 0).long() + 2 * (x[:, 2] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-7)
    with nd.watch(model, optimizer) as mon:
        for _ in range(200):
            i = torch.randint(0, len(x), (64,))
            loss = torch.nn.functional.cross_entropy(model(x[i]), y[i])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LR_TOO_LOW" in _problems(mon)

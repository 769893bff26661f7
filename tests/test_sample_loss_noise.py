"""A regression loss's own noise (real-bug batch 335: a healthy price forecaster whose
batch losses swing with the crash days each batch holds): the loss capture reads the spread
of the samples' errors over their mean (``LossCall.sample_loss_cv``), and LOSS_OSCILLATING
allows the swing that cv / sqrt(batch) explains (``_sample_noise`` in ``rules/curve.py``).
Healthy: a linear regression on heavy-tailed (Student-t) noise stays silent; the batch 335
twin too. Still named: the same regression at a learning rate that makes it swing.
Gaussian errors give cv = sqrt(2): no more allowance than before from batch 16 on."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import price_csv_newest_first_trained_backwards as prices  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LOSS_OSCILLATING"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _regression(noise, lr, steps=300, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4000, 8)).astype(np.float32)
    w = rng.normal(size=(8, 1)).astype(np.float32)
    y = x @ w + noise(rng, (4000, 1)).astype(np.float32)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.from_numpy(rng.integers(0, len(x), batch))
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _student(rng, shape):
    return 2.0 * rng.standard_t(4.0, size=shape)


def test_heavy_tailed_noise_is_not_an_oscillation():
    mon = _regression(_student, lr=0.01)
    cvs = [c.sample_loss_cv for c in mon.run.observed.loss_calls]
    assert cvs and all(math.isfinite(cv) for cv in cvs) and np.median(cvs) > 1.6     # more than Gaussian errors give
    assert CODE not in _problems(mon)


def test_gaussian_errors_read_about_root_two():
    mon = _regression(lambda rng, shape: rng.normal(size=shape), lr=0.01)
    cvs = [c.sample_loss_cv for c in mon.run.observed.loss_calls]
    assert 1.0 < np.median(cvs) < 2.0


def test_a_rate_that_swings_the_loss_is_still_named():
    mon = _regression(lambda rng, shape: 0.1 * rng.normal(size=shape), lr=0.9)
    found = _problems(mon)
    assert CODE in found or "LR_TOO_HIGH" in found or "LOSS_DIVERGING" in found


def test_the_price_forecaster_twin_is_silent():
    assert not _problems(prices.run(fixed=True))

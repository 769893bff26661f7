"""Regression losses called as functions (``F.l1_loss``, ``F.smooth_l1_loss``,
``F.huber_loss``) and handed to ``step()`` after backward.

Their calls were not seen by the monitor's function mode, so the loss call was read off the
loss tensor's graph at ``step()``: after backward, where the node has freed what it saved,
and the read raised. The monitor took that for an internal error (MONITOR_ERROR) and
stopped its detailed records for the rest of the run (found reproducing a detection report,
tensorflow/models#9892, with a functional smooth-L1 box loss)."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.adapters.observing import loss_inputs_from_graph  # noqa: E402


def _regression_run(loss_fn, steps=40):
    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = x @ torch.randn(8, 2)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            i = torch.randint(0, 256, (32,))
            loss = loss_fn(model(x[i]), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("loss_fn", [F.l1_loss, F.smooth_l1_loss, F.huber_loss],
                         ids=lambda f: f.__name__)
def test_a_functional_regression_loss_is_seen_and_breaks_nothing(loss_fn):
    mon = _regression_run(loss_fn)
    assert "MONITOR_ERROR" not in [f.code for f in mon.findings()]
    calls = mon.run.observed.loss_calls
    assert calls and all(c.loss == loss_fn.__name__ for c in calls)
    assert len(calls) == mon.n_records        # one per recorded step: none was lost


def test_reading_a_loss_call_off_a_graph_after_backward_gives_nothing_not_an_error():
    torch.manual_seed(0)
    output = torch.randn(4, 2, requires_grad=True)
    loss = F.smooth_l1_loss(output * 2, torch.zeros(4, 2))
    name, read, _ = loss_inputs_from_graph("torch", loss)        # before backward: there
    assert name == "smooth_l1_loss" and read.shape == (4, 2)
    loss.backward()
    assert loss_inputs_from_graph("torch", loss) is None         # after: freed, no raise

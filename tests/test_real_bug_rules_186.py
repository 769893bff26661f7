"""CLASS_WEIGHTS_CANCELLED_BY_MEAN (real-bug batch 186): CrossEntropyLoss(weight=w) with the
mean reduction over one target per call returns w l / w = l, so the class weights do
nothing (pytorch/pytorch#50528). Missed as it came. Named on the case and on a planted
one-sample loop; silent on weighted batches of several samples, an unweighted one-sample
loop, and a weighted loss over a sequence's tokens at batch size one."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import class_weights_cancelled_at_batch_size_one as cancelled  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "CLASS_WEIGHTS_CANCELLED_BY_MEAN"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_batch_186_case_is_named_and_its_twin_is_not():
    assert CODE in _codes(cancelled.run())
    assert not _codes(cancelled.run(fixed=True))


def _train(batch, weight=(1.0, 9.0), tokens=None, steps=40):
    torch.manual_seed(0)
    x = torch.randn(512, 8) if tokens is None else torch.randn(512, tokens, 8)
    y = (x[..., 0] > 1.0).long()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss(weight=None if weight is None else torch.tensor(weight))
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(batch * step, batch * (step + 1))
            out = model(x[rows])
            loss = loss_fn(out.reshape(-1, 2), y[rows].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_weighted_loss_over_one_sample_per_step_is_named():
    assert CODE in _codes(_train(batch=1))


@pytest.mark.parametrize("setting", [dict(batch=8), dict(batch=1, weight=None),
                                     dict(batch=1, tokens=12)],
                         ids=["weighted_batches", "unweighted", "weighted_tokens"])
def test_weights_that_count_are_silent(setting):
    assert CODE not in _codes(_train(**setting))

"""A loss that goes NaN between two judged records is looked at at once, not at the next
judged step (issue #10, point 5: nothing falls between recorded steps). The judged steps of a
300-step run are 0, 1, 2, 4, ..., 256: a NaN born at step 271 would otherwise be judged
nowhere, and the run would end with only NAN_LOSS said about it."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.loss_jumps import LOSS_CHECK_EVERY  # noqa: E402
from nndebug.zoo.common import batches, digits  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _run(nan_from=None, steps=300):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            out = model(xb)
            if nan_from is not None and step >= nan_from:
                out = torch.log(out - out.detach().max() - 1.0)   # log of negatives: NaN
            loss = nn.functional.cross_entropy(out, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_nan_between_judged_records_is_judged_within_one_check():
    mon = _run(nan_from=271)
    judged = [r.step for r in mon.run.records if r.judged]
    after = [s for s in judged if s > 271]
    assert after, f"no judged record after the NaN at 271: {judged}"
    assert after[0] <= 271 + LOSS_CHECK_EVERY
    assert "NAN_LOSS" in {f.code for f in mon.findings()}


def test_a_healthy_run_takes_no_extra_judged_records():
    judged = [r.step for r in _run().run.records if r.judged]
    assert judged == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]

"""A loss over no rows on a recorded step: a detector's box loss over the positives of a
batch that holds none (``F.smooth_l1_loss(out[positive], ...)`` with no positive). The
monitor's loss capture took it as the step's loss call and asked for the smallest and
largest output of an empty tensor, which raised: a MONITOR_ERROR that stopped the detailed
records for the rest of the run (found by shifting the seeds of the real-bug case
loss_divided_by_zero_positives). An empty call shows nothing; the step's next call is kept."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _detector_run(steps=12):
    """Objectness + box regression over the positives, divided by their count (at least 1,
    the usual fix of an SSD loss); no batch holds a positive."""
    torch.manual_seed(0)
    x = torch.randn(64, 8)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            i = torch.randint(0, 64, (16,))
            out, objectness = model(x[i]), torch.zeros(16)
            positive = objectness > 0
            boxes = F.smooth_l1_loss(out[positive, 1:], torch.zeros(0, 2), reduction="sum")
            objects = F.binary_cross_entropy_with_logits(out[:, 0], objectness, reduction="sum")
            loss = (boxes + objects) / positive.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


@pytest.mark.filterwarnings("error::RuntimeWarning")    # numpy's mean of nothing, too
def test_a_loss_over_no_rows_breaks_nothing_and_the_next_call_is_kept():
    mon = _detector_run()
    assert [f.code for f in mon.findings()] == []
    calls = mon.run.observed.loss_calls
    assert calls and all(call.loss == "binary_cross_entropy_with_logits" for call in calls)
    assert all(call.output_shape == (16,) for call in calls)

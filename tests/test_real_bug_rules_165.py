"""Real-bug batch 165: a pruning loop that zeroes the gradient of its pruned weights after each
backward. Its `.grad` differs from what backward delivered (the pruned entries were taken
out), which GRADIENTS_ACCUMULATING read as gradients carried over: the healthy lottery-ticket
twin drew that error as it came. A `.grad` with entries zeroed holds no more than was
delivered (|grad|^2 + |grad - delivered|^2 = |delivered|^2); a carried one holds more. The twin
is silent now; a loop that masks its gradients AND forgets zero_grad is still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import lottery_ticket_gradient_freeze_catches_negative_weights as lottery  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_the_lottery_ticket_twin_is_silent():
    assert not _codes(lottery.run(fixed=True))


def _masked_gradients(zero_grad, steps=150):
    """An MLP whose smallest 30% of weights are pruned at the start and kept at 0 by zeroing
    their gradient after every backward (SGD with momentum, no weight decay)."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    weights = [m.weight for m in model if isinstance(m, nn.Linear)]
    with torch.no_grad():
        masks = []
        for w in weights:
            cut = w.abs().flatten().kthvalue(int(0.3 * w.numel())).values
            masks.append((w.abs() > cut).float())
            w.mul_(masks[-1])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            if zero_grad:
                optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            for w, mask in zip(weights, masks):
                w.grad.mul_(mask)
            optimizer.step()
            mon.step(loss)
    return mon


def test_gradients_masked_by_a_pruning_mask_are_not_taken_for_carried_ones():
    codes = _codes(_masked_gradients(zero_grad=True))
    assert "GRADIENTS_ACCUMULATING" not in codes and "GRADIENTS_DISCARDED" not in codes, codes


def test_masked_gradients_that_are_never_zeroed_are_still_named():
    assert "GRADIENTS_ACCUMULATING" in _codes(_masked_gradients(zero_grad=False))

"""GRADIENTS_DISCARDED: zero_grad() between the backward passes of one optimizer step (inside
a gradient-accumulation loop), told apart from GRADIENTS_ACCUMULATING (no zero_grad at all).
Planted runs and their twins on both frameworks."""
import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
MICRO = 4


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(1024, 8)).astype(np.float32)
    return x, ((x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64))


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def loop(framework, zero):
    """zero: "per step" (healthy accumulation), "per micro-batch" (the bug) or "never"."""
    x, y = data()
    if framework == "torch":
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn, tensor = torch.nn.CrossEntropyLoss(), torch.from_numpy
    else:
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 3))
        optimizer = mg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn, tensor = mnn.CrossEntropyLoss(), mg.tensor
    with nd.watch(model, optimizer, overhead=None) as mon:
        for step in range(40):
            if zero == "per step":
                optimizer.zero_grad()
            for m in range(MICRO):
                if zero == "per micro-batch":
                    optimizer.zero_grad()
                j = ((step * MICRO + m) * 16) % (len(x) - 16)
                loss = loss_fn(model(tensor(x[j:j + 16])), tensor(y[j:j + 16]))
                (loss / MICRO).backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_zero_grad_per_micro_batch_is_discarded_not_accumulating_and_the_twin_is_silent(framework):
    found = codes(loop(framework, "per micro-batch"))
    assert "GRADIENTS_DISCARDED" in found and "GRADIENTS_ACCUMULATING" not in found, found
    assert not codes(loop(framework, "per step"))
    never = codes(loop(framework, "never"))
    assert "GRADIENTS_ACCUMULATING" in never and "GRADIENTS_DISCARDED" not in never, never

"""UNNORMALIZED_INPUTS leaves alone a float input that is exactly zero everywhere (real-bug batch
251's twin: an LSTM called as ``net(ids, (h0, c0))``, the ids integer, the zero initial
state the first float tensor the monitor reads as the inputs, "tiny inputs" at an rms of 0).
Inputs that really are tiny (a second division by 255) are still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "UNNORMALIZED_INPUTS"
VOCAB, LENGTH, HIDDEN = 30, 12, 32


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class StatefulClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 16)
        self.lstm = nn.LSTM(16, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, 2)

    def forward(self, ids, state):
        out, state = self.lstm(self.embed(ids), state)
        return self.head(out[:, -1]), state


def test_a_zero_initial_state_beside_integer_ids_is_silent():
    torch.manual_seed(0)
    model = StatefulClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(60):
            ids = torch.randint(0, VOCAB, (32, LENGTH))
            labels = (ids[:, -1] < VOCAB // 2).long()
            state = (torch.zeros(1, 32, HIDDEN), torch.zeros(1, 32, HIDDEN))
            optimizer.zero_grad()
            logits, _ = model(ids, state)
            loss = loss_fn(logits, labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in _codes(mon)


def test_inputs_divided_twice_are_still_named():
    torch.manual_seed(0)
    x, y = classification()
    x = x / 255.0 / 255.0                     # scaled twice
    model = nn.Sequential(nn.Linear(x.shape[1], 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 60):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE in _codes(mon)

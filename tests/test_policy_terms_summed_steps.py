"""A sequence policy's log-probability summed step by step is a policy-gradient term
(``monitor/policy_gradient_terms.py``, AddBackward0 on the path; real-bug batch 318).

A pointer network decodes a tour one city at a time, ``log_prob = log_prob + logp[rows,
pick]``, and REINFORCE multiplies that sum by the tour's cost minus a baseline. The reader
followed stacks and sums, not additions, so the surrogate was not recognised and its
sign-flipping level was read as LOSS_OSCILLATING on a healthy run.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ITEMS = 6


class Picker(nn.Module):
    """Scores every item from its value; picks the items one by one, never twice."""
    def __init__(self):
        super().__init__()
        self.score = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, values):
        batch = values.shape[0]
        rows = torch.arange(batch)
        taken = torch.zeros(batch, ITEMS, dtype=torch.bool)
        log_prob, order = 0, []
        for step in range(ITEMS):
            features = torch.stack([values, torch.full_like(values, step / ITEMS)], -1)
            logits = self.score(features).squeeze(-1).masked_fill(taken, float("-inf"))
            logp = logits.log_softmax(-1)
            pick = torch.multinomial(logp.exp(), 1).squeeze(1)
            log_prob = log_prob + logp[rows, pick]          # summed step by step
            taken = taken.clone()
            taken[rows, pick] = True
            order.append(pick)
        return torch.stack(order, 1), log_prob


def test_a_summed_sequence_log_probability_is_read_as_a_policy_term():
    torch.manual_seed(0)
    model = Picker()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(12):
            values = torch.rand(32, ITEMS)
            order, log_prob = model(values)
            picked = values.gather(1, order)
            cost = (picked[:, 1:] < picked[:, :-1]).float().sum(1)   # out-of-order pairs
            loss = ((cost - cost.mean()) * log_prob).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    rows = mon.run.observed.policy_gradient_terms
    assert rows and {row[2] for row in rows} == {"both"}

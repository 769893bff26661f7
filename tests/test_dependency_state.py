"""STATE_CARRIED_ACROSS_BATCHES (``probes/dependencies/state.py``): a forward that keeps
state between calls gives the same batch two answers; one that hands its state back through
its arguments, keeps an unused copy, or draws random numbers in eval mode does not."""
import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
nn = torch.nn


class Recurrent(nn.Module):
    """A GRU classifier over rows; ``carry``: start each call from the last call's state."""

    def __init__(self, carry, use_dropout=False):
        super().__init__()
        self.carry, self.use_dropout = carry, use_dropout
        self.gru = nn.GRU(4, 8, batch_first=True)
        self.head = nn.Linear(8, 3)
        self.state = None

    def forward(self, x, state=None):
        if self.carry and self.state is not None and self.state.shape[1] == x.shape[0]:
            state = self.state
        out, h = self.gru(x, state)
        self.state = h.detach()              # kept either way; used only when carried
        out = out[:, -1]
        if self.use_dropout:                 # randomness eval() cannot reach: not state
            out = nn.functional.dropout(out, 0.3, training=True)
        return self.head(out)


def _batch(seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(16, 5, 4, generator=generator), torch.randint(0, 3, (16,),
                                                                      generator=generator)


def _codes(result):
    return {f.code for f in result.findings}


def test_a_state_carried_from_call_to_call_is_named():
    torch.manual_seed(0)
    model = Recurrent(carry=True)
    x, y = _batch()
    model(x)                                 # a training step left its state behind
    before = model.state.clone()
    result = nd.check_dependencies(model, x, y)
    assert "STATE_CARRIED_ACROSS_BATCHES" in _codes(result) and not result.passed
    finding = next(f for f in result.findings if f.code == "STATE_CARRIED_ACROSS_BATCHES")
    assert finding.evidence["relative_change"] > 1e-3
    assert torch.equal(model.state, before)  # the probes ran on a copy


@pytest.mark.parametrize("model", [Recurrent(carry=False), Recurrent(carry=False,
                                                                     use_dropout=True)],
                         ids=["state-kept-unused", "dropout-in-eval"])
def test_no_state_carried_is_silent(model):
    x, y = _batch()
    model(x)
    result = nd.check_dependencies(model, x, y)
    assert "STATE_CARRIED_ACROSS_BATCHES" not in _codes(result)


def test_a_state_handed_back_through_the_arguments_is_silent():
    # truncated BPTT as PyTorch's word-language-model example does it: the loop carries it
    model = Recurrent(carry=False)
    x, y = _batch()
    _, state = model.gru(x)
    result = nd.check_dependencies(model, (x, state.detach()), y)
    assert "STATE_CARRIED_ACROSS_BATCHES" not in _codes(result)


@pytest.mark.parametrize("carry", [True, False])
def test_watch_names_it_on_a_training_run_and_not_on_its_twin(carry):
    torch.manual_seed(0)
    model = Recurrent(carry=carry)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(12):
            x, y = _batch(step)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    codes = {f.code for f in mon.findings() if f.severity in ("warning", "error")}
    assert ("STATE_CARRIED_ACROSS_BATCHES" in codes) == carry
    assert np.isfinite(mon.run.losses).all()

"""Labels picked by a hand-written log-likelihood reach the dependency probe
(``monitor/picked_targets.py``; real-bug batches 145 and 162).

``log_softmax(logits).gather(-1, labels[..., None])`` hands the monitor no loss call: the
labels are read off the ``gather`` before the backward, and the probe measures them against
the inputs as it measures a loss module's targets. Planted: a next-token GRU scored on the
token it has just read (TARGETS_IN_INPUTS) and on the token two ahead (LABELS_MISALIGNED);
healthy: the same model scored on the next token, and a loss module's targets (no mode is
armed), and a policy gradient's one pick per row (no sequence labels).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.picked_targets import PickedTargets, _sequence_labels  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
VOCAB, LENGTH = 12, 16


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 16)
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.out = nn.Linear(32, VOCAB)

    def forward(self, ids):
        return self.out(self.rnn(self.embed(ids))[0])


def _sequences(count, rng):
    """A Markov chain over VOCAB tokens: each token is the last + 1 or + 2 (mod VOCAB)."""
    steps = rng.integers(1, 3, size=(count, LENGTH))
    start = rng.integers(0, VOCAB, size=(count, 1))
    return torch.as_tensor((start + np.cumsum(steps, axis=1)) % VOCAB, dtype=torch.long)


def _train(offset, steps=60, module_loss=False):
    """Scored by hand: logits at t against the token at t + offset."""
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            seq = _sequences(32, rng)
            logits = model(seq)
            kept = LENGTH - offset
            logits, labels = logits[:, :kept], seq[:, offset:]
            if module_loss:
                loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1))
            else:
                picked = logits.log_softmax(-1).gather(-1, labels.unsqueeze(-1)).squeeze(-1)
                loss = -picked.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_unshifted_labels_picked_by_hand_are_named_a_copy():
    mon = _train(offset=0)
    assert "TARGETS_IN_INPUTS" in _codes(mon)
    assert mon.around.picked_targets.picked      # read off the gather, not a loss call


def test_labels_shifted_twice_are_named_misaligned():
    assert "LABELS_MISALIGNED" in _codes(_train(offset=2))


def test_next_token_labels_picked_by_hand_stay_quiet():
    mon = _train(offset=1)
    assert not _codes(mon) & {"TARGETS_IN_INPUTS", "LABELS_MISALIGNED", "FUTURE_LEAK"}
    assert mon.around.picked_targets.picked      # they were read, and found in order


def test_a_loss_module_with_targets_arms_nothing():
    mon = _train(offset=1, module_loss=True)
    assert not mon.around.picked_targets.wanted
    assert not mon.around.picked_targets.picked


def test_one_pick_per_row_is_no_sequence_of_labels():
    logits = torch.randn(8, 4, requires_grad=True)
    actions = torch.randint(0, 4, (8, 1))
    picked = logits.log_softmax(-1).gather(1, actions)
    assert _sequence_labels(picked.grad_fn) is None
    per_position = torch.randn(8, 5, 4, requires_grad=True).log_softmax(-1)
    labels = torch.randint(0, 4, (8, 5))
    gathered = per_position.gather(-1, labels.unsqueeze(-1))
    assert torch.equal(_sequence_labels(gathered.grad_fn), labels)


def test_the_watch_never_reads_minigrad():
    class Adapter:
        framework = "minigrad"
    assert not PickedTargets(Adapter(), lambda error: None).enabled

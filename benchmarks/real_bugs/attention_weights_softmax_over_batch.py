"""Dot-product attention whose scores, flattened to (batch * queries, keys), are
normalised with ``nn.Softmax(dim=0)``: each key's weights sum to one down the batch instead
of each query's weights summing to one across its keys. A sample's context vector now
depends on the scores of every other sample in the batch, and within a sample nothing
makes the keys compete.

Reported: "Attention's softmax dimension is wrong?" -
https://github.com/PetrochukM/PyTorch-NLP/issues/2 ("the nn.Softmax(dims=0) ... does
softmax along the first dimension ... But the first dimension is batch_size * output_len,
so it does wrong direction softmax cuz it should do it along last dims query_len which
contains real scores for every context"; with dim=-1 "it worked"). Here a learned query
attends over a set of 4 digits, one of them flagged, and the label is the flagged digit's
class (the sets of attention_pooling_softmax_over_one_score). Fix: ``nn.Softmax(dim=-1)``.

Measured (300 steps, 512 held-out sets): accuracy 0.12 with the bug against 0.94 for the
fixed twin.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs.attention_pooling_softmax_over_one_score import sets

TITLE = "Attention's softmax dimension is wrong?"
LINK = "https://github.com/PetrochukM/PyTorch-NLP/issues/2"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300
FEATURES = 65
DIM = 32


class Attention(nn.Module):
    """A learned query attends over the keys of the items; returns the weighted values."""
    def __init__(self, fixed):
        super().__init__()
        self.query = nn.Parameter(torch.randn(1, 1, DIM) / DIM ** 0.5)
        self.keys = nn.Linear(FEATURES, DIM)
        # BUG (fixed=False): normalises down the (batch * queries) rows
        self.softmax = nn.Softmax(dim=-1 if fixed else 0)

    def forward(self, items):
        batch, length, _ = items.shape
        scores = self.query.expand(batch, -1, -1) @ self.keys(items).transpose(1, 2)
        weights = self.softmax(scores.view(batch * 1, length)).view(batch, 1, length)
        return (weights @ items).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    half = len(x) // 2
    model = nn.Sequential(Attention(fixed), nn.Linear(FEATURES, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for items, labels in sets(x[:half], y[:half], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        items, labels = (torch.cat(parts) for parts in zip(*sets(x[half:], y[half:], 8, seed=1)))
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon

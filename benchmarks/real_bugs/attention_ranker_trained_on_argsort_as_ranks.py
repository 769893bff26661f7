"""A small self-attention model that reads a list of six numbers and says, at every
position, the rank of the number there (a sorting network that outputs ranks, read with
one cross-entropy per position). The targets were made with argsort, which gives the
positions in sorted order - the index of the smallest, then the next - not each number's
rank (that is argsort of argsort). At each position the label is the position of
another number, so the model is taught an inverse permutation it cannot read off the
number it sits on; the loss still falls, and about a third of the ranks it predicts on
held-out lists are wrong against a few percent with the right targets.

Reported: "Bug in positional bits" -
https://github.com/sribdcn/Predict-and-Search_MILP_method/issues/6 ("torch.argsort(sorter)
returns the indices that sort the array, not the rank of each element. Using it directly
gives you a permutation perm, not per-row ranks"). Here 4000 random lists of six numbers
in [0, 1) (``_pointer318``), a value embedding, one 4-head self-attention block with a
feed-forward layer, a per-position head over the six ranks, Adam 3e-3, batches of 64,
300 steps.

Fix: ranks = order.argsort(dim=1), the argsort of the argsort.

Measured (held-out per-position rank accuracy, 1000 lists): 0.674 with the bug, 0.920
fixed; seeds + 1000: 0.679 vs 0.915.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._pointer318 import LENGTH, lists

TITLE = "Bug in positional bits"
LINK = "https://github.com/sribdcn/Predict-and-Search_MILP_method/issues/6"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


class Ranker(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.attention = nn.MultiheadAttention(hidden, 4, batch_first=True)
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.ff = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.ReLU(),
                                nn.Linear(2 * hidden, hidden))
        self.head = nn.Linear(hidden, LENGTH)

    def forward(self, x):
        h = self.embed(x.unsqueeze(-1))
        h = self.norm1(h + self.attention(h, h, h, need_weights=False)[0])
        h = self.norm2(h + self.ff(h))
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, order), (xh, oh) = lists(seed=0)
    if fixed:
        ranks = order.argsort(dim=1)
    else:
        ranks = order                           # BUG: argsort is not the rank
    true_held = oh.argsort(dim=1)
    model = Ranker()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            scores = model(x[index])
            loss = F.cross_entropy(scores.reshape(-1, LENGTH), ranks[index].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        pred = model(xh).argmax(-1)
    mon.held_out_rank_accuracy = (pred == true_held).float().mean().item()
    return mon

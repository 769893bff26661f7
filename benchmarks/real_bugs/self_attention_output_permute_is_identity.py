"""A SAGAN-style self-attention layer whose output is ``torch.bmm(proj_value,
attention.permute(0, 1, 2))`` - a permute that leaves the (batch, query, key) attention as
it is, where ``permute(0, 2, 1)`` was meant. Position i's output becomes the sum of the
values weighted by the column i of the attention - how much every query looks at key i -
instead of by row i, the weights position i gives to the keys. The columns do not sum to
one; and since each row does, the outputs averaged over the positions are the plain sum of
the values whatever the scores say. It runs (the shapes are square) and the loss falls.

Reported: "Is this a writing error: attention.permute(0,1,2)?" -
https://github.com/heykeetae/Self-Attention-GAN/issues/11 ("do you want to transpose
attention? but .permute(0,1,2) makes no change ... I think it is .permute(0,2,1)"; the
author: "You're right. permute(0,2,1) is correct permutation. (Batch * Query * Key ->
Batch * Key * Query)"). Here the repository's ``Self_Attn`` block (1x1 query/key/value
projections, softmax over the keys, ``gamma``-scaled residual) runs over a sequence of 6
digits, one flagged (the 65 input features are the channels), then a mean over the positions
and a small MLP head names the flagged digit's class (benchmarks/real_bugs/_attn.py). Fix:
``attention.permute(0, 2, 1)``.

Measured (300 steps of 64 sequences, Adam 3e-3; held-out accuracy on 512 sequences): seed
0, 0.287 with the bug against 0.918 for the fixed twin; seeds shifted by 1000, 0.238
against 0.922.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._attn import FEATURES, digits, held_out, sequences

TITLE = "Is this a writing error: attention.permute(0,1,2)?"
LINK = "https://github.com/heykeetae/Self-Attention-GAN/issues/11"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED", "ATTENTION_UNIFORM")
STEPS = 300
LENGTH = 6
DIM = 64


class Self_Attn(nn.Module):
    """The repository's block on a 1-d sequence: x (B, C, N)."""
    def __init__(self, in_dim, fixed):
        super().__init__()
        self.fixed = fixed
        self.query_conv = nn.Conv1d(in_dim, in_dim // 8, kernel_size=1)
        self.key_conv = nn.Conv1d(in_dim, in_dim // 8, kernel_size=1)
        self.value_conv = nn.Conv1d(in_dim, in_dim, kernel_size=1)
        self.gamma = nn.Parameter(torch.zeros(1))
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        proj_query = self.query_conv(x).permute(0, 2, 1)           # B x N x C'
        proj_key = self.key_conv(x)                                 # B x C' x N
        energy = torch.bmm(proj_query, proj_key)                    # B x N(query) x N(key)
        attention = self.softmax(energy)
        proj_value = self.value_conv(x)                             # B x C x N
        # BUG (fixed=False): permute(0, 1, 2) changes nothing
        out = torch.bmm(proj_value, attention.permute(0, 2, 1) if self.fixed
                        else attention.permute(0, 1, 2))
        return self.gamma * out + x


class Classifier(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.attn = Self_Attn(FEATURES, fixed)
        self.head = nn.Sequential(nn.Linear(FEATURES, DIM), nn.ReLU(), nn.Linear(DIM, 10))

    def forward(self, items):
        h = self.attn(items.transpose(1, 2))                        # B x C x N
        return self.head(h.mean(dim=2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xt, yt) = digits()
    model = Classifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for items, _, labels in sequences(x, y, steps, min_len=LENGTH, max_len=LENGTH):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        items, _, labels = held_out(xt, yt, min_len=LENGTH, max_len=LENGTH)
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon

"""A TabTransformer-style model given "feature-wise layer norm": every input feature's
vector is layer-normalised on its own before the model reads it. For a categorical column
that vector is its d-dimensional embedding; for a continuous column fed as its raw value it
is ONE number, and a LayerNorm over one value returns its shift - the same constant for
every row. All six numeric columns reach the network as constants; the model trains on the
categorical columns alone, its loss falls to what they explain, and nothing complains.

Reported: "[WIP] Added feature-wise layer norm" -
https://github.com/NVIDIA-Merlin/Transformers4Rec/pull/151 ("we could not apply layer norm
to continuous features, as their individual dim is 1 ... those cont. features get a value
close to 0 after the normalization"; the author suspects it reduced the paper's
accuracy). Here three categorical columns embedded from one offset table (d=16), each
embedding layer-normalised, one transformer block over them, and six standardised numeric
columns concatenated raw into the MLP (TabTransformer's layout); 2,000 synthetic rows whose
binary label mixes non-linear numeric terms, an interaction and category effects; Adam
1e-3, batches of 64.

Fix: layer-normalise only the d-dimensional embeddings; the continuous columns (already
standardised) go in as they are.

Measured (held-out accuracy on 1,000 rows): 0.748 with the bug, 0.801 fixed; seeds + 1000:
0.727 vs 0.793.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tabtf347 import Block, binary_accuracy, split_rows

TITLE = "[WIP] Added feature-wise layer norm"
LINK = "https://github.com/NVIDIA-Merlin/Transformers4Rec/pull/151"
EXPECTED = ("NORM_OVER_SINGLE_VALUE",)
STEPS = 300
LEVELS = (6, 8, 5)
NUMBERS = 6


class TabTransformer(nn.Module):
    def __init__(self, norm_continuous, dim=16, levels=LEVELS):
        super().__init__()
        self.norm_continuous = norm_continuous
        self.table = nn.Embedding(sum(levels), dim)
        self.register_buffer("offsets", torch.tensor([0, 6, 14]))
        self.categorical_norms = nn.ModuleList(nn.LayerNorm(dim) for _ in levels)
        if norm_continuous:                      # the fixed model has no such norms
            self.continuous_norms = nn.ModuleList(nn.LayerNorm(1) for _ in range(NUMBERS))
        self.block = Block(dim)
        self.mlp = nn.Sequential(nn.Linear(len(levels) * dim + NUMBERS, 64), nn.ReLU(),
                                 nn.Linear(64, 1))

    def forward(self, x, codes):
        tokens = self.table(codes + self.offsets)
        tokens = torch.stack([norm(tokens[:, j]) for j, norm in
                              enumerate(self.categorical_norms)], 1)
        if self.norm_continuous:                 # BUG: a LayerNorm over ONE value per feature
            x = torch.cat([norm(x[:, j:j + 1]) for j, norm in
                           enumerate(self.continuous_norms)], 1)
        return self.mlp(torch.cat([self.block(tokens).flatten(1), x], 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, codes, y), (xh, codes_h, yh) = split_rows(seed=0, levels=LEVELS)
    model = TabTransformer(norm_continuous=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(
                model(x[index], codes[index]).squeeze(-1), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = binary_accuracy(model, xh, codes_h, yh)
    return mon

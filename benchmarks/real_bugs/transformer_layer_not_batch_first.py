"""nn.TransformerEncoderLayer built with its default batch_first=False and fed (batch,
sequence, features): self-attention then runs across the samples of the batch, at each
sequence position, instead of across the positions of each sample.

Reported: "In h3, we should pass batch_first=True to TransformerEncoderLayer" -
https://github.com/Exorust/TorchLeet/issues/5 ("Torch by default uses batch_first=False
for the TransformerEncoderLayer, resulting in high training loss and test error"; the
maintainer: "Totally valid"). Here a small transformer classifies the digits read as 8
rows of 8 pixels (one token per row), mean-pooled over the rows. Fix: batch_first=True.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "In h3, we should pass batch_first=True to TransformerEncoderLayer"
LINK = "https://github.com/Exorust/TorchLeet/issues/5"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


class RowTransformer(nn.Module):
    def __init__(self, batch_first, dim=32):
        super().__init__()
        self.embed = nn.Linear(8, dim)
        self.position = nn.Parameter(torch.zeros(8, dim))
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.1,
                                       batch_first=batch_first),   # BUG when False
            2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 10)

    def forward(self, x):                    # x: (batch, 8 rows, 8 pixels)
        h = self.encoder(self.embed(x) + self.position)
        return self.classifier(h.mean(dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowTransformer(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb.view(-1, 8, 8)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

"""A small "pretrained" backbone for the fine-tuning reports: an MLP body trained for a few
steps on a source task (telling the digits 0-4 apart), returned without its head. Cases
then put a fresh head on it and fine-tune, as one fine-tunes a downloaded model."""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

PRETRAIN_STEPS = 150


def backbone(width=64):
    """Linear - LayerNorm - GELU twice: the shape of a transformer's feed-forward body."""
    return nn.Sequential(nn.Linear(64, width), nn.LayerNorm(width), nn.GELU(),
                         nn.Linear(width, width), nn.LayerNorm(width), nn.GELU())


def pretrained_backbone(width=64, seed=1):
    """The body after ``PRETRAIN_STEPS`` Adam steps on digits 0-4 (its head thrown away)."""
    torch.manual_seed(seed)
    x, y = classification()
    source = y < 5
    body = backbone(width)
    model = nn.Sequential(body, nn.Linear(width, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for xb, yb in batches(x[source], y[source], PRETRAIN_STEPS, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body


class RowTransformer(nn.Module):
    """A small post-norm transformer encoder over the 8 rows of a digit (8 tokens of 8
    pixels), read at the first token: the shape of a BERT-style body."""

    def __init__(self, width=64):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.position = nn.Parameter(torch.randn(8, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, 4, 2 * width, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, rows):
        return self.encoder(self.embed(rows) + self.position)[:, 0]


def pretrained_transformer(steps=100, seed=1):
    """A ``RowTransformer`` after ``steps`` AdamW steps (lr 1e-3) on digits 0-4, without its
    head."""
    torch.manual_seed(seed)
    x, y = classification()
    x, source = x.reshape(-1, 8, 8), y < 5
    body = RowTransformer()
    model = nn.Sequential(body, nn.Linear(64, 5))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for xb, yb in batches(x[source], y[source], steps, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body

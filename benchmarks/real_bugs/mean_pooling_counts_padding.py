"""A sentence classifier that mean-pools a transformer encoder's outputs over every position,
padding included: the attention itself is masked, but the padded positions still have
outputs (computed from the padding embedding and the real tokens), and the mean counts
them, so a line's features change with how much it was padded, that is with the longest
line it shares a batch with.

Reported: "transformers model doesn't output zeros for padded subtokens" -
https://github.com/huggingface/transformers/issues/17463 ("mean pooling over
last_hidden_state returns different results depending on the batch size ... padded by
tokenizer subtokens after passing it through the model are not zeros"). Here the sonnets'
verse lines, padded with id 0, labelled by whether they end in a comma. Fix: the mean over
the real positions only (the attention mask as pooling weights).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "transformers model doesn't output zeros for padded subtokens"
LINK = "https://github.com/huggingface/transformers/issues/17463"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class MeanPooledEncoder(nn.Module):
    def __init__(self, vocab, masked_mean, dim=32):
        super().__init__()
        self.dim, self.masked_mean = dim, masked_mean
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        padded = ids == 0
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(ids.shape[1]))
        hidden = self.encoder(x, src_key_padding_mask=padded)
        if self.masked_mean:
            real = (~padded).unsqueeze(-1).float()
            pooled = (hidden * real).sum(1) / real.sum(1)
        else:
            pooled = hidden.mean(1)            # BUG: the padded positions are averaged in
        return self.classifier(pooled)


def line_batches(ids, labels, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        batch = ids[rows]
        longest = int((batch != 0).sum(1).max())
        yield batch[:, :longest], labels[rows]       # padded to the batch's longest line


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    model = MeanPooledEncoder(vocab, masked_mean=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)

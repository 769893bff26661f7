"""Masked mean pooling that divides each line's summed token features by the number of real
tokens in the whole batch (``attention_mask.sum()``, a scalar) instead of by the line's own
count: every pooled vector is shrunk by a factor set by the other lines of the batch (about
the batch size times its mean length), and a line's features change with the company it
is batched with.

Reported: "Batch embedding averaging is incorrect for batch_size > 1" -
https://github.com/lm-sys/FastChat/issues/3785 ("sum_embeddings is per-sequence but
token_num sums tokens across the entire batch ... Each sequence should be divided by its
own token count ... This silently returns wrong embeddings when batch_size > 1"; fixed by
https://github.com/lm-sys/FastChat/pull/3839). Here the sonnets' verse lines, padded with
id 0, a per-token MLP, the masked mean and a linear classifier of whether the line holds a
comma. Fix: ``attention_mask.sum(dim=1, keepdim=True)``, one count per line.

How watch finds it: the dependency check changes one line's ids at a time (padding
included) and the other lines' outputs move, through the batch-wide count, first after
'tokens': BATCH_MIXING.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "Batch embedding averaging is incorrect for batch_size > 1"
LINK = "https://github.com/lm-sys/FastChat/issues/3785"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


class MeanPooledLines(nn.Module):
    def __init__(self, vocab, per_line_count, dim=32):
        super().__init__()
        self.per_line_count = per_line_count
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.tokens = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):                              # (B, T), 0 pads
        mask = (ids != 0).unsqueeze(-1).float()
        summed = (self.tokens(self.embed(ids)) * mask).sum(1)
        if self.per_line_count:
            count = mask.sum(1)                          # (B, 1): each line's own tokens
        else:
            count = mask.sum()                           # BUG: the whole batch's tokens
        return self.classifier(summed / count)


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
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (ids == comma).any(1).long()
    model = MeanPooledLines(vocab, per_line_count=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)

"""A text CNN that feeds its embeddings, (batch, length, embedding), straight into
``nn.Conv1d`` with the permute commented out: Conv1d reads axis 1 as channels, so the
sequence positions become input channels and the kernel slides along the embedding
features, whose order means nothing. The layer sizes were set to match (``in_channels`` =
the maximum length), so nothing fails; the model only learns position-bound patterns.

Reported: "你好，我想问一下Conv1d的输入格式问题。" (a question about Conv1d's input format) -
https://github.com/ZephyrChenzf/text-classification-pytorch/issues/1 ("the embedding output
is (batch_size, length, embedding_dim) while Conv1d takes (batch_size, embedding_dim,
length) ... I see your comment uses permute to convert the format, why was it commented out
afterwards?"; the repository's CNN_model builds ``nn.Conv1d(input_dim, ...)`` with input_dim
= MAXLEN and ``# x = x.permute(0, 2, 1)``). Here windows of 24 characters of the sonnets,
embedded in 16 dimensions, classified by whether they contain the word "the" anywhere (an
n-gram task, what a text CNN is for). Fix: permute to (batch, embedding, length) and give
Conv1d the embedding size as its channels.
"""
import torch
from torch import nn

import numpy as np

from benchmarks.real_bugs._common import SONNETS, characters, train_watched

TITLE = "你好，我想问一下Conv1d的输入格式问题。"
LINK = "https://github.com/ZephyrChenzf/text-classification-pytorch/issues/1"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 200
LENGTH, EMBEDDING = 24, 16


class TextCNN(nn.Module):
    def __init__(self, vocab, fixed, channels=64, classes=2):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, EMBEDDING)
        # BUG (fixed=False): in_channels = the sequence length, as in the report
        self.conv = nn.Conv1d(EMBEDDING if fixed else LENGTH, channels, 3, padding=1)
        self.out = nn.Linear(channels, classes)

    def forward(self, ids):
        x = self.embed(ids)                     # (batch, length, embedding)
        if self.fixed:
            x = x.permute(0, 2, 1)              # (batch, embedding, length)
        h = torch.relu(self.conv(x))
        return self.out(h.amax(dim=2))          # max over the conv's sliding axis


def windows(ids, word, steps, batch_size=64, seed=0):
    """``steps`` batches of random windows of LENGTH characters, labelled 1 where ``word``
    (a tensor of ids) occurs in the window."""
    rng = np.random.default_rng(seed)
    found = torch.zeros(len(ids), dtype=torch.bool)     # found[i]: the word starts at i
    n = len(word)
    found[:len(ids) - n + 1] = (ids.unfold(0, n, 1) == word).all(dim=1)
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - LENGTH, batch_size).tolist()
        x = torch.stack([ids[s:s + LENGTH] for s in starts])
        y = torch.stack([found[s:s + LENGTH - n + 1].any() for s in starts]).long()
        yield x, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    with open(SONNETS, encoding="utf-8") as handle:
        chars = sorted(set(handle.read()))
    word = torch.tensor([chars.index(c) for c in "the"])
    model = TextCNN(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), windows(ids, word, steps),
                         **watch)

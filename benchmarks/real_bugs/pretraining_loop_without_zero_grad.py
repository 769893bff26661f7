"""A next-token pretraining loop calls loss.backward() and optimizer.step() but never
zeroes the gradients: every update applies the sum of all gradients since the start.

Reported: "feat: 17 book-derived mlops skills (Raschka + Huyen)" -
https://github.com/affaan-m/ECC/pull/3122 (a review of its pretraining loop: it "calls
loss.backward() and optimizer.step() without clearing gradients first", so "every batch
after the first applies both the current gradient and stale gradients from earlier
batches"; fix: optimizer.zero_grad() before each backward pass). Here a character-level
GRU language model on the sonnets with AdamW (lr 4e-4, weight decay 0.1, as in the book
the loop comes from), windows of 32 characters.
Measured (seed 0, 150 steps, 10 other batches of windows): loss 2.856 (bug) against
2.687 (fixed).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "feat: 17 book-derived mlops skills (Raschka + Huyen)"
LINK = "https://github.com/affaan-m/ECC/pull/3122"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 150


class CharModel(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 48)
        self.rnn = nn.GRU(48, 96, batch_first=True)
        self.head = nn.Linear(96, vocab)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps):
            if fixed:
                optimizer.zero_grad()        # BUG when not fixed: missing
            logits = model(window[:, :-1])
            loss = loss_fn(logits.reshape(-1, vocab), window[:, 1:].reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

"""An IMDB GRU classifier whose (batch, words) ids are embedded and fed to an nn.GRU built
without batch_first=True: the GRU reads the batch axis as time and the words as the batch,
so "the last hidden state" x[:, -1] is, for each review, the output at its LAST WORD
POSITION after a recurrence that ran across the other reviews of the minibatch. The model
never reads a review's words in order; it sees one word slot of it, mixed with its batch
neighbours.

Reported: "Sentiment analysis with LSTM in IMDB dataset" -
https://github.com/pytorch/pytorch/issues/2674 (an IMDB GRU example that trains but
lags the other frameworks; the reply: "I think batch_first should be set to True to match
the input format", and soumith: "either that, or even better, transpose the data that
the generator yields"). Here synthetic reviews (64-word vocabulary, sentiment words
among filler, end-padded to 40), embedding 32, GRU 32, Adam 3e-3, 32 reviews a batch.
Fix: nn.GRU(..., batch_first=True).

Measured harm (held-out accuracy, 400 reviews, STEPS steps): 0.47 vs 0.91 at seed 0;
seeds + 1000: 0.51 vs 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_sentiment import VOCAB, accuracy, minibatches, split

TITLE = "Sentiment analysis with LSTM in IMDB dataset"
LINK = "https://github.com/pytorch/pytorch/issues/2674"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED", "BATCH_MIXING")
STEPS = 300
HELD_OUT = {}


class GRUSentiment(nn.Module):
    def __init__(self, batch_first, dim=32):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, dim)
        self.gru = nn.GRU(dim, dim, batch_first=batch_first)   # BUG when not fixed: False
        self.out = nn.Linear(dim, 2)

    def forward(self, ids):
        x, _ = self.gru(self.embedding(ids))
        return self.out(x[:, -1, :])          # "just get the last hidden state"


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, _, labels), (test_ids, _, test_labels) = split()
    model = GRUSentiment(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    HELD_OUT["accuracy"] = accuracy(model, test_ids, test_labels)
    return mon

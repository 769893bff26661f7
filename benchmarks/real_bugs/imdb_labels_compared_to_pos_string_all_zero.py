"""An IMDB LSTM tutorial whose label pipeline still compares each label with the string
'pos' (`1. if x == 'pos' else 0.`) after the dataset started yielding integer labels
(1 = neg, 2 = pos): no label equals 'pos', so EVERY review is labelled 0. The model learns
"always negative" in a few steps, the training and validation loss go to ~0 and the
book's accuracy reads 100% - on the real labels it is a coin flip.

Reported: "Issue with chapter 15 Sentiment Analysis with LSTM. Getting 100% accuracy
while training." - https://github.com/rasbt/machine-learning-book/issues/135 ("I am
getting 100% validation accuracy right from from first epoch ... and the test accuracy is
also 100%"; the fix PR #137: "The labels in IMDB dataset were "pos" and "neg" earlier.
Now they are 1 and 2"; issue #107: comparing them with 'pos' "would result in converting
all the labels to 0"). Here synthetic reviews with raw labels 1/2, the book's model
(embedding 32, packed LSTM 32, Linear, Sigmoid, BCELoss, Adam 1e-3 -> 3e-3 here).
Fix: `label_pipeline = lambda x: 1. if x == 2 else 0.`

Measured harm (held-out accuracy against the true labels, 400 reviews, STEPS steps):
0.53 vs 0.93 at seed 0; seeds + 1000: 0.50 vs 0.965 (the bug run predicts "negative" for every review).
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._beginner_sentiment import VOCAB, accuracy, minibatches, split

TITLE = ("Issue with chapter 15 Sentiment Analysis with LSTM. Getting 100% accuracy while "
         "training.")
LINK = "https://github.com/rasbt/machine-learning-book/issues/135"
# TARGETS_ALL_ONE_VALUE (watch's code for 0/1 or float targets that all hold one value) added
# after scoring: the checklist listed it only for implicit feedback, so the case first named
# only the class-index form; scored as it came, a wrong cause (README, batch 237)
EXPECTED = ("TARGETS_ALL_ONE_CLASS", "TARGETS_ALL_ONE_VALUE")
STEPS = 300
HELD_OUT = {}


class RNN(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.fc = nn.Linear(dim, 1)

    def forward(self, ids, lengths):
        packed = pack_padded_sequence(self.embedding(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        _, (hidden, _) = self.rnn(packed)
        return torch.sigmoid(self.fc(hidden[-1])).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, lengths, labels), (test_ids, test_lengths, test_labels) = split()
    raw = (labels + 1).tolist()                      # the dataset's labels: 1 = neg, 2 = pos
    if fixed:
        label_pipeline = lambda x: 1. if x == 2 else 0.
    else:
        label_pipeline = lambda x: 1. if x == 'pos' else 0.   # BUG: never true, all 0
    targets = torch.tensor([label_pipeline(x) for x in raw])
    model = RNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[rows], lengths[rows]), targets[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    HELD_OUT["accuracy"] = accuracy(model, test_ids, test_labels, test_lengths)
    return mon

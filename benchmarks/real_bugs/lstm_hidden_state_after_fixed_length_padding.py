"""An IMDB LSTM sentiment classifier fed reviews end-padded to one fixed global length and
run without packing: the final hidden state h_n it classifies from comes after every
padding step, so a short review is summarised only after a long run of meaningless <pad>
inputs that wash out what the LSTM read.

Reported: "LSTM Sentiment" (project write-up, "Padding Problem and the Fix") -
https://seungminnam.github.io/DL-Projects/5_LSTM_Sentiment/summary.html ("The first naive
version took the final hidden state after feeding a fully padded review through the
LSTM ... Result: near-random performance around 51% test accuracy"; the fix:
pack_padded_sequence "so the LSTM ignores padded timesteps"). Here synthetic reviews of
6-40 words padded to a fixed 120 (their 256), embedding 32 with padding_idx=0, LSTM 32,
Linear(32, 1), BCEWithLogitsLoss, Adam 3e-3. Fix: pack_padded_sequence with the lengths.

Measured harm (held-out accuracy, 400 reviews, STEPS steps): 0.53 vs 0.91 at seed 0;
seeds + 1000: 0.50 vs 0.94.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._beginner_sentiment import VOCAB, accuracy, minibatches, split

TITLE = "LSTM Sentiment (Padding Problem and the Fix)"
LINK = "https://seungminnam.github.io/DL-Projects/5_LSTM_Sentiment/summary.html"
EXPECTED = ("PADDING_LEAK",)
STEPS = 200
FIXED_LENGTH = 120
HELD_OUT = {}


class SentimentLSTM(nn.Module):
    def __init__(self, packed, dim=32):
        super().__init__()
        self.packed = packed
        self.embedding = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.fc = nn.Linear(dim, 1)

    def forward(self, ids, lengths):
        x = self.embedding(ids)
        if self.packed:
            x = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        _, (hidden, _) = self.lstm(x)          # BUG when not packed: h_n after the padding
        return self.fc(hidden[-1]).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, lengths, labels), (test_ids, test_lengths, test_labels) = split()
    pad = lambda t: nn.functional.pad(t, (0, FIXED_LENGTH - t.shape[1]))
    ids, test_ids = pad(ids), pad(test_ids)
    model = SentimentLSTM(packed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[rows], lengths[rows]), labels[rows].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    HELD_OUT["accuracy"] = accuracy(model, test_ids, test_labels, test_lengths)
    return mon

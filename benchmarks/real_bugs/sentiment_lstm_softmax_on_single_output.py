"""An IMDB LSTM sentiment classifier whose one output unit goes through a softmax before
binary cross-entropy: a softmax over a single unit is exactly 1.0 for every review, so
every prediction is "positive", the loss is a constant and no gradient reaches the model;
accuracy sits at the positive rate whatever the training.

Reported: "LSTM 在 IMDb 评论上训练时准确率停留在 50%" (accuracy stuck at 50% when training an
LSTM on IMDb reviews) - https://www.52sbl.cn/discussion/115307.html (Keras
`Dense(1, activation='softmax')` after `LSTM`, compiled with `binary_crossentropy`; the
loss stays at 7.9712 and acc at 0.5000 every epoch). Here the same in PyTorch: synthetic
reviews (64-word vocabulary, end-padded to 40), embedding 32, LSTM 32 read at its final
hidden state via pack_padded_sequence, Linear(32, 1), softmax(dim=1), BCELoss, Adam 3e-3.
Fix: a sigmoid on the single unit.

Measured harm (held-out accuracy, 400 reviews, STEPS steps): 0.47 vs 0.93 at seed 0;
seeds + 1000: 0.50 vs 0.965 (the bug run predicts "positive" for every review).
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._beginner_sentiment import VOCAB, accuracy, minibatches, split

TITLE = "LSTM 在 IMDb 评论上训练时准确率停留在 50%"
LINK = "https://www.52sbl.cn/discussion/115307.html"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300
HELD_OUT = {}


class LSTMSentiment(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embedding = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.dense = nn.Linear(dim, 1)

    def forward(self, ids, lengths):
        packed = pack_padded_sequence(self.embedding(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        _, (hidden, _) = self.lstm(packed)
        logit = self.dense(hidden[-1])
        if self.fixed:
            return torch.sigmoid(logit)
        return torch.softmax(logit, dim=1)    # BUG: softmax over one unit is always 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, lengths, labels), (test_ids, test_lengths, test_labels) = split()
    model = LSTMSentiment(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            optimizer.zero_grad()
            probs = model(ids[rows], lengths[rows]).squeeze(1)
            loss = loss_fn(probs, labels[rows].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    HELD_OUT["accuracy"] = accuracy(model, test_ids, test_labels, test_lengths)
    return mon

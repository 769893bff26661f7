"""A sentiment-style LSTM classifier whose hidden state is initialised once per epoch and
then carried (detached) from batch to batch, over data stored in alternating label order
and batched without shuffling: row i of every batch starts from the state the previous
batch's row i left behind, and with an even batch size that row always had the same label
- so the model learns to read the label from the carried state instead of from the text.
On held-out text, started from a fresh state, that signal is gone.

Reported: "Sentiment RNN predict() function predicting wrong results with negative
reviews" - https://github.com/udacity/deep-learning-v2-pytorch/issues/5 (the notebook's
`h = net.init_hidden(batch_size)` once per epoch, `h = tuple([each.data for each in h])`
per batch; a commenter: "the model from the notebook is memorizing the alternating class
structure. If you shuffle the data ... Testing accuracy degrades from perfect to random ...
it seems like init_hidden() should perh[aps be called for every batch]"). Here made-up
surnames of two languages of origin, pre-padded to 16 characters, stored alternating
language by language, batches of 50 in order, an embedding + LSTM + linear head on the
last step, BCE, Adam. Fix: a fresh `init_hidden` for every batch.

Measured harm (held-out accuracy over 2,000 shuffled names, each batch from a fresh
state, after 300 steps): bug 0.61 vs fixed 0.89; seeds + 1000: 0.83 vs 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import VOCAB, accuracy, pad, surnames

TITLE = "Sentiment RNN predict() function predicting wrong results with negative reviews"
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/issues/5"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 300
BATCH, LENGTH = 50, 16
RATE = 0.3                               # a weak signal, like a review's sentiment


class SentimentRNN(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.dim = dim
        self.embedding = nn.Embedding(VOCAB, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.fc = nn.Linear(dim, 1)

    def forward(self, ids, hidden):
        out, hidden = self.lstm(self.embedding(ids), hidden)
        return self.fc(out[:, -1]).squeeze(1), hidden

    def init_hidden(self, batch_size):
        return (torch.zeros(1, batch_size, self.dim), torch.zeros(1, batch_size, self.dim))


def alternating(names, labels):
    """The rows reordered so that the labels alternate 0, 1, 0, 1, ..."""
    zeros = (labels == 0).nonzero().flatten().tolist()
    ones = (labels == 1).nonzero().flatten().tolist()
    order = [r for pair in zip(zeros, ones) for r in pair]
    return [names[r] for r in order], labels[order]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    names, labels = alternating(*surnames(6000, seed=0, classes=2, ending_rate=RATE))
    ids, _ = pad(names, left=True, length=LENGTH)
    held_names, held_labels = surnames(2000, seed=1, classes=2, ending_rate=RATE)
    net = SentimentRNN()
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    criterion = nn.BCEWithLogitsLoss()
    per_epoch = len(ids) // BATCH
    with nd.watch(net, optimizer, **watch) as mon:
        for step in range(steps):
            b = step % per_epoch
            if b == 0:
                h = net.init_hidden(BATCH)       # once per epoch, as in the notebook
            if fixed:
                h = net.init_hidden(BATCH)
            h = tuple(each.data for each in h)   # BUG (unless fixed): last batch's state
            inputs = ids[b * BATCH:(b + 1) * BATCH]
            target = labels[b * BATCH:(b + 1) * BATCH].float()
            optimizer.zero_grad()
            output, h = net(inputs, h)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    net.eval()

    def predict(batch):
        logit, _ = net(pad(batch, left=True, length=LENGTH)[0], net.init_hidden(len(batch)))
        return torch.stack([-logit, logit], 1)

    mon.held_out_accuracy = accuracy(predict, held_names, held_labels)
    return mon

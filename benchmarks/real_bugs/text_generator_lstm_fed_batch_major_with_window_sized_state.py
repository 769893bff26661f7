"""A text-generation LSTM from a tutorial: the embedded batch (batch, window, features) goes
into an nn.LSTM left at batch_first=False, and the initial state it is handed is built as
(layers, window, hidden) - sized by the window length, which is exactly what the LSTM
expects for its "batch" - so nothing complains. The LSTM runs along the batch instead of
along the text: at each window position it reads that position's character in every
sample before, never the characters before it in the same sample. The loss falls to what
one character tells about the next, and no further.

Reported: "LSTM input tensor and initial state dimensions" -
https://github.com/closeheat/pytorch-lstm-text-generation-tutorial/issues/3 ("While this
doesn't cause a runtime error, the network is confusing the sequence length for the batch
size"; the initial states are (num_layers, sequence_length, lstm_size)). Here the same
model (embedding, 2-layer LSTM, linear over the vocabulary, zero initial state from
init_state(sequence_length)) on the sonnets, character-level: windows of 32 characters
from the first 90% of the text, batches of 32, Adam, 300 steps.
Fix: nn.LSTM(..., batch_first=True) and an initial state of (layers, batch, hidden).

Measured (held-out next-character accuracy on 200 windows from the last 10% of the
text): seed 0: 0.298 with the bug, 0.335 fixed; seeds + 1000: 0.282 vs 0.337.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "LSTM input tensor and initial state dimensions"
LINK = "https://github.com/closeheat/pytorch-lstm-text-generation-tutorial/issues/3"
EXPECTED = ("BATCH_MIXING", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 300
LENGTH, LAYERS, SIZE = 32, 2, 64


class Model(nn.Module):
    def __init__(self, vocab, fixed):
        super().__init__()
        self.fixed = fixed
        self.embedding = nn.Embedding(vocab, SIZE)
        self.lstm = nn.LSTM(SIZE, SIZE, LAYERS, batch_first=fixed)   # BUG: batch_first=False
        self.fc = nn.Linear(SIZE, vocab)

    def init_state(self, size):
        return (torch.zeros(LAYERS, size, SIZE), torch.zeros(LAYERS, size, SIZE))

    def forward(self, x):                                   # x: (batch, window)
        state = self.init_state(x.size(0) if self.fixed else x.size(1))
        output, _ = self.lstm(self.embedding(x), state)
        return self.fc(output)                              # (batch, window, vocab)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    cut = int(len(ids) * 0.9)
    train_ids, held_ids = ids[:cut], ids[cut:]
    model = Model(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(train_ids, steps, length=LENGTH, seed=0):
            x, y = window[:, :-1], window[:, 1:]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x).transpose(1, 2), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = torch.cat(list(text_windows(held_ids, 1, batch_size=200, length=LENGTH, seed=1)))
    model.eval()
    with torch.no_grad():
        right = (model(held[:, :-1]).argmax(-1) == held[:, 1:]).float().mean().item()
    mon.held_out_next_char_accuracy = round(right, 3)
    return mon

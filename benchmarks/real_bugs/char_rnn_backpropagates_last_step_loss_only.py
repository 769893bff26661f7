"""A hand-written char-RNN training loop computes the cross-entropy at every step of the
BPTT window, adds each one's value to the number it prints - and calls ``backward()`` on
``loss``, the variable the loop left holding the LAST step's loss. Fifteen of every sixteen
predictions are never trained; only the window's last character is, from whatever state the
window built. The printed loss falls (the last step learns, and the others share its
weights), so nothing looks wrong.

Reported: "Watching a Character-Level RNN Learn: Training Observations and the Loss Plateau
Problem" - https://learn.biosrag.com/ai/rnn-training-2.html (a single-layer 128-unit
sigmoid RNN cell, BPTT over 16 steps; "After fixing a BPTT bug that previously only
backpropagated through the last time step, the total loss is now the sum of cross-entropy
losses across all 16 BPTT steps"; the samples improved from "rithan wwan ows pact" to real
words). Here the same cell on one-hot characters of made-up names (``_char_rnn``), windows
of 16, Adam 5e-3. Fix: backpropagate the sum (here the mean) of all the steps' losses.
Measured (held-out next-character cross-entropy over every position, nats, 300 steps):
1.42 with the bug vs 1.02 fixed; seeds + 1000: 1.35 vs 1.02.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._char_rnn import LENGTH, held_out_nll, split_text, windows

TITLE = ("Watching a Character-Level RNN Learn: Training Observations and the Loss Plateau "
         "Problem")
LINK = "https://learn.biosrag.com/ai/rnn-training-2.html"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED",)
STEPS = 300


class SigmoidRNN(nn.Module):
    def __init__(self, vocab, hidden=128):
        super().__init__()
        self.vocab, self.hidden = vocab, hidden
        self.xh = nn.Linear(vocab, hidden)
        self.hh = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(hidden, vocab)

    def cell(self, x, h):
        return torch.sigmoid(self.xh(x) + self.hh(h))

    def forward(self, ids):
        x = nn.functional.one_hot(ids, self.vocab).float()
        h = torch.zeros(ids.shape[0], self.hidden)
        outs = []
        for t in range(ids.shape[1]):
            h = self.cell(x[:, t], h)
            outs.append(self.out(h))
        return torch.stack(outs, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, vocab = split_text()
    model = SigmoidRNN(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for w in windows(train, steps):
            x = nn.functional.one_hot(w[:, :-1], vocab).float()
            h = torch.zeros(w.shape[0], model.hidden)
            optimizer.zero_grad()
            total, losses = 0.0, []
            for t in range(LENGTH):
                h = model.cell(x[:, t], h)
                loss = criterion(model.out(h), w[:, t + 1])
                total += loss.item()               # what the loop prints
                losses.append(loss)
            if fixed:
                loss = torch.stack(losses).mean()
            loss.backward()                        # BUG when not fixed: the last step's only
            optimizer.step()
            mon.step(loss)
    mon.held_out = held_out_nll(model, held)
    return mon
